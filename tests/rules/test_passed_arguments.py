"""What a call site passes for each parameter (`staging.Project.passed`, `FunctionFacts.positional_params`):
positional arguments bind the positional parameters in order, and past `*args` Python binds the
rest into `*args`, never into a keyword-only parameter; a keyword binds the parameter it names."""

from __future__ import annotations

import pytest

from rulecases import assert_marked

STAR_THEN_KEYWORD_ONLY = """
    import tensorflow as tf

    log = []

    @tf.function
    def step(a, *rest, scale=2.0):
        log.append(scale)  # {code}
        return a

    step(tf.constant(1.0), {call})
"""


def test_python_binds_a_further_positional_argument_into_args_and_keeps_the_keyword_only_default():
    """The fact, observed under `tf.function` (TensorFlow 2.21): `step(x, y)` leaves `scale` the
    Python float 2.0 while tracing, `step(x, scale=y)` makes it a symbolic tensor."""
    tf = pytest.importorskip("tensorflow")
    seen = []

    @tf.function
    def step(a, *rest, scale=2.0):
        seen.append(scale)
        return a

    step(tf.constant(1.0), tf.constant(2.0))
    step(tf.constant(1.0), scale=tf.constant(2.0))
    assert seen[0] == 2.0 and isinstance(seen[0], float)
    assert isinstance(seen[1], tf.Tensor) and not hasattr(seen[1], "numpy")


def test_a_positional_argument_past_args_is_not_the_keyword_only_parameter():
    """The default stays a Python value: a trace-time mutation of a global (STG102), no leaked
    tensor (STG201 said so when the second argument was taken to bind `scale`)."""
    assert_marked(STAR_THEN_KEYWORD_ONLY.format(code="STG102", call="tf.constant(2.0)"))


def test_a_tensor_passed_by_keyword_to_the_keyword_only_parameter_leaks():
    """The twin: `scale=` a tensor makes `scale` one, and appending it to a global leaks it."""
    assert_marked(STAR_THEN_KEYWORD_ONLY.format(code="STG201", call="scale=tf.constant(2.0)"))
