"""The facts behind STG301's default tier under TensorFlow (a change made after a Function object
has traced, read by a later call of that same object) and STG104's (a draw frozen into a trace
that later calls reuse), observed with the real TensorFlow 2.21."""

from __future__ import annotations

import numpy as np
import pytest

tf = pytest.importorskip("tensorflow")


def test_a_closure_changed_between_two_calls_of_one_function_is_stale():
    """`StaleGlobal._between_runs`, called on both sides: the second call reuses the first
    trace, which baked the old value in."""
    scale = 1.0

    @tf.function
    def f(x):
        return x * scale

    first = float(f(tf.constant(1.0)))
    scale = 2.0  # noqa: F841 (read by the trace only)
    assert (first, float(f(tf.constant(1.0)))) == (1.0, 1.0)


def test_a_function_returned_after_the_change_traces_with_the_new_value():
    """`StaleGlobal._run_before`: a Function handed out below the change cannot have run before
    it; a closure reads its cell when traced, at the first call."""
    def make():
        scale = 1.0

        @tf.function
        def h(x):
            return x * scale

        scale = 2.0  # noqa: F841
        return h

    h = make()
    assert [float(h(tf.constant(1.0))) for _ in range(2)] == [2.0, 2.0]


def test_a_function_defined_afresh_in_a_loop_traces_each_iterations_value():
    """`analysis.order._defined_in`: each run of `@tf.function def` makes a new Function, whose
    traces are its own; a global rebound above it in the loop is read afresh each time."""
    got = []
    namespace = {"tf": tf, "got": got}
    exec(  # module-level code: the global and the def in one module-level loop
        "for rate in (1.0, 2.0, 3.0):\n"
        "    fire_rate = rate\n"
        "    @tf.function\n"
        "    def step(x):\n"
        "        return x * fire_rate\n"
        "    got.append([float(step(tf.constant(1.0))) for _ in range(2)])\n", namespace)
    assert got == [[1.0, 1.0], [2.0, 2.0], [3.0, 3.0]]


def test_a_numpy_draw_as_the_seed_of_a_stateful_random_op_still_varies_per_call():
    """STG104: a draw that only seeds a stateful `tf.random` op (`seed=`) is frozen, but the op
    draws anew on every call of the trace: nothing a call computes repeats."""
    @tf.function
    def noise():
        return tf.random.uniform([3], seed=int(np.random.randint(2**31 - 1)))

    a, b = noise().numpy(), noise().numpy()
    assert not np.array_equal(a, b)


def test_a_numpy_draw_in_a_function_called_again_or_a_map_function_repeats():
    """STG104's known repetition: a second call of one Function reuses its trace, and a
    `Dataset.map` function is traced once and run for every element."""
    @tf.function
    def jitter(x):
        return x + np.random.normal()

    assert float(jitter(tf.constant(0.0))) == float(jitter(tf.constant(0.0)))
    values = [float(v) for v in tf.data.Dataset.from_tensor_slices([0.0] * 4).map(lambda x: x + np.random.normal())]
    assert len(set(values)) == 1


def test_a_function_defined_after_a_rebinding_reads_the_new_variable_an_older_one_the_old():
    """`analysis.order._same_function_around` (STG303's order): a notebook cell making
    `x = tf.Variable(6.0)` and then `@tf.function def add_print` that reads `x` closes over the new
    variable; only a Function that traced before the rebinding and is called again after it
    keeps reading the old one."""
    ns = {"tf": tf}
    exec(  # module-level bindings, as a notebook's cells make them
        "x = tf.Variable(1.0)\n"
        "@tf.function\n"
        "def old_reader(a):\n"
        "    return a + x\n"
        "before = float(old_reader(tf.constant(0.0)))\n"
        "x = tf.Variable(6.0)\n"
        "@tf.function\n"
        "def add_print(a):\n"
        "    x.assign_add(a)\n"
        "    return x.read_value()\n"
        "new = float(add_print(tf.constant(3.0)))\n"
        "old = float(old_reader(tf.constant(0.0)))\n", ns)
    assert (ns["before"], ns["new"], ns["old"]) == (1.0, 9.0, 1.0)
