"""Jupyter notebooks: real notebooks written by nbformat, checked by `stagelint check` as a user
runs it (a subprocess), and the IPython-syntax reading of `stagelint.notebooks` on its own."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import nbformat
import pytest
from integration_support import flake8, stagelint
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output

from stagelint import notebooks

SCHEMA = Path(__file__).resolve().parents[1] / "data" / "sarif-schema-2.1.0.json"

STAGED = """\
files = !ls
tf.function?
@tf.function
def step(x):
    print("x", x)
    return x * 2
"""


def write_notebook(path: Path, cells, language: str | None = "python") -> Path:
    nb = new_notebook()
    nb.cells = cells
    if language:
        nb.metadata["kernelspec"] = {"name": language, "display_name": language, "language": language}
    nbformat.write(nb, str(path))
    return path


def demo(tmp_path: Path, name: str = "demo.ipynb") -> Path:
    """Markdown, IPython syntax, a cell magic, a cell that does not parse and a staged print."""
    cells = [
        new_markdown_cell("# Demo"),
        new_code_cell("!pip install -q tensorflow\n%matplotlib inline\nimport tensorflow as tf"),
        new_code_cell("%%bash\necho 'print(1)'"),
        new_code_cell("def broken(:\n    pass"),
        new_code_cell(STAGED),
        new_code_cell("step(tf.constant(1))"),
    ]
    cells[4].outputs = [new_output("stream", text="a kept output\n")]
    cells[4].execution_count = 7
    return write_notebook(tmp_path / name, cells)


def test_findings_are_reported_by_cell_and_line(tmp_path):
    demo(tmp_path)
    # print() -> tf.print() is an unsafe fix (tf.print writes to stderr): shown with --unsafe-fixes.
    proc = stagelint("check", "--unsafe-fixes", "--output-format", "concise", "demo.ipynb", cwd=tmp_path)
    assert proc.returncode == 1, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0].startswith("demo.ipynb:cell 4:1:12: STG000 [syntax-error] cannot parse this cell: invalid syntax")
    assert "(this cell is skipped, the others are checked)" in lines[0]
    assert lines[1].startswith("demo.ipynb:cell 5:5:5: STG101 [*] [trace-time-side-effect] `print()` runs only")
    assert lines[2:] == ["Found 2 findings.", "[*] 1 fixable with `--fix`."]


def test_full_output_shows_the_cell_line(tmp_path):
    demo(tmp_path)
    out = stagelint("check", "demo.ipynb", cwd=tmp_path).stdout
    assert "demo.ipynb:cell 5:5:5: STG101" in out
    assert '5 |     print("x", x)\n  |     ^^^^^^^^^^^^^ STG101' in out


def test_json_fields_count_in_the_cell(tmp_path):
    demo(tmp_path)
    data = json.loads(stagelint("check", "--output-format", "json", "demo.ipynb", cwd=tmp_path).stdout)
    stg101 = next(f for f in data if f["code"] == "STG101")
    assert (stg101["cell"], stg101["line"], stg101["column"], stg101["end_line"]) == (5, 5, 5, 5)
    assert stg101["fix"]["edits"] == [{"line": 5, "column": 5, "end_line": 5, "end_column": 10,
                                       "content": "tf.print", "cell": 5}]


def test_a_notebook_cell_magic_and_shell_lines_are_not_python(tmp_path):
    # `%%bash` holds `print(1)` at cell level: not Python, so nothing is reported there; the
    # shell and magic lines do not stop the first cell's import from counting.
    demo(tmp_path)
    data = json.loads(stagelint("check", "--output-format", "json", "demo.ipynb", cwd=tmp_path).stdout)
    assert {f["cell"] for f in data} == {4, 5}


def test_noqa_on_a_cell_line(tmp_path):
    source = STAGED.replace('print("x", x)', 'print("x", x)  # noqa: STG101')
    write_notebook(tmp_path / "n.ipynb", [new_code_cell("import tensorflow as tf"), new_code_cell(source),
                                          new_code_cell("step(1)")])
    proc = stagelint("check", "n.ipynb", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout
    assert "All checks passed!" in proc.stdout


def test_a_later_cell_redefines_a_name(tmp_path):
    # The kernel runs cells top to bottom: the staged `step` is the second definition.
    cells = [
        new_code_cell("import tensorflow as tf\n@tf.function\ndef step(x):\n    return x"),
        new_code_cell("def step(x):\n    print(x)\n    return x"),
        new_code_cell("step(1)"),
    ]
    write_notebook(tmp_path / "n.ipynb", cells)
    assert stagelint("check", "n.ipynb", cwd=tmp_path).returncode == 0


def test_fix_rewrites_only_the_cell_source(tmp_path):
    path = demo(tmp_path)
    before = path.read_bytes()
    proc = stagelint("check", "--fix", "--unsafe-fixes", "demo.ipynb", cwd=tmp_path)
    assert "Fixed 1 finding in 1 file." in proc.stderr
    after = path.read_bytes()
    nb = nbformat.reads(after.decode(), as_version=4)
    nbformat.validate(nb)
    assert nb.cells[4].source == STAGED.replace('print("x", x)', 'tf.print("x", x)')
    assert nb.cells[4].outputs[0]["text"] == "a kept output\n" and nb.cells[4].execution_count == 7
    # Everything but that one line of the file is the same, byte for byte.
    diff = [(a, b) for a, b in zip(before.splitlines(), after.splitlines()) if a != b]
    assert diff == [(b'    "    print(\\"x\\", x)\\n",', b'    "    tf.print(\\"x\\", x)\\n",')]
    assert len(before.splitlines()) == len(after.splitlines())
    again = stagelint("check", "--fix", "--unsafe-fixes", "demo.ipynb", cwd=tmp_path)
    assert path.read_bytes() == after and "Fixed" not in again.stderr


def test_fix_keeps_a_one_string_source_and_the_file_layout(tmp_path):
    # A notebook written by another tool: sources as one string, indent of 2, keys unsorted.
    doc = {
        "nbformat": 4, "nbformat_minor": 5,
        "metadata": {"kernelspec": {"name": "python3", "language": "python", "display_name": "Python 3"}},
        "cells": [
            {"source": "import tensorflow as tf\n", "cell_type": "code", "id": "a", "metadata": {},
             "outputs": [], "execution_count": None},
            {"source": STAGED.replace("files = !ls\n", ""), "cell_type": "code", "id": "b", "metadata": {},
             "outputs": [], "execution_count": None},
            {"source": "step(1)", "cell_type": "code", "id": "c", "metadata": {}, "outputs": [],
             "execution_count": None},
        ],
    }
    path = tmp_path / "other.ipynb"
    text = json.dumps(doc, indent=2)
    path.write_text(text)
    stagelint("check", "--fix", "--unsafe-fixes", "other.ipynb", cwd=tmp_path)
    expected = text.replace('print(\\"x\\", x)', 'tf.print(\\"x\\", x)')
    assert expected != text and path.read_text() == expected


def test_diff_shows_the_cells(tmp_path):
    demo(tmp_path)
    proc = stagelint("check", "--diff", "--unsafe-fixes", "demo.ipynb", cwd=tmp_path)
    assert proc.returncode == 1
    assert proc.stdout == (
        "--- demo.ipynb:cell 5\n+++ demo.ipynb:cell 5\n@@ -2,5 +2,5 @@\n tf.function?\n @tf.function\n"
        ' def step(x):\n-    print("x", x)\n+    tf.print("x", x)\n     return x * 2\n'
    )


def test_folder_walk_includes_notebooks_and_respects_exclude(tmp_path):
    demo(tmp_path, "a.ipynb")
    (tmp_path / "drafts").mkdir()
    demo(tmp_path / "drafts", "b.ipynb")
    (tmp_path / "pyproject.toml").write_text('[tool.stagelint]\nexclude = ["drafts"]\n')
    proc = stagelint("check", "--output-format", "concise", ".", cwd=tmp_path)
    paths = {line.split(":")[0] for line in proc.stdout.splitlines() if ":cell " in line}
    assert paths == {"a.ipynb"}


def test_sarif_region_is_the_notebook_line(tmp_path):
    path = demo(tmp_path)
    doc = json.loads(stagelint("check", "--output-format", "sarif", "demo.ipynb", cwd=tmp_path).stdout)
    schema = json.loads(SCHEMA.read_text())
    assert not list(jsonschema.Draft4Validator(schema).iter_errors(doc))
    result = next(r for r in doc["runs"][0]["results"] if r["ruleId"] == "STG101")
    region = result["locations"][0]["physicalLocation"]["region"]
    file_line = path.read_text().splitlines()[region["startLine"] - 1]
    assert file_line.strip() == '"    print(\\"x\\", x)\\n",'
    assert result["properties"]["cell"] == 5 and result["properties"]["cellLine"] == 5
    assert "(notebook cell 5, line 5, column 5)" in result["message"]["text"]
    assert "fixes" not in result


def test_a_notebook_that_does_not_read(tmp_path):
    (tmp_path / "bad.ipynb").write_text("{not json")
    write_notebook(tmp_path / "r.ipynb", [new_code_cell("library(ggplot2)")], language="R")
    proc = stagelint("check", "--output-format", "concise", "bad.ipynb", "r.ipynb", cwd=tmp_path)
    assert proc.returncode == 2
    assert proc.stdout.startswith("bad.ipynb:1:1: STG000 [syntax-error] cannot parse this file: not a notebook (not JSON")
    assert "stagelint: error: r.ipynb: not a Python notebook (its kernel language is R)" in proc.stderr


def test_stdin_notebook(tmp_path):
    path = demo(tmp_path)
    proc = stagelint("check", "--output-format", "concise", "-", "--stdin-filename", "x.ipynb", cwd=tmp_path,
                     input=path.read_text())
    assert "x.ipynb:cell 5:5:5: STG101" in proc.stdout


def test_flake8_leaves_notebooks_alone(tmp_path):
    demo(tmp_path)
    proc = flake8("--select", "STG", "--filename", "*.ipynb", ".", cwd=tmp_path)
    assert "STG" not in proc.stdout, proc.stdout
    assert proc.returncode == 0, proc.stdout + proc.stderr


# The IPython syntax, line by line ------------------------------------------------------------

def lines_of(source: str) -> list[str]:
    return notebooks.transform(source)[0]


@pytest.mark.parametrize("line", [
    "!pip install x", "!!ls", "%matplotlib inline", "%load_ext tensorboard", "?tf.function",
    "tf.function?", "tf.function??", "/print 1", ",f a b", ";f a",
])
def test_ipython_lines_become_pass(line):
    assert lines_of(line + "\nx = 1\n") == ["pass", "x = 1"]


def test_assignments_and_continuations_keep_line_numbers():
    src = "files = !ls \\\n  -la\nout = %who_ls\nfor f in files:\n    !echo $f\n    n = 1\n"
    assert lines_of(src) == ["files = get_ipython()", "", "out = get_ipython()", "for f in files:",
                             "    pass", "    n = 1"]


def test_text_inside_strings_and_brackets_is_python():
    src = 'doc = """\n!not a shell line\n%neither\n"""\nx = f(\n    a,\n)\ny = 1 % 2\nz = {"a?": 1}\n'
    assert lines_of(src) == src.splitlines()


def test_cell_magic_and_dedent():
    lines, skipped, replaced, indent = notebooks.transform("%%time\nx = 1\n")
    assert (lines, skipped, replaced) == (["", ""], "cell magic %%time", {1, 2})
    lines, skipped, _, indent = notebooks.transform("  for x in y:\n    print(x)\n")
    assert (lines, skipped, indent) == (["for x in y:", "  print(x)"], "", 2)


def test_a_cell_magic_below_colab_form_lines_is_a_cell_magic():
    # Colab runs `#@title` / `#@markdown` lines as comments, then the cell magic as the first line
    lines, skipped, _, _ = notebooks.transform("#@title Banner\n%%html\n<div>Let's Begin</div>\n")
    assert (lines, skipped) == (["", "", ""], "cell magic %%html")
    # an ordinary comment above `%%html` is not a form: IPython reads `%%html` as a line escape,
    # and the HTML below it is what it is (a syntax error, one STG000)
    _, skipped, _, _ = notebooks.transform("# Banner\n%%html\n<div>Let's Begin</div>\n")
    assert skipped == ""


def test_automagic_lines_are_not_python_and_python_using_those_names_is_kept():
    # a kernel runs `pip install ...` as `%pip install ...` (automagic is on by default)
    assert lines_of("pip install tensorflow wurlitzer\nx = 1\n") == ["pass", "x = 1"]
    assert lines_of("  cd data\n") == ["pass"]
    # the same names as Python: an assignment, a call, an attribute stay as written
    src = "pip = 3\ntime.sleep(1)\nls = [pip, 2]\nrun(ls)\n"
    assert lines_of(src) == src.splitlines()
    # an assignment spread over lines, its first one not Python alone (a comment after an open
    # paren): IPython's assignment check runs it as Python before any automagic (a course
    # notebook's `history = model.fit(...` cell)
    src = "history = model.fit(x, epochs=20,  # train\n    verbose=1)\n"
    assert lines_of(src) == src.splitlines()
    assert lines_of("history -g fit\n") == ["pass"]  # the magic itself


def test_an_indented_cell_reports_columns_as_written(tmp_path):
    src = "  @tf.function\n  def f(x):\n    print(x)\n    return x\n"
    write_notebook(tmp_path / "n.ipynb", [new_code_cell("import tensorflow as tf"), new_code_cell(src),
                                          new_code_cell("f(1)")])
    out = stagelint("check", "--output-format", "concise", "n.ipynb", cwd=tmp_path).stdout
    assert "n.ipynb:cell 2:3:5: STG101" in out
