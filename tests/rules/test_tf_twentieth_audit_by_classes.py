"""Issue 23, the twentieth TensorFlow audit's fix-from half (BY), classes BY-u1 / BY-uP1 (a first-call
guard spelled `== None`), BY-P3 (`tf.keras.metrics.MSE` is a function) and BY-P1 (`array_ops.split`
is `tf.split`): the framework facts they follow, each with its negative twin. Behaviour checked
with TensorFlow 2.21 and Keras 3 in this venv (tests/runtime/test_tf_twentieth_audit_by_facts.py)."""

from __future__ import annotations

from rulecases import assert_tiers


def test_a_first_call_guard_spelled_equals_none_guards_as_is_none_does():
    """BY-u1 (STG402) and BY-uP1 (STG102, preview), iannwtfael's `ResidualBlock.call`: `if self._out
    == None:` whose block sets `self._out` to an int and makes a `Conv2D`. An int, None, a layer
    answer `== None` as `is None` does, so the retrace tf.function makes after the first trace
    created variables skips the block: no ValueError, and the guard's own flag is stored once.
    Twins, still reported: the same block with no guard, and `if self.v == None: self.v =
    tf.Variable(...)`, where the retrace's `self.v == None` raises ValueError (a tf.Variable
    answers `== None` with an op on None), so `==` is no guard there."""
    assert_tiers("""
        import tensorflow as tf
        from tensorflow.keras.layers import Conv2D


        class Block(tf.keras.Model):
            def __init__(self, out_filters=64):
                super().__init__()
                self._out = None
                self._out_filters = out_filters

            @tf.function
            def call(self, inputs):
                if self._out == None:
                    self._out = self._out_filters
                    self.out_layer = Conv2D(filters=self._out_filters, kernel_size=(1, 1))
                return self.out_layer(inputs)


        class Ready(tf.keras.Model):
            def __init__(self):
                super().__init__()
                self.head = None

            @tf.function
            def call(self, inputs):
                if self.head != None:
                    return self.head(inputs)
                self.head = tf.keras.layers.Dense(2)
                return self.head(inputs)


        class Holder(tf.keras.Model):
            def __init__(self):
                super().__init__()
                self.v = None

            @tf.function
            def call(self, inputs):
                if self.v == None:
                    self.v = tf.Variable(1.0)  # STG402
                return inputs * self.v


        class Bare(tf.keras.Model):
            @tf.function
            def call(self, inputs):
                self.out_layer = Conv2D(filters=3, kernel_size=(1, 1))  # STG402
                return self.out_layer(inputs)


        Block()(tf.ones((1, 4, 4, 3)))
        Ready()(tf.ones((1, 3)))
        Holder()(tf.ones(2))
        Bare()(tf.ones((1, 4, 4, 3)))
    """)


def test_keras_metrics_mse_is_a_function_that_makes_no_variable():
    """BY-P3 (STG402, preview), TRUNET's `custom_losses.py`: `tf.keras.metrics.MSE(obs, preds)` in a
    loss a tf.function step calls is `mean_squared_error`, a function: it creates no variable.
    Twin, still reported: `tf.keras.metrics.MeanSquaredError()` made in the step (a Metric class
    that owns variables)."""
    assert_tiers("""
        import tensorflow as tf


        def loss_fn(obs, preds):
            mse = tf.keras.metrics.MSE(obs, preds)
            mae = tf.keras.metrics.MAE(obs, preds)
            return mse + mae


        @tf.function
        def step(obs, preds):
            return loss_fn(obs, preds)


        @tf.function
        def metric_step(obs, preds):
            metric = tf.keras.metrics.MeanSquaredError()  # STG402
            metric.update_state(obs, preds)
            return metric.result()


        step(tf.ones(3), tf.ones(3))
        metric_step(tf.ones(3), tf.ones(3))
    """)


def test_array_ops_split_is_tf_split():
    """BY-P1 (STG602, preview), TRUNET's `ConvGRU2DCell.call`: `bias_z, bias_r, bias_h =
    array_ops.split(self.bias, 3)` under a trace. `array_ops.split is tf.split`: with an int count it
    returns a Python list of 3 tensors, and unpacking the list traces. Twin, still reported:
    unpacking a tensor itself (`array_ops.reshape(...)` gives one tensor)."""
    assert_tiers("""
        import tensorflow as tf
        from tensorflow.python.ops import array_ops


        @tf.function
        def gates(bias):
            bias_z, bias_r, bias_h = array_ops.split(bias, 3)
            return bias_z + bias_r + bias_h


        @tf.function
        def rows(bias):
            a, b, c = array_ops.reshape(bias, [3, -1])  # STG602
            return a + b + c


        gates(tf.ones(6))
        rows(tf.ones(6))
    """)
