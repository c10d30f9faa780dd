"""One answer per file: a file's findings are the same however it is checked.

`stagelint check .` (the reference), `stagelint check FILE`, `flake8 FILE`, flake8 on standard
input (`flake8 --stdin-display-name FILE -`, what editors run on an unsaved buffer), the
language server and pre-commit with only that file changed must all give every file the findings of
the whole project: a helper module is reported when its staged caller lives in another module
that the single-file run was not given. Full findings are compared: place, code and message
(and, between the two `check` runs, the whole JSON record).

Projects: the fixture project, and a multi-module project written here whose findings all
depend on another module (a helper staged from elsewhere, a Keras base class in another file,
a project staging wrapper, call sites that retrace a Function defined elsewhere).
"""

from __future__ import annotations

import asyncio
import json
import shutil
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from integration_support import PROJECT, flake8, reported, stagelint, write_tree
from test_precommit import hook  # noqa: F401  (the pre-commit hook's environment, built once)

#: Findings in each module come from staged code or call sites in another module.
ACROSS_MODULES = {
    "pyproject.toml": """
        [project]
        name = "across"
    """,
    "across/__init__.py": "",
    "across/helpers.py": """
        history = []


        def record(value):
            print("value", value)
            history.append(value)
            return value
    """,
    "across/wrapping.py": """
        import tensorflow as tf


        def compiled(fn):
            return tf.function(fn)
    """,
    "across/layers.py": """
        import tensorflow as tf


        class Base(tf.keras.layers.Layer):
            pass
    """,
    "across/blocks.py": """
        import random

        from across.layers import Base


        class Block(Base):
            def call(self, x):
                self.calls = random.random()
                return x * 2
    """,
    "across/steps.py": """
        import tensorflow as tf

        from across.helpers import record
        from across.wrapping import compiled


        @tf.function
        def step(x, n):
            return record(x) * n


        @compiled
        def other(x):
            print("other", x)
            return x
    """,
    "across/driver.py": """
        import tensorflow as tf

        from across.steps import step


        def train(data):
            for i in range(10):
                step(tf.constant(data), i)
    """,
}


def _write(tmp_path: Path, name: str) -> Path:
    root = tmp_path / name
    if name == "fixture":
        shutil.copytree(PROJECT, root)
    else:
        write_tree(root, ACROSS_MODULES)
    return root


def _from_json(stdout: str) -> dict[str, list[dict]]:
    by_file: dict[str, list[dict]] = {}
    for f in json.loads(stdout)["findings"] if stdout.strip().startswith("{") else json.loads(stdout):
        by_file.setdefault(Path(f["path"]).as_posix(), []).append(f)
    return by_file


def _short(findings) -> set[tuple]:
    return {(f["line"], f["column"], f["code"], f"{f['code']} [{f['name']}] {f['message']}") for f in findings}


def _flake8_findings(stdout: str, path: str) -> set[tuple]:
    out = set()
    for line in stdout.splitlines():
        where, _, rest = line.partition(": ")
        parts = where.rsplit(":", 2)
        if len(parts) == 3 and rest.startswith("STG") and Path(parts[0]).as_posix() == path:
            out.add((int(parts[1]), int(parts[2]), rest.split(" ", 1)[0], rest))
    return out


@pytest.mark.parametrize("name", ["fixture", "across"])
def test_every_file_gets_the_findings_of_the_whole_project(tmp_path, name):
    root = _write(tmp_path, name)
    whole = stagelint("check", "--output-format", "json", ".", cwd=root)
    assert whole.returncode in (0, 1), whole.stderr
    reference = _from_json(whole.stdout)
    files = sorted(p.relative_to(root).as_posix() for p in root.rglob("*.py"))
    # The point of the test: some file's findings come from staged code in another file.
    across = {"fixture": "pkg/utils.py", "across": "across/helpers.py"}[name]
    assert reference.get(across), reference

    def one_file(path):
        alone = stagelint("check", "--output-format", "json", path, cwd=root)
        lint = flake8("--select", "STG", path, cwd=root)
        stdin = flake8("--select", "STG", "--stdin-display-name", path, "-", cwd=root,
                       input=(root / path).read_text())
        return path, alone, lint, stdin

    with ThreadPoolExecutor(2) as pool:
        runs = list(pool.map(one_file, files))
    for path, alone, lint, stdin in runs:
        expected = reference.get(path, [])
        assert alone.returncode in (0, 1), alone.stderr
        assert _from_json(alone.stdout).get(path, []) == expected, path
        assert lint.returncode in (0, 1), lint.stderr
        # flake8 applies `# noqa` itself and stagelint check does too: the same findings.
        assert _flake8_findings(lint.stdout, path) == _short(expected), path
        assert _flake8_findings(stdin.stdout, path) == _short(expected), path
    # The language server, with every file open.
    served = asyncio.run(_served(root, files))
    for path in files:
        expected = {(f["line"], f["column"], f["code"], f["message"]) for f in reference.get(path, [])}
        assert served[path] == expected, path


async def _served(root: Path, files: list[str]) -> dict[str, set[tuple]]:
    from test_server import Client

    c = Client(root)
    await c.start()
    try:
        for path in files:
            c.open(path)
        out = {}
        for path in files:
            diagnostics = await c.wait_for(path, 1)
            out[path] = {(d.range.start.line + 1, d.range.start.character + 1, d.code, d.message) for d in diagnostics}
        return out
    finally:
        await c.stop()


def test_pre_commit_with_only_the_helper_changed(tmp_path, hook):  # noqa: F811
    """pre-commit hands the hook only the files of the commit: the helper alone still gets the
    finding its staged caller in another (unchanged) module gives it."""
    from test_precommit import _run, _user_repo

    env = _user_repo(tmp_path, hook)
    shutil.copytree(PROJECT, tmp_path, dirs_exist_ok=True)
    assert _run(["git", "add", "-A"], tmp_path, env).returncode == 0
    assert _run(["git", "commit", "-q", "--no-verify", "-m", "base"], tmp_path, env).returncode == 0
    helper = tmp_path / "pkg" / "utils.py"
    helper.write_text(helper.read_text() + "\n# an unrelated edit\n")
    assert _run(["git", "add", "pkg/utils.py"], tmp_path, env).returncode == 0
    commit = _run(["git", "commit", "-m", "only the helper"], tmp_path, env)
    out = commit.stdout + commit.stderr
    assert commit.returncode != 0, out
    whole = stagelint("check", "--output-format", "concise", ".", cwd=tmp_path)
    expected = {f for f in reported(whole.stdout) if f[0] == "pkg/utils.py"}
    assert ("pkg/utils.py", 7, 5, "STG101") in expected
    assert reported(out) == expected, out  # model.py is not in the commit: not reported
