"""Issue 23, the TensorFlow false classes left standing in the held-back halves pooled
(`bench/fresh_audit.py pool`): each as the framework fact it follows, with its negative twin.
Behaviour checked with TensorFlow 2.21 in this venv (tests/runtime/test_tf_pooled_facts.py)."""

from __future__ import annotations

from rulecases import assert_marked, assert_tiers


def test_a_loop_over_the_tf1_variable_collections_is_a_python_loop():
    """horovod's `broadcast_variables(variables)` fills a dict in `for var in variables:`, and a
    traced caller passes `tf.compat.v1.global_variables()`: a Python list of variables, so the
    loop runs in Python and the dict fills normally. The same helper given a tensor by a traced
    call loops in the graph."""
    assert_marked("""
        import tensorflow as tf

        def by_device(variables):
            groups = {}
            for var in variables:
                groups.setdefault(var.device, []).append(var)
            return groups

        def by_value(values):
            groups = {}
            for v in values:
                groups.setdefault(v.ref(), []).append(v)  # STG202
            return groups

        @tf.function
        def step(x):
            by_device(tf.compat.v1.global_variables())
            by_device(tf.compat.v1.trainable_variables())
            by_value(tf.constant([1.0, 2.0]))
            return x
    """)
