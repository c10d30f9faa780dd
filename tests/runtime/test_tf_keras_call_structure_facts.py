"""What tests/rules/test_stg602_unpacked_param.py rests on, observed with TensorFlow 2.21 / Keras 3:
a Keras `call` receives the structure its caller passes (a tuple of tensors stays a tuple, also
under `tf.function`), so `(a, b) = inputs` there is tuple unpacking, which raises nothing while
traced; iterating one symbolic tensor does raise."""

from __future__ import annotations

import pytest

tf = pytest.importorskip("tensorflow")
keras = pytest.importorskip("keras")


class Pair(keras.layers.Layer):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.seen = []

    def call(self, inputs):
        self.seen.append(type(inputs).__name__)
        (x, lens) = inputs
        return x * tf.cast(tf.shape(x)[1], x.dtype) + lens


def test_a_tuple_passed_to_a_keras_call_stays_a_tuple_under_tf_function():
    layer = Pair()
    step = tf.function(lambda x, lens: layer((x, lens)))
    out = step(tf.ones([2, 3]), tf.ones([2, 1]))
    assert out.shape == (2, 3) and layer.seen == ["tuple"]


def test_unpacking_one_symbolic_tensor_in_a_keras_call_raises():
    layer = Pair()
    step = tf.function(lambda x: layer(x))
    with pytest.raises(tf.errors.OperatorNotAllowedInGraphError, match="Iterating over a symbolic"):
        step(tf.ones([2, 3]))
