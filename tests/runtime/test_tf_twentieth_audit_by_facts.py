"""The facts behind the twentieth TensorFlow audit's false classes of half BY (tests/rules/
test_tf_twentieth_audit_by_classes.py), observed with the real TensorFlow 2.21 and Keras 3."""

from __future__ import annotations

import importlib
import inspect

import numpy as np
import pytest

tf = pytest.importorskip("tensorflow")
keras = pytest.importorskip("keras")

from stagelint.frameworks import KERAS_CLASS_SPELLED_FUNCTIONS, NONE_EQUALITY_NOT_IDENTITY, TF_INTERNAL_NAMES  # noqa: E402


def test_equals_none_answers_as_is_none_for_what_a_first_call_guard_holds():
    """BY-u1 (`ContextInfo.first_call_guard`): None, an int, a list, a Keras layer, a tensor (eagerly
    and traced) answer `== None` as `is None` does and `!= None` as `is not None`."""
    seen = []

    @tf.function
    def traced(x):
        y = x * 2
        seen.append((bool(y == None), bool(y != None)))  # noqa: E711
        return y

    traced(tf.ones(2))
    assert seen == [(False, True)]
    for value in (None, 3, [1], keras.layers.Dense(2), tf.constant([1.0, 2.0]), tf.TensorShape([2]),
                  tf.ones((2, 3)).shape[-1]):
        assert bool(value == None) is (value is None)  # noqa: E711
        assert bool(value != None) is (value is not None)  # noqa: E711


def test_equals_none_is_no_identity_test_for_the_listed_constructors():
    """`NONE_EQUALITY_NOT_IDENTITY`: a tf.Variable raises ValueError (eagerly and traced), an
    unknown-rank TensorShape is equal to None, a numpy array compares elementwise."""
    assert {"tensorflow.Variable", "tensorflow.TensorShape", "numpy.zeros"} <= NONE_EQUALITY_NOT_IDENTITY
    v = tf.Variable(1.0)
    with pytest.raises(ValueError):
        v == None  # noqa: B015, E711

    @tf.function
    def traced(x):
        return x if v == None else x * v  # noqa: E711

    with pytest.raises(ValueError):
        traced(tf.ones(2))
    assert (tf.TensorShape(None) == None) is True  # noqa: E711
    with pytest.raises(ValueError):
        bool(np.zeros(3) == None)  # noqa: E711


def test_a_guard_spelled_equals_none_makes_its_layer_once():
    """BY-u1, iannwtfael's `ResidualBlock.call` (the audit's proof p2, on a `tf.Module`: a Keras 3
    model refuses a sub-layer assigned once it is built, guarded or not): three calls of a
    tf.function `call` guarded by `if self._out == None:` (set to an int in the block) make one
    layer and raise nothing; unguarded, the first call raises ValueError (variables made on a
    later trace)."""
    made = []

    class Block(tf.Module):
        def __init__(self):
            self._out = None

        @tf.function
        def call(self, inputs):
            if self._out == None:  # noqa: E711
                self._out = 4
                made.append(1)
                self.head = keras.layers.Dense(self._out)
            return self.head(inputs)

    block = Block()
    for _ in range(3):
        block.call(tf.ones((2, 3)))
    assert len(made) == 1

    class Bare(tf.Module):
        @tf.function
        def call(self, inputs):
            self.head = keras.layers.Dense(4)
            return self.head(inputs)

    bare = Bare()  # (kept: a tf.function method holds its object weakly)
    with pytest.raises(ValueError):
        bare.call(tf.ones((2, 3)))


def test_keras_metrics_mse_and_friends_are_functions():
    """BY-P3 (`KERAS_CLASS_SPELLED_FUNCTIONS`): under `tf.keras.metrics`, `tf.metrics` and
    `tf_keras.metrics` the capitalised `MSE`, `MAE`, `MAPE`, `MSLE`, `KLD` are functions (`MSE` is
    `keras.losses.mean_squared_error`), calling one makes no variable; no other capitalised name
    under the owner modules is one but `Input`."""
    assert tf.keras.metrics.MSE is keras.losses.mean_squared_error
    roots = [tf.keras, tf]
    try:
        roots.append(importlib.import_module("tf_keras"))
    except ImportError:
        pass
    for root in roots:
        metrics = root.metrics
        found = {n for n in dir(metrics) if n[:1].isupper() and inspect.isfunction(getattr(metrics, n))}
        assert found == KERAS_CLASS_SPELLED_FUNCTIONS, root
    for sub in ("layers", "models", "metrics", "optimizers"):
        module = getattr(keras, sub)
        assert {n for n in dir(module) if n[:1].isupper() and inspect.isfunction(getattr(module, n))} <= {"Input"}

    @tf.function
    def loss(a, b):
        return tf.keras.metrics.MSE(a, b) + tf.keras.metrics.MAE(a, b)

    for _ in range(2):
        loss(tf.ones(3), tf.zeros(3))  # no ValueError: no variable is made in the trace


def test_internal_spellings_are_the_public_functions():
    """BY-P1 (`TF_INTERNAL_NAMES`): each internal name is the public object (`array_ops.split is
    tf.split`), and `array_ops.split(v, 3)` returns a Python list of 3 tensors, in a trace too."""
    for internal, public in TF_INTERNAL_NAMES.items():
        module, name = internal.rsplit(".", 1)
        obj = tf
        for part in public.split(".")[1:]:
            obj = getattr(obj, part)
        assert getattr(importlib.import_module(module), name) is obj, internal
    from tensorflow.python.ops import array_ops

    @tf.function
    def gates(bias):
        parts = array_ops.split(bias, 3)
        assert isinstance(parts, list) and len(parts) == 3
        z, r, h = parts
        return z + r + h

    gates(tf.ones(6))


def test_a_dataset_map_of_library_ops_runs_no_layer_and_a_layer_called_eagerly_runs_call_each_time():
    """BY-uP3 (`staging._runs_no_project_code`): iterating a dataset mapped by a lambda of TF ops runs
    no layer's `call`; a layer called from a plain Python training step runs `call` on eager
    tensors on every call (Keras 3 adds a run at the first call, eager too)."""
    seen = []

    class Encoder(keras.layers.Layer):
        def __init__(self):
            super().__init__()
            self.dense = keras.layers.Dense(3)

        def call(self, x):
            seen.append(type(x).__name__)
            return self.dense(x)

    encoder = Encoder()
    ds = tf.data.Dataset.from_tensor_slices(tf.ones((4, 2))).map(lambda x: tf.cast(x, tf.float32) * 2).batch(2)
    list(ds)
    assert seen == []

    def train_step(x):
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(encoder(x))
        return tape.gradient(loss, encoder.trainable_variables)

    for x in ds:
        train_step(x)
    assert len(seen) >= 2 and set(seen) == {"EagerTensor"}


def test_a_global_written_above_the_functions_definition_is_what_every_trace_reads():
    """BY-uP2 (`captures._runs_before_reader_exists`): module statements run in order; a Function
    defined after every write of the global it reads traces with the last value written."""
    namespace: dict = {"tf": tf}
    exec(
        "def prepare(v):\n    global current\n    current = v\n"
        "prepare(1)\nprepare(2)\n"
        "@tf.function\ndef step(x):\n    return x * current\n"
        "a = step(tf.constant(1))\nb = step(tf.constant(3))\n",
        namespace,
    )
    assert int(namespace["a"]) == 2 and int(namespace["b"]) == 6
