"""The metadata one traversal needs (scopes, positions), at an eighth of libcst's usual cost.

`MetadataWrapper.resolve_many((QualifiedNameProvider, ScopeProvider, PositionProvider))` costs
about twice the parse plus the walk together (tf-models-official, 40 files: 100 ms of 125 ms a
file), and most of that is bookkeeping around the analysis, not the analysis:

* `QualifiedNameProvider` walks the whole tree once more to store, for every node, a deferred
  `scope.get_qualified_names_for(node)`. `Metadata.qualified_names` makes the same call when a
  rule asks about a node, and only then (a rule asks about a few hundred nodes of tens of
  thousands), and remembers the answer.
* The wrapper's resolution loop runs a batched traversal of the whole tree per round of
  dependencies, including rounds in which no provider visits anything; here the expression
  context and the scopes are computed by their own visitors, once each, and nothing else walks.
* libcst's `CSTNode.visit` rebuilds every node on the way back up, also for a `CSTVisitor`,
  which throws the rebuilt tree away. The expression-context and scope visitors run under
  `fast_traversal()`, which gives a `CSTVisitor` the same calls in the same order (`on_visit`,
  the attribute hooks, `on_leave`) without the rebuilding: 40% less per file. It also looks up
  once per node type what a visitor class does with it (`_Reactions`), where libcst formats a
  method name for every node and asks every field of every node for an attribute hook (the
  scope visitor has one, for `ClassDef.bases`): a quarter less again. libcst's scope visitor
  tests every node against a tuple of abstract classes; `_ScopeVisitor` tests the exact type.
* Tokens (whitespace, newlines, comments, operators, brackets: two thirds of a tree's nodes)
  hold nothing but tokens, and neither visitor does anything with one: the expression-context
  visit passes over them (`_Reactions.inert`), and the scope visit (`_scope_visit`, the scope
  visitor's `on_leave` inline) gives a token's nodes the current scope without the visitor's
  calls. Scopes and expression contexts are keyed by `id(node)`, as positions are. The
  expression-context and scope visits of the 12 largest staged tf-models files: 0.50 s -> 0.31 s.
* The expression contexts have no visit of their own: libcst's scope visitor asks one question
  of them, whether a name is stored (`STORE`) or used (`LOAD`, `DEL` or none), and a name is
  stored only below the target of a binding (`_STORE_TARGETS`: an assignment's targets, a
  `for`'s, a def's name, an `as` name, ...). The scope visit marks a binding's targets as it
  reaches the binding, before their names, with libcst's own expression-context visitor over the
  target alone (a plain name is marked directly). The analysis of 27 tf-models files: 3.3 %
  fewer instructions.
* `PositionProvider` regenerates the source and records a `CodeRange` of two frozen dataclass
  positions for every node, keyed by the node (whose `__hash__` is a Python call), through a
  generator-based context manager for every expression and every syntactic range. `positions`
  runs the same code generation, libcst's own `_codegen_impl` of every node class, with a
  counting state and, for the duration, cheaper methods that count the same: plain
  `(line, column, end_line, end_column)` tuples keyed by `id(node)`, no generators, and one
  function each for the leaves and tokens that make up most of a tree (whitespace, newlines and
  comments are more than half of all nodes; operators, brackets, names, numbers, strings).
  Whitespace, comments and operators are counted, not recorded: no rule asks where they are
  (`Metadata.position` asks libcst's provider if one does). A third of the cost before (12
  largest staged tf-models files: 0.13 s against 0.39 s).

* libcst's scope visitor asks the qualified names of every call, to find `typing.NewType`,
  `typing.TypeVar` and `typing.cast` (their arguments are type hints). `_ScopeVisitor.visit_Call`
  asks only where the answer can hold one of them: the called name ends in one of the three, or
  begins with a name an import from `typing` bound earlier in the visit. The analysis of 27
  tf-models files: 1 % fewer instructions.
* libcst's classes are made by `abc.ABCMeta`, whose `__instancecheck__` is a Python call for
  every `isinstance(node, cst.Name)` that is not an exact match (300,000 on 27 tf-models files).
  While `fast_traversal()` is on, the node and scope classes have a plain class instead
  (`_PlainClass`), the same answers (nothing registers a virtual subclass of them): 4 % fewer
  instructions.

`parse_module` is libcst's parse without libcst's check of every node the parser builds (the
check is for trees built by hand): the same tree, a tenth less parse.

The results are the same values libcst computes: the scope of every node, the qualified names
libcst reports, positions identical to `PositionProvider`'s (tests compare them node by node;
tests/test_fastmeta_positions.py).
"""

from __future__ import annotations

import abc
import contextlib
import dataclasses
import re
import sys
import threading
from typing import Optional

import libcst as cst
from libcst.helpers import get_full_name_for_node
from libcst.metadata import ExpressionContextProvider, MetadataWrapper, ScopeProvider
from libcst.metadata.scope_provider import ScopeVisitor

try:  # private: the node classes libcst's scope visitor counts as assignments
    from libcst.metadata.scope_provider import _ASSIGNMENT_LIKE_NODES
except ImportError:  # pragma: no cover - another libcst: its own visitor, as it is
    _ASSIGNMENT_LIKE_NODES = None
from libcst._nodes.expression import _BaseParenthesizedNode
from libcst.metadata.expression_context_provider import ExpressionContext, ExpressionContextVisitor
from libcst.metadata.position_provider import NEWLINE_RE, PositionProvider


# Positions (see the module's docstring) ---------------------------------------------------------
#
# No libcst range starts or ends at whitespace, a comment or an operator, so those are counted and
# not recorded; a statement can end at its `)` (`from a import (b)`), so brackets are recorded.

_BASE_CODEGEN = cst.CSTNode.__dict__["_codegen"]
_BASE_PARENTHESIZE = _BaseParenthesizedNode.__dict__["_parenthesize"]
_MODULE_CODEGEN_IMPL = cst.Module.__dict__["_codegen_impl"]
_split_lines = NEWLINE_RE.split


class _PositionState:
    """What libcst's node classes ask of a `CodegenState` while generating code, counting lines
    (1-based) and columns (0-based) as `PositionProvidingCodegenState` does, without the text."""

    __slots__ = ("default_indent", "default_newline", "indent_tokens", "line", "column", "computed")

    def __init__(self, module: cst.Module):
        self.default_indent = module.default_indent
        self.default_newline = module.default_newline
        self.indent_tokens: list[str] = []
        self.line = 1
        self.column = 0
        self.computed: dict[int, tuple[int, int, int, int]] = {}

    def increase_indent(self, value: str) -> None:
        self.indent_tokens.append(value)

    def decrease_indent(self) -> None:
        self.indent_tokens.pop()

    def add_indent_tokens(self) -> None:
        for token in self.indent_tokens:
            self.add_token(token)

    def add_token(self, value: str) -> None:
        if "\n" in value or "\r" in value:
            segments = _split_lines(value)
            self.line += len(segments) - 1
            self.column = len(segments[-1])
        else:
            self.column += len(value)

    def record_syntactic_position(self, node, *, start_node=None, end_node=None):
        return _Syntactic(self, node, start_node, end_node)

    def pop_trailing_newline(self) -> None:
        pass  # the text's last token dropped: no position changes


class _Syntactic:
    """`PositionProvidingCodegenState.record_syntactic_position` without a generator."""

    __slots__ = ("state", "node", "start_node", "end_node", "line", "column")

    def __init__(self, state, node, start_node, end_node):
        self.state = state
        self.node = node
        self.start_node = start_node
        self.end_node = end_node
        self.line = state.line
        self.column = state.column

    def __enter__(self):
        return None

    def __exit__(self, *exc) -> bool:
        state = self.state
        computed = state.computed
        if self.start_node is not None:
            start = computed[id(self.start_node)]
            line, column = start[0], start[1]
        else:
            line, column = self.line, self.column
        if self.end_node is not None:
            end = computed[id(self.end_node)]
            end_line, end_column = end[2], end[3]
        else:
            end_line, end_column = state.line, state.column
        computed[id(self.node)] = (line, column, end_line, end_column)
        return False


class _Parenthesized:
    """`_BaseParenthesizedNode._parenthesize` without a generator: the parentheses around, the
    node's syntactic range inside them."""

    __slots__ = ("node", "state", "line", "column")

    def __init__(self, node, state):
        self.node = node
        self.state = state

    def __enter__(self):
        state = self.state
        for lpar in self.node.lpar:
            lpar._codegen(state)
        self.line = state.line
        self.column = state.column

    def __exit__(self, *exc) -> bool:
        state = self.state
        node = self.node
        state.computed[id(node)] = (self.line, self.column, state.line, state.column)
        for rpar in node.rpar:
            rpar._codegen(state)
        return False


# Each replacement hands any other code generation (another thread's `module.code`) to libcst's
# own method: it acts only on the state of this pass.

def _parenthesize(self, state):
    if state.__class__ is not _PositionState:
        return _BASE_PARENTHESIZE(self, state)
    return _Parenthesized(self, state)


def _codegen(self, state, **kwargs) -> None:
    """`CSTNode._codegen` with `PositionProvidingCodegenState.before_codegen`/`after_codegen`."""
    if state.__class__ is not _PositionState:
        return _BASE_CODEGEN(self, state, **kwargs)
    line, column = state.line, state.column
    self._codegen_impl(state, **kwargs)
    computed = state.computed
    key = id(self)
    if key not in computed:  # a syntactic range recorded inside wins, as in libcst
        computed[key] = (line, column, state.line, state.column)


def _module_codegen_impl(self, state) -> None:
    """`Module._codegen_impl`, whose only use of the text is "was anything generated"."""
    if state.__class__ is not _PositionState:
        return _MODULE_CODEGEN_IMPL(self, state)
    for node in self.header:
        node._codegen(state)
    for node in self.body:
        node._codegen(state)
    for node in self.footer:
        node._codegen(state)
    # Every header or footer line and every statement generates a newline at least.
    if self.has_trailing_newline and not (self.header or self.body or self.footer):
        state.add_token(state.default_newline)


def _count(state, value: str) -> None:
    if "\n" in value or "\r" in value:
        segments = _split_lines(value)
        state.line += len(segments) - 1
        state.column = len(segments[-1])
    else:
        state.column += len(value)


def _simple_whitespace(self, state) -> None:  # spaces, tabs, `\f`, a backslash and newline
    if state.__class__ is not _PositionState:
        return _BASE_CODEGEN(self, state)
    value = self.value
    if "\n" in value or "\r" in value:
        _count(state, value)
    else:
        state.column += len(value)


def _newline(self, state) -> None:
    if state.__class__ is not _PositionState:
        return _BASE_CODEGEN(self, state)
    value = self.value
    _count(state, state.default_newline if value is None else value)


def _comment(self, state) -> None:
    if state.__class__ is not _PositionState:
        return _BASE_CODEGEN(self, state)
    _count(state, self.value)


def _trailing_whitespace(self, state) -> None:
    if state.__class__ is not _PositionState:
        return _BASE_CODEGEN(self, state)
    self.whitespace._codegen(state)
    if self.comment is not None:
        self.comment._codegen(state)
    self.newline._codegen(state)


def _empty_line(self, state) -> None:
    if state.__class__ is not _PositionState:
        return _BASE_CODEGEN(self, state)
    if self.indent:
        state.add_indent_tokens()
    self.whitespace._codegen(state)
    if self.comment is not None:
        self.comment._codegen(state)
    self.newline._codegen(state)


def _parenthesized_whitespace(self, state) -> None:
    if state.__class__ is not _PositionState:
        return _BASE_CODEGEN(self, state)
    self.first_line._codegen(state)
    for line in self.empty_lines:
        line._codegen(state)
    if self.indent:
        state.add_indent_tokens()
    self.last_line._codegen(state)


def _one_token_op(self, state) -> None:  # `,` `.` `=` `+` `and` ... (no newline in a token)
    if state.__class__ is not _PositionState:
        return _BASE_CODEGEN(self, state)
    self.whitespace_before._codegen(state)
    state.column += len(self._get_token())
    self.whitespace_after._codegen(state)


def _two_token_op(self, state) -> None:  # `not in`, `is not`
    if state.__class__ is not _PositionState:
        return _BASE_CODEGEN(self, state)
    self.whitespace_before._codegen(state)
    first, second = self._get_tokens()
    state.column += len(first)
    self.whitespace_between._codegen(state)
    state.column += len(second)
    self.whitespace_after._codegen(state)


def _unary_op(self, state) -> None:  # `-` `~` `not`
    if state.__class__ is not _PositionState:
        return _BASE_CODEGEN(self, state)
    state.column += len(self._get_token())
    self.whitespace_after._codegen(state)


def _opening_bracket(self, state) -> None:  # `(` `[` `{`, recorded: ranges end at brackets
    if state.__class__ is not _PositionState:
        return _BASE_CODEGEN(self, state)
    line, column = state.line, state.column
    state.column = column + 1
    self.whitespace_after._codegen(state)
    state.computed[id(self)] = (line, column, state.line, state.column)


def _closing_bracket(self, state) -> None:  # `)` `]` `}`
    if state.__class__ is not _PositionState:
        return _BASE_CODEGEN(self, state)
    line, column = state.line, state.column
    self.whitespace_before._codegen(state)
    state.column += 1
    state.computed[id(self)] = (line, column, state.line, state.column)


def _value_leaf(self, state) -> None:  # a name, a number, a string (which may span lines)
    if state.__class__ is not _PositionState or self.lpar:
        return _codegen(self, state)
    line, column = state.line, state.column
    value = self.value
    if "\n" in value or "\r" in value:
        _count(state, value)
    else:
        state.column = column + len(value)
    state.computed[id(self)] = (line, column, state.line, state.column)


def _replacements() -> list[tuple[type, str, object]]:
    """(class, method, replacement). A class's counting replacement also applies to its
    subclasses that generate their code with the same libcst method (the operators share one)."""
    from libcst._nodes import op

    def where(base: type, method: str, counted) -> list[type]:
        seen, queue, out = set(), [base], []
        while queue:
            kind = queue.pop()
            if kind in seen:
                continue
            seen.add(kind)
            queue.extend(kind.__subclasses__())
            # (`__subclasses__` also lists the classes `add_slots` replaced by slotted copies)
            if getattr(kind, method, None) is counted and getattr(sys.modules[kind.__module__], kind.__name__, None) is kind:
                out.append(kind)
        return out

    out: list[tuple[type, str, object]] = [
        (cst.CSTNode, "_codegen", _codegen),
        (_BaseParenthesizedNode, "_parenthesize", _parenthesize),
        (cst.Module, "_codegen_impl", _module_codegen_impl),
    ]
    for kinds, replacement in (
        ((cst.SimpleWhitespace,), _simple_whitespace),
        ((cst.Newline,), _newline),
        ((cst.Comment,), _comment),
        ((cst.TrailingWhitespace,), _trailing_whitespace),
        ((cst.EmptyLine,), _empty_line),
        ((cst.ParenthesizedWhitespace,), _parenthesized_whitespace),
        ((op._BaseOneTokenOp,), _one_token_op),
        ((op._BaseTwoTokenOp,), _two_token_op),
        ((op.BaseUnaryOp,), _unary_op),
        ((cst.LeftParen, cst.LeftSquareBracket, cst.LeftCurlyBrace), _opening_bracket),
        ((cst.RightParen, cst.RightSquareBracket, cst.RightCurlyBrace), _closing_bracket),
        ((cst.Name, cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString), _value_leaf),
    ):
        for kind in kinds:
            for sub in where(kind, "_codegen_impl", getattr(kind, "_codegen_impl")):
                out.append((sub, "_codegen", replacement))
    return out


_REPLACEMENTS = _replacements()
#: Tokens: whitespace, newlines, comments, operators, brackets. All they hold is whitespace.
_TOKEN_KINDS = frozenset(k for k, method, f in _REPLACEMENTS if method == "_codegen" and f not in (_codegen, _value_leaf))
#: The node classes the position pass counts but does not record (everything else is recorded).
_UNRECORDED = frozenset(k for k in _TOKEN_KINDS if k not in (
    cst.LeftParen, cst.LeftSquareBracket, cst.LeftCurlyBrace, cst.RightParen, cst.RightSquareBracket, cst.RightCurlyBrace))
_replaced = 0
_replacing = threading.Lock()


@contextlib.contextmanager
def _counting_codegen():
    global _replaced
    with _replacing:
        if _replaced == 0:
            for kind, method, replacement in _REPLACEMENTS:
                setattr(kind, method, replacement)
        _replaced += 1
    try:
        yield
    finally:
        with _replacing:
            _replaced -= 1
            if _replaced == 0:
                _restore_codegen()


def _restore_codegen() -> None:
    for kind, method, _ in _REPLACEMENTS:
        if kind is cst.CSTNode:
            kind._codegen = _BASE_CODEGEN
        elif kind is _BaseParenthesizedNode:
            kind._parenthesize = _BASE_PARENTHESIZE
        elif kind is cst.Module and method == "_codegen_impl":
            kind._codegen_impl = _MODULE_CODEGEN_IMPL
        elif method in kind.__dict__:  # the class had no method of its own
            delattr(kind, method)


def positions(module: cst.Module) -> dict[int, tuple[int, int, int, int]]:
    """`PositionProvider`'s ranges as `(line, column, end_line, end_column)`, keyed by `id(node)`,
    for every node but whitespace, comments and operators (`_UNRECORDED`)."""
    state = _PositionState(module)
    try:
        with _counting_codegen():
            module._codegen(state)
    except KeyError:  # a range that ends at a node not recorded (another libcst): all of them
        return libcst_positions(module)
    return state.computed


def libcst_positions(module: cst.Module) -> dict[int, tuple[int, int, int, int]]:
    """`PositionProvider`'s ranges of every node, from libcst's provider itself."""
    resolved = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    return {id(node): (r.start.line, r.start.column, r.end.line, r.end.column) for node, r in resolved.items()}


class _Contexts(ExpressionContextProvider):
    """The expression contexts keyed by `id(node)` (a node's `__hash__` is a Python call)."""

    def set_metadata(self, node, value) -> None:
        self._computed[id(node)] = value


class _Scopes(ScopeProvider):
    """The scopes keyed by `id(node)`; what libcst's scope visitor asks of the expression
    contexts (`get_metadata(ExpressionContextProvider, name, None)`) read from `_Contexts`."""

    def __init__(self, contexts: dict[int, ExpressionContext]):
        super().__init__()
        self._contexts = contexts

    def set_metadata(self, node, value) -> None:
        self._computed[id(node)] = value

    def get_metadata(self, key, node, default=None):
        if key is not ExpressionContextProvider:
            raise KeyError(f"{key.__name__} is not computed here")
        return self._contexts.get(id(node), default)


class _ScopeVisitor(ScopeVisitor):
    """libcst's scope visitor, whose `on_leave` (run for every node) tests the node's type
    against a tuple of node classes with `isinstance`, through the ABC machinery: the same test
    by a set of exact types, a tenth of the whole scope analysis. Under `fast_traversal()` its
    visits run `_scope_visit`, with this `on_leave` inline."""

    def __init__(self, provider) -> None:
        super().__init__(provider)
        #: every scope this visit makes, the builtins' too (`Metadata.release` empties them)
        self.made = [self.scope, self.scope.parent]
        #: the first part of each name an import from `typing` has bound so far in this visit;
        #: None after `from typing... import *`
        self._typing_bound: set[str] | None = set() if hasattr(self, "_ScopeVisitor__in_type_hint_stack") \
            and hasattr(self, "_ScopeVisitor__top_level_attribute_stack") else None  # (another libcst: its own)

    def visit_Import(self, node: cst.Import) -> Optional[bool]:
        self._note_typing_import(node)
        return super().visit_Import(node)

    def visit_ImportFrom(self, node: cst.ImportFrom) -> Optional[bool]:
        self._note_typing_import(node)
        return super().visit_ImportFrom(node)

    def _note_typing_import(self, node) -> None:
        if self._typing_bound is None:
            return
        module = (get_full_name_for_node(node.module) or "") if isinstance(node, cst.ImportFrom) and node.module else ""
        if isinstance(node.names, cst.ImportStar):
            if "typing" in module:
                self._typing_bound = None
            return
        for alias in node.names:
            name = get_full_name_for_node(alias.name) or ""
            if "typing" in module or "typing" in name:
                bound = alias.evaluated_alias if alias.asname is not None else name
                self._typing_bound.add((bound or "").partition(".")[0])

    def visit_Call(self, node: cst.Call) -> Optional[bool]:
        """libcst's, which asks the call's qualified names of every call to find `typing.NewType`,
        `typing.TypeVar` and `typing.cast` (whose arguments are type hints). A qualified name is
        one of those only when the called name ends in `NewType`, `TypeVar` or `cast` (a local
        binding's name ends with the name used), or begins with a name an import from `typing`
        bound before the call (the visit records an import's bindings when it reaches it): the
        other calls skip the question (libcst's answer would hold none of the three)."""
        full = get_full_name_for_node(node)
        if full is not None and (self._typing_bound is None or full.rpartition(".")[2] in _TYPING_HINT_CALLS
                                 or full.partition(".")[0] in self._typing_bound):
            return super().visit_Call(node)
        # libcst's visit_Call for a call that is none of the three (`_ScopeVisitor__...` is the
        # mangled name of ScopeVisitor's private stacks, as libcst's own methods spell them)
        self._ScopeVisitor__top_level_attribute_stack.append(None)
        self._ScopeVisitor__in_type_hint_stack.append(False)
        return True

    def on_leave(self, original_node: cst.CSTNode) -> None:
        self.provider.set_metadata(original_node, self.scope)
        if _assignment_like(type(original_node)):
            self.scope._assignment_count += 1
        cst.CSTVisitor.on_leave(self, original_node)

    @contextlib.contextmanager
    def _new_scope(self, kind, node, name=None):
        with super()._new_scope(kind, node, name):
            self.made.append(self.scope)
            yield


#: the calls libcst's scope visitor looks for by their qualified names (`typing.NewType`, ...)
_TYPING_HINT_CALLS = frozenset({"NewType", "TypeVar", "cast"})

_ASSIGNMENT_LIKE: dict[type, bool] = {}


def _assignment_like(kind: type) -> bool:
    counts = _ASSIGNMENT_LIKE.get(kind)
    if counts is None:
        counts = _ASSIGNMENT_LIKE[kind] = issubclass(kind, _ASSIGNMENT_LIKE_NODES)
    return counts


class Metadata:
    """Scopes, qualified names and positions of one parsed module."""

    __slots__ = ("scopes", "positions", "_module", "_complete", "_names", "_made")

    def __init__(self, module: cst.Module):
        contexts = _Contexts()
        with fast_traversal():
            if not _marks_stores():  # libcst's scope visitor as it is: every context, first
                module.visit(ExpressionContextVisitor(contexts, ExpressionContext.LOAD))
            # as `ScopeProvider.visit_Module(module)`
            scopes = _Scopes(contexts._computed)
            visitor = (_ScopeVisitor if _ASSIGNMENT_LIKE_NODES is not None else ScopeVisitor)(scopes)
            module.visit(visitor)
            visitor.infer_accesses()
        self.scopes: dict[int, object] = scopes._computed
        self._made: list | None = getattr(visitor, "made", None)
        self.positions = positions(module)
        # Alive as long as its scopes and positions, which are keyed by `id(node)`: no id of
        # the tree's is reused while they are asked.
        self._module = module
        self._complete = False
        self._names: dict[cst.CSTNode, frozenset] = {}

    def scope(self, node: cst.CSTNode):
        return self.scopes.get(id(node))

    def release(self) -> None:
        """Break the reference cycles of libcst's scope model (a scope holds its assignments and
        accesses, which point back at it and at each other), once the file's analysis is done:
        reference counting then frees the file's tree at once, and the garbage collector, which
        the workers run after each file, has no cyclic tree of tens of thousands of objects to
        walk (that walk was a tenth of a file's analysis). An assignment and its accesses point
        at each other: emptying the assignments (fewer than the accesses) breaks those cycles."""
        made = self._made if self._made is not None else _distinct_scopes(self.scopes.values())
        for scope in made:
            state = getattr(scope, "__dict__", None)
            if not state:
                continue
            assignments = state.get("_assignments")
            if assignments:
                for items in assignments.values():
                    for item in items:
                        _release_binding(item)
            state.clear()
        self._made = None
        self.scopes = {}
        self._names = {}
        self.positions = {}
        self._module = None

    def position(self, node: cst.CSTNode) -> tuple[int, int, int, int]:
        try:
            return self.positions[id(node)]
        except KeyError:
            if self._complete or self._module is None:
                raise
        # Whitespace, a comment or an operator (`positions` counts them without recording them).
        self.positions = libcst_positions(self._module)
        self._complete = True
        return self.positions[id(node)]

    def qualified_names(self, node: cst.CSTNode) -> frozenset:
        """What `QualifiedNameProvider` reports for the node."""
        # Keyed by the node itself, not its id: rules also ask about nodes they build, and an id
        # is reused once such a node is freed.
        names = self._names.get(node)
        if names is None:
            scope: Optional[object] = self.scopes.get(id(node))
            names = self._names[node] = frozenset(scope.get_qualified_names_for(node)) if scope else frozenset()
        return names


def _distinct_scopes(scopes) -> list:
    """The scopes of libcst's scope model that `scopes` holds, and their parents."""
    seen: dict[int, object] = {}
    queue = list(scopes)
    while queue:
        scope = queue.pop()
        if scope is None or id(scope) in seen:
            continue
        seen[id(scope)] = scope
        state = getattr(scope, "__dict__", {})
        queue.extend(v for v in (state.get("parent"), state.get("globals")) if v is not None)
    return list(seen.values())


def _release_binding(item) -> None:
    """Empty what an assignment or an access of libcst's scope model points at."""
    state = getattr(item, "__dict__", None)
    if state is not None:
        state.clear()
    for name in getattr(type(item), "__slots__", ()):
        try:
            value = getattr(item, name)
        except AttributeError:
            continue
        if isinstance(value, (set, dict, list)):
            value.clear()


def release(ctx) -> None:
    """Drop what one file's analysis built (its metadata, the rules' and the model's state) once
    its facts are taken: see `Metadata.release`."""
    meta = ctx.__dict__.get("_meta")
    if isinstance(meta, Metadata):
        meta.release()
    for rule in ctx.__dict__.get("_rules", ()):  # a rule's state holds nodes, in cycles of its own
        rule.__dict__.clear()
    ctx.__dict__.clear()


class LibcstMetadata:
    """The same questions answered by libcst's own providers through `MetadataWrapper` (slow;
    for tests that check `Metadata` answers them identically)."""

    def __init__(self, module: cst.Module):
        from libcst.metadata import QualifiedNameProvider

        wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
        resolved = wrapper.resolve_many((QualifiedNameProvider, ScopeProvider, PositionProvider))
        self._scopes = resolved[ScopeProvider]
        self._positions = resolved[PositionProvider]
        self._names = resolved[QualifiedNameProvider]

    def scope(self, node: cst.CSTNode):
        return self._scopes.get(node)

    def position(self, node: cst.CSTNode) -> tuple[int, int, int, int]:
        r = self._positions[node]
        return (r.start.line, r.start.column, r.end.line, r.end.column)

    def qualified_names(self, node: cst.CSTNode) -> frozenset:
        from libcst._metadata_dependent import LazyValue

        names = self._names.get(node)
        if isinstance(names, LazyValue):
            names = names()
        return frozenset(names or ())


# The walk ---------------------------------------------------------------------------------------

_FIELDS: dict[type, tuple[str, ...]] = {}


class _FieldOrder(cst.CSTVisitor):
    """Records the fields `_visit_and_replace_children` visits, in order, without descending."""

    def __init__(self):
        super().__init__()
        self.fields: list[str] = []

    def on_visit(self, node) -> bool:
        return False

    def on_leave(self, original_node) -> None:
        pass

    def on_visit_attribute(self, node, attribute: str) -> None:
        if attribute not in self.fields:
            self.fields.append(attribute)

    def on_leave_attribute(self, original_node, attribute: str) -> None:
        pass


def _fields(node: cst.CSTNode) -> tuple[str, ...]:
    kind = type(node)
    fields = _FIELDS.get(kind)
    if fields is None:
        fields = _FIELDS[kind] = _visited_fields(node)
    return fields


def _visited_fields(node: cst.CSTNode) -> tuple[str, ...]:
    """The fields `_visit_and_replace_children` visits, in order: each class visits its fields
    in a fixed order, but one visits a field only when it is set (`FormattedStringExpression`'s
    `format_spec`, `f"{x:{width}}"`); such a field, unset in this node, is learnt from a copy
    where it is set (else a process's first f-string would decide whether its later ones' format
    specs are walked)."""
    recorder = _FieldOrder()
    node._visit_and_replace_children(recorder)
    fields = recorder.fields
    for field in dataclasses.fields(node):
        if field.name in fields or getattr(node, field.name) is not None:
            continue
        try:  # an empty sequence where None is allowed; for fields that are not sequences, an error
            filled = dataclasses.replace(node, **{field.name: ()})
            recorder = _FieldOrder()
            filled._visit_and_replace_children(recorder)
        except Exception:
            continue
        if field.name in recorder.fields and [f for f in recorder.fields if f in fields] == fields:
            fields = recorder.fields
    return tuple(fields)


#: What a field's value is, by its type: 1 a node, 2 a sequence (of nodes, maybe), 0 neither.
#: `isinstance(value, cst.CSTNode)` goes through the ABC machinery, a quarter of a walk's time.
_KINDS: dict[type, int] = {tuple: 2, list: 2, type(None): 0, str: 0}


def _kind(kind: type) -> int:
    got = _KINDS.get(kind)
    if got is None:
        got = _KINDS[kind] = 1 if issubclass(kind, cst.CSTNode) else 2 if issubclass(kind, (tuple, list)) else 0
    return got


def _is_node(value) -> bool:
    got = _KINDS.get(type(value))
    return (got if got is not None else _kind(type(value))) == 1


def _nodes_in(value) -> tuple | list:
    """The nodes a field's value holds: the value itself, those of a sequence, or none."""
    kind = _KINDS.get(type(value))
    if kind is None:
        kind = _kind(type(value))
    if kind == 1:
        return (value,)
    if kind == 2:
        return [child for child in value if _is_node(child)]
    return ()


def walk(node: cst.CSTNode, on_visit, on_leave, skip: frozenset = frozenset()) -> None:
    """`node.visit(visitor)` for a `CSTVisitor` that has no attribute hooks (`visit_Call_func`):
    the same nodes in the same order, `on_visit(node)` (children only if it returns true) and
    `on_leave(node)`, without libcst's rebuilding of every node on the way back up, which a
    visitor throws away (8.5 ms against 1.9 ms for a tf-models file). Nodes of the types in
    `skip`, and what they hold, are passed by (the caller knows nothing there concerns it)."""
    if skip:
        table = _PAST.get(skip)
        if table is None:
            table = _PAST[skip] = {}
        _walk_past(node, on_visit, on_leave, skip, table)
        return
    if on_visit(node):
        for name in _fields(node):
            for child in _nodes_in(getattr(node, name)):
                if type(child) not in skip:
                    walk(child, on_visit, on_leave, skip)
    on_leave(node)


#: skip -> node type -> the fields `walk` reads past those types
_PAST: dict[frozenset, dict[type, tuple[str, ...]]] = {}


def _walk_past(node, on_visit, on_leave, skip: frozenset, table: dict) -> None:
    """`walk` passing by the types in `skip`: it does not read the fields that hold only those
    (a `Call`'s whitespace, an `Attribute`'s dot), and tests the other fields' nodes inline."""
    if on_visit(node):
        kind = type(node)
        names = table.get(kind)
        if names is None:
            names = table[kind] = _fields_past(node, skip)
        for name in names:
            value = getattr(node, name)
            held = type(value)
            got = _KINDS.get(held)
            if got is None:
                got = _kind(held)
            if got == 1:
                if held not in skip:
                    _walk_past(value, on_visit, on_leave, skip, table)
            elif got == 2:
                for child in value:
                    held = type(child)
                    if held not in skip and (_KINDS.get(held) or _kind(held)) == 1:
                        _walk_past(child, on_visit, on_leave, skip, table)
    on_leave(node)


def children_past(node: cst.CSTNode, skip: frozenset) -> list:
    """`node.children` less the nodes of the types in `skip` (with what they hold), read as
    `walk` reads them: for scans of a subtree that look for statements or expressions."""
    table = _PAST.get(skip)
    if table is None:
        table = _PAST[skip] = {}
    kind = type(node)
    names = table.get(kind)
    if names is None:
        names = table[kind] = _fields_past(node, skip)
    out = []
    for name in names:
        for child in _nodes_in(getattr(node, name)):
            if type(child) not in skip:
                out.append(child)
    return out


def _fields_past(node: cst.CSTNode, skip: frozenset) -> tuple[str, ...]:
    """The node's fields, in visiting order, less those whose declared type admits only node
    classes in `skip` (`whitespace_after_func: BaseParenthesizableWhitespace`, `lpar:
    Sequence[LeftParen]`). A field whose type says nothing of nodes is kept."""
    import inspect
    import typing

    try:
        hints = typing.get_type_hints(type(node))
    except Exception:  # pragma: no cover - a libcst whose annotations do not resolve: read them all
        return _fields(node)

    def classes(hint):
        origin = typing.get_origin(hint)
        if origin is not None:
            for arg in typing.get_args(hint):
                yield from classes(arg)
        elif inspect.isclass(hint) and issubclass(hint, cst.CSTNode):
            queue = [hint]
            while queue:
                k = queue.pop()
                if not inspect.isabstract(k):
                    yield k
                queue.extend(k.__subclasses__())

    kept = []
    for name in _fields(node):
        held = set(classes(hints[name])) if name in hints else set()
        if not held or not held <= skip:
            kept.append(name)
    return tuple(kept)


_ORIGINAL_VISIT = cst.CSTNode.visit
_LIBCST_VISITOR_CLASSES = frozenset(cst.CSTVisitor.__mro__)
_patched = 0


class _Reactions:
    """How one visitor class reacts to each node type, looked up once per type: its own
    `visit_X`/`leave_X` (libcst's `on_visit`/`on_leave` find them by formatting a name for every
    node), and its attribute hooks (`visit_ClassDef_bases`: libcst asks about every field of
    every node). libcst's empty defaults count as no reaction. A class that overrides
    `on_visit`/`on_leave` (or the attribute ones) keeps its own."""

    def __init__(self, kind: type):
        self.kind = kind
        self.own_visit = kind.on_visit is not cst.CSTVisitor.on_visit
        self.own_leave = kind.on_leave is not cst.CSTVisitor.on_leave
        self.own_attribute = (kind.on_visit_attribute is not cst.CSTVisitor.on_visit_attribute
                              or kind.on_leave_attribute is not cst.CSTVisitor.on_leave_attribute)
        self._types: dict[type, tuple] = {}
        #: No visit or leave of its own for any token (nor an attribute hook on one)
        self.ignores_tokens = not any(
            re.match(rf"(visit|leave)_({'|'.join(t.__name__ for t in _TOKEN_KINDS)})(_[a-z_]+)?$", name)
            for k in kind.__mro__ if k not in _LIBCST_VISITOR_CLASSES for name in vars(k))
        #: The children a visit can pass over: tokens, if nothing can react to one
        self.inert = _TOKEN_KINDS if self.ignores_tokens and not (
            self.own_visit or self.own_leave or self.own_attribute) else frozenset()

    def _own(self, name: str):
        for k in self.kind.__mro__:
            if k in _LIBCST_VISITOR_CLASSES:
                return None
            if name in vars(k):
                return getattr(self.kind, name)
        return None

    def of(self, node_type: type) -> tuple:
        """(visit, leave, {field: (visit, leave)}) as plain functions, None where there is none."""
        got = self._types.get(node_type)
        if got is None:
            name = node_type.__name__
            hooks = {}
            for field in _FIELDS.get(node_type, ()):
                pair = (self._own(f"visit_{name}_{field}"), self._own(f"leave_{name}_{field}"))
                if pair != (None, None):
                    hooks[field] = pair
            got = self._types[node_type] = (self._own(f"visit_{name}"), self._own(f"leave_{name}"), hooks)
        return got


_REACTIONS: dict[type, _Reactions] = {}


def _visit_without_rebuilding(node, visitor, reactions: _Reactions) -> None:
    kind = type(node)
    if kind not in _FIELDS:
        _fields(node)
    visit, leave, hooks = reactions.of(kind)
    if reactions.own_visit:
        go = visitor.on_visit(node)
    else:
        go = visit is None or visit(visitor, node) is not False
    if go:
        for name in _FIELDS[kind]:
            if reactions.own_attribute:
                visitor.on_visit_attribute(node, name)
            elif hooks and name in hooks and hooks[name][0] is not None:
                hooks[name][0](visitor, node)
            for child in _nodes_in(getattr(node, name)):
                if type(child) not in reactions.inert:  # a token's visit calls nothing
                    _visit_without_rebuilding(child, visitor, reactions)
            if reactions.own_attribute:
                visitor.on_leave_attribute(node, name)
            elif hooks and name in hooks and hooks[name][1] is not None:
                hooks[name][1](visitor, node)
    if reactions.own_leave:
        visitor.on_leave(node)
    elif leave is not None:
        leave(visitor, node)


def _scope_visit(node, visitor, reactions: _Reactions, scopes: dict) -> None:
    """`_visit_without_rebuilding` for `_ScopeVisitor`, its `on_leave` inline. The scope visitor
    does nothing with a token but record the scope it is in: a token's nodes get the current
    scope without the visitor's calls."""
    kind = type(node)
    if kind not in _FIELDS:
        _fields(node)
    visit, leave, hooks = reactions.of(kind)
    mark = _STORE_TARGETS.get(kind)
    if mark is not None:  # before the visitor reaches the names it binds
        mark(node, visitor.provider._contexts)
    if visit is None or visit(visitor, node) is not False:
        for name in _FIELDS[kind]:
            hook = hooks.get(name) if hooks else None
            if hook is not None and hook[0] is not None:
                hook[0](visitor, node)
            for child in _nodes_in(getattr(node, name)):
                if type(child) in _TOKEN_KINDS:
                    _token_scopes(child, visitor.scope, scopes)
                else:
                    _scope_visit(child, visitor, reactions, scopes)
            if hook is not None and hook[1] is not None:
                hook[1](visitor, node)
    scopes[id(node)] = visitor.scope
    if _assignment_like(kind):
        visitor.scope._assignment_count += 1
    if leave is not None:
        leave(visitor, node)


class _ContextSink:
    """What `ExpressionContextVisitor` asks of its provider, into a dict keyed by `id(node)`."""

    __slots__ = ("computed",)

    def __init__(self, computed: dict):
        self.computed = computed

    def set_metadata(self, node, value) -> None:
        self.computed[id(node)] = value


def _store(target, contexts: dict) -> None:
    """The contexts `ExpressionContextVisitor` gives the target of a binding (`ExpressionContext.STORE`
    for the names it binds; `LOAD` for those read in it, `x` of `x.a = 1`)."""
    if type(target) is cst.Name:
        contexts[id(target)] = _STORE
    else:
        target.visit(ExpressionContextVisitor(_ContextSink(contexts), _STORE))


def _store_targets(node, contexts: dict) -> None:
    for target in node.targets:
        _store(target.target, contexts)


def _store_target(node, contexts: dict) -> None:
    _store(node.target, contexts)


def _store_name(node, contexts: dict) -> None:
    _store(node.name, contexts)


def _store_comprehension(node, contexts: dict) -> None:
    _store(node.for_in.target, contexts)  # the scope visitor skips the first `CompFor` node


_STORE = ExpressionContext.STORE
#: The expression contexts the scope visit needs, without a visit of their own. libcst's scope
#: visitor asks only whether a name is `STORE` (a binding) or not (`LOAD`, `DEL` or none: a use),
#: and `ExpressionContextVisitor` makes a name `STORE` only below the target of these nodes (the
#: visitor it starts there; everything else it visits as `LOAD`, or `DEL` under `del`). The scope
#: visit marks a node's targets when it reaches the node, before its names: the same `STORE`
#: names as a whole visit (every name of `bench/.corpus`, tests/test_fastmeta_scopes.py).
_STORE_TARGETS = {
    cst.Assign: _store_targets,
    cst.AnnAssign: _store_target,
    cst.AugAssign: _store_target,
    cst.NamedExpr: _store_target,
    cst.For: _store_target,
    cst.CompFor: _store_target,
    cst.AsName: _store_name,
    cst.ClassDef: _store_name,
    cst.FunctionDef: _store_name,
    cst.Param: _store_name,
    cst.ListComp: _store_comprehension,
    cst.SetComp: _store_comprehension,
    cst.DictComp: _store_comprehension,
    cst.GeneratorExp: _store_comprehension,
}


def _marks_stores() -> bool:
    """The scope visit (`_scope_visit`) will mark the stored names itself: `_visit` takes it for
    `_ScopeVisitor` under `fast_traversal()`."""
    if _ASSIGNMENT_LIKE_NODES is None:
        return False
    reactions = _REACTIONS.get(_ScopeVisitor)
    if reactions is None:
        reactions = _REACTIONS[_ScopeVisitor] = _Reactions(_ScopeVisitor)
    return reactions.ignores_tokens


def _token_scopes(node, scope, scopes: dict) -> None:
    scopes[id(node)] = scope
    kind = type(node)
    if kind is not cst.SimpleWhitespace:  # the others hold whitespace
        if kind not in _FIELDS:
            _fields(node)
        for name in _FIELDS[kind]:
            for child in _nodes_in(getattr(node, name)):
                _token_scopes(child, scope, scopes)


def _visit(self, visitor):
    """`CSTNode.visit` while `fast_traversal()` is on: for a `CSTVisitor` (whose result is the
    node itself), the same calls without rebuilding nodes; transformers as libcst does."""
    # (`type(self) is cst.Module`: an `isinstance` of libcst's node classes runs the ABC machinery)
    if not isinstance(visitor, cst.CSTVisitor) or type(self) is cst.Module:
        return _ORIGINAL_VISIT(self, visitor)
    kind = type(visitor)
    reactions = _REACTIONS.get(kind)
    if reactions is None:
        reactions = _REACTIONS[kind] = _Reactions(kind)
    if kind is _ScopeVisitor and reactions.ignores_tokens and type(visitor.provider) is _Scopes:
        _scope_visit(self, visitor, reactions, visitor.provider._computed)
    else:
        _visit_without_rebuilding(self, visitor, reactions)
    return self


_ORIGINAL_CHILDREN = cst.CSTNode.__dict__["children"]


def _children(self) -> tuple:
    """`CSTNode.children` (the nodes one visit reaches directly, in order) without rebuilding
    the node to find them."""
    out = []
    for name in _fields(self):
        out.extend(_nodes_in(getattr(self, name)))
    return tuple(out)


class _PlainClass(type):
    """The class of libcst's node and scope classes while `fast_traversal()` is on, in place of
    `abc.ABCMeta`: `isinstance(node, cst.Name)` is then the interpreter's own test of the class
    hierarchy, where `ABCMeta.__instancecheck__` is a Python call (with its registry and caches)
    for every test that does not match exactly: some 300,000 on the 27 tf-models files, 4 % of
    the analysis's instructions. The answers are the same: nothing registers a virtual subclass
    of these classes or defines `__subclasshook__` (`_plain_classes` checks)."""


def _abstract_classes() -> list:
    """libcst's node classes and its scope model's (scopes, assignments): those `abc.ABCMeta` makes."""
    from libcst.metadata.scope_provider import BaseAssignment, Scope

    found, todo = {}, [cst.CSTNode, Scope, BaseAssignment]
    while todo:
        kind = todo.pop()
        if kind in found or type(kind) is not abc.ABCMeta:
            continue
        found[kind] = None
        todo.extend(kind.__subclasses__())
    return list(found)


def _plain_classes() -> list:
    """The classes `fast_traversal()` gives `_PlainClass`: those whose `isinstance` and
    `issubclass` answers it keeps (no virtual subclass registered, no `__subclasshook__`); none
    where this Python cannot tell (no `abc._get_dump`) or refuses the change."""
    global _PLAIN
    if _PLAIN is None:
        dump = getattr(abc, "_get_dump", None)
        kinds = [] if dump is None else [
            kind for kind in _abstract_classes()
            if not dump(kind)[0] and "__subclasshook__" not in vars(kind)
            and all(type(base) in (abc.ABCMeta, type) for base in kind.__mro__[1:])]
        try:  # (a trial: put back at once)
            _set_class(kinds, _PlainClass)
            _PLAIN = kinds
        except TypeError:  # pragma: no cover - another Python's rules for a class's class
            _PLAIN = []
        finally:
            _set_class(kinds, abc.ABCMeta)
    return _PLAIN


_PLAIN: list | None = None


def _set_class(kinds, meta) -> None:
    for kind in kinds:
        kind.__class__ = meta


@contextlib.contextmanager
def fast_traversal():
    """For the duration (nestable): visits of read-only visitors, and `node.children`, without
    libcst's rebuilding of nodes; `isinstance` of libcst's classes without `abc.ABCMeta`'s
    Python call (`_PlainClass`)."""
    global _patched
    if _patched == 0:
        cst.CSTNode.visit = _visit
        cst.CSTNode.children = property(_children)
        _set_class(_plain_classes(), _PlainClass)
    _patched += 1
    try:
        yield
    finally:
        _patched -= 1
        if _patched == 0:
            cst.CSTNode.visit = _ORIGINAL_VISIT
            cst.CSTNode.children = _ORIGINAL_CHILDREN
            _set_class(_plain_classes(), abc.ABCMeta)


# The parse --------------------------------------------------------------------------------------

_ORIGINAL_POST_INIT = cst.CSTNode.__dict__["__post_init__"]
#: the thread parsing with `parse_module`, 0 when none (one parse at a time: `_parsing_lock`)
_parsing = 0
_parsing_lock = threading.Lock()


def _post_init(self) -> None:
    """`CSTNode.__post_init__` while `parse_module` runs: the parser's own nodes unchecked, any
    other thread's as libcst checks them."""
    if _parsing != threading.get_ident():
        self._validate()


def parse_module(source: bytes) -> cst.Module:
    """`cst.parse_module` without `_validate` on every node the parser builds (a tenth of the
    parse). libcst checks a node when it is made (`CSTNode.__post_init__`: the spacing around a
    keyword, parentheses that match, ...), for trees built by hand; the parser builds them from
    valid code, and libcst's own comment there says so ("It might make more sense to move
    validation work into the visitor, which would allow us to avoid validating the tree when
    parsing a file")."""
    global _parsing
    with _parsing_lock:
        _parsing = threading.get_ident()
        cst.CSTNode.__post_init__ = _post_init
        try:
            return cst.parse_module(source)
        finally:
            _parsing = 0
            cst.CSTNode.__post_init__ = _ORIGINAL_POST_INIT


def restore_libcst() -> None:
    """libcst's own methods back, whatever the counts of the patching contexts say: after an
    analysis was interrupted by its time budget (`timelimit`), whose exception can land inside
    one of their `finally` blocks and leave libcst patched for the next user of the process
    (a fix's code generation, the server's next edit). Only called when no analysis runs in
    this process (one analysis at a time, in every host)."""
    global _patched, _replaced
    with _replacing:
        _replaced = 0
        _restore_codegen()
    _patched = 0
    cst.CSTNode.visit = _ORIGINAL_VISIT
    cst.CSTNode.children = _ORIGINAL_CHILDREN
    _set_class(_plain_classes(), abc.ABCMeta)
    cst.CSTNode.__post_init__ = _ORIGINAL_POST_INIT
