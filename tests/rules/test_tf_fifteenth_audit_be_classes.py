"""Issue 23, the fifteenth TensorFlow audit's fix-from half (BE): its false classes as the framework
facts they follow, each with its negative twin. Behaviour checked with TensorFlow 2.21 / Keras 3 and
tf_keras in this venv (tests/runtime/test_tf_fifteenth_audit_be_facts.py)."""

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


def test_keras_sets_built_before_call_so_a_lazy_build_guard_is_never_taken():
    """BE2, a Demucs port's `ScaledEmbedding`: `call` begins `if not self.built: self.build(None)`,
    `build` begins `super().build(input_shape)` then `if not self.built:` (scale the weights, set
    `built`). Keras (3 and tf_keras) runs `build` and sets `built` in `__call__` before `call`
    runs, eagerly or in the first trace, and the base `Layer.build` sets it: neither test is ever
    true, in a trace or eagerly, so no trace decides it differently from eager code. The model
    holding it calls `self.call(...)` in its own `build`: that invokes the model's `call`, not
    the embedding's, which still runs through `__call__`."""
    assert_tiers("""
        import tensorflow as tf

        class ScaledEmbedding(tf.keras.layers.Layer):
            def __init__(self, n, d, scale=10.0):
                super().__init__()
                self.embedding = tf.keras.layers.Embedding(n, d)
                self.scale = scale
                self.built = False

            def build(self, input_shape):
                super().build(input_shape)
                if not self.built:
                    self.embedding.embeddings.assign(self.embedding.embeddings / self.scale)
                    self.built = True

            def call(self, inputs):
                if not self.built:
                    self.build(None)
                return self.embedding(inputs) * self.scale

        class Net(tf.keras.Model):
            def __init__(self):
                super().__init__()
                self.embed = ScaledEmbedding(8, 4)

            def call(self, x):
                return self.embed(x)

            def build(self, input_shape):
                self.call(tf.zeros(input_shape, tf.int32))  # its own `call`, not the embedding's
                self.built = True

        net = Net()
        step = tf.function(lambda x: net(x))
        for _ in range(3):
            step(tf.constant([[1, 2]]))
        """)


def test_a_flag_of_the_layers_own_or_built_tested_before_super_build_is_no_keras_fact():
    """BE2's negative twins: a flag of the layer's own (`self._initialized`) set in `call` under
    its test, with a state op in the block, is decided by the first trace while the op runs on
    every call (3 calls, the variable 3); `built` tested in `build` before `super().build()` is
    not known (a `build` reached from `call` through `self.build(None)`)."""
    assert_tiers("""
        import tensorflow as tf

        class Counter(tf.keras.layers.Layer):
            def __init__(self):
                super().__init__()
                self.v = tf.Variable(0)
                self._initialized = False

            def call(self, x):
                if not self._initialized:  # STG105
                    self.v.assign_add(1)
                    self._initialized = True  # preview STG102
                return x

        class Early(tf.keras.layers.Layer):
            def __init__(self):
                super().__init__()
                self.w = tf.Variable(1.0)

            def build(self, input_shape):
                if not self.built:  # STG105
                    self.w.assign(2.0)
                    self.built = True
                super().build(input_shape)

            def call(self, x):
                if not self.built:
                    self.build(None)
                return x * self.w

        counter, early = Counter(), Early()

        @tf.function
        def step(x):
            return early(counter(x))

        for _ in range(3):
            step(tf.ones(()))
        """)


def test_a_call_the_module_invokes_itself_is_no_keras_fact():
    """BE2's other twin: `layer.call(x)` skips `__call__`, and the build Keras runs there, so a
    module that invokes a `call` itself does not show `built` set before it (the `call` itself is
    staged only as a guess here: the preview tier, as before)."""
    assert_tiers("""
        import tensorflow as tf

        class Direct(tf.keras.layers.Layer):
            def __init__(self):
                super().__init__()
                self.v = tf.Variable(0)

            def call(self, x):
                if not self.built:  # preview STG105
                    self.v.assign_add(1)
                    self.built = True  # preview STG102
                return x

        direct = Direct()

        @tf.function
        def step(x):
            return direct.call(x)

        for _ in range(3):
            step(tf.ones(()))
        """)
