"""Row 9: Python/NumPy random and time under jax.jit are evaluated once, at trace time.

Observed with JAX 0.10.2 (`python r09_frozen_random.py`): the same noise twice; the same time.time() twice; two different jax.random draws.
"""
import time

import jax
import jax.numpy as jnp
import numpy as np


@jax.jit
def add_noise(x):
    noise = np.random.normal(size=x.shape)  # positive: the same noise on every call
    return x + noise


@jax.jit
def stamp(x):
    return x, time.time()  # positive: the trace time, every call


@jax.jit
def add_noise_keyed(key, x):
    key, sub = jax.random.split(key)
    return key, x + jax.random.normal(sub, x.shape)  # negative: explicit PRNG key


if __name__ == "__main__":
    x = jnp.zeros(2)
    print(add_noise(x), add_noise(x))
    print(stamp(x)[1], stamp(x)[1])
    k = jax.random.key(0)
    k, a = add_noise_keyed(k, x)
    k, b = add_noise_keyed(k, x)
    print(a, b)
