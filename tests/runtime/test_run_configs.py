"""`stagelint run` starts under the pytest configurations projects have: warnings turned into errors,
`-p` plugins and `addopts` of their own, `--strict-markers`, `xfail_strict`, `conftest.py` at several
levels, in `pyproject.toml`, `pytest.ini`, `tox.ini` or `setup.cfg`. Each project below is one real
run (real pytest, real TensorFlow or JAX) whose tests end as they do under plain pytest; when pytest
cannot start, the message is pytest's own line."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap

import pytest

from stagelint.runtime.records import load_run

JAX_TESTS = """
    import jax
    import jax.numpy as jnp
    import pytest


    @jax.jit
    def double(x):
        return x * 2


    def test_plain():
        assert float(double(jnp.float32(2))) == 4.0


    @pytest.mark.slow
    def test_marked():
        assert float(double(jnp.float32(3))) == 6.0


    @pytest.mark.xfail(reason="known")
    def test_expected_failure():
        assert float(double(jnp.float32(1))) == 3.0
"""

TF_TESTS = """
    import pytest
    import tensorflow as tf


    @tf.function
    def double(x):
        return x * 2


    def test_plain(level):
        assert int(double(tf.constant(level))) == 2 * level


    @pytest.mark.slow
    def test_marked():
        assert int(double(tf.constant(3))) == 6


    @pytest.mark.xfail(reason="known")
    def test_expected_failure():
        assert int(double(tf.constant(1))) == 3
"""

EQX_TESTS = """
    import equinox as eqx
    import jax.numpy as jnp


    @eqx.filter_jit
    def double(x):
        return x * 2


    def test_double():
        assert float(double(jnp.float32(2))) == 4.0
"""

#: What plain pytest gives the tests above (checked by running it: see test_plain_pytest_agrees).
OUTCOMES = {"test_plain": "passed", "test_marked": "passed", "test_expected_failure": "skipped"}

#: A plugin of the project's own, loaded with `-p` from its configuration: an option and a fixture.
LEVEL_PLUGIN = """
    import pytest


    def pytest_addoption(parser):
        parser.addoption("--level", type=int, default=0)


    @pytest.fixture
    def level(request):
        return request.config.getoption("level")
"""

PROJECTS = {
    # pyproject.toml: the setting that stopped every forked run (issue 24), strict markers and xfail.
    "pyproject": ({
        "pyproject.toml": """
            [tool.pytest.ini_options]
            filterwarnings = ["error"]
            xfail_strict = true
            addopts = "--strict-markers -ra"
            markers = ["slow: slow tests"]
        """,
        "test_model.py": JAX_TESTS,
    }, "test_model.py"),
    # pytest.ini: a `-p` plugin and an option of its own in addopts.
    "pytest_ini": ({
        "pytest.ini": """
            [pytest]
            filterwarnings =
                error
            addopts = -p level_plugin --level=7 --strict-markers
            markers =
                slow: slow tests
        """,
        "level_plugin.py": LEVEL_PLUGIN,
        "test_model.py": TF_TESTS,
    }, "test_model.py"),
    # tox.ini: conftest.py at three levels, the deepest overriding a fixture, one importing JAX.
    "tox_ini": ({
        "tox.ini": """
            [tox]
            envlist = py

            [pytest]
            filterwarnings = error
            xfail_strict = true
            markers =
                slow: slow tests
            addopts = --strict-markers
        """,
        "conftest.py": """
            import pytest


            @pytest.fixture
            def base():
                return 1
        """,
        "tests/conftest.py": """
            import jax.numpy as jnp
            import pytest


            @pytest.fixture
            def scale(base):
                return jnp.float32(base)
        """,
        "tests/unit/conftest.py": """
            import pytest


            @pytest.fixture
            def scale(scale):
                return scale * 10
        """,
        "tests/unit/test_model.py": JAX_TESTS + """

    def test_fixtures(scale):
        assert float(double(scale)) == 20.0
""",
    }, "tests/unit/test_model.py"),
    # setup.cfg: the plugin given on stagelint's own command line instead.
    "setup_cfg": ({
        "setup.cfg": """
            [metadata]
            name = demo

            [tool:pytest]
            filterwarnings =
                error
                ignore:an ignored warning:UserWarning
            xfail_strict = true
            addopts = --strict-markers
            markers =
                slow: slow tests
        """,
        "level_plugin.py": LEVEL_PLUGIN,
        "test_model.py": TF_TESTS + """

    def test_ignored_warning():
        import warnings
        assert int(double(tf.constant(2))) == 4  # staged: the eager run runs this test too
        warnings.warn("an ignored warning", UserWarning)
""",
    }, "test_model.py -p level_plugin --level=5"),
}

EXTRA = {"tox_ini": {"test_fixtures": "passed"}, "setup_cfg": {"test_ignored_warning": "passed"}}


def _write(root, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"))


def _stagelint(root, args: list[str], fork: bool = True) -> subprocess.CompletedProcess:
    env = dict(os.environ, STAGELINT_RUN_FORK="1" if fork else "0")
    return subprocess.run([sys.executable, "-m", "stagelint", "run", *args], cwd=root, capture_output=True,
                          text=True, timeout=600, env=env)


@pytest.mark.parametrize("name, fork", [
    pytest.param("pyproject", True, marks=pytest.mark.jax),
    pytest.param("pyproject", False, marks=pytest.mark.jax),
    pytest.param("pytest_ini", True, marks=pytest.mark.tf),
    pytest.param("tox_ini", True, marks=pytest.mark.jax),
    pytest.param("setup_cfg", True, marks=pytest.mark.tf),
])
def test_runs_start_under_the_project_configuration(tmp_path, name, fork):
    files, target = PROJECTS[name]
    _write(tmp_path, files)
    records = tmp_path / "records"
    proc = _stagelint(tmp_path, [*target.split(), "--output-format", "json", "--keep-records", str(records)], fork)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    report = json.loads(proc.stdout)
    expected = {**OUTCOMES, **EXTRA.get(name, {})}
    for mode in ("graph", "eager"):
        assert report["runs"][mode]["status"] == "ok", report["runs"][mode]
        run = load_run(str(records / f"{mode}.jsonl"), mode)
        assert {t.rsplit("::", 1)[1]: run.test_status(t) for t in run.tests} == expected
        output = (records / f"{mode}.out").read_text()
        # The warning that was an error here must not reach any project's output either.
        assert "PytestAssertRewriteWarning" not in output
    (function,) = report["functions"]
    assert function["name"].endswith("test_model.double") and function["eager_vs_graph"] == "same"
    assert function["calls"] == len(expected)


@pytest.mark.tf
def test_plain_pytest_agrees(tmp_path):
    """The outcomes the runs above are held to are plain pytest's (one project, TensorFlow's)."""
    files, target = PROJECTS["setup_cfg"]
    _write(tmp_path, files)
    proc = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-rA", *target.split()],
                          cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout
    summary = {line.split("::")[-1].split()[0]: line.split()[0] for line in proc.stdout.splitlines()
               if line.startswith(("PASSED", "XFAIL"))}
    expected = {**OUTCOMES, **EXTRA["setup_cfg"]}
    assert summary == {t: {"passed": "PASSED", "skipped": "XFAIL"}[o] for t, o in expected.items()}


@pytest.mark.parametrize("fork", [True, False])
def test_a_plugin_that_cannot_load_is_named_with_pytest_s_line(tmp_path, fork):
    """A `-p` plugin whose import warns, under `filterwarnings = error`: pytest stops before any
    test, and the message is pytest's own line and its cause, not an empty output."""
    _write(tmp_path, {
        "pytest.ini": "[pytest]\nfilterwarnings = error\naddopts = -p noisy\n",
        "noisy.py": "import warnings\nwarnings.warn('noisy is deprecated', DeprecationWarning)\n",
        "test_a.py": "def test_a():\n    pass\n",
    })
    proc = _stagelint(tmp_path, ["test_a.py"], fork)
    assert proc.returncode == 2 and proc.stdout == "", proc.stdout + proc.stderr
    (message,) = [line for line in proc.stderr.splitlines() if not line.startswith("stagelint run: graph ")]
    assert message == ('stagelint run: pytest did not start (exit code 3): Error while loading plugin "noisy": '
                       "DeprecationWarning: noisy is deprecated")


def test_a_configuration_warning_made_an_error_is_named(tmp_path):
    """pytest starts, then stops on a warning of its own that the configuration makes an error:
    the run's status says which."""
    _write(tmp_path, {
        "pyproject.toml": '[tool.pytest.ini_options]\nfilterwarnings = ["error"]\nno_such_option = 1\n',
        "test_a.py": "def test_a():\n    pass\n",
    })
    proc = _stagelint(tmp_path, ["test_a.py", "--output-format", "json"])
    assert proc.returncode == 2, proc.stderr
    for status in json.loads(proc.stdout)["runs"].values():
        assert status["detail"] == "pytest exit code 3: pytest.PytestConfigWarning: Unknown config option: no_such_option"


@pytest.mark.jax
@pytest.mark.parametrize("fork", [True, False])
def test_a_plugin_the_frameworks_bring_does_not_stop_the_runs(tmp_path, fork):
    """Equinox imports jaxtyping, which is also an installed pytest plugin (a `pytest11` entry
    point). The fork server imports Equinox before pytest starts, so pytest cannot rewrite that
    plugin and warns: an error under `filterwarnings = error`, where plain pytest is silent. The
    runs start, and the tests' own warnings are still errors."""
    _write(tmp_path, {
        "pyproject.toml": '[tool.pytest.ini_options]\nfilterwarnings = ["error"]\n',
        "test_eqx.py": EQX_TESTS + """

    def test_warnings_are_still_errors():
        import warnings

        import pytest

        assert float(double(jnp.float32(1))) == 2.0  # staged: the eager run runs this test too
        with pytest.raises(UserWarning):
            warnings.warn("still an error", UserWarning)
""",
    })
    records = tmp_path / "records"
    proc = _stagelint(tmp_path, ["test_eqx.py", "--output-format", "json", "--keep-records", str(records)], fork)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    report = json.loads(proc.stdout)
    for mode in ("graph", "eager"):
        assert report["runs"][mode]["status"] == "ok", report["runs"][mode]
        run = load_run(str(records / f"{mode}.jsonl"), mode)
        assert sorted(run.test_status(t) for t in run.tests) == ["passed", "passed"]


@pytest.mark.jax
def test_a_framework_the_project_holds_is_left_for_pytest_to_import(tmp_path):
    """The project is Equinox itself (its own `equinox/` package beside the tests), and its
    configuration hands that package to jaxtyping's pytest plugin, which refuses to start when the
    package is already imported. The fork server preloads installed frameworks only; the code
    under test is pytest's to import, and the recorder patches it then: the runs start and record
    its staged calls."""
    import equinox

    shutil.copytree(os.path.dirname(equinox.__file__), tmp_path / "equinox",
                    ignore=shutil.ignore_patterns("__pycache__"))
    _write(tmp_path, {
        "pyproject.toml": """
            [tool.pytest.ini_options]
            addopts = "--jaxtyping-packages=equinox,beartype.beartype"
            filterwarnings = ["error"]
        """,
        "tests/test_double.py": EQX_TESTS,
    })
    records = tmp_path / "records"
    proc = _stagelint(tmp_path, ["tests/test_double.py", "--output-format", "json", "--keep-records", str(records),
                                 "--no-cache"])
    assert proc.returncode == 0, proc.stdout + proc.stderr
    report = json.loads(proc.stdout)
    for mode in ("graph", "eager"):
        assert report["runs"][mode]["status"] == "ok", report["runs"][mode]
        run = load_run(str(records / f"{mode}.jsonl"), mode)
        assert [run.test_status(t) for t in run.tests] == ["passed"]
    (function,) = [f for f in report["functions"] if f["name"].endswith("double")]
    assert function["calls"] == 1
