"""The seventeenth TensorFlow audit's held-back half BN, preview class BN-P2 (STG302, samiraabnar/Reflect
and nglehuy/sasegan): state assigned only while the object is made. A method that makes Keras
objects (layers, metrics) and binds them on its own object, called only by set-up code
(`create_vars()` from `__init__`), builds the object's parts before anything can trace it, like
`build`; an attribute bound to a dict, list or tuple of Keras objects made there is a Keras-object
attribute, as one alone is (read at run time; replacing one is STG303's). The twins: the builder
called on an object elsewhere, a public method binding plain Python values, a container holding
a Python number."""

from __future__ import annotations

from rulecases import assert_marked

BUILDER = """
    import tensorflow as tf

    class VanillaFF(tf.keras.Model):
        def __init__(self, depth):
            super().__init__()
            self.depth = depth
            self.create_vars()

        def create_vars(self):
            self.flat = tf.keras.layers.Flatten()
            self.indrop = tf.keras.layers.Dropout(0.1)
            self.hidden_layers = []
            for _ in range(self.depth):
                self.hidden_layers.append(tf.keras.layers.Dense(8))
            self.out = tf.keras.layers.Dense(1)

        def call(self, x):
            x = self.indrop(self.flat(x))
            for layer in self.hidden_layers:{mark}
                x = layer(x)
            return self.out(x)

    model = VanillaFF(2)

    @tf.function
    def step(x):
        return model(x)

    step(tf.ones([2, 3]))
    step(tf.ones([2, 3]))
"""


def test_a_builder_only_init_calls_sets_the_layers_up():
    assert_marked(BUILDER.format(mark=""), preview=True)


def test_a_builder_also_called_on_an_object_is_not_set_up_only():
    assert_marked(BUILDER.format(mark="  # STG302") + "\n    model.create_vars()\n", preview=True)


def test_a_public_method_binding_python_values_stays_unknown():
    """No Keras object made: a setter its users may call at any time (the preview tier's guess)."""
    assert_marked("""
        import tensorflow as tf

        class Scaled(tf.keras.Model):
            def __init__(self):
                super().__init__()
                self.configure()

            def configure(self):
                self.scales = [1.0, 2.0]

            def call(self, x):
                return x * self.scales[0]  # STG302

        model = Scaled()

        @tf.function
        def step(x):
            return model(x)

        step(tf.ones([2, 3]))
        step(tf.ones([2, 3]))
    """, preview=True)


METRICS = """
    import tensorflow as tf

    class Trainer:
        def __init__(self, model):
            self.model = model
            self.set_metrics()

        def set_metrics(self):
            self.metrics = {{"loss": tf.keras.metrics.Mean("loss"), "acc": {second}}}

        @tf.function
        def train_step(self, x):
            loss = tf.reduce_mean(self.model(x))
            self.metrics["loss"].update_state(loss){mark}
            return loss
"""


def test_a_dict_of_keras_metrics_is_a_keras_object_attribute():
    assert_marked(METRICS.format(second='tf.keras.metrics.Mean("acc")', mark=""), preview=True)


def test_a_dict_holding_a_python_number_is_plain_python_state():
    assert_marked(METRICS.format(second="0.5", mark="  # STG302"), preview=True)
