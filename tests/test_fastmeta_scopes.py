"""`fastmeta.Metadata` gives libcst's scope model: the scope of every node, every scope's
assignments and accesses (and what each access refers to), and the qualified names of every
node, as `ScopeProvider` and `QualifiedNameProvider` report them (`LibcstMetadata`).

Scope objects are new ones each time: they are compared by what they are (kind, name, the node
that opens them) and by what they hold, node identity included.
"""

from __future__ import annotations

from pathlib import Path

import hypothesmith
import libcst as cst
import pytest
from hypothesis import HealthCheck, given, settings
from libcst.metadata.expression_context_provider import ExpressionContextVisitor

from stagelint.analysis import fastmeta
from stagelint.analysis.fastmeta import LibcstMetadata, Metadata

ROOT = Path(__file__).resolve().parents[1]

SCOPES = [
    "",
    "import a.b.c as d, e\nfrom .f import (g as h, i)\nfrom j import *\nd.x(h, i, e.y)\n",
    "x = 1\ndef f(a, /, b=x, *c, d: 'T' = 2, **e) -> 'R':\n    global x\n    x = a\n    def g():\n"
    "        nonlocal a\n        a = b\n    return g\n",
    "class C(Base, metaclass=M):\n    x = 1\n    y = [x for _ in range(3)]\n    def m(self, z=x): return self.x + z\n",
    "v = [(a, b) for a in range(3) if a for b in range(a) if (c := b)]\nprint(c, {k: w for k, w in v}, {*v})\n",
    "f = lambda a, b=1: (lambda c: a + b + c)\ng = (x for x in f if x)\n",
    "@dec(arg)\n@other.attr\ndef f(): pass\n\n@dec\nclass K: pass\n",
    "def f[T: int, *Ts, **P](x: T) -> T: return x\nclass C[U]: u: U\ntype A[V] = list[V]\n",
    "from typing import List\nx: List['int'] = []\ndef f(a: 'List[str]') -> 'Dict[str, int]': ...\n",
    "try:\n    import a\nexcept ImportError as e:\n    a = None\n    print(e)\nelse:\n    del a\n",
    "for i, (j, *k) in x:\n    with open(i) as f, g() as (h, l):\n        i += j\n        x[i].y = k\n",
    "match p:\n    case [a, *rest] if rest:\n        print(a)\n"
    "    case {'k': v, **kw}:\n        pass\n    case C(x=b) | D(b):\n        pass\n",
    "import tensorflow as tf\n@tf.function\ndef f(x):\n    return tf.nn.relu(tf.reduce_sum(x))\ny = tf.Variable(1)\n",
    "class A:\n    class B:\n        def c(self):\n            return A.B, __class__, super().c()\n",
    "async def f():\n    async for a in b:\n        await a\n    return [c async for c in d]\n",
    "x = 1\ndef f():\n    print(x)\n    x = 2\n",
    "def f():\n    yield from (y for y in range(3))\n    return (yield)\n",
    "print(__name__, __file__, len, int.from_bytes)\n",
    # A call on a string: libcst's full name of `', '.join` is "None.join" (the unnamed base
    # spelled "None"), whose lookup records the builtin `None` that no code here reads
    "def f(v): return ', '.join(f'{k} = {v}' for k, v in v)\n",
    # The calls whose arguments libcst's scope visitor reads as type hints (`typing.cast`, ...), by
    # every spelling: the scope visit asks their qualified names only where one can be typing's
    "from typing import cast as c, NewType\nimport typing as t\nfrom typing_extensions import TypeVar\n"
    "x = c('List[int]', y)\nN = NewType('N', 'int')\nT = t.TypeVar('T', 'Foo')\nU = TypeVar('U', bound='Bar')\n"
    "import numpy as np\nnp.cast('int', z)\ncast('Q', w)\n",
    "def f():\n    return cast('A', x), typing.cast('B', y)\nfrom typing import cast\nimport typing\n"
    "cast('C', z)\ntyping.cast('D', typing)\n",
    "class typing:\n    def cast(a, b): ...\n    NewType = cast\ntyping.cast('Q', v)\ntyping.NewType('R', 'S')\n",
    "from typing import *\nfrom x.typing import y as z\nfrom . import typing as tp\nz('E', 1)\ncast('F', 2)\ntp.cast('G', 3)\n",
    "import typing.re as tr, typing\ntr.cast('H', 4)\ntyping.re.cast('I', 5)\nf()('J')\n",
    # Binding targets of every shape: the names the scope visit marks as stores itself
    "x = {}\nx[(y := 1)] = 2\n(a, [b, *c]) = d = x\nx.a, x[b] = y, c\ndel x[(z := 0)], a\nprint(y, z)\n",
    "class K:\n    pass\nfor K.a[(i := 0)], *rest in [(1, 2)]:\n    print(i, rest)\n",
    "with open(p) as (f, g), h as k.m:\n    t: int = f\n    t += g\n    k.m[t]: int = 1\n",
    "v = [[q for q in w if (r := q)] for w, *_ in s if w]\nd = {k: l for (k, l) in s}\n",
    "f = lambda a=(b := 1), *c, d=[e for e in b]: (a, c, d)\n",
    "def f(p=(q := 1)):\n    def g(r=q): return r\n    return g\nimport x.y as z, w\nfrom m import n as o\n",
]


def _real_sources() -> list[Path]:
    paths = sorted((ROOT / "stagelint").rglob("*.py"))[1::4] + sorted((ROOT / "tests" / "data").rglob("*.py"))[1::4]
    return [path.relative_to(ROOT) for path in paths]


def _nodes(module: cst.Module) -> list[cst.CSTNode]:
    out, stack = [], [module]
    while stack:
        node = stack.pop()
        out.append(node)
        stack.extend(reversed(node.children))
    return out


def _picture(module: cst.Module, meta) -> tuple:
    """What the scope model says about the module, with scopes named by what they are."""
    def name(scope):
        if scope is None:
            return None
        node = getattr(scope, "node", None)
        return f"{type(scope).__name__} {getattr(scope, 'name', None)} {id(node) if node is not None else None}"

    def assignment(a):
        node = getattr(a, "node", None)
        return repr((type(a).__name__, a.name, name(a.scope), id(node) if node is not None else None,
                     getattr(a, "_index", None), id(getattr(a, "as_name", None))))

    nodes = _nodes(module)
    # The qualified names first: a name's lookup makes the builtins' entry of what it looks up
    # (libcst's `BuiltinScope` records a builtin when it is first asked for), and libcst's
    # provider has asked every node's before the picture is taken, `Metadata` asks when asked
    # (`test_a_builtin_is_recorded_when_a_lookup_asks_for_it`).
    names = [(id(n), sorted((q.name, q.source.name) for q in meta.qualified_names(n)))
             for n in nodes if meta.scope(n) is not None]
    scopes, queue = {}, [meta.scope(n) for n in nodes]
    while queue:
        scope = queue.pop()
        if scope is None or id(scope) in scopes:
            continue
        scopes[id(scope)] = scope
        queue += [scope.parent, scope.globals]
    held = sorted((
        name(scope), name(scope.parent), scope._assignment_count,
        sorted((k, sorted(map(assignment, v))) for k, v in scope._assignments.items()),
        sorted((k, sorted((id(a.node), a.is_annotation, a.is_type_hint, a._index,
                           sorted(map(assignment, a.referents))) for a in v))
               for k, v in scope._accesses_by_name.items()),
        sorted((id(k), len(v)) for k, v in scope._accesses_by_node.items()),
    ) for scope in scopes.values())
    return [(id(n), name(meta.scope(n))) for n in nodes], names, held


def _same_as_libcst(module: cst.Module) -> None:
    ours = _picture(module, Metadata(module))
    theirs = _picture(module, LibcstMetadata(module))
    assert ours[0] == theirs[0]  # the scope of every node
    assert ours[1] == theirs[1]  # the qualified names of every node
    assert ours[2] == theirs[2]  # every scope's assignments and accesses


@pytest.mark.parametrize("text", SCOPES)
def test_scopes_and_names_of_odd_sources_are_libcst_s(text):
    _same_as_libcst(cst.parse_module(text))


@pytest.mark.parametrize("path", _real_sources(), ids=str)
def test_scopes_and_names_of_real_code_are_libcst_s(path):
    try:
        module = cst.parse_module((ROOT / path).read_bytes())
    except cst.ParserSyntaxError:  # test data that is meant not to parse
        return
    _same_as_libcst(module)


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
@given(source=hypothesmith.from_grammar())
def test_scopes_and_names_of_generated_code_are_libcst_s(source):
    try:
        module = cst.parse_module(source)
    except (cst.ParserSyntaxError, RecursionError):
        return
    _same_as_libcst(module)


def _builtins_recorded(meta, module: cst.Module) -> set[str]:
    globals_ = meta.scope(module)
    return {k for k, v in globals_.parent._assignments.items() if v}


@pytest.mark.parametrize("text", ["def f(v): return ', '.join(f'{k} = {v}' for k, v in v)\n", "', '.join(v)\n"])
def test_a_builtin_is_recorded_when_a_lookup_asks_for_it(text):
    """A source that reads no builtin: libcst's scope visitor asks every call's qualified names
    (to find typing's casts), and the full name it looks up for `', '.join(...)` is "None.join"
    (`get_full_name_for_node` spells the string base "None"): the lookup records a builtin `None`
    (`BuiltinScope._resolve_scope_for_access`). The generator and what its first iterable binds
    play no part (the one-call source shows it too). `Metadata`'s scope visit skips the question
    for a call that cannot be typing's (`_ScopeVisitor.visit_Call`) and records nothing; asked the
    call's qualified names, it looks the same name up, records the same builtin and answers as
    libcst does. No access refers to that entry and no analysis step reads the builtins' entries
    (only an access's referents): the comparison takes both pictures once every lookup is made."""
    module = cst.parse_module(text)
    ours, theirs = Metadata(module), LibcstMetadata(module)
    assert _builtins_recorded(theirs, module) == {"None"} and _builtins_recorded(ours, module) == set()
    call = next(n for n in _nodes(module) if isinstance(n, cst.Call) and isinstance(n.func, cst.Attribute))
    assert {q.name for q in ours.qualified_names(call)} == {q.name for q in theirs.qualified_names(call)} == {"builtins.None"}
    assert _builtins_recorded(ours, module) == {"None"}
    _same_as_libcst(module)


def _stores_asked(text: str) -> list[tuple[str, bool, bool]]:
    """Each name the scope visit asks about: (its code, a store by the marks, a store by a whole
    `ExpressionContextVisitor` visit)."""
    from libcst.metadata.expression_context_provider import ExpressionContext

    module = cst.parse_module(text)
    whole = fastmeta._Contexts()
    with fastmeta.fast_traversal():
        module.visit(ExpressionContextVisitor(whole, ExpressionContext.LOAD))
    asked = []

    class Asking(fastmeta._Scopes):
        def get_metadata(self, key, node, default=None):
            got = super().get_metadata(key, node, default)
            asked.append((module.code_for_node(node), got is ExpressionContext.STORE,
                          whole._computed.get(id(node)) is ExpressionContext.STORE))
            return got

    scopes = fastmeta._Scopes
    fastmeta._Scopes = Asking
    try:
        fastmeta.Metadata(module)
    finally:
        fastmeta._Scopes = scopes
    return asked


@pytest.mark.parametrize("text", SCOPES)
def test_the_scope_visit_marks_the_stores_a_whole_context_visit_gives(text):
    """`_STORE_TARGETS`: no visit of the expression contexts of its own; every name the scope
    visitor asks about is a store exactly when libcst's expression-context visitor says so."""
    asked = _stores_asked(text)
    assert [(code, ours) for code, ours, _ in asked] == [(code, whole) for code, _, whole in asked]


def test_stores_marked_in_odd_targets():
    asked = {(code, ours) for code, ours, _ in _stores_asked(SCOPES[-6])}
    assert {("x", True), ("y", True), ("a", True), ("b", True), ("c", True), ("d", True), ("z", True)} <= asked
    assert ("x", False) in asked  # `x[...] = 2` reads x


def test_tokens_hold_only_tokens():
    """What lets a visit pass over a token's nodes, or give them all one scope: a token
    (whitespace, a comment, an operator, a bracket) holds nothing but tokens."""
    seen = set()
    for path in _real_sources():
        try:
            module = cst.parse_module((ROOT / path).read_bytes())
        except cst.ParserSyntaxError:
            continue
        for node in _nodes(module):
            if type(node) in fastmeta._TOKEN_KINDS:
                seen.add(type(node))
                assert all(type(child) in fastmeta._TOKEN_KINDS for child in node.children), node
    assert {cst.SimpleWhitespace, cst.Comma, cst.LeftParen, cst.TrailingWhitespace} <= seen


def test_libcst_s_visitors_of_the_metadata_do_nothing_with_tokens():
    """Else the visits would fall back to the general path (still exact, slower): a libcst
    upgrade that gives them a reaction to a token shows here."""
    assert fastmeta._Reactions(fastmeta._ScopeVisitor).ignores_tokens
    reactions = fastmeta._Reactions(ExpressionContextVisitor)
    assert reactions.ignores_tokens and reactions.inert == fastmeta._TOKEN_KINDS

    class Commas(cst.CSTVisitor):
        def visit_Comma(self, node):
            pass

    assert not fastmeta._Reactions(Commas).ignores_tokens and not fastmeta._Reactions(Commas).inert


def test_a_visitor_reacting_to_tokens_still_sees_them_under_fast_traversal():
    class Seen(cst.CSTVisitor):
        def __init__(self):
            super().__init__()
            self.seen = []

        def visit_Comma(self, node):
            self.seen.append(node)

        def leave_SimpleWhitespace(self, node):
            self.seen.append(node)

    module = cst.parse_module("f(a, b , c)\n")
    theirs, ours = Seen(), Seen()
    module.visit(theirs)
    with fastmeta.fast_traversal():
        module.visit(ours)
    assert len(theirs.seen) > 5 and [id(n) for n in ours.seen] == [id(n) for n in theirs.seen]


def test_a_format_spec_is_walked_whichever_f_string_comes_first(monkeypatch):
    """libcst visits `format_spec` only when it is set: the fields learnt from a first f-string
    without one still hold it, so the `w` of a later `f"{b:{w}}"` is walked and has a scope."""
    monkeypatch.setattr(fastmeta, "_FIELDS", {})  # as in a fresh worker process
    monkeypatch.setattr(fastmeta, "_REACTIONS", {})
    module = cst.parse_module('f"{a}"\nf"{b:{w}.2f} {c!r:>{d}}"\n')
    width = module.body[1].body[0].value.parts[0].format_spec[0].expression
    assert isinstance(width, cst.Name) and width.value == "w"
    events = []
    fastmeta.walk(module, lambda n: events.append(("visit", id(n))) or True, lambda n: events.append(("leave", id(n))))

    class Order(cst.CSTVisitor):
        def __init__(self):
            super().__init__()
            self.events = []

        def on_visit(self, node):
            self.events.append(("visit", id(node)))
            return True

        def on_leave(self, original_node):
            self.events.append(("leave", id(original_node)))

    theirs = Order()
    module.visit(theirs)
    assert events == theirs.events and ("visit", id(width)) in events
    assert Metadata(module).scope(width) is not None
    _same_as_libcst(module)
