"""Issue 13 point 7: the automatic timeout scales with what the tests need, and the progress line
names the test each run is in and the failures so far."""

from __future__ import annotations

from stagelint.runtime import executor


def test_a_run_making_progress_is_not_stopped_by_the_floor():
    # 20 minutes in, still writing records, the other run still going: not stopped.
    assert executor.auto_limit("graph", 1200.0, 5.0, {}) is None


def test_a_silent_run_is_stopped_as_hung():
    why = executor.auto_limit("graph", 400.0, executor.STALL + 1, {})
    assert why == f"stopped after 400 s, {executor.STALL:g} s without progress"


def test_the_limit_scales_with_the_other_run():
    # The graph run took 100 s: the eager run may take 6x that, never less than the floor.
    assert executor.auto_limit("eager", 590.0, 1.0, {"graph": 100.0}) is None
    assert executor.auto_limit("eager", 601.0, 1.0, {"graph": 100.0}) == "stopped after 600 s (6x the other run)"
    assert executor.auto_limit("eager", 299.0, 1.0, {"graph": 10.0}) is None
    assert executor.auto_limit("eager", 301.0, 1.0, {"graph": 10.0}) == "stopped after 300 s (6x the other run)"


def test_progress_names_the_current_test_and_the_failures(fixture_run):
    run = fixture_run("fx_retracing")
    lines = [ln for ln in run.stderr.splitlines() if ln.startswith("stagelint run: graph ")]
    collected = run.graph.collected
    # The last line: both runs done, with their failures; the current test is named while a run goes.
    failed = run.report["runs"]["graph"]["tests"]["failed"]
    assert failed and f"graph {collected}/{collected} tests, {failed} failed ok" in lines[-1], lines[-1]
    assert all(" (test_" in ln for ln in lines[:-1] if "/? tests" not in ln and " ok" not in ln), lines
