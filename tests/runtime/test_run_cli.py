"""The `stagelint run` command: JSON contract, exit codes, full and HTML output, progress, usage errors."""

from __future__ import annotations

import os
import subprocess
import sys

import jsonschema
import pytest

from stagelint.runtime.cli import analyse
from stagelint.runtime.executor import RunStatus

#: spec/interfaces.md: these keys, named so; extra keys are allowed.
SCHEMA = {
    "type": "object",
    "required": ["module", "tests", "functions", "findings"],
    "properties": {
        "module": {"type": "string"},
        "tests": {"type": "object", "required": ["passed", "failed", "errors"],
                  "properties": {k: {"type": "integer"} for k in ("passed", "failed", "errors")}},
        "functions": {"type": "array", "items": {
            "type": "object", "required": ["name", "path", "line", "calls", "traces", "eager_vs_graph", "signatures"],
            "properties": {"name": {"type": "string"}, "path": {"type": "string"}, "line": {"type": "integer"},
                           "calls": {"type": "integer"}, "traces": {"type": "integer"},
                           "eager_vs_graph": {"enum": ["same", "differ", "not-compared"]},
                           "signatures": {"type": "array", "items": {"type": "string"}}}}},
        "findings": {"type": "array", "items": {
            "type": "object", "required": ["code", "name", "path", "line", "verdict", "evidence"],
            "properties": {"code": {"type": "string", "pattern": r"^STG\d{3}$"}, "name": {"type": "string"},
                           "path": {"type": "string"}, "line": {"type": "integer"},
                           "verdict": {"enum": ["confirmed", "not-reproduced", "not-exercised"]},
                           "evidence": {"type": "string", "minLength": 1}}}},
    },
}


@pytest.mark.tf
@pytest.mark.parametrize("name", ["fx_effects", "fx_state", "fx_retracing"])
def test_json_report_follows_the_interface(fixture_run, name):
    run = fixture_run(name)
    jsonschema.validate(run.report, SCHEMA)
    assert run.report["module"] == f"tests/runtime/fixtures/{name}.py"
    assert all(f["path"] == run.path for f in run.report["functions"])
    assert all("\n" not in f["evidence"] for f in run.report["findings"])
    runtime_only = [f for f in run.report["findings"] if f["code"].startswith("STG9")]
    assert all(f["verdict"] == "confirmed" and f["runtime_only"] for f in runtime_only)
    # Something is confirmed in each of these modules: exit code 1.
    assert run.exit_code == 1


@pytest.mark.tf
@pytest.mark.parametrize("name", ["fx_effects", "fx_state", "fx_retracing"])
def test_static_findings_on_marked_lines_get_the_marked_verdict(fixture_run, name):
    """End to end with the static engine: whatever it reports on a marked line, of the marked code,
    gets the marker's verdict."""
    run = fixture_run(name)
    assert "error" not in run.report["static"], run.report["static"]
    expected = {(line, code): verdict for line, code, verdict in run.marked()}
    static = [f for f in run.report["findings"] if not f["runtime_only"]]
    for f in static:
        if (f["line"], f["code"]) in expected:
            assert f["verdict"] == expected[(f["line"], f["code"])], f


@pytest.mark.tf
@pytest.mark.parametrize("name,codes", [("fx_effects", {"STG101", "STG102", "STG103", "STG104", "STG105"}),
                                        ("fx_state", {"STG201", "STG202", "STG301", "STG302", "STG303", "STG401",
                                                      "STG402", "STG403", "STG601", "STG602", "STG603"}),
                                        ("fx_retracing", {"STG501", "STG503"})])
def test_engine_findings_are_confirmed(fixture_run, name, codes):
    """The rules the static engine has today, confirmed end to end on the fixtures' marked lines."""
    run = fixture_run(name)
    confirmed = {(f["code"], f["line"]) for f in run.report["findings"] if f["verdict"] == "confirmed"}
    marked = {(code, line) for line, code, v in run.marked() if v == "confirmed"}
    assert {code for code, _ in confirmed & marked} >= codes


@pytest.mark.tf
def test_clean_run_full_output_progress_and_html(tmp_path, repo_root):
    """Also the two-subprocess path that replaces the fork server off Linux (STAGELINT_RUN_FORK=0)."""
    html = tmp_path / "report.html"
    proc = subprocess.run(
        [sys.executable, "-m", "stagelint", "run", "tests/runtime/fixtures/fx_abort.py", "--report", str(html),
         "--", "-k", "first"], cwd=repo_root, capture_output=True, text=True, timeout=300,
        env={**os.environ, "STAGELINT_RUN_FORK": "0"})
    assert proc.returncode == 0, proc.stdout + proc.stderr
    out = proc.stdout
    assert "runs: graph: ok in" in out and "eager: ok in" in out
    assert "tests: 1 passed, 0 failed, 0 errors" in out
    assert "fx_abort.plus_one" in out
    assert "0 confirmed, 0 not reproduced, 0 not exercised; 0 runtime-only findings" in out
    assert "stagelint run: graph 1/1 tests ok, eager 1/1 tests ok" in proc.stderr
    page = html.read_text()
    assert page.startswith("<!DOCTYPE html>") and "fx_abort.plus_one" in page and "<script" not in page


@pytest.mark.tf
def test_select_and_ignore_apply_to_runtime_only_codes(fixture_run):
    run = fixture_run("fx_retracing")
    statuses = {m: RunStatus(m, r["status"], r["returncode"], r["seconds"], "", "")
                for m, r in run.report["runs"].items()}

    def codes(select, ignore=()):
        report = analyse(run.path, statuses, run.graph, run.eager, [], {}, select, ignore)
        return sorted({v.finding.code for v in report.verdicts})

    # Without static findings every divergence is runtime-only.
    assert codes(("STG",)) == ["STG901", "STG902", "STG903"]
    assert codes(("STG902",)) == ["STG902"]
    assert codes(("STG",), ("STG9",)) == []
    assert codes(("STG9",), ("STG903",)) == ["STG901", "STG902"]


def test_missing_module_is_a_usage_error(stagelint_cli):
    code, out, err = stagelint_cli(["tests/runtime/fixtures/no_such_module.py"])
    assert code == 2 and out == ""
    assert "no_such_module.py: no such test module" in err


def test_bad_option_is_a_usage_error(stagelint_cli):
    code, _, err = stagelint_cli(["tests/runtime/fixtures/fx_abort.py", "--output-format", "xml"])
    assert code == 2
    assert "invalid choice: 'xml'" in err


@pytest.mark.tf
def test_xdist_in_the_runs_is_refused(stagelint_cli):
    code, out, err = stagelint_cli(["tests/runtime/fixtures/fx_abort.py", "--", "-k", "first", "-n", "2"])
    assert code == 2 and out == ""
    # One line, with pytest's own words for why it stopped (its output is many lines).
    (message,) = [line for line in err.splitlines() if not line.startswith("stagelint run: graph ")]
    assert message == ("stagelint run: pytest did not start (exit code 4): ERROR: stagelint records one pytest "
                       "process: run it with -n 0 (or -p no:xdist)")


def test_unknown_options_go_to_pytest():
    from stagelint.runtime.cli import parse_args

    args, forwarded = parse_args(["t.py", "-k", "x", "--timeout", "9", "-x", "--", "--output-format", "y"])
    assert (args.test_module, args.timeout, args.output_format) == ("t.py", 9.0, "full")
    assert forwarded == ["-k", "x", "-x", "--output-format", "y"]


def test_an_unfinished_run_exits_2_even_with_confirmed_findings():
    """Its results are partial: a script must not take them for a complete run (exit 1)."""
    from stagelint.findings import Finding
    from stagelint.runtime.evidence import Evidence
    from stagelint.runtime.html import render_html
    from stagelint.runtime.records import Run
    from stagelint.runtime.report import Report
    from stagelint.runtime.verdicts import Verdict

    finding = Finding("STG101", "trace-time-side-effect", "m.py", 3, 5, 3, 9, "print")
    verdicts = [Verdict(finding, "confirmed", "line 3 ran 3× eager, 1× graph over 3 calls (1 trace)")]
    graph, eager = Run("graph"), Run("eager")

    def report(graph_status: RunStatus) -> Report:
        runs = {"graph": graph_status, "eager": RunStatus("eager", "ok", 0, 1.0, "", "")}
        return Report("m.py", runs, graph, eager, Evidence(graph, eager, []), verdicts, [], {})

    assert report(RunStatus("graph", "ok", 1, 1.0, "", "")).exit_code() == 1
    stopped = report(RunStatus("graph", "crashed", -11, 1.0, "", "", "SIGABRT", "m.py::test_x"))
    assert stopped.exit_code() == 2
    message = ("the graph run crashed (SIGABRT) during test_x; the eager run's results are complete; the report "
               "uses everything recorded before the stop")
    assert stopped.failure_message() == "stagelint run: " + message
    assert f"<strong>{message[0].upper() + message[1:]}.</strong>".replace("'", "&#x27;") in render_html(stopped)
