"""What TensorFlow 2.21 unrolls from a Python `for` in a `tf.function` (STG503's question "does
the body make tensors?"), observed with real TensorFlow.

A loop whose body computes with NumPy and Python only (the k vectors of an FFT over the axes of a
Python shape list: `np.fft.fftfreq`, `kd *= 2 * np.pi`, `kd.reshape(...)`) adds no op to the
graph, however many axes it runs over; NumPy's in-place operator given a symbolic tensor defers to
it and rebinds the name to a tensor, so `kd *= x` makes the rest of the body graph work. A loop
that applies one element of a Python container per iteration (`self.layers[l](x)`) cannot be a
graph loop: a Python list indexed by a tensor raises TypeError."""

from __future__ import annotations

import numpy as np
import pytest

tf = pytest.importorskip("tensorflow")


def _fftk(shape, x=None):
    k = []
    for d in range(len(shape)):
        kd = np.fft.fftfreq(shape[d])
        kd *= 2 * np.pi if x is None else x
        kd = kd[: shape[d] // 2 + 1]
        k.append(kd.reshape([-1, 1]) if x is None else tf.reshape(kd, [-1, 1]))
    return k


def _ops(axes: int, with_tensor: bool) -> int:
    @tf.function
    def f(x):
        ks = _fftk([4] * axes, x if with_tensor else None)
        return x + tf.reduce_sum(tf.concat([tf.cast(tf.reshape(k, [-1]), x.dtype) for k in ks], 0)) \
            if with_tensor else x + float(sum(k.size for k in ks))

    graph = f.get_concrete_function(tf.TensorSpec([], tf.float64)).graph
    return len(graph.get_operations())


def test_a_numpy_only_loop_body_adds_no_op_however_many_axes():
    assert _ops(2, False) == _ops(3, False) == _ops(6, False)


def test_numpy_in_place_with_a_tensor_makes_a_tensor_and_the_body_grows_with_the_axes():
    kinds = []

    @tf.function
    def f(x):
        a = np.ones(3)
        a *= 2 * np.pi
        kinds.append(type(a).__name__)
        a *= x
        kinds.append(type(a).__name__)
        return x

    f(tf.constant(1.0, tf.float64))
    assert kinds[0] == "ndarray" and kinds[1] != "ndarray" and "Tensor" in kinds[1]
    assert _ops(2, True) < _ops(3, True) < _ops(6, True)


def test_a_python_container_of_layers_cannot_be_indexed_by_a_tensor():
    layers = [tf.keras.layers.Dense(2), tf.keras.layers.Dense(2)]

    @tf.function
    def by_python_index(x, start, end):
        for i in range(start, end):
            x = layers[i](x)
        return x

    @tf.function
    def by_tensor_index(x):
        for i in tf.range(2):
            x = layers[i](x)
        return x

    assert by_python_index(tf.ones([1, 2]), 0, 2).shape == (1, 2)
    with pytest.raises(TypeError):
        by_tensor_index(tf.ones([1, 2]))


def test_a_frozen_draw_bound_to_a_name_nothing_reads_changes_no_result():
    """STG104 on a draw nothing reads (a VAE's `batch_z = np.random.uniform(...)` beside the
    `tf.random.normal` it samples with): the trace keeps one value, which no call's result
    holds; the same draw read by the result is one value for every call."""

    @tf.function
    def unread(x):
        batch_z = np.random.uniform(-1, 1, [3]).astype(np.float32)  # noqa: F841
        return x * 2.0

    @tf.function
    def read(x):
        batch_z = np.random.uniform(-1, 1, [3]).astype(np.float32)
        return x * 2.0 + batch_z

    x = tf.ones([3])
    assert all(np.array_equal(unread(x).numpy(), (x * 2.0).numpy()) for _ in range(3))
    first = read(x).numpy()
    assert all(np.array_equal(read(x).numpy(), first) for _ in range(3))
    assert read.experimental_get_tracing_count() == 1
