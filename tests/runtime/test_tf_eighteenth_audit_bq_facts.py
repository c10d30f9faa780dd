"""The facts behind the eighteenth TensorFlow audit's false classes of half BQ (BQ1-t, BQ1-u;
tests/rules/test_tf_eighteenth_audit_bq_classes.py, tests/rules/test_stg506_varying_shapes.py),
observed with the real TensorFlow 2.21."""

from __future__ import annotations

import numpy as np
import pytest

tf = pytest.importorskip("tensorflow")


def test_a_function_keys_a_generator_by_identity_and_a_variable_by_its_spec():
    """`frameworks.NEW_IDENTITY_KEYED_CONSTRUCTORS` (STG502, BQ1-t): one Function taking a new
    `tf.random.Generator` on each call traces once per generator (4 in 4), the same generator
    once; taking a new `tf.Variable` of one shape each call, once in 4. So a Function made per
    call around a generator of that call traces no more than one made once would."""
    traces = []

    @tf.function
    def draw(g, n):
        traces.append(1)
        return g.uniform([n])

    for seed in range(4):
        draw(tf.random.Generator.from_seed(seed), 3)
    assert len(traces) == 4
    traces.clear()
    g = tf.random.Generator.from_seed(0)
    for _ in range(4):
        draw(g, 3)
    assert len(traces) == 1

    @tf.function
    def read(v):
        traces.append(1)
        return v + 1.0

    traces.clear()
    for seed in range(4):
        read(tf.Variable(float(seed)))
    assert len(traces) == 1


def test_a_function_per_call_over_that_calls_generator_repeats_seeded_draws_a_shared_one_does_not():
    """VRP_DRL_MHA's `generate_data` shape: a Function made in each call, closing over the
    generator the call seeds, traces once per call and gives the seeded draws again; a Function
    made once over one generator (the advice 'create it once outside') draws on from its state."""
    traces = []

    def generate(seed):
        g = tf.random.Generator.from_seed(seed)

        @tf.function
        def tf_rand():
            traces.append(1)
            return g.uniform([2])
        return tf_rand().numpy()

    draws = [generate(1) for _ in range(3)]
    assert len(traces) == 3 and all((d == draws[0]).all() for d in draws)
    shared = tf.random.Generator.from_seed(1)
    once = tf.function(lambda: shared.uniform([2]))
    later = [once().numpy() for _ in range(3)]
    assert not all((d == later[0]).all() for d in later)


def test_declared_none_dimensions_trace_on_the_shapes_the_generator_yields():
    """`varying_shapes` `_generator` (STG506, BQ1-u, MelGAN's DataGenerator): a Function without
    an input_signature is keyed on the concrete shapes of the tensors it is given, not on the
    dataset's declared `output_shapes`: under `[2, None, 3]` a generator cropping every example
    to one length gives 1 trace in 20 batches; one yielding 5 lengths gives 5."""
    traces = []

    @tf.function
    def step(x):
        traces.append(1)
        return tf.reduce_sum(x)

    def fixed():
        for _ in range(20):
            yield np.ones([2, 7, 3], np.float32)

    def varying():
        for n in range(2, 7):
            yield np.ones([2, n, 3], np.float32)

    for gen, want in ((fixed, 1), (varying, 5)):
        traces.clear()
        step_fn = tf.function(step.python_function)
        ds = tf.data.Dataset.from_generator(gen, output_types=tf.float32, output_shapes=[2, None, 3])
        for x in ds:
            step_fn(x)
        assert len(traces) == want
