"""The facts behind the fifteenth TensorFlow audit's false classes of half BE (BE1;
tests/rules/test_tf_fifteenth_audit_be_classes.py), observed with the real TensorFlow 2.21 /
Keras 3."""

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
