"""STG102 per step under TensorFlow: the lost update is known only of a change made again on
every call (`+= 1`, `append`): a store a repeated call makes again with the same value is a
guess (the preview tier); and a parameter rebound in the call to what a call returned is no
longer the caller's object. Facts: tests/runtime/test_tf_store_facts.py (TF 2.21)."""

from __future__ import annotations

from rulecases import assert_tiers


def test_a_change_made_every_call_is_default_a_repeated_store_is_preview():
    # TransformerTTS's `self.dropout_1.rate = self.rate` (the same tf.Variable every call) and a
    # flag set to True: what eager code leaves, unless the value changes between calls
    assert_tiers("""
        import tensorflow as tf

        class Prenet(tf.keras.layers.Layer):
            def __init__(self):
                super().__init__()
                self.rate = tf.Variable(0.5, trainable=False)
                self.dropout_1 = tf.keras.layers.Dropout(0.5)
                self.steps = 0
                self.seen = []

            def call(self, x):
                self.dropout_1.rate = self.rate  # preview STG102
                self.ready = True  # preview STG102
                self.steps += 1  # STG102
                self.seen.append(1)  # STG102
                return self.dropout_1(x)
    """)


def test_a_parameter_rebound_to_a_calls_result_is_not_the_callers_object():
    # NVIDIA-Merlin's `inputs = prepare_features(inputs)` then `inputs[k] = ...`, `del inputs[k]`,
    # `return inputs` (sixth audit, V); the twin writes into the argument itself
    assert_tiers("""
        import tensorflow as tf

        prepare = tf.keras.layers.Lambda(lambda d: dict(d))

        class LastAsTarget:
            @tf.function
            def __call__(self, inputs):
                inputs = prepare(inputs)
                for name in ["seq"]:
                    inputs["n_" + name] += 1
                for k in list(inputs.keys()):
                    del inputs[k]
                return inputs

        class InPlace:
            @tf.function
            def __call__(self, inputs):
                inputs["n"] += 1  # STG102
                del inputs["m"]  # preview STG102
                return inputs
    """)
