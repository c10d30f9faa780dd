"""Row 24: next() on an outer iterator under jax.jit happens once, at trace time.

Observed with JAX 0.10.2 (`python r24_iterator.py`): [0.9, 0.9, 0.9] (the same lr every call); host next(): 0.889.
"""
import itertools

import jax
import jax.numpy as jnp

schedule = itertools.cycle([0.1, 0.01, 0.001])


@jax.jit
def step(w, g):
    lr = next(schedule)  # positive: the same lr on every call
    return w - lr * g


@jax.jit
def step_lr(w, g, lr):
    return w - lr * g


def train(w, g):
    rates = iter([0.1, 0.01, 0.001])
    for _ in range(3):
        w = step_lr(w, g, next(rates))  # negative: next() in the host loop
    return w


if __name__ == "__main__":
    print([float(step(jnp.float32(1.0), jnp.float32(1.0))) for _ in range(3)])
    print(train(jnp.float32(1.0), jnp.float32(1.0)))
