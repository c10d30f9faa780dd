"""Row 6: a global dict mutated in place after the first trace is stale inside jax.jit.

Observed with JAX 0.10.2 (`python r06_mutated_global.py`): epoch 1 still steps by 0.1 ([0.8 0.8]); sgd_lr with 0.01 gives [0.79 0.79].
"""
import jax
import jax.numpy as jnp

config = {"lr": 0.1, "momentum": 0.9}


@jax.jit
def sgd(w, g):
    return w - config["lr"] * g  # positive: lr captured as a constant at trace time


@jax.jit
def sgd_lr(w, g, lr):
    return w - lr * g  # negative: lr is an argument, traced


def schedule(w, g):
    for epoch in range(2):
        if epoch == 1:
            config["lr"] = 0.01
        w = sgd(w, g)
        print(epoch, w, sgd_lr(w, g, config["lr"]))


if __name__ == "__main__":
    schedule(jnp.ones(2), jnp.ones(2))
