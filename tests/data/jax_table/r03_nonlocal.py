"""Row 3: a nonlocal counter mutated in a jitted closure counts traces, not calls.

Observed with JAX 0.10.2 (`python r03_nonlocal.py`): jit: [1, 1, 1]; eager: [1, 2, 3]; carried: [1, 2, 3].
"""
import jax
import jax.numpy as jnp


def make_step():
    calls = 0

    @jax.jit
    def step(x):
        nonlocal calls
        calls += 1  # positive: happens only while tracing
        return x * calls

    return step


@jax.jit
def step_counted(x, calls):
    calls = calls + 1  # negative: the count is carried through the function's outputs
    return x * calls, calls


if __name__ == "__main__":
    step = make_step()
    print("jit:", [int(step(jnp.float32(1.0))) for _ in range(3)])
    with jax.disable_jit():
        eager = make_step()
        print("eager:", [int(eager(jnp.float32(1.0))) for _ in range(3)])
    c = jnp.int32(0)
    outs = []
    for _ in range(3):
        y, c = step_counted(jnp.float32(1.0), c)
        outs.append(int(y))
    print("carried:", outs)
