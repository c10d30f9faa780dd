"""Row 7: a jitted method with static self reads a stale attribute after it changes.

Observed with JAX 0.10.2 (`python r07_static_self.py`): 6.0 4.0; after set_scale(5.0): 6.0 (stale).
"""
from functools import partial

import jax
import jax.numpy as jnp


class Scaler:
    def __init__(self, scale):
        self.scale = scale
        self.offset = 1.0  # set once

    @partial(jax.jit, static_argnums=0)
    def apply(self, x):
        return x * self.scale  # positive: self is hashed by identity, scale is stale

    @partial(jax.jit, static_argnums=0)
    def shift(self, x):
        return x + self.offset  # negative: never reassigned after __init__

    def set_scale(self, scale):
        self.scale = scale


if __name__ == "__main__":
    s = Scaler(2.0)
    x = jnp.float32(3.0)
    print(s.apply(x), s.shift(x))
    s.set_scale(5.0)
    print("after set_scale(5.0):", s.apply(x))
