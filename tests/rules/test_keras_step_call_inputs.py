"""A subclassed Keras model whose `call` needs more than the batch's input is not traced by
Keras's own `fit` / `evaluate` / `predict` steps: they call it on the one input and raise
TypeError first (`frameworks.KERAS_STEP_CALL_KEYWORDS`, `Project._call_needs_more_than_x`;
tests/runtime/test_tf_keras_step_inputs_facts.py). att_ctc_tf2's `Seq2Seq` (the eleventh
TensorFlow audit): `seq2seq.evaluate(data, widths, 20)` shows no tracing of its `call`, which the
training loop runs eagerly; what else shows Keras tracing it is not in the code, so its print
goes to the preview tier."""

from __future__ import annotations

from rulecases import assert_tiers


def test_a_call_needing_more_positional_inputs_is_not_shown_traced_by_evaluate():
    assert_tiers("""
        import tensorflow as tf

        class Seq2Seq(tf.keras.Model):
            def __init__(self):
                super().__init__()
                self.dense = tf.keras.layers.Dense(2)

            def call(self, input, input_widths, label, training):
                out = self.dense(input)
                print("loss:", out)  # preview STG101
                return out

        def main(data, widths):
            model = Seq2Seq()
            model.evaluate(data, widths, 20)
    """)


def test_a_call_taking_the_input_alone_or_an_own_step_stays_traced_by_evaluate():
    """The negative twins: `call(self, x, training=False)`, and a class whose own `test_step`
    calls `self(x, widths)` inside Keras's traced loop."""
    assert_tiers("""
        import tensorflow as tf

        class One(tf.keras.Model):
            def __init__(self):
                super().__init__()
                self.dense = tf.keras.layers.Dense(2)

            def call(self, x, training=False):
                out = self.dense(x)
                print("loss:", out)  # STG101
                return out

        class Two(tf.keras.Model):
            def __init__(self):
                super().__init__()
                self.dense = tf.keras.layers.Dense(2)

            def call(self, x, widths, training=False):
                out = self.dense(x)
                print("loss:", out)  # STG101
                return out

            def test_step(self, data):
                x, widths = data
                return {"out": self(x, widths)}

        def main(data, widths):
            One().evaluate(data, widths)
            Two().evaluate(data, widths)
    """)
