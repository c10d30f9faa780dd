"""What `frameworks.TENSOR_IN_TRACE` (and `analysis.flags.tensor_in_every_trace` /
`tensor_guard_fact`) rest on, observed with the real TensorFlow 2.21: inside a Function,
`tf.is_tensor(p)` of a parameter is True when the call passes a tensor, a variable, a NumPy array
or scalar, or a `tf.data` element (the Function converts arrays to tensors and passes a variable
as itself), and False for a Python number, list or None; `isinstance(p, tf.Tensor)` is the same
but False for a variable. A plain Python helper called from the trace sees an array as an array.
So under `if not tf.is_tensor(X): X = tf.Variable(X)` (the seventeenth TensorFlow audit's BM1,
a saliency map called with `tf.data` batches) the variable line is in no trace of a call that
passes a tensor or an array, and raises for one that passes a list."""

from __future__ import annotations

import numpy as np
import pytest

tf = pytest.importorskip("tensorflow")


def _probe():
    @tf.function
    def f(X):
        return tf.constant(bool(tf.is_tensor(X))), tf.constant(isinstance(X, tf.Tensor))

    return lambda arg: tuple(bool(t.numpy()) for t in f(arg))


def test_a_function_sees_tensors_arrays_and_variables_as_tensors_and_python_values_as_python():
    seen = _probe()
    assert seen(tf.ones((2,))) == (True, True)
    assert seen(np.ones((2,), np.float32)) == (True, True)
    assert seen(np.float32(1.0)) == (True, True)
    assert seen(tf.Variable([1.0, 2.0])) == (True, False)  # a variable: is_tensor, not a tf.Tensor
    for value in (1.0, 3, [1.0, 2.0], None):
        assert seen(value) == (False, False)


def test_a_dataset_batch_is_a_tensor_in_the_trace():
    seen = _probe()
    batch = next(iter(tf.data.Dataset.from_tensor_slices(np.ones((5, 3), np.float32)).batch(2)))
    assert seen(batch) == (True, True)


def test_a_python_helper_called_in_the_trace_sees_an_array_as_an_array():
    log = []

    def helper(X):
        log.append(tf.is_tensor(X))
        return tf.constant(0.0)

    @tf.function
    def step(x):
        return helper(np.ones((2,), np.float32)) + x

    step(tf.ones(()))
    assert log == [False]


def test_the_variable_line_under_the_guard_runs_only_for_a_python_argument():
    @tf.function
    def saliency(X):
        if not tf.is_tensor(X):
            X = tf.Variable(X)
            return tf.constant("variable made")
        return tf.constant("tensor")

    assert saliency(tf.ones((2, 3))).numpy() == b"tensor"
    assert saliency(np.ones((2, 3), np.float32)).numpy() == b"tensor"
    with pytest.raises(ValueError):
        saliency([[1.0, 2.0]])  # the trace runs the line: a variable made on a non-first trace
