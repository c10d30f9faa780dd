"""bench/corpus.py: a git corpus comes from the pinned commit of a local git directory or URL, and
says what to do when it cannot find that commit."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))

import corpus  # noqa: E402

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True,
                          env={"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
                               "GIT_COMMITTER_EMAIL": "t@t", "HOME": str(repo), "PATH": "/usr/bin:/bin"}).stdout


@pytest.fixture
def repo(tmp_path) -> tuple[Path, str]:
    repo = tmp_path / "docs"
    (repo / "site" / "en" / "guide").mkdir(parents=True)
    nb = {"cells": [{"cell_type": "code", "source": "!pip install x\nimport tensorflow as tf", "metadata": {}}]}
    (repo / "site" / "en" / "guide" / "g.ipynb").write_text(json.dumps(nb))
    (repo / "site" / "en" / "other.ipynb").write_text(json.dumps(nb))
    git(repo, "init", "-q")
    git(repo, "add", ".")
    git(repo, "commit", "-qm", "one")
    commit = git(repo, "rev-parse", "HEAD").strip()
    (repo / "site" / "en" / "guide" / "g.ipynb").write_text(json.dumps({"cells": []}))
    git(repo, "commit", "-qam", "two")  # the pin is not HEAD: the corpus must read the pinned commit
    return repo, commit


def project(commit: str) -> corpus.GitProject:
    return replace(corpus.GIT_PROJECTS[0], commit=commit, env="STAGELINT_TEST_NO_SUCH_VARIABLE")


def test_notebooks_of_the_pinned_commit_are_converted(repo, tmp_path, monkeypatch):
    path, commit = repo
    monkeypatch.setattr(corpus, "CACHE", tmp_path / "cache")
    project_ = replace(project(commit), paths=("site/en/guide",))
    folder = corpus.fetch_git(project_, str(path))
    assert sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*.py")) == ["guide/g.py"]
    assert (folder / "guide" / "g.py").read_text().splitlines() == [
        "# %% [cell 1]", "# !pip install x", "import tensorflow as tf"]
    assert corpus.fetch_git(project_, "/nowhere") == folder  # done once, reused


def test_a_source_without_the_commit_says_what_to_do(repo, tmp_path, monkeypatch):
    path, _ = repo
    monkeypatch.setattr(corpus, "CACHE", tmp_path / "cache")
    with pytest.raises(SystemExit) as stop:
        corpus.fetch_git(project("0" * 40), str(path))
    message = str(stop.value)
    assert "no commit 000000000000 there" in message
    assert "--source tf_docs=PATH_OR_URL" in message and "git clone https://github.com/tensorflow/docs.git" in message
    with pytest.raises(SystemExit, match="no such folder"):
        corpus.fetch_git(project("0" * 40), str(tmp_path / "missing"))


def test_source_options_name_a_git_project():
    assert corpus.parse_sources(["tf_examples=/x"]) == {"tf_examples": "/x"}
    with pytest.raises(SystemExit, match="FOLDER=PATH_OR_URL"):
        corpus.parse_sources(["tfp=/x"])
