"""A Function whose every call brings an input shape no other call brought traces at each call and
reads its closure as it is then (the eleventh TensorFlow audit's Turbo3GPP class,
bench/fresh_audit_notes.md: STG301 on Sionna's interleaver test), with its negative twins
(`analysis.varying_shapes.call_signatures`, `StaleGlobal._traces_every_call`;
tests/runtime/test_tf_new_shape_closure_facts.py)."""

from __future__ import annotations

from rulecases import assert_tiers


def test_a_closure_rebound_before_each_call_with_a_new_literal_shape_is_never_read_stale():
    """Sionna's Turbo3GPP interleaver test (the eleventh TensorFlow audit, AP): the loop rebinds
    `i` and then calls the Function with an input of a shape no call passed before, and so do the
    calls after the loop: every call traces anew and reads the `i` of that moment
    (tests/runtime/test_tf_new_shape_closure_facts.py)."""
    assert_tiers("""
        import tensorflow as tf

        class Interleaver:
            def __call__(self, x):
                return tf.reverse(x, [-1])

        def check():
            @tf.function()
            def run_graph(llr):
                return i(llr)

            for s in [[10, 20, 30], [10, 22, 33, 44], [20, 10, 10, 10, 9]]:
                llr = tf.random.uniform(tf.constant(s, dtype=tf.int32))
                i = Interleaver()
                run_graph(llr)

            i = Interleaver()
            llr = tf.zeros((10, 100))
            run_graph(llr)
            llr = tf.zeros([10, 101])
            run_graph(llr)
    """)


def test_a_closure_rebound_before_a_call_with_a_shape_traced_before_stays_stale():
    """The negative twins: a shape repeats (the loop's shapes again after it), a loop whose
    shapes do not follow its variable, and two loops around the call (each shape once per outer
    iteration): a later call reuses a trace of an earlier object."""
    assert_tiers("""
        import tensorflow as tf

        class Interleaver:
            def __call__(self, x):
                return tf.reverse(x, [-1])

        def again():
            @tf.function()
            def run_graph(llr):
                return i(llr)  # STG301

            for s in [[10, 20], [10, 30]]:
                llr = tf.zeros(s)
                i = Interleaver()
                run_graph(llr)
            i = Interleaver()
            llr = tf.zeros([10, 20])
            run_graph(llr)

        def fixed(n):
            @tf.function()
            def run_graph(llr):
                return i(llr)  # STG301

            for _ in range(n):
                llr = tf.zeros([10, 20])
                i = Interleaver()
                run_graph(llr)

        def modes():
            @tf.function()
            def run_graph(llr):
                return i(llr)  # STG301

            for m in [True, False]:
                for s in [[10, 20], [10, 30]]:
                    llr = tf.zeros(s)
                    i = Interleaver()
                    run_graph(llr)
    """)
