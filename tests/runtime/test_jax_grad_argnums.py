"""What `frameworks.JAX_DIFFERENTIATES_ARGNUMS` states, observed with the real JAX: grad traces
only the positions of its `argnums`; every other argument reaches the function as the caller
gave it, so Python control flow on a Python int there works, under a jit around the grad too,
while the same `if` on the differentiated argument fails under jit."""

from __future__ import annotations

import pytest

jax = pytest.importorskip("jax")
jnp = jax.numpy


def _nth_derivative(t, i):
    if i == 0:  # `i` is the caller's Python int: grad does not trace it
        return jnp.sin(t)
    return jax.grad(_nth_derivative)(t, i - 1)


def test_a_python_argument_grad_does_not_differentiate_stays_python_under_jit():
    f = jax.jit(lambda t: _nth_derivative(t, 2))
    assert float(f(0.5)) == pytest.approx(-float(jnp.sin(0.5)), rel=1e-6)


def test_argnums_picks_what_is_traced():
    def scaled(x, w):
        if w > 0:  # `w` is differentiated (argnums=1): a tracer under the jit around it
            return x * w
        return x

    assert float(jax.grad(scaled, argnums=0)(2.0, 3)) == 3.0  # w: the caller's int
    with pytest.raises(jax.errors.TracerBoolConversionError):
        jax.jit(lambda x, w: jax.grad(scaled, argnums=1)(x, w))(2.0, 3.0)
