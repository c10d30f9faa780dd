"""Issue 13 point 5: tests whose outcome differs between the runs are reported, and a side effect
that ran more often in graph mode (a call that traced twice to create its variables) is evidence."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.tf


@pytest.fixture(scope="module")
def run(fixture_run):
    return fixture_run("fx_one_mode")


def test_a_test_skipped_in_one_run_only_is_reported(run):
    outcomes = run.report["mode_outcomes"]
    assert [(o["test"].rsplit("::", 1)[1], o["graph"], o["eager"]) for o in outcomes] == [
        ("test_skipped_in_the_eager_run_only", "passed", "skipped")]


def test_the_verdict_says_why_only_one_run_called_the_code(run):
    verdicts, _ = run.judged()
    line = [line for line, code, verdict in run.marked() if verdict == "not-exercised"][0]
    assert verdicts[(line, "STG101")].evidence == (
        "calls reached only the graph run (graph 1, eager 0): test_skipped_in_the_eager_run_only was skipped in "
        "the eager run")


def test_a_side_effect_that_ran_more_often_in_graph_confirms(run):
    verdicts, extra = run.judged()
    line = [line for line, code, verdict in run.marked() if verdict == "confirmed"][0]
    assert verdicts[(line, "STG101")].verdict == "confirmed"
    assert verdicts[(line, "STG101")].evidence == f"line {line} ran 1× eager, 2× graph over 1 call (2 traces)"
    assert {(v.finding.line, v.finding.code) for v in extra} == run.runtime_marked()


def test_the_full_report_lists_the_differing_outcomes(run, stagelint_cli):
    code, out, _ = stagelint_cli(["tests/runtime/fixtures/fx_one_mode.py"])
    assert "Tests whose outcome differs between the runs\n" in out
    assert "fx_one_mode.py::test_skipped_in_the_eager_run_only: graph passed, eager skipped" in out
