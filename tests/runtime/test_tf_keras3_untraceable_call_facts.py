"""AX3 (keras-model-registry's `DistributionTransformLayer`, STG105 x2), the framework facts
observed with TF 2.21, Keras 3.15 and tf_keras 2.21: a guarded assign in a Keras layer's `call`
whose guarded block first calls a helper testing a `keras.ops` result in a Python `if`. Keras 3
runs `call` and its helpers without AutoGraph (tf-behaviour.md row m2), so every trace Keras or a
`tf.function` makes raises at that `if` (OperatorNotAllowedInGraphError) before the assign: the
assign is never recorded into a graph, and the layer works only eagerly. Keras 2 converts the call
(the `if` becomes a `tf.cond`) and every trace succeeds. `keras.ops` results are taken for tensors
now (`frameworks.tensorflow.KERAS_OPS_PREFIXES`, tests/runtime/test_tf_pooled_weak_rules_facts.py);
not yet in the model: a helper that raises on every path the caller's guard leaves open (see
bench/fresh_audit_notes.md, "What AX left, as facts" and "The pooled TF rules under 0.80 as facts")."""

from __future__ import annotations

import numpy as np
import pytest

tf = pytest.importorskip("tensorflow")


def _layer_classes(keras, ops_min):
    class Select(keras.layers.Layer):
        def __init__(self):
            super().__init__()
            self.initialized = False

        def build(self, input_shape):
            self.idx = self.add_weight(shape=(1,), initializer="zeros", trainable=False, name="idx")

        def call(self, x, training=None):
            if training or not self.initialized:
                best = self.select(x)
                self.idx.assign([best])
                self.initialized = True
            return x * 2.0

        def select(self, x):
            if ops_min(x) > 0:
                return 1.0
            return 2.0

    class Model(keras.Model):
        def __init__(self):
            super().__init__()
            self.select = Select()
            self.dense = keras.layers.Dense(1)

        def call(self, x, training=None):
            return self.dense(self.select(x, training=training))

    return Select, Model


def _outcomes(keras, ops_min) -> dict:
    Select, Model = _layer_classes(keras, ops_min)
    x, y = np.ones((8, 3), "float32"), np.ones((8, 1), "float32")

    def functional():
        inputs = keras.Input(shape=(3,))
        keras.Model(inputs, keras.layers.Dense(1)(Select()(inputs)))

    def fit():
        model = Model()
        model.compile(optimizer="sgd", loss="mse")
        model.fit(x, y, epochs=1, verbose=0)

    def in_function():
        layer = Select()
        tf.function(lambda t: layer(t))(tf.constant(x))

    out = {}
    for name, run in (("functional", functional), ("fit", fit), ("predict", lambda: Model().predict(x, verbose=0)),
                      ("tf.function", in_function), ("eager", lambda: Select()(tf.constant(x)))):
        try:
            run()
            out[name] = "ok"
        except Exception as e:  # noqa: BLE001 - the type is what is asserted
            out[name] = type(e).__name__
    return out


def test_keras3_traces_of_the_layer_raise_before_the_guarded_assign():
    import keras

    assert keras.__version__.startswith("3.")
    got = _outcomes(keras, keras.ops.min)
    assert got == {"functional": "OperatorNotAllowedInGraphError", "fit": "OperatorNotAllowedInGraphError",
                   "predict": "OperatorNotAllowedInGraphError", "tf.function": "OperatorNotAllowedInGraphError",
                   "eager": "ok"}


def test_keras2_converts_the_call_and_every_trace_records_the_assign():
    tf_keras = pytest.importorskip("tf_keras")
    got = _outcomes(tf_keras, tf.reduce_min)
    assert got == {"functional": "ok", "fit": "ok", "predict": "ok", "tf.function": "ok", "eager": "ok"}
