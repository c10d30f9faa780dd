"""Python's attribute lookup under TensorFlow's and Keras's attribute tracking
(`analysis.shadowing`, `frameworks.INSTANCE_DICT_BASES`, `NON_DATA_DECORATORS`): after
`self.encoder = self.encoder()` in `__init__`, `self.encoder(x)` (in a `tf.function` too) calls the
stored object, never the method; a property is a data descriptor, which the instance's `__dict__`
does not shadow. Run with TensorFlow 2.21 / Keras 3."""

from __future__ import annotations

import pytest

tf = pytest.importorskip("tensorflow")
keras = pytest.importorskip("keras")

from stagelint.frameworks import INSTANCE_DICT_BASES, INSTANCE_DICT_BASES_PY, NON_DATA_DECORATORS  # noqa: E402


def _builder_class(base):
    built = []

    class Shadowing(base):
        def __init__(self):
            super().__init__()
            self.encoder = self.encoder()

        def encoder(self):
            built.append(1)
            return keras.layers.Dense(2)

        @tf.function
        def run(self, x):
            return self.encoder(x)

    return Shadowing, built


@pytest.mark.parametrize("base", [keras.Model, keras.layers.Layer, tf.keras.Model, tf.Module, object])
def test_an_attribute_bound_in_init_shadows_the_method_in_a_trace(base):
    cls, built = _builder_class(base)
    obj = cls()
    assert isinstance(obj.__dict__["encoder"], keras.layers.Dense)
    assert obj.run(tf.ones((1, 3))).shape == (1, 2)
    obj.run(tf.ones((2, 3)))  # a second trace: the builder is not called again
    assert built == [1]
    assert "builtins.object" in INSTANCE_DICT_BASES_PY and "tensorflow.Module" in INSTANCE_DICT_BASES


def test_a_property_is_not_shadowed_and_the_decorators_listed_make_no_data_descriptor():
    """The negative twin: `self.encoder = ...` runs the setter; every read runs the getter."""

    class WithProperty:
        def __init__(self):
            self.encoder = 5

        @property
        def encoder(self):
            return lambda x: ("getter", x)

        @encoder.setter
        def encoder(self, value):
            self._value = value

    assert WithProperty().encoder(1) == ("getter", 1)
    assert hasattr(property, "__set__")
    assert not any(hasattr(d, "__set__") for d in (staticmethod, classmethod))
    assert {"builtins.staticmethod", "builtins.classmethod"} <= NON_DATA_DECORATORS


def test_a_call_before_the_binding_calls_the_method():
    """In `__init__`, `self.encoder()` on the right-hand side (and anything run before the
    statement ends) reads the class's method: the attribute is bound after the call returns."""

    class Early:
        def __init__(self):
            self.first = self.encoder()
            self.encoder = self.encoder()

        def encoder(self):
            return "built"

    e = Early()
    assert e.first == "built" and e.encoder == "built"
