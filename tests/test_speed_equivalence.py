"""What makes `stagelint check` fast must not change what it finds.

* `fastmeta.Metadata` answers scopes, qualified names and positions as libcst's own providers
  do: the facts of every example and fixture module are compared with both (positions node by
  node: tests/test_fastmeta_positions.py).
* The result cache (cold, warm, after an edit) and the number of worker processes give the same
  findings on a small tree that mixes every rule's examples with the fixture project.

No timings here: speed is measured by bench/speed.py, on the real corpus.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import libcst as cst
import pytest

from stagelint.analysis import context as C
from stagelint.analysis import walk as W
from stagelint.pipeline.cache import Cache
from stagelint.config import Settings
from stagelint.engine import check_paths, module_name
from stagelint.analysis.fastmeta import _ORIGINAL_VISIT, LibcstMetadata, Metadata
from stagelint.pipeline.files import digest
from stagelint.frameworks import TENSORFLOW
from stagelint.rules import all_rules
from stagelint.rules.base import example_source

ROOT = Path(__file__).resolve().parents[1]
PROJECT = ROOT / "tests" / "integrations" / "fixtures" / "project"


def _sources(parsing_only: bool = False) -> list[tuple[str, str]]:
    out = []
    for rule in all_rules():
        for kind in ("invalid", "valid"):
            for i, example in enumerate(getattr(rule, kind)):
                out.append((f"{rule.code.lower()}_{kind}_{i}.py", example_source(example)))
    for base in (ROOT / "examples", PROJECT):
        for path in sorted(base.rglob("*.py")):
            out.append((str(path.relative_to(ROOT)), path.read_text()))
    if parsing_only:
        out = [(p, t) for p, t in out if _parses(t)]
    return out


def _parses(text: str) -> bool:
    try:
        cst.parse_module(text)
    except cst.ParserSyntaxError:
        return False
    return True


def _facts(path: str, text: str, metadata, fast: bool = True):
    data = text.encode("utf-8")
    module, is_package = module_name(Path(path))
    ctx = C.FileContext(path, module, is_package, Settings(), TENSORFLOW)
    ctx.project_roots = frozenset({"pkg"})
    ctx.source_digest = digest(data)
    return W.analyze_module(cst.parse_module(data), ctx, [r for r in all_rules() if not r.runtime_only], metadata, fast)


def test_fast_metadata_gives_the_facts_libcst_metadata_gives():
    sources = _sources(parsing_only=True)
    assert len(sources) > 100
    # Twice over, in one process: an answer remembered by a node's id (reused once a tree is
    # freed) would show as facts that change from one analysis to the next.
    for path, text in sources + sources:
        assert _facts(path, text, Metadata) == _facts(path, text, LibcstMetadata, fast=False), path


AWKWARD = [
    "x = 1\r\ny = (2 +\r\n     3)\r\n",
    "def f(a,\n\tb):\n\treturn a  # tab-indented\n",
    's = """one\ntwo\n""" + \'\\\n\'\nt = "é" * 3; u = "😀"\n',
    "if x:\\\n    pass\nelse:\n    y = [\n        1,\n    ]\n",
    "@dec\n# comment\n\nclass C(  # trailing\n    Base,\n):\n    def m(self): return (yield)\n",
    "x = 1\ry = 2\r",
    "async def f():\n    async with a as b:\n        await c\n    return [i async for i in d]\n",
    "match p:\n    case [1, *rest] if rest:\n        pass\n    case {'k': v}:\n        pass\n",
]


def _mixed_tree(tmp_path: Path) -> Path:
    root = tmp_path / "tree"
    shutil.copytree(ROOT / "examples", root / "examples")
    shutil.copytree(PROJECT, root / "project")
    (root / "rules").mkdir()
    for path, text in _sources():
        if "/" not in path:
            (root / "rules" / path).write_text(text)
    return root


def _keys(result):
    return [(f.path, f.line, f.column, f.end_line, f.end_column, f.code, f.message, f.entry_point)
            for f in result.findings]


@pytest.mark.skipif(sys.platform == "win32", reason="worker processes are forked")
def test_findings_are_the_same_cold_warm_and_with_one_or_two_jobs(tmp_path, monkeypatch):
    root = _mixed_tree(tmp_path)
    monkeypatch.chdir(root)
    reference = check_paths(["."], jobs=0)
    assert reference.findings
    runs = {}
    for jobs in (1, 2):
        cache = Cache(tmp_path / f"cache{jobs}")
        runs[f"cold {jobs}"] = check_paths(["."], jobs=jobs, cache=cache)
        assert cache.writes and not cache.hits
        cache = Cache(tmp_path / f"cache{jobs}")
        runs[f"warm {jobs}"] = check_paths(["."], jobs=jobs, cache=cache)
        assert cache.hits and not cache.writes and not cache.misses
    for name, result in runs.items():
        assert _keys(result) == _keys(reference), name
        assert result.files_checked == reference.files_checked, name


class _Order(cst.CSTVisitor):
    def __init__(self):
        super().__init__()
        self.events = []

    def on_visit(self, node):
        self.events.append(("visit", node))
        return not isinstance(node, cst.Lambda)  # also: children skipped when on_visit says so

    def on_leave(self, original_node):
        self.events.append(("leave", original_node))


@pytest.mark.parametrize("text", AWKWARD + [t for _, t in _sources(parsing_only=True)])
def test_walk_visits_what_libcst_visits_in_the_same_order(text):
    from stagelint.analysis.fastmeta import walk

    module = cst.parse_module(text)
    theirs, ours = _Order(), _Order()
    module.visit(theirs)
    walk(module, ours.on_visit, ours.on_leave)
    assert len(ours.events) == len(theirs.events)
    assert all(a[0] == b[0] and a[1] is b[1] for a, b in zip(ours.events, theirs.events))


def test_the_walker_has_no_attribute_hooks_that_walk_would_skip():
    import re

    own = [k for k in W._Walker.__mro__ if k.__module__.startswith("stagelint")]
    hooks = [n for k in own for n in vars(k) if re.match(r"(visit|leave)_[A-Z]\w*_[a-z]|on_(visit|leave)_attribute", n)]
    assert own and hooks == []


@pytest.mark.parametrize("text", AWKWARD + [t for _, t in _sources(parsing_only=True)][:60])
def test_children_and_visits_under_fast_traversal_are_libcst_s(text):
    from stagelint.analysis.fastmeta import _children, fast_traversal

    module = cst.parse_module(text)
    nodes = []
    stack = [module]
    while stack:
        node = stack.pop()
        nodes.append(node)
        stack.extend(node.children)
    for node in nodes:
        expected = node.children
        got = _children(node)
        assert len(got) == len(expected) and all(a is b for a, b in zip(got, expected))
    theirs = _Order()
    module.visit(theirs)
    ours = _Order()
    with fast_traversal():
        module.visit(ours)
        assert cst.CSTNode.visit is not _ORIGINAL_VISIT
    assert cst.CSTNode.visit is _ORIGINAL_VISIT  # put back afterwards
    assert [(e, id(n)) for e, n in ours.events] == [(e, id(n)) for e, n in theirs.events]


def test_libcst_classes_answer_isinstance_alike_under_fast_traversal():
    """`fast_traversal()` gives libcst's node and scope classes a plain class in place of
    `abc.ABCMeta` (`fastmeta._PlainClass`): every `issubclass` between them, and `isinstance` of
    every node of a real file against each of them, answer as before; `abc.ABCMeta` is back
    afterwards, and after `restore_libcst`."""
    import abc

    from stagelint.analysis.fastmeta import _PlainClass, _plain_classes, _set_class, fast_traversal, restore_libcst

    kinds = _plain_classes()
    assert cst.CSTNode in kinds and cst.Name in kinds and cst.BaseExpression in kinds and len(kinds) > 300
    module = cst.parse_module((ROOT / "stagelint" / "analysis" / "walk.py").read_bytes())
    nodes, stack = [], [module]
    while stack:
        node = stack.pop()
        nodes.append(node)
        stack.extend(node.children)
    kinds_of_nodes = {type(n): n for n in nodes}

    def answers():
        return ([issubclass(a, b) for a in kinds for b in kinds],
                [isinstance(n, k) for n in kinds_of_nodes.values() for k in kinds])

    before = answers()
    with fast_traversal():
        assert all(type(k) is _PlainClass for k in kinds)
        assert answers() == before
    assert all(type(k) is abc.ABCMeta for k in kinds)
    _set_class(kinds, _PlainClass)  # as an analysis cut short by its time budget can leave them
    restore_libcst()
    assert all(type(k) is abc.ABCMeta for k in kinds)


@pytest.mark.parametrize("text", AWKWARD + [t for _, t in _sources(parsing_only=True)])
def test_the_walk_passes_by_trivia_which_hold_only_trivia(text):
    """The analysis walk does not enter whitespace, comments, operators and brackets: what they
    hold is only more of the same, and every other node is visited, in libcst's order."""
    from stagelint.analysis.fastmeta import walk

    module = cst.parse_module(text)
    every, kept = _Order(), _Order()
    walk(module, every.on_visit, every.on_leave)
    walk(module, kept.on_visit, kept.on_leave, W.TRIVIA)
    inside = 0  # depth of trivia around the current event
    expected = []
    for event, node in every.events:
        trivia = type(node) in W.TRIVIA
        if event == "visit":
            assert not inside or trivia, type(node).__name__  # under trivia: trivia only
            inside += trivia
        if not inside:
            expected.append((event, node))
        if event == "leave":
            inside -= trivia
    assert [(e, id(n)) for e, n in kept.events] == [(e, id(n)) for e, n in expected]
    assert len(kept.events) < len(every.events) or not text.strip()


def test_no_rule_handles_a_node_type_the_walk_passes_by():
    rules = [r for r in all_rules() if not r.runtime_only]
    skipped = W._skipped([object.__new__(r) for r in rules])
    assert skipped and {cst.SimpleWhitespace, cst.Comma, cst.Comment} <= skipped
    for rule in rules:
        assert not [k for k in skipped if hasattr(rule, "visit_" + k.__name__) or hasattr(rule, "leave_" + k.__name__)]

    class Commas:  # a rule that asks about a trivia type gets its nodes
        def visit_Comma(self, node):
            pass

    assert cst.Comma not in W._skipped([Commas()]) and cst.Dot in W._skipped([Commas()])


@pytest.mark.parametrize("text", AWKWARD + [t for _, t in _sources(parsing_only=True)][:80] + [
    "x = (a).b\ny = a . b\nz = (a\n  .b)\nw = a.  b .c\nv = 'a   b' + \"c\"\nu = (1)\nt = -1.5j\n"])
def test_short_code_of_names_and_dotted_names_is_libcst_s_code(text):
    """`short_code` writes names, numbers, strings and dotted names itself: the same text as
    libcst's code generation, cut the same way."""
    from stagelint.analysis.fastmeta import walk

    module = cst.parse_module(text)
    nodes = []
    walk(module, lambda n: nodes.append(n) or True, lambda n: None)
    plain = 0
    for node in nodes:
        code = C._plain_code(node)
        if code is None:
            continue
        plain += 1
        assert code == module.code_for_node(node)
        for limit in (3, 10, 40):
            whole = " ".join(module.code_for_node(node).split())
            assert C.short_code(node, limit) == (whole if len(whole) <= limit else whole[: limit - 3] + "...")
    assert plain or not any(type(n) is cst.Name for n in nodes)


@pytest.mark.parametrize("text", AWKWARD + [t for _, t in _sources(parsing_only=True)][:60])
def test_inner_nodes_are_the_children_less_trivia(text):
    from stagelint.analysis.trivia import TRIVIA, inner_nodes

    module = cst.parse_module(text)
    stack, seen = [module], 0
    while stack:
        node = stack.pop()
        expected = [c for c in node.children if type(c) not in TRIVIA]
        got = inner_nodes(node)
        assert len(got) == len(expected) and all(a is b for a, b in zip(got, expected)), type(node).__name__
        seen += len(node.children) - len(got)
        stack.extend(node.children)
    assert seen or not text.strip()  # some trivia was left out


LOOP_SOURCES = b"""
import jax

def make_train(data, num_tasks, classes_per_task):
    def update_task(x, task, examples_per_epoch):
        return x * task

    update_task = jax.jit(update_task, static_argnums=(1, 2))
    for task in range(num_tasks):
        examples_per_epoch = 100 * (task + 1) * classes_per_task
        scale = examples_per_epoch * 2
        for epoch in range(10):
            update_task(data, task, examples_per_epoch)
            update_task(data, scale, examples_per_epoch + epoch)
"""


def test_loop_sources_are_found_where_jax_can_stage_and_only_there():
    """`ArgFacts.from_loops`, which only STG501's JAX step asks (`retracing._static_beside`), is
    found in a file JAX can reach, through locals computed in the loop (memoised once per local:
    the same answer for each argument reading it), and left empty in a file JAX cannot reach
    (`screen.framework_reach`: no call site there can pass a static argument)."""
    from stagelint.pipeline.perfile import analyze_source

    def sources(absent):
        facts = analyze_source("m.py", LOOP_SOURCES, Settings(), absent=absent)
        return [[a.from_loops for a in s.args] for s in facts.call_sites if s.target == ("name", "m.make_train.<locals>.update_task")]

    assert sources(frozenset()) == [[[], ["task"], ["task"]], [[], ["task"], ["epoch", "task"]]]
    assert sources(frozenset({"jax"})) == [[[], [], []], [[], [], []]]


STATEMENT_KINDS = [(cst.Return,), (cst.Raise,), (cst.Return, cst.Raise, cst.Break, cst.Continue)]


@pytest.mark.parametrize("text", AWKWARD + [t for _, t in _sources(parsing_only=True)][:60])
def test_statements_are_found_past_the_expressions_as_by_a_visit(text):
    """`trivia.holds_statement` (through `statement_parts`, no expression entered) answers what
    `context.holds_kind`'s visit answers for statement kinds, for every node of the module: no
    statement lies inside an expression, nested defs and classes are passed by."""
    from stagelint.analysis.trivia import holds_statement

    module = cst.parse_module(text)
    stack, asked = [module], 0
    while stack:
        node = stack.pop()
        for kinds in STATEMENT_KINDS:
            assert holds_statement(node, kinds) == C.holds_kind(node, kinds), type(node).__name__
        asked += 1
        stack.extend(node.children)
    assert asked
