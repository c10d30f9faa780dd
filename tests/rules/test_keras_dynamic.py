"""A Keras layer or model built with `dynamic=True` (`analysis.eagerswitch.keras_dynamic`): the
fourteenth audit's fix-from TensorFlow half (BA1: a neural-ODE repository whose `ODEFunc(keras.Model)`
pops `dynamic` from its keyword arguments, default True, and passes it to `super().__init__`).
Keras never traces its `call`: Keras 2 runs it, and a model holding it, eagerly; Keras 3 refuses the
keyword (tests/runtime/test_tf_keras_dynamic_facts.py). Each positive case has its negative twin:
no keyword, a construction passing `dynamic=False`, a project base between, a `tf.function`
around a call of the object."""

from __future__ import annotations

from rulecases import assert_marked

_PROGRAM = """
    import numpy as np
    import tensorflow as tf

    class ODEFunc(tf.keras.Model):
        def __init__(self, hidden, **kwargs):
            {init}
            self.dense = tf.keras.layers.Dense(hidden)
            self.t_vec = tf.ones([32, 1])

        def call(self, x):
            if x.shape[0] != self.t_vec.shape[0]:
                self.t_vec = tf.ones([x.shape[0], 1]){mark}
            return self.dense(tf.concat([self.t_vec, x], axis=-1))

    class Net(tf.keras.Model):
        def __init__(self):
            super().__init__()
            self.f = {make}

        def call(self, x):
            return self.f(x)

    model = Net()
    model.compile(optimizer="adam", loss="mse")
    model.fit(np.zeros((64, 2)), np.zeros((64, 8)), batch_size=16)
"""


def _program(init: str, mark: str, make: str = "ODEFunc(8)") -> str:
    return _PROGRAM.format(init=init, mark=mark, make=make)


def test_a_dynamic_default_popped_from_the_keywords_is_never_traced_by_keras():
    program = _program('dynamic = kwargs.pop("dynamic", True)\n'
                       '            super(ODEFunc, self).__init__(**kwargs, dynamic=dynamic)', "")
    assert_marked(program)
    assert_marked(program, preview=True)  # known untraced: not a preview-tier guess either


def test_a_literal_dynamic_and_a_parameter_defaulting_to_true_too():
    assert_marked(_program("super().__init__(dynamic=True, **kwargs)", ""))
    assert_marked(_PROGRAM.replace("def __init__(self, hidden, **kwargs):", "def __init__(self, hidden, dynamic=True):")
                  .format(init="super().__init__(dynamic=dynamic)", mark="", make="ODEFunc(8)"))


def test_without_the_keyword_the_call_is_traced():
    assert_marked(_program("super().__init__(**kwargs)", "  # STG201"))
    assert_marked(_program("super().__init__(dynamic=False, **kwargs)", "  # STG201"))


def test_a_construction_that_may_pass_dynamic_false_keeps_the_finding():
    init = 'dynamic = kwargs.pop("dynamic", True)\n            super().__init__(dynamic=dynamic, **kwargs)'
    assert_marked(_program(init, "  # STG201", make="ODEFunc(8, dynamic=False)"))
    rebound = ('dynamic = kwargs.pop("dynamic", True)\n            if hidden > 4:\n                dynamic = False\n'
               '            super().__init__(dynamic=dynamic, **kwargs)')
    assert_marked(_program(rebound, "  # STG201"))


def test_a_project_base_between_keeps_the_finding():
    assert_marked("""
        import numpy as np
        import tensorflow as tf

        class Base(tf.keras.Model):
            def __init__(self, dynamic=False):
                super().__init__()

        class ODEFunc(Base):
            def __init__(self):
                super().__init__(dynamic=True)
                self.t_vec = tf.ones([32, 1])

            def call(self, x):
                self.t_vec = tf.ones([x.shape[0], 1])  # STG201
                return x * self.t_vec

        model = ODEFunc()
        model.compile(optimizer="adam", loss="mse")
        model.fit(np.zeros((64, 1)), np.zeros((64, 1)))
    """)


def test_a_tf_function_around_a_call_of_it_still_traces_it():
    assert_marked("""
        import tensorflow as tf

        class ODEFunc(tf.keras.Model):
            def __init__(self):
                super().__init__(dynamic=True)
                self.t_vec = tf.ones([32, 1])

            def call(self, x):
                self.t_vec = tf.ones([x.shape[0], 1])  # STG201
                return x * self.t_vec

        f = ODEFunc()

        @tf.function
        def step(x):
            return f(x)

        step(tf.zeros([4, 1]))
    """)
