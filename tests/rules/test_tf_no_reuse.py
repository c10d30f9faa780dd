"""Rules whose loss is a call that reuses a trace (STG102 writes, STG301/STG302 reads) say nothing
where no call of the TensorFlow Function reuses one (`analysis.repetition.no_reuse`): a
`@tf.function` method is one Function per object (TF 2.21, tests/runtime/test_tf_no_reuse_facts.py),
so one that `__init__` alone calls, once, and a `@tf.function def __init__`, trace on their one
call per object and run their Python effects every time (the seventeenth audit's BN-P1: Reflect's
`create_vars`, BayesFlow's `MCMCSurrogateLikelihood.__init__`). The twins: the same method also
called from another method, twice in `__init__`, in a loop, on an object of unknown class, or an
`__init__` called again on a made object: reported as before."""

from __future__ import annotations

from rulecases import assert_tiers


def test_a_builder_method_init_calls_once_per_object_reuses_no_trace():
    # Reflect's LmLSTM: `__init__` calls the @tf.function `create_vars` once
    assert_tiers("""
        import tensorflow as tf

        class LmLSTM(tf.keras.Model):
            def __init__(self, hparams):
                super().__init__()
                self.hparams = hparams
                self.stacked_rnns = []
                self.built_times = 0
                self.create_vars()

            @tf.function
            def create_vars(self):
                self.input_embedding = tf.keras.layers.Embedding(10, 4)
                self.stacked_rnns.append(tf.keras.layers.Dense(4))
                self.built_times += 1

            def call(self, x):
                return self.input_embedding(x)
    """)


def test_a_builder_method_also_called_elsewhere_is_reported():
    # the twin: `call` calls it again on the same object, whose Function reuses its trace
    assert_tiers("""
        import tensorflow as tf

        class LmLSTM(tf.keras.Model):
            def __init__(self, hparams):
                super().__init__()
                self.hparams = hparams
                self.stacked_rnns = []
                self.built_times = 0
                self.create_vars()

            @tf.function
            def create_vars(self):
                self.input_embedding = tf.keras.layers.Embedding(10, 4)
                self.stacked_rnns.append(tf.keras.layers.Dense(4))  # STG102
                self.built_times += 1  # STG102

            def call(self, x):
                self.create_vars()
                return self.input_embedding(x)
    """)


def test_a_builder_called_twice_per_object_or_in_a_loop_is_reported():
    # a subclass whose `__init__` calls it after `super().__init__()` did (Reflect's
    # BertSharedWeights), and a call in a loop of `__init__`
    assert_tiers("""
        import tensorflow as tf

        class Base(tf.Module):
            def __init__(self):
                self.count = 0
                self.make()

            @tf.function
            def make(self):
                self.count += 1  # STG102

        class Twice(Base):
            def __init__(self):
                super().__init__()
                self.make()

        class Looped(tf.Module):
            def __init__(self, n):
                self.parts = []
                for _ in range(n):
                    self.grow()

            @tf.function
            def grow(self):
                self.parts.append(1.0)  # STG102
    """)


def test_a_builder_called_by_its_name_on_an_object_of_unknown_class_is_reported():
    # `agent.reset()` on a parameter: it may be this class's method, called again
    assert_tiers("""
        import tensorflow as tf

        class Agent(tf.Module):
            def __init__(self):
                self.resets = 0
                self.reset()

            @tf.function
            def reset(self):
                self.resets += 1  # STG102

        def run(agent):
            agent.reset()
    """)


def test_a_tf_function_init_runs_once_per_object():
    # BayesFlow's MCMCSurrogateLikelihood, with a subclass calling `Base.__init__(self, ...)`
    assert_tiers("""
        import tensorflow as tf

        class Surrogate:
            @tf.function
            def __init__(self, likelihood, configurator=None):
                self.likelihood = likelihood
                self.configurator = configurator
                if self.configurator is None:
                    self.configurator = self._default

            def _default(self, x):
                return x

        class PyMCSurrogate(Surrogate):
            def __init__(self, likelihood, observables):
                Surrogate.__init__(self, likelihood=likelihood)
                self.observables = observables
    """)


def test_an_init_called_again_on_a_made_object_is_reported():
    # the twin: `reset` runs `__init__` again on the same object, which reuses its trace
    assert_tiers("""
        import tensorflow as tf

        class Surrogate:
            @tf.function
            def __init__(self, likelihood):
                self.likelihood = likelihood  # preview STG102
                self.calls = 0  # preview STG102

            def reset(self, likelihood):
                self.__init__(likelihood)
    """)


def test_stg302_a_read_in_a_builder_run_once_per_object_is_never_stale():
    # `set_scale` reassigns `self.scale`, but `make_table` runs once per object, at construction:
    # no later call reuses its trace (the twin: `__call__` calls it again, on the same object)
    for again, marker in (("", ""), ("self.make_table()", "  # preview STG302")):
        assert_tiers(f"""
            import tensorflow as tf

            class Model(tf.Module):
                def __init__(self, scale):
                    self.scale = scale
                    self.make_table()

                @tf.function
                def make_table(self):
                    self.table = tf.constant([self.scale * 2.0, 2.0]){marker}  # STG201

                def set_scale(self, s):
                    self.scale = s

                def __call__(self, x):
                    {again or "pass"}
                    return x * self.table

            m = Model(2.0)
            m.set_scale(3.0)
        """)
