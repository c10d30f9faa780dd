"""Two facts of the fixed bugs' recall work seen from TensorFlow code, each checked with TensorFlow
2.21 (tests/runtime/test_tf_recall_facts.py), with its negative twin: a comprehension's variable is
an element of what it iterates, as a `for` statement's is, and `reversed(range(n))` is the loop
`range(n)` is."""

from __future__ import annotations

from rulecases import assert_tiers


def test_a_comprehensions_element_of_tensors_is_a_symbolic_tensor():
    assert_tiers("""
        import tensorflow as tf

        @tf.function
        def f(x):
            vals = [v.numpy() for v in tf.unstack(x)]  # STG601
            ys = [tf.reduce_sum(v) for v in tf.unstack(x) if v > 0]  # STG602
            return vals, ys
    """)


def test_a_comprehensions_range_and_a_dicts_keys_stay_python_values():
    assert_tiers("""
        import tensorflow as tf

        @tf.function
        def f(x):
            d = {"a": x, "b": x * 2}
            picked = [d[k] for k in d if k != "a"]
            scaled = [x * i for i in range(3) if i > 0]
            return picked, scaled
    """)


def test_reversed_range_of_a_varying_python_number_is_unrolled_per_value():
    assert_tiers("""
        import tensorflow as tf

        @tf.function
        def g(x, n):
            for i in reversed(range(n)):  # STG503
                x = x * 2.0
            return x

        @tf.function
        def fixed(x):
            for i in reversed(range(3)):
                x = x * 2.0
            return x

        for n in range(40):
            g(tf.ones(2), n)
        fixed(tf.ones(2))
    """)
