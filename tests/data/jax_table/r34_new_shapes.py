"""Row 34: new shapes or pytree structures retrace jax.jit once each: runtime evidence
(STG902) only; nothing static to report.

Observed with JAX 0.10.2 (`python r34_new_shapes.py`): traces: 3 (one per shape).
"""
import jax
import jax.numpy as jnp

traces = []


@jax.jit
def embed(tokens):
    traces.append(1)
    return jnp.sum(tokens, axis=-1)


def batches():
    for length in (8, 16, 32):
        embed(jnp.ones((2, length)))  # negative: no static STG501 for array arguments


if __name__ == "__main__":
    batches()
    print("traces:", len(traces))
