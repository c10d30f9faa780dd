"""A small JAX training script with the staging pitfalls people hit most under `jax.jit`.

Run `stagelint check examples/` to see them reported; each comment says what goes wrong.
(`examples/train_pitfalls.py` is the TensorFlow counterpart.)
"""

from functools import partial

import jax
import jax.numpy as jnp
import numpy as np

LEARNING_RATE = 0.1  # bound once: a constant, safe to read under jax.jit
label_smoothing = 0.0
history = []


def loss_fn(params, x, y):
    logits = x @ params["w"] + params["b"]
    targets = y * (1.0 - label_smoothing) + label_smoothing / 2  # frozen at trace time
    return jnp.mean((logits - targets) ** 2)


@jax.jit
def train_step(params, x, y):
    loss, grads = jax.value_and_grad(loss_fn)(params, x, y)
    print("loss:", loss)  # printed once per trace (a tracer), not once per step
    history.append(loss)  # the list receives one tracer, which fails when used later
    noise = np.random.normal(0.0, 1e-3)  # drawn once: the same "noise" on every step
    params = jax.tree_util.tree_map(lambda p, g: p - LEARNING_RATE * (g + noise), params, grads)
    return params, loss


@partial(jax.jit, static_argnames="clip")
def clip_grads(grads, clip):
    norm = jnp.sqrt(sum(jnp.sum(g ** 2) for g in jax.tree_util.tree_leaves(grads)))
    if norm > clip:  # a Python `if` on a traced value: TracerBoolConversionError
        grads = jax.tree_util.tree_map(lambda g: g * clip / norm, grads)
    return grads


def evaluate(params, batches):
    total = 0.0
    for x, y in batches:
        total += jax.jit(lambda p, x, y: loss_fn(p, x, y))(params, x, y)  # a new function: traced every batch
    return total / len(batches)


def main():
    global label_smoothing
    key = jax.random.key(0)
    params = {"w": jax.random.normal(key, (3,)), "b": jnp.zeros(())}
    x, y = jnp.ones((8, 3)), jnp.ones(8)
    for epoch in range(3):
        params, loss = train_step(params, x, y)
        label_smoothing = 0.1 * epoch  # the traced train_step still uses 0.0
    print(evaluate(params, [(x, y)] * 3))


if __name__ == "__main__":
    main()
