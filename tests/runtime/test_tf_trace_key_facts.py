"""What keys a `tf.function` trace (`frameworks.TF_TRACE_KEY`), observed with the real TensorFlow 2.21 by
counting traces: every Python argument of the call, a function by identity, a number, a string or a bool by
value. A Python number whose value the other Python arguments of the same calls decide (`random_apply(func, x,
p)` called with `(color_jitter, 0.8)`, `(color_drop, 0.2)`, `(random_blur, 1.0)`) adds no trace: passing it as
a tensor leaves as many (STG501: `analysis.trace_key.decided_beside`)."""

from __future__ import annotations

import pytest

tf = pytest.importorskip("tensorflow")


def _a(x):
    return x + 1.0


def _b(x):
    return x * 2.0


def _c(x):
    return x - 3.0


def _traces(calls, wrap) -> int:
    """The traces of one new Function called three times with each (function, p[, mode]) of `calls`,
    `p` given through `wrap` (itself: a Python number; `tf.constant`: a tensor)."""

    @tf.function
    def random_apply(func, x, p, mode="m"):
        if tf.random.uniform([]) < p:
            return func(x)
        return x

    x = tf.zeros([2])
    for _ in range(3):
        for fn, p, *mode in calls:
            random_apply(fn, x=x, p=wrap(p), **({"mode": mode[0]} if mode else {}))
    return random_apply.experimental_get_tracing_count()


def _both(calls) -> tuple[int, int]:
    return _traces(calls, lambda v: v), _traces(calls, tf.constant)


def test_a_number_each_function_passed_always_comes_with_adds_no_trace():
    """MA_SSRL's `random_apply`: each function always comes with one `p` (one-to-one, or two functions
    sharing one value): 3 traces with `p` a Python number and 3 with `p` a tensor."""
    assert _both([(_a, 0.8), (_b, 0.2), (_c, 1.0)]) == (3, 3)
    assert _both([(_a, 0.8), (_b, 0.8), (_c, 0.2)]) == (3, 3)


def test_a_string_argument_keys_the_trace_by_value_as_a_function_does_by_identity():
    """A mode string is a Python argument too: a number that comes with one mode each adds no trace."""
    assert _both([(_a, 0.8, "x"), (_a, 0.2, "y")]) == (2, 2)


def test_a_number_that_changes_beside_the_same_function_adds_a_trace():
    """The negative twin: one function passed with two values of `p`: 3 traces with Python numbers,
    2 with tensors."""
    assert _both([(_a, 0.8), (_a, 0.2), (_c, 1.0)]) == (3, 2)


def test_two_names_of_one_function_are_one_key():
    """The function is keyed by the object, not by the name it is passed under: an alias bound to the
    same function with another `p` adds a trace (2 against 1), so only distinct `def`s are distinct keys."""
    alias = _a
    assert _both([(_a, 0.8), (alias, 0.2)]) == (2, 1)


def test_two_numbers_that_change_together_both_add_traces():
    """Numbers are no partner for each other: `(1, 10)` and `(2, 20)` trace twice as Python numbers and
    once when both are tensors (either alone as a tensor: still twice), so a number decided by another
    number is still a retrace the advice removes."""

    def count(wrap_a, wrap_b) -> int:
        @tf.function
        def scaled(x, a, b):
            return x * a + b

        x = tf.zeros([2])
        for _ in range(3):
            for a, b in ((1.0, 10.0), (2.0, 20.0)):
                scaled(x, wrap_a(a), wrap_b(b))
        return scaled.experimental_get_tracing_count()

    same = lambda v: v  # noqa: E731
    assert count(same, same) == 2
    assert count(tf.constant, same) == count(same, tf.constant) == 2
    assert count(tf.constant, tf.constant) == 1
