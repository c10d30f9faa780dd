"""STG402 and a method shadowed by the attribute `__init__` binds (`analysis.shadowing`): after
`self.encoder = self.encoder()`, a traced `self.encoder(x)` calls the built object, not the builder
(Python's lookup: tests/runtime/test_tf_shadowing_facts.py). Each test pairs the shadowed shape
with its twin where the builder is still what the traced call runs."""

from __future__ import annotations

from rulecases import assert_tiers


def test_a_builder_shadowed_in_init_is_not_traced():
    """tuananhphamds/MST-VAE-Tensorflow2 (BR1u): the builder runs once, in `__init__`."""
    assert_tiers("""
        import tensorflow as tf

        def conv(x):
            return tf.keras.layers.Conv1D(4, 3)(x)

        class Model(tf.keras.Model):
            def __init__(self):
                super(Model, self).__init__()
                self.size = 3
                self.encoder = self.encoder()

            def encoder(self):
                inputs = tf.keras.Input(shape=(8, 2))
                return tf.keras.Model(inputs, conv(inputs))

            @tf.function
            def step(self, x):
                return self.encoder(x, training=False)
    """)


def test_a_builder_bound_only_under_an_if_is_still_traced():
    """The negative twin: when `flag` is false the attribute is never bound and `self.encoder(x)`
    calls the method, whose layer is then made in the trace."""
    assert_tiers("""
        import tensorflow as tf

        class Model(tf.keras.Model):
            def __init__(self, flag):
                super().__init__()
                if flag:
                    self.encoder = self.encoder()

            def encoder(self):
                return tf.keras.layers.Dense(3)  # STG402

            @tf.function
            def step(self, x):
                return self.encoder()(x)
    """)


def test_a_subclass_with_its_own_init_keeps_the_builder():
    """The negative twin: an instance of `Child` runs `Child.__init__`, which binds nothing, so
    the traced `self.encoder()` calls the builder."""
    assert_tiers("""
        import tensorflow as tf

        class Model(tf.keras.Model):
            def __init__(self):
                super().__init__()
                self.encoder = self.encoder()

            def encoder(self):
                return tf.keras.layers.Dense(3)  # STG402

            @tf.function
            def step(self, x):
                return self.encoder()(x)

        class Child(Model):
            def __init__(self):
                tf.keras.Model.__init__(self)
    """)


def test_a_library_base_not_known_to_store_in_the_instance_dict_keeps_the_builder():
    """The negative twin: a base the model does not know (here any library class but `object`,
    `tf.Module` and Keras's) may keep attributes elsewhere (torch's `nn.Module` keeps modules in
    `_modules`, so the class's method is found first): unknown."""
    assert_tiers("""
        import tensorflow as tf
        from somelib import Base

        class Model(Base):
            def __init__(self):
                super().__init__()
                self.encoder = self.encoder()

            def encoder(self):
                return tf.keras.layers.Dense(3)  # STG402

            @tf.function
            def step(self, x):
                return self.encoder()(x)
    """)


def test_a_traced_call_run_before_the_binding_calls_the_builder():
    """The negative twin: `__init__` runs the traced `step` before it binds the attribute, so that
    trace's `self.encoder()` calls the method."""
    assert_tiers("""
        import tensorflow as tf

        class Model(tf.keras.Model):
            def __init__(self):
                super().__init__()
                self.warm = self.step(tf.ones((1, 3)))
                self.encoder = self.encoder()

            def encoder(self):
                return tf.keras.layers.Dense(3)  # STG402

            @tf.function
            def step(self, x):
                return self.encoder()(x)
    """)


def test_a_method_wrapped_in_init_is_still_what_its_calls_run():
    """The negative twin: `self.run = tf.function(self.run)` binds a Function that calls the method,
    so `self.run(i)` is a call of it (here with a new Python number each time: STG501)."""
    assert_tiers("""
        import tensorflow as tf

        class M(tf.Module):
            def __init__(self):
                super().__init__()
                self.run = tf.function(self.run)

            def run(self, n):
                return tf.ones((n,))

            def loop(self):
                for i in range(10):
                    self.run(i)  # STG501
    """)
