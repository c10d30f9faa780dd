"""Test modules that crash, exit or hang: the run is reported and what was recorded survives."""

from __future__ import annotations

import json
import os

import pytest

pytestmark = pytest.mark.tf

#: Long enough for TensorFlow to import on a loaded machine, short enough for the suite.
HANG_TIMEOUT = "15"


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


def test_os_exit_is_reported_with_its_exit_code(fixture_run):
    run = fixture_run("fx_abort", "-k", "first or os_exit")
    for mode in ("graph", "eager"):
        status = run.report["runs"][mode]
        assert (status["status"], status["returncode"]) == ("exited", 7)
    _first_test_survived(run)
    assert run.report["functions"][0]["calls"] == 1
    assert run.exit_code == 2


def test_hanging_module_is_stopped_by_the_timeout(fixture_run, tmp_path):
    run = fixture_run("fx_abort", "-k", "first or hang", "--timeout", HANG_TIMEOUT)
    for mode in ("graph", "eager"):
        status = run.report["runs"][mode]
        assert status["status"] == "timeout"
        assert status["detail"] == f"stopped after {HANG_TIMEOUT} s"
        assert float(HANG_TIMEOUT) <= status["seconds"] < float(HANG_TIMEOUT) + 10
    _first_test_survived(run)
    assert run.exit_code == 2


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
