"""The command line as users run it: real subprocesses of `python -m stagelint`."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "train_pitfalls.py"
JSON_KEYS = ["code", "name", "path", "line", "column", "end_line", "end_column", "message",
             "function", "entry_point", "fixable", "cell", "url", "fix", "because"]


def run(*args, cwd=ROOT):
    return subprocess.run([sys.executable, "-m", "stagelint", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=120)


def write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(textwrap.dedent(text).lstrip("\n"))
    return path


def test_check_the_bundled_example_full_output():
    proc = run("check", "examples/train_pitfalls.py")
    assert proc.returncode == 1, proc.stderr
    out = proc.stdout
    assert "examples/train_pitfalls.py:14:5: STG101 [trace-time-side-effect]" in out
    assert '14 |     print("loss:", loss)' in out
    assert "   |     ^^^^^^^^^^^^^^^^^^^^ STG101" in out
    codes = {line.split()[1] for line in out.splitlines() if line.startswith("examples/")}
    # STG301: `main` calls `model.train_step` (a tf.function method) above its rebinding of
    # `scale` and again below it, in its own body: the second call reuses the trace
    assert {"STG101", "STG102", "STG201", "STG301", "STG401", "STG402"} <= codes
    assert "examples/train_pitfalls.py:26:58: STG301 [stale-global]" in out
    # print -> tf.print moves the output from stdout to stderr: an unsafe fix.
    assert out.rstrip().endswith(
        "Found 6 findings.\nNo fixes available (1 hidden fix can be enabled with the `--unsafe-fixes` option).")


def test_json_output_matches_the_interface():
    proc = run("check", "--output-format", "json", "examples/train_pitfalls.py")
    assert proc.returncode == 1
    data = json.loads(proc.stdout)
    assert isinstance(data, list) and data
    for obj in data:
        assert list(obj) == JSON_KEYS
        assert obj["path"] == "examples/train_pitfalls.py"  # as given: relative stays relative
        assert obj["line"] >= 1 and obj["column"] >= 1
        assert obj["end_line"] >= obj["line"]
    keys = [(o["path"], o["line"], o["column"], o["code"]) for o in data]
    assert keys == sorted(keys)
    leak = next(o for o in data if o["code"] == "STG201")
    assert (leak["function"], leak["entry_point"], leak["fixable"]) == ("log_loss", "Model.train_step", False)
    assert leak["name"] == "leaked-tensor"


def test_concise_output_and_clean_exit(tmp_path):
    clean = write(tmp_path, "clean.py", """
        import tensorflow as tf

        @tf.function
        def f(x):
            return x + 1
    """)
    proc = run("check", "--output-format", "concise", str(clean))
    assert proc.returncode == 0
    assert proc.stdout.strip() == "All checks passed!"


def test_select_and_ignore_prefixes():
    proc = run("check", "--output-format", "json", "--select", "STG1,STG4", "--ignore", "STG402", "examples/train_pitfalls.py")
    assert {o["code"] for o in json.loads(proc.stdout)} == {"STG101", "STG102", "STG401"}
    proc = run("check", "--select", "STG999x", "examples/")
    assert proc.returncode == 2 and "not a stagelint code" in proc.stderr


def test_syntax_error_is_one_finding_and_the_other_files_are_checked(tmp_path):
    write(tmp_path, "broken.py", "def f(:\n    pass\n")
    write(tmp_path, "ok.py", """
        import tensorflow as tf

        @tf.function
        def f(x):
            print(x)
    """)
    proc = run("check", "--output-format", "json", ".", cwd=tmp_path)
    assert proc.returncode == 1
    got = [(o["path"], o["line"], o["code"]) for o in json.loads(proc.stdout)]
    assert got == [("broken.py", 1, "STG000"), ("ok.py", 5, "STG101")]


def test_missing_path_is_a_usage_error(tmp_path):
    proc = run("check", "does/not/exist.py", cwd=tmp_path)
    assert proc.returncode == 2
    assert "does/not/exist.py: no such file or directory" in proc.stderr


def test_config_error_names_file_and_key(tmp_path):
    write(tmp_path, "pyproject.toml", """
        [tool.stagelint]
        selectt = ["STG1"]
    """)
    write(tmp_path, "m.py", "x = 1\n")
    proc = run("check", "m.py", cwd=tmp_path)
    assert proc.returncode == 2
    assert "pyproject.toml" in proc.stderr and "'selectt'" in proc.stderr


def test_config_select_is_honoured(tmp_path):
    write(tmp_path, "pyproject.toml", """
        [tool.stagelint]
        ignore = ["STG101"]
    """)
    write(tmp_path, "m.py", """
        import tensorflow as tf

        @tf.function
        def f(x):
            print(x)
    """)
    proc = run("check", "m.py", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout


def test_statistics():
    proc = run("check", "--statistics", "examples/train_pitfalls.py")
    assert proc.returncode == 1
    lines = proc.stdout.strip().splitlines()
    assert lines[-1].split() == ["6", "total"]
    assert any(line.split()[1:] == ["STG101", "trace-time-side-effect"] for line in lines)


def test_rules_lists_every_registered_rule():
    from stagelint.rules import all_rules

    proc = run("rules")
    assert proc.returncode == 0
    listed = [line.split()[0] for line in proc.stdout.splitlines()]
    assert listed == [r.code for r in all_rules()]


@pytest.mark.parametrize("code", ["STG101", "stg402"])
def test_rule_prints_its_documentation(code):
    proc = run("rule", code)
    assert proc.returncode == 0
    for section in ("## What it does", "## Why is this bad?", "## Example", "## Use instead"):
        assert section in proc.stdout
    assert proc.stdout.startswith(f"# {code.upper()} ")


def test_unknown_rule_is_an_error():
    proc = run("rule", "STG999")
    assert proc.returncode == 2 and "unknown rule" in proc.stderr


def test_console_script_is_installed():
    script = Path(sys.executable).with_name("stagelint")
    proc = subprocess.run([str(script), "check", "--output-format", "concise", str(EXAMPLE)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1 and "STG401" in proc.stdout


# Input and output as ruff users expect them -------------------------------------------------

PRINTS = """
    import tensorflow as tf

    @tf.function
    def f(x):
        print(x)
        return x
"""


def test_stdin_with_stdin_filename_takes_that_file_s_settings(tmp_path):
    write(tmp_path, "pyproject.toml", """
        [tool.stagelint]
        per-file-ignores = {"quiet/*" = ["STG101"]}
    """)
    source = textwrap.dedent(PRINTS).lstrip("\n")
    proc = subprocess.run([sys.executable, "-m", "stagelint", "check", "--output-format", "concise", "-",
                           "--stdin-filename", "loud/m.py"], cwd=tmp_path, input=source, capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 1, proc.stderr
    assert proc.stdout.startswith("loud/m.py:5:5: STG101 [trace-time-side-effect]")
    quiet = subprocess.run([sys.executable, "-m", "stagelint", "check", "-", "--stdin-filename", "quiet/m.py"],
                           cwd=tmp_path, input=source, capture_output=True, text=True, timeout=120)
    assert quiet.returncode == 0 and "All checks passed!" in quiet.stdout
    bare = subprocess.run([sys.executable, "-m", "stagelint", "check", "--output-format", "concise", "-"],
                          cwd=tmp_path, input=source, capture_output=True, text=True, timeout=120)
    assert bare.stdout.startswith("-:5:5: STG101")


def test_stdin_refuses_what_it_cannot_do(tmp_path):
    for args in (["-", "--fix"], ["-", "--diff"], ["-", "other.py"], ["--stdin-filename", "x.py", "."]):
        proc = run("check", *args, cwd=tmp_path)
        assert proc.returncode == 2 and "usage:" in proc.stderr and "Traceback" not in proc.stderr, args


def test_exit_zero_output_file_and_quiet(tmp_path):
    write(tmp_path, "m.py", PRINTS)
    proc = run("check", "--exit-zero", "--output-file", "report.json", "--output-format", "json", ".", cwd=tmp_path)
    assert proc.returncode == 0 and proc.stdout == ""
    assert [o["code"] for o in json.loads((tmp_path / "report.json").read_text())] == ["STG101"]
    quiet = run("check", "--quiet", "--output-format", "concise", ".", cwd=tmp_path)
    assert quiet.returncode == 1
    assert quiet.stdout.splitlines() == [quiet.stdout.splitlines()[0]] and "Found" not in quiet.stdout
    bad = run("check", "--output-file", str(tmp_path / "no" / "such" / "dir" / "r.txt"), ".", cwd=tmp_path)
    assert bad.returncode == 2 and "cannot write" in bad.stderr


def test_extend_select_repeated_select_and_lower_case_codes(tmp_path):
    def codes(*args):
        return {o["code"] for o in json.loads(run("check", "--output-format", "json", *args, "examples/train_pitfalls.py").stdout)}

    assert codes("--select", "stg1", "--select", "STG4") == codes("--select", "STG1,STG4") \
        == {"STG101", "STG102", "STG401", "STG402"}
    assert codes("--select", "STG1", "--extend-select", "stg401") == {"STG101", "STG102", "STG401"}
    assert codes("--ignore", "stg1", "--ignore", "STG4") == {"STG201", "STG301"}


def test_config_codes_are_case_insensitive(tmp_path):
    write(tmp_path, "pyproject.toml", """
        [tool.stagelint]
        ignore = ["stg101"]
    """)
    write(tmp_path, "m.py", PRINTS)
    proc = run("check", ".", cwd=tmp_path)
    assert proc.returncode == 0 and "All checks passed!" in proc.stdout, proc.stdout + proc.stderr


def test_diff_with_json_is_refused(tmp_path):
    write(tmp_path, "m.py", PRINTS)
    proc = run("check", "--diff", "--output-format", "json", ".", cwd=tmp_path)
    assert proc.returncode == 2
    assert "--diff prints a unified diff; it does not combine with --output-format json" in proc.stderr


def test_rules_as_json():
    proc = run("rules", "--output-format", "json")
    data = json.loads(proc.stdout)
    stg101 = next(r for r in data if r["code"] == "STG101")
    assert stg101["name"] == "trace-time-side-effect" and stg101["fixable"] is True
    assert stg101["url"] is None  # no rule-url configured: no link to a host that may serve nothing
    assert next(r for r in data if r["code"] == "STG901")["runtime"] is True


@pytest.mark.parametrize("fmt", ["full", "concise", "json", "sarif", "github"])
def test_a_missing_path_is_one_error_in_every_format(tmp_path, fmt):
    write(tmp_path, "m.py", PRINTS)
    proc = run("check", "--output-format", fmt, "m.py", "nope.py", cwd=tmp_path)
    assert proc.returncode == 2
    assert proc.stderr.splitlines() == ["stagelint: error: nope.py: no such file or directory"]
    assert "All checks passed" not in proc.stdout
    if fmt == "json":
        assert [o["code"] for o in json.loads(proc.stdout)] == ["STG101"]
    elif fmt == "sarif":
        invocation = json.loads(proc.stdout)["runs"][0]["invocations"][0]
        assert invocation["executionSuccessful"] is False
        assert "nope.py: no such file or directory" in invocation["toolExecutionNotifications"][0]["message"]["text"]
    elif fmt == "github":
        assert "::error file=nope.py,title=stagelint::no such file or directory" in proc.stdout.splitlines()
    else:
        assert "1 path could not be checked" in proc.stdout


def test_nothing_to_check_says_so(tmp_path):
    (tmp_path / "docs").mkdir()
    proc = run("check", "docs", cwd=tmp_path)
    assert proc.returncode == 0
    assert proc.stdout == "No Python files found.\n"
    as_json = run("check", "--output-format", "json", "docs", cwd=tmp_path)
    assert as_json.stdout.strip() == "[]" and "No Python files found" in as_json.stderr


@pytest.mark.parametrize("args", [["rules"], ["rules", "--output-format", "json"], ["rule", "STG101"],
                                  ["check", "examples/"], ["check", "--output-format", "sarif", "examples/"]])
def test_a_closed_pipe_ends_quietly(args):
    # `stagelint rules | head -1`, made certain: the reader is gone before the first write.
    proc = subprocess.Popen([sys.executable, "-m", "stagelint", *args], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    proc.stdout.close()
    _, err = proc.communicate(timeout=120)
    assert err.decode() == ""
    assert proc.returncode in (0, 1)


def test_stdin_takes_the_package_of_its_filename(tmp_path):
    # The staging helper lives next to the file on disk: only the package of `--stdin-filename`
    # lets the relative import find it, and with it the staged `print`.
    (tmp_path / "pkg").mkdir()
    write(tmp_path, "pkg/__init__.py", "")
    write(tmp_path, "pkg/helpers.py", """
        import tensorflow as tf

        def compiled(f):
            return tf.function(f)
    """)
    source = "from .helpers import compiled\n\n\n@compiled\ndef step(x):\n    print(x)\n    return x\n"

    def check(name):
        return subprocess.run([sys.executable, "-m", "stagelint", "check", "--output-format", "concise", "-",
                               "--stdin-filename", name], cwd=tmp_path, input=source, capture_output=True,
                              text=True, timeout=120)

    assert check("pkg/model.py").stdout.startswith("pkg/model.py:6:5: STG101")
    assert "All checks passed!" in check("elsewhere/model.py").stdout


def test_the_distribution_is_tf_stagelint_at_the_package_version():
    import importlib.metadata

    import stagelint

    # "stagelint" on PyPI is another program: the distribution has its own name, one version.
    assert importlib.metadata.version("tf-stagelint") == stagelint.__version__
    assert importlib.metadata.distribution("tf-stagelint").entry_points.select(group="console_scripts")["stagelint"]
    assert run("--version").stdout.strip() == f"stagelint {stagelint.__version__}"


def test_server_without_pygls_names_what_to_install():
    """`stagelint` on PyPI is an unrelated program: the hint installs pygls, as the installed
    distribution's `server` extra requires it, into the interpreter that runs stagelint."""
    hide = "import sys; sys.modules['pygls'] = None; from stagelint.cli import main; sys.exit(main(['server']))"
    proc = subprocess.run([sys.executable, "-c", hide], capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr == ("stagelint: error: the language server needs pygls (the `server` extra of tf-stagelint): "
                           f"{sys.executable} -m pip install 'pygls<3,>=2.0'\n")
