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
