"""The fact behind `analysis.flags.param_values` / `untraced_branch` / `traced_reach`, observed with
the real JAX and TensorFlow: a Python `if` on a Python value a traced call gives a parameter (a
literal, a default, or the caller's own parameter forwarded) is decided while tracing, and only
the branch taken is traced; code after `if flag: return ...` is not traced when the flag is true.
Under `tf.function` AutoGraph converts the `if` and the early `return`, and with a Python test
its converted form still runs only the branch taken."""

from __future__ import annotations

import pytest

jax = pytest.importorskip("jax")
jnp = jax.numpy


def _library(runs):
    """NEO_JAX's and Sionna's shapes: a literal flag selecting an early return, a flag forwarded
    by a caller whose own traced callers leave it False, an equality test on a string option."""

    def python_loop_driver(x):
        runs.append("driver")
        return x + 1

    def run(x, *, scan=False):
        if scan:
            return x * 2
        runs.append("after the return")
        return python_loop_driver(x)

    def report(x, verbose=False):
        if verbose:
            runs.append("verbose")
        return x

    def forward(x, verbose=False):
        return report(x, verbose=verbose)

    def by_mode(x, mode="graph"):
        if mode == "eager":
            runs.append("eager mode")
        if mode is None:
            runs.append("no mode")
        return x

    return run, forward, by_mode


def test_jax_traces_only_the_branch_a_literal_forwarded_or_compared_value_takes():
    runs = []
    run, forward, by_mode = _library(runs)

    @jax.jit
    def step(x):
        return by_mode(forward(run(x, scan=True)), mode="graph")

    for _ in range(3):
        step(jnp.ones(3))
    assert runs == []  # the driver after the return, the verbose and the mode branches: in no trace


def test_jax_negative_twin_a_traced_call_passing_the_other_value_traces_that_branch_once():
    runs = []
    run, forward, by_mode = _library(runs)

    @jax.jit
    def step(x):
        return by_mode(forward(run(x), verbose=True), mode="eager")

    for _ in range(3):
        step(jnp.ones(3))
    assert runs == ["after the return", "driver", "verbose", "eager mode"]  # once, while tracing


def test_tensorflow_autograph_runs_only_the_branch_taken_and_not_what_follows_an_early_return():
    tf = pytest.importorskip("tensorflow")
    runs = []

    def report(x, verbose=False):
        if verbose:
            print("value", x.numpy())  # raises while tracing: a symbolic tensor has no numpy()
            runs.append("verbose")
        return x

    def forward(x, verbose=False):
        return report(x, verbose=verbose)

    def run(x, scan=False):
        if scan:
            return x * 2
        runs.append("after the return")
        return x + x.numpy()  # raises while tracing

    @tf.function
    def step(x):
        return forward(run(x, scan=True))

    for _ in range(3):
        step(tf.ones(3))
    assert runs == []

    @tf.function
    def loud(x):
        return forward(x, verbose=True)

    with pytest.raises(Exception, match="numpy"):
        loud(tf.ones(3))  # the negative twin: the branch taken is traced, `.numpy()` raises
