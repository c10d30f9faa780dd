"""A project helper that is TensorFlow's own graph test (`analysis.context.tracing_test`), observed
with TF 2.21 / Keras 3: keras-hub's `in_tf_function()` (`if tf is None: return False; return not
tf.executing_eagerly()`, `tf` bound to None only when TensorFlow cannot be imported) returns True
in every trace TensorFlow makes (a `tf.function`, a `tf.data` map, Keras' `fit` and `predict`, a
functional build), so the `else:` of `if in_tf_function():` in a Keras 3 `call` never runs there:
its `int(<keras.ops result>)`, which raises on a symbolic tensor, runs on eager calls only. Its
twins: a helper returning a parameter says what its caller passes, and one testing something else
(`tf.config.functions_run_eagerly()`, False unless code sets the switch) is False in a trace as
well: neither keeps the `else:` out of a trace, where the same `int(...)` raises."""

from __future__ import annotations

import numpy as np
import pytest

tf = pytest.importorskip("tensorflow")
keras = pytest.importorskip("keras")
ops = keras.ops

X = np.ones((2, 4, 4, 3), "float32")


def _tf_or_none():
    try:
        import tensorflow as _tf
    except ImportError:
        return None
    return _tf


_tf = _tf_or_none()


def in_tf_function():
    if _tf is None:
        return False
    return not _tf.executing_eagerly()


def in_graph_flag(flag=False):
    return flag


def runs_functions_eagerly():
    return tf.config.functions_run_eagerly()


def _layer(test, log):
    class Resize(keras.layers.Layer):
        def call(self, inputs):
            if test():
                log.append("graph")
                return tf.image.resize(inputs, (tf.shape(inputs)[1] * 2, 4))
            log.append("eager")
            height = ops.shape(inputs)[1] * ops.cast(2, "int32")
            return ops.image.resize(inputs, size=(int(height), 4))

    return Resize


def _runs(test) -> tuple[list, dict]:
    log, out = [], {}
    Resize = _layer(test, log)

    def fit():
        model = keras.Sequential([keras.Input((4, 4, 3)), Resize(), keras.layers.Flatten(), keras.layers.Dense(1)])
        model.compile(optimizer="sgd", loss="mse")
        model.fit(X, np.ones((2, 1), "float32"), epochs=1, verbose=0)

    runs = {
        "eager": lambda: Resize()(tf.constant(X)),
        "tf.function": lambda: tf.function(lambda t: Resize()(t))(tf.constant(X)),
        "tf.data": lambda: list(tf.data.Dataset.from_tensor_slices(X).batch(2).map(Resize())),
        "functional": lambda: keras.Model(inp := keras.Input((4, 4, 3)), Resize()(inp)),
        "fit": fit,
    }
    for name, run in runs.items():
        del log[:]
        try:
            run()
            out[name] = ("ok", list(log))
        except Exception as e:  # noqa: BLE001 - the type is what is asserted
            out[name] = (type(e).__name__, list(log))
    return out


def test_the_helper_is_true_in_every_trace_and_false_eagerly():
    assert _tf is tf
    assert in_tf_function() is False
    assert tf.function(lambda: tf.constant(in_tf_function()))().numpy()
    seen = []
    tf.data.Dataset.range(2).map(lambda x: (seen.append(in_tf_function()), x)[1])
    assert seen == [True]


def test_its_eager_branch_runs_on_eager_calls_only():
    out = _runs(in_tf_function)
    assert out["eager"] == ("ok", ["eager"])
    for name in ("tf.function", "tf.data", "functional", "fit"):
        assert out[name][0] == "ok" and set(out[name][1]) == {"graph"}, (name, out[name])


def test_a_helper_returning_a_parameter_or_testing_something_else_is_no_guard():
    for helper in (in_graph_flag, runs_functions_eagerly):
        out = _runs(helper)
        assert out["eager"] == ("ok", ["eager"])
        for name in ("tf.function", "tf.data", "functional", "fit"):
            # the eager branch is traced: `int(<symbolic tensor>)` raises
            assert out[name][0] != "ok" and "eager" in out[name][1], (name, out[name])
