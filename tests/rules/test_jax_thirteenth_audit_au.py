"""The thirteenth JAX audit's fix-from half AU, each false class a framework fact with its negative
twin: the function a host callback runs, reached through a partial bound to a name, runs as Python
when JAX calls it back (AU1); an unused JAX result loses nothing, and `checkify.check` is no op
whose result matters (AU2); a notebook's test function its cells call once runs once, so the
performance family's cost per call is paid once (AU3)."""

from __future__ import annotations

from rulecases import assert_tiers


def test_a_partial_handed_to_a_host_callback_runs_as_python():
    """`cb = partial(save, folder=...)` (functools' or `jax.tree_util.Partial`) whose only read is
    `jax.debug.callback(cb, ...)`, and a partial made inline in `io_callback`'s call: `save` runs
    with concrete values on every execution, its I/O is no trace-time effect
    (tests/runtime/test_jax_thirteenth_audit_au_facts.py)."""
    assert_tiers("""
        import functools
        import os
        import pickle

        import jax
        from jax.experimental import io_callback
        from jax.tree_util import Partial


        def save(state, idx, folder="./models"):
            os.makedirs(folder, exist_ok=True)
            with open(os.path.join(folder, f"u{idx}.pkl"), "wb") as h:
                pickle.dump(state, h)


        def log(state, folder="./logs"):
            print("saved", state)
            return state


        @jax.jit
        def train(state, idx):
            cb = Partial(save, folder="/tmp/m")
            other = functools.partial(save, folder="/tmp/n")

            def save_cond(state, idx):
                jax.debug.callback(cb, state, idx)
                jax.debug.callback(other, state, idx)

            jax.lax.cond(idx % 10 == 0, save_cond, lambda s, i: None, state, idx)
            state = io_callback(functools.partial(log, folder="/tmp/l"), state, state)
            return state + 1
    """)


def test_a_partial_called_or_handed_elsewhere_is_still_taken_as_traced():
    """The negative twin: the same partial also called in the traced body makes `save` traced (that
    the partial object bound to `cb` is called is followed as a guess: preview); a partial made in
    `lax.cond`'s call is the branch it traces (default)."""
    assert_tiers("""
        import os

        import jax
        from jax.tree_util import Partial


        def save(state, idx, folder="./models"):
            os.makedirs(folder, exist_ok=True)  # preview STG101


        def note(state, idx, folder="./models"):
            os.makedirs(folder, exist_ok=True)  # STG101


        @jax.jit
        def train(state, idx):
            cb = Partial(save, folder="/tmp/m")
            jax.debug.callback(cb, state, idx)
            cb(state, idx)
            jax.lax.cond(idx > 0, Partial(note, folder="/tmp/n"), lambda s, i: None, state, idx)
            return state + 1
    """)


def test_an_unused_jax_result_or_checkify_check_is_no_discarded_op():
    """`checkify.check(...)` under `checkify.checkify` (it returns None; its failure is the returned
    error value) and unused JAX results (no JAX op raises at run time: nothing is lost when jit
    drops one) in jitted code: STG603 is TensorFlow's (tests/runtime/test_jax_thirteenth_audit_au_facts.py)."""
    assert_tiers("""
        import jax
        import jax.numpy as jnp
        from jax.experimental import checkify


        def typed_jit(f):
            return jax.jit(f)


        class Model:
            def __init__(self, verts):
                self.verts = verts

            @checkify.checkify
            @typed_jit
            def value_checks(self):
                checkify.check(jnp.all(self.verts >= 0), "negative vertex")
                checkify.check(self.verts.ndim == 2, "verts must be 2-D")


        @jax.jit
        @checkify.checkify
        def value_checks(verts):
            checkify.check(jnp.all(verts >= 0), "negative vertex")
            return verts


        @typed_jit
        def step(x):
            jnp.take(x, 10)
            jax.lax.dynamic_slice(x, (5,), (2,))
            return x * 2
    """)


def test_an_unused_tensorflow_op_is_still_a_discarded_op():
    """The negative twin: TensorFlow's graph prunes an unused `tf.gather`, and the error it raises
    eagerly never happens in the Function (TF 2.21: tests/runtime/test_message_facts.py)."""
    assert_tiers("""
        import tensorflow as tf


        @tf.function
        def step(x):
            tf.gather(x, [10])  # STG603
            tf.debugging.assert_positive(x)
            return x * 2
    """)


_STATIC = """
import functools
import jax


class Retraction:
    def __init__(self, n):
        self.n = n


@functools.partial(jax.jit, static_argnums=0)
def move(rtr, x):
    return x * rtr.n
"""


def _notebook(tmp_path, cells: list[str]):
    """The findings (code, line in its cell) of a notebook of `cells` under `tests/notebooks/`
    (not a package: not a test module by name), written as Jupyter writes one (indented JSON)."""
    import json
    import os

    from stagelint.engine import check_paths

    path = tmp_path / "tests" / "notebooks" / "TestIntegrator.ipynb"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({
        "cells": [{"cell_type": "code", "metadata": {}, "execution_count": None, "outputs": [],
                   "source": cell.splitlines(keepends=True)} for cell in cells],
        "metadata": {}, "nbformat": 4, "nbformat_minor": 5}, indent=1), encoding="utf-8")
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        result = check_paths(["tests"], jobs=1)
    finally:
        os.chdir(cwd)
    assert not result.errors, result.errors
    return sorted((f.code, f.line) for f in result.findings)


_TEST = "def test_integrator():\n    rtr = Retraction(3)\n    move(rtr, 1.0)\n    return move(rtr, 2.0)\n"


def test_a_notebook_test_function_its_cells_call_once_runs_once(tmp_path):
    """jax-rb's test notebook: a `test*` function making its static object anew, called once by a
    later cell (or never: a runner's, such as ipytest's, one call per test): one new object, one
    trace, per run; the warm-up and the timed call share it (a cache hit)."""
    assert _notebook(tmp_path, [_STATIC, _TEST, "test_integrator()\n"]) == []
    assert _notebook(tmp_path, [_STATIC, _TEST]) == []


def test_a_notebook_function_called_in_a_loop_or_not_a_test_is_still_per_call(tmp_path):
    """The negative twins: the same test function called in a loop of a cell (each iteration a new
    object, a new trace), or twice; and a function not named as a test that no cell calls (no
    runner calls it: its callers are not shown). A function not named as a test that a cell
    calls once runs once too, as any function a module's top-level code calls once and nothing
    else reads (`repetition.runs_once`, the sixteenth audit's BH2)."""
    assert _notebook(tmp_path, [_STATIC, _TEST, "for _ in range(10):\n    test_integrator()\n"]) == \
        [("STG505", 3), ("STG505", 4)]
    assert _notebook(tmp_path, [_STATIC, _TEST, "test_integrator()\ntest_integrator()\n"]) == \
        [("STG505", 3), ("STG505", 4)]
    assert _notebook(tmp_path, [_STATIC, _TEST.replace("test_integrator", "integrate")]) == \
        [("STG505", 3), ("STG505", 4)]
    assert _notebook(tmp_path, [_STATIC, _TEST.replace("test_integrator", "integrate"), "integrate()\n"]) == []


def test_code_after_a_value_shaped_call_without_size_is_never_traced():
    """graph-jax's `@jax.jit silhouette_score_jax`: `jnp.unique(labels)` of a traced argument
    without `size=` raises ConcretizationTypeError while tracing, as do `jnp.nonzero`,
    `jnp.argwhere` and a one-argument `jnp.where`: what follows on every path is never traced
    (tests/runtime/test_jax_thirteenth_audit_au_facts.py); each such call is itself an error of
    the trace (STG604), met in turn once those above it are fixed."""
    assert_tiers("""
        import jax
        import jax.numpy as jnp


        @jax.jit
        def score(data, labels):
            unique_labels = jnp.unique(labels)  # STG604
            print("clusters", unique_labels)
            return data.sum()


        @jax.jit
        def picked(x):
            rows = jnp.where(x > 0)  # STG604
            print("rows", rows)
            cols = jnp.argwhere(x)  # STG604
            return x
    """)


def test_code_after_a_value_shaped_call_with_size_is_traced():
    """The negative twin: with a static `size=`, or `jnp.where` of three arguments, the call traces
    and the print after it runs while tracing."""
    assert_tiers("""
        import jax
        import jax.numpy as jnp


        @jax.jit
        def score(data, labels):
            unique_labels = jnp.unique(labels, size=4)
            print("clusters", unique_labels)  # STG101
            return data.sum()


        @jax.jit
        def picked(x):
            rows = jnp.where(x > 0, x, 0.0)
            print("rows", rows)  # STG101
            return jnp.nonzero(x, size=2)
    """)
