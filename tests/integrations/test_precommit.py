"""The pre-commit hook, as a user installs it: real git, real pre-commit, a real commit.

pre-commit installs a `language: python` hook by cloning the hook repository at `rev` and
pip-installing it into an environment of its own (from PyPI for libcst and numpy). The
repository here is a snapshot of this working tree committed to a temporary git repository,
so the test checks the code under test, committed or not, on a fresh clone too. One
environment serves the whole module (PRE_COMMIT_HOME is module-scoped).

The user's configuration is the one docs/integrations.md prints, read from the page: its
repository URL (or clone path) names the snapshot, and the page's own commands
(`pre-commit autoupdate`, `pre-commit install`) pin `rev` and install the git hook.
"""

from __future__ import annotations

import fcntl
import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from integration_support import ROOT

PRE_COMMIT = Path(sys.executable).parent / "pre-commit"
GIT_ENV = {
    "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_AUTHOR_NAME": "Test", "GIT_AUTHOR_EMAIL": "test@example.invalid",
    "GIT_COMMITTER_NAME": "Test", "GIT_COMMITTER_EMAIL": "test@example.invalid",
}

PITFALL = """
import tensorflow as tf


@tf.function
def train_step(x):
    print("loss", x)
    return x
"""


def _run(cmd, cwd, env):
    return subprocess.run([str(c) for c in cmd], cwd=cwd, env=env, capture_output=True, text=True, timeout=600)


@pytest.fixture(scope="module")
def hook(tmp_path_factory):
    """(repository path, commit) of a snapshot of this checkout, and the environment to use.
    Under pytest-xdist the workers of one run share it (and pre-commit's own lock lets one of
    them build the hook environment), so the environment is installed once per run."""
    run_id = os.environ.get("PYTEST_XDIST_TESTRUNUID")
    base = tmp_path_factory.getbasetemp()
    base = base.parent / f"precommit-{run_id}" if run_id else base / "precommit"
    base.mkdir(exist_ok=True)
    env = {**os.environ, **GIT_ENV, "PRE_COMMIT_HOME": str(base / "cache")}
    repo = base / "stagelint"
    with open(base / "lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (repo / ".git").is_dir():
            _snapshot(repo)
            for cmd in (["git", "init", "-q"], ["git", "add", "-A"], ["git", "commit", "-q", "-m", "snapshot"]):
                assert _run(cmd, repo, env).returncode == 0
    rev = _run(["git", "rev-parse", "HEAD"], repo, env).stdout.strip()
    return repo, rev, env


def _snapshot(repo: Path) -> None:
    """This checkout as pip would build it: its tracked files as they are in the working tree,
    plus the package's files not yet added to git."""
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=False)
    names = [n for n in listed.stdout.decode().split("\0") if n] if listed.returncode == 0 else []
    names = names or ["pyproject.toml", "README.md", ".pre-commit-hooks.yaml"]
    for name in names:
        if (ROOT / name).is_file():
            (repo / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, repo / name)
    shutil.copytree(ROOT / "stagelint", repo / "stagelint", ignore=shutil.ignore_patterns("__pycache__"),
                    dirs_exist_ok=True)


def _documented() -> tuple[list[str], list[list[str]]]:
    """The `.pre-commit-config.yaml` recipes of docs/integrations.md's pre-commit section, and
    the shell commands it gives to run after writing one."""
    page = (ROOT / "docs" / "integrations.md").read_text(encoding="utf-8")
    section = page.split("\n## pre-commit\n", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"^```(\w+)\n(.*?)^```", section, re.S | re.M)
    configs = [body for lang, body in blocks if lang == "yaml"]
    (commands,) = [body for lang, body in blocks if lang == "sh"]
    return configs, [line.split("#")[0].split() for line in commands.splitlines() if line.split("#")[0].strip()]


CONFIGS, COMMANDS = _documented()
#: What the page's recipes name the hook repository by, each standing for the user's own.
URL, CLONE = "https://github.com/stagelint/stagelint", "/home/me/src/stagelint"


def _user_repo(tmp_path, hook, args=None, recipe=0):
    """A git repository with the page's recipe `recipe` (0: by URL, 1: by a clone's path, 2:
    `repo: local`), set up with the page's commands (for the first two)."""
    repo_path, rev, env = hook
    config = CONFIGS[recipe]
    assert (URL in config) == (recipe == 0) and (CLONE in config) == (recipe == 1), config
    config = config.replace(URL, repo_path.as_uri()).replace(CLONE, str(repo_path))
    if args:
        config += f"        args: {args}\n"
    (tmp_path / ".pre-commit-config.yaml").write_text(config)
    assert _run(["git", "init", "-q"], tmp_path, env).returncode == 0
    if recipe == 2:  # no rev to pin: the stagelint on PATH (this venv's) runs
        env = {**env, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{env['PATH']}"}
        commands = [c for c in COMMANDS if c[:2] == ["pre-commit", "install"]]
    else:
        commands = COMMANDS
    for command in commands:
        assert command[0] == "pre-commit", command
        done = _run([PRE_COMMIT, *command[1:]], tmp_path, env)
        assert done.returncode == 0, done.stdout + done.stderr
        if command[1] == "autoupdate":
            assert f"updating HEAD -> {rev}" in done.stdout, done.stdout
    if recipe != 2:
        assert re.search(rf"^    rev: {rev}\s", (tmp_path / ".pre-commit-config.yaml").read_text(), re.M)  # pinned
    assert _run(["git", "add", ".pre-commit-config.yaml"], tmp_path, env).returncode == 0
    return env


def _commit(tmp_path, env, files: dict[str, str]):
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"))
    assert _run(["git", "add", *files], tmp_path, env).returncode == 0
    return _run(["git", "commit", "-m", "change"], tmp_path, env)


@pytest.mark.parametrize("recipe", [0, 1, 2], ids=["url", "clone", "local"])
def test_a_pitfall_is_refused_and_a_clean_file_passes(tmp_path, hook, recipe):
    env = _user_repo(tmp_path, hook, recipe=recipe)
    refused = _commit(tmp_path, env, {"model.py": PITFALL})
    out = refused.stdout + refused.stderr
    assert refused.returncode != 0, out
    assert "stagelint....." in out and "Failed" in out
    assert "model.py:6:5: STG101 [trace-time-side-effect]" in out
    assert _run(["git", "rev-parse", "--verify", "HEAD"], tmp_path, env).returncode != 0  # nothing committed

    passed = _commit(tmp_path, env, {"model.py": PITFALL.replace('print("loss", x)', 'tf.print("loss", x)')})
    assert passed.returncode == 0, passed.stdout + passed.stderr
    assert "Passed" in passed.stdout + passed.stderr


def test_only_python_files_and_helpers_staged_together(tmp_path, hook):
    env = _user_repo(tmp_path, hook)
    notes = _commit(tmp_path, env, {"notes.txt": "print(x) in a tf.function\n"})
    assert notes.returncode == 0 and "(no files to check)" in notes.stdout + notes.stderr
    both = _commit(tmp_path, env, {
        "pkg/__init__.py": "",
        "pkg/utils.py": "def log(x):\n    print(x)\n",
        "pkg/model.py": "import tensorflow as tf\nfrom pkg.utils import log\n\n\n@tf.function\ndef f(x):\n    log(x)\n",
    })
    assert both.returncode != 0
    assert "pkg/utils.py:2:5: STG101" in both.stdout + both.stderr


def test_fix_args(tmp_path, hook):
    # print() -> tf.print() is an unsafe fix (tf.print writes to stderr): the hook asks for it.
    env = _user_repo(tmp_path, hook, args="[--fix, --unsafe-fixes]")
    first = _commit(tmp_path, env, {"model.py": PITFALL})
    assert first.returncode != 0  # pre-commit refuses a commit whose files a hook changed
    assert "files were modified by this hook" in first.stdout + first.stderr
    assert 'tf.print("loss", x)' in (tmp_path / "model.py").read_text()
    assert _run(["git", "add", "model.py"], tmp_path, env).returncode == 0
    second = _run(["git", "commit", "-m", "fixed"], tmp_path, env)
    assert second.returncode == 0, second.stdout + second.stderr


def test_notebooks_are_checked_by_the_hook(tmp_path, hook):
    import nbformat
    from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

    env = _user_repo(tmp_path, hook)
    nb = new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.cells = [new_markdown_cell("# Training"), new_code_cell("!pip install -q tensorflow\nimport tensorflow as tf"),
                new_code_cell(PITFALL.strip("\n").replace("import tensorflow as tf\n\n\n", ""))]
    nbformat.write(nb, str(tmp_path / "train.ipynb"))
    assert _run(["git", "add", "train.ipynb"], tmp_path, env).returncode == 0
    refused = _run(["git", "commit", "-m", "notebook"], tmp_path, env)
    out = refused.stdout + refused.stderr
    assert refused.returncode != 0, out
    assert "train.ipynb:cell 3:3:5: STG101 [trace-time-side-effect]" in out
