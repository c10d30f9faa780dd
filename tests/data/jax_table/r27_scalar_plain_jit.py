"""Row 27: Python scalars passed to plain jax.jit do NOT retrace (weak-typed, traced).

Observed with JAX 0.10.2 (`python r27_scalar_plain_jit.py`): traces: 1 (five different Python floats, plain jax.jit).
"""
import jax
import jax.numpy as jnp

traces = []


@jax.jit
def decay(x, rate):
    traces.append(1)
    return x * (1.0 - rate)


def train(x):
    for epoch in range(5):
        x = decay(x, 0.1 / (epoch + 1))  # negative: one trace for all five values
    return x


if __name__ == "__main__":
    train(jnp.ones(2))
    print("traces:", len(traces))
