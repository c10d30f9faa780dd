"""When Keras traces a Layer's or Model's own methods (`frameworks.KERAS_LOOP_STEPS`), observed
with the real TensorFlow 2.21 / Keras 3: what `analysis.staging.Project.known_reached` takes as
showing a Keras method traced, and what it leaves unknown (the preview tier)."""

from __future__ import annotations

import os
import tempfile

import numpy as np
import pytest

tf = pytest.importorskip("tensorflow")
keras = pytest.importorskip("keras")

X = np.ones((4, 3), "float32")
Y = np.ones((4, 1), "float32")


def _layers(log):
    class Inner(keras.layers.Layer):
        def call(self, x):
            log.append(("Inner.call", tf.executing_eagerly(), tf.is_symbolic_tensor(x)))
            return x * 2.0

    class Outer(keras.layers.Layer):
        def __init__(self):
            super().__init__()
            self.inner = Inner()

        def call(self, x):
            log.append(("Outer.call", tf.executing_eagerly(), tf.is_symbolic_tensor(x)))
            return self.inner(x)

    class Net(keras.Model):
        def __init__(self):
            super().__init__()
            self.inner = Inner()
            self.dense = keras.layers.Dense(1)

        def call(self, x):
            log.append(("Net.call", tf.executing_eagerly(), tf.is_symbolic_tensor(x)))
            return self.dense(self.inner(x))

        def test_step(self, data):
            log.append(("Net.test_step", tf.executing_eagerly(), False))
            return super().test_step(data)

    return Inner, Outer, Net


def _traced(log, name):
    """Every run of `name` was traced (symbolic tensors, not executing eagerly)."""
    runs = [(eager, symbolic) for n, eager, symbolic in log if n == name]
    assert runs, name
    return all(not eager for eager, _ in runs)


def test_a_layer_called_directly_on_eager_tensors_runs_its_call_as_python():
    log = []
    Inner, Outer, Net = _layers(log)
    Inner()(tf.constant(X))
    assert log == [("Inner.call", True, False)]
    log.clear()
    # a layer with sub-layers and no `build` runs `call` once more on its first call to build
    # them, on the same eager values; every later call runs eagerly
    outer = Outer()
    outer(tf.constant(X))
    outer(tf.constant(X))
    assert [e for n, e, s in log if n == "Outer.call"] == [False, True, True]
    assert not any(symbolic for _, _, symbolic in log)


def test_keras_loops_trace_call_and_their_own_step_method():
    log = []
    _, _, Net = _layers(log)
    net = Net()
    net.compile(optimizer="sgd", loss="mse")
    for run in (lambda: net.fit(X, Y, epochs=1, verbose=0), lambda: net.evaluate(X, Y, verbose=0),
                lambda: net.predict(X, verbose=0), lambda: net.train_on_batch(X, Y),
                lambda: net.test_on_batch(X, Y), lambda: net.predict_on_batch(X)):
        run()
        assert _traced(log, "Net.call") and _traced(log, "Inner.call")
        log.clear()
    fresh = Net()
    fresh.compile(optimizer="sgd", loss="mse")
    fresh.evaluate(X, Y, verbose=0)  # (`net` reuses the test function it traced above)
    assert _traced(log, "Net.test_step")


def test_a_step_method_the_class_calls_itself_runs_eagerly():
    log = []
    _, _, Net = _layers(log)
    net = Net()
    net.compile(optimizer="sgd", loss="mse")
    net.test_step((tf.constant(X), tf.constant(Y)))
    assert ("Net.test_step", True, False) in log and ("Net.call", True, False) in log


def test_run_eagerly_runs_the_loop_as_python():
    log = []
    _, _, Net = _layers(log)
    net = Net()
    net.compile(optimizer="sgd", loss="mse", run_eagerly=True)
    net.fit(X, Y, epochs=1, verbose=0)
    assert ("Net.call", True, False) in log


def test_a_layer_called_in_a_tf_function_or_by_a_traced_owner_is_traced():
    log = []
    Inner, Outer, _ = _layers(log)
    layer = Inner()
    tf.function(lambda t: layer(t))(tf.constant(X))
    assert log == [("Inner.call", False, True)]
    log.clear()
    outer = Outer()
    tf.function(lambda t: outer(t))(tf.constant(X))
    assert _traced(log, "Outer.call") and _traced(log, "Inner.call")


def test_layers_called_on_keras_input_or_in_a_sequential_run_call_on_symbolic_inputs():
    log = []
    Inner, Outer, _ = _layers(log)
    inputs = keras.Input((3,))
    keras.Model(inputs, Outer()(inputs))
    assert _traced(log, "Outer.call") and _traced(log, "Inner.call")
    assert all(symbolic for _, _, symbolic in log)
    log.clear()
    keras.Sequential([keras.Input((3,)), Inner()])
    assert log == [("Inner.call", False, True)]
    log.clear()
    sequential = keras.Sequential([Inner()])  # no input shape: built on its first call
    assert log == []
    sequential(tf.constant(X))
    assert log[0] == ("Inner.call", False, True)


def test_saving_a_model_traces_its_call():
    log = []
    _, _, Net = _layers(log)
    net = Net()
    net(tf.constant(X))
    log.clear()
    tf.saved_model.save(net, tempfile.mkdtemp())
    assert _traced(log, "Net.call")
    log.clear()
    net.export(os.path.join(tempfile.mkdtemp(), "exported"), verbose=False)
    assert _traced(log, "Net.call")
