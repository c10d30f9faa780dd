"""Test modules that crash, exit, hang, fail to import, flood their output or leave threads
running: the run is reported in one line, and what was recorded survives."""

from __future__ import annotations

import json
import os
import re

import pytest

from stagelint.runtime.capture import MAX_KEEP

pytestmark = pytest.mark.tf

#: Long enough for TensorFlow to import on a loaded machine, short enough for the suite.
HANG_TIMEOUT = "40"  # pytest must start within it, also on a loaded machine
MB = 1 << 20
PROGRESS = re.compile(r"^stagelint run: graph \S+ tests")


def _messages(run) -> list[str]:
    """What stagelint said on stderr, besides its progress line; never a traceback."""
    assert "Traceback" not in run.stderr, run.stderr
    return [line for line in run.stderr.splitlines() if line.strip() and not PROGRESS.match(line)]


def _first_test_survived(run) -> None:
    for mode in (run.graph, run.eager):
        calls = [c for c in mode.calls if c.fn[2] == "plus_one"]
        assert [(c.test.rsplit("::", 1)[1], c.index) for c in calls] == [("test_first", 0)]
        assert mode.test_status(calls[0].test) == "passed"


def test_segfault_is_reported_with_its_signal(fixture_run):
    run = fixture_run("fx_abort", "-k", "first or sys_exit or segfault")
    for mode in ("graph", "eager"):
        assert run.report["runs"][mode]["status"] == "crashed"
        assert run.report["runs"][mode]["detail"] == "SIGSEGV"
    _first_test_survived(run)
    # sys.exit() inside a test is a failing test (pytest catches SystemExit), in both modes.
    (failure,) = run.report["test_failures"]
    assert failure["test"].endswith("::test_sys_exit") and failure["modes"] == ["graph", "eager"]
    assert run.exit_code == 2
    assert _messages(run) == ["stagelint run: the graph and eager runs each crashed (SIGSEGV) during test_segfault; "
                              "the report uses everything recorded before the stop"]


def test_os_exit_is_reported_with_its_exit_code(fixture_run):
    run = fixture_run("fx_abort", "-k", "first or os_exit")
    for mode in ("graph", "eager"):
        status = run.report["runs"][mode]
        assert (status["status"], status["returncode"]) == ("exited", 7)
    _first_test_survived(run)
    assert run.report["functions"][0]["calls"] == 1
    assert run.exit_code == 2
    assert _messages(run) == ["stagelint run: the graph and eager runs each exited with code 7 during test_os_exit; "
                              "the report uses everything recorded before the stop"]


def test_hanging_module_is_stopped_by_the_timeout(fixture_run, tmp_path):
    run = fixture_run("fx_abort", "-k", "first or hang", "--timeout", HANG_TIMEOUT)
    for mode in ("graph", "eager"):
        status = run.report["runs"][mode]
        assert status["status"] == "timeout"
        assert status["detail"] == f"stopped after {HANG_TIMEOUT} s"
        assert float(HANG_TIMEOUT) <= status["seconds"] < float(HANG_TIMEOUT) + 10
        assert status["test"].endswith("::test_hang")
    _first_test_survived(run)
    assert run.exit_code == 2
    assert _messages(run) == [f"stagelint run: the graph and eager runs each timed out after {HANG_TIMEOUT} s during "
                              "test_hang; the report uses everything recorded before the stop"]


def test_killed_runs_leave_no_process_behind(fixture_run):
    run = fixture_run("fx_abort", "-k", "first or hang", "--timeout", HANG_TIMEOUT)
    pids = []
    for mode in ("graph", "eager"):
        path = os.path.join(os.path.dirname(run.graph_path), f"{mode}.jsonl")
        with open(path) as f:
            pids.append(json.loads(f.readline())["pid"])
    for pid in pids:
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)


def test_module_that_fails_to_import_is_reported_for_both_runs(fixture_run):
    run = fixture_run("fx_import_error")
    module = "tests/runtime/fixtures/fx_import_error.py"
    error = "RuntimeError: fx_import_error fails at import, on purpose"
    for mode in ("graph", "eager"):
        status = run.report["runs"][mode]
        # pytest: "Interrupted: 1 error during collection", exit code 2.
        assert (status["status"], status["returncode"]) == ("error", 2)
        assert status["detail"] == f"{module} failed to import: {error}"
    assert run.report["tests"] == {"passed": 0, "failed": 0, "errors": 1}
    assert run.report["test_failures"] == [{"test": module, "modes": ["graph", "eager"], "both": True,
                                            "when": "collect", "graph": error, "eager": error}]
    # What each run recorded before pytest gave up is there: its start, the error, its end.
    for mode in (run.graph, run.eager):
        assert mode.started and mode.ended and mode.collected == 0
        assert mode.collect_errors() == {module: error}
    assert _messages(run) == [f"stagelint run: {module} failed to import in both runs: {error}"]
    assert run.exit_code == 2


def test_megabytes_of_output_and_a_run_that_exits_in_one_mode(fixture_run):
    """20 MB from a test and 20 MB from a staged call (Python print and tf.print), with pytest's
    capture off (-s) so all of it reaches the run's output file; then the eager run exits."""
    run = fixture_run("fx_abort", "-k", "first or chatty or eager_mode_only", "-s")
    try:
        graph, eager = run.report["runs"]["graph"], run.report["runs"]["eager"]
        assert (graph["status"], graph["test"]) == ("ok", "")
        assert (eager["status"], eager["returncode"]) == ("exited", 9)
        assert eager["test"].endswith("::test_exit_in_eager_mode_only")
        # The graph run's results are complete; the eager run's are kept up to its exit.
        assert [run.graph.test_status(t) for t in run.graph.tests] == ["passed", "passed", "passed"]
        assert [run.eager.test_status(t) for t in run.eager.tests] == ["passed", "passed", "not-run"]
        _first_test_survived(run)
        for mode in (run.graph, run.eager):
            (call,) = [c for c in mode.calls if c.fn[2] == "shout"]
            assert call.result[0]["v"] == [4]
            # Only the head is kept in the record (Python's print first, then the fd-level tf.print).
            assert len(call.output) == MAX_KEEP + 3 and call.output.startswith("ppp") and call.output.endswith("...")
        assert run.function("shout")["eager_vs_graph"] == "same"
        # All 40 MB were passed on, into a file: nothing blocked on a full pipe.
        for mode in ("graph", "eager"):
            assert os.path.getsize(run.workdir / f"{mode}.out") > 40 * MB
        assert _messages(run) == ["stagelint run: the eager run exited with code 9 during "
                                  "test_exit_in_eager_mode_only; the graph run's results are complete; the report "
                                  "uses everything recorded before the stop"]
        assert run.exit_code == 2
    finally:
        for mode in ("graph", "eager"):  # 80 MB that pytest would keep with its last 3 sessions
            (run.workdir / f"{mode}.out").unlink(missing_ok=True)


def test_thread_left_running_does_not_keep_the_run_alive(fixture_run):
    """The interpreter waits for non-daemon threads at exit; with two plain subprocesses (no fork
    server, which exits without waiting anyway) the run would last until its timeout."""
    run = fixture_run("fx_abort", "-k", "first or lingering_thread", "--timeout", "120",
                      env={"STAGELINT_RUN_FORK": "0"})
    for mode in ("graph", "eager"):
        status = run.report["runs"][mode]
        assert (status["status"], status["returncode"], status["threads_left"]) == ("ok", 0, ["fx-forever"])
        assert status["seconds"] < 100
    for mode in (run.graph, run.eager):
        assert [run.graph.test_status(t) for t in mode.tests] == ["passed", "passed"]
        assert [c.index for c in mode.calls if c.fn[2] == "plus_one"] == [0, 0]
    assert _messages(run) == ["stagelint run: the tests left a non-daemon thread (`fx-forever`) running in the graph "
                              "and eager runs; stagelint ended the processes after the tests instead of waiting"]
    assert run.exit_code == 0


def test_two_runs_give_the_same_verdicts_and_evidence(fixture_run):
    """fx_effects draws NumPy and TensorFlow random numbers: the seeds make the runs repeatable."""
    first, second = fixture_run("fx_effects"), fixture_run("fx_effects", repeat=1)

    def outcome(run):
        report = run.report
        return ([(f["code"], f["line"], f["verdict"], f["evidence"]) for f in report["findings"]],
                report["functions"], report["test_failures"], report["tests"], run.exit_code)

    assert outcome(first) == outcome(second)
    assert len([f for f in first.report["findings"] if f["verdict"] == "confirmed"]) >= 5
