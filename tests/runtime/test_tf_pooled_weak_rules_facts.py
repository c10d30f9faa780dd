"""The facts behind the pooled TensorFlow rules under 0.80 (STG105, STG503, STG202, STG403 on the
held-back halves; bench/fresh_audit_notes.md, "The pooled TF rules under 0.80 as facts"),
observed with the real TensorFlow 2.21 (Keras 3.15.1)."""

from __future__ import annotations

import pytest

tf = pytest.importorskip("tensorflow")


class _Transform(tf.Module):
    """AX3's shape (keras-model-registry's `DistributionTransformLayer.call`): a state op under
    `if self.mode == "auto":`, and in that block the mode saved, set for the call's own work and
    put back before the block ends."""

    def __init__(self, restore: bool):
        self.mode = "auto"
        self.restore = restore
        self.count = tf.Variable(0)

    def __call__(self, x):
        if self.mode == "auto":
            self.count.assign_add(1)
            saved = self.mode
            self.mode = "log"
            y = tf.math.log(x) if self.mode == "log" else x
            if self.restore:
                self.mode = saved
            return y
        return x


def test_an_attribute_saved_set_and_put_back_in_its_block_is_no_flip():
    """`analysis.stores.put_back_writes` (STG105): an attribute a block saves in a local, sets and
    restores from that local before anything can leave the block holds its configured value after
    every call, so an `if` on it decided at the trace is decided as eager code decides it on each
    call: the traced Function and the eager method update the variable alike (1, 2, 3). Without
    the restore (the twin) the attribute flips once: eagerly the op runs once, the traced
    Function runs it on every call (STG105's bug)."""
    def counts(restore: bool, traced: bool) -> list[int]:
        m = _Transform(restore)
        f = tf.function(m.__call__) if traced else m.__call__
        out = []
        for _ in range(3):
            f(tf.constant(2.0))
            out.append(int(m.count.numpy()))
        return out

    assert counts(restore=True, traced=False) == [1, 2, 3]
    assert counts(restore=True, traced=True) == [1, 2, 3]
    assert counts(restore=False, traced=False) == [1, 1, 1]
    assert counts(restore=False, traced=True) == [1, 2, 3]


def test_keras_ops_results_are_tensors_but_for_the_python_valued_ones():
    """`frameworks.tensorflow.KERAS_OPS_PREFIXES` / `KERAS_OPS_NOT_ONE_TENSOR`: under the
    TensorFlow backend a `keras.ops` op returns a `tf.Tensor`, eagerly and while traced (a
    symbolic one: a Python `if` on it raises where AutoGraph does not convert, as in a Keras 3
    `call`); `shape`, `ndim`, `dtype`, `is_tensor` and `convert_to_numpy` return Python values,
    `split`, `unstack`, `top_k` and `moments` Python sequences of tensors."""
    keras = pytest.importorskip("keras")
    if not keras.__version__.startswith("3.") or keras.backend.backend() != "tensorflow":
        pytest.skip("Keras 3 under the TensorFlow backend")
    ops = keras.ops
    x = tf.ones((2, 3))
    seen = {}

    def kinds(v):
        return {
            "min": tf.is_tensor(ops.min(v)), "mean": tf.is_tensor(ops.mean(v, axis=0)),
            "cast": tf.is_tensor(ops.cast(v, "float32")), "any": tf.is_tensor(ops.any(v > 0)),
            "shape": type(ops.shape(v)), "ndim": type(ops.ndim(v)), "dtype": type(ops.dtype(v)),
            "is_tensor": type(ops.is_tensor(v)), "split": type(ops.split(v, 3, axis=1)),
            "unstack": type(ops.unstack(v)), "top_k": isinstance(ops.top_k(v, 1), tuple), "moments": type(ops.moments(v, 0)),
        }

    @tf.function
    def traced(v):
        seen["traced"] = kinds(v)
        seen["symbolic"] = not hasattr(ops.min(v), "numpy")
        return v

    traced(x)
    expected = {"min": True, "mean": True, "cast": True, "any": True, "shape": tuple, "ndim": int,
                "dtype": str, "is_tensor": bool, "split": list, "unstack": list, "top_k": True, "moments": tuple}
    assert kinds(x) == expected and seen["traced"] == expected and seen["symbolic"]
    assert type(ops.convert_to_numpy(x)).__name__ == "ndarray"

    class Select(keras.layers.Layer):
        def call(self, v):
            if ops.min(v) > 0:
                return v * 2.0
            return v

    assert float(tf.reduce_sum(Select()(x))) == 12.0  # eagerly: a concrete tensor
    with pytest.raises(tf.errors.OperatorNotAllowedInGraphError):
        tf.function(Select())(x)  # Keras 3 does not convert `call`: the `if` on a symbolic tensor


def _second_optimizer_raises(keras, make) -> bool:
    """A Function that applied one optimizer made by `make` is given a second one."""
    @tf.function
    def step(model, optimizer, x):
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(model(x))
        optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))
        return loss

    model = keras.Sequential([keras.layers.Dense(2)])
    model.build((None, 3))
    x = tf.ones((4, 3))
    step(model, make(), x)
    try:
        step(model, make(), x)
    except ValueError:
        return True
    return False


def test_a_keras3_sgd_without_momentum_makes_its_variables_when_made():
    """`frameworks.tensorflow.optimizer_built_at_construction` (STG403): a Keras 3 `SGD` makes
    `iterations` and its learning rate when constructed and, without momentum, no slot at its
    first apply, so a second one given to a Function that traced with a first creates no
    variable there: no ValueError (N's TFF notebook). With a momentum, `Adam` or `RMSprop` the
    slots are made at the first apply, on a non-first trace: ValueError; tf_keras's `SGD` makes
    its variables at the first apply too."""
    keras = pytest.importorskip("keras")
    if not keras.__version__.startswith("3."):
        pytest.skip("Keras 3")
    assert len(keras.optimizers.SGD(0.1).variables) == 2
    assert not _second_optimizer_raises(keras, lambda: keras.optimizers.SGD(0.1))
    assert not _second_optimizer_raises(keras, lambda: keras.optimizers.SGD(0.1, momentum=0.0))
    assert _second_optimizer_raises(keras, lambda: keras.optimizers.SGD(0.1, momentum=0.9))
    assert _second_optimizer_raises(keras, lambda: keras.optimizers.Adam())
    assert _second_optimizer_raises(keras, lambda: keras.optimizers.RMSprop())
    tf_keras = pytest.importorskip("tf_keras")
    assert _second_optimizer_raises(tf_keras, lambda: tf_keras.optimizers.SGD(0.1))


def test_a_new_optimizer_made_with_a_new_function_in_the_same_iteration_reaches_only_that_function():
    """`rules.structure._objects` (STG403, the sixteenth audit's BI2: an EWC notebook's
    `train_task`): tf.function allows variables on the first call of each Function object. A loop
    that makes a new Function (`step = get_train()`) and then a new `Adam` in the same iteration,
    and calls that Function with that optimizer for every batch, runs without error: each
    optimizer's first apply is its own Function's first call. Twin: one Function made before the
    loop and a new `Adam` per iteration raises ValueError at the second optimizer."""
    keras = pytest.importorskip("keras")

    def get_train():
        @tf.function
        def step(model, optimizer, x):
            with tf.GradientTape() as tape:
                loss = tf.reduce_sum(model(x))
            optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))
            return loss
        return step

    model = keras.Sequential([keras.layers.Dense(2)])
    model.build((None, 3))
    x = tf.ones((4, 3))
    for _ in range(3):
        step = get_train()
        optimizer = keras.optimizers.Adam(0.001)
        for _ in range(2):
            step(model, optimizer, x)
    shared = get_train()
    with pytest.raises(ValueError):
        for _ in range(3):
            optimizer = keras.optimizers.Adam(0.001)
            for _ in range(2):
                shared(model, optimizer, x)
