"""bench/notebooks.py: a notebook's code cells become one module, line for line, deterministically.

The audit keys findings on the converted modules by line, so the scheme is pinned here: marker
lines, what IPython would not run as Python commented out (and nothing else), valid Python out.
"""

from __future__ import annotations

import ast
import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))

from notebooks import convert, convert_tree, main  # noqa: E402


def notebook(*cells: tuple[str, str | list[str]]) -> dict:
    return {"cells": [{"cell_type": kind, "source": source, "metadata": {}} for kind, source in cells],
            "metadata": {}, "nbformat": 4, "nbformat_minor": 5}


def test_code_cells_in_order_with_markers_counting_code_cells_only():
    nb = notebook(("markdown", "# Title"), ("code", ["import tensorflow as tf\n", "x = 1"]),
                  ("markdown", "text"), ("code", "y = x + 1\n\n"))
    assert convert(nb).splitlines() == [
        "# %% [cell 1]", "import tensorflow as tf", "x = 1", "",
        "# %% [cell 2]", "y = x + 1",
    ]


def test_magics_and_shell_lines_are_commented_out_and_python_is_kept():
    source = "\n".join([
        "%pip install -q tensorflow",
        "!ls /tmp",
        "files = !ls",
        "tf.keras.Input?",
        'print("x = %s, y = %s"',
        "      % (1, 2))",
        "if True:",
        "  !echo inside",
        "!long command \\",
        "  --flag",
        "z = 3 % 2",
    ])
    out = convert(notebook(("code", source))).splitlines()[1:]
    assert out == [
        "# %pip install -q tensorflow",
        "# !ls /tmp",
        "# files = !ls",
        "# tf.keras.Input?",
        'print("x = %s, y = %s"',
        "      % (1, 2))",
        "if True:",
        "  pass  # !echo inside",
        "# !long command \\",
        "#   --flag",
        "z = 3 % 2",
    ]
    ast.parse("\n".join(out))


def test_cell_magics_keep_a_python_body_only_when_ipython_runs_it():
    nb = notebook(("code", "%%time\nx = 1"), ("code", "%%bash\necho hi\n\nls"), ("code", "%%writefile a.py\nimport os"))
    assert convert(nb).splitlines() == [
        "# %% [cell 1]", "# %%time", "x = 1", "",
        "# %% [cell 2]", "# %%bash", "# echo hi", "#", "# ls", "",
        "# %% [cell 3]", "# %%writefile a.py", "# import os",
    ]


def test_a_cell_indented_as_a_whole_is_dedented_like_ipython_does():
    out = convert(notebook(("code", " for i in range(2):\n   print(i)"))).splitlines()
    assert out[1:3] == ["for i in range(2):", "  print(i)"]


def test_tree_conversion_is_deterministic_and_keeps_relative_paths(tmp_path):
    src = tmp_path / "src" / "guide"
    src.mkdir(parents=True)
    (src / "a.ipynb").write_text(json.dumps(notebook(("code", "!pip x\nimport os"))))
    (src / ".ipynb_checkpoints").mkdir()
    (src / ".ipynb_checkpoints" / "a-checkpoint.ipynb").write_text("{}")
    assert convert_tree(tmp_path / "src", tmp_path / "one") == 1
    assert convert_tree(tmp_path / "src", tmp_path / "two") == 1
    first = (tmp_path / "one" / "guide" / "a.py").read_bytes()
    assert first == (tmp_path / "two" / "guide" / "a.py").read_bytes()
    assert first.decode().splitlines()[:3] == ["# %% [cell 1]", "# !pip x", "import os"]


def test_command_line_reports_an_unreadable_notebook_without_a_traceback(tmp_path, capsys):
    bad = tmp_path / "bad.ipynb"
    bad.write_text("not json")
    assert main([str(bad)]) == 2
    err = capsys.readouterr().err
    assert "cannot read" in err and "Traceback" not in err


@pytest.mark.parametrize("argv", [[], ["a", "b", "c"]])
def test_command_line_usage(argv, capsys):
    assert main(argv) == 2
    assert "NOTEBOOK" in capsys.readouterr().err
