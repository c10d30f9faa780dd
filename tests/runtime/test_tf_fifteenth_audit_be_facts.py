"""The facts behind the fifteenth TensorFlow audit's false classes of half BE (BE1, BE2;
tests/rules/test_tf_fifteenth_audit_be_classes.py), observed with the real TensorFlow 2.21 /
Keras 3 and tf_keras."""

from __future__ import annotations

import pytest

tf = pytest.importorskip("tensorflow")
keras = pytest.importorskip("keras")


def _model(x, width):
    m = keras.Sequential([keras.layers.Dense(width)])
    m(x)  # built before a Function sees it
    return m


def test_a_function_per_iteration_around_another_model_each_iteration_costs_no_extra_trace():
    """`analysis.functions.wrapped_anew_each_iteration` (STG502, BE1): a Function made in each
    iteration around the model the iteration builds traces once per iteration; one Function made
    before the loop, taking the model as an argument, traces once per model as well (a Keras
    model argument is keyed by identity): no single Function could share those traces. Around the
    same model each iteration (`tf.function(lambda x: model(x))` with `model` built once before
    the loop), the new Function per iteration traces on every iteration where one made before
    the loop traces once."""
    x = tf.ones((1, 3))
    models = [_model(x, w) for w in (2, 4, 8)]
    counts = []
    for m in models:  # the StyleGAN port's shape: a new Function around each resolution's model
        f = tf.function(m)
        f(x)
        f(x)
        counts.append(f.experimental_get_tracing_count())
    assert counts == [1, 1, 1]  # three traces in all

    @tf.function
    def once(model, x):
        return model(x)

    for m in models:
        once(m, x)
    assert once.experimental_get_tracing_count() == 3  # three as well: no trace to save

    one = models[0]
    per_iteration = 0
    for _ in range(3):
        g = tf.function(lambda v: one(v))  # the same code and closure each iteration
        g(x)
        per_iteration += g.experimental_get_tracing_count()
    assert per_iteration == 3
    made_once = tf.function(lambda v: one(v))
    for _ in range(3):
        made_once(x)
    assert made_once.experimental_get_tracing_count() == 1  # two traces avoidable


@pytest.mark.parametrize("flavour", ["keras", "tf_keras"])
def test_keras_sets_built_before_call_and_layer_build_sets_it(flavour):
    """`frameworks.tensorflow.KERAS_BUILT_BEFORE_CALL` (STG105, BE2): Keras 3 and tf_keras build
    a layer from `__call__` (its `build`, then `built = True`) before its `call` runs, eagerly
    or in the first trace, so `if not self.built:` in `call` is never true; the base
    `Layer.build` sets `built`, so the same test after `super().build(...)` is never true
    either (the Demucs port's `ScaledEmbedding`, which sets `self.built = False` in `__init__`)."""
    k = pytest.importorskip(flavour)
    log = []

    class ScaledEmbedding(k.layers.Layer):
        def __init__(self):
            super().__init__()
            self.embedding = k.layers.Embedding(8, 4)
            self.built = False

        def build(self, input_shape):
            log.append(("build, before super", self.built))
            super().build(input_shape)
            log.append(("build, after super", self.built))
            if not self.built:
                log.append("guard in build taken")

        def call(self, inputs):
            log.append(("call", tf.executing_eagerly(), self.built))
            if not self.built:
                log.append("guard in call taken")
            return self.embedding(inputs)

    x = tf.constant([[1, 2]])
    for first in ("traced", "eager"):
        log.clear()
        layer = ScaledEmbedding()
        f = tf.function(lambda v: layer(v))
        if first == "traced":
            f(x)
            f(tf.constant([[1, 2, 3]]))  # a second trace
            layer(x)
        else:
            layer(x)
            f(x)
        assert ("build, before super", False) in log
        assert ("build, after super", True) in log
        assert "guard in build taken" not in log and "guard in call taken" not in log
        calls = [e for e in log if e[0] == "call"]
        assert calls and all(built for _, _, built in calls)
        assert any(not eager for _, eager, _ in calls)  # call traced with built already True


def test_a_custom_flag_set_in_call_is_no_keras_fact():
    """The negative twin of BE2: a flag of the layer's own (`self._initialized`), set in `call`
    under `if not self._initialized:` with a state op in the block, is decided in the trace: the
    op is recorded into the graph and runs on every call while the flag flipped once (STG105's
    reading stands)."""
    class Counter(keras.layers.Layer):
        def __init__(self):
            super().__init__()
            self.v = tf.Variable(0)
            self._initialized = False

        def call(self, x):
            if not self._initialized:
                self.v.assign_add(1)
                self._initialized = True
            return x

    layer = Counter()
    f = tf.function(lambda v: layer(v))
    for _ in range(3):
        f(tf.ones(()))
    assert int(layer.v.numpy()) == 3
