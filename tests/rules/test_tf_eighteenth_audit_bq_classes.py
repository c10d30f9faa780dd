"""Issue 23, the eighteenth TensorFlow audit's fix-from half (BQ): its false classes as the framework
facts they follow, each with its negative twin. Behaviour checked with TensorFlow 2.21 in this venv
(tests/runtime/test_tf_eighteenth_audit_bq_facts.py)."""

from __future__ import annotations

from rulecases import assert_tiers


def test_a_function_per_call_around_a_generator_of_that_call_costs_no_avoidable_trace():
    """BQ1-t, VRP_DRL_MHA's `generate_data`: a `@tf.function` defined in each call around a
    `tf.random.Generator` made in that call (seeded or not). A Function keys a Generator
    argument by identity, so one made once and taking the generator traces once per call as well,
    and one closing over a single generator would share its state (the seeded calls would no longer
    repeat): the new Function per call saves nothing. Not reported. Twins, still reported: the
    same per-call Function around a module-level generator (made once; the per-call Function
    retraces for nothing) and around a `tf.Variable` made per call (keyed by shape and dtype: one
    Function taking it traces once)."""
    assert_tiers("""
        import tensorflow as tf

        G = tf.random.Generator.from_seed(0)

        def generate_data(n_samples=1000, seed=None):
            g = tf.random.experimental.Generator.from_non_deterministic_state()
            if seed is not None:
                g = tf.random.experimental.Generator.from_seed(seed)

            @tf.function
            def tf_rand():
                return g.uniform(shape=[n_samples, 2])
            return tf_rand()

        def fresh_draw(n_samples=1000):
            g = tf.random.Generator.from_non_deterministic_state()
            draw = tf.function(lambda: g.normal([n_samples]))
            return draw()

        def shared_draw(n_samples=1000):
            @tf.function  # STG502
            def tf_rand():
                return G.uniform(shape=[n_samples, 2])
            return tf_rand()

        def variable_draw(n_samples=1000):
            v = tf.Variable(tf.zeros([n_samples, 2]))

            @tf.function  # STG502
            def tf_read():
                return v + 1.0
            return tf_read()

        for epoch in range(10):
            generate_data()
            fresh_draw()
            shared_draw()
            variable_draw()
    """)


def test_a_keras_model_made_per_call_is_keyed_by_identity_too():
    """The same fact for a Keras model made in each call and closed over by the per-call Function
    (BE1's fact, per call rather than per iteration): not reported. Twin: a module-level model,
    the same object on every call, still reported."""
    assert_tiers("""
        import tensorflow as tf

        def evaluate(x):
            model = tf.keras.Sequential([tf.keras.layers.Dense(2)])

            @tf.function
            def forward():
                return model(x)
            return forward()

        MODEL = tf.keras.Sequential([tf.keras.layers.Dense(2)])

        def evaluate_shared(x):
            @tf.function  # STG502
            def forward():
                return MODEL(x)
            return forward()

        for step in range(10):
            evaluate(tf.ones([1, 3]))
            evaluate_shared(tf.ones([1, 3]))
    """)
