"""Row 43: assigning an Equinox field fails (frozen); jax.jit of a module with a function
field fails, eqx.filter_jit works.

Observed with JAX 0.10.2 (`python r43_equinox.py`): FrozenInstanceError; jax.jit on a module with a function field: TypeError; eqx.filter_jit: [1. 1.].
"""
import equinox as eqx
import jax
import jax.numpy as jnp


class Scaled(eqx.Module):
    weight: jax.Array
    activation: callable
    calls: int = 0

    def __call__(self, x):
        self.calls = self.calls + 1  # positive: FrozenInstanceError
        return self.activation(self.weight * x)


class ScaledOk(eqx.Module):
    weight: jax.Array
    activation: callable

    def __call__(self, x):
        return self.activation(self.weight * x)


def run(x):
    plain = jax.jit(lambda m, x: m(x))(ScaledOk(jnp.ones(2), jax.nn.relu), x)  # positive: a function leaf
    filtered = eqx.filter_jit(lambda m, x: m(x))(ScaledOk(jnp.ones(2), jax.nn.relu), x)  # negative
    return plain, filtered


if __name__ == "__main__":
    x = jnp.ones(2)
    try:
        eqx.filter_jit(lambda m, x: m(x))(Scaled(jnp.ones(2), jax.nn.relu), x)
    except Exception as e:
        print(type(e).__name__)
    try:
        run(x)
    except Exception as e:
        print(type(e).__name__, str(e)[:80])
    print(eqx.filter_jit(lambda m, x: m(x))(ScaledOk(jnp.ones(2), jax.nn.relu), x))
