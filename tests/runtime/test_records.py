"""Reading records back: a run cut short keeps everything written before the cut."""

from __future__ import annotations

import json

from stagelint.runtime.records import load_run


def _line(**rec) -> str:
    return json.dumps(rec, separators=(",", ":")) + "\n"


def test_half_written_last_line_is_skipped(tmp_path):
    path = tmp_path / "graph.jsonl"
    path.write_text(
        _line(ev="start", mode="graph")
        + _line(ev="collected", n=2)
        + _line(ev="test", i=0, nodeid="m.py::test_a", loc=["/p/m.py", 3])
        + _line(ev="fn", id=0, path="/p/m.py", line=1, end=2, qualname="f", module="m", project=True, method=False)
        + _line(ev="file", id=0, path="/p/m.py")
        + _line(ev="call", t=0, fn=0, i=0, obj=0, traced=1, args=[["x", {"k": "py", "ty": "int", "s": "1"}]],
                site=[0, 3], res=[{"t": "num", "dt": "int32", "sh": [], "v": [2]}], lines={"0": {"2": 1}})
        + _line(ev="outcome", nodeid="m.py::test_a", when="call", outcome="passed")
        + '{"ev":"call","t":0,"fn":0,"i":1,"obj":0,"tra'
    )
    run = load_run(str(path), "graph")
    assert run.started and not run.ended and run.collected == 2
    (call,) = run.calls
    assert (call.test, call.fn, call.traced, call.site) == ("m.py::test_a", ("/p/m.py", 1, "f"), 1, ("/p/m.py", 3))
    assert call.lines == {("/p/m.py", 2): 1}
    assert run.test_status("m.py::test_a") == "passed"
    assert run.counts() == {"passed": 1, "failed": 0, "errors": 0}


def test_missing_record_is_an_empty_run(tmp_path):
    run = load_run(str(tmp_path / "none.jsonl"), "eager")
    assert not run.started and run.calls == [] and run.tests == []


def test_setup_error_and_failure_are_told_apart(tmp_path):
    path = tmp_path / "r.jsonl"
    path.write_text(
        _line(ev="test", i=0, nodeid="m.py::a") + _line(ev="test", i=1, nodeid="m.py::b")
        + _line(ev="outcome", nodeid="m.py::a", when="setup", outcome="failed", error="fixture broke")
        + _line(ev="outcome", nodeid="m.py::b", when="call", outcome="failed",
                error="ValueError: in user code:\n\n    ValueError: real cause")
    )
    run = load_run(str(path), "graph")
    assert run.test_status("m.py::a") == "error" and run.test_status("m.py::b") == "failed"
    assert run.failure("m.py::b") == "ValueError: real cause"
    assert run.counts() == {"passed": 0, "failed": 1, "errors": 1}
