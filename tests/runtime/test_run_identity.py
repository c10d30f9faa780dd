"""A divergence explained by identity comparisons of traced arguments (haiku's `hk.jit` finds the
state a function changed with `a.current is not b.current`): jit passes every array argument as a
new tracer, so `is` is False under jit where, with jit disabled, the function compares the
caller's own objects. Not compared, listed as a note, exit code unchanged; the twins (module state
compared by identity, a stale value the test never asserts) stay STG901. Real JAX."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.jax

IDENTITY = ("the runs took different branches at line {line} of fx_jax_identity.py, whose condition compares a value "
            "handed to the function by identity (`is`): jit passes every array argument as a new tracer, so the "
            "comparison is False under jit, while with jit disabled the function gets the caller's own objects")


@pytest.fixture(scope="module")
def run(fixture_run):
    return fixture_run("fx_jax_identity")


def test_identity_of_traced_arguments_is_no_divergence(run):
    notes = {n["function"].rsplit(".", 1)[-1]: n for n in run.report["not_compared_calls"]}
    # Through a predicate the condition calls (`_is_new(before, after)`), and in the condition itself.
    assert notes["update"]["reason"] == "`update`: " + IDENTITY.format(line=21)
    assert notes["update_inline"]["reason"] == "`update_inline`: " + IDENTITY.format(line=35)
    assert (notes["update"]["eager"], notes["update"]["graph"]) == ("([2.0, 2.0] float32[2], None)",
                                                                    "([2.0, 2.0] float32[2], 1)")


def test_the_twins_are_divergences(run):
    """Module state compared by identity (changed by a call the graph run served from its cache),
    and a stale value in a test that passes in both modes: a non-float divergence changes no test
    outcome here, yet it is the staging effect a user must see."""
    runtime = sorted((f["line"], f["code"]) for f in run.report["findings"] if f["runtime_only"])
    assert runtime == sorted(run.runtime_marked())
    assert len(runtime) == 2
    assert run.exit_code == 1
    assert not run.report["mode_outcomes"]
