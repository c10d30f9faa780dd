"""Row 33: a static object hashed by identity, built anew per call, retraces every call.

Observed with JAX 0.10.2 (`python r33_identity_static.py`): traces: 4 (three Config objects, one FrozenConfig).
"""
import dataclasses
from functools import partial

import jax
import jax.numpy as jnp

traces = []


class Config:
    def __init__(self, depth):
        self.depth = depth


@dataclasses.dataclass(frozen=True)
class FrozenConfig:
    depth: int


@partial(jax.jit, static_argnames="config")
def apply(x, config):
    traces.append(1)
    return x * config.depth


def run(x):
    for _ in range(3):
        apply(x, config=Config(2))  # positive: a new identity per call
    for _ in range(3):
        apply(x, config=FrozenConfig(2))  # negative: equal by value


if __name__ == "__main__":
    run(jnp.ones(2))
    print("traces:", len(traces))
