"""A module-level loop that rebinds a global before each call of two Functions, each time to the
value that Function then reads (the sixteenth TensorFlow audit's BJ1 class, bench/fresh_audit_notes.md:
GabrielGlzSa/ModelCompression's `optimizer = optimizer_conv; n_actions = conv_n_actions` before the
conv step, the fc values before the fc step): every call of a Function sees the value it traced
with, nothing is stale (`analysis.order.one_value_each_call`, `StaleGlobal._ordered`'s `fixed`;
tests/runtime/test_tf_switch_facts.py). With its negative twins."""

from __future__ import annotations

from rulecases import assert_tiers


def test_a_per_function_switch_before_each_call_is_not_stale():
    assert_tiers("""
        import tensorflow as tf

        optimizer_conv = tf.keras.optimizers.Adam(1e-3)
        optimizer_fc = tf.keras.optimizers.Adam(1e-4)
        conv_n_actions, fc_n_actions = 3, 4


        @tf.function
        def step_conv(x):
            optimizer.learning_rate
            return tf.one_hot(x, n_actions) * scale


        @tf.function
        def step_fc(x):
            optimizer.learning_rate
            return tf.one_hot(x, n_actions) * scale


        for i in range(10):
            optimizer = optimizer_conv
            n_actions = conv_n_actions
            scale = 2.0
            step_conv(tf.constant(1))
            optimizer = optimizer_fc
            n_actions = fc_n_actions
            scale = 3.0
            step_fc(tf.constant(1))
    """)


def test_a_switch_under_an_if_stays_stale():
    """The conv value is bound only on odd iterations: the even ones call step_conv with fc's."""
    assert_tiers("""
        import tensorflow as tf

        conv_n_actions, fc_n_actions = 3, 4


        @tf.function
        def step_conv(x):
            return tf.one_hot(x, n_actions)  # STG301


        @tf.function
        def step_fc(x):
            return tf.one_hot(x, n_actions)  # STG301


        for i in range(10):
            if i % 2:
                n_actions = conv_n_actions
            step_conv(tf.constant(1))
            n_actions = fc_n_actions
            step_fc(tf.constant(1))
    """)


def test_a_value_that_changes_each_iteration_stays_stale():
    """ModelCompression's true STG301 in the same half: `beta += beta_step` each iteration."""
    assert_tiers("""
        import tensorflow as tf

        beta = 0.5
        beta_step = 0.1


        @tf.function
        def update(x):
            return x ** beta  # STG301


        for i in range(10):
            update(tf.constant(2.0))
            beta += beta_step
    """)


def test_one_function_called_after_both_values_stays_stale():
    """A loop that binds a value the module binds anew, a call before the loop's first rebinding,
    or one Function called after each of the two rebindings: some call reads a value other than
    the traced one."""
    assert_tiers("""
        import tensorflow as tf

        conv_n_actions, fc_n_actions = 3, 4


        @tf.function
        def step(x):
            return tf.one_hot(x, n_actions)  # STG301


        for i in range(10):
            n_actions = conv_n_actions
            step(tf.constant(1))
            n_actions = fc_n_actions
            step(tf.constant(1))
    """)
    assert_tiers("""
        import tensorflow as tf

        width = 3


        @tf.function
        def step(x):
            return tf.one_hot(x, depth)  # STG301


        for i in range(10):
            step(tf.constant(1))
            depth = width
    """)
    assert_tiers("""
        import tensorflow as tf

        width = 3


        @tf.function
        def step(x):
            return tf.one_hot(x, depth)  # STG301


        depth = 5
        step(tf.constant(1))
        for i in range(10):
            depth = width
            step(tf.constant(1))
    """)
    assert_tiers("""
        import tensorflow as tf

        width = 3


        @tf.function
        def step(x):
            return tf.one_hot(x, depth)  # STG301


        for i in range(10):
            width = i
            depth = width
            step(tf.constant(1))
    """)
