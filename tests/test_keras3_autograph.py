"""What the Keras 3 part of STG602 rests on, run with the real TensorFlow and Keras 3 (issue 11
point 7, tf-behaviour.md row m2): Keras 3 runs a layer's `call` (and the helpers it calls, and
`train_step` under `fit`) without AutoGraph, also from a `tf.function`, where the same code in
the `tf.function` body is converted."""

from __future__ import annotations

import keras
import numpy as np
import tensorflow as tf


def _graph_error(fn) -> str:
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the type is what is asserted
        return type(e).__name__
    return "ok"


def test_keras3_call_is_not_converted_but_a_tf_function_body_is():
    assert keras.__version__.startswith("3.")

    class IfLayer(keras.layers.Layer):
        def call(self, x):
            if tf.reduce_sum(x) > 0:
                return x * 2
            return x

    class RangeLayer(keras.layers.Layer):
        def call(self, x):
            for _ in tf.range(3):
                x = x + 1.0
            return x

    class FloatLayer(keras.layers.Layer):
        def call(self, x):
            return x * float(tf.reduce_sum(x))

    class CondLayer(keras.layers.Layer):
        def call(self, x):
            return tf.cond(tf.reduce_sum(x) > 0, lambda: x * 2, lambda: x)

    class Model(keras.Model):
        def __init__(self):
            super().__init__()
            self.dense = keras.layers.Dense(1)

        def call(self, x):
            return self.dense(x)

        def train_step(self, data):
            x, _ = data
            if tf.reduce_sum(x) > 0:
                x = x * 2
            return {"loss": tf.reduce_sum(self(x))}

    def from_function(layer):
        return lambda: tf.function(lambda x: layer(x))(tf.ones([2, 2]))

    assert _graph_error(from_function(IfLayer())) == "OperatorNotAllowedInGraphError"
    assert _graph_error(from_function(RangeLayer())) == "OperatorNotAllowedInGraphError"
    assert _graph_error(from_function(FloatLayer())) == "TypeError"
    assert _graph_error(from_function(CondLayer())) == "ok"
    assert _graph_error(lambda: IfLayer()(tf.ones([2, 2]))) == "ok"  # eager
    model = Model()
    model.compile("sgd")
    fit = lambda: model.fit(np.ones((4, 2), "float32"), np.ones((4, 1), "float32"), verbose=0)  # noqa: E731
    assert _graph_error(fit) == "OperatorNotAllowedInGraphError"

    @tf.function
    def body(x):
        if tf.reduce_sum(x) > 0:
            x = x * 2
        for _ in tf.range(3):
            x = x + 1.0
        return x * float(tf.reduce_max(x))

    assert body(tf.ones([2])).numpy().tolist() == [25.0, 25.0]
