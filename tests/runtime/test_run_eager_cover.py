"""The eager run runs again only the tests a verdict needs (runtime/eagercover.py), and each run
ends its process once its record is complete when its tests passed."""

from __future__ import annotations

import json
import subprocess
import sys
import threading

from stagelint.runtime.eagercover import GraphFollower
from stagelint.runtime.records import load_run

PREFIX = "tests/runtime/fixtures/fx_eager_cover.py::"


def _statuses(run) -> dict[str, str]:
    return {nodeid.split("::")[-1]: run.test_status(nodeid) for nodeid in run.tests}


def test_a_test_that_staged_nothing_keeps_the_graph_runs_outcome(fixture_run):
    run = fixture_run("fx_eager_cover")
    eager = load_run(str(run.workdir / "eager.jsonl"), "eager")
    # Not run again: only that test (its call phase never ran eagerly: pytest skipped it at setup).
    assert [n.split("::")[-1] for n in eager.not_rerun] == ["test_stages_nothing"]
    assert _statuses(eager)["test_stages_nothing"] == "skipped"
    assert run.report["runs"]["eager"]["not_rerun"] == 1
    # In the report it has the graph run's outcome: no test whose outcome differs, no finding.
    assert not [m for m in run.report["mode_outcomes"] if m["test"].endswith("test_stages_nothing")]
    assert not run.report["findings"]


def test_staged_failing_and_unfinished_tests_are_run_again(fixture_run):
    run = fixture_run("fx_eager_cover")
    eager = _statuses(load_run(str(run.workdir / "eager.jsonl"), "eager"))
    assert eager["test_stages"] == "passed"  # a staged call in the graph run
    assert eager["test_fails_without_staging"] == "failed"  # failed in the graph run
    # The graph run stopped in this test (os._exit): the eager run cannot wait for it, and runs it
    # and every test after.
    assert run.report["runs"]["graph"]["status"] == "exited"
    assert eager["test_graph_run_stops_here"] == "passed"
    assert eager["test_after_the_graph_run_stopped"] == "passed"
    failing = [f for f in run.report["test_failures"] if f["test"].endswith("test_fails_without_staging")]
    assert failing and failing[0]["both"], run.report["test_failures"]


def test_a_run_whose_tests_passed_ends_once_its_record_is_complete(fixture_run):
    run = fixture_run("fx_eager_cover", "--", "-k", "stages")
    assert run.report["runs"]["graph"]["status"] == "ok" and run.report["runs"]["eager"]["status"] == "ok"
    assert run.report["runs"]["graph"]["tests"]["passed"] == 2
    for mode in ("graph", "eager"):
        out = (run.workdir / f"{mode}.out").read_text()
        assert out.rstrip().endswith(f"stagelint: the {mode} run ended once its record was complete"), out
        assert " passed in " not in out  # pytest's closing summary line: skipped
    # A run with a failure prints pytest's summary, tracebacks included.
    failed = fixture_run("fx_eager_cover")
    assert "1 failed" in (failed.workdir / "eager.out").read_text()


def _record(path, lines: list[dict]) -> None:
    path.write_text("".join(json.dumps(line, separators=(",", ":")) + "\n" for line in lines))


def test_the_follower_reads_the_graph_record_as_it_grows(tmp_path):
    record = tmp_path / "graph.jsonl"
    lines = [{"ev": "start", "mode": "graph"}, {"ev": "test", "i": 0, "nodeid": "m::a"},
             {"ev": "call", "t": 0, "fn": 0, "i": 0}, {"ev": "test", "i": 1, "nodeid": "m::b"},
             {"ev": "outcome", "nodeid": "m::b", "when": "call", "outcome": "passed"},
             {"ev": "test", "i": 2, "nodeid": "m::c"},
             {"ev": "outcome", "nodeid": "m::c", "when": "call", "outcome": "failed"},
             {"ev": "test", "i": 3, "nodeid": "m::d"}, {"ev": "reads", "t": 3, "name": "f", "api": "x"},
             {"ev": "test", "i": 4, "nodeid": "m::e"}]
    _record(record, lines)
    follower = GraphFollower(str(record), None)
    assert follower.needs("m::a") and not follower.needs("m::b") and follower.needs("m::c")
    assert follower.needs("m::d")
    # m::e is not finished and the graph run is alive: the follower waits (and says so once), until
    # the graph run's session ends.
    waited = []

    def end() -> None:
        with record.open("a") as f:
            f.write('{"ev":"end","exitstatus":0}\n')

    timer = threading.Timer(0.3, end)
    timer.start()
    assert not follower.needs("m::e", lambda: waited.append(1))
    timer.join()
    assert waited == [1]
    # A graph run that stopped in the middle of a test: that test and the ones it never reached run.
    _record(record, lines[:6])
    stopped = GraphFollower(str(record), _dead_pid())
    assert not stopped.needs("m::b") and stopped.needs("m::c") and stopped.needs("m::z")


def _dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()  # reaped: no process has this pid now
    return proc.pid
