"""Issue 23, the nineteenth TensorFlow audit's held-back half (BV), classes BV-t2 and BV-t3, fixed
after its measure: what TensorFlow 2.21 does, run in this venv."""

from __future__ import annotations

import pytest


def test_a_global_rebound_before_a_new_map_call_is_read_by_that_maps_trace():
    """BV-t3 (`order._maps_anew`): `ds.map(f)` traces `f` at that call, with the globals bound
    then, so a loop that rebinds a global and then maps anew reads each new value; only a dataset
    built before the rebinding and iterated after it keeps the old one."""
    tf = pytest.importorskip("tensorflow")
    state = {"scale": tf.constant(1.0)}

    def format_dataset(x):
        return x * state["scale"]

    def make_dataset():
        return tf.data.Dataset.from_tensor_slices([1.0, 1.0]).map(format_dataset)

    fresh = []
    for s in (2.0, 3.0):
        state["scale"] = tf.constant(s)
        fresh.append([float(v) for v in make_dataset()])
    assert fresh == [[2.0, 2.0], [3.0, 3.0]]

    stale = []
    for s in (4.0, 5.0):
        ds = make_dataset()
        state["scale"] = tf.constant(s)
        stale.append([float(v) for v in ds])
    assert stale == [[3.0, 3.0], [4.0, 4.0]]  # the twin: each dataset keeps the value bound at its map()


def test_a_function_handed_on_to_a_wrapper_of_py_function_runs_per_element():
    """BV-t2 (`staging.runs_as_python`): a wrapper whose nested def calls its parameter and is
    given to `tf.py_function` runs what it is given as Python for every element of a mapped
    dataset; a helper that calls its parameter itself runs it once, while the map traces."""
    tf = pytest.importorskip("tensorflow")
    eager, traced = [], []

    def new_py_function(func, inp, Tout):
        def wrapped_func(*flat_inp):
            return func(*flat_inp)
        return tf.py_function(func=wrapped_func, inp=inp, Tout=Tout)

    def apply(func, inp):
        return func(inp)

    ds = tf.data.Dataset.from_tensor_slices([1.0, 2.0, 3.0])
    list(ds.map(lambda row: new_py_function(lambda r: eager.append(1) or r * 2, inp=[row], Tout=tf.float32)))
    assert len(eager) == 3
    list(ds.map(lambda row: apply(lambda r: traced.append(1) or r * 2, row)))
    assert len(traced) == 1
