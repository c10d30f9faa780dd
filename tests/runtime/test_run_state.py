"""`stagelint run` on fixtures/fx_state.py: captured state, leaks, variables, recursion, `.numpy()`."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.tf


@pytest.fixture(scope="module")
def run(fixture_run):
    return fixture_run("fx_state")


@pytest.fixture(scope="module")
def verdicts(run):
    return run.judged()[0]


def _line(run, code: str, nth: int = 0) -> int:
    """The line of the nth marker of `code` in the fixture."""
    return [line for line, c, _ in run.marked() if c == code][nth]


def test_every_marked_finding_is_confirmed(run, verdicts):
    for line, code, expected in run.marked():
        assert verdicts[(line, code)].verdict == expected, (line, code, verdicts[(line, code)].evidence)


def test_stale_global_evidence(run, verdicts):
    assert verdicts[(_line(run, "STG301"), "STG301")].evidence == (
        "call 2 of `scale` in test_stale_global: eager 10.0, graph 2.0 (1 of 2 calls differ)")


def test_stale_attribute_evidence(run, verdicts):
    assert verdicts[(_line(run, "STG302"), "STG302")].evidence == (
        "call 2 of `apply` in test_stale_attribute: eager 6.0, graph 1.0 (1 of 2 calls differ)")


def test_keras_call_is_judged_through_keras_own_train_function(run, verdicts):
    # Two fits of 2 steps: the second fit reuses the trace made with scale 1.0.
    printed = verdicts[(_line(run, "STG101"), "STG101")].evidence
    assert printed.startswith(f"line {_line(run, 'STG101')} ran ")
    assert "over 4 calls (1 trace)" in printed
    stale = verdicts[(_line(run, "STG302", 1), "STG302")].evidence
    assert stale.startswith("call 3 of `TensorFlowTrainer._make_function.multi_step_on_iterator` in "
                            "test_keras_attribute_changed_between_fits: eager ")
    assert stale.endswith("(2 of 4 calls differ)")
    # Library functions are compared but not listed among the project's functions.
    assert not [f for f in run.report["functions"] if "multi_step_on_iterator" in f["name"]]


def test_global_variable_is_not_stale(run):
    fn = run.function("read_counter")
    assert (fn["calls"], fn["traces"], fn["eager_vs_graph"]) == (2, 1, "same")


def test_leaked_tensor_is_found_in_the_global(run, verdicts):
    evidence = verdicts[(_line(run, "STG201"), "STG201")].evidence
    assert evidence.startswith("after call 1 of `leaky` in test_leak (graph) global `leaked` held the symbolic tensor")
    assert "add:0" in evidence


def test_variable_creation_raises_in_graph_only(run, verdicts):
    evidence = verdicts[(_line(run, "STG402"), "STG402")].evidence
    assert "graph raised ValueError: tf.function only supports singleton tf.Variables" in evidence
    assert evidence.endswith("eager returned 2.0")


def test_failing_test_explained_by_a_confirmed_finding_is_not_a_runtime_only_finding(run):
    failures = {f["test"].rsplit("::", 1)[1]: f for f in run.report["test_failures"]}
    assert failures["test_variable_creation"]["modes"] == ["graph"]
    assert "singleton tf.Variables" in failures["test_variable_creation"]["graph"]
    _, extra = run.judged()
    assert not [v for v in extra if "test_variable_creation" in v.evidence]


def test_recursion_with_tensor_base_case_and_with_python_depth(run, verdicts):
    tensor_case = verdicts[(_line(run, "STG401", 0), "STG401")].evidence
    assert "graph raised RecursionError: maximum recursion depth exceeded" in tensor_case
    assert tensor_case.endswith("eager returned 24")
    python_case = verdicts[(_line(run, "STG401", 1), "STG401")].evidence
    assert python_case == "call 1 of `fact_py` in test_recursion_python_depth traced 5 times (once per recursion level)"


def test_numpy_on_symbolic_tensor(run, verdicts):
    evidence = verdicts[(_line(run, "STG601"), "STG601")].evidence
    assert "graph raised AttributeError: 'SymbolicTensor' object has no attribute 'numpy'" in evidence
    assert evidence.endswith("eager returned 3.0")


def test_no_runtime_only_findings_when_every_pitfall_is_marked(run):
    _, extra = run.judged()
    assert [(v.finding.code, v.evidence) for v in extra] == []
