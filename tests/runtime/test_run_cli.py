"""The `stagelint run` command: JSON contract, exit codes, full and HTML output, progress, usage errors."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import jsonschema
import pytest

from stagelint.runtime.steps import analyse
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
        [sys.executable, "-m", "stagelint", "run", "tests/runtime/fixtures/fx_abort.py::test_first", "--report",
         str(html)], cwd=repo_root, capture_output=True, text=True, timeout=300,
        env={**os.environ, "STAGELINT_RUN_FORK": "0"})
    assert proc.returncode == 0, proc.stdout + proc.stderr
    out = proc.stdout
    assert "runs: graph: ok in" in out and "eager: ok in" in out
    assert "tests: 1 passed, 0 failed, 0 errors" in out
    assert "fx_abort.plus_one" in out
    assert "0 confirmed, 0 not reproduced, 0 not exercised; 0 runtime-only findings" in out
    assert "stagelint run: graph 1/1 tests ok, eager 1/1 tests ok" in proc.stderr
    assert f"stagelint run: HTML report written to {html}" in proc.stderr.splitlines()
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


def test_pytest_arguments_are_split_from_the_tests_and_stagelint_options():
    from stagelint.runtime.arguments import parse

    args = parse(["tests/runtime/fixtures/fx_abort.py::test_first", "tests/runtime/fixtures", "-k", "train and not x",
                  "--timeout", "9", "-m", "not slow", "-x", "--deselect", "tests/runtime/fixtures/fx_state.py",
                  "--tb=short", "--", "--output-format", "y"])
    assert args.targets == ["tests/runtime/fixtures/fx_abort.py::test_first", "tests/runtime/fixtures"]
    assert (args.timeout, args.output_format) == (9.0, "full")
    assert args.pytest_args == ["-k", "train and not x", "-m", "not slow", "-x", "--deselect",
                                "tests/runtime/fixtures/fx_state.py", "--tb=short", "--output-format", "y"]
    assert args.module == "tests/runtime/fixtures/fx_abort.py::test_first tests/runtime/fixtures"


def test_preview_is_stagelints_option_and_not_pytests():
    from stagelint.runtime.arguments import parse

    target = "tests/runtime/fixtures/fx_abort.py"
    assert parse([target, "--preview", "-x"]).preview is True
    assert parse(["--no-preview", target]).preview is False
    unset = parse([target, "-x"])
    assert unset.preview is None and unset.pytest_args == ["-x"]  # None: the configuration decides
    assert parse(["--script", target, "--preview"]).preview is True


def test_a_directory_target_lints_its_test_modules(repo_root):
    from stagelint.runtime.arguments import test_files

    here = os.getcwd()
    os.chdir(repo_root)
    try:
        files = test_files(["tests/runtime", "tests/runtime/fixtures/fx_state.py::test_leak"])
    finally:
        os.chdir(here)
    assert "tests/runtime/test_run_cli.py" in files
    assert "tests/runtime/fixtures/fx_state.py" in files
    # pytest's default patterns only: fixtures are `fx_*.py`, conftest is not a test module.
    assert not any(f.endswith(("fx_abort.py", "conftest.py")) for f in files)


@pytest.mark.parametrize("extra,message", [
    (["-n", "2"], "-n 2 cannot be honoured: stagelint records one pytest process per mode"),
    (["-n2"], "-n 2 cannot be honoured"),
    (["-nauto"], "-n auto cannot be honoured"),
    (["--numprocesses=4"], "--numprocesses 4 cannot be honoured"),
    (["-p", "xdist"], "-p xdist cannot be honoured: stagelint records one pytest process per mode"),
    (["--dist", "load"], "--dist load cannot be honoured"),
    (["--", "-n", "2"], "-n 2 cannot be honoured"),
    (["--lf"], "--lf cannot be honoured: stagelint runs pytest without its cache"),
    (["--collect-only"], "--collect-only cannot be honoured: it runs no tests"),
    (["--pdb"], "--pdb cannot be honoured: the runs have no terminal to debug in"),
])
def test_options_it_cannot_honour_are_refused_before_any_run(stagelint_cli, monkeypatch, extra, message):
    from stagelint.runtime import executor

    started = []
    monkeypatch.setattr(executor, "start_runs", lambda *a: started.append(a))
    code, out, err = stagelint_cli(["tests/runtime/fixtures/fx_abort.py", *extra])
    assert (code, out, started) == (2, "", [])
    (line,) = err.splitlines()
    assert line.startswith("stagelint run: " + message), line


def test_with_pyargs_the_targets_are_package_names():
    from stagelint.runtime.arguments import UsageError, parse

    assert parse(["mypackage.tests", "--pyargs"]).targets == ["mypackage.tests"]
    with pytest.raises(UsageError, match="mypackage.tests: no such file or directory"):
        parse(["mypackage.tests"])


def test_xdist_off_is_allowed():
    from stagelint.runtime.arguments import refused

    assert refused(["-n", "0"]) is None and refused(["-n0"]) is None and refused(["--numprocesses=0"]) is None
    assert refused(["-p", "no:randomly", "-k", "first", "-x"]) is None


@pytest.mark.parametrize("targets,message", [
    (["tests/runtime/fixtures/nothing_here/"], "tests/runtime/fixtures/nothing_here/: no such file or directory"),
    (["tests/runtime/fixtures/fx_none.py::test_a"], "tests/runtime/fixtures/fx_none.py: no such test module"),
    (["tests/runtime/fixtures::test_a"], "tests/runtime/fixtures::test_a: a node id names a test file"),
    ([], "name the tests to run"),
])
def test_test_paths_are_checked_before_any_run(stagelint_cli, monkeypatch, targets, message):
    from stagelint.runtime import executor

    started = []
    monkeypatch.setattr(executor, "start_runs", lambda *a: started.append(a))
    code, out, err = stagelint_cli([*targets, "-k", "first"])
    assert (code, out, started) == (2, "", [])
    assert err.startswith("stagelint run: " + message), err


def test_report_that_cannot_be_written_is_refused_before_any_run(stagelint_cli, monkeypatch, tmp_path):
    from stagelint.runtime import executor

    started = []
    monkeypatch.setattr(executor, "start_runs", lambda *a: started.append(a))
    for report, message in [(tmp_path / "missing" / "r.html", "does not exist"),
                            (tmp_path, "is a directory; name the HTML file to write")]:
        code, out, err = stagelint_cli(["tests/runtime/fixtures/fx_abort.py", "--report", str(report)])
        assert (code, out, started) == (2, "", [])
        assert err.startswith(f"stagelint run: --report {report}: ") and message in err, err
    if os.geteuid() != 0:  # root may write anywhere: this part needs an ordinary user
        locked = tmp_path / "locked"
        locked.mkdir(mode=0o500)
        code, _, err = stagelint_cli(["tests/runtime/fixtures/fx_abort.py", "--report", str(locked / "r.html")])
        assert code == 2 and "is not writable" in err, err


@pytest.mark.tf
def test_xdist_added_by_the_configuration_is_refused_by_the_plugin(tmp_path):
    """`-n` that comes from the project's pytest configuration (not the command line) still stops
    the runs before any test, with pytest's own words."""
    (tmp_path / "pytest.ini").write_text("[pytest]\naddopts = -n 2\n")
    (tmp_path / "test_a.py").write_text("def test_a():\n    pass\n")
    proc = subprocess.run([sys.executable, "-m", "stagelint", "run", "test_a.py"], cwd=tmp_path, capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 2 and proc.stdout == "", proc.stdout + proc.stderr
    (message,) = [line for line in proc.stderr.splitlines() if not line.startswith("stagelint run: graph ")]
    assert message == ("stagelint run: pytest did not start (exit code 4): ERROR: stagelint records one pytest "
                       "process: run it with -n 0 (or -p no:xdist)")


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


# The project's own files must not replace the standard library ------------------------------------

SHADOWING = {name: f"raise RuntimeError('the project\\'s {name} was imported')\n"
             for name in ("random.py", "timeit.py")}


def test_processes_started_for_a_run_keep_the_standard_library_first(tmp_path):
    """`python -m` would import the project's random.py in place of the standard library's; the
    command the runs start with puts the working directory after it (still importable)."""
    from stagelint.runtime.safepath import python_command

    for name, text in SHADOWING.items():
        (tmp_path / name).write_text(text)
    (tmp_path / "probe.py").write_text("import random, tempfile, timeit, sys\nprint(random.__file__, sys.argv[1:])\n")
    proc = subprocess.run(python_command("probe", ["a", "--b"], cwd=str(tmp_path)), cwd=tmp_path,
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    where, args = proc.stdout.split(" ", 1)
    assert not where.startswith(str(tmp_path)) and where.endswith("random.py")
    assert args.strip() == "['a', '--b']"


def test_python_m_stagelint_keeps_the_standard_library_first(tmp_path):
    """`python -m stagelint` itself (the parent, which imports tempfile and so random) does not run
    the project's random.py either."""
    for name, text in SHADOWING.items():
        (tmp_path / name).write_text(text)
    proc = subprocess.run([sys.executable, "-m", "stagelint", "run", "missing_test.py"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120)
    assert (proc.returncode, proc.stdout) == (2, "")
    assert proc.stderr == "stagelint run: missing_test.py: no such test module\n"


def _project(root) -> None:
    for name, text in SHADOWING.items():
        (root / name).write_text(text)
    (root / "pytest.ini").write_text("[pytest]\nmarkers =\n    slow: a slow test\n")
    (root / "tests" / "sub").mkdir(parents=True)
    (root / "tests" / "test_one.py").write_text(
        "import pytest\nimport tensorflow as tf\n\n\n@tf.function\ndef double(x):\n    return x * 2\n\n\n"
        "def test_plain():\n    assert int(double(tf.constant(2))) == 4\n\n\n"
        "@pytest.mark.slow\ndef test_slow():\n    assert int(double(tf.constant(3))) == 6\n\n\n"
        "class TestGroup:\n    def test_b(self):\n        assert int(double(tf.constant(1))) == 2\n\n"
        "    def test_c(self):\n        assert int(double(tf.constant(5))) == 10\n\n\n"
        "class DoubleTest(tf.test.TestCase):\n    def test_double(self):\n"
        "        self.assertAllEqual(double(tf.constant(4)), 8)\n")
    (root / "tests" / "sub" / "test_two.py").write_text(
        "import tensorflow as tf\n\n\n@tf.function\ndef triple(x):\n    print('traced')\n    return x * 3\n\n\n"
        "def test_triple():\n    assert int(triple(tf.constant(1))) == 3\n\n\n"
        "def test_skipme():\n    assert int(triple(tf.constant(2))) == 6\n")
    (root / "test_root.py").write_text(
        "import tensorflow as tf\n\n\n@tf.function\ndef plus(x):\n    return x + 1\n\n\n"
        "def test_plus():\n    assert int(plus(tf.constant(1))) == 2\n")


@pytest.mark.tf
def test_node_ids_directories_k_and_m_beside_files_that_shadow_the_standard_library(tmp_path):
    """As pytest takes them: a directory, node ids (a function, a class, a method), -k and -m; from a
    project whose random.py and timeit.py raise when imported; tf.test.TestCase's own `test_session`
    is not a test of the project."""
    _project(tmp_path)
    proc = subprocess.run(
        [sys.executable, "-m", "stagelint", "run", "tests/sub", "tests/test_one.py::TestGroup::test_b",
         "tests/test_one.py::DoubleTest", "tests/test_one.py::test_plain", "tests/test_one.py::test_slow",
         "-m", "not slow", "-k", "not skipme", "--output-format", "json"],
        cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert proc.stdout, proc.stderr
    report = json.loads(proc.stdout)
    assert report["runs"]["graph"]["status"] == report["runs"]["eager"]["status"] == "ok", report["runs"]
    assert report["tests"] == {"passed": 4, "failed": 0, "errors": 0}
    assert report["runs"]["eager"]["tests"] == {"passed": 4, "failed": 0, "errors": 0}
    assert sorted(f["name"] for f in report["functions"]) == ["test_one.double", "test_two.triple"]
    assert sorted(report["static"]["files"]) == ["tests/sub/test_two.py", "tests/test_one.py"]
    assert [(f["code"], f["line"]) for f in report["findings"]] == [("STG101", 6)]
    assert "graph 4/4 tests ok, eager 4/4 tests ok" in proc.stderr


@pytest.mark.tf
def test_a_test_module_beside_the_shadowing_files_without_the_fork_server(tmp_path):
    _project(tmp_path)
    proc = subprocess.run([sys.executable, "-m", "stagelint", "run", "test_root.py"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=600, env={**os.environ, "STAGELINT_RUN_FORK": "0"})
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "tests: 1 passed, 0 failed, 0 errors" in proc.stdout and "test_root.plus" in proc.stdout


@pytest.mark.tf
def test_project_code_run_by_keras_fit_is_listed_under_its_train_function(fixture_run):
    run = fixture_run("fx_state")
    (row,) = [f for f in run.report["functions"] if f.get("via")]
    assert row["name"] == "fx_state.Scaled.call" and row["line"] == 133
    assert row["via"].endswith("multi_step_on_iterator")
    # Two fits of 2 batches: 4 calls of the train function; graph mode traced `call` once.
    assert (row["calls"], row["traces"], row["eager_vs_graph"]) == (4, 1, "differ")
