"""The pooled TensorFlow rules under 0.80 on the held-back halves, as facts (session 24; the
framework facts in tests/runtime/test_tf_pooled_weak_rules_facts.py, TF 2.21).

AX3's line 663 (keras-model-registry's `DistributionTransformLayer.call`, STG105): the block under
`if self.transform_type == "auto":` saves `self.transform_type` in a local, sets it for the
transform and puts it back before returning, so it holds the configured value after every call:
a saved-and-restored attribute is no flip (`analysis.stores.put_back_writes`)."""

from __future__ import annotations

from rulecases import assert_tiers


def test_an_attribute_saved_set_and_restored_in_its_block_is_no_flip():
    """Positive: the attribute tested is put back in the block that sets it, so no finding. Twins:
    no restore (the attribute flips once), a `return` between the set and the restore (the path
    through it keeps the new value), the local rebound before the restore."""
    assert_tiers("""
        import tensorflow as tf

        class Transform(tf.Module):
            def __init__(self):
                self.mode = "auto"
                self.count = tf.Variable(0)

            @tf.function
            def restored(self, x):
                if self.mode == "auto":
                    self.count.assign_add(1)
                    saved = self.mode
                    self.mode = "log"
                    y = tf.math.log(x)
                    self.mode = saved
                    return y
                return x

            @tf.function
            def kept(self, x):
                if self.mode == "auto":  # STG105
                    self.count.assign_add(1)
                    self.mode = "log"  # preview STG102
                    return tf.math.log(x)
                return x

            @tf.function
            def may_return(self, x, early):
                if self.mode == "auto":  # STG105
                    self.count.assign_add(1)
                    saved = self.mode
                    self.mode = "log"
                    if early:
                        return x
                    self.mode = saved
                return x

            @tf.function
            def rebound(self, x):
                if self.mode == "auto":  # STG105
                    self.count.assign_add(1)
                    saved = self.mode
                    self.mode = "log"
                    saved = "log"
                    self.mode = saved
                return x
    """)


def test_a_second_keras3_sgd_without_momentum_makes_no_variable_in_the_function():
    """N's TFF notebook (STG403): a Keras 3 `SGD` makes its variables (`iterations`, the learning
    rate) when it is made, and none at its first apply without momentum, so a second one passed
    to a Function that already traced with a first raises nothing (`frameworks.tensorflow.
    optimizer_built_at_construction`). Twins: a momentum (its slots are made at the first apply:
    ValueError), `Adam`, tf_keras's `SGD` (Keras 2 makes them at the first apply), and
    `tf.keras.optimizers.SGD`, Keras 3 only by the environment's choice (preview)."""
    assert_tiers("""
        import keras
        import tensorflow as tf
        import tf_keras

        @tf.function
        def train_step(w, x, optimizer):
            with tf.GradientTape() as tape:
                loss = tf.reduce_sum(tf.square(w * x))
            optimizer.apply_gradients(zip(tape.gradient(loss, [w]), [w]))

        w = tf.Variable(2.0)
        x = tf.constant([-1.0])
        opt1 = keras.optimizers.SGD(learning_rate=0.1)
        train_step(w, x, opt1)
        opt2 = keras.optimizers.SGD(0.01)
        train_step(w, x, opt2)
        opt3 = keras.optimizers.SGD(0.01, momentum=0.0)
        train_step(w, x, opt3)
        opt4 = keras.optimizers.SGD(0.01, momentum=0.9)
        train_step(w, x, opt4)  # STG403
        opt5 = keras.optimizers.Adam()
        train_step(w, x, opt5)  # STG403
        opt6 = tf_keras.optimizers.SGD(0.01)
        train_step(w, x, opt6)  # STG403
        opt7 = tf.keras.optimizers.SGD(0.01)
        train_step(w, x, opt7)  # preview STG403
    """)


def test_keras_ops_results_are_tensors_and_their_python_valued_ones_are_not():
    """AX3's first missing fact: under the TensorFlow backend a `keras.ops` op returns a tensor,
    so a Python `if` on `ops.min(x) > 0` in a Keras 3 `call` (not converted) raises at every
    trace (STG602; Keras traces this layer: it is called on `keras.Input`). Twins: `ops.shape`
    is a Python tuple, its element an int; a parameter given to a `keras.ops` op is no tensor for
    that alone (`ops.cast(dim, ...) / ops.cast(max(1, dim - 2), ...)` of a static dimension: keras_hub's rotary
    embedding), since those ops take Python numbers as readily."""
    assert_tiers("""
        import keras
        from keras import ops

        class Select(keras.layers.Layer):
            def call(self, x):
                if ops.min(x) > 0:  # STG602
                    x = x * 2.0
                if ops.shape(x)[0] > 1:
                    x = x + 1.0
                return x * self.scale(ops.shape(x)[-1])

            def scale(self, dim):
                return ops.cast(dim, "float32") / ops.cast(max(1, dim - 2), "float32")

        inputs = keras.Input(shape=(3,))
        model = keras.Model(inputs, Select()(inputs))
    """)


def test_a_new_optimizer_made_with_a_new_function_in_the_same_iteration_is_silent():
    """The sixteenth audit's BI2 (an EWC notebook's `train_task`, STG403): each outer iteration
    makes a new Function (`step = get_train()`, a `tf.function` defined in the factory) and a
    new optimizer, then calls that Function with it for every batch: each optimizer reaches one
    Function only (tests/runtime/test_tf_pooled_weak_rules_facts.py). Twins: one Function made
    before the loop with a new optimizer per iteration, and a new optimizer per batch in the
    inner loop under the outer loop's new Function, each reach a Function that ran: reported."""
    assert_tiers("""
        import tensorflow as tf

        def get_train():
            @tf.function
            def train_step(x, model, optimizer):
                with tf.GradientTape() as tape:
                    loss = tf.reduce_mean(model(x))
                g = tape.gradient(loss, model.trainable_weights)
                optimizer.apply_gradients(zip(g, model.trainable_weights))
                return loss
            return train_step

        def train_task(model, ds, lams):
            for lam in lams:
                step = get_train()
                optimizer = tf.keras.optimizers.Adam(learning_rate=0.001)
                for x in ds:
                    step(x, model, optimizer)

        def optimizer_first(model, ds, lams):
            for lam in lams:
                optimizer = tf.keras.optimizers.Adam(learning_rate=0.001)
                step = get_train()
                for x in ds:
                    step(x, model, optimizer)

        def train_shared(model, ds, lams):
            step = get_train()
            for lam in lams:
                optimizer = tf.keras.optimizers.Adam(learning_rate=0.001)
                for x in ds:
                    step(x, model, optimizer)  # STG403

        def per_batch(model, ds, lams):
            for lam in lams:
                step = get_train()
                for x in ds:
                    optimizer = tf.keras.optimizers.Adam(learning_rate=0.001)
                    step(x, model, optimizer)  # STG403
    """)


def test_a_function_made_in_a_tff_computation_body_is_made_once():
    """N's TFF notebook (`custom_federated_algorithms_2.ipynb` cell 33, STG502): a TensorFlow
    Federated computation's body runs once per parameter type, when the computation is built
    (at the decorator given the types), and a call runs what was serialized, so a `tf.function`
    made in it is made and traced once however often the computation is called in a loop
    (`frameworks.TFF_SERIALIZING_DECORATORS`, `analysis.repetition.serialized`): the typed
    decorator, the older `tff.tf_computation`, the untyped (polymorphic) form, a helper that only
    the body calls, and `tff.federated_computation`. Twins: the same def in a plain function called
    in the same loop, and a helper that a plain function calls in a loop."""
    assert_tiers("""
        import collections

        import tensorflow as tf
        import tensorflow_federated as tff

        MODEL_TYPE = tff.types.StructType([("w", tff.TensorType(tf.float32, [2]))])

        @tff.tensorflow.computation(MODEL_TYPE, tf.float32)
        def batch_train(initial_model, learning_rate):
            model_vars = collections.OrderedDict(
                (name, tf.Variable(name=name, initial_value=value)) for name, value in initial_model.items())

            @tf.function
            def _train_on_batch(model_vars):
                return model_vars

            return _train_on_batch(model_vars)

        @tff.tf_computation(tf.float32)
        def older(x):
            return tf.function(lambda v: v * 2)(x)

        @tff.tensorflow.computation
        def polymorphic(x):
            @tf.function
            def double(v):
                return v * 2
            return double(x)

        def helper(x):
            @tf.function
            def triple(v):
                return v * 3
            return triple(x)

        @tff.tensorflow.computation(tf.float32)
        def through_helper(x):
            return helper(x)

        @tff.federated_computation(tf.float32)
        def federated(x):
            return older(x)

        def plain_train(x, learning_rate):
            @tf.function  # STG502
            def _train_on_batch(v):
                return v * learning_rate
            return _train_on_batch(x)

        def other_helper(x):
            @tf.function  # STG502
            def quadruple(v):
                return v * 4
            return quadruple(x)

        def plain_caller(x):
            return other_helper(x)

        model = {"w": [0.0, 0.0]}
        for _ in range(5):
            model = batch_train(model, 0.1)
            older(1.0)
            polymorphic(1.0)
            through_helper(1.0)
            federated(1.0)
            plain_train(tf.constant(1.0), 0.1)
            plain_caller(tf.constant(1.0))
    """)
