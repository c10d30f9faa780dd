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


def test_a_layer_a_functional_constructor_stores_without_calling_runs_only_as_its_callers_do():
    """A model whose constructor cuts a backbone out of another model's input (a functional model)
    and stores a head it does not call there: building the functional model runs nothing of the
    head, and the head's `call` invoked by hand (`self.head.call(...)` from the model's `call`,
    itself `model.call(x)` in eager code: the Faster R-CNN port of the fifteenth audit,
    /tmp/audit15t2/proof/p4_explicit_call_eager.py) runs as Python on eager tensors, every call.
    Its twin calls the stored head on the constructor's `keras.Input`: traced, symbolic."""
    log = []
    Inner, _, _ = _layers(log)

    class Detector(keras.Model):
        def __init__(self):
            super().__init__()
            base = keras.Sequential([keras.Input((3,)), keras.layers.Dense(3, name="features")])
            self.backbone = keras.Model(inputs=base.inputs, outputs=base.get_layer("features").output)
            self.head = Inner()

        def call(self, x):
            return self.head.call(self.backbone(x))

    detector = Detector()
    assert log == []
    for _ in range(3):
        detector.call(tf.constant(X))
    assert log == [("Inner.call", True, False)] * 3

    class Built(keras.Model):
        def __init__(self):
            super().__init__()
            inputs = keras.Input((3,))
            self.head = Inner()
            self.graph = keras.Model(inputs, self.head(inputs))

    log.clear()
    Built()
    assert log and _traced(log, "Inner.call") and all(symbolic for _, _, symbolic in log)


def test_a_branch_under_a_flag_only_eager_calls_pass_is_in_no_trace():
    """A layer's `call` stores a queue only under `is_synthesis=True` (the WaveNet port of the
    fifteenth audit, /tmp/audit15t/proof/p2_eager_layer_store.py): a tf.function calling the layer
    with the default traces only the other branch, and eager calls passing True store concrete
    EagerTensors. Its twin: a tf.function passing True traces the branch, and what it stores on the
    layer is a symbolic tensor of that trace."""
    from tensorflow.python.framework.ops import EagerTensor

    class Queue(keras.layers.Layer):
        def __init__(self):
            super().__init__()
            self.queue = tf.zeros([1, 3])
            self.stores = 0

        def call(self, x, is_synthesis=False):
            if not is_synthesis:
                return x * 2.0
            self.stores += 1
            self.queue = tf.concat([self.queue[:, 1:], x[:, -1:]], axis=1)
            return self.queue

    layer = Queue()
    step = tf.function(lambda t: layer(t))
    for _ in range(2):
        step(tf.ones([1, 3]))
    assert layer.stores == 0 and isinstance(layer.queue, EagerTensor)
    for _ in range(2):
        layer(tf.ones([1, 3]), is_synthesis=True)
    assert layer.stores == 2 and isinstance(layer.queue, EagerTensor)
    assert layer.queue.numpy().shape == (1, 3)

    synthesis = tf.function(lambda t: layer(t, is_synthesis=True))
    synthesis(tf.ones([1, 3]))
    assert layer.stores == 3 and tf.is_symbolic_tensor(layer.queue)
