"""What Keras's own steps pass a model's `call` (`frameworks.KERAS_STEP_CALL_KEYWORDS`), observed
with TF 2.21 / Keras 3: the batch's one input, `training` by keyword. A subclassed model whose `call`
requires more positional arguments (att_ctc_tf2's `Seq2Seq.call(input, input_widths, ...)`, the
eleventh TensorFlow audit) makes `evaluate` raise TypeError before `call` runs, so nothing traces
it there; called by hand in an eager loop, its body runs on every call (after Keras 3's one
symbolic build run)."""

from __future__ import annotations

import numpy as np
import pytest

tf = pytest.importorskip("tensorflow")
keras = pytest.importorskip("keras")


def _model(runs):
    class Seq(keras.Model):
        def __init__(self):
            super().__init__()
            self.dense = keras.layers.Dense(2)

        def call(self, input, input_widths, label, training):
            runs.append(tf.executing_eagerly())
            return self.dense(input)

    return Seq()


def test_evaluate_raises_before_a_call_that_needs_more_than_the_input_runs():
    runs = []
    m = _model(runs)
    x = np.ones((4, 3), "float32")
    m(x, x, x, training=True)
    m.compile(loss="mse")
    with pytest.raises(TypeError):
        m.evaluate(x, np.ones((4, 2), "float32"), 20, verbose=0)
    assert runs == [False, True]  # the build's symbolic run, then the eager call; evaluate: none
    m(x, x, x, training=True)
    m(x, x, x, training=True)
    assert runs == [False, True, True, True]


def test_evaluate_traces_a_call_that_takes_the_input_alone():
    """The negative twin: `call(self, x, training=False)` is traced by `evaluate`."""
    runs = []

    class One(keras.Model):
        def __init__(self):
            super().__init__()
            self.dense = keras.layers.Dense(2)

        def call(self, x, training=False):
            runs.append(tf.executing_eagerly())
            return self.dense(x)

    m = One()
    m.compile(loss="mse")
    x = np.ones((4, 3), "float32")
    m.evaluate(x, np.ones((4, 2), "float32"), batch_size=2, verbose=0)
    assert runs and not any(runs)
