"""The facts behind STG502's and STG601's certainty under TensorFlow (`rules.retracing`,
`analysis.tensors`), observed with the real TensorFlow 2.21."""

from __future__ import annotations

import numpy as np
import pytest

tf = pytest.importorskip("tensorflow")


def test_tf_function_with_options_only_returns_a_decorator_and_applying_it_makes_one_function():
    """`tf.function(input_signature=s)` is not a Function: it returns a decorator, and
    `tf.function(input_signature=s)(f)` makes one Function from `f` (nothing is called). Stored
    once and called many times, it traces once: `_makes_function`."""
    traced = []

    def forward(x):
        traced.append(1)
        return x * 2

    signature = [tf.TensorSpec(shape=(None,), dtype=tf.float32)]
    decorator = tf.function(input_signature=signature)
    assert not hasattr(decorator, "get_concrete_function")  # a plain decorator, not a Function
    step = decorator(forward)
    assert hasattr(step, "get_concrete_function") and traced == []  # made, not called
    for n in (1, 2, 3):
        step(tf.ones([n]))
    assert len(traced) == 1


def test_each_application_of_the_decorator_makes_a_function_with_its_own_traces():
    """The negative twin: applied again (made anew per step), each new Function traces again."""
    traced = []

    def forward(x):
        traced.append(1)
        return x * 2

    signature = [tf.TensorSpec(shape=(None,), dtype=tf.float32)]
    for n in (1, 2, 3):
        tf.function(input_signature=signature)(forward)(tf.ones([n]))
    assert len(traced) == 3


def test_a_static_dimension_is_a_python_int_and_an_unknown_one_none_while_traced():
    """`x.shape[1]` under tf.function is a Python int (a known dimension) or None (unknown), never
    a tensor: NumPy math on a known one works while tracing."""
    seen = []

    @tf.function
    def f(x):
        length = x.shape[1]
        seen.append(length)
        return x * float(np.log(length + 1))  # NumPy on the static dimension, as eagerly

    f(tf.ones([2, 3]))
    assert seen == [3] and type(seen[0]) is int
    g_seen = []

    @tf.function(input_signature=[tf.TensorSpec(shape=(None, None), dtype=tf.float32)])
    def g(x):
        g_seen.append(x.shape[1])
        return x

    g(tf.ones([2, 3]))
    assert g_seen == [None]


def test_a_new_functional_model_over_built_layers_creates_no_variable_in_a_function():
    """`keras.Model(inputs=..., outputs=...)` connects layers already called on a Keras input
    (built, their variables made): a new one per iteration, passed to the same Function, retraces
    it and creates no variable (`frameworks.builds_at_construction`)."""
    base = tf.keras.Sequential([tf.keras.layers.Dense(2)])
    base.build((None, 3))

    @tf.function
    def gradients(model, x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.reduce_sum(model(x))
        return tape.gradient(y, x)

    x = tf.ones([1, 3])
    for head in range(2):
        inputs = tf.keras.Input(shape=(3,))
        head_model = tf.keras.Model(inputs=inputs, outputs=base(inputs)[:, head])
        assert gradients(head_model, x).shape == (1, 3)


def test_a_new_unbuilt_model_per_call_of_the_same_function_raises():
    """The negative twin: a new Sequential made per iteration has no variables until its first
    call, which is then on a non-first trace of the Function: ValueError."""
    @tf.function
    def forward(model, x):
        return model(x)

    x = tf.ones([1, 3])
    forward(tf.keras.Sequential([tf.keras.layers.Dense(2)]), x)
    with pytest.raises(ValueError, match="singleton tf.Variables"):
        forward(tf.keras.Sequential([tf.keras.layers.Dense(2)]), x)


def test_showing_a_symbolic_tensor_raises_nothing_and_adds_no_op():
    """`frameworks.PYTHON_SHOWING_CALLS`: `str`, `repr`, `format`, `isinstance` and `type` of a
    symbolic tensor give its description or class, with no error and no op added to the graph
    (the twin: `x + 1` adds one)."""
    def ops(body):
        graph = tf.function(body).get_concrete_function(tf.TensorSpec([2], tf.float32)).graph
        return len(graph.get_operations())

    def shown(x):
        described = (str(x), repr(x), format(x), isinstance(x, tf.Tensor), type(x))
        assert all(described) and "Tensor" in described[0]
        return x

    assert ops(shown) == ops(lambda x: x)
    assert ops(lambda x: x + 1) > ops(lambda x: x)


def test_loggers_and_warnings_write_once_per_trace():
    """`frameworks.LOGGING_PREFIXES`: `logging.info`, `absl.logging.info`,
    `tf.compat.v1.logging.info` and `warnings.warn` in a `tf.function` write while it traces, not
    on the calls that reuse the trace (tf-behaviour.md row a: as `print`)."""
    import logging
    import warnings

    from absl import logging as absl_logging

    records, seen = [], []

    class Keep(logging.Handler):
        def emit(self, record):
            # (a record reaches each logger it propagates to once; AutoGraph's own notes left out)
            if record.getMessage() in ("stdlib", "absl", "tf1") and not any(r is record for r in seen):
                seen.append(record)
                records.append(record.getMessage())

    loggers = [logging.getLogger(), logging.getLogger("absl"), logging.getLogger("tensorflow")]
    saved = [(lg, lg.level) for lg in loggers]
    handler = Keep()
    for lg in loggers:
        lg.addHandler(handler)
        lg.setLevel(logging.INFO)

    @tf.function
    def step(x):
        logging.info("stdlib")
        absl_logging.info("absl")
        tf.compat.v1.logging.info("tf1")
        warnings.warn("warned")
        return x + 1

    try:
        with warnings.catch_warnings(record=True) as warned:
            warnings.simplefilter("always")
            for _ in range(3):
                step(tf.ones([2]))
    finally:
        for lg, level in saved:
            lg.removeHandler(handler)
            lg.setLevel(level)
    assert sorted(set(records)) == ["absl", "stdlib", "tf1"]
    assert all(records.count(m) == records.count("stdlib") for m in ("absl", "tf1"))
    assert records.count("stdlib") < 3  # per trace (once, or twice: AutoGraph may trace a body twice)
    assert [str(w.message) for w in warned].count("warned") == records.count("stdlib")


def test_a_symbolic_tensor_used_as_python_data_raises_operator_not_allowed():
    """`frameworks.TF_ITERATE_ERROR` / `TF_BOOL_ERROR` (tf-behaviour.md row j): iterating over a
    symbolic tensor and testing it as a bool raise OperatorNotAllowedInGraphError, with no
    AutoGraph to convert them."""
    from tensorflow.python.framework.errors_impl import OperatorNotAllowedInGraphError

    def iterate(x):
        return list(x)[0]

    def test(x):
        return x if bool(x > 0) else -x

    for body, phrase in ((iterate, "Iterating over a symbolic `tf.Tensor`"),
                         (test, "Using a symbolic `tf.Tensor` as a Python `bool`")):
        with pytest.raises(OperatorNotAllowedInGraphError) as raised:
            tf.function(body, autograph=False)(tf.constant(1.0) if body is test else tf.ones([2]))
        assert phrase.replace("`", "") in str(raised.value).replace("`", "")
