"""Honest comparison of graph and eager results, on values summarised by the real recorder."""

from __future__ import annotations

import math

import numpy as np
import pytest
import tensorflow as tf

from stagelint.runtime import summaries
from stagelint.runtime.compare import compare_results, describe_result, leaf_equal, results_equal
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


def outcome(a, b) -> str:
    return compare_results(leaves(a), leaves(b))[0]


def test_float32_bands_are_fractions_of_the_significand():
    # same: the last quarter of the significand (eps**0.75, 6.4e-6 in float32); rounding: the
    # leading half agrees (eps**0.5, 3.5e-4); beyond that the results differ.
    x = np.linspace(1, 2, 50).astype("float32")
    assert outcome(tf.constant(x), tf.constant(x * (1 + 2e-6))) == "same"
    assert outcome(tf.constant(x), tf.constant(x * (1 + 5e-5))) == "rounding"
    assert outcome(tf.constant(x), tf.constant(x * (1 + 1e-3))) == "differ"
    assert results_equal(leaves(tf.constant(x)), leaves(tf.constant(x * (1 + 5e-5))))
    assert not results_equal(leaves(tf.constant(x)), leaves(tf.constant(x * (1 + 1e-3))))


def test_differences_are_measured_against_the_leafs_largest_magnitude():
    # A small element of a leaf that also holds large ones carries the large ones' rounding
    # (the cancellation in `x - mean(x)`): 1e-4 next to 1000.0 is 1e-7 of the leaf's magnitude.
    assert outcome(tf.constant([1000.0, 1e-3]), tf.constant([1000.0, 1.1e-3])) == "same"
    # The same absolute difference in a leaf of its own is half the value: a divergence.
    assert outcome(tf.constant([1e-3, 1e-3]), tf.constant([1e-3, 1.5e-3])) == "differ"


def test_each_dtype_is_compared_at_its_own_precision():
    assert outcome(tf.constant([1.0], tf.float16), tf.constant([1.0 + 2 ** -10], tf.float16)) == "same"
    assert outcome(tf.constant([1.0], tf.float16), tf.constant([1.0078125], tf.float16)) == "rounding"
    assert outcome(tf.constant([1.0], tf.float16), tf.constant([1.05], tf.float16)) == "differ"
    assert outcome(tf.constant([1.0], tf.bfloat16), tf.constant([1.0078125], tf.bfloat16)) == "same"
    assert outcome(tf.constant([1.0], tf.bfloat16), tf.constant([1.25], tf.bfloat16)) == "differ"
    # float64 keeps 52 bits: 1e-10 relative is far beyond its last quarter, within its first half.
    assert outcome(tf.constant([1.0], tf.float64), tf.constant([1.0 + 1e-14], tf.float64)) == "same"
    assert outcome(tf.constant([1.0], tf.float64), tf.constant([1.0 + 1e-10], tf.float64)) == "rounding"
    assert outcome(tf.constant([1.0], tf.float64), tf.constant([1.0 + 1e-6], tf.float64)) == "differ"


def test_integers_and_bools_must_be_equal():
    # numpy.allclose(rtol=1e-5) took 1000001 for 1000000; a count is never rounded.
    assert outcome(tf.constant([1000000]), tf.constant([1000001])) == "differ"
    assert outcome(tf.constant([1000000]), tf.constant([1000000])) == "same"
    assert outcome(tf.constant([True, False]), tf.constant([True, True])) == "differ"


def test_complex_results_keep_their_phase():
    a = leaves(tf.constant([1 + 1j], tf.complex64))
    assert a[0]["cx"] and a[0]["v"] == [1.0, 1.0]
    assert outcome(tf.constant([1 + 1j], tf.complex64), tf.constant([1 - 1j], tf.complex64)) == "differ"
    assert outcome(tf.constant([1 + 1j], tf.complex64), tf.constant([1 + 1.000001j], tf.complex64)) == "same"
    assert describe_result(a) == "[1.0+1.0j] complex64[1]"


def test_a_python_float_takes_the_precision_of_the_tensor():
    # Eager returns the float64 Python 0.1 where graph returns float32 0.1 (1.5e-9 apart).
    assert outcome(0.1, tf.constant(0.1)) == "same"
    assert outcome(0.1, tf.constant(0.1001)) == "differ"


def test_nan_equals_nan_and_inf_survives_json():
    a = leaves(tf.constant([1.0, math.nan, math.inf]))
    assert a[0]["v"] == [1.0, "nan", "inf"]
    assert results_equal(a, leaves(tf.constant([1.0, math.nan, math.inf])))
    assert not results_equal(a, leaves(tf.constant([1.0, 0.0, math.inf])))
    assert not results_equal(a, leaves(tf.constant([1.0, math.nan, -math.inf])))
    assert not results_equal(a, leaves(tf.constant([1.0, math.nan, 3e38])))


def test_rounding_detail_names_the_difference_in_ulps():
    kind, detail = compare_results(leaves(tf.constant([1.0, 2.0])), leaves(tf.constant([1.0, 2.0002])))
    assert kind == "rounding"
    assert detail == "largest difference 1.0e-04 of the largest magnitude, 839 float32 ulps"


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
    # The sums are measured against the sum of magnitudes: a sum near zero is no cancellation alarm.
    z = np.concatenate([x, -x]).astype("float32")
    b = leaves(tf.constant(z))
    assert abs(b[0]["st"][0]) < 1e-3
    shifted = b[0] | {"st": [b[0]["st"][0] + 1e-4, *b[0]["st"][1:]]}
    assert compare_results(b, [shifted])[0] == "same"


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
