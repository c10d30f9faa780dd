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


def _of_tests(tmp_path, files: dict[str, str]) -> frozenset[str]:
    return frameworks.of_tests([_project(tmp_path, files)])


@pytest.mark.parametrize("source, expected", [
    ("import tensorflow as tf\n", {"tf"}),
    ("import jax.numpy as jnp\n", {"jax"}),
    ("from flax import nnx\n", {"jax", "flax"}),
    ("import equinox as eqx\nimport tensorflow as tf\n", {"tf", "jax", "equinox"}),
    ("import numpy as np\n", set()),  # neither: both are patched if the tests import them
    # What runs when the module is imported: a class body, a guarded import.
    ("class T:\n    import jax\n", {"jax"}),
    ("try:\n    import tensorflow as tf\nexcept ImportError:\n    tf = None\n", {"tf"}),
    # What does not: a function's body, a type-checking block.
    ("def test_a():\n    import tensorflow as tf\n", set()),
    ("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import jax\nelse:\n    import numpy\n", set()),
    ("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import numpy\nelse:\n    import jax\n", {"jax"}),
    # Nor what runs only if a condition holds: a backend chosen by configuration, a fallback.
    ("import os\nif os.environ.get('BACKEND') == 'jax':\n    import jax\nelse:\n    import tensorflow\n", set()),
    ("try:\n    import tensorflow as tf\nexcept ImportError:\n    import jax\n", {"tf"}),
])
def test_frameworks_from_the_test_module_imports(tmp_path, source, expected):
    assert _of_tests(tmp_path, {"test_m.py": source}) == expected


def test_frameworks_follow_project_imports(tmp_path):
    assert _of_tests(tmp_path, {"test_m.py": "import model\n", "model.py": "import jax\n"}) == {"jax"}


def test_a_function_local_import_in_the_project_brings_no_framework(tmp_path):
    """An export helper's `import tensorflow`, and a module only a function's body imports, are not
    imported by the session."""
    assert _of_tests(tmp_path, {
        "test_m.py": "import model\n",
        "model.py": "import jax\n\ndef export():\n    import tensorflow\n    import saving\n",
        "saving.py": "import tensorflow as tf\n",
    }) == {"jax"}


def test_a_module_imported_under_a_condition_is_not_followed(tmp_path):
    """Keras 3's way: `backend/__init__.py` imports the backend it is configured with under
    `if backend() == ...:`; the session imports one of them, not all."""
    assert _of_tests(tmp_path, {
        "test_m.py": "import backend\n",
        "backend.py": "from config import name\nif name() == 'jax':\n    from jax_backend import *\n"
                      "elif name() == 'tensorflow':\n    from tf_backend import *\n",
        "config.py": "def name():\n    return 'tensorflow'\n",
        "jax_backend.py": "import jax\n",
        "tf_backend.py": "import tensorflow\n",
    }) == set()
    assert _of_tests(tmp_path, {"test_m.py": "import tf_backend\n", "tf_backend.py": "import tensorflow\n"}) == {"tf"}


def test_each_file_is_parsed_once_for_all_the_scans(tmp_path, monkeypatch):
    """`stagelint run` scans the same files for the frameworks, the files to lint and the direct
    imports; inside `reading_once` each is read and parsed once."""
    from stagelint.runtime import lint

    test = _project(tmp_path, {"test_m.py": "import model\n", "model.py": "import jax\nimport helpers\n",
                               "helpers.py": "def f():\n    import saving\n", "saving.py": "x = 1\n"})
    parsed = []
    parse = lint.ast.parse
    monkeypatch.setattr(lint.ast, "parse", lambda data, filename, **kw: parsed.append(filename) or parse(data, filename))
    with lint.reading_once():
        assert frameworks.of_tests([test]) == {"jax"}
        assert len(lint.project_files(test)) == 4
        assert [os.path.basename(p) for p in lint.direct_imports(test)] == ["model.py"]
    assert sorted(os.path.basename(p) for p in parsed) == ["helpers.py", "model.py", "saving.py", "test_m.py"]
    parsed.clear()
    lint.project_files(test)  # outside: read afresh (the files may have changed)
    assert len(parsed) == 4


def test_a_dotted_import_runs_its_packages_and_conftests_count(tmp_path):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "tests").mkdir()
    assert _of_tests(tmp_path, {
        "tests/test_m.py": "import pkg.sub\n",
        "pkg/__init__.py": "import tensorflow\n",
        "pkg/sub.py": "x = 1\n",
    }) == {"tf"}
    assert _of_tests(tmp_path, {"tests/test_m.py": "x = 1\n", "conftest.py": "import jax\n"}) == {"jax"}


def test_the_frameworks_named_by_the_test_modules_come_first(tmp_path):
    """What the fork server imports at once, while `stagelint run` follows the project's imports:
    the test module's and its conftest's own imports, part of the whole answer."""
    test = _project(tmp_path, {"test_m.py": "import tensorflow\nimport model\n", "model.py": "import jax\n"})
    assert (frameworks.named_by([test]), frameworks.of_tests([test])) == ({"tf"}, {"tf", "jax"})
    (tmp_path / "conftest.py").write_text("import flax\n")
    assert frameworks.named_by([test]) == {"tf", "jax", "flax"}


def _fork_server(tmp_path, instructions: str) -> subprocess.CompletedProcess:
    (tmp_path / "pyproject.toml").write_text("")
    (tmp_path / "test_m.py").write_text("def test_a():\n    assert 1 + 1 == 2\n")
    work = tmp_path / "work"
    work.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("STAGELINT", "PYTEST_"))}
    return subprocess.run([sys.executable, "-m", "stagelint.runtime.forkserver", str(work), "test_m.py"],
                          input=instructions, capture_output=True, text=True, cwd=tmp_path, env=env, timeout=300)


def test_the_fork_server_forks_the_runs_once_told_all_the_frameworks(tmp_path):
    proc = _fork_server(tmp_path, "import:\nrun:\n")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    work = tmp_path / "work"
    assert [(work / f"{mode}.status").read_text() for mode in ("graph", "eager")] == ["0", "0"]
    assert '"ev":"end"' in (work / "graph.jsonl").read_text()


def test_the_fork_server_forks_nothing_when_its_input_ends_before_the_whole_list(tmp_path):
    """`stagelint run` interrupted, or failing, while it follows the project's imports."""
    proc = _fork_server(tmp_path, "import:\n")
    assert proc.returncode == 3, proc.stdout + proc.stderr
    assert sorted(p.name for p in (tmp_path / "work").iterdir()) == []


def test_environment_round_trip():
    env = {frameworks.ENV: frameworks.to_env(frozenset({"jax", "flax"}))}
    assert frameworks.from_env(env) == {"jax", "flax"}
    assert frameworks.from_env({}) == set()


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


@pytest.mark.jax
def test_a_jax_suite_imports_tensorflow_only_when_a_test_does(tmp_path):
    """The library's export helper imports TensorFlow in its body: the runs start without it (no
    TensorFlow start-up cost), and when a later test imports it, its tf.function is recorded as
    any other, graph in one run and eager in the other; so is Equinox's filter_jit, imported by a
    test's body."""
    import json

    from stagelint.runtime.records import load_run

    (tmp_path / "pyproject.toml").write_text("")
    (tmp_path / "mylib").mkdir()
    (tmp_path / "mylib" / "__init__.py").write_text(textwrap.dedent("""
        import jax


        @jax.jit
        def scale(x):
            return x * 3


        def export(fn):
            import tensorflow as tf  # only the export helper needs it
            return tf.function(fn)
    """))
    (tmp_path / "test_lib.py").write_text(textwrap.dedent("""
        import sys

        import jax.numpy as jnp

        from mylib import export, scale


        def test_scale():
            assert float(scale(jnp.float32(2))) == 6.0
            assert "tensorflow" not in sys.modules


        def test_export():
            import tensorflow as tf

            def double(x):
                print("body ran")
                return x * 2

            exported = export(double)
            assert [int(exported(tf.constant(2))), int(exported(tf.constant(3)))] == [4, 6]


        def test_equinox_imported_late():
            # Equinox imports JAX's modules in the middle of its own import: patched after it.
            import equinox as eqx

            @eqx.filter_jit
            def halve(x):
                return x / 2

            assert float(halve(jnp.float32(4))) == 2.0
    """))
    for fork in ("1", "0"):
        records = tmp_path / f"records{fork}"
        env = dict(os.environ, STAGELINT_RUN_FORK=fork)
        proc = subprocess.run([sys.executable, "-m", "stagelint", "run", "test_lib.py", "--output-format", "json",
                               "--keep-records", str(records)], cwd=tmp_path, capture_output=True, text=True,
                              env=env, timeout=600)
        assert proc.returncode == 0, proc.stdout + proc.stderr
        assert json.loads(proc.stdout)["tests"] == {"passed": 3, "failed": 0, "errors": 0}
        outputs = {}
        for mode in ("graph", "eager"):
            run = load_run(str(records / f"{mode}.jsonl"), mode)
            assert run.test_status(next(t for t in run.tests if t.endswith("test_scale"))) == "passed"
            outputs[mode] = [c.output for c in run.calls if run.functions[c.fn].qualname.endswith("double")]
            assert [run.functions[c.fn].qualname for c in run.calls if c.test.endswith("late")] == [
                "test_equinox_imported_late.halve"]
        # The graph run traces once; the eager run runs the body at every call.
        assert outputs == {"graph": ["body ran\n", ""], "eager": ["body ran\n", "body ran\n"]}
