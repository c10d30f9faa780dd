"""`fastmeta.parse_module`: libcst's parse without libcst's check of every node the parser builds
(`CSTNode.__post_init__`), the same tree; nodes built by hand are still checked."""

from __future__ import annotations

import threading
from pathlib import Path

import libcst as cst
import pytest

from stagelint.analysis import fastmeta

ROOT = Path(__file__).resolve().parents[1]
SOURCES = sorted((ROOT / "stagelint").rglob("*.py"))[::7] + sorted((ROOT / "examples").rglob("*.py"))
ODD = ["x = 1if y else 2\n", "print(1and 2)\n", "a = [0x1for x in y]\n", "for(x)in(y):pass\n",
       "x=[i for i in(y)if(i)]\n", "def f(*, a=1, **k): return lambda:(yield)\n", "x = not(a)\n"]


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(ROOT)))
def test_the_same_tree_as_libcst_s(path):
    source = path.read_bytes()
    ours, theirs = fastmeta.parse_module(source), cst.parse_module(source)
    assert ours.deep_equals(theirs) and ours.code == theirs.code
    assert cst.CSTNode.__post_init__ is fastmeta._ORIGINAL_POST_INIT


@pytest.mark.parametrize("text", ODD)
def test_odd_spacing_parses_as_libcst_parses_it(text):
    assert fastmeta.parse_module(text.encode()).deep_equals(cst.parse_module(text))


def test_a_syntax_error_is_libcst_s_and_the_check_comes_back():
    with pytest.raises(cst.ParserSyntaxError):
        fastmeta.parse_module(b"def f(:\n")
    with pytest.raises(cst.CSTValidationError):
        cst.Name("not a name")


def test_nodes_another_thread_builds_during_a_parse_are_checked():
    built = []

    def build():
        try:
            cst.Name("not a name")
        except cst.CSTValidationError:
            built.append("checked")

    fastmeta._parsing = -1  # (as if another thread were parsing)
    cst.CSTNode.__post_init__ = fastmeta._post_init
    try:
        worker = threading.Thread(target=build)
        worker.start()
        worker.join()
    finally:
        fastmeta._parsing = 0
        cst.CSTNode.__post_init__ = fastmeta._ORIGINAL_POST_INIT
    assert built == ["checked"]
