"""Issue 23, the fifteenth TensorFlow audit's fix-from half (BE): its false classes as the framework
facts they follow, each with its negative twin. Behaviour checked with TensorFlow 2.21 / Keras 3 in
this venv (tests/runtime/test_tf_fifteenth_audit_be_facts.py)."""

from __future__ import annotations

from rulecases import assert_tiers


def test_a_function_per_iteration_around_what_the_iteration_makes_costs_no_avoidable_trace():
    """BE1, a StyleGAN port's `trace_G_graphs`: for each resolution the loop wraps the model
    `create_G_model(res, mode)` gives for it in `tf.function` and calls it once between
    `trace_on` and `trace_export`. A Function's traces are its own, keyed by its arguments: one
    made before the loop saves a trace per iteration only where the new one wraps the same
    callable every iteration. Around what a call of the loop's variable gives (another model
    each resolution, unless the call gives the same object again: not shown) the step is a
    guess, the preview tier, as under JAX; around a Keras model the iteration makes (a Keras
    class called, a function of the file returning one, directly or through a name the lambda
    holds) nothing at all: 3 models, 3 traces either way."""
    assert_tiers("""
        import tensorflow as tf

        def build_model():
            return tf.keras.Sequential([tf.keras.layers.Dense(2)])

        class Generator:
            def __init__(self):
                self.models = {}

            def create_model(self, res, mode):
                key = (res, mode)
                if key not in self.models:
                    self.models[key] = tf.keras.Sequential([tf.keras.layers.Dense(res)])
                return self.models[key]

            def trace_graphs(self, writers):
                x = tf.zeros([1, 4])
                for res in range(2, 6):
                    traced = tf.function(self.create_model(res, mode="stable"))  # preview STG502
                    with writers[res].as_default():
                        tf.summary.trace_on(graph=True)
                        traced(x)
                        tf.summary.trace_export(name="G", step=0)

        def per_model(xs):
            for x in xs:
                model = build_model()
                tf.function(lambda v: model(v))(x)
                named = tf.function(model)
                named(x)
                tf.function(tf.keras.Sequential([tf.keras.layers.Dense(2)]))(x)
        """)


def test_a_function_per_iteration_around_the_same_callable_still_reported():
    """BE1's negative twin: `tf.function(lambda x: model(x))` in the loop with `model` built once
    before it wraps the same code and closure every iteration: a trace per iteration that one
    Function made before the loop saves (3 against 1); a model made before the loop and wrapped
    anew in it is the same callable too."""
    assert_tiers("""
        import tensorflow as tf

        def build_model():
            return tf.keras.Sequential([tf.keras.layers.Dense(2)])

        def negative(xs):
            model = build_model()
            for x in xs:
                tf.function(lambda v: model(v))(x)  # STG502
                wrapped = tf.function(model)  # STG502
                wrapped(x)
        """)
