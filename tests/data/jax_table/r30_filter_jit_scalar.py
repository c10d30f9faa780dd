"""Row 30: Python scalars are static under eqx.filter_jit: one trace per value.

Observed with JAX 0.10.2 (`python r30_filter_jit_scalar.py`): traces for 8 calls: 5 (one per Python float, one for the arrays).
"""
import equinox as eqx
import jax.numpy as jnp

traces = []


@eqx.filter_jit
def shrink(x, factor):
    traces.append(1)
    return x * factor


def anneal(x):
    for step in range(4):
        x = shrink(x, 1.0 / (step + 1))  # positive: a new float each step
    for step in range(4):
        x = shrink(x, jnp.asarray(1.0 / (step + 1)))  # negative: an array is traced
    return x


if __name__ == "__main__":
    anneal(jnp.ones(2))
    print("traces for 8 calls:", len(traces))
