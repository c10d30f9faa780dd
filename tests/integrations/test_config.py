"""`[tool.stagelint]` as users write it, through the real command line: what each key does,
and that every mistake stops the run with exit 2 and a one-line message naming file and key."""

from __future__ import annotations

import contextlib
import io
import json
import os

import pytest
from integration_support import stagelint, write_tree

from stagelint.cli import main
from stagelint.config import ConfigError, load_settings

STAGED = """
import tensorflow as tf

seen = []


@tf.function
def f(x):
    print(x)
    seen.append(1)
    return x
"""


def _codes(tmp_path, *args, cwd=None):
    """`stagelint check --output-format json ARGS` through the command line's own entry point,
    in this process (the subprocess path is tested below and in test_cli.py)."""
    out, err = io.StringIO(), io.StringIO()
    here = os.getcwd()
    os.chdir(cwd or tmp_path)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            status = main(["check", "--output-format", "json", *args])
    finally:
        os.chdir(here)
    assert status in (0, 1), err.getvalue()
    return sorted((f["path"], f["code"]) for f in json.loads(out.getvalue()))


@pytest.mark.parametrize("table, key_in_message", [
    ('selcet = ["STG1"]', "'selcet'; did you mean 'select'?"),
    ('per_file_ignores = {}', "'per_file_ignores'; did you mean 'per-file-ignores'?"),
    ('colour = "red"', "'colour' (known keys: exclude, extend-exclude, extend-select, file-timeout, ignore, keras-methods"),
    ('select = "STG1"', "select must be a list of strings, got 'STG1'"),
    ('select = ["E501"]', "select: 'E501' is not a stagelint code or prefix"),
    ('ignore = ["STG1011"]', "ignore: 'STG1011' is not a stagelint code or prefix"),
    ('keras-methods = "yes"', "keras-methods must be true or false, got 'yes'"),
    ('exclude = "build"', "exclude must be a list of strings, got 'build'"),
    ('staging-decorators = ["@compiled"]', "staging-decorators: '@compiled' is not a dotted name"),
    ('per-file-ignores = ["tests/*"]', "per-file-ignores must be a table of glob = [codes]"),
    ('per-file-ignores = {"tests/*" = "STG101"}', "per-file-ignores 'tests/*' must be a list of strings"),
    ('per-file-ignores = {"tests/*" = ["X1"]}', "per-file-ignores 'tests/*': 'X1' is not a stagelint code"),
    ('select = [\n', "invalid TOML"),
])
def test_mistakes_are_errors_naming_file_and_key(tmp_path, table, key_in_message):
    write_tree(tmp_path, {"pyproject.toml": "[tool.stagelint]\n" + table + "\n", "m.py": STAGED})
    with pytest.raises(ConfigError) as raised:
        load_settings(tmp_path / "m.py")
    message = str(raised.value)
    assert "\n" not in message
    assert message.startswith(str(tmp_path / "pyproject.toml") + ": ")
    assert key_in_message in message


@pytest.mark.parametrize("table", ['selcet = ["STG1"]', 'keras-methods = "yes"'])
def test_mistakes_stop_the_command_line_with_exit_2(tmp_path, table):
    write_tree(tmp_path, {"pyproject.toml": "[tool.stagelint]\n" + table + "\n", "m.py": STAGED})
    proc = stagelint("check", "m.py", cwd=tmp_path)
    assert proc.returncode == 2, proc.stdout
    err = proc.stderr.strip()
    assert len(err.splitlines()) == 1 and err.startswith("stagelint: error: ") and "pyproject.toml" in err
    assert proc.stdout == ""


def test_config_flag(tmp_path):
    write_tree(tmp_path, {
        "ci/lint.toml": '[tool.stagelint]\nignore = ["STG102"]\n',
        "ci/empty.toml": "[tool.other]\nx = 1\n",
        "m.py": STAGED,
    })
    assert _codes(tmp_path, "--config", "ci/lint.toml", "m.py") == [("m.py", "STG101")]
    missing = stagelint("check", "--config", "nope.toml", "m.py", cwd=tmp_path)
    assert missing.returncode == 2 and "nope.toml: configuration file does not exist" in missing.stderr
    no_table = stagelint("check", "--config", "ci/empty.toml", "m.py", cwd=tmp_path)
    assert no_table.returncode == 2 and "ci/empty.toml: no [tool.stagelint] table" in no_table.stderr


def test_nearest_pyproject_with_the_table_wins(tmp_path):
    write_tree(tmp_path, {
        "pyproject.toml": '[tool.stagelint]\nignore = ["STG101"]\n',
        "sub/pyproject.toml": '[project]\nname = "sub"\n',  # no table: keep looking upwards
        "sub/m.py": STAGED,
        "other/pyproject.toml": '[tool.stagelint]\nignore = ["STG102"]\n',
        "other/m.py": STAGED,
    })
    assert _codes(tmp_path, "sub/m.py") == [("sub/m.py", "STG102")]
    assert _codes(tmp_path, "m.py", cwd=tmp_path / "other") == [("m.py", "STG101")]
    # Dotted keys are the same table.
    (tmp_path / "pyproject.toml").write_text('[tool]\nstagelint.ignore = ["STG102"]\n')
    assert _codes(tmp_path, "sub/m.py") == [("sub/m.py", "STG101")]


def test_select_ignore_and_the_command_line(tmp_path):
    write_tree(tmp_path, {"pyproject.toml": '[tool.stagelint]\nselect = ["STG1"]\nignore = ["STG101"]\n',
                          "m.py": STAGED})
    assert _codes(tmp_path, "m.py") == [("m.py", "STG102")]
    # As in ruff: --select starts afresh (configured select and ignore give way), --ignore adds.
    assert _codes(tmp_path, "--select", "STG101", "m.py") == [("m.py", "STG101")]
    assert _codes(tmp_path, "--select", "STG1", "--ignore", "STG102", "m.py") == [("m.py", "STG101")]
    assert _codes(tmp_path, "--ignore", "STG102", "m.py") == []
    # Within one layer the longest prefix wins.
    assert _codes(tmp_path, "--select", "STG1", "--ignore", "STG", "m.py") == [("m.py", "STG101"), ("m.py", "STG102")]
    (tmp_path / "pyproject.toml").write_text('[tool.stagelint]\nextend-select = ["STG9"]\nselect = ["STG10"]\n')
    assert _codes(tmp_path, "m.py") == [("m.py", "STG101"), ("m.py", "STG102")]


def test_per_file_ignores(tmp_path):
    write_tree(tmp_path, {
        "pyproject.toml": """
            [tool.stagelint]
            per-file-ignores = {"tests/*" = ["STG101"], "test_*.py" = ["STG102"], "src/**/legacy.py" = ["ALL"]}
        """,
        "tests/deep/m.py": STAGED,
        "src/test_x.py": STAGED,
        "src/legacy.py": STAGED,
        "src/a/b/legacy.py": STAGED,
        "src/m.py": STAGED,
    })
    assert _codes(tmp_path, ".") == [
        ("src/m.py", "STG101"), ("src/m.py", "STG102"),
        ("src/test_x.py", "STG101"),
        ("tests/deep/m.py", "STG102"),
    ]
    # Globs are relative to the file that holds the table, wherever stagelint runs from.
    assert _codes(tmp_path, "m.py", cwd=tmp_path / "tests" / "deep") == [("m.py", "STG102")]


def test_exclude(tmp_path):
    write_tree(tmp_path, {
        "pyproject.toml": '[tool.stagelint]\nexclude = ["third_party", "gen/*_pb2.py"]\n',
        "third_party/lib/m.py": STAGED,
        "gen/api_pb2.py": STAGED,
        "gen/api.py": STAGED,
        "m.py": STAGED,
    })
    assert {p for p, _ in _codes(tmp_path, ".")} == {"gen/api.py", "m.py"}
    # Also when named on the command line (pre-commit passes files one by one).
    assert _codes(tmp_path, "third_party/lib/m.py", "m.py") == [("m.py", "STG101"), ("m.py", "STG102")]


def test_staging_decorators_and_keras_methods(tmp_path):
    write_tree(tmp_path, {
        "pyproject.toml": '[tool.stagelint]\nstaging-decorators = ["mylib.utils.compiled"]\nkeras-methods = false\n',
        "mylib/__init__.py": "",
        "mylib/utils.py": "def compiled(fn):\n    return fn\n",
        "train.py": """
            import keras
            from mylib.utils import compiled


            @compiled
            def step(x):
                print(x)


            class Layer(keras.layers.Layer):
                def call(self, x):
                    print(x)
                    return x
        """,
    })
    proc = stagelint("check", "--output-format", "json", "train.py", cwd=tmp_path)
    assert [(f["line"], f["code"]) for f in json.loads(proc.stdout)] == [(7, "STG101")]


def test_jobs_option(tmp_path):
    write_tree(tmp_path, {"a.py": STAGED, "b.py": STAGED, "c.py": "x = 1\n"})
    one = stagelint("check", "--jobs", "1", "--output-format", "json", ".", cwd=tmp_path)
    many = stagelint("check", "--jobs", "3", "--output-format", "json", ".", cwd=tmp_path)
    assert one.returncode == many.returncode == 1 and one.stdout == many.stdout
    bad = stagelint("check", "--jobs", "0", ".", cwd=tmp_path)
    assert bad.returncode == 2 and "'0' is not a positive number of processes" in bad.stderr
