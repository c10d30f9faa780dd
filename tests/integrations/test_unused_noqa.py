"""STG001 unused-noqa: the stagelint codes of `# noqa` comments that suppressed nothing, under
`stagelint check` (every output format, `--fix`), the selection, and real flake8."""

from __future__ import annotations

import json

import pytest
from integration_support import flake8, reported, stagelint, write_tree

from stagelint.config import Settings
from stagelint.engine import check_source
from stagelint.rules import get_rule

SOURCE = '''\
import tensorflow as tf


@tf.function
def step(x):
    print("tracing", x)  # noqa: STG101
    tf.print("a", x)  # noqa: STG101, E501 the reason
    tf.print("b", x)  # noqa: STG101,STG201
    y = x + 1  # type: ignore  # noqa: STG102
    z = x  # noqa: STG1
    w = x  # noqa: STG999
    v = x  # noqa: STG9, E501
    u = x  # noqa: STG101  # keep me
    # noqa: STG603
    t = x  # noqa: STG101,STG001
    return x + y + z + w + v + u + t  # noqa
'''

FIXED = '''\
import tensorflow as tf


@tf.function
def step(x):
    print("tracing", x)  # noqa: STG101
    tf.print("a", x)  # noqa: E501 the reason
    tf.print("b", x)
    y = x + 1  # type: ignore
    z = x
    w = x
    v = x  # noqa: STG9, E501
    u = x  # keep me
    t = x  # noqa: STG101,STG001
    return x + y + z + w + v + u + t  # noqa
'''

#: (line, column, code as written) of each unused code in SOURCE. Not reported: the used
#: STG101 (line 6), E501, a bare `# noqa`, STG9 (runtime rules), a comment naming STG001.
UNUSED = {(7, 31, "STG101"), (8, 31, "STG101"), (8, 38, "STG201"), (9, 40, "STG102"), (10, 20, "STG1"),
          (11, 20, "STG999"), (13, 20, "STG101"), (14, 13, "STG603")}


def _concise(proc):
    return {(line, col) for _, line, col, code in reported(proc.stdout) if code == "STG001"}


def test_each_unused_code_is_reported_where_it_is_written(tmp_path):
    write_tree(tmp_path, {"m.py": SOURCE})
    proc = stagelint("check", "--no-cache", "--output-format", "json", "m.py", cwd=tmp_path)
    assert proc.returncode == 1, proc.stderr
    found = json.loads(proc.stdout)
    assert {f["code"] for f in found} == {"STG001"}  # the one real STG101 is suppressed
    lines = SOURCE.splitlines()
    got = {(f["line"], f["column"], lines[f["line"] - 1][f["column"] - 1:f["end_column"] - 1]) for f in found}
    assert got == UNUSED
    by_code = {(f["line"], lines[f["line"] - 1][f["column"] - 1:f["end_column"] - 1]): f for f in found}
    assert by_code[(7, "STG101")]["message"] == \
        "`STG101` in this `# noqa` suppresses nothing: no STG101 finding on this line; remove it"
    assert "no stagelint rule has this code" in by_code[(11, "STG999")]["message"]
    assert "no finding of a STG1 rule" in by_code[(10, "STG1")]["message"]
    assert all(f["fix"]["applicability"] == "safe" for f in found)


@pytest.mark.parametrize("fmt, shows", [
    ("full", "STG001 [*] [unused-noqa]"),
    ("concise", "m.py:7:31: STG001 [*] [unused-noqa]"),
    ("github", "::warning file=m.py,line=7,col=31,endLine=7,endColumn=37,title=STG001 unused-noqa::"),
    ("sarif", '"ruleId": "STG001"'),
    ("gitlab", '"check_name": "STG001"'),
    ("junit", 'STG001'),
])
def test_every_output_format_carries_it(tmp_path, fmt, shows):
    write_tree(tmp_path, {"m.py": SOURCE})
    proc = stagelint("check", "--no-cache", "--output-format", fmt, "m.py", cwd=tmp_path)
    assert proc.returncode == 1 and shows in proc.stdout, proc.stdout[:2000]


def test_fix_removes_the_unused_codes_and_keeps_the_rest(tmp_path):
    write_tree(tmp_path, {"m.py": SOURCE})
    proc = stagelint("check", "--no-cache", "--fix", "m.py", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert f"Fixed {len(UNUSED)} findings" in proc.stderr
    assert (tmp_path / "m.py").read_text() == FIXED
    again = stagelint("check", "--no-cache", "m.py", cwd=tmp_path)
    assert again.returncode == 0 and again.stdout.strip() == "All checks passed!", again.stdout


def test_a_rule_that_does_not_run_keeps_its_codes(tmp_path):
    write_tree(tmp_path, {"m.py": SOURCE, "pyproject.toml": '[tool.stagelint]\nper-file-ignores = {"m.py" = ["STG603"]}\n'})

    def unused(*args):
        return _concise(stagelint("check", "--no-cache", "--output-format", "concise", *args, "m.py", cwd=tmp_path))

    every = {(line, col) for line, col, _ in UNUSED if (line, col) != (14, 13)}  # STG603: ignored in m.py
    assert unused() == every
    # Not selected: STG102 (ignored) takes `STG1` with it; STG2 not selected at all.
    assert unused("--ignore", "STG102") == every - {(9, 40), (10, 20)}
    assert unused("--select", "STG001,STG1") == {(7, 31), (8, 31), (9, 40), (10, 20), (11, 20), (13, 20)}
    assert unused("--ignore", "STG001") == set()
    assert unused("--select", "STG1") == set()
    # Back on with `--extend-select` after a selection that left it out, as in ruff.
    write_tree(tmp_path, {"pyproject.toml": '[tool.stagelint]\nselect = ["STG1"]\n'})
    assert unused() == set()
    assert unused("--extend-select", "STG001") == {(7, 31), (8, 31), (9, 40), (10, 20), (11, 20), (13, 20)}


def test_file_level_noqa_turns_the_rule_off_for_its_codes():
    source = "# stagelint: noqa: STG102\n" + SOURCE
    lines = {f.line - 1 for f in check_source(source)}
    assert 9 not in lines and 10 not in lines  # STG102 (and STG1, which covers it) are off here
    assert 7 in lines
    assert check_source("# stagelint: noqa: STG001\n" + SOURCE) == []


def test_a_preview_rule_or_step_keeps_its_codes(monkeypatch):
    source = 'import tensorflow as tf\n\n\n@tf.function\ndef f(x):\n    print(x)  # noqa: STG101\n'
    assert check_source(source) == []
    rule = get_rule("STG101")
    monkeypatch.setattr(rule, "preview", "a preview rule")
    assert check_source(source) == []  # not running: its code is not judged
    assert [f.code for f in check_source(source, settings=Settings(preview=True))] == []
    monkeypatch.setattr(rule, "preview", "")
    confirm = rule.confirm.__func__
    monkeypatch.setattr(rule, "confirm", classmethod(lambda cls, c, p, m: confirm(cls, c, p, m) and {"_preview": "a step"}))
    assert check_source(source) == []  # held back, not gone: the comment may still be needed
    # Its negative twin: the same comment where nothing is held is reported.
    assert [f.code for f in check_source(source.replace("print(x)", "tf.print(x)"))] == ["STG001"]


def test_files_not_analysed_report_nothing_and_screened_files_do(tmp_path):
    big = SOURCE + "# " + "x" * 5000 + "\n"
    write_tree(tmp_path, {
        "broken.py": "def f(:\n    pass\nx = 1  # noqa: STG101\n",
        "big.py": big,
        "plain.py": "import os\n\nx = os.sep  # noqa: STG101\n",
        "pyproject.toml": "[tool.stagelint]\nmax-file-size = 4000\n",
    })
    proc = stagelint("check", "--no-cache", "--output-format", "concise", ".", cwd=tmp_path)
    found = {(path, line, code) for path, line, _, code in reported(proc.stdout)}
    # The syntax error and the file over the budget are not judged; a file that stages nothing
    # (the screen does not analyse it) still has a comment that suppresses nothing.
    assert found == {("broken.py", 1, "STG000"), ("plain.py", 3, "STG001")}, proc.stdout + proc.stderr
    assert "big.py" in proc.stderr


def test_a_multi_line_string_and_a_noqa_inside_a_string():
    source = ('import tensorflow as tf\n\n\n@tf.function\ndef f(x):\n'
              '    print("""one\n    two""", x)  # noqa: STG101\n'
              '    s = "# noqa: STG102"\n'
              '    return s\n')
    assert check_source(source) == []  # the noqa after the string covers its first line
    assert check_source(source.replace('print("""', 'tf.print("""')) != []


def test_add_noqa_adds_nothing_for_it(tmp_path):
    write_tree(tmp_path, {"m.py": SOURCE})
    proc = stagelint("check", "--no-cache", "--add-noqa", "m.py", cwd=tmp_path)
    assert proc.returncode == 0 and proc.stderr.strip() == "Added 0 noqa directives.", proc.stderr
    assert (tmp_path / "m.py").read_text() == SOURCE


def test_flake8_reports_the_same_unused_codes(tmp_path):
    """flake8 applies `# noqa` itself; the plugin sees every finding (flake8's noqa off), so it
    judges the comments as `stagelint check` does and reports STG001 the same way. flake8's
    own `--disable-noqa` does not change which codes are unused; `--extend-ignore STG001` turns
    the report off; other tools' codes and bare `# noqa` are never judged."""
    write_tree(tmp_path, {"m.py": SOURCE})
    check = stagelint("check", "--no-cache", "--output-format", "concise", "m.py", cwd=tmp_path)
    lint = flake8("--select", "STG,E501", "m.py", cwd=tmp_path)
    assert reported(lint.stdout, codes=("STG", "E")) == reported(check.stdout)
    assert _concise(lint) == {(line, col) for line, col, _ in UNUSED}
    shown = flake8("--select", "STG", "--disable-noqa", "m.py", cwd=tmp_path)
    assert {(line, code) for _, line, _, code in reported(shown.stdout) if code != "STG001"} == {(6, "STG101")}
    assert _concise(shown) == _concise(lint)
    assert reported(flake8("--select", "STG", "--extend-ignore", "STG001", "m.py", cwd=tmp_path).stdout) == set()
