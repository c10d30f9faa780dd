"""`fastmeta.positions` gives libcst's `PositionProvider` ranges, node by node.

It runs libcst's own code generation with cheaper counting (see fastmeta's "Positions"), and
records every node but whitespace, comments and operators; `Metadata.position` answers those
from libcst's provider itself. Compared here on awkward sources, on generated ones (hypothesmith),
and on real code (stagelint's own modules and test data); the corpora are compared by
/work/notes-style scripts outside the suite (see docs/performance.md).
"""

from __future__ import annotations

from pathlib import Path

import hypothesmith
import libcst as cst
import pytest
from hypothesis import HealthCheck, given, settings
from libcst.metadata import MetadataWrapper, PositionProvider

from stagelint.analysis import fastmeta
from stagelint.analysis.fastmeta import _UNRECORDED, Metadata, libcst_positions, positions

ROOT = Path(__file__).resolve().parents[1]

ODD = [
    "",
    "\n",
    "# only a comment",
    "# a comment\n\n\n",
    "x = 1",  # no trailing newline
    "x = 1\r\ny = (2 +\r\n     3)\r\n",
    "x = 1\ry = 2\r",
    "x = 1\r\n\r\n# c\r\nif x:\r\n    y = 2\r\n",
    "def f(a,\n\tb):\n\treturn a  # tab-indented\n",
    "if a:\n \tb = 1\n \tif c:\n \t\td = 2\n",
    "\fx = 1\n\f\ndef f():\n    \f\n    return 2\n",
    "x = 1 \\\n    + 2\nif x:\\\n    pass\nelse:\n    y = [\n        1,\n    ]\n",
    "a = b \\\r\n    .c\n",
    "x = 1; y = 2;\nz = 3 ;  w = 4  # tail\n",
    'f"{a!r:>{width}} {b=} {{}} {c:{d}.{e}}"\nf\'\'\'{x\n}\'\'\'\nb = rb"\\x00" b"\\\n"\nu"é" f"{x}"\n',
    's = """one\ntwo\n""" + \'\\\n\'\nt = "é" * 3; u = "😀"\n',
    "x = ((((a))))\ny = (a, (b, c),)\nz = [(1)] + [(x) for (x) in (y) if (x)]\n",
    "print((yield))\nlambda: (yield)\n",
    "@dec\n# comment\n\n@other(1,\n       2)\nclass C(  # trailing\n    Base,\n):\n    def m(self): return (yield)\n",
    "@ a . b ( c )\ndef f ( a , / , b = 1 , * , c : int = 2 , ** k ) -> None :\n    pass\n",
    "async def f():\n    async with a as b, c as d:\n        await c\n"
    "    async for i in x: pass\n    return [i async for i in d]\n",
    "match p:\n    case [1, *rest] if rest:\n        pass\n"
    "    case {'k': v, **kw}:\n        pass\n    case C(a=1) | D():\n        pass\n",
    "try:\n    pass\nexcept* E as e:\n    pass\nelse:\n    pass\nfinally:\n    pass\n",
    "try:\n    pass\nexcept (A, B):\n    pass\n",
    "from . import (a,\n    b as c,  # why\n)\nfrom .. x import *\nimport a.b as c, d\n",
    "from a import (b)\nfrom a import b, c\n",
    "global a, b\ndef f():\n    nonlocal x\n    del a, (b), [c]\n    assert x, 'm'\n    raise E from e\n",
    "x: int = 1\ny: 'List[int]'\nx += 1; x **= 2; x //= 3; x @= m; x >>= 1\n",
    "a = not b and c or d is not e not in f < g <= h != i\n",
    "a = -b + ~c * d @ e // f % g ** -h << i >> j & k | l ^ m\n",
    "a = b if c else d\ne = (f := g)\nh = {**i, 'j': k}\nl = {*m, n}\no = {p: q for p in r}\n",
    "x[1:2, ::3, ...] = y[a][b:][:c]\nz = *a, *b\n",
    "while x:\n    break\nelse:\n    continue\nfor a, *b in c:\n    pass\nelse:\n    pass\n",
    "with (a, b):\n    pass\nwith (\n    open(x) as f,\n    open(y) as g,\n):\n    pass\n",
    "class C:\n\n    # leading\n\n    x = 1\n\n\n    # trailing\n",
    "if x:\n    pass\n    # dedented comment\n# top comment\nelif y:\n    pass\n",
    "def f():\n    return\n\n\n\n",
    "type X = list[int]\ndef g[T](x: T) -> T: ...\nclass K[T]: pass\n",
    "f(a)(b)[c].d(e=1, *f, **g)\n",
    "x = (  # open\n    1  # one\n    ,\n)\n",
    "print(1,2 ,3 , 4)\n",
    "if True: x = 1; y = 2\nwhile 0: pass\n",
]


def _real_sources() -> list[Path]:
    """A third of stagelint's own modules and of the test data (libcst's provider is slow):
    real code in many styles."""
    paths = sorted((ROOT / "stagelint").rglob("*.py"))[::3] + sorted((ROOT / "tests" / "data").rglob("*.py"))[::3]
    return [path.relative_to(ROOT) for path in paths]


def _same_as_libcst(module: cst.Module) -> int:
    """Asserts `positions(module)` holds libcst's range for every node it records, and records
    every node but the `_UNRECORDED` kinds; returns how many nodes it compared."""
    theirs = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    ours = positions(module)
    compared = 0
    for node, r in theirs.items():
        if type(node) in _UNRECORDED:
            assert id(node) not in ours, node
            continue
        assert ours[id(node)] == (r.start.line, r.start.column, r.end.line, r.end.column), node
        compared += 1
    assert len(ours) == compared
    return compared


@pytest.mark.parametrize("text", ODD)
def test_positions_of_odd_sources_are_libcst_s(text):
    module = cst.parse_module(text)
    assert _same_as_libcst(module) >= 1  # the module itself at least


@pytest.mark.parametrize("path", _real_sources(), ids=str)
def test_positions_of_real_code_are_libcst_s(path):
    try:
        module = cst.parse_module((ROOT / path).read_bytes())
    except cst.ParserSyntaxError:  # test data that is meant not to parse
        return
    assert _same_as_libcst(module) >= 1


@settings(max_examples=100, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
@given(source=hypothesmith.from_grammar())
def test_positions_of_generated_code_are_libcst_s(source):
    try:
        module = cst.parse_module(source)
    except (cst.ParserSyntaxError, RecursionError):  # libcst's grammar is not CPython's
        return
    _same_as_libcst(module)


@pytest.mark.parametrize("text", ODD[:12] + ["x = 1; y = (a, b)  # c\nif not x:\n    z = -y[0] is not None\n"])
def test_metadata_answers_every_node_as_libcst_s_provider(text):
    """Whitespace, comments and operators included: asked about, they come from libcst's provider."""
    module = cst.parse_module(text)
    theirs = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    meta = Metadata(module)
    asked = list(theirs.items())
    asked.sort(key=lambda item: type(item[0]) not in _UNRECORDED)  # a token first: the fallback
    for node, r in asked:
        assert meta.position(node) == (r.start.line, r.start.column, r.end.line, r.end.column), node
    with pytest.raises(KeyError):  # a node of no tree has no position, as in libcst
        meta.position(cst.Name("elsewhere"))


def test_the_unrecorded_are_whitespace_comments_and_operators():
    from libcst._nodes import op

    tokens = (cst.SimpleWhitespace, cst.ParenthesizedWhitespace, cst.TrailingWhitespace, cst.EmptyLine,
              cst.Newline, cst.Comment, op._BaseOneTokenOp, op._BaseTwoTokenOp, op.BaseUnaryOp)
    assert _UNRECORDED and all(issubclass(kind, tokens) for kind in _UNRECORDED)
    assert {cst.Comma, cst.Dot, cst.SimpleWhitespace, cst.NotIn, cst.Minus} <= _UNRECORDED
    # ranges end at brackets (`from a import (b)` ends at its `)`): those are recorded
    assert not {cst.LeftParen, cst.RightParen, cst.RightSquareBracket, cst.Name} & _UNRECORDED


def test_other_code_generation_during_the_pass_is_libcst_s_and_the_methods_are_put_back():
    text = '@ a . b ( c )\ndef f ( a , / , b = 1 ) :\n    return f"{a!r:>{b}}" + (\r\n  1)  # c\r\n'
    module = cst.parse_module(text)
    with fastmeta._counting_codegen():
        with fastmeta._counting_codegen():  # nestable
            assert module.code == text  # another state: libcst's own methods
            assert cst.CSTNode._codegen is fastmeta._codegen
        assert cst.CSTNode._codegen is fastmeta._codegen
    assert cst.CSTNode._codegen is fastmeta._BASE_CODEGEN
    assert "_codegen" not in vars(cst.Name) and "_codegen" not in vars(cst.Comma)
    assert vars(cst.Module)["_codegen_impl"] is fastmeta._MODULE_CODEGEN_IMPL
    assert module.code == text


def test_a_range_ending_at_an_unrecorded_node_falls_back_to_libcst_s_provider(monkeypatch):
    """Another libcst could end a range at a node the pass does not record: then every position
    comes from libcst's provider, not a wrong one."""
    def unrecorded(self, state):  # counts `)` but does not record it
        if state.__class__ is not fastmeta._PositionState:
            return fastmeta._BASE_CODEGEN(self, state)
        self.whitespace_before._codegen(state)
        state.column += 1

    replaced = [(k, m, unrecorded if k is cst.RightParen else f) for k, m, f in fastmeta._REPLACEMENTS]
    monkeypatch.setattr(fastmeta, "_REPLACEMENTS", replaced)
    module = cst.parse_module("from a import (b)\nx = (1)\n")  # ImportFrom ends at its `)`
    assert positions(module) == libcst_positions(module)
    assert len(positions(module)) == len(MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider))
