"""The facts behind the pooled TensorFlow false classes of the held-back halves
(tests/rules/test_tf_pooled_classes.py), observed with the real TensorFlow 2.21."""

from __future__ import annotations

import pytest

tf = pytest.importorskip("tensorflow")


def test_the_tf1_variable_collections_are_python_lists_and_their_loop_is_python():
    """`frameworks.tensorflow` `non_tensor_prefixes`: `tf.compat.v1.global_variables()` (and the
    other collection getters) returns a Python list of variables, eagerly and while traced; a
    `for` over it in a traced helper stays a Python loop (AutoGraph converts loops over tensors
    and datasets only), so a dict filled in it holds every variable."""
    v1 = tf.compat.v1
    getters = (v1.global_variables, v1.trainable_variables, v1.local_variables, v1.model_variables,
               v1.moving_average_variables)
    assert all(type(g()) is list for g in getters)
    assert type(v1.get_collection("variables")) is list
    a, b = tf.Variable(1.0), tf.Variable(2.0)
    seen = {}

    def by_device(variables):
        out = {}
        for var in variables:
            out.setdefault(var.device, []).append(var)
        return out

    @tf.function
    def step(x):
        seen["kinds"] = [type(g()) for g in getters]
        groups = by_device([a, b])
        seen["sizes"] = [len(v) for v in groups.values()]
        return x + tf.add_n([v for vs in groups.values() for v in vs])

    assert float(step(tf.constant(0.0))) == 3.0
    assert seen["kinds"] == [list] * len(getters) and sum(seen["sizes"]) == 2


def test_a_function_made_per_call_over_a_python_value_of_that_call():
    """`analysis.functions.python_values_held` (STG502 under TensorFlow): a Function made each
    time its maker runs, reading a Python number that run computes (`end` from the video's
    length), traces once per run with that run's value; made once outside, it keeps the first
    value baked in its graph (tf-behaviour.md row c), and given the number as a Python argument
    it traces once per value as well."""
    def animate(video, batch):
        end = batch * (len(video) // batch)

        @tf.function(input_signature=[tf.TensorSpec(shape=None, dtype=tf.float32)])
        def slice_driving(x):
            return x[0:end]

        return int(tf.shape(slice_driving(tf.constant(video)))[0])

    assert [animate([1.0] * n, 2) for n in (4, 7, 9)] == [4, 6, 8]

    ends = {"end": 4}

    @tf.function(input_signature=[tf.TensorSpec(shape=None, dtype=tf.float32)])
    def hoisted(x):
        return x[0:ends["end"]]

    got = []
    for n in (4, 7, 9):
        ends["end"] = 2 * (n // 2)
        got.append(int(tf.shape(hoisted(tf.constant([1.0] * n)))[0]))
    assert got == [4, 4, 4] and hoisted.experimental_get_tracing_count() == 1  # the first value, frozen

    @tf.function
    def as_argument(x, end):
        return x[0:end]

    for n in (4, 7, 9):
        as_argument(tf.constant([1.0] * 10), 2 * (n // 2))
    assert as_argument.experimental_get_tracing_count() == 3  # one trace per Python value


def test_a_call_after_numpy_of_a_tensor_is_never_traced():
    """`tracers.after_raising_fact` (`facts.CallEdge.after_raising`): under a trace `x.numpy()`
    raises AttributeError on a symbolic tensor, so the call after it never runs while tracing;
    eagerly (tf.function turned off to debug) it runs."""
    ran = []

    def dilate_box(box):
        ran.append("traced" if not tf.executing_eagerly() else "eager")
        return box * 2

    def losses(outputs, box):
        outputs["disp"][0].numpy()
        return dilate_box(box)

    step = tf.function(losses)
    with pytest.raises(AttributeError):
        step({"disp": tf.ones([2, 2])}, tf.ones([4]))
    assert ran == []
    assert float(tf.reduce_sum(losses({"disp": tf.ones([2, 2])}, tf.ones([4])))) == 8.0 and ran == ["eager"]


def test_code_after_a_statement_whose_every_path_calls_numpy_is_traced_only_where_none_does():
    """`FileContext.compound_raising` (AX2, tf2_grf's `MAPolicyWithValue.value`): each branch of an
    `if`/`else` calls `.numpy()` of a tensor, in a loop over a Python list. Traced, the first
    iteration raises AttributeError before the print; with an empty list the loop makes no
    iteration and the print runs at the trace; eagerly it prints every call."""
    printed = []

    def value(latent, agent_ids):
        results = []
        for a in agent_ids:
            if latent.ndim == 2:
                result = tf.squeeze(latent[a:a + 1], axis=0)
                results.append(result.numpy()[0])
            else:
                result = tf.reduce_sum(latent)
                results.append(result.numpy())
        printed.append(len(results))
        return results

    traced = tf.function(value)
    with pytest.raises(AttributeError, match="numpy"):
        traced(tf.ones([2, 2]), [0, 1])
    assert printed == []
    traced(tf.ones([2, 2]), [])  # no iteration: traced, the print runs once at the trace
    assert printed == [0]
    assert value(tf.ones([2, 2]), [0, 1]) == [1.0, 1.0] and printed == [0, 2]
