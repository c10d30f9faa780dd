"""The facts behind the twelfth TensorFlow audit's fix-from classes
(tests/rules/test_tf_twelfth_audit.py), observed with the real TensorFlow 2.21."""

from __future__ import annotations

import pytest

tf = pytest.importorskip("tensorflow")


def test_a_lambda_handed_to_py_function_runs_as_python_nested_or_not():
    """`analysis.walk` (`escaped_depth`): what the inline callee of `tf.py_function` calls runs
    eagerly on every element or call, also when the py_function sits in a lambda that
    `Dataset.map` traces, and in a `tf.function`."""
    eager = []

    def to_mol(x):
        eager.append(tf.executing_eagerly())
        return tf.constant([1.0]) * float(x.numpy()), tf.constant(1.0)  # `.numpy()`: eager only

    ds = tf.data.Dataset.from_tensor_slices(([1.0, 2.0, 3.0], [4.0, 5.0, 6.0]))
    ds = ds.map(lambda x, y: tf.py_function(lambda x, y: (to_mol(x)[0], y), [x, y], [tf.float32, tf.float32]))
    assert [float(a[0]) for a, _ in ds] == [1.0, 2.0, 3.0]

    @tf.function
    def step(x):
        return tf.py_function(lambda v: to_mol(v)[0], [x], tf.float32)

    assert float(step(tf.constant(2.0))[0]) == 2.0 and float(step(tf.constant(5.0))[0]) == 5.0
    assert eager == [True] * 5 and step.experimental_get_tracing_count() == 1


class _Net(tf.Module):
    def __init__(self):
        self.is_virgin = True
        self.flow = []

    def _build(self):
        self.w = tf.Variable(2.0)
        self.flow.append("w")

    @tf.function
    def __call__(self, x):
        if self.is_virgin:
            self._build()
            self.is_virgin = False
        return x * self.w


def test_a_block_clearing_its_instance_flag_builds_once_over_many_traces():
    """`analysis.guards.clears_its_flag`: the first trace clears the flag, later traces of other
    input signatures skip the block: one variable, the list appended once. Set back, the next
    trace builds again and tf.function refuses the new variable."""
    net = _Net()
    for x in (tf.constant(1.0), tf.constant([1.0, 2.0]), tf.constant([[1.0]])):
        net(x)
    assert net.__call__.experimental_get_tracing_count() >= 3
    assert len(net.variables) == 1 and list(net.flow) == ["w"]
    net.is_virgin = True
    with pytest.raises(ValueError):
        net(tf.constant([1.0, 2.0, 3.0]))


def test_recursion_down_to_a_static_rank_or_a_python_count_traces_once_per_value():
    """`analysis.recursion`: a tf.function calling itself on a lower rank until a static rank,
    or on a Python count less one until a bound, traces once per rank or count and later calls
    reuse the traces. With a tensor count, or a call that does not lower it, tracing fails."""
    @tf.function
    def back_flatten(tensor, dim):
        if len(tensor.shape) > dim:
            splits = [back_flatten(tensor[..., i], dim=dim) for i in range(tensor.shape[-1])]
            tensor = tf.concat(splits, axis=-1)
        return tensor

    x = tf.ones([16, 3, 2])
    assert back_flatten(x, dim=2).shape == (16, 6) and back_flatten.experimental_get_tracing_count() == 2
    assert back_flatten(x * 2, dim=2).shape == (16, 6) and back_flatten.experimental_get_tracing_count() == 2

    @tf.function
    def power(x, n=3):
        if n <= 0:
            return tf.ones_like(x)
        return x * power(x, n - 1)

    assert float(power(tf.constant(2.0))) == 8.0 and float(power(tf.constant(3.0))) == 27.0
    assert power.experimental_get_tracing_count() == 4

    @tf.function
    def power_t(x, n):
        if n > 0:
            return x * power_t(x, n - 1)
        return tf.ones_like(x)

    with pytest.raises(Exception, match="(?i)recursion|staging"):
        power_t(tf.constant(2.0), tf.constant(3))

    @tf.function
    def same(x, n=3):
        if n > 0:
            return same(x, n)
        return x

    with pytest.raises(Exception, match="(?i)recursion|staging"):
        same(tf.constant(2.0))
