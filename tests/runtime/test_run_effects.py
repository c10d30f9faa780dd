"""`stagelint run` on fixtures/fx_effects.py: Python effects (STG1xx), a random and a clean function."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.tf


@pytest.fixture(scope="module")
def run(fixture_run):
    return fixture_run("fx_effects")


def test_every_marked_finding_gets_its_verdict(run):
    verdicts, _ = run.judged()
    for line, code, expected in run.marked():
        assert verdicts[(line, code)].verdict == expected, (line, code, verdicts[(line, code)].evidence)


def test_print_evidence_counts_lines_and_output(run):
    verdicts, _ = run.judged()
    print_line = next(line for line, code, v in run.marked() if code == "STG101" and v == "confirmed")
    assert verdicts[(print_line, "STG101")].evidence == (
        f"line {print_line} ran 3× eager, 1× graph over 3 calls (1 trace); output at 3 of 3 calls eager, 1 graph")


def test_append_evidence(run):
    verdicts, _ = run.judged()
    line = next(line for line, code, _ in run.marked() if code == "STG102")
    assert verdicts[(line, "STG102")].evidence.startswith(f"line {line} ran 3× eager, 1× graph over 3 calls")


def test_frozen_iterator_and_random_values_differ_after_the_first_call(run):
    verdicts, _ = run.judged()
    iterator = next(line for line, code, _ in run.marked() if code == "STG103")
    assert "call 2 of `consume` in test_python_iterator: eager 2, graph 1 (2 of 3 calls differ)" in \
        verdicts[(iterator, "STG103")].evidence
    frozen = next(line for line, code, _ in run.marked() if code == "STG104")
    assert "call 2 of `jitter`" in verdicts[(frozen, "STG104")].evidence
    assert "(2 of 3 calls differ)" in verdicts[(frozen, "STG104")].evidence


def test_counter_guard_runs_the_guarded_op_on_every_call(run):
    """The guide's T30: graph returns 1, 2, 3 where the Python code (eager) returns 1, 1, 1."""
    verdicts, _ = run.judged()
    guard = next(line for line, code, _ in run.marked() if code == "STG105")
    assert verdicts[(guard, "STG105")].evidence == (
        f"line {guard} ran 3× eager, 1× graph over 3 calls (1 trace); call 2 of `Counter.__call__` in "
        "test_counter_guard: eager 1, graph 2 (2 of 3 calls differ)")
    for mode, expected in ((run.graph, [1, 2, 3]), (run.eager, [1, 1, 1])):
        calls = [c for c in mode.calls if c.fn[2] == "Counter.__call__"]
        assert [c.result[0]["v"][0] for c in calls] == expected
    # The mutation under the guard runs once in both modes: the guard, not the mutation, diverges.
    mutation = next(line for line, code, v in run.marked() if code == "STG102" and v == "not-reproduced")
    assert verdicts[(mutation, "STG102")].evidence == (
        "`Counter.__call__` ran 3 calls in both modes (1 trace); results matched at 1 of 3 calls")


def test_return_lines_count_once_per_trace_in_graph_mode(run):
    """AutoGraph expands `return next(iterator)` into two generated lines: still one execution."""
    verdicts, _ = run.judged()
    iterator = next(line for line, code, _ in run.marked() if code == "STG103")
    assert verdicts[(iterator, "STG103")].evidence.startswith(
        f"line {iterator} ran 3× eager, 1× graph over 3 calls (1 trace); ")


def test_not_reproduced_and_not_exercised_say_why(run):
    verdicts, _ = run.judged()
    by_verdict = {v: verdicts[(line, code)].evidence for line, code, v in run.marked()
                  if v != "confirmed" and code == "STG101"}
    assert by_verdict["not-reproduced"] == "`traced_once` ran 1 call in both modes (1 trace); the result matched"
    assert "never called" in by_verdict["not-exercised"]


def test_stateful_random_function_is_compared_by_shape_only(run):
    fn = run.function("dropout_like")
    assert (fn["calls"], fn["eager_vs_graph"]) == (3, "same")
    assert fn["compared"] == "shapes and dtypes (stateful random ops)"
    _, extra = run.judged()
    assert not [v for v in extra if v.finding.function == "dropout_like"]


def test_clean_function_matches_and_tf_print_is_captured_at_fd_level(run):
    fn = run.function("clean_affine")
    assert (fn["calls"], fn["traces"], fn["eager_vs_graph"], fn["compared"]) == (3, 1, "same", "values")
    assert fn["signatures"] == ["(x: float32[])"]
    # tf.print writes from C++ to fd 2 on every call, in both modes.
    for mode in (run.graph, run.eager):
        calls = [c for c in mode.calls if c.fn[2] == "clean_affine"]
        assert [("clean_affine got" in c.output) for c in calls] == [True, True, True]


def test_no_unexpected_runtime_only_findings(run):
    _, extra = run.judged()
    assert {(v.finding.line, v.finding.code) for v in extra} == run.runtime_marked()


def test_report_counts(run):
    assert run.report["tests"] == {"passed": 7, "failed": 0, "errors": 0}
    assert {m: r["status"] for m, r in run.report["runs"].items()} == {"graph": "ok", "eager": "ok"}
