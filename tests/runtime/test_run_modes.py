"""Issue 13 points 1-4: each run sees the command line plain pytest gives, holds its own mode
whatever the tests do with `tf.config.run_functions_eagerly`, keeps calls made inside a graph
staged, and compares both Keras generations' fit/evaluate/predict."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.tf


def _runtime_only(run) -> list[dict]:
    return [f for f in run.report["findings"] if f["runtime_only"]]


def test_tests_see_the_command_line_of_plain_pytest(fixture_run):
    run = fixture_run("fx_argv")
    for mode in ("graph", "eager"):
        assert run.report["runs"][mode]["tests"] == {"passed": 2, "failed": 0, "errors": 0}, run.report["test_failures"]
    assert not run.report["test_failures"]


@pytest.fixture(scope="module")
def mode_switch(fixture_run):
    return fixture_run("fx_mode_switch")


def test_runs_hold_their_mode_when_tests_switch_it(mode_switch):
    # Every call of the graph run was staged and every call of the eager run ran eagerly.
    assert all(c.ran is None for c in (*mode_switch.graph.calls, *mode_switch.eager.calls))
    verdicts, _ = mode_switch.judged()
    line = mode_switch.marked()[0][0]
    evidence = verdicts[(line, "STG301")].evidence
    assert verdicts[(line, "STG301")].verdict == "confirmed", evidence
    # Both fixture variants diverge: the stale global is seen whatever the test asked for.
    differ = {p.graph.test.rsplit("::", 1)[1] for p in mode_switch.judged_pairs() if p.kind == "differ"}
    assert {"test_scale_changes_between_calls[eager_mode]", "test_scale_changes_between_calls[tf_function]"} <= differ


def test_calls_made_while_the_test_asked_for_eager_are_flagged(mode_switch):
    asked = {c.test.rsplit("::", 1)[1] for c in mode_switch.graph.calls if c.asked == "eager"}
    assert asked == {"test_scale_changes_between_calls[eager_mode]"}


def test_calls_inside_a_graph_stay_staged_and_a_saved_model_finds_its_functions(fixture_run):
    run = fixture_run("fx_in_graph")
    for mode in ("graph", "eager"):
        assert run.report["runs"][mode]["tests"] == {"passed": 2, "failed": 0, "errors": 0}, run.report["test_failures"]
    assert not _runtime_only(run)
    inside = [c for c in run.eager.calls if c.fn[2] == "halve_or_negate"]
    assert inside and all(c.in_graph for c in inside)
    assert run.function("halve_or_negate")["eager_vs_graph"] == "not-compared"


@pytest.fixture(scope="module")
def keras_run(fixture_run):
    return fixture_run("fx_keras_generations")


@pytest.mark.parametrize("generation, train, test, predict", [
    ("keras2", "Model.make_train_function.<locals>.train_function",
     "Model.make_test_function.<locals>.test_function", "Model.make_predict_function.<locals>.predict_function"),
    ("keras3", "TensorFlowTrainer._make_function.<locals>.multi_step_on_iterator", None,
     "TensorFlowTrainer.make_predict_function.<locals>.one_step_on_data_distributed"),
])
def test_fit_evaluate_predict_are_joined_for_both_keras_generations(keras_run, generation, train, test, predict):
    nodeid = f"tests/runtime/fixtures/fx_keras_generations.py::test_{generation}_fit_evaluate_predict"
    pairs = [p for p in keras_run.judged_pairs() if p.graph.test == nodeid]
    # fit: 2 epochs of 2 steps; evaluate: 2 steps; predict: 2 steps.
    assert len(pairs) == 8, [p.graph.fn for p in pairs]
    assert {p.kind for p in pairs} <= {"same", "shapes-same"}, [(p.kind, p.detail) for p in pairs]
    names = {p.graph.fn[2] for p in pairs}
    for name in (train, test, predict):
        if name is not None:
            assert name.replace(".<locals>", "") in names, names


def test_trace_time_print_in_a_layer_is_confirmed_in_both_generations(keras_run):
    verdicts, _ = keras_run.judged()
    for line, code, expected in keras_run.marked():
        assert verdicts[(line, code)].verdict == expected, (line, verdicts[(line, code)].evidence)
        assert verdicts[(line, code)].evidence.startswith(f"line {line} ran 8× eager, ")
