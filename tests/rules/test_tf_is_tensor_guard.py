"""A branch under `if not tf.is_tensor(p):` / `if not isinstance(p, tf.Tensor):` on a parameter of
a Function (`analysis.flags.tensor_in_every_trace`, `tensor_guard_fact`): the Function sees a
tensor, a NumPy array and (for `tf.is_tensor`) a variable as a tensor, so the branch is in no
trace when every call shown passes one (silence), a guess (preview) when the callers do not all
show and none shown passes a Python value, and traced (reported) when one does. The facts are
observed in tests/runtime/test_tf_is_tensor_facts.py (the seventeenth TensorFlow audit's BM1)."""

from __future__ import annotations

from rulecases import assert_tiers


def test_every_call_passing_a_tensor_an_array_or_a_variable_leaves_the_branch_in_no_trace():
    assert_tiers("""
        import numpy as np
        import tensorflow as tf

        @tf.function
        def f(X):
            if not tf.is_tensor(X):
                X = tf.Variable(X)
            return X * 2

        v = tf.Variable(np.ones((2, 3), np.float32))
        f(tf.ones((2, 3)))
        f(np.ones((2, 3), np.float32))
        f(v)
    """)


def test_a_call_passing_a_python_list_reaches_the_branch():
    assert_tiers("""
        import tensorflow as tf

        @tf.function
        def g(X):
            if not tf.is_tensor(X):
                X = tf.Variable(X)  # STG402
            return X * 2

        g(tf.ones((2, 3)))
        g([[1.0, 2.0]])
    """)


def test_isinstance_of_tensor_is_false_for_a_variable_argument():
    assert_tiers("""
        import tensorflow as tf

        @tf.function
        def h(X):
            if not isinstance(X, tf.Tensor):
                X = tf.Variable(X)  # STG402
            return X * 2

        @tf.function
        def k(X):
            if not isinstance(X, tf.Tensor):
                X = tf.Variable(X)
            return X * 2

        v = tf.Variable(1.0)
        h(tf.ones((2, 3)))
        h(v)
        k(tf.ones((2, 3)))
    """)


def test_a_helper_called_in_the_trace_sees_an_array_as_an_array():
    """A plain helper called from the trace gets what the trace holds: an array stays an array, a
    tensor is a tensor; the caller's own parameter forwarded (`helper3(x)`) is not followed to the
    caller's calls: a guess."""
    assert_tiers("""
        import numpy as np
        import tensorflow as tf

        def helper(X):
            if not tf.is_tensor(X):
                X = tf.Variable(X)  # STG402
            return X

        def helper2(X):
            if not tf.is_tensor(X):
                X = tf.Variable(X)
            return X

        def helper3(X):
            if not tf.is_tensor(X):
                X = tf.Variable(X)  # preview STG402
            return X

        @tf.function
        def step(x):
            return helper(np.ones((2, 3), np.float32)) + helper2(tf.ones((2, 3))) + helper3(x) + x

        step(tf.ones((2, 3)))
    """)


def test_a_function_handed_on_is_a_guess_unless_a_call_shown_passes_a_python_value():
    """QuantPred's `saliency_map`, called only through `function_batch(X, saliency_map)` with
    `tf.data` batches: which values reach it the code does not show."""
    assert_tiers("""
        import tensorflow as tf

        @tf.function
        def saliency_map(X, model):
            if not tf.is_tensor(X):
                X = tf.Variable(X)  # preview STG402
            with tf.GradientTape() as tape:
                tape.watch(X)
                out = model(X)
            return tape.gradient(out, X)

        @tf.function
        def saliency_list(X, model):
            if not tf.is_tensor(X):
                X = tf.Variable(X)  # STG402
            return model(X)

        def function_batch(X, fun, **kwargs):
            dataset = tf.data.Dataset.from_tensor_slices(X)
            return [fun(x, **kwargs) for x in dataset.batch(128)]

        function_batch(data, saliency_map, model=net)
        function_batch(data, saliency_list, model=net)
        saliency_list([1.0, 2.0], net)
    """)
