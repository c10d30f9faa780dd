"""STG506's facts, measured with real TensorFlow 2.21 and JAX 0.10.2: each example of the rule is
run, and the trace counts show that a flagged call retraces per shape and its twin does not."""

from __future__ import annotations

import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import numpy as np  # noqa: E402
import pytest  # noqa: E402

from stagelint.rules import get_rule  # noqa: E402
from stagelint.rules.base import example_source  # noqa: E402

tf = pytest.importorskip("tensorflow")
jax = pytest.importorskip("jax")

RULE = get_rule("STG506")


def run(example: str) -> dict:
    namespace: dict = {"__name__": "example"}
    exec(compile(example_source(example), "example.py", "exec"), namespace)
    return namespace


def traces(function) -> int:
    if hasattr(function, "experimental_get_tracing_count"):
        return function.experimental_get_tracing_count()
    return function._cache_size()  # a `jax.jit` function: one entry per compiled shape


def test_padded_batch_retraces_per_padded_length_and_its_twins_do_not():
    flagged = run(RULE.invalid[0])
    # lengths 2..13 in batches of 3: padded to 4, 7, 10 and 13
    assert traces(flagged["train_step"]) == 4
    twin = run(RULE.valid[0])
    assert traces(twin["train_step"]) == 1          # input_signature with None dimensions
    assert traces(twin["eval_step"]) == 2           # reduce_retracing: one more, for None dimensions
    assert traces(twin["fixed_step"]) == 1          # fixed padded_shapes, drop_remainder=True


def test_loop_varying_slices_and_sequences_retrace_per_length():
    flagged = run(RULE.invalid[1])
    assert traces(flagged["step"]) == 16            # 8 lengths of `data[:n]`, 8 of `[0.0] * n`
    twin = run(RULE.valid[1])
    assert traces(twin["step"]) == 1                # drop_remainder=True
    assert traces(twin["row_step"]) == 1            # `data[i]`: one shape


def test_jax_jit_compiles_per_shape_and_once_padded():
    assert traces(run(RULE.invalid[2])["total"]) == 8
    assert traces(run(RULE.valid[2])["total"]) == 1


def test_tf_function_does_not_generalise_shapes_on_its_own():
    """`reduce_retracing` is off by default and TensorFlow never turns it on: 30 shapes, 30 traces;
    with it, 2; the older `experimental_relax_shapes` is still accepted and does the same."""
    plain = tf.function(lambda x: tf.reduce_sum(x))
    relaxed = tf.function(lambda x: tf.reduce_sum(x), reduce_retracing=True)
    legacy = tf.function(lambda x: tf.reduce_sum(x), experimental_relax_shapes=True)
    for n in range(1, 31):
        for f in (plain, relaxed, legacy):
            f(tf.ones([n]))
    assert (traces(plain), traces(relaxed), traces(legacy)) == (30, 2, 2)


def test_a_last_smaller_batch_is_one_extra_trace_whatever_the_epochs():
    rows = tf.data.Dataset.from_tensor_slices(np.ones([100, 4], np.float32))
    counted = {}
    for name, ds in (("partial", rows.batch(32)), ("dropped", rows.batch(32, drop_remainder=True)),
                     ("divides", rows.batch(25))):
        step = tf.function(lambda x: tf.reduce_sum(x))
        for _ in range(3):
            for x in ds:
                step(x)
        counted[name] = traces(step)
    assert counted == {"partial": 2, "dropped": 1, "divides": 1}


def test_bucketing_and_ragged_to_dense_retrace_per_shape():
    lengths = [3, 7, 5, 9, 4, 12, 6, 8, 10, 11, 2, 13]
    ds = tf.data.Dataset.from_generator(lambda: (np.ones([n], np.float32) for n in lengths),
                                        output_signature=tf.TensorSpec([None], tf.float32))
    per_element = tf.function(lambda x: tf.reduce_sum(x))
    for x in ds:
        per_element(x)
    assert traces(per_element) == len(lengths)      # `None` dimensions: each element its own size
    buckets = ds.bucket_by_sequence_length(lambda x: tf.shape(x)[0], [5, 10], [2, 2, 2])
    bucketed = tf.function(lambda x: tf.reduce_sum(x))
    shapes = set()
    for x in buckets:
        shapes.add(tuple(x.shape))
        bucketed(x)
    assert traces(bucketed) == len(shapes) > 3
    dense = tf.function(lambda x: tf.reduce_sum(x))
    fixed = tf.function(lambda x: tf.reduce_sum(x))
    for n in range(2, 8):
        rt = tf.ragged.constant([[1.0] * n, [2.0]])
        dense(rt.to_tensor())
        fixed(rt.to_tensor(shape=[2, 8]))
    assert (traces(dense), traces(fixed)) == (6, 1)


def test_a_constructed_shape_that_holds_the_loop_number_retraces_per_number():
    encode = tf.function(lambda x: tf.reduce_sum(x))
    traced = []

    @jax.jit
    def pooled(x):
        traced.append(x.shape)
        return x.sum(axis=1)

    for length in (5, 9, 12, 17, 23, 31):
        encode(tf.ones([4, length], tf.int32))
        pooled(jax.numpy.ones((2, length)))
    assert (traces(encode), len(traced)) == (6, 6)
