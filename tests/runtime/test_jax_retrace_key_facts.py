"""What keys a JAX trace besides the function object (`frameworks.JAX_TRACE_KEY`), observed with the
real JAX by counting traces: a new function object per call or iteration costs a trace only where
the rest of the key repeats (STG502: `analysis.functions.configuration_per_iteration`, the static
arguments a wrapper made per call is given), and a static argument whose new values come with new
values of another static argument adds no compilation (STG501: `retracing._static_beside`)."""

from __future__ import annotations

import functools

import pytest

jax = pytest.importorskip("jax")
jnp = jax.numpy


def _counted():
    traces = []

    def kernel(x, *, block):
        traces.append(block)
        return x.reshape(-1, block).sum(0)

    return kernel, traces


def test_a_new_partial_per_new_static_value_traces_as_often_as_one_jitted_function():
    """A tuner's `jax.jit(partial(kernel, block=b))` per candidate `b`: each candidate is another
    program, traced and compiled by one `jax.jit(kernel, static_argnames="block")` too."""
    kernel, traces = _counted()
    x = jnp.ones(64)
    for b in (2, 4, 8, 16):
        jax.jit(functools.partial(kernel, block=b))(x)
    anew = len(traces)
    kernel, traces = _counted()
    once = jax.jit(kernel, static_argnames="block")
    for b in (2, 4, 8, 16):
        once(x, block=b)
    assert anew == len(traces) == 4


def test_a_new_partial_per_iteration_of_the_same_value_traces_where_one_function_would_not():
    """The negative twin: the same configuration on each iteration, 4 traces against 1."""
    kernel, traces = _counted()
    x = jnp.ones(64)
    for b in (4, 4, 4, 4):
        jax.jit(functools.partial(kernel, block=b))(x)
    anew = len(traces)
    kernel, traces = _counted()
    once = jax.jit(kernel, static_argnames="block")
    for b in (4, 4, 4, 4):
        once(x, block=b)
    assert (anew, len(traces)) == (4, 1)


def test_a_new_lambda_over_a_batch_of_one_shape_traces_where_one_function_taking_it_would_not():
    """An array a new lambda closes over is a constant of the same program: a trace per batch,
    where one jitted function taking the batch traces once; with new input shapes on every call
    one function traces as often as new ones."""
    shapes = []

    def loss(w, x):
        shapes.append(x.shape)
        return ((w - x) ** 2).sum()

    w = jnp.zeros(8)
    for i in range(3):
        batch = jnp.ones(8) * i
        jax.jit(lambda v: loss(v, batch))(w)
    assert len(shapes) == 3
    shapes.clear()
    once = jax.jit(loss)
    for i in range(3):
        once(w, jnp.ones(8) * i)
    assert len(shapes) == 1
    shapes.clear()
    for n in (8, 16, 32):
        once(jnp.zeros(n), jnp.ones(n))
    assert len(shapes) == 2  # 8 was traced already: 16 and 32 are new


def test_a_static_argument_changing_with_another_static_argument_adds_no_compilation():
    """lop-jax's `update_task(state, task, examples_per_epoch, active_classes)`: with
    `examples_per_epoch` static and new on every task, `task` static or traced, 4 traces in 4
    tasks either way; with the other fixed (the negative twin), `task` static costs a trace per
    task where traced it costs none after the first."""
    traces = []

    def update(x, task, n):
        traces.append((task, n))
        return x[:n].sum() + task

    both = jax.jit(update, static_argnums=(1, 2))
    only_n = jax.jit(update, static_argnums=(2,))
    x = jnp.ones(10)
    for task in range(4):
        both(x, task, task + 2)
    assert len(traces) == 4
    traces.clear()
    for task in range(4):
        only_n(x, task, task + 2)
    assert len(traces) == 4
    traces.clear()
    for task in range(4):
        both(x, task, 7)
    assert len(traces) == 4
    traces.clear()
    for task in range(4):
        only_n(x, task, 7)
    assert len(traces) == 1
