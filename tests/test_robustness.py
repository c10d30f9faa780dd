"""Never crash, never lose, never run what we only read: `stagelint check` on bad input."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

import hypothesmith
import libcst as cst
import pytest
from hypothesis import HealthCheck, given, settings

from stagelint.config import Settings
from stagelint.engine import analyze_source, check_paths

STAGED_PRINT = "import tensorflow as tf\n\n@tf.function\ndef f(x):\n    print(x)\n"


#: Root reads any file: without these two capabilities it is refused a file of mode 0 like
#: anyone, and still reads the checkout and its virtual environment (which an unprivileged user
#: may not: a clone in a `mktemp -d` folder is the owner's only).
WITHOUT_DAC_OVERRIDE = ["setpriv", "--bounding-set=-dac_override,-dac_read_search",
                        "--inh-caps=-dac_override,-dac_read_search"]


def run(*args, cwd, unprivileged=False):
    cmd = [sys.executable, "-m", "stagelint", *args]
    if unprivileged and os.geteuid() == 0:
        cmd = [*WITHOUT_DAC_OVERRIDE, *cmd]
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=180, env=env)


def lines_codes(result):
    return sorted((Path(f.path).name, f.line, f.code) for f in result.findings)


@pytest.mark.parametrize("name,data", [
    ("bom.py", b"\xef\xbb\xbf" + STAGED_PRINT.encode()),
    ("crlf.py", STAGED_PRINT.replace("\n", "\r\n").encode()),
    ("cr.py", STAGED_PRINT.replace("\n", "\r").encode()),
    ("tabs_formfeed.py", b"import tensorflow as tf\n\x0c\n@tf.function\ndef f(x):\n\tprint(x)\n"),
    ("latin1_cookie.py", b"# -*- coding: latin-1 -*-\nimport tensorflow as tf\n\n@tf.function\ndef f(x):\n    print('\xe9')\n"),
])
def test_encodings_and_line_endings_are_read_like_python(tmp_path, monkeypatch, name, data):
    (tmp_path / name).write_bytes(data)
    monkeypatch.chdir(tmp_path)
    result = check_paths([name])
    expected_line = 6 if "cookie" in name else 5
    assert lines_codes(result) == [(name, expected_line, "STG101")]
    assert not result.errors and not result.skipped


def test_not_utf8_is_one_syntax_finding(tmp_path, monkeypatch):
    (tmp_path / "latin1.py").write_bytes(b"x = '\xe9'\n")
    (tmp_path / "ok.py").write_text(STAGED_PRINT)
    monkeypatch.chdir(tmp_path)
    result = check_paths(["."])
    assert lines_codes(result) == [("latin1.py", 1, "STG000"), ("ok.py", 5, "STG101")]
    assert "utf-8" in result.findings[0].message


def test_empty_file_and_directory_named_like_a_module(tmp_path, monkeypatch):
    (tmp_path / "empty.py").write_bytes(b"")
    (tmp_path / "pkg.py").mkdir()
    (tmp_path / "pkg.py" / "inner.py").write_text(STAGED_PRINT)
    monkeypatch.chdir(tmp_path)
    result = check_paths(["."])
    assert lines_codes(result) == [("inner.py", 5, "STG101")]
    assert result.files_checked == 2


def test_symlink_loop_terminates(tmp_path, monkeypatch):
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "m.py").write_text(STAGED_PRINT)
    os.symlink(tmp_path / "a", tmp_path / "a" / "again")  # a -> a/again -> a ...
    os.symlink("self", tmp_path / "self")  # a link to itself
    monkeypatch.chdir(tmp_path)
    result = check_paths(["."])
    assert lines_codes(result) == [("m.py", 5, "STG101")]


def test_missing_path_exit_2_and_the_rest_still_reported(tmp_path):
    (tmp_path / "ok.py").write_text(STAGED_PRINT)
    proc = run("check", "--output-format", "json", "ok.py", "nope.py", cwd=tmp_path)
    assert proc.returncode == 2
    assert "stagelint: error: nope.py: no such file or directory" in proc.stderr
    assert [(o["path"], o["code"]) for o in json.loads(proc.stdout)] == [("ok.py", "STG101")]


def test_unreadable_file_is_reported_and_the_rest_checked():
    root = Path(tempfile.mkdtemp(prefix="stagelint-perm-"))
    try:
        (root / "ok.py").write_text(STAGED_PRINT)
        secret = root / "secret.py"
        secret.write_text(STAGED_PRINT)
        secret.chmod(0)
        proc = run("check", "--output-format", "json", ".", cwd=root, unprivileged=True)
        assert proc.returncode == 2, proc.stderr
        assert "secret.py: cannot read: Permission denied" in proc.stderr
        assert [(o["path"], o["code"]) for o in json.loads(proc.stdout)] == [("ok.py", "STG101")]
    finally:
        shutil.rmtree(root, ignore_errors=True)


def test_parser_crash_on_deep_nesting_is_isolated(tmp_path):
    (tmp_path / "deep.py").write_text("x = " + "[" * 3000 + "]" * 3000 + "\n")
    (tmp_path / "ok.py").write_text(STAGED_PRINT)
    proc = run("check", "--output-format", "json", ".", cwd=tmp_path)
    assert proc.returncode == 2
    assert "deep.py: the analysis process died" in proc.stderr
    assert [(o["path"], o["code"]) for o in json.loads(proc.stdout)] == [("ok.py", "STG101")]


def test_long_operator_chain_and_large_file(tmp_path, monkeypatch):
    (tmp_path / "chain.py").write_text("x = 1" + " + 1" * 1500 + "\n" + STAGED_PRINT)
    body = "".join(f"def helper_{i}(x):\n    return x + {i}\n\n" for i in range(16_700))
    (tmp_path / "big.py").write_text(STAGED_PRINT + body)
    assert len((tmp_path / "big.py").read_text().splitlines()) > 50_000
    monkeypatch.chdir(tmp_path)
    result = check_paths(["."], jobs=2)
    assert not result.skipped and not result.errors, (result.skipped, result.errors)
    assert lines_codes(result) == [("big.py", 5, "STG101"), ("chain.py", 6, "STG101")]


def test_malformed_pyproject_names_the_file(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.stagelint\nselect = [\n")
    (tmp_path / "m.py").write_text("x = 1\n")
    proc = run("check", "m.py", cwd=tmp_path)
    assert proc.returncode == 2
    assert "pyproject.toml" in proc.stderr and "Traceback" not in proc.stderr


def test_wrong_type_in_config_names_the_key(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.stagelint]\nkeras-methods = "yes"\n')
    (tmp_path / "m.py").write_text("x = 1\n")
    proc = run("check", "m.py", cwd=tmp_path)
    assert proc.returncode == 2
    assert "keras-methods" in proc.stderr and "pyproject.toml" in proc.stderr


def test_check_never_imports_or_runs_the_code(tmp_path):
    marker = tmp_path / "was_run"
    (tmp_path / "evil.py").write_text(textwrap.dedent(f"""
        import sys
        open({str(marker)!r}, "w").write("imported")
        sys.exit(3)

        import tensorflow as tf

        @tf.function
        def f(x):
            print(x)
    """).lstrip())
    (tmp_path / "conftest.py").write_text(f"open({str(marker)!r}, 'w').write('conftest')\n")
    proc = run("check", "--output-format", "json", ".", cwd=tmp_path)
    assert proc.returncode == 1, proc.stderr
    assert [o["code"] for o in json.loads(proc.stdout)] == ["STG101"]
    assert not marker.exists()


CRASHING_RULE = """
import sys
from stagelint.rules.base import Rule
import stagelint.rules

class Crashes(Rule):
    code = "STG998"
    name = "crashes"
    message = "never shown"

    def visit_Call(self, node):
        if getattr(node.func, "value", None) == "boom":
            raise ValueError("rule bug")

from stagelint.cli import main
sys.exit(main(sys.argv[1:]))
"""


def test_internal_error_in_one_rule_is_reported_and_other_findings_kept(tmp_path):
    (tmp_path / "a.py").write_text(STAGED_PRINT + "\nboom()\n")
    (tmp_path / "b.py").write_text(STAGED_PRINT)
    script = tmp_path / "runner.py"
    script.write_text(CRASHING_RULE)
    args = [sys.executable, str(script), "check", "--output-format", "json", "a.py", "b.py"]
    proc = subprocess.run(args, cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2
    assert "internal error in STG998 on a.py" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert [(o["path"], o["code"]) for o in json.loads(proc.stdout)] == [("a.py", "STG101"), ("b.py", "STG101")]
    verbose = subprocess.run(args + ["--verbose"], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert "ValueError: rule bug" in verbose.stderr


@settings(max_examples=200, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
@given(source=hypothesmith.from_grammar())
def test_fuzz_valid_python_from_the_grammar(source):
    """No internal error, ever, on syntactically valid Python."""
    facts = analyze_source("fuzz.py", source.encode("utf-8"), Settings())
    assert not facts.errors, facts.errors


@settings(max_examples=100, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
@given(node=hypothesmith.from_node())
def test_fuzz_valid_python_from_the_cst(node):
    source = node if isinstance(node, str) else cst.Module([]).code_for_node(node)
    facts = analyze_source("fuzz.py", source.encode("utf-8"), Settings())
    assert not facts.errors, facts.errors
