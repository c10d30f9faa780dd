"""The facts behind `frameworks.PER_ELEMENT_CALLS` (STG502's "runs repeatedly", `analysis.repetition`):
a pytree map calls the function it is given once per leaf, in the call, as plain Python; so a
`jax.jit` or `tf.function` made anew in that function is made once per leaf, and traces each
time, where one made once reuses its trace for leaves of one shape (JAX 0.10.2, TF 2.21)."""

from __future__ import annotations

import pytest


def test_jax_tree_maps_call_the_function_once_per_leaf_and_a_new_jit_in_it_traces_per_leaf():
    jax = pytest.importorskip("jax")
    jnp = jax.numpy
    tree = {"a": jnp.ones(3), "b": [jnp.ones(3), jnp.ones(3)]}
    for tree_map in (jax.tree_util.tree_map, jax.tree.map):
        traces = []

        def per_leaf(x):
            return jax.jit(lambda v: (traces.append(1), v)[1])(x)  # a new lambda per call

        tree_map(per_leaf, tree)
        assert len(traces) == 3  # one trace per leaf

        once_traces = []
        identity = jax.jit(lambda v: (once_traces.append(1), v)[1])
        tree_map(lambda x: identity(x), tree)
        assert len(once_traces) == 1  # the negative twin: made once, traced once for one shape


def test_jax_tree_map_calls_the_function_per_leaf_under_a_trace_too():
    """Plain Python: under an outer jit the map still calls it once per leaf, per trace."""
    jax = pytest.importorskip("jax")
    jnp = jax.numpy
    calls = []
    jax.jit(lambda t: jax.tree_util.tree_map(lambda x: (calls.append(1), x * 2)[1], t))([jnp.ones(2)] * 4)
    assert len(calls) == 4


def test_tf_nest_map_structure_calls_the_function_once_per_element_and_a_nested_function_traces_per_call():
    tf = pytest.importorskip("tensorflow")
    traces = []

    def per_element(x):
        @tf.function
        def double(v):
            traces.append(1)
            return v * 2
        return double(x)

    tf.nest.map_structure(per_element, [tf.constant(1.0), tf.constant(2.0), (tf.constant(3.0),)])
    assert len(traces) == 3  # a new Function, and a trace, per element

    once = []

    @tf.function
    def double_once(v):
        once.append(1)
        return v * 2

    tf.nest.map_structure(double_once, [tf.constant(1.0), tf.constant(2.0), (tf.constant(3.0),)])
    assert len(once) == 1  # the negative twin: one Function, one trace for one signature


def test_each_tf_data_map_call_traces_its_function_anew_so_a_function_made_there_traces_per_call():
    """`repetition.dataset_traces`: `ds.map(f)` traces `f` on every call, the same `f` too, so a
    `tf.function` made anew in what it runs is made and traced once per `map` call, where one
    made once reuses its trace (m3tl's `reshape_tensors_in_dataset`, fixed in 63c44c3)."""
    tf = pytest.importorskip("tensorflow")
    ds = tf.data.Dataset.range(3)
    traces = []

    def parse(x):
        traces.append(1)
        return x * 2

    for _ in range(3):
        ds.map(parse)
    assert len(traces) == 3

    made = []

    def reshape(x):
        @tf.function
        def inner(v):
            made.append(1)
            return v + 1
        return inner(x)

    for _ in range(3):
        ds.map(lambda x: reshape(x))
    assert len(made) == 3

    once = []

    @tf.function
    def inner_once(v):
        once.append(1)
        return v + 1

    for _ in range(3):
        ds.map(lambda x: inner_once(x))
    assert len(once) == 1  # the negative twin: made once, traced once
