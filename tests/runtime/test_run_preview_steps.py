"""`stagelint run` with the preview tier on (`--preview`, or `preview = true`): a finding whose rule step is a
guess (`_preview`) still gets its runtime verdict from the runs. STG104 under TensorFlow: a draw
in a Function whose repeated calls the code does not show is preview statically; the test's two
calls show the frozen value, and the run confirms it."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

pytestmark = pytest.mark.tf

MODULE = """\
import numpy as np
import tensorflow as tf


def make():
    @tf.function
    def jitter(x):
        return x + np.random.uniform()

    return jitter
"""

TEST = """\
import tensorflow as tf

from aug import make


def test_jitter_draws_anew():
    augmentations = {"jitter": make()}  # stored: which calls run it, the code does not show
    f = augmentations["jitter"]
    assert float(f(tf.constant(0.0))) != float(f(tf.constant(0.0)))
"""


def _run(cwd, *options):
    proc = subprocess.run([sys.executable, "-m", "stagelint", "run", *options, "test_aug.py"], cwd=cwd,
                          capture_output=True, text=True, timeout=600)
    return proc.stdout + proc.stderr


def test_a_preview_step_finding_is_confirmed_by_the_runs(tmp_path):
    (tmp_path / "aug.py").write_text(MODULE)
    (tmp_path / "test_aug.py").write_text(TEST)
    default = subprocess.run([sys.executable, "-m", "stagelint", "check", "--no-cache",
                              "--output-format", "json", "."], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert [f["code"] for f in json.loads(default.stdout)] == []  # the step is a guess: preview only
    # asked on the command line
    out = _run(tmp_path, "--preview")
    assert "aug.py:8" in out and "STG104" in out, out
    assert "1 confirmed" in out, out
    # asked by the configuration
    (tmp_path / "pyproject.toml").write_text("[tool.stagelint]\npreview = true\n")
    out = _run(tmp_path)
    assert "aug.py:8" in out and "1 confirmed" in out, out
    # the twin: --no-preview overrides the configuration; the run sees the divergence but no static
    # finding for it
    out = _run(tmp_path, "--no-preview")
    assert "0 confirmed" in out and "STG901" in out and "STG104" not in out, out
