"""What `analysis.staging.Project.keras_untraced_here` rests on (`frameworks.KERAS_HAND_TRAINING`),
observed with the real TensorFlow 2.21 / Keras 3: a model trained by hand, a GradientTape and
`optimizer.apply_gradients` in plain Python, runs its `call` as Python on eager tensors at every
step (a print in it prints every step, an attribute it reads is read anew); the same step under
`tf.function` traces `call` once."""

from __future__ import annotations

import numpy as np
import pytest

tf = pytest.importorskip("tensorflow")
keras = pytest.importorskip("keras")


def _model(log):
    class Net(keras.Model):
        def __init__(self):
            super().__init__()
            self.dense = keras.layers.Dense(1)
            self.scale = 1.0

        def call(self, x):
            log.append((tf.executing_eagerly(), self.scale))
            return self.dense(x) * self.scale

    return Net()


def _step(model, optimizer, x, y):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean((model(x) - y) ** 2)
    optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))
    return loss


def test_training_by_hand_outside_a_tf_function_runs_call_eagerly_every_step():
    log = []
    model, optimizer = _model(log), keras.optimizers.SGD(0.01)
    x, y = np.ones((4, 3), "float32"), np.ones((4, 1), "float32")
    for step in range(3):
        model.scale = float(step + 1)
        _step(model, optimizer, x, y)
    eager = [scale for eagerly, scale in log if eagerly]
    assert eager[-3:] == [1.0, 2.0, 3.0]  # every step, each with the value set before it


def test_the_same_step_under_tf_function_traces_call_once():
    log = []
    model, optimizer = _model(log), keras.optimizers.SGD(0.01)
    step = tf.function(_step)
    x, y = tf.ones((4, 3)), tf.ones((4, 1))
    for i in range(3):
        model.scale = float(i + 1)
        step(model, optimizer, x, y)
    assert all(not eagerly for eagerly, _ in log)
    assert {scale for _, scale in log} == {1.0}  # the traced value, kept by the later calls
