"""bench/corpus.py and bench/audit.py for the JAX corpus: `.py` and `.ipynb` files of the pinned
commit kept as they are (pathspecs select them), fetched only when named, and notebook findings
keyed by cell with the cell's own source line."""

from __future__ import annotations

import json
import shutil
import sys
from dataclasses import replace
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))

import audit  # noqa: E402
import corpus  # noqa: E402
from test_bench_corpus import git  # noqa: E402  (one way to run git in a scratch repository)

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
NOTEBOOK = {"cells": [{"cell_type": "markdown", "source": "# t", "metadata": {}},
                      {"cell_type": "code", "source": ["import jax\n", "@jax.jit\n", "def f(x):\n",
                                                       "    print(x)\n", "    return x\n"], "metadata": {}}],
            "metadata": {}, "nbformat": 4, "nbformat_minor": 5}


@pytest.fixture
def repo(tmp_path) -> tuple[Path, str]:
    repo = tmp_path / "flax"
    (repo / "examples" / "mnist").mkdir(parents=True)
    (repo / "docs" / "data").mkdir(parents=True)
    (repo / "examples" / "mnist" / "train.py").write_text("import jax\n")
    (repo / "examples" / "mnist" / "logo.png").write_bytes(b"\x89PNG")
    (repo / "docs" / "guide.ipynb").write_text(json.dumps(NOTEBOOK))
    (repo / "docs" / "data" / "big.bin").write_bytes(b"0" * 10)
    git(repo, "init", "-q")
    git(repo, "add", ".")
    git(repo, "commit", "-qm", "one")
    return repo, git(repo, "rev-parse", "HEAD").strip()


def test_py_and_ipynb_are_taken_as_they_are(repo, tmp_path, monkeypatch):
    path, commit = repo
    monkeypatch.setattr(corpus, "CACHE", tmp_path / "cache")
    project = replace(corpus.JAX_GIT_PROJECTS[0], commit=commit, paths=("examples", "docs/*.ipynb"),
                      env="STAGELINT_TEST_NO_SUCH_VARIABLE")
    folder = corpus.fetch_git(project, str(path))
    assert sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file()) == [
        ".complete", "docs/guide.ipynb", "examples/mnist/train.py"]
    assert json.loads((folder / "docs" / "guide.ipynb").read_text()) == NOTEBOOK


def test_the_jax_corpus_is_fetched_only_when_named():
    assert not set(corpus.JAX_FOLDERS) & set(corpus.FOLDERS)  # the TF benchmarks' default corpus is unchanged
    assert corpus.parse_sources(["flax=/x"]) == {"flax": "/x"}
    for g in corpus.JAX_GIT_PROJECTS:
        assert len(g.commit) == 40 and g.keep == (".py", ".ipynb")


def test_notebook_findings_are_keyed_by_cell_with_the_cell_line(tmp_path):
    (tmp_path / "guide.ipynb").write_text(json.dumps(NOTEBOOK))
    found, _ = audit.run_project(tmp_path, None)
    (finding,) = [f for f in found if f["code"] == "STG101"]
    assert (finding["cell"], finding["line"]) == (2, 4)
    assert audit.cell_line(tmp_path, "guide.ipynb", 2, 4) == "print(x)"
    assert audit.cell_line(tmp_path, "guide.ipynb", 9, 1) == ""
