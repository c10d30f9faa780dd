"""Row 29: a changing value of a static argument retraces once per value.

Observed with JAX 0.10.2 (`python r29_static_value.py`): traces: 4 (three rates, then one for the repeated static values).
"""
from functools import partial

import jax
import jax.numpy as jnp

traces = []


@partial(jax.jit, static_argnames=("dropout_rate", "training"))
def forward(x, dropout_rate, training):
    traces.append(1)
    return x * (1.0 - dropout_rate) if training else x


def sweep(x):
    for rate in (0.1, 0.2, 0.3):
        forward(x, dropout_rate=rate, training=True)  # positive: one trace per rate
    for _ in range(3):
        forward(x, dropout_rate=0.5, training=False)  # negative: the same static values


if __name__ == "__main__":
    sweep(jnp.ones(2))
    print("traces:", len(traces))
