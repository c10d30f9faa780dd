"""Row 11: tracers leak out of jax.grad / lax.scan even without jax.jit.

Observed with JAX 0.10.2 (`python r11_leak_transform.py`): LinearizeTracer leaked from jax.grad; aux: ArrayImpl; DynamicJaxprTracer leaked from lax.scan.
"""
import jax
import jax.numpy as jnp
from jax import lax

activations = []


def loss(w, x):
    h = jnp.tanh(w * x)
    activations.append(h)  # positive: a JVPTracer leaks out of jax.grad
    return jnp.sum(h ** 2)


def loss_aux(w, x):
    h = jnp.tanh(w * x)
    return jnp.sum(h ** 2), h  # negative: returned as aux


def cumulative(xs):
    seen = {}

    def body(carry, x):
        seen["last"] = carry  # positive: a scan tracer stored outside the body
        return carry + x, carry

    total, partials = lax.scan(body, 0.0, xs)
    return total, partials, seen


if __name__ == "__main__":
    g = jax.grad(loss)(1.0, jnp.ones(2))
    print(type(activations[0]).__name__)
    (val, h), g = jax.value_and_grad(loss_aux, has_aux=True)(1.0, jnp.ones(2))
    print(type(h).__name__)
    _, _, seen = cumulative(jnp.ones(3))
    print(type(seen["last"]).__name__)
