"""Row 28: weak vs strong, int vs float arguments retrace plain jax.jit: runtime evidence
(STG902) only, nothing static to report.

Observed with JAX 0.10.2 (`python r28_weak_types.py`): traces for 6 calls: 4 (int, float, strong float32, strong int32 differ).
"""
import jax
import jax.numpy as jnp

traces = []


@jax.jit
def scale(x, s):
    traces.append(1)
    return x * s


def run(x):
    out = [scale(x, 2), scale(x, 3), scale(x, 2.0)]  # negative: no static STG501
    out += [scale(x, jnp.float32(2.0)), scale(x, jnp.int32(2)), scale(x, 4)]
    return out


if __name__ == "__main__":
    run(jnp.ones(2))
    print("traces for 6 calls:", len(traces))
