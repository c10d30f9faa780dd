"""Which frameworks a test module gets, and that each run imports only those: a TensorFlow user
does not pay for JAX, and stagelint runs where only one of them is installed."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

from stagelint.runtime import frameworks

BLOCK = textwrap.dedent("""
    import sys
    class Block:
        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0] in BLOCKED:
                raise ImportError(f"{name} is not installed here")
    sys.meta_path.insert(0, Block())
""")


def _project(tmp_path, files: dict[str, str]) -> str:
    (tmp_path / "pyproject.toml").write_text("")
    for name, text in files.items():
        (tmp_path / name).write_text(textwrap.dedent(text))
    return str(tmp_path / next(iter(files)))


@pytest.mark.parametrize("source, expected", [
    ("import tensorflow as tf\n", {"tf"}),
    ("import jax.numpy as jnp\n", {"jax"}),
    ("from flax import nnx\n", {"jax", "flax"}),
    ("import equinox as eqx\nimport tensorflow as tf\n", {"tf", "jax", "equinox"}),
    ("import numpy as np\n", {"tf"}),  # neither: as before JAX was supported
])
def test_frameworks_from_the_test_module_imports(tmp_path, source, expected):
    assert frameworks.of_test_module(_project(tmp_path, {"test_m.py": source})) == expected


def test_frameworks_follow_project_imports(tmp_path):
    test = _project(tmp_path, {"test_m.py": "import model\n", "model.py": "import jax\n"})
    assert frameworks.of_test_module(test) == {"jax"}


def test_environment_round_trip():
    env = {frameworks.ENV: frameworks.to_env(frozenset({"jax", "flax"}))}
    assert frameworks.from_env(env) == {"jax", "flax"}
    assert frameworks.from_env({}) == {"tf"}


def _python(code: str, blocked: tuple[str, ...], cwd) -> subprocess.CompletedProcess:
    script = f"BLOCKED = {blocked!r}\n" + BLOCK + textwrap.dedent(code)
    env = {k: v for k, v in os.environ.items() if not k.startswith("STAGELINT")}
    return subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=cwd, env=env,
                          timeout=120)


def test_the_parent_imports_neither_framework(tmp_path):
    """`stagelint run`'s own side (arguments, lint, verdicts, report) with neither installed."""
    proc = _python("""
        import stagelint.runtime.cli, stagelint.runtime.html, stagelint.runtime.forkserver
        import stagelint.runtime.pytest_plugin, stagelint.runtime.recorder, stagelint.runtime.jaxmode
        print(sorted(m for m in ("tensorflow", "jax") if m in sys.modules))
    """, ("tensorflow", "jax"), tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[]"


@pytest.mark.jax
def test_a_jax_run_without_tensorflow_installed(tmp_path):
    """The JAX recorder installs and records a call with TensorFlow not installed at all."""
    record = tmp_path / "graph.jsonl"
    proc = _python(f"""
        from stagelint.runtime import recorder
        rec = recorder.install({str(record)!r}, "graph", frozenset({{"jax"}}))
        rec.begin_test("t")
        import jax, jax.numpy as jnp
        import importlib.util, pathlib
        src = pathlib.Path({str(tmp_path)!r}) / "m.py"
        src.write_text("import jax\\n@jax.jit\\ndef f(x):\\n    return x + 1\\n")
        spec = importlib.util.spec_from_file_location("m", src)
        m = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(m)
        print(float(m.f(jnp.float32(1))), "tensorflow" in sys.modules)
    """, ("tensorflow",), tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["2.0", "False"]
    assert '"traced":1' in record.read_text()


@pytest.mark.tf
def test_a_tensorflow_run_without_jax_installed(tmp_path):
    proc = _python(f"""
        from stagelint.runtime import recorder
        recorder.install({str(tmp_path / "graph.jsonl")!r}, "graph", frozenset({{"tf"}}))
        print("jax" in sys.modules)
    """, ("jax",), tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["False"]


@pytest.mark.jax
def test_the_plugin_used_directly_records_jax_with_its_option(tmp_path):
    """`pytest -p stagelint.runtime.pytest_plugin --stagelint-frameworks jax`: the eager run runs the
    jitted functions as Python (no traces, the print at every call)."""
    import json
    from pathlib import Path

    record = tmp_path / "eager.jsonl"
    fixture = Path(__file__).parent / "fixtures" / "fx_jax_effects.py"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("STAGELINT", "PYTEST_XDIST"))}
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "stagelint.runtime.pytest_plugin",
                           "-p", "no:cacheprovider", "--stagelint-record", str(record), "--stagelint-mode", "eager",
                           "--stagelint-frameworks", "jax", str(fixture), "-k", "print_and_append"],
                          capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    calls = [json.loads(line) for line in record.read_text().splitlines() if '"ev":"call"' in line]
    assert [c["traced"] for c in calls] == [0, 0, 0]
    assert all(c["out"] == "tracing noisy_double\n" for c in calls)
