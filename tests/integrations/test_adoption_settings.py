"""What a team adopting stagelint on an existing code base sets first, through the CLI:
`--exclude` / `--extend-exclude` (and `extend-exclude` in the configuration), `--show-settings`,
`--show-files`, and `[stagelint]` in setup.cfg / tox.ini (a flake8 user's first try)."""

from __future__ import annotations

from integration_support import stagelint, write_tree

PRINTS = """
import tensorflow as tf


@tf.function
def step(x):
    print("tracing", x)
    return x
"""

TREE = {"src/app.py": PRINTS, "src/gen/model_pb2.py": PRINTS, "legacy/old.py": PRINTS, "tests/test_app.py": PRINTS}


def _files(*args, cwd):
    proc = stagelint("check", "--show-files", *args, cwd=cwd)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.splitlines()


def test_show_files_and_the_exclude_options(tmp_path):
    write_tree(tmp_path, {**TREE, "pyproject.toml": '[tool.stagelint]\nexclude = ["legacy"]\nextend-exclude = ["*_pb2.py"]\n'})
    assert _files(".", cwd=tmp_path) == ["src/app.py", "tests/test_app.py"]
    # --exclude replaces `exclude` (legacy comes back); extend-exclude still applies.
    assert _files("--exclude", "tests", ".", cwd=tmp_path) == ["legacy/old.py", "src/app.py"]
    # --extend-exclude adds; repeated options and comma lists add up; a glob with `/` is
    # relative to the current folder.
    assert _files("--extend-exclude", "tests", "--extend-exclude", "src/app.py", ".", cwd=tmp_path) == []
    assert _files(".", cwd=tmp_path / "src") == ["app.py"]
    assert _files("--extend-exclude", "./app.py", ".", cwd=tmp_path / "src") == []
    # A check honours them as --show-files lists them.
    proc = stagelint("check", "--output-format", "concise", "--extend-exclude", "tests", ".", cwd=tmp_path)
    assert [line.split(":")[0] for line in proc.stdout.splitlines() if ": STG" in line] == ["src/app.py"]
    missing = stagelint("check", "--show-files", "nope", cwd=tmp_path)
    assert missing.returncode == 2 and "nope: no such file or directory" in missing.stderr


def test_show_settings(tmp_path):
    write_tree(tmp_path, {**TREE, "pyproject.toml": '[tool.stagelint]\nignore = ["stg501"]\nper-file-ignores = {"tests/*" = ["STG101"]}\n'})
    proc = stagelint("check", "--show-settings", "--extend-select", "STG9", "--extend-exclude", "gen", "src", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[:3] == ['Resolved settings for: "src"', f'Settings path: "{tmp_path / "pyproject.toml"}"', ""]
    assert 'select = ["STG", "STG9"]' in lines and 'ignore = ["STG501"]' in lines
    assert 'per-file-ignores = {"tests/*" = ["STG101"]}' in lines and 'extend-exclude = ["gen"]' in lines
    assert "keras-methods = true" in lines and "unsafe-fixes = false" in lines
    defaults = stagelint("check", "--show-settings", ".", cwd=tmp_path / "src", env={})
    # The repository's pyproject.toml is above src/, so it applies there too.
    assert f'Settings path: "{tmp_path / "pyproject.toml"}"' in defaults.stdout


def test_setup_cfg_and_tox_ini_sections(tmp_path):
    write_tree(tmp_path, {**TREE, "setup.cfg": """
        [flake8]
        max-line-length = 100

        [stagelint]
        per_file_ignores =
            tests/*: STG101
        extend-exclude = *_pb2.py, legacy
        unsafe-fixes = yes
        """})
    proc = stagelint("check", "--output-format", "concise", ".", cwd=tmp_path)
    assert [line.split(":")[0] for line in proc.stdout.splitlines() if ": STG" in line] == ["src/app.py"], proc.stderr
    shown = stagelint("check", "--show-settings", ".", cwd=tmp_path).stdout
    assert f'Settings path: "{tmp_path / "setup.cfg"}"' in shown and "unsafe-fixes = true" in shown
    # tox.ini, when setup.cfg has no [stagelint]; a mistake names the file, the section, the key.
    (tmp_path / "setup.cfg").write_text("[flake8]\nselect = E\n")
    (tmp_path / "tox.ini").write_text("[stagelint]\nselect = STG2\n")
    assert stagelint("check", ".", cwd=tmp_path).stdout.strip() == "All checks passed!"
    (tmp_path / "tox.ini").write_text("[stagelint]\nkeras_method = no\n")
    bad = stagelint("check", ".", cwd=tmp_path)
    assert bad.returncode == 2
    assert bad.stderr.strip() == f"stagelint: error: {tmp_path / 'tox.ini'}: unknown key [stagelint] 'keras-method'; did you mean 'keras-methods'?"
    (tmp_path / "tox.ini").write_text("[stagelint]\nselect = STG2, E501\n")
    assert "'E501' is not a stagelint code" in stagelint("check", ".", cwd=tmp_path).stderr


def test_pyproject_comes_first_and_the_other_is_not_silently_ignored(tmp_path):
    write_tree(tmp_path, {**TREE, "pyproject.toml": '[tool.stagelint]\nselect = ["STG2"]\n',
                          "setup.cfg": "[stagelint]\nselect = STG1\n"})
    proc = stagelint("check", ".", cwd=tmp_path)
    assert proc.returncode == 0 and proc.stdout.strip() == "All checks passed!"
    assert proc.stderr.strip() == (f"stagelint: warning: {tmp_path / 'setup.cfg'}: its [stagelint] section is not read: "
                                   f"{tmp_path / 'pyproject.toml'} in the same folder comes first (pyproject.toml, "
                                   "then setup.cfg, then tox.ini); keep one")
    # A nearer folder's setup.cfg wins over a pyproject.toml further up, as the nearest file does.
    write_tree(tmp_path, {"src/setup.cfg": "[stagelint]\nselect = STG1\n"})
    near = stagelint("check", "--output-format", "concise", "src", cwd=tmp_path)
    assert near.returncode == 1 and "src/app.py:6:5: STG101" in near.stdout
    # --config takes a setup.cfg too.
    named = stagelint("check", "--config", "setup.cfg", "--output-format", "concise", "src/app.py", cwd=tmp_path)
    assert named.returncode == 1 and "STG101" in named.stdout
