"""Row 35: jax.jit applied in a loop to a lambda, an inner def, a partial or a bound method
retraces on every call; jax.jit of the same module-level function does not.

Observed with JAX 0.10.2 (`python r35_recreated.py`): {'<lambda>': 3, 'mse': 4, 'loss': 3}: lambda, partial and bound method trace per batch; jax.jit(mse) once (mse 4 = 3 partial + 1).
"""
import functools

import jax
import jax.numpy as jnp


def mse(w, x, y):
    return jnp.mean((x @ w - y) ** 2)


class Model:
    def loss(self, w, x):
        return jnp.sum(x @ w)


def train(w, batches, model):
    for x, y in batches:
        w = w - 0.1 * jax.jit(lambda w: jax.grad(mse)(w, x, y))(w)  # positive: lambda
        w = w - 0.1 * jax.jit(functools.partial(jax.grad(mse), x=x, y=y))(w)  # positive: partial
        w = w + 0 * jax.jit(model.loss)(w, x)  # positive: bound method
        w = w - 0.0 * jax.jit(mse)(w, x, y)  # negative: the same module-level function
    return w


if __name__ == "__main__":
    batches = [(jnp.ones((2, 2)), jnp.ones(2))] * 3
    import logging

    import collections

    traced = collections.Counter()

    class Count(logging.Handler):
        def emit(self, record):
            message = record.getMessage()
            if message.startswith("Finished tracing"):
                traced[message.split()[2]] += 1

    logging.getLogger("jax").addHandler(Count())
    jax.config.update("jax_log_compiles", True)
    train(jnp.zeros(2), batches, Model())
    print({name: traced[name] for name in ("<lambda>", "mse", "loss")})
