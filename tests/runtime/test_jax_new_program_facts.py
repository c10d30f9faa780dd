"""What a new function per iteration costs under JAX when every iteration is a new program anyway,
and when the transformation compiles nothing, observed with the real JAX (0.10.2):

* `jax.eval_shape` and `jax.make_jaxpr` trace and never lower nor compile
  (`frameworks.JAX_TRACES_WITHOUT_COMPILING`), where `jax.jit` of a new lambda does all three;
* the shapes STG502 reads as made of the loop's variable (`analysis.varying_shapes.
  new_shape_each_iteration`): `jnp.arange`, `jnp.linspace` (`frameworks.SIZED_RANGES`),
  `jax.nn.one_hot` (`frameworks.APPENDED_AXIS`); and one jitted function made before the loop,
  called with an argument of a new shape on every iteration, traces and compiles once per
  iteration, as a new jit per iteration does."""

from __future__ import annotations

from collections import Counter

import pytest

jax = pytest.importorskip("jax")
jnp = jax.numpy


def _events(run) -> Counter:
    import jax.monitoring

    seen: Counter = Counter()
    live = [True]

    def listen(event, duration, **kw):
        if live[0]:
            seen[event.rsplit("/", 1)[-1]] += 1

    jax.monitoring.register_event_duration_secs_listener(listen)
    try:
        run()
    finally:
        live[0] = False
    return seen


def test_eval_shape_and_make_jaxpr_trace_and_compile_nothing():
    carry = {"w": jnp.ones((8, 8))}
    x = jnp.ones(3)
    (x * 2).block_until_ready()

    def shapes():
        for _ in range(3):
            jax.eval_shape(lambda _: carry, (None,))
            jax.eval_shape(lambda v: jnp.sin(v) @ v, carry["w"])

    seen = _events(shapes)
    assert seen["jaxpr_trace_duration"] == 6
    assert seen["jaxpr_to_mlir_module_duration"] == 0 and seen["backend_compile_duration"] == 0

    def jaxprs():
        for _ in range(3):
            jax.make_jaxpr(lambda v: v * 2)(x)

    seen = _events(jaxprs)
    assert seen["jaxpr_trace_duration"] == 3 and seen["backend_compile_duration"] == 0

    def jits():
        for _ in range(3):
            jax.jit(lambda v: v * 3)(x)

    seen = _events(jits)
    assert seen["jaxpr_trace_duration"] == 3 and seen["backend_compile_duration"] == 3


def test_the_shapes_of_ranges_and_one_hot_encodings():
    assert jnp.arange(6).shape == (6,) and jnp.arange(2, 9).shape == (7,) and jnp.arange(0, 10, 3).shape == (4,)
    assert jnp.linspace(0, 1, 5).shape == (5,) and jnp.linspace(0, 1).shape == (50,)
    assert jax.nn.one_hot(jnp.arange(4), 7).shape == (4, 7)
    assert jax.nn.one_hot(jnp.zeros((2, 3), int), num_classes=5).shape == (2, 3, 5)


def test_a_jit_made_before_a_sweep_over_shapes_traces_once_per_iteration():
    traces = []

    def f(theta, labels):
        traces.append(labels.shape)
        return jnp.sum(labels * theta)

    hoisted = jax.jit(jax.grad(f))
    for k in range(5, 51, 5):
        labels = jax.nn.one_hot(jnp.arange(16) % k, k)
        hoisted(1.0, labels)
        hoisted(2.0, labels)
    assert len(traces) == 10
    traces.clear()
    for k in range(5, 51, 5):
        per_iteration = jax.jit(jax.grad(f))
        labels = jax.nn.one_hot(jnp.arange(16) % k, k)
        per_iteration(1.0, labels)
        per_iteration(2.0, labels)
    assert len(traces) == 10
    traces.clear()
    hoisted = jax.jit(lambda a: (traces.append(a.shape), jnp.sum(a))[1])
    for n in (250, 500, 1000):
        hoisted(jnp.linspace(0.0, 1.0, n))
        hoisted(jnp.arange(n))
    assert len(traces) == 6
