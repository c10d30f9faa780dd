"""What `analysis.staging.Project.keras_built_only_here` rests on (`frameworks.KERAS_SYMBOLIC_BUILDS`),
observed with the real TensorFlow 2.21 / Keras 3: a layer whose `call` creates a `tf.Variable` or
a new sub-layer on every call (the eighteenth TensorFlow audit's BR1) builds into a functional
model on `keras.Input`, and into a `Sequential` on its first call, without error: the symbolic
build runs `call` once on symbolic inputs and makes no `tf.function`, so tf.function's rule
(variables created on a first trace only) is not at work there. Called eagerly afterwards, as a
hand-written training loop does, it runs again without error; only a `tf.function` or a Keras
loop (`predict`, `fit`) calling it raises the ValueError STG402 states."""

from __future__ import annotations

import numpy as np
import pytest

tf = pytest.importorskip("tensorflow")
keras = pytest.importorskip("keras")


class _MakesVariable(keras.layers.Layer):
    def call(self, x):
        v = tf.Variable(np.ones(x.shape[-1:]), dtype=tf.float32)
        return x * v


class _MakesLayer(keras.layers.Layer):
    def call(self, x):
        return keras.layers.Dense(3)(x)


def _functional(layer):
    inp = keras.Input((3,))
    return keras.Model(inp, layer(inp))


def _sequential(layer):
    model = keras.Sequential([layer])
    model(np.ones((2, 3), "float32"))
    return model


@pytest.mark.parametrize("layer_cls", [_MakesVariable, _MakesLayer])
@pytest.mark.parametrize("build", [_functional, _sequential])
def test_a_symbolic_build_and_eager_calls_raise_nothing(layer_cls, build):
    model = build(layer_cls())
    x = np.ones((2, 3), "float32")
    model(x)
    model(x)  # eager calls: a fresh variable each time, no error


@pytest.mark.parametrize("layer_cls", [_MakesVariable, _MakesLayer])
@pytest.mark.parametrize("run", ["tf.function", "predict"])
def test_a_function_or_keras_loop_over_the_built_model_raises(layer_cls, run):
    model = _functional(layer_cls())
    x = np.ones((2, 3), "float32")
    with pytest.raises(ValueError):
        if run == "tf.function":
            tf.function(lambda t: model(t))(x)
        else:
            model.predict(x, verbose=0)


# The nineteenth TF audit's BV-t1 (`Project.keras_function_unshown`): a subclassed `Model` whose `call`
# makes `Dropout` and `LayerNormalization` layers, stacked by a builder on `keras.Input`. The build
# runs `call` on symbolic tensors only (twice per model under Keras 3: once to build it, once for its
# output), never eagerly, and raises nothing; the built model called eagerly runs it as Python;
# only a Function running the built model (`tf.function`, `predict`, `fit`) raises STG402's ValueError.
_RUNS: list[tuple[str, bool]] = []


class _EncoderNetwork(keras.Model):
    def __init__(self, name="encoder"):
        super().__init__(name=name)
        self.feed_forward = keras.layers.Dense(4)

    def call(self, x, masking):
        _RUNS.append((type(x).__name__, tf.executing_eagerly()))
        y = keras.layers.Dropout(rate=0.1)(self.feed_forward(x))
        return keras.layers.LayerNormalization()(x + y)


def _encoder(num=2):
    x, masking = keras.Input((5, 4)), keras.Input((1, 1, 5))
    out = x
    for i in range(num):
        out = _EncoderNetwork(name=f"encoder_{i + 1}")(out, masking)
    return keras.Model([x, masking], out)


def _batch():
    return [np.ones((2, 5, 4), "float32"), np.ones((2, 1, 1, 5), "float32")]


def test_a_functional_build_runs_call_on_symbolic_tensors_making_layers_without_error():
    _RUNS.clear()
    model = _encoder()
    assert _RUNS and all(kind != "EagerTensor" and not eager for kind, eager in _RUNS)
    assert len(_RUNS) == 4  # two models, each `call` run twice while built, symbolically
    _RUNS.clear()
    model(_batch())
    model(_batch())
    assert _RUNS == [("EagerTensor", True)] * 4  # called eagerly: Python each time, no error


@pytest.mark.parametrize("run", ["tf.function", "predict", "fit"])
def test_a_function_running_the_built_model_raises(run):
    model, batch = _encoder(), _batch()
    with pytest.raises(ValueError):
        if run == "tf.function":
            tf.function(lambda a, b: model([a, b]))(*batch)
        elif run == "predict":
            model.predict(batch, verbose=0)
        else:
            model.compile(loss="mse", optimizer="sgd")
            model.fit(batch, batch[0], verbose=0)


# `Project.function_reached` / `keras_function_unshown` (session 28, tfkfn): a Keras method runs
# inside a Function only when a Function runs an object of its class. A `tf.function` of the same
# program that runs no such object (`scale`) traces nothing of the layer, however often it runs;
# the functional build runs `call` once, on symbolic tensors of a scratch graph, and raises
# nothing. A Function running an object of the class raises STG402's ValueError: a `tf.function`
# over the built model, one making the layer in its own body, a Keras `train_step` calling it
# under `fit`.
_BLOCK_RUNS: list[str] = []


class _Block(keras.layers.Layer):
    def call(self, x):
        _BLOCK_RUNS.append(type(x).__name__)
        return keras.layers.Dropout(0.1)(keras.layers.Dense(4)(x))


def _build_block():
    inp = keras.Input((8,))
    return keras.Model(inp, _Block()(inp))


def test_a_function_running_no_object_of_the_class_traces_nothing_of_it():
    _BLOCK_RUNS.clear()
    model = _build_block()
    assert _BLOCK_RUNS == ["SymbolicTensor"]  # the build: once, symbolically, no error
    _BLOCK_RUNS.clear()

    @tf.function
    def scale(x):
        return x * 2.0

    for n in range(3):
        scale(tf.ones((n + 1, 8)))  # three traces
    assert _BLOCK_RUNS == []
    model(np.ones((2, 8), "float32"))
    assert _BLOCK_RUNS == ["EagerTensor"]  # called eagerly: Python, no error


class _Trainer(keras.Model):
    def __init__(self):
        super().__init__()
        self.block = _Block()
        self.head = keras.layers.Dense(1)

    def call(self, x):
        return self.head(x)

    def train_step(self, data):
        x, y = data
        return {"loss": tf.reduce_mean((self.head(self.block(x)) - y) ** 2)}


@pytest.mark.parametrize("run", ["tf.function over the built model", "tf.function making it", "train_step"])
def test_a_function_running_an_object_of_the_class_raises(run):
    x = np.ones((4, 8), "float32")
    with pytest.raises(ValueError):
        if run == "tf.function over the built model":
            model = _build_block()
            tf.function(lambda t: model(t))(x)
        elif run == "tf.function making it":
            tf.function(lambda t: _Block()(t))(x)
        else:
            trainer = _Trainer()
            trainer.compile(optimizer="sgd")
            trainer.fit(x, np.ones((4, 1), "float32"), verbose=0)
