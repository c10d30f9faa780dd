"""Messages state only facts that hold for the finding (issue 23, class 8), and a fix is marked
safe only where it cannot break the code (class 9). Each wording's framework fact is observed in
tests/runtime/test_message_facts.py; the print fix's before/after runs are in
tests/integrations/test_unsafe_fixes.py."""

from __future__ import annotations

from tests.rules.rulecases import findings


def _messages(source: str, code: str) -> list[str]:
    return [f.message for f in findings(source, code)]


def test_stg402_says_the_first_call_that_runs_the_creation_fails():
    [message] = _messages("""
        import tensorflow as tf

        @tf.function
        def f(x):
            v = tf.Variable(1.0)
            return v * x
        """, "STG402")
    assert "the first call that runs this line raises ValueError" in message
    assert "allows it only on the first call" not in message


def test_stg603_says_run_time_errors_are_lost_not_that_nothing_raises():
    [message] = _messages("""
        import tensorflow as tf

        @tf.function
        def f(x):
            tf.ensure_shape(x, [None, 3])
            return x
        """, "STG603")
    assert "an error it would raise when run" in message and "never happens" in message
    assert "nor raises" not in message


LOG_OF_A_TENSOR = """
    import logging
    import tensorflow as tf

    @tf.function
    def step(x):
        logging.info("total %s", tf.reduce_sum(x))
        if tf.reduce_sum(x) > 10:
            logging.warning("diverging")
        return x * 2
    """

LOG_OF_AN_ARGUMENT = """
    import logging
    import tensorflow as tf

    @tf.function
    def step(x, mode, verbose):
        logging.info("mode %s", mode)
        if verbose:
            logging.warning("stepping")
        return x * 2
    """


def test_stg101_says_symbolic_tensor_and_tensor_if_where_the_values_are_tensors():
    logged, under_if = _messages(LOG_OF_A_TENSOR, "STG101")
    assert "it logs a symbolic tensor once per trace" in logged
    assert "under a tensor `if` AutoGraph traces both branches" in under_if


def test_stg101_claims_no_tensor_for_an_argument_nothing_shows_to_be_one():
    """`mode` and `verbose` are the tf.function's own arguments, and no call is shown: they may
    be Python values (a string, a flag), so the message says what holds either way."""
    logged, under_if = _messages(LOG_OF_AN_ARGUMENT, "STG101")
    assert "symbolic tensor" not in logged and "it logs once per trace" in logged
    assert "tensor `if`" not in under_if and "when its branch is traced" in under_if


def test_stg101_is_silent_where_every_call_passes_python_values():
    """tf.function hands a Python argument to the body as it is: a log of it, or under an `if` on
    it, is made of Python values, once per trace, which the rule leaves alone."""
    source = LOG_OF_AN_ARGUMENT + """
    step(tf.ones([2]), "train", True)
    step(tf.ones([2]), "eval", False)
    """
    assert _messages(source, "STG101") == []
    tensors = LOG_OF_AN_ARGUMENT + """
    step(tf.ones([2]), tf.constant("train"), tf.constant(True))
    """
    logged, under_if = _messages(tensors, "STG101")
    assert "it logs a symbolic tensor" in logged and "under a tensor `if`" in under_if


def test_stg505_says_a_call_given_a_new_object_traces_not_every_call():
    [message] = _messages("""
        import functools
        import jax

        class Config:
            def __init__(self, scale):
                self.scale = scale

        @functools.partial(jax.jit, static_argnums=1)
        def step(x, config):
            return x * config.scale

        def train(batches):
            for x in batches:
                step(x, Config(2.0))
        """, "STG505")
    assert "each call given a new one traces and compiles again" in message
    assert "every call traces" not in message


def test_stg104_says_the_calls_that_reuse_the_trace_get_the_same_value():
    [message] = _messages("""
        import numpy as np
        import tensorflow as tf

        @tf.function
        def f(x):
            return x + np.random.uniform()

        for x in tf.data.Dataset.range(3):
            f(x)
        """, "STG104")
    assert "every call that reuses the trace gets the same value" in message


def _print_fix(source: str):
    [finding] = findings(source, "STG101")
    return finding.fix


def test_print_to_a_stream_is_a_safe_fix_in_a_plain_tf_function():
    fix = _print_fix("""
        import sys
        import tensorflow as tf

        @tf.function
        def step(x):
            print("x", x, file=sys.stdout)
            return x * 2
        """)
    assert fix is not None and fix.safe


def test_print_to_a_stream_is_unsafe_where_xla_may_compile_it():
    """XLA has no PrintV2: `jit_compile=True`, a helper one of whose tracers compiles with XLA, a
    Keras model (Keras 3 compiles `fit` with XLA on a GPU by default)."""
    for source in ("""
        import sys
        import tensorflow as tf

        @tf.function(jit_compile=True)
        def step(x):
            print("x", x, file=sys.stdout)
            return x * 2
        """, """
        import sys
        import tensorflow as tf

        def show(x):
            print("x", x, file=sys.stdout)

        @tf.function
        def plain(x):
            show(x)
            return x

        @tf.function(jit_compile=True)
        def compiled(x):
            show(x)
            return x
        """, """
        import sys
        import tensorflow as tf

        class Net(tf.keras.Model):
            def call(self, x):
                print("x", x, file=sys.stdout)
                return x * 2

        Net().fit(features, labels)
        """):
        fix = _print_fix(source)
        assert fix is not None and not fix.safe, source


def test_no_tf_print_fix_in_code_jax_stages():
    fix = _print_fix("""
        import sys
        import jax
        import tensorflow as tf

        @jax.jit
        def step(x):
            print("x", x, file=sys.stdout)
            return x * 2
        """)
    assert fix is None


def test_stg102_and_stg301_say_the_calls_that_reuse_the_trace_not_every_later_call():
    """A later call that traces again (a new shape, a new Python value) runs the body, write and
    read included: only the calls that reuse a trace skip the write or keep the old value."""
    [stg102] = _messages("""
        import tensorflow as tf

        calls = []

        @tf.function
        def f(x):
            calls.append(1)
            return x
        """, "STG102")
    assert "calls that reuse the trace skip it" in stg102 and "later calls" not in stg102
    [stg301] = _messages("""
        import jax

        SCALE = 2.0

        @jax.jit
        def f(x):
            return x * SCALE

        def main(xs):
            global SCALE
            for x in xs:
                f(x)
                SCALE = SCALE * 2
        """, "STG301")
    assert "calls that reuse the trace keep it" in stg301 and "later calls" not in stg301


def test_stg601_names_the_typeerror_of_a_tensor_in_a_numpy_shape_and_the_conversion_error_otherwise():
    # TF 2.21 (tests/runtime/test_message_facts.py): a symbolic tensor in the shape np.zeros /
    # np.ones / np.empty / np.full read as Python integers raises TypeError; given as data to
    # NumPy (np.mean, np.zeros_like) it raises NotImplementedError.
    shape, keyword, data, like = _messages("""
        import numpy as np
        import tensorflow as tf

        @tf.function
        def f(x):
            a = np.zeros((tf.shape(x)[0], 3))
            b = np.full(shape=tf.shape(x)[0], fill_value=2.0)
            c = np.mean(x)
            d = np.zeros_like(x)
            return x
        """, "STG601")
    for message, op in ((shape, "tf.zeros"), (keyword, "tf.fill")):
        assert "TypeError" in message and "NotImplementedError" not in message
        assert f"use `{op}`, which takes a shape tensor" in message
    assert "`(tf.shape(x)[0], 3)` holds a symbolic tensor" in shape
    assert "`tf.shape(x)[0]` is a symbolic tensor" in keyword
    for message in (data, like):
        assert "NotImplementedError (Cannot convert a symbolic tf.Tensor to a numpy array)" in message
        assert "TypeError" not in message
