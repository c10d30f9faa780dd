"""Suppression comments: `stagelint check` reads them exactly as flake8 does (flake8 applies its
own to the plugin's findings), and `# stagelint: noqa` turns a file, or some codes, off."""

from __future__ import annotations

import pytest
from integration_support import flake8, reported, stagelint, write_tree

from stagelint.engine import check_paths
from stagelint.findings import file_noqa, noqa_codes

# Each print is one STG101 candidate; `# flagged` marks the lines that must still be reported.
VARIANTS = '''
import tensorflow as tf

seen = []


@tf.function
def f(x):
    print(1)  # noqa
    print(2)  # noqa: STG101
    print(3)  # noqa:STG101
    print(4)  # NOQA: STG101
    print(5)  # NoQa:STG101
    print(6)  # noqa: STG1
    print(7)  # noqa: E501,STG101
    print(8)  # noqa: E501 STG101
    print(9)  # noqa: E501, STG101 because it is a deliberate trace-time message
    print(10)  # noqa: STG102  flagged
    print(11)  # noqa: STG1010  flagged
    print(12)  #noqa  flagged (flake8 wants a space after the hash)
    print(13)  # noqa: stg101  flagged (codes are case-sensitive)
    print(14)  # noqa : STG102  (a colon apart: a blanket noqa, as flake8 reads it)
    print(15)  # noqa:  STG102  (two spaces: the same)
    print("# noqa")
    print(  # flagged
        17,
    )  # noqa
    print("""a string that spans lines
    is covered by a noqa after it""")  # noqa: STG101
    x = 20; print(x)  # noqa: STG101
    seen.append(21)  # noqa: STG101  flagged (STG102)
    seen.append(22)  # noqa: STG101,STG102
    return x
'''


def _flagged_lines(text):
    return {n for n, line in enumerate(text.splitlines(), start=1) if "flagged" in line}


def test_noqa_variants_same_as_flake8(tmp_path):
    write_tree(tmp_path, {"variants.py": VARIANTS})
    check = stagelint("check", "--output-format", "concise", "variants.py", cwd=tmp_path)
    lint = flake8("--select", "STG", "variants.py", cwd=tmp_path)
    from_check = {(line, code) for _, line, _, code in reported(check.stdout)}
    from_flake8 = {(line, code) for _, line, _, code in reported(lint.stdout)}
    assert from_check == from_flake8
    text = (tmp_path / "variants.py").read_text()
    assert {line for line, code in from_check if code != "STG001"} == _flagged_lines(text)
    assert (30, "STG102") in from_check  # `seen.append(21)`: only STG101 was named
    # The codes that suppress nothing (STG001), the same under both: STG102 and STG1010 on
    # prints, STG101 on the two appends; never a blanket `# noqa` nor E501.
    assert {line for line, code in from_check if code == "STG001"} == {17, 18, 30, 31}


@pytest.mark.parametrize("header, expected", [
    ("# stagelint: noqa\n", set()),
    ("#!/usr/bin/env python\n# -*- coding: utf-8 -*-\n\n# stagelint: noqa\n", set()),
    ("# STAGELINT: NOQA\n", set()),
    ("# stagelint: noqa: STG102\n", {"STG101"}),
    ("# stagelint: noqa: STG101, STG102\n", set()),
    ("# stagelint: noqa: STG1\n", set()),
    ('"""Docstring first."""\n# stagelint: noqa\n', {"STG101", "STG102"}),
    ("import os\n# stagelint: noqa\n", {"STG101", "STG102"}),
    ("# flake8: noqa\n", {"STG101", "STG102"}),
])
def test_file_level_noqa(tmp_path, monkeypatch, header, expected):
    body = "import tensorflow as tf\n\nseen = []\n\n\n@tf.function\ndef f(x):\n    print(x)\n    seen.append(1)\n"
    write_tree(tmp_path, {"mod.py": header + body})
    monkeypatch.chdir(tmp_path)
    assert {f.code for f in check_paths(["mod.py"], jobs=0).findings} == expected


def test_file_level_noqa_under_flake8(tmp_path):
    write_tree(tmp_path, {
        "off.py": "# stagelint: noqa\nimport tensorflow as tf\n\n\n@tf.function\ndef f(x):\n    print(x)\n",
        "some.py": "# stagelint: noqa: STG102\nimport tensorflow as tf\n\n\n@tf.function\ndef f(x):\n    print(x)\n",
    })
    found = reported(flake8("--select", "STG", ".", cwd=tmp_path).stdout)
    assert found == {("some.py", 7, 5, "STG101")}


def test_noqa_grammar_units():
    assert noqa_codes("x  # noqa") == frozenset()
    assert noqa_codes("x  # noqa: STG101,STG2 text") == {"STG101", "STG2"}
    assert noqa_codes("x  #noqa") is None
    assert noqa_codes("x") is None
    assert file_noqa(["# stagelint: noqa: stg101"]) == {"STG101"}
    assert file_noqa(["", "# comment", "# stagelint: noqa"]) == frozenset()
    assert file_noqa(["x = 1", "# stagelint: noqa"]) is None


def test_syntax_errors_are_never_suppressed(tmp_path):
    write_tree(tmp_path, {"bad.py": "# stagelint: noqa\ndef f(:  # noqa\n    pass\n"})
    proc = stagelint("check", "--output-format", "concise", "bad.py", cwd=tmp_path)
    assert "STG000" in proc.stdout and proc.returncode == 1
