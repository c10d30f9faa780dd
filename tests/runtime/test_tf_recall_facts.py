"""The TensorFlow side of two facts the fixed bugs' recall added (tests/rules/test_tf_recall_facts.py),
observed with TensorFlow 2.21: a comprehension's variable is an element of what it iterates (AutoGraph
converts no comprehension), and `reversed(range(n))` unrolls as `range(n)` does."""

from __future__ import annotations

import pytest

tf = pytest.importorskip("tensorflow")


def test_a_comprehensions_element_of_a_list_of_tensors_is_a_symbolic_tensor():
    """`[v.numpy() for v in tf.unstack(x)]` raises AttributeError, and a comprehension's `if v > 0`
    OperatorNotAllowedInGraphError: the clause is Python, not converted."""

    @tf.function
    def numpy_of_each(x):
        return [v.numpy() for v in tf.unstack(x)]

    @tf.function
    def filtered(x):
        return [tf.reduce_sum(v) for v in tf.unstack(x) if v > 0]

    with pytest.raises(AttributeError):
        numpy_of_each(tf.constant([1.0, 2.0]))
    with pytest.raises(tf.errors.OperatorNotAllowedInGraphError):
        filtered(tf.constant([1.0, 2.0]))


def test_a_comprehensions_range_and_a_dicts_keys_are_python_values():
    """The negative twin: a comprehension's `range(3)` gives Python ints and a dict of tensors its
    string keys; testing them works in a Function."""

    @tf.function
    def f(x):
        d = {"a": x, "b": x * 2}
        picked = [d[k] for k in d if k != "a"]
        scaled = [x * i for i in range(3) if i > 0]
        return picked, scaled

    picked, scaled = f(tf.constant(1.0))
    assert len(picked) == 1 and len(scaled) == 2


def test_reversed_range_of_a_python_number_unrolls_and_traces_per_value():
    """`for i in reversed(range(n))` with a Python `n`: one copy of the body per step, a new trace
    per value of `n`, as `range(n)`."""
    traces = []

    @tf.function
    def h(x, n):
        traces.append(n)
        for _ in reversed(range(n)):
            x = x * 2.0
        return x

    for n in range(3):
        h(tf.ones(2), n)
    assert len(traces) == 3
    ops = [len(h.get_concrete_function(tf.ones(2), n).graph.get_operations()) for n in (1, 2)]
    assert ops[1] > ops[0]
