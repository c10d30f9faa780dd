"""`stagelint run` on fixtures/fx_retracing.py: retracing, runtime-only findings, failing tests."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.tf


@pytest.fixture(scope="module")
def run(fixture_run):
    return fixture_run("fx_retracing")


@pytest.fixture(scope="module")
def judged(run):
    return run.judged()


def _line(run, code: str, nth: int = 0) -> int:
    return [line for line, c, _ in run.marked() if c == code][nth]


def test_every_marked_finding_is_confirmed(run, judged):
    verdicts, _ = judged
    for line, code, expected in run.marked():
        assert verdicts[(line, code)].verdict == expected, (line, code, verdicts[(line, code)].evidence)


def test_python_scalar_retracing_names_the_argument_and_values(run, judged):
    verdicts, _ = judged
    assert verdicts[(_line(run, "STG501"), "STG501")].evidence == (
        "6 calls, 6 traces; argument `step` took the Python values 0..5")
    fn = run.function("step_fn")
    assert (fn["calls"], fn["traces"]) == (6, 6)
    assert fn["signatures"][:2] == ["(x: float32[], step: int = 0)", "(x: float32[], step: int = 1)"]


def test_recreated_function_and_unrolled_loop(run, judged):
    verdicts, _ = judged
    assert verdicts[(_line(run, "STG502"), "STG502")].evidence == (
        "3 calls, 3 traces across 3 Function objects made from the same code")
    evidence = verdicts[(_line(run, "STG503"), "STG503")].evidence
    assert evidence.startswith("3 traces built graphs of ")
    sizes = [int(n) for n in evidence.split("graphs of ")[1].split(" ops")[0].split(", ")]
    assert sizes == sorted(sizes) and len(set(sizes)) == 3


def test_python_list_unrolled_into_the_graph(run, judged):
    """The guide's T58: the graph grows with the list (3 and 10 elements)."""
    verdicts, _ = judged
    evidence = verdicts[(_line(run, "STG503", 1), "STG503")].evidence
    small, big = (int(n) for n in evidence.removeprefix("2 traces built graphs of ").split(" ops")[0].split(", "))
    assert big > small
    fn = run.function("train")
    assert (fn["calls"], fn["traces"], fn["eager_vs_graph"]) == (2, 2, "same")


def test_runtime_only_findings_are_where_the_fixture_says(run, judged):
    _, extra = judged
    got = {(v.finding.line, v.finding.code) for v in extra if "fails only" not in v.evidence}
    assert got == run.runtime_marked()
    assert all(v.verdict == "confirmed" and v.runtime_only for v in extra)


def test_excessive_retracing_by_shape(run, judged):
    _, extra = judged
    (v,) = [v for v in extra if v.finding.code == "STG902"]
    assert v.evidence == ("6 calls, 6 traces; 5 retraces from the shape of `x` changing in dimension 0: give it "
                          "`input_signature=[tf.TensorSpec([None], tf.float32)]` (None where the size varies) or "
                          "`reduce_retracing=True`")


def test_divergence_no_finding_explains(run, judged):
    _, extra = judged
    (v,) = [v for v in extra if v.finding.code == "STG901"]
    assert v.evidence == ("call 2 of `shifted` in test_divergence_nobody_predicted: eager 4.0, graph 1.0 "
                          "(1 of 2 calls differ)")


def test_graph_only_error_of_a_call_and_of_a_test(run, judged):
    _, extra = judged
    errors = [v for v in extra if v.finding.code == "STG903"]
    call = next(v for v in errors if "checked_sqrt" in v.evidence)
    assert "graph raised OperatorNotAllowedInGraphError: Using a symbolic `tf.Tensor` as a Python `bool`" \
        in call.evidence
    assert "eager returned 2.0" in call.evidence
    test = next(v for v in errors if "fails only" in v.evidence)
    assert test.evidence.startswith("test `test_uses_leaked_tensor` fails only in graph mode: TypeError:")
    assert "SymbolicTensor" in test.evidence


def test_test_failing_in_both_modes_is_a_test_failure_not_a_finding(run, judged):
    failures = {f["test"].rsplit("::", 1)[1]: f for f in run.report["test_failures"]}
    assert failures["test_user_bug"]["modes"] == ["graph", "eager"]
    assert failures["test_user_bug"]["both"] is True
    _, extra = judged
    assert not [v for v in extra if "test_user_bug" in v.evidence]
    assert not [f for f in run.report["findings"] if "test_user_bug" in f["evidence"]]
    assert run.report["tests"] == {"passed": 8, "failed": 2, "errors": 0}


def test_padded_batches_confirm_the_static_shape_finding(run, judged):
    """STG506 (a `padded_batch` of varying lengths fed to a tf.function) is confirmed by the
    graph run's retraces, with the dimension that changed and the remedy."""
    verdicts, _ = judged
    verdict = verdicts[(_line(run, "STG506"), "STG506")]
    assert verdict.verdict == "confirmed"
    assert verdict.evidence.startswith("4 calls, 4 traces; 3 retraces from the shape of `tokens` changing in dimension 1")
    assert "input_signature" in verdict.evidence
