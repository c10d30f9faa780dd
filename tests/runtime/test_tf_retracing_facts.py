"""The facts behind STG502's and STG601's certainty under TensorFlow (`rules.retracing`,
`analysis.tensors`), observed with the real TensorFlow 2.21."""

from __future__ import annotations

import numpy as np
import pytest

tf = pytest.importorskip("tensorflow")


def test_tf_function_with_options_only_returns_a_decorator_and_applying_it_makes_one_function():
    """`tf.function(input_signature=s)` is not a Function: it returns a decorator, and
    `tf.function(input_signature=s)(f)` makes one Function from `f` (nothing is called). Stored
    once and called many times, it traces once: `_makes_function`."""
    traced = []

    def forward(x):
        traced.append(1)
        return x * 2

    signature = [tf.TensorSpec(shape=(None,), dtype=tf.float32)]
    decorator = tf.function(input_signature=signature)
    assert not hasattr(decorator, "get_concrete_function")  # a plain decorator, not a Function
    step = decorator(forward)
    assert hasattr(step, "get_concrete_function") and traced == []  # made, not called
    for n in (1, 2, 3):
        step(tf.ones([n]))
    assert len(traced) == 1


def test_each_application_of_the_decorator_makes_a_function_with_its_own_traces():
    """The negative twin: applied again (made anew per step), each new Function traces again."""
    traced = []

    def forward(x):
        traced.append(1)
        return x * 2

    signature = [tf.TensorSpec(shape=(None,), dtype=tf.float32)]
    for n in (1, 2, 3):
        tf.function(input_signature=signature)(forward)(tf.ones([n]))
    assert len(traced) == 3


def test_a_static_dimension_is_a_python_int_and_an_unknown_one_none_while_traced():
    """`x.shape[1]` under tf.function is a Python int (a known dimension) or None (unknown), never
    a tensor: NumPy math on a known one works while tracing."""
    seen = []

    @tf.function
    def f(x):
        length = x.shape[1]
        seen.append(length)
        return x * float(np.log(length + 1))  # NumPy on the static dimension, as eagerly

    f(tf.ones([2, 3]))
    assert seen == [3] and type(seen[0]) is int
    g_seen = []

    @tf.function(input_signature=[tf.TensorSpec(shape=(None, None), dtype=tf.float32)])
    def g(x):
        g_seen.append(x.shape[1])
        return x

    g(tf.ones([2, 3]))
    assert g_seen == [None]


def test_a_new_functional_model_over_built_layers_creates_no_variable_in_a_function():
    """`keras.Model(inputs=..., outputs=...)` connects layers already called on a Keras input
    (built, their variables made): a new one per iteration, passed to the same Function, retraces
    it and creates no variable (`frameworks.builds_at_construction`)."""
    base = tf.keras.Sequential([tf.keras.layers.Dense(2)])
    base.build((None, 3))

    @tf.function
    def gradients(model, x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.reduce_sum(model(x))
        return tape.gradient(y, x)

    x = tf.ones([1, 3])
    for head in range(2):
        inputs = tf.keras.Input(shape=(3,))
        head_model = tf.keras.Model(inputs=inputs, outputs=base(inputs)[:, head])
        assert gradients(head_model, x).shape == (1, 3)


def test_a_new_unbuilt_model_per_call_of_the_same_function_raises():
    """The negative twin: a new Sequential made per iteration has no variables until its first
    call, which is then on a non-first trace of the Function: ValueError."""
    @tf.function
    def forward(model, x):
        return model(x)

    x = tf.ones([1, 3])
    forward(tf.keras.Sequential([tf.keras.layers.Dense(2)]), x)
    with pytest.raises(ValueError, match="singleton tf.Variables"):
        forward(tf.keras.Sequential([tf.keras.layers.Dense(2)]), x)
