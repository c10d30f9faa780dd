"""The facts behind the nineteenth TensorFlow audit's false classes BU-t1 (STG301) and BU-t2
(STG502) of half BU (tests/rules/test_tf_nineteenth_audit_bu_classes.py), observed with the real
TensorFlow 2.21 and Keras 3."""

from __future__ import annotations

import numpy as np
import pytest

tf = pytest.importorskip("tensorflow")
keras = pytest.importorskip("keras")


def _model():
    model = keras.Sequential([keras.layers.Dense(1)])
    model.build((None, 3))
    return model


def test_a_function_keys_a_keras_optimizer_and_metric_by_identity():
    """`frameworks.is_keras_state_class` (STG502, BU-t2): one Function taking a new optimizer on
    each of 3 calls traces 3 times, a new metric 3 times; the same ones, once. `tf.optimizers` and
    `tf.metrics` are Keras 3's."""
    assert tf.optimizers.Adam is keras.optimizers.Adam and tf.metrics.Mean is keras.metrics.Mean
    traces = []
    x, y = tf.ones((4, 3)), tf.ones((4, 1))

    @tf.function
    def step(model, opt, metric):
        traces.append(1)
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean((model(x) - y) ** 2)
        grads = tape.gradient(loss, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables))
        metric.update_state(loss)

    model, metric = _model(), keras.metrics.Mean()
    for _ in range(3):
        opt = keras.optimizers.Adam()
        opt.build(model.trainable_variables)
        step(model, opt, metric)
    assert len(traces) == 3
    traces.clear()
    for _ in range(3):
        step(model, opt, keras.metrics.Mean())
    assert len(traces) == 3
    traces.clear()
    for _ in range(3):
        step(model, opt, metric)
    assert len(traces) == 0  # that optimizer and metric were traced already


def test_a_function_made_once_cannot_make_a_new_optimizers_variables_on_a_later_trace():
    """DendroNet's shape hoisted: a Function made once and given each iteration's new model and
    lazily built optimizer raises on the second, since the optimizer makes its slot variables in
    that later trace. Made per iteration (closing over them), it runs, one Function per iteration."""
    x, y = tf.ones((4, 3)), tf.ones((4, 1))

    @tf.function
    def step(model, opt):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean((model(x) - y) ** 2)
        grads = tape.gradient(loss, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables))

    with pytest.raises(ValueError, match="first call"):
        for _ in range(2):
            step(_model(), keras.optimizers.Adam())

    for _ in range(2):
        model, opt = _model(), keras.optimizers.Adam()

        @tf.function
        def per_iteration():
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean((model(x) - y) ** 2)
            grads = tape.gradient(loss, model.trainable_variables)
            opt.apply_gradients(zip(grads, model.trainable_variables))

        for _ in range(3):
            per_iteration()


def test_a_batch_size_global_is_read_anew_by_each_new_batch_shape():
    """`frameworks.DATASET_BATCHING_METHODS` (STG301, BU-t1; the audit's proof p5): a global
    rebound together with the dataset's batch size is read anew by each new shape's trace (every
    full batch reads its own size); a smaller last batch of a shape traced before reuses the old
    value (300 rows: 44 under 128, then under 64, read as 44/128); `drop_remainder=True` leaves
    none; an input_signature with a `None` batch dimension reads the first value for every size."""
    g = {"bs": 128}
    X = np.zeros((300, 2), "float32")

    @tf.function
    def ratio(images):
        return tf.cast(tf.shape(images)[0], tf.float32) / g["bs"]

    seen = {}
    for bs in (128, 64, 128, 32):
        g["bs"] = bs
        seen.setdefault(bs, set()).update(
            float(ratio(b)) for b in tf.data.Dataset.from_tensor_slices(X).batch(bs))
    assert all(1.0 in s for s in seen.values())
    assert seen[64] == {1.0, 44 / 128}  # the 44-row last batch, traced under 128: stale

    @tf.function
    def dropped(images):
        return tf.cast(tf.shape(images)[0], tf.float32) / g["bs"]

    for bs in (128, 64, 32):
        g["bs"] = bs
        ds = tf.data.Dataset.from_tensor_slices(X).batch(bs, drop_remainder=True)
        assert {float(dropped(b)) for b in ds} == {1.0}

    @tf.function(input_signature=[tf.TensorSpec([None, 2])])
    def signed(images):
        return tf.cast(tf.shape(images)[0], tf.float32) / g["bs"]

    got = []
    for bs in (128, 64):
        g["bs"] = bs
        ds = tf.data.Dataset.from_tensor_slices(X).batch(bs, drop_remainder=True)
        got.append({float(signed(b)) for b in ds})
    assert got == [{1.0}, {0.5}]  # one trace for every size: the first value


def test_a_function_remade_from_its_python_function_has_no_old_trace():
    """`frameworks.FUNCTION_REMAKERS` / `FUNCTION_PYTHON_ATTRIBUTE` (STG301, BU-t1, SpaceGan's
    `run_exp`): after `step = tf.function(step.python_function)` the name runs a new Function,
    traced on its first call with the global as it is then; `step.python_function` runs eagerly
    and reads it on every call. The old Function keeps the value it traced."""
    g = {"scale": 2.0}

    @tf.function
    def step(x):
        return x * g["scale"]

    x = tf.constant(1.0)
    assert float(step(x)) == 2.0
    g["scale"] = 3.0
    assert float(step(x)) == 2.0  # the old Function: its trace, the old value
    remade = tf.function(step.python_function)
    assert float(remade(x)) == 3.0
    plain = step.python_function
    g["scale"] = 4.0
    assert float(plain(x)) == 4.0 and not hasattr(plain, "python_function")
