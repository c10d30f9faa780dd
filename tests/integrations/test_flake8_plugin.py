"""The flake8 plugin, through real flake8 in subprocesses: the same findings as `stagelint check`
on the same paths, flake8's own noqa and options on top."""

from __future__ import annotations

import shutil
import textwrap
import time

from integration_support import (OVER_TWO_SECONDS, PROJECT, ROOT, SLOW_TO_ANALYSE, flake8, marked_in, reported,
                                 stagelint, write_tree)

from stagelint.rules import all_rules
from stagelint.rules.base import example_source


def _both(paths, cwd, *flake8_args, select="STG"):
    lint = flake8("--select", select, *flake8_args, *paths, cwd=cwd)
    check = stagelint("check", "--output-format", "concise", *paths, cwd=cwd)
    assert lint.returncode in (0, 1), lint.stderr
    assert check.returncode in (0, 1), check.stderr
    return reported(lint.stdout), reported(check.stdout), lint, check


def test_project_same_findings_as_check_and_as_marked():
    from_flake8, from_check, lint, _ = _both(["."], PROJECT)
    assert from_flake8 == from_check
    assert {(p, line, code) for p, line, _, code in from_flake8} == marked_in(PROJECT)
    # A helper with no TensorFlow in it, staged from another module, is reported in flake8 too.
    assert ("pkg/utils.py", 7, 5, "STG101") in from_flake8
    assert "pkg/utils.py:7:5: STG101 [trace-time-side-effect] `print()` runs only while `log_metrics`" in lint.stdout
    assert lint.returncode == 1


def test_every_rule_example_same_as_check(tmp_path):
    files = {}
    for rule in all_rules():
        for kind in ("invalid", "valid"):
            for i, example in enumerate(getattr(rule, kind)):
                files[f"{rule.code.lower()}_{kind}_{i}.py"] = example_source(example)
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    _, from_check, lint, _ = _both(["."], tmp_path, select="STG,E999")
    from_flake8 = reported(lint.stdout)
    assert from_check, "the invalid examples must produce findings"
    # A file that does not parse is flake8's own E999: flake8 never hands it to a plugin.
    unparsable = {(p, line) for p, line, _, code in from_check if code == "STG000"}
    assert unparsable
    assert from_flake8 == {f for f in from_check if f[3] != "STG000"}
    e999 = reported(lint.stdout, codes=("E999",))
    assert {(p, line) for p, line, _, _ in e999} == unparsable


def test_bundled_example_same_as_check():
    from_flake8, from_check, _, _ = _both(["examples/"], ROOT)
    assert len(from_flake8) >= 6
    assert from_flake8 == from_check


def test_one_file_is_checked_like_stagelint_check_of_that_file():
    # Given alone, utils.py is still checked as part of its project (the fixture's setup.cfg
    # marks the root), so the helper staged from model.py is reported, as with check.
    for path in ("pkg/utils.py", "pkg/uses_wrapper.py"):
        from_flake8, from_check, _, _ = _both([path], PROJECT)
        assert from_flake8 == from_check
    assert ("pkg/utils.py", 7, 5, "STG101") in _both(["pkg/utils.py"], PROJECT)[0]


def test_files_that_never_spell_jax_get_their_jax_findings_as_with_check(tmp_path):
    """The framework gate (`screen.framework_reach`): a helper a jitted function calls and a caller
    of a jitted function never spell `jax`; given alone, or on standard input, they are checked
    with the JAX rules because their project links them to a JAX file. (STG604 and STG504 are
    held back in JAX code, `Rule.preview_under`: the project turns the preview tier on.)"""
    write_tree(tmp_path, {
        "pyproject.toml": "[tool.stagelint]\npreview = true\n", "pkg/__init__.py": "",
        "pkg/helpers.py": "def positive(x):\n    return x[x > 0]\n",
        "pkg/caller.py": "from pkg.train import scale\n\n\ndef run(x):\n    return scale(x, [1, 2])\n",
        "pkg/train.py": """
            import functools

            import jax

            from pkg.helpers import positive


            @jax.jit
            def step(x):
                return positive(x)


            @functools.partial(jax.jit, static_argnums=1)
            def scale(x, factors):
                return x * len(factors)
            """,
    })
    for path, code in (("pkg/helpers.py", "STG604"), ("pkg/caller.py", "STG504")):
        from_flake8, from_check, _, _ = _both([path], tmp_path)
        assert from_flake8 == from_check and {c for _, _, _, c in from_flake8} == {code}
        stdin = flake8("--select", "STG", "--stdin-display-name", path, "-", cwd=tmp_path,
                       input=(tmp_path / path).read_text())
        assert reported(stdin.stdout) == from_check


def test_parallel_flake8_gives_the_same_findings():
    one = flake8("--select", "STG", "-j", "1", ".", cwd=PROJECT)
    two = flake8("--select", "STG", "-j", "2", ".", cwd=PROJECT)
    assert reported(one.stdout) == reported(two.stdout) != set()


def test_noqa_is_left_to_flake8():
    with_noqa = reported(flake8("--select", "STG", "pkg/model.py", cwd=PROJECT).stdout)
    without = reported(flake8("--select", "STG", "--disable-noqa", "pkg/model.py", cwd=PROJECT).stdout)
    assert {line for _, line, _, _ in without} - {line for _, line, _, _ in with_noqa} == {10, 15}


def test_standard_input_is_checked_from_its_text():
    source = (PROJECT / "pkg" / "model.py").read_text()
    unsaved = source.replace("    log_metrics(loss)\n", "    log_metrics(loss)\n    print('unsaved')\n")
    proc = flake8("--select", "STG", "--stdin-display-name", "pkg/model.py", "-", cwd=PROJECT, input=unsaved)
    lines = {(line, code) for _, line, _, code in reported(proc.stdout)}
    assert (10, "STG101") in lines  # the new line
    assert (12, "STG101") in lines  # the old line 11, moved down by one
    assert proc.returncode == 1


def test_flake8_options_apply_on_top(tmp_path):
    shutil.copytree(PROJECT, tmp_path / "p")
    (tmp_path / "p" / "setup.cfg").write_text(textwrap.dedent("""
        [flake8]
        extend-ignore = STG201
        per-file-ignores =
            pkg/custom.py: STG101
    """))
    found = reported(flake8("--select", "STG", ".", cwd=tmp_path / "p").stdout)
    assert not any(code == "STG201" for *_, code in found)
    assert not any(path == "pkg/custom.py" for path, *_ in found)
    assert ("pkg/utils.py", 7, 5, "STG101") in found


def test_tool_stagelint_table_is_honoured_under_flake8(tmp_path):
    shutil.copytree(PROJECT, tmp_path / "p")
    (tmp_path / "p" / "pyproject.toml").write_text(textwrap.dedent("""
        [tool.stagelint]
        ignore = ["STG201"]
        keras-methods = false
        per-file-ignores = {"pkg/uses_wrapper.py" = ["STG1"]}
    """))
    from_flake8, from_check, _, _ = _both(["."], tmp_path / "p")
    assert from_flake8 == from_check
    paths_codes = {(p, c) for p, _, _, c in from_flake8}
    assert ("pkg/utils.py", "STG201") not in paths_codes
    assert ("pkg/custom.py", "STG101") not in paths_codes  # keras-methods = false
    assert ("pkg/uses_wrapper.py", "STG101") not in paths_codes
    assert ("pkg/utils.py", "STG101") in paths_codes


def test_stagelint_config_option_in_flake8_config(tmp_path):
    write_tree(tmp_path, {
        "lint/stagelint.toml": """
            [tool.stagelint]
            staging-decorators = ["mylib.compiled"]
        """,
        "setup.cfg": """
            [flake8]
            stagelint-config = lint/stagelint.toml
        """,
        "mylib.py": """
            def compiled(fn):
                return fn
        """,
        "train.py": """
            from mylib import compiled


            @compiled
            def step(x):
                print(x)
                return x
        """,
    })
    found = reported(flake8("--select", "STG", ".", cwd=tmp_path).stdout)
    assert found == {("train.py", 6, 5, "STG101")}
    assert reported(flake8("--select", "STG", "--stagelint-config", "", ".", cwd=tmp_path).stdout) == set()


def test_config_error_stops_flake8_with_file_and_key(tmp_path):
    write_tree(tmp_path, {
        "pyproject.toml": """
            [tool.stagelint]
            selcet = ["STG1"]
        """,
        "a.py": "x = 1\n",
    })
    proc = flake8("--select", "STG", ".", cwd=tmp_path)
    assert proc.returncode == 2
    assert "pyproject.toml" in proc.stderr and "'selcet'" in proc.stderr and "did you mean 'select'" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_flake8_lists_the_plugin():
    proc = flake8("--version", cwd=ROOT)
    assert "stagelint:" in proc.stdout


def test_plugin_inside_a_daemonic_worker(tmp_path):
    """Where flake8 spawns instead of forking, its (daemonic) workers run the check themselves,
    in-process: starting worker processes there would fail."""
    import multiprocessing

    shutil.copytree(PROJECT, tmp_path / "p")
    ctx = multiprocessing.get_context("spawn")
    queue = ctx.Queue()
    proc = ctx.Process(target=_run_plugin_in_child, args=(str(tmp_path / "p"), queue), daemon=True)
    proc.start()
    out = queue.get(timeout=120)
    proc.join(timeout=30)
    assert out == [(7, 4, "STG101"), (8, 4, "STG201")]


def _run_plugin_in_child(cwd, queue, files=("pkg/utils.py",)):
    import ast
    import contextlib
    import io
    import os

    os.chdir(cwd)
    from stagelint.flake8_plugin import StagelintChecker

    class Options:
        filenames = ["."]
        stagelint_config = None

    StagelintChecker.parse_options(Options)
    said = io.StringIO()
    found = []
    with contextlib.redirect_stderr(said):
        for name in files:
            source = open(name).read()
            checker = StagelintChecker(ast.parse(source), f"./{name}", source.splitlines(keepends=True))
            found.extend((line, col, text.split()[0]) for line, col, text, _ in checker.run())
    queue.put(found if files == ("pkg/utils.py",) else (found, said.getvalue()))


def test_flake8_version_names_the_plugin_as_the_docs_show(tmp_path):
    """flake8 names a plugin by its distribution: the line docs/integrations.md prints."""
    import re

    from stagelint import __version__

    page = (ROOT / "docs" / "integrations.md").read_text(encoding="utf-8")
    (documented,) = re.findall(r"^\$ \S*flake8 --version\n(.*)\n", page, re.M)
    shown = flake8("--version", cwd=tmp_path, env={"COLUMNS": "200"})
    assert shown.returncode == 0
    plugins = re.compile(r"\(.*\)")
    assert f"tf-stagelint: {__version__}" in plugins.search(documented)[0]
    assert f"tf-stagelint: {__version__}" in plugins.search(shown.stdout)[0]


def test_the_time_budget_holds_on_standard_input_and_in_a_daemonic_worker(tmp_path):
    """`file-timeout` where the analysis runs in flake8's own process (no worker process of
    stagelint's to kill): a buffer on standard input, and a daemonic worker of flake8's."""
    import multiprocessing

    root = write_tree(tmp_path / "p", {
        "pyproject.toml": "[tool.stagelint]\nfile-timeout = 2\n",
        "ok.py": "import tensorflow as tf\n\n\n@tf.function\ndef f(x):\n    print(x)\n    return x\n",
    })
    start = time.monotonic()
    proc = flake8("--select", "STG", "--stdin-display-name", "slow.py", "-", cwd=root, input=SLOW_TO_ANALYSE)
    took = time.monotonic() - start
    assert proc.returncode == 0 and proc.stdout == "", proc.stdout + proc.stderr
    assert f"stagelint: slow.py: {OVER_TWO_SECONDS}" in proc.stderr and "Traceback" not in proc.stderr
    assert took < 60  # the budget and flake8's start; not the analysis' minute (generous: a shared machine)

    (root / "slow.py").write_text(SLOW_TO_ANALYSE)
    ctx = multiprocessing.get_context("spawn")
    queue = ctx.Queue()
    child = ctx.Process(target=_run_plugin_in_child, args=(str(root), queue, ("slow.py", "ok.py")), daemon=True)
    child.start()
    found, said = queue.get(timeout=120)
    child.join(timeout=30)
    assert found == [(6, 4, "STG101")]  # ok.py's print; slow.py abandoned at the budget
    assert said.splitlines() == [f"stagelint: slow.py: {OVER_TWO_SECONDS}"]
