"""The facts behind the thirteenth TensorFlow audit's false classes (half AW,
tests/rules/test_tf_thirteenth_audit_classes.py), observed with the real TensorFlow 2.21 / Keras 3."""

from __future__ import annotations

import pytest

tf = pytest.importorskip("tensorflow")
keras = pytest.importorskip("keras")


def test_a_function_keys_a_keras_model_argument_by_identity():
    """`analysis.functions.new_keras_object_each_iteration` (STG502, AW2): one Function made
    before a loop over rounds, called in each round with a new Keras model, traces once per
    round; called with the same model every round, once. A tf.Module and a plain object are keyed
    by identity as well; a new tf.Variable of the same shape and dtype is not (one trace)."""
    x = tf.ones((2, 3))

    def traces_over_rounds(make, call=lambda obj, x: obj(x)):
        seen = []

        @tf.function
        def step(obj, x):
            seen.append(1)
            return call(obj, x)

        for _ in range(3):
            obj = make()
            for _ in range(3):
                step(obj, x)
        return len(seen)

    def model():
        m = keras.Sequential([keras.layers.Dense(4)])
        m(x)  # built before the Function sees it (an unbuilt one would make variables in a later trace)
        return m

    assert traces_over_rounds(model) == 3
    one = model()
    assert traces_over_rounds(lambda: one) == 1

    def module():
        m = tf.Module()
        m.w = tf.Variable(tf.ones((2, 3)))
        return m

    assert traces_over_rounds(module, lambda m, x: m.w * x) == 3
    assert traces_over_rounds(lambda: tf.Variable(tf.ones((2, 3))), lambda v, x: v * x) == 1


def _traced_twice(layer_class):
    """Two traces of a tf.function over a new instance of `layer_class`: None when they run, else
    the error's type name."""
    outer = layer_class()
    f = tf.function(lambda x: outer(x))
    try:
        f(tf.ones((2, 5, 3)))
        f(tf.ones((4, 5, 3)))  # another shape: a second trace
    except ValueError as e:
        return type(e).__name__
    return None


def test_weightless_wrappers_made_per_call_around_a_layer_made_once():
    """`frameworks.tensorflow.KERAS_WEIGHTLESS_WRAPPERS` (STG402, AW1): an `RNN` or a
    `TimeDistributed` made in each traced `call` around a layer the object made once runs over two
    traces (the wrapped layer is built at the first, once); a `Bidirectional` made so raises
    ValueError (it copies its layer, with new weights), as does an `RNN` over a cell made in the
    call too."""
    class RNNOverOwnCell(keras.layers.Layer):
        def __init__(self):
            super().__init__()
            self.cell = keras.layers.GRUCell(4)

        def call(self, x):
            return keras.layers.RNN(self.cell, return_state=True)(x)[0]

    class TimeDistributedOverOwnLayer(keras.layers.Layer):
        def __init__(self):
            super().__init__()
            self.dense = keras.layers.Dense(4)

        def call(self, x):
            return keras.layers.TimeDistributed(self.dense)(x)

    class BidirectionalOverOwnLayer(keras.layers.Layer):
        def __init__(self):
            super().__init__()
            self.gru = keras.layers.GRU(4)

        def build(self, input_shape):
            pass

        def call(self, x):
            return keras.layers.Bidirectional(self.gru)(x)

    class RNNOverNewCell(keras.layers.Layer):
        def call(self, x):
            return keras.layers.RNN(keras.layers.GRUCell(4))(x)

    assert _traced_twice(RNNOverOwnCell) is None
    assert _traced_twice(TimeDistributedOverOwnLayer) is None
    assert _traced_twice(BidirectionalOverOwnLayer) == "ValueError"
    assert _traced_twice(RNNOverNewCell) == "ValueError"


def test_a_flag_kept_on_the_layer_decides_its_branch_while_tracing():
    """`flags.attribute_values` (AW3): `if self.debugPrint == True:` in a Keras layer's `call`
    tests the Python value `__init__` stored; traced, only the branch it selects is in the graph
    and its `print` runs once per trace when True, never when False."""
    printed = []

    class Residual(keras.layers.Layer):
        def __init__(self, debugPrint=False):
            super().__init__()
            self.debugPrint = debugPrint

        def call(self, x):
            if self.debugPrint == True:  # noqa: E712 (as the port writes it)
                printed.append(self.name)
            return x * 2.0

    quiet, loud = Residual(), Residual(debugPrint=True)
    step = tf.function(lambda x: quiet(x) + loud(x))
    for _ in range(3):
        step(tf.ones((2, 3)))
    assert printed == [loud.name]


def test_keras_layers_make_their_weights_when_built_not_when_constructed():
    """`frameworks.tensorflow.KERAS_BUILDING_INPUTS` (STG402, AW4): a `Sequential` of `Conv2D` and
    `Dense`, and a `Conv2D`, constructed and not called in a tf.function, hold no weights and
    are unbuilt after two traces, which run; a `Sequential` given an `Input` is built when
    constructed; a `Dense` constructed and called there raises ValueError on the first call; an
    Adam has variables as soon as it is constructed (Keras 3)."""
    seen = []

    @tf.function
    def builder(x):
        seq = keras.Sequential([keras.layers.Conv2D(4, 3), keras.layers.Dense(2)])
        conv = keras.layers.Conv2D(4, 3)
        seen.append((len(seq.weights), len(conv.weights), seq.built, conv.built))
        return x * 2.0

    builder(tf.constant(1.0))
    builder(tf.constant([1.0, 2.0]))  # a second trace
    assert seen == [(0, 0, False, False)] * 2
    shaped = keras.Sequential([keras.Input(shape=(3,)), keras.layers.Dense(2)])
    assert shaped.built and len(shaped.weights) == 2

    @tf.function
    def applied(x):
        return keras.layers.Dense(2)(x)

    with pytest.raises(ValueError):  # (tf.function traces again on the call that made variables)
        applied(tf.ones((2, 3)))
    assert len(keras.optimizers.Adam(0.001).variables) >= 1
