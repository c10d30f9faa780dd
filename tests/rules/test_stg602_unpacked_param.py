"""The seventeenth TensorFlow audit's held-back half BN, preview class BN-P5 (STG602, dmmagdal's
FastPitch port): `(inputs, lens) = inputs` in a Keras `call`, then `tf.shape(inputs)`. After the
unpacking the name holds one element of the structure, so the op given it says nothing of what
the parameter was (Python's binding rules: `analysis.walk` counts an op operand as evidence for a
parameter only where the parameter's binding may reach it). Keras 3 passes `call` the structure
its caller gives (a tuple stays a tuple), and unpacking a tuple is not iterating a tensor. The
twin: the op given the parameter itself, before the unpacking, is evidence as before."""

from __future__ import annotations

from rulecases import assert_marked

SOURCE = """
    import tensorflow as tf

    class Model(tf.keras.Model):
        def __init__(self):
            super().__init__()
            self.dense = tf.keras.layers.Dense(1)

        def call(self, inputs):{before}
            (inputs, lens) = inputs{mark}
            n = tf.shape(inputs)[1]
            return self.dense(inputs) * tf.cast(n, tf.float32) + lens

    model = Model()

    @tf.function
    def step(x, lens):
        return model((x, lens))

    step(tf.ones([2, 3]), tf.ones([2, 1]))
"""


def test_an_op_given_an_element_unpacked_from_a_parameter_says_nothing_of_the_parameter():
    assert_marked(SOURCE.format(before="", mark=""), preview=True)


def test_an_op_given_the_parameter_itself_is_evidence_as_before():
    assert_marked(SOURCE.format(before="\n            tf.debugging.assert_rank(inputs, 2)", mark="  # STG602"),
                  preview=True)
