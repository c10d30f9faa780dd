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

        model = tf.keras.Sequential([Prenet()])
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


def test_a_change_to_what_the_same_call_stored_anew_is_preview():
    # TensorDiffEq's `self.variables = self.u_model.trainable_variables` then
    # `self.variables.extend(...)` (seventh audit, Z): each call extends what it stored itself,
    # lost only if that is the same object every call (`stores.stored_anew_above`). The twins: a
    # store under an `if` above it may not run, and the same change without the store stays known.
    assert_tiers("""
        import tensorflow as tf

        class Discovery(tf.Module):
            def __init__(self, model, extra):
                self.model = model
                self.extra = extra
                self.kept = []
                self.log = []
                self.steps = 0

            @tf.function
            def train_op(self, x, first):
                self.variables = self.model.trainable_variables  # preview STG102
                self.variables.extend(self.extra)  # preview STG102
                self.count = 0  # preview STG102
                for _ in range(3):
                    self.count += 1  # preview STG102
                if first:
                    self.kept = []  # preview STG102
                self.kept.append(x)  # STG102
                self.log.append(x)  # STG102
                self.steps += 1  # STG102
                return x
    """)


def test_a_store_computed_from_the_place_is_known_only_for_arithmetic_that_changes_it_again():
    # xplique's `layer.call = decorator(layer.call)` (sixth audit, U; undone by another helper in
    # the same trace) and a flag kept with `|=`: a repeated call may give the same value back, so
    # the loss is a guess; the twins, arithmetic over the place, change it again on every call
    assert_tiers("""
        import tensorflow as tf

        def watch(layer, wrap):
            layer.call = wrap(layer.call)  # preview STG102

        class Model(tf.Module):
            def __init__(self, layer):
                self.layer = layer
                self.flags = 0
                self.total = 0
                self.scale = 1.0
                self.factor = None

            @tf.function
            def __call__(self, x):
                watch(self.layer, tf.recompute_grad)
                self.flags |= 2  # preview STG102
                self.factor = self.factor or 3  # preview STG102
                self.total = self.total + 1  # STG102
                self.scale = self.scale * 0.5 + 1  # STG102
                self.total -= 1  # STG102
                return x
    """)
