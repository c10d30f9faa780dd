"""`stagelint run`'s static check keeps and reads the result cache `stagelint check` keeps: a test
module reaches much of its project (a Keras test imports some 440 files of Keras), and a later run,
of the same module or a sibling, need not analyse those files again while they are unchanged.
`--no-cache` and `--cache-dir` as for `stagelint check`. One real TensorFlow run per case."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

pytestmark = pytest.mark.tf

MODEL = """
    import tensorflow as tf


    @tf.function
    def step(x):
        print("tracing")
        return x + 1
"""

TESTS = """
    import tensorflow as tf

    from model import step


    def test_steps():
        for i in range(3):
            assert int(step(tf.constant(i))) == i + 1
"""


def _project(root) -> None:
    (root / "pyproject.toml").write_text("[project]\nname = 'demo'\n")
    (root / "model.py").write_text(textwrap.dedent(MODEL).lstrip())
    (root / "test_model.py").write_text(textwrap.dedent(TESTS).lstrip())


def _run(root, *args: str) -> dict:
    proc = subprocess.run([sys.executable, "-m", "stagelint", "run", "test_model.py", "--output-format", "json",
                           *args], cwd=root, capture_output=True, text=True, timeout=600,
                          env={k: v for k, v in os.environ.items() if k != "STAGELINT_CACHE_DIR"})
    assert proc.returncode == 1, proc.stdout + proc.stderr  # the confirmed finding
    return json.loads(proc.stdout)


def _verdicts(report: dict) -> list[tuple]:
    return sorted((f["path"], f["line"], f["code"], f["verdict"]) for f in report["findings"])


def _entries(folder) -> list[str]:
    return [f for _, _, files in os.walk(folder) for f in files]


def test_the_static_findings_are_cached_in_the_project_and_served_again(tmp_path):
    _project(tmp_path)
    first = _verdicts(_run(tmp_path))
    assert ("model.py", 6, "STG101", "confirmed") in first
    assert _entries(tmp_path / ".stagelint_cache")
    assert _verdicts(_run(tmp_path)) == first


def test_no_cache_writes_none_and_cache_dir_writes_there(tmp_path):
    _project(tmp_path)
    first = _verdicts(_run(tmp_path, "--no-cache"))
    assert ("model.py", 6, "STG101", "confirmed") in first
    assert not (tmp_path / ".stagelint_cache").exists()
    elsewhere = tmp_path.parent / f"{tmp_path.name}-cache"
    assert _verdicts(_run(tmp_path, "--cache-dir", str(elsewhere))) == first
    assert _entries(elsewhere) and not (tmp_path / ".stagelint_cache").exists()
