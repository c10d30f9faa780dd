"""BR2 (the eighteenth TensorFlow audit's held-back half): a module-level class whose name the
module rebinds, under an `if` on a module constant, before anything reads it. Observed with
Python and the real TensorFlow 2.21 / Keras 3 (`analysis.rebinding`, `literals._compared_truth`)."""

from __future__ import annotations

import textwrap

import pytest

tf = pytest.importorskip("tensorflow")

SOURCE = """
import tensorflow as tf

class generator(tf.keras.layers.Layer):
    def call(self, inputs):
        return tf.keras.layers.Dense(2)(inputs)   # a new layer, new variables, per call

def make_generator_model():
    return tf.keras.Sequential([tf.keras.layers.Dense(2)])

option = {option!r}
if option == "function":
    generator = make_generator_model()
else:
    generator = generator()

@tf.function
def train_step(x):
    return generator(x, training=True)
"""


def _module(option: str) -> dict:
    namespace: dict = {}
    exec(compile(textwrap.dedent(SOURCE.format(option=option)), "<br2>", "exec"), namespace)
    return namespace


def test_the_rebound_name_is_what_the_live_branch_bound_and_the_class_is_never_called():
    """`option = "function"`: Python compares the literal, runs the `if` body only, and the
    global `generator` holds the Sequential when `train_step` runs: tracing calls no
    `generator.call`, and the step runs (twice, same variables)."""
    ns = _module("function")
    assert isinstance(ns["generator"], tf.keras.Sequential)
    x = tf.zeros([1, 3])
    assert ns["train_step"](x).shape == (1, 2)
    assert ns["train_step"](x).shape == (1, 2)


def test_the_class_branch_live_traces_the_class_call_and_raises():
    """The negative twin: `option = "class"` runs the `else`, the name holds an instance of the
    class, and the traced step runs its `call`, which makes a layer (new variables) on the
    trace: tf.function raises the singleton-variable ValueError."""
    ns = _module("class")
    assert type(ns["generator"]).__name__ == "generator"
    with pytest.raises(ValueError, match="tf.Variable"):
        ns["train_step"](tf.zeros([1, 3]))
