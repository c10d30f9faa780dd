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


def test_accumulator_in_graph_loop_raises_or_holds_one_element(run, verdicts):
    used_after = verdicts[(_line(run, "STG202", 0), "STG202")].evidence
    assert used_after.startswith("call 1 of `squares` in test_accumulator_used_after_the_loop: graph raised "
                                 "InaccessibleTensorError: <tf.Tensor 'while/mul:0' shape=() dtype=int32> is out of "
                                 "scope and cannot be used here.")
    assert used_after.endswith("; eager returned [0, 1, 4] int32[3]")
    line = _line(run, "STG202", 1)
    assert verdicts[(line, "STG202")].evidence == (
        f"line {line} ran 3× eager, 1× graph over 1 call (1 trace); call 1 of `count_squares` in "
        "test_accumulator_length: eager 3, graph 1 (1 of 1 calls differ)")


def test_rebound_variables_leave_the_function_reading_the_old_one(run, verdicts):
    assert verdicts[(_line(run, "STG303", 0), "STG303")].evidence == (
        "call 2 of `evaluate` in test_variable_attribute_rebound: eager 25.0, graph 20.0 (1 of 2 calls differ)")
    assert verdicts[(_line(run, "STG303", 2), "STG303")].evidence == (
        "call 2 of `times_external` in test_global_variable_rebound: eager 16, graph 12 (1 of 2 calls differ)")


def test_variable_increment_is_judged_on_its_own_test(run, verdicts):
    """`model.bias += 5` raises RuntimeError in both modes (TF 2.21), so the second call never happens.
    `evaluate` diverges in another test, which must not confirm this finding."""
    v = verdicts[(_line(run, "STG303", 1), "STG303")]
    assert (v.verdict, v.evidence) == ("not-reproduced", "`evaluate` ran 1 call in both modes (1 trace); "
                                                         "the result matched")
    failures = {f["test"].rsplit("::", 1)[1]: f for f in run.report["test_failures"]}
    failure = failures["test_variable_attribute_incremented"]
    assert failure["both"] is True
    assert failure["graph"].startswith("RuntimeError: `variable += value` with `tf.Variable`s is not supported.")


def test_one_function_two_optimizers_raises_in_graph_only(run, verdicts):
    evidence = verdicts[(_line(run, "STG403"), "STG403")].evidence
    assert evidence.startswith("call 2 of `train_step` in test_one_function_two_optimizers: graph raised ValueError: "
                               "tf.function only supports singleton tf.Variables created on the first call.")
    assert evidence.endswith("; eager returned None")


def test_assert_on_a_tensor_raises_in_graph_only(run, verdicts):
    evidence = verdicts[(_line(run, "STG602"), "STG602")].evidence
    assert evidence.startswith("call 1 of `checked_double` in test_assert_on_tensor: graph raised "
                               "OperatorNotAllowedInGraphError: Using a symbolic `tf.Tensor` as a Python `bool` is "
                               "not allowed.")
    assert evidence.endswith("; eager returned 2.0")


def test_discarded_op_raises_in_eager_only(run, verdicts):
    evidence = verdicts[(_line(run, "STG603"), "STG603")].evidence
    assert evidence.startswith("call 1 of `unused_gather` in test_discarded_gather: eager raised InvalidArgumentError: ")
    assert "indices[0] = 1 is not in [0, 1)" in evidence
    assert evidence.endswith("; graph returned [0.0] float32[1] (the op was pruned)")


def test_tests_failing_in_one_mode_are_explained_by_their_findings(run):
    failures = {f["test"].rsplit("::", 1)[1]: f["modes"] for f in run.report["test_failures"]}
    assert failures == {"test_variable_creation": ["graph"], "test_accumulator_used_after_the_loop": ["graph"],
                        "test_variable_attribute_incremented": ["graph", "eager"],
                        "test_one_function_two_optimizers": ["graph"], "test_assert_on_tensor": ["graph"],
                        "test_discarded_gather": ["eager"]}


def test_keras_and_optimizers_leave_no_thread_behind(run):
    # The run ends its process itself only for threads tests left running; Keras leaves none.
    assert {mode: r["threads_left"] for mode, r in run.report["runs"].items()} == {"graph": [], "eager": []}


def test_no_runtime_only_findings_when_every_pitfall_is_marked(run):
    _, extra = run.judged()
    assert [(v.finding.code, v.evidence) for v in extra] == []
