"""The `--unsafe-fixes` tier: fixes that can change what a value is or where output goes are
applied only on request, and the output says how many are waiting. The facts that make them
unsafe are checked by running TensorFlow on the code before and after the fix."""

from __future__ import annotations

import json
import sys

from integration_support import run, stagelint, write_tree

SOURCE = """
import sys

import numpy as np
import tensorflow as tf


@tf.function
def show(x):
    print("tracing", x)
    print("to stderr", file=sys.stderr)
    return x


@tf.function
def augment(img):
    lower = np.random.uniform(0.2, 0.5)
    return tf.image.random_contrast(img, lower, 0.9)


if __name__ == "__main__":
    show(tf.constant(1))
    try:
        for _ in range(2):  # the second call reuses the trace, and its draw
            augment(tf.ones((4, 4, 3)))
        print("RESULT ok")
    except Exception as e:
        print("RESULT", type(e).__name__)
"""


def test_safe_fixes_only_unless_asked(tmp_path):
    write_tree(tmp_path, {"m.py": SOURCE})
    data = json.loads(stagelint("check", "--output-format", "json", ".", cwd=tmp_path).stdout)
    assert [(f["line"], f["code"], f["fix"]["applicability"]) for f in data] == [
        (9, "STG101", "unsafe"), (10, "STG101", "safe"), (16, "STG104", "unsafe")]
    full = stagelint("check", ".", cwd=tmp_path)
    assert full.stdout.rstrip().endswith(
        "[*] 1 fixable with `--fix` (2 hidden fixes can be enabled with the `--unsafe-fixes` option).")
    assert [line.split(" ")[1:3] for line in full.stdout.splitlines() if line.startswith("m.py:")] == [
        ["STG101", "[trace-time-side-effect]"], ["STG101", "[*]"], ["STG104", "[frozen-python-value]"]]

    diff = stagelint("check", "--diff", ".", cwd=tmp_path)
    added = [line for line in diff.stdout.splitlines() if line.startswith("+") and not line.startswith("+++")]
    assert len(added) == 1 and "+    tf.print(\"to stderr\", output_stream=sys.stderr)" in diff.stdout
    assert diff.stderr.strip() == "Would fix 1 finding (2 hidden fixes can be enabled with the `--unsafe-fixes` option)."

    fixed = stagelint("check", "--fix", "--output-format", "concise", ".", cwd=tmp_path)
    text = (tmp_path / "m.py").read_text()
    assert 'tf.print("to stderr", output_stream=sys.stderr)' in text and "np.random.uniform" in text
    assert 'print("tracing"' in text and "tf.print(\"tracing\"" not in text
    assert fixed.returncode == 1 and "Fixed 1 finding in 1 file." in fixed.stderr
    # Now only unsafe fixes are left: ruff's words for that.
    assert fixed.stdout.rstrip().endswith("No fixes available (2 hidden fixes can be enabled with the `--unsafe-fixes` option).")


def test_unsafe_fixes_change_what_the_program_does(tmp_path):
    """The reasons, under TensorFlow: np.random.uniform -> tf.random.uniform turns `lower` into a
    tensor, which tf.image.random_contrast refuses in a graph; print -> tf.print moves the
    output from stdout to stderr. `--no-unsafe-fixes` wins over the configuration's `unsafe-fixes`."""
    write_tree(tmp_path, {"m.py": SOURCE, "pyproject.toml": "[tool.stagelint]\nunsafe-fixes = true\n"})
    before = run([sys.executable, "m.py"], cwd=tmp_path, timeout=600)
    assert "RESULT ok" in before.stdout and "tracing" in before.stdout, before.stderr[-2000:]

    refused = stagelint("check", "--fix", "--no-unsafe-fixes", ".", cwd=tmp_path)
    assert "np.random.uniform" in (tmp_path / "m.py").read_text(), refused.stderr
    proc = stagelint("check", "--fix", ".", cwd=tmp_path)  # the configuration asks for them
    assert "Fixed 2 findings in 1 file." in proc.stderr, proc.stderr
    text = (tmp_path / "m.py").read_text()
    assert "lower = tf.random.uniform((), minval=0.2, maxval=0.5)" in text and 'tf.print("tracing"' in text
    after = run([sys.executable, "m.py"], cwd=tmp_path, timeout=600)
    assert "RESULT OperatorNotAllowedInGraphError" in after.stdout, after.stderr[-2000:]
    assert "tracing" not in after.stdout and "tracing" in after.stderr


STREAMS = """
import sys

import tensorflow as tf


@tf.function
def show(x):
    print("show", x, file=sys.stdout)
    return x + 1


def parse(x):
    print("parse", x, file=sys.stdout)
    return x * 2


@tf.function(jit_compile=True)
def compiled(x):
    print("compiled", x, file=sys.stdout)
    return x + 1


if __name__ == "__main__":
    show(tf.constant(1))
    show(tf.constant(2))
    print("RESULT data", [int(v) for v in tf.data.Dataset.range(2).map(parse)])
    try:
        compiled(tf.constant(1.0))
        compiled(tf.constant(2.0))
        print("RESULT compiled ok")
    except Exception as e:
        print("RESULT compiled", type(e).__name__)
"""


def test_print_to_a_stream_is_safe_where_no_xla_compiles_it(tmp_path):
    """print(..., file=sys.stdout) -> tf.print(..., output_stream=sys.stdout) keeps a plain
    tf.function and a tf.data function working and prints on every call; under
    `jit_compile=True` XLA has no PrintV2 and the fixed code raises, so that fix is unsafe."""
    write_tree(tmp_path, {"m.py": STREAMS})
    data = json.loads(stagelint("check", "--output-format", "json", ".", cwd=tmp_path).stdout)
    assert [(f["line"], f["fix"]["applicability"]) for f in data] == [(8, "safe"), (13, "safe"), (19, "unsafe")]
    before = run([sys.executable, "m.py"], cwd=tmp_path, timeout=600)
    assert "RESULT data [0, 2]" in before.stdout and "RESULT compiled ok" in before.stdout, before.stderr[-2000:]
    assert before.stdout.count("show") == 1  # once, while tracing

    stagelint("check", "--fix", ".", cwd=tmp_path)
    text = (tmp_path / "m.py").read_text()
    assert 'tf.print("show", x, output_stream=sys.stdout)' in text and 'print("compiled", x, file=sys.stdout)' in text
    after = run([sys.executable, "m.py"], cwd=tmp_path, timeout=600)
    assert "RESULT data [0, 2]" in after.stdout and "RESULT compiled ok" in after.stdout, after.stderr[-2000:]
    assert after.stdout.count("show") == 2 and after.stdout.count("parse") == 2  # on every call, on stdout

    stagelint("check", "--fix", "--unsafe-fixes", ".", cwd=tmp_path)
    assert 'tf.print("compiled", x, output_stream=sys.stdout)' in (tmp_path / "m.py").read_text()
    broken = run([sys.executable, "m.py"], cwd=tmp_path, timeout=600)
    assert "RESULT compiled InvalidArgumentError" in broken.stdout, broken.stderr[-2000:]
