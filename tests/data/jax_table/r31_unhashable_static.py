"""Row 31: an unhashable static argument raises ValueError under jax.jit.

Observed with JAX 0.10.2 (`python r31_unhashable_static.py`): ValueError (non-hashable static argument); the tuple: (32,).
"""
from functools import partial

import jax
import jax.numpy as jnp


@partial(jax.jit, static_argnames="features")
def mlp_widths(x, features):
    for f in features:
        x = jnp.tanh(x[..., :1] * jnp.ones(f))
    return x


def build(x):
    a = mlp_widths(x, features=[64, 32])  # positive: a list is unhashable
    b = mlp_widths(x, features=(64, 32))  # negative: a tuple hashes by value
    return a, b


if __name__ == "__main__":
    try:
        build(jnp.ones(2))
    except Exception as e:
        print(type(e).__name__)
    print(mlp_widths(jnp.ones(2), features=(64, 32)).shape)
