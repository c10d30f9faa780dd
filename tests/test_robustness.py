"""Never crash, never lose, never run what we only read: `stagelint check` on bad input."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

import hypothesmith
import libcst as cst
import pytest
from hypothesis import HealthCheck, given, settings

from stagelint.config import Settings
from stagelint.engine import analyze_source, check_paths

STAGED_PRINT = "import tensorflow as tf\n\n@tf.function\ndef f(x):\n    print(x)\n"


#: Root reads any file: without these two capabilities it is refused a file of mode 0 like
#: anyone, and still reads the checkout and its virtual environment (which an unprivileged user
#: may not: a clone in a `mktemp -d` folder is the owner's only).
WITHOUT_DAC_OVERRIDE = ["setpriv", "--bounding-set=-dac_override,-dac_read_search",
                        "--inh-caps=-dac_override,-dac_read_search"]


def run(*args, cwd, unprivileged=False):
    cmd = [sys.executable, "-m", "stagelint", *args]
    if unprivileged and os.geteuid() == 0:
        cmd = [*WITHOUT_DAC_OVERRIDE, *cmd]
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=180, env=env)


def lines_codes(result):
    return sorted((Path(f.path).name, f.line, f.code) for f in result.findings)


@pytest.mark.parametrize("name,data", [
    ("bom.py", b"\xef\xbb\xbf" + STAGED_PRINT.encode()),
    ("crlf.py", STAGED_PRINT.replace("\n", "\r\n").encode()),
    ("cr.py", STAGED_PRINT.replace("\n", "\r").encode()),
    ("tabs_formfeed.py", b"import tensorflow as tf\n\x0c\n@tf.function\ndef f(x):\n\tprint(x)\n"),
    ("latin1_cookie.py", b"# -*- coding: latin-1 -*-\nimport tensorflow as tf\n\n@tf.function\ndef f(x):\n    print('\xe9')\n"),
])
def test_encodings_and_line_endings_are_read_like_python(tmp_path, monkeypatch, name, data):
    (tmp_path / name).write_bytes(data)
    monkeypatch.chdir(tmp_path)
    result = check_paths([name])
    expected_line = 6 if "cookie" in name else 5
    assert lines_codes(result) == [(name, expected_line, "STG101")]
    assert not result.errors and not result.skipped


#: A tab after spaces in an indentation: Python compiles it (a tab is 8 columns, and 1, and the
#: comparisons agree), libcst 1.9 refuses it ("no matching outer block for dedent"). The string's
#: second line begins with a tab that is the string's own, not indentation.
TAB_AFTER_SPACES = ('import tensorflow as tf\n\n@tf.function\ndef f(x):\n  if x > 0:\n\t  print(x)\n'
                    '  s = """a\n\tb"""\n  return x\n')


def test_a_tab_after_spaces_that_python_compiles_is_checked_not_a_syntax_error(tmp_path, monkeypatch):
    compile(TAB_AFTER_SPACES, "f.py", "exec")
    with pytest.raises(cst.ParserSyntaxError):  # the parser limit the fallback is for
        cst.parse_module(TAB_AFTER_SPACES)
    (tmp_path / "f.py").write_text(TAB_AFTER_SPACES)
    monkeypatch.chdir(tmp_path)
    result = check_paths(["f.py"])
    assert lines_codes(result) == [("f.py", 6, "STG101")]
    assert result.findings[0].column == 4  # the file's column (the tab is one character)
    assert result.findings[0].fix is None  # the tree is of retabbed text: no fix against the file
    from stagelint.pipeline.perfile import parse_python
    assert '"""a\n\tb"""' in parse_python(TAB_AFTER_SPACES).code  # a string's tab kept


def test_a_tab_python_refuses_is_still_a_syntax_error(tmp_path, monkeypatch):
    # Spaces, then a tab: 8 columns with tab size 8, 1 with tab size 1 (Python's TabError).
    (tmp_path / "f.py").write_text("import tensorflow as tf\n\n@tf.function\ndef f(x):\n  if x:\n\tprint(x)\n  return x\n")
    monkeypatch.chdir(tmp_path)
    result = check_paths(["f.py"])
    assert lines_codes(result) == [("f.py", 6, "STG000")]
    assert "inconsistent use of tabs" in result.findings[0].message


def test_not_utf8_is_one_syntax_finding(tmp_path, monkeypatch):
    (tmp_path / "latin1.py").write_bytes(b"x = '\xe9'\n")
    (tmp_path / "ok.py").write_text(STAGED_PRINT)
    monkeypatch.chdir(tmp_path)
    result = check_paths(["."])
    assert lines_codes(result) == [("latin1.py", 1, "STG000"), ("ok.py", 5, "STG101")]
    assert "utf-8" in result.findings[0].message


def test_empty_file_and_directory_named_like_a_module(tmp_path, monkeypatch):
    (tmp_path / "empty.py").write_bytes(b"")
    (tmp_path / "pkg.py").mkdir()
    (tmp_path / "pkg.py" / "inner.py").write_text(STAGED_PRINT)
    monkeypatch.chdir(tmp_path)
    result = check_paths(["."])
    assert lines_codes(result) == [("inner.py", 5, "STG101")]
    assert result.files_checked == 2


def test_symlink_loop_terminates(tmp_path, monkeypatch):
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "m.py").write_text(STAGED_PRINT)
    os.symlink(tmp_path / "a", tmp_path / "a" / "again")  # a -> a/again -> a ...
    os.symlink("self", tmp_path / "self")  # a link to itself
    monkeypatch.chdir(tmp_path)
    result = check_paths(["."])
    assert lines_codes(result) == [("m.py", 5, "STG101")]


def test_a_name_two_modules_import_from_each_other_is_followed_once(tmp_path, monkeypatch):
    # The package re-exports `predict`; the defining module imports it back from the package
    # under `__main__`: resolving a class through those imports went round for ever.
    (tmp_path / "pkg" / "trainer").mkdir(parents=True)
    (tmp_path / "pkg" / "__init__.py").write_text("from .trainer.train import predict\n")
    (tmp_path / "pkg" / "trainer" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "trainer" / "train.py").write_text(textwrap.dedent("""\
        import equinox as eqx
        import jax


        def predict(model, x):
            inference_model = eqx.nn.inference_mode(model)

            @jax.jit
            def step(x):
                print(x)
                return inference_model(x)

            return step(x)


        if __name__ == "__main__":
            from pkg import predict
    """))
    monkeypatch.chdir(tmp_path)
    result = check_paths(["."])
    assert lines_codes(result) == [("train.py", 10, "STG101")]


def test_missing_path_exit_2_and_the_rest_still_reported(tmp_path):
    (tmp_path / "ok.py").write_text(STAGED_PRINT)
    proc = run("check", "--output-format", "json", "ok.py", "nope.py", cwd=tmp_path)
    assert proc.returncode == 2
    assert "stagelint: error: nope.py: no such file or directory" in proc.stderr
    assert [(o["path"], o["code"]) for o in json.loads(proc.stdout)] == [("ok.py", "STG101")]


def test_unreadable_file_is_reported_and_the_rest_checked():
    root = Path(tempfile.mkdtemp(prefix="stagelint-perm-"))
    try:
        (root / "ok.py").write_text(STAGED_PRINT)
        secret = root / "secret.py"
        secret.write_text(STAGED_PRINT)
        secret.chmod(0)
        proc = run("check", "--output-format", "json", ".", cwd=root, unprivileged=True)
        assert proc.returncode == 2, proc.stderr
        assert "secret.py: cannot read: Permission denied" in proc.stderr
        assert [(o["path"], o["code"]) for o in json.loads(proc.stdout)] == [("ok.py", "STG101")]
    finally:
        shutil.rmtree(root, ignore_errors=True)


def test_parser_crash_on_deep_nesting_is_isolated(tmp_path):
    # Brackets nested over short lines: no long line, so no measure before the parse; libcst's
    # native parser overflows its stack and kills the worker. The other files' results stand.
    (tmp_path / "deep.py").write_text("x = " + "[\n" * 3000 + "]\n" * 3000)
    (tmp_path / "ok.py").write_text(STAGED_PRINT)
    (tmp_path / "ok2.py").write_text(STAGED_PRINT.replace("def f", "def g"))
    proc = run("check", "--output-format", "json", "--jobs", "1", ".", cwd=tmp_path)
    assert proc.returncode == 2
    assert "deep.py: the analysis process died" in proc.stderr
    assert [(o["path"], o["code"]) for o in json.loads(proc.stdout)] == [("ok.py", "STG101"), ("ok2.py", "STG101")]


def test_deep_nesting_in_process_is_a_skip_not_a_crash(tmp_path, monkeypatch):
    """Where the analysis runs in this process (flake8's workers, an editor's buffer), Python's
    parser reads the file first: what would crash libcst is a skip with the reason."""
    (tmp_path / "deep.py").write_text("x = " + "[\n" * 3000 + "]\n" * 3000)
    (tmp_path / "ok.py").write_text(STAGED_PRINT)
    monkeypatch.chdir(tmp_path)
    result = check_paths(["."], jobs=0)
    assert [(p, r.split(":")[0]) for p, r in result.skipped] == [("deep.py", "skipped")]
    assert "too many nested parentheses" in result.skipped[0][1]
    assert lines_codes(result) == [("ok.py", 5, "STG101")]


#: A closure rebinding a nonlocal from a method call on itself, the callee of a JAX staged
#: function elsewhere in the file: tensor-ness asks the callee's value, the value asks the
#: name's tensor-ness, each in a walk of its own, round and round (a real training script of
#: twelve levels of nesting ended `stagelint check` with exit 2, "too deeply nested").
REBOUND_FROM_ITSELF = """\
import jax


def train(trainer, inference, evaluator):
    def _eval():
        nonlocal inference
        inference = inference.replace(params=trainer.params)
        return evaluator(inference)

    step = jax.jit(lambda x: x + 1)
    for i in range(3):
        _eval()
    return step(1)


@jax.jit
def logged(x):
    print(x)
    return x
"""


def test_a_name_rebound_from_a_call_on_itself_is_analysed_not_skipped(tmp_path, monkeypatch):
    (tmp_path / "train.py").write_text(REBOUND_FROM_ITSELF)
    monkeypatch.chdir(tmp_path)
    result = check_paths(["."], jobs=0)
    assert result.skipped == []
    assert lines_codes(result) == [("train.py", 18, "STG101")]  # the file's real finding stands
    proc = run("check", "--output-format", "json", "train.py", cwd=tmp_path)
    assert (proc.returncode, proc.stderr) == (1, "")


LONG_LINE = "x = 1" + " + 1" * 30_000 + "\n"


@pytest.mark.parametrize("jobs", [0, 1])
def test_a_huge_expression_line_is_skipped_with_the_reason_and_the_rest_checked(tmp_path, monkeypatch, jobs):
    (tmp_path / "generated.py").write_text(STAGED_PRINT + LONG_LINE)
    (tmp_path / "ok.py").write_text(STAGED_PRINT)
    monkeypatch.chdir(tmp_path)
    result = check_paths(["."], jobs=jobs)
    assert [p for p, _ in result.skipped] == ["generated.py"] and not result.errors
    reason = result.skipped[0][1]
    assert reason.startswith("skipped:") and "deeper than the parser handles" in reason
    assert lines_codes(result) == [("ok.py", 5, "STG101")]


def test_huge_line_and_huge_file_through_the_cli_flake8_and_stdin(tmp_path, monkeypatch):
    (tmp_path / "pyproject.toml").write_text("[tool.stagelint]\nmax-file-size = 150000\n")
    (tmp_path / "generated.py").write_text(STAGED_PRINT + LONG_LINE)
    big = STAGED_PRINT + "".join(f"def helper_{i}(x):\n    return x + {i}\n\n" for i in range(5000))
    (tmp_path / "big.py").write_text(big)
    (tmp_path / "ok.py").write_text(STAGED_PRINT)
    for fmt in ("concise", "json", "sarif", "github"):
        proc = run("check", "--no-cache", "--output-format", fmt, ".", cwd=tmp_path)
        assert proc.returncode == 2, proc.stderr
        assert "big.py: skipped: " in proc.stderr and "over the size budget (150,000 bytes; max-file-size)" in proc.stderr
        assert "generated.py: skipped: " in proc.stderr and "deeper than the parser handles" in proc.stderr
        assert "Traceback" not in proc.stderr
        assert "ok.py" in proc.stdout and "STG101" in proc.stdout
    # flake8's own plugins (pyflakes) give up on a long chain: flake8 sees only the file over
    # the size budget, then a buffer nested too deep for libcst on standard input.
    (tmp_path / "generated.py").unlink()
    flake8 = subprocess.run([sys.executable, "-m", "flake8", "--select", "STG", "."], cwd=tmp_path,
                            capture_output=True, text=True, timeout=300)
    assert [out.split(" ")[:2] for out in flake8.stdout.splitlines()] == [["./ok.py:5:5:", "STG101"]], (
        flake8.stdout + flake8.stderr)
    assert "big.py: skipped" in flake8.stderr and "Traceback" not in flake8.stderr
    nested = STAGED_PRINT + "x = " + "[\n" * 3000 + "]\n" * 3000
    stdin = subprocess.run([sys.executable, "-m", "flake8", "--select", "STG", "-", "--stdin-display-name",
                            "generated.py"], cwd=tmp_path, input=nested, capture_output=True, text=True, timeout=300)
    # flake8 itself reports the syntax error (Python refuses 200+ nested brackets) and runs no
    # plugin; the buffer must not crash the run either way
    assert stdin.returncode in (0, 1) and "STG" not in stdin.stdout and "Traceback" not in stdin.stderr, (
        stdin.stdout + stdin.stderr)
    # An editor's buffer with a huge line, analysed in-process: a skip with the reason.
    monkeypatch.chdir(tmp_path)
    result = check_paths(["generated.py"], jobs=0, cache=None,
                         sources={str(tmp_path / "generated.py"): (STAGED_PRINT + LONG_LINE).encode()})
    assert [p for p, _ in result.skipped] == ["generated.py"] and "deeper than the parser" in result.skipped[0][1]


def test_a_file_over_the_time_budget_is_abandoned_and_the_rest_checked(tmp_path, monkeypatch):
    # A 2,500-term chain on short lines takes libcst seconds (its time grows faster than the
    # chain); a budget of a fraction of that abandons it.
    chain = "x = (\n    1\n" + "    + 1\n" * 2500 + ")\n"
    (tmp_path / "slow.py").write_text(STAGED_PRINT + chain)  # staged: the screen sends it to analysis
    (tmp_path / "ok.py").write_text(STAGED_PRINT)
    monkeypatch.chdir(tmp_path)
    result = check_paths(["."], Settings(file_timeout=0.3), jobs=1)
    assert result.skipped == [("slow.py", "skipped: the analysis took longer than 0.3 s (file-timeout)")]
    assert lines_codes(result) == [("ok.py", 5, "STG101")]


def test_budgets_are_configured_and_checked(tmp_path):
    from stagelint.config import ConfigError, load_settings

    (tmp_path / "pyproject.toml").write_text("[tool.stagelint]\nmax-file-size = 1000\nfile-timeout = 2.5\n")
    settings = load_settings(str(tmp_path))
    assert (settings.max_file_size, settings.file_timeout) == (1000, 2.5)
    for bad in ("max-file-size = 0", 'file-timeout = "1"', "max-file-size = true"):
        (tmp_path / "pyproject.toml").write_text(f"[tool.stagelint]\n{bad}\n")
        with pytest.raises(ConfigError, match="must be a positive (whole )?number"):
            load_settings(str(tmp_path))


def test_long_operator_chain_and_large_file(tmp_path, monkeypatch):
    (tmp_path / "chain.py").write_text("x = 1" + " + 1" * 1500 + "\n" + STAGED_PRINT)
    body = "".join(f"def helper_{i}(x):\n    return x + {i}\n\n" for i in range(16_700))
    (tmp_path / "big.py").write_text(STAGED_PRINT + body)
    assert len((tmp_path / "big.py").read_text().splitlines()) > 50_000
    monkeypatch.chdir(tmp_path)
    result = check_paths(["."], jobs=2)
    assert not result.skipped and not result.errors, (result.skipped, result.errors)
    assert lines_codes(result) == [("big.py", 5, "STG101"), ("chain.py", 6, "STG101")]


def test_malformed_pyproject_names_the_file(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.stagelint\nselect = [\n")
    (tmp_path / "m.py").write_text("x = 1\n")
    proc = run("check", "m.py", cwd=tmp_path)
    assert proc.returncode == 2
    assert "pyproject.toml" in proc.stderr and "Traceback" not in proc.stderr


def test_wrong_type_in_config_names_the_key(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.stagelint]\nkeras-methods = "yes"\n')
    (tmp_path / "m.py").write_text("x = 1\n")
    proc = run("check", "m.py", cwd=tmp_path)
    assert proc.returncode == 2
    assert "keras-methods" in proc.stderr and "pyproject.toml" in proc.stderr


def test_check_never_imports_or_runs_the_code(tmp_path):
    marker = tmp_path / "was_run"
    (tmp_path / "evil.py").write_text(textwrap.dedent(f"""
        import sys
        open({str(marker)!r}, "w").write("imported")
        sys.exit(3)

        import tensorflow as tf

        @tf.function
        def f(x):
            print(x)
    """).lstrip())
    (tmp_path / "conftest.py").write_text(f"open({str(marker)!r}, 'w').write('conftest')\n")
    proc = run("check", "--output-format", "json", ".", cwd=tmp_path)
    assert proc.returncode == 1, proc.stderr
    assert [o["code"] for o in json.loads(proc.stdout)] == ["STG101"]
    assert not marker.exists()


CRASHING_RULE = """
import sys
from stagelint.rules.base import Rule
import stagelint.rules

class Crashes(Rule):
    code = "STG998"
    name = "crashes"
    message = "never shown"

    def visit_Call(self, node):
        if getattr(node.func, "value", None) == "boom":
            raise ValueError("rule bug")

from stagelint.cli import main
sys.exit(main(sys.argv[1:]))
"""


def test_internal_error_in_one_rule_is_reported_and_other_findings_kept(tmp_path):
    (tmp_path / "a.py").write_text(STAGED_PRINT + "\nboom()\n")
    (tmp_path / "b.py").write_text(STAGED_PRINT)
    script = tmp_path / "runner.py"
    script.write_text(CRASHING_RULE)
    args = [sys.executable, str(script), "check", "--output-format", "json", "a.py", "b.py"]
    proc = subprocess.run(args, cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2
    assert "internal error in STG998 on a.py" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert [(o["path"], o["code"]) for o in json.loads(proc.stdout)] == [("a.py", "STG101"), ("b.py", "STG101")]
    verbose = subprocess.run(args + ["--verbose"], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert "ValueError: rule bug" in verbose.stderr


def test_internal_error_is_never_summed_up_as_all_checks_passed(tmp_path):
    (tmp_path / "a.py").write_text("import tensorflow as tf\n\n@tf.function\ndef f(x):\n    return x\n\nboom()\n")
    (tmp_path / "b.py").write_text("x = 1\n")
    script = tmp_path / "runner.py"
    script.write_text(CRASHING_RULE)
    proc = subprocess.run([sys.executable, str(script), "check", "a.py", "b.py"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and "internal error in STG998 on a.py" in proc.stderr
    assert proc.stdout == "No findings. 1 internal error: those checks did not finish (see the errors above).\n"
    twin = subprocess.run([sys.executable, str(script), "check", "b.py"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120)
    assert (twin.returncode, twin.stdout) == (0, "All checks passed!\n")


#: A name that reaches its own binding (`nonlocal` makes the inner rebinding one of the outer
#: name's too) rebound from a method call on itself, beside a twin without the cycle.
ENGINE = """\
class Engine:
    def refresh(self, weights):
        return self


def fit(state, score):
    engine = Engine()

    def evaluate():
        nonlocal engine
        engine = engine.refresh(weights=state.weights)
        return score(engine)

    return evaluate()
"""


def _values_in(source: str, line: int, name: str):
    """What the value inference says `name` holds on `line` (in the function around it)."""
    from stagelint.analysis.context import FileContext
    from stagelint.analysis.tensors import value_of
    from stagelint.analysis.walk import analyze_module
    from stagelint.frameworks import STAGING

    tree = cst.parse_module(source)
    ctx = FileContext("m.py", "m", False, Settings(), STAGING)
    analyze_module(tree, ctx, [])
    found = []

    class Uses(cst.CSTVisitor):
        def __init__(self):
            super().__init__()
            self.defs = []

        def visit_FunctionDef(self, node):
            self.defs.append(node)

        def leave_FunctionDef(self, node):
            self.defs.pop()

        def visit_Name(self, node):
            if node.value == name and ctx.position(node).line == line:
                found.append((node, ctx.function_infos[id(self.defs[-1])] if self.defs else None))

    tree.visit(Uses())
    return [value_of(ctx, node, func) for node, func in found]


def test_a_cycle_in_the_value_inference_is_unknown_and_a_binding_without_one_is_known():
    """What `engine` holds in `evaluate` asks what `engine.refresh(...)` gives, which asks
    whether `engine.refresh` is a tensor, which asks what `engine` holds: the cycle's answer is
    unknown (nothing is claimed of it). Without the rebinding, it is the `Engine` made above."""
    line = ENGINE.splitlines().index("        return score(engine)") + 1
    assert [v.what for v in _values_in(ENGINE, line, "engine")] == [""]
    plain = ENGINE.replace("        nonlocal engine\n", "").replace("engine = engine.refresh", "other = engine.refresh")
    assert [(v.what, v.cls) for v in _values_in(plain, line - 1, "engine")] == [("object", "m.Engine")]


def _stack_depth() -> int:
    frame, depth = sys._getframe(), 0
    while frame is not None:
        frame, depth = frame.f_back, depth + 1
    return depth


def test_analysis_past_the_recursion_limit_skips_that_file_and_checks_the_rest(tmp_path, monkeypatch):
    """Brackets nested 199 deep: Python's parser takes them (its limit is 200), and in this
    process, at Python's default recursion limit, the analysis goes past the limit. The file is
    one skip with the reason; the other files are checked; the run ends with exit code 2."""
    deep = STAGED_PRINT + "\ny = " + "[" * 199 + "]" * 199 + "\n"
    (tmp_path / "deep.py").write_text(deep)
    (tmp_path / "ok.py").write_text(STAGED_PRINT)
    monkeypatch.chdir(tmp_path)
    # How many frames a nesting level costs, and how deep the caller's stack already is, vary
    # with the Python build and the test runner (xdist adds frames, another test may have raised
    # the limit): the limit is set a fixed margin above the current depth, well below what 199
    # levels need, so the overflow is certain wherever the test runs.
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(_stack_depth() + 300)
    try:
        result = check_paths(["."], jobs=0)
    finally:
        sys.setrecursionlimit(old)
    assert result.skipped == [("deep.py", "skipped: too deeply nested to analyse (past Python's recursion limit)")]
    assert lines_codes(result) == [("ok.py", 5, "STG101")]
    run_cli = "import sys; sys.setrecursionlimit(400); from stagelint.cli import main; raise SystemExit(main())"
    proc = subprocess.run([sys.executable, "-c", run_cli, "check", "-"], input=deep, cwd=tmp_path,
                          capture_output=True, text=True, timeout=180)  # standard input: analysed in-process
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert proc.stderr.splitlines() == ["stagelint: error: -: skipped: too deeply nested to analyse (past Python's recursion limit)"]
    assert proc.stdout == "Nothing was checked. 1 path could not be checked (see the errors above).\n"


@settings(max_examples=200, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
@given(source=hypothesmith.from_grammar())
def test_fuzz_valid_python_from_the_grammar(source):
    """No internal error, ever, on syntactically valid Python."""
    facts = analyze_source("fuzz.py", source.encode("utf-8"), Settings())
    assert not facts.errors, facts.errors


@settings(max_examples=100, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
@given(node=hypothesmith.from_node())
def test_fuzz_valid_python_from_the_cst(node):
    source = node if isinstance(node, str) else cst.Module([]).code_for_node(node)
    facts = analyze_source("fuzz.py", source.encode("utf-8"), Settings())
    assert not facts.errors, facts.errors


@pytest.mark.parametrize("source, long", [
    (b"", False), (b"x" * 3999, False), (b"x" * 4000, True), (b"a\n" + b"x" * 4000 + b"\n", True),
    (b"\n" * 5000, False), (b"y" * 3999 + b"\n" + b"z" * 3999, False), (b"a\r\n" * 3000, False),
])
def test_a_long_line_is_told_apart_by_its_length(source, long):
    from stagelint.pipeline import budget

    assert budget.LONG_LINE == 4000
    assert budget.has_long_line(source) is long
