"""Row 32: jax.jit on a method without a static self, or a bad static spec, fails.

Observed with JAX 0.10.2 (`python r32_bad_static.py`): Dense: TypeError (self not a valid JAX type); DenseStatic: [1. 1.]; affine: ValueError at decoration.
"""
from functools import partial

import jax
import jax.numpy as jnp


class Dense:
    def __init__(self, w):
        self.w = w

    @jax.jit  # positive: self is not a valid JAX type
    def __call__(self, x):
        return x @ self.w


class DenseStatic:
    def __init__(self, w):
        self.w = w

    @partial(jax.jit, static_argnums=0)  # negative: self is static
    def __call__(self, x):
        return x @ self.w


if __name__ == "__main__":
    try:
        Dense(jnp.eye(2))(jnp.ones(2))
    except Exception as e:
        print(type(e).__name__, str(e)[:80])
    print(DenseStatic(jnp.eye(2))(jnp.ones(2)))


# Last, because it fails at import time, when the decorator runs.
@partial(jax.jit, static_argnums=2)  # positive: there is no argument 2
def affine(x, w):
    return x @ w
