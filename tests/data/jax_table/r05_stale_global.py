"""Row 5: a global rebound after the first trace is stale inside jax.jit.

Observed with JAX 0.10.2 (`python r05_stale_global.py`): softmax with temperature 1.0 both times, [0.2689 0.7311] (eager with 100.0: [0.4975 0.5025]).
"""
import jax
import jax.numpy as jnp

EPSILON = 1e-6  # bound once: a constant
temperature = 1.0


@jax.jit
def softmax_logits(logits):
    return jax.nn.softmax(logits / temperature)  # positive: frozen at trace time


@jax.jit
def safe_log(x):
    return jnp.log(x + EPSILON)  # negative: a constant bound once


def anneal(logits):
    global temperature
    for t in (1.0, 100.0):
        temperature = t
        print(softmax_logits(logits), safe_log(logits))


if __name__ == "__main__":
    anneal(jnp.array([1.0, 2.0]))
    with jax.disable_jit():
        print("eager:", softmax_logits(jnp.array([1.0, 2.0])))
