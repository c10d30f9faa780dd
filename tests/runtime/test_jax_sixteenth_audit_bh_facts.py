"""The sixteenth JAX audit's BH2, its facts observed with the real JAX (0.10.2) and Python: an
object of a plain class (hashed by identity) passed as a static argument is a new cache key each
time it is made, so a function making it anew traces the jitted function once per call of its
own; called once, it traces once. A module's top-level code, a script's `__main__` block among
it, runs once per process: a second import finds the module in `sys.modules`
(`analysis.repetition.runs_once`, STG505)."""

from __future__ import annotations

import functools
import importlib
import runpy
import sys

import pytest

jax = pytest.importorskip("jax")


class RecurrentFn:
    def __init__(self, depth):
        self.depth = depth


def _jitted(traces: list):
    @functools.partial(jax.jit, static_argnames=("recurrent_fn",))
    def run_search(x, recurrent_fn):
        traces.append(recurrent_fn.depth)
        return x * recurrent_fn.depth

    return run_search


def test_a_new_identity_hashed_static_object_per_call_traces_per_call_and_once_when_called_once():
    traces: list = []
    run_search = _jitted(traces)

    def test_search():
        recurrent_fn = RecurrentFn(3)  # equal depth, a new object: a new key
        return run_search(1.0, recurrent_fn=recurrent_fn)

    test_search()
    assert len(traces) == 1  # called once: one object, one trace
    test_search()
    test_search()
    assert len(traces) == 3  # called again: a trace per call

    reused: list = []
    run_again = _jitted(reused)
    one = RecurrentFn(3)
    for _ in range(3):
        run_again(1.0, recurrent_fn=one)
    assert len(reused) == 1  # the same object: one key, one trace


_SCRIPT = '''
import functools
import jax

CALLS.append("top")


class RecurrentFn:
    def __init__(self, depth):
        self.depth = depth


@functools.partial(jax.jit, static_argnames=("recurrent_fn",))
def run_search(x, recurrent_fn):
    TRACES.append(recurrent_fn.depth)
    return x * recurrent_fn.depth


def test_search():
    recurrent_fn = RecurrentFn(3)
    return run_search(1.0, recurrent_fn=recurrent_fn)


if __name__ == "__main__":
    test_search()
'''


def test_a_modules_top_level_code_runs_once_per_process(tmp_path, monkeypatch):
    path = tmp_path / "bh2_search.py"
    path.write_text(_SCRIPT)
    calls: list = []
    traces: list = []
    # run as a script: the `__main__` block calls the driver once, which traces once
    runpy.run_path(str(path), init_globals={"CALLS": calls, "TRACES": traces}, run_name="__main__")
    assert calls == ["top"] and traces == [3]

    # imported (twice): the top-level code runs once, and the `__main__` block not at all
    monkeypatch.syspath_prepend(str(tmp_path))
    import builtins

    monkeypatch.setattr(builtins, "CALLS", calls, raising=False)
    monkeypatch.setattr(builtins, "TRACES", traces, raising=False)
    try:
        first = importlib.import_module("bh2_search")
        second = importlib.import_module("bh2_search")
        assert first is second and calls == ["top", "top"] and traces == [3]
    finally:
        sys.modules.pop("bh2_search", None)
