"""Honest comparison of graph and eager results, on values summarised by the real recorder."""

from __future__ import annotations

import math

import numpy as np
import pytest
import tensorflow as tf

from stagelint.runtime import summaries
from stagelint.runtime.compare import describe_result, leaf_equal, results_equal
from stagelint.runtime.evidence import format_values
from stagelint.runtime.records import cause_line

pytestmark = pytest.mark.tf


def leaves(value):
    return summaries.summarize_result(value)


def test_python_scalar_and_tensor_are_normalised():
    # Eager returns the Python int 2 where graph returns tf.Tensor(2, int32).
    assert results_equal(leaves(2), leaves(tf.constant(2)))
    assert not results_equal(leaves(10), leaves(tf.constant(2)))


def test_dtypes_must_match_between_tensors():
    assert not results_equal(leaves(tf.constant(2)), leaves(tf.constant(2.0)))


def test_tolerance_rtol_1e5_atol_1e6():
    x = np.linspace(1, 2, 50).astype("float32")
    assert results_equal(leaves(tf.constant(x)), leaves(tf.constant(x * (1 + 5e-6))))
    assert not results_equal(leaves(tf.constant(x)), leaves(tf.constant(x * (1 + 1e-4))))
    assert results_equal(leaves(tf.constant([0.0])), leaves(tf.constant([5e-7])))


def test_nan_equals_nan_and_inf_survives_json():
    a = leaves(tf.constant([1.0, math.nan, math.inf]))
    assert a[0]["v"] == [1.0, "nan", "inf"]
    assert results_equal(a, leaves(tf.constant([1.0, math.nan, math.inf])))
    assert not results_equal(a, leaves(tf.constant([1.0, 0.0, math.inf])))


def test_half_precision_is_compared_more_loosely():
    a = leaves(tf.constant([1.0], tf.float16))
    b = leaves(tf.constant([1.0005], tf.float16))
    assert results_equal(a, b)


def test_shapes_only_for_stateful_random_functions():
    a, b = leaves(tf.random.uniform([3, 2])), leaves(tf.random.uniform([3, 2]))
    assert not results_equal(a, b)
    assert results_equal(a, b, shapes_only=True)
    assert not results_equal(a, leaves(tf.random.uniform([2, 3])), shapes_only=True)


def test_large_results_compare_by_statistics_and_sample():
    x = np.random.default_rng(0).normal(size=(100, 100)).astype("float32")
    a = leaves(tf.constant(x))
    assert "st" in a[0] and len(a[0]["smp"]) == summaries.SAMPLE
    assert results_equal(a, leaves(tf.constant(x + 1e-8)))
    y = x.copy()
    y[0, 0] += 1.0
    assert not results_equal(a, leaves(tf.constant(y)))


def test_nested_results_are_flattened():
    g = leaves({"loss": tf.constant(0.5), "acc": tf.constant(1.0)})
    e = leaves({"loss": 0.5, "acc": 1.0})
    assert len(g) == 2 and results_equal(g, e)
    assert describe_result(g) == "(1.0, 0.5)"


def test_optional_results_are_opened():
    # Keras 3's train function returns a tf.experimental.Optional of the logs.
    wrapped = leaves(tf.experimental.Optional.from_value({"loss": tf.constant(0.25)}))
    assert results_equal(wrapped, leaves({"loss": 0.25}))
    assert not results_equal(wrapped, leaves({"loss": 2.5}))


def test_leaf_kinds_must_agree():
    assert not leaf_equal({"t": "text", "v": ["'a'"]}, {"t": "num", "dt": "int32", "sh": [], "v": [1]})


def test_symbolic_tensor_in_outer_place_is_found():
    box = {}

    @tf.function
    def leak(x):
        box["y"] = x + 1  # noqa: STG201 - the leak under test
        return x

    leak(tf.constant(1))
    assert summaries.is_symbolic(box["y"])
    found = summaries.find_leaks(leak.python_function, None, [])
    assert [f["where"] for f in found] == ["closure `box`['y']"]
    assert "add:0" in found[0]["tensor"]


def test_random_ops_are_detected_in_the_graph():
    @tf.function
    def noisy(x):
        return x + tf.random.uniform([])

    @tf.function
    def stateless(x):
        return x + tf.random.stateless_uniform([], seed=[1, 2])

    @tf.function
    def clock(x):
        return x + tf.cast(tf.timestamp(), tf.float32)

    noisy(1.0)
    stateless(1.0)
    clock(1.0)
    assert summaries.has_stateful_random(noisy._list_all_concrete_functions()[-1])
    assert summaries.has_stateful_random(clock._list_all_concrete_functions()[-1])
    assert not summaries.has_stateful_random(stateless._list_all_concrete_functions()[-1])


def test_cause_line_looks_inside_autograph_wrapper():
    msg = ("in user code:\n\n    File \"m.py\", line 3, in f  *\n        v = tf.Variable(1.0)\n\n"
           "    ValueError: tf.function only supports singleton tf.Variables created on the first call.")
    assert cause_line(msg).startswith("ValueError: tf.function only supports singleton")
    assert cause_line("assert 1.5 == 1.0\n + where ...") == "assert 1.5 == 1.0"


def test_format_values():
    assert format_values(["0", "1", "2", "3"]) == "0..3"
    assert format_values(["3", "1", "2"]) == "1..3"
    assert format_values(["0", "2", "4"]) == "0, 2, 4"
    assert format_values([str(i) for i in range(0, 20, 2)]) == "0, 2, 4, 6, 8, 10, ..."
    assert format_values(["'relu'", "'tanh'"]) == "'relu', 'tanh'"
