"""The twelfth JAX audit's facts, observed with the real JAX (0.10.2): a jitted call that cannot bind
its arguments raises TypeError before any trace (`analysis.functions.binding_error`); a loop whose
iterations each pass (or close over) an array of a new shape compiles once per iteration with one
jit made before the loop as with a new jit per iteration (`analysis.varying_shapes.new_shape_each_iteration`)."""

from __future__ import annotations

import pytest

jax = pytest.importorskip("jax")
jnp = jax.numpy


def test_a_jitted_call_that_cannot_bind_raises_before_tracing():
    traces = []

    class Model:
        def calc(self, x, coszen, cos_i, geom):
            traces.append(1)
            return x * coszen

    def two(x, y):
        traces.append(1)
        return x + y

    m = Model()
    for attempt in (lambda: jax.jit(m.calc)(jnp.ones(2), 1.0, 2.0),
                    lambda: jax.jit(two)(jnp.ones(2)),
                    lambda: jax.jit(two)(jnp.ones(2), 1.0, 2.0),
                    lambda: jax.jit(two)(jnp.ones(2), x=1.0)):
        with pytest.raises(TypeError):
            attempt()
    assert traces == []
    jax.jit(m.calc)(jnp.ones(2), 1.0, 2.0, None)  # the twin: it binds, and traces
    assert traces == [1]


def test_a_new_shape_per_iteration_compiles_per_iteration_however_the_jit_is_made():
    traces = []

    def model(x, w):
        traces.append(x.shape)
        return x @ w

    hoisted = jax.jit(model)
    for n in (8, 16, 32):
        x = jnp.ones((n, n))
        for _ in range(3):
            hoisted(x, x)
    assert len(traces) == 3
    traces.clear()
    for n in (8, 16, 32):
        per_iteration = jax.jit(lambda a, b: model(a, b))
        x = jnp.ones((n, n))
        for _ in range(3):
            per_iteration(x, x)
    assert len(traces) == 3
    # a closed-over array of a new size: a constant of the program, a new program per iteration
    traces.clear()
    for step in range(3):
        args = jnp.zeros((4 * (step + 1), 3))

        def func(v):
            traces.append(1)
            return jnp.sum(v[0] - args[:, 0])

        grad = jax.jit(jax.jacrev(func))
        for j in range(3):
            grad(jnp.ones(3) * j)
    assert len(traces) == 3
