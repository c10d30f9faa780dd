"""Row 41: a Flax NNX module mutated under plain jax.jit: the update is lost; nnx.jit keeps it.

Observed with JAX 0.10.2 (`python r41_nnx_plain_jit.py`): jax.jit: 0 after two calls (update lost); nnx.jit: 2.
"""
import jax
import jax.numpy as jnp
from flax import nnx


class Counter(nnx.Module):
    def __init__(self):
        self.count = nnx.Variable(jnp.array(0))


@jax.jit
def tick(counter):
    counter.count[...] += 1  # positive: lost after the call
    return counter.count[...]


@nnx.jit
def tick_ok(counter):
    counter.count[...] += 1  # negative: nnx.jit propagates the update
    return counter.count[...]


if __name__ == "__main__":
    c = Counter()
    tick(c)
    tick(c)
    print("jax.jit:", c.count[...])
    c = Counter()
    tick_ok(c)
    tick_ok(c)
    print("nnx.jit:", c.count[...])
