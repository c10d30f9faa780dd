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
* `PositionProvider` regenerates the source and records a `CodeRange` of two frozen dataclass
  positions for every node. `TuplePositionProvider` runs the same code generation with the same
  rules (libcst's own `record_syntactic_position` overrides, newline handling) but records plain
  `(line, column, end_line, end_column)` tuples, and finds newlines without a regular
  expression when a token has none.

The results are the same values libcst computes: the scope of every node, the qualified names
libcst reports, positions identical to `PositionProvider`'s (tests compare them node by node).
"""

from __future__ import annotations

import contextlib
from typing import Optional

import libcst as cst
from libcst.metadata import ExpressionContextProvider, MetadataWrapper, ScopeProvider
from libcst.metadata.scope_provider import ScopeVisitor

try:  # private: the node classes libcst's scope visitor counts as assignments
    from libcst.metadata.scope_provider import _ASSIGNMENT_LIKE_NODES
except ImportError:  # pragma: no cover - another libcst: its own visitor, as it is
    _ASSIGNMENT_LIKE_NODES = None
from libcst.metadata.expression_context_provider import ExpressionContext, ExpressionContextVisitor
from libcst.metadata.position_provider import NEWLINE_RE, PositionProvider, PositionProvidingCodegenState


class _Record:
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
        computed = state.provider._computed
        if self.start_node is not None:
            start = computed[self.start_node]
            line, column = start[0], start[1]
        else:
            line, column = self.line, self.column
        if self.end_node is not None:
            end = computed[self.end_node]
            end_line, end_column = end[2], end[3]
        else:
            end_line, end_column = state.line, state.column
        computed[self.node] = (line, column, end_line, end_column)
        return False


class _TupleState(PositionProvidingCodegenState):
    def _update_position(self, value: str) -> None:
        if "\n" not in value and "\r" not in value:
            self.column += len(value)
        else:
            segments = NEWLINE_RE.split(value)
            self.line += len(segments) - 1
            self.column = len(segments[-1])

    def record_syntactic_position(self, node, *, start_node=None, end_node=None):
        return _Record(self, node, start_node, end_node)

    def before_codegen(self, node) -> None:
        self._stack.append((self.line, self.column))

    def after_codegen(self, node) -> None:
        line, column = self._stack.pop()
        computed = self.provider._computed
        if node not in computed:  # a syntactic position recorded inside wins, as in libcst
            computed[node] = (line, column, self.line, self.column)


class TuplePositionProvider(PositionProvider):
    """`PositionProvider`'s positions as `(line, column, end_line, end_column)`: lines 1-based,
    columns 0-based, as libcst counts them."""

    def _gen_impl(self, module: cst.Module) -> None:
        state = _TupleState(default_indent=module.default_indent, default_newline=module.default_newline, provider=self)
        module._codegen(state)


class _ScopeVisitor(ScopeVisitor):
    """libcst's scope visitor, whose `on_leave` (run for every node) tests the node's type
    against a tuple of node classes with `isinstance`, through the ABC machinery: the same test
    by a set of exact types, a tenth of the whole scope analysis."""

    def on_leave(self, original_node: cst.CSTNode) -> None:
        self.provider.set_metadata(original_node, self.scope)
        kind = type(original_node)
        counts = _ASSIGNMENT_LIKE.get(kind)
        if counts is None:
            counts = _ASSIGNMENT_LIKE[kind] = issubclass(kind, _ASSIGNMENT_LIKE_NODES)
        if counts:
            self.scope._assignment_count += 1
        cst.CSTVisitor.on_leave(self, original_node)


_ASSIGNMENT_LIKE: dict[type, bool] = {}


class Metadata:
    """Scopes, qualified names and positions of one parsed module."""

    __slots__ = ("scopes", "positions", "_names")

    def __init__(self, module: cst.Module):
        wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
        context = ExpressionContextProvider()
        scopes = ScopeProvider()
        with fast_traversal():
            module.visit(ExpressionContextVisitor(context, ExpressionContext.LOAD))
            wrapper._metadata[ExpressionContextProvider] = context._computed
            with scopes.resolve(wrapper):  # reads the expression contexts stored above
                # as `scopes.visit_Module(module)`
                visitor = (_ScopeVisitor if _ASSIGNMENT_LIKE_NODES is not None else ScopeVisitor)(scopes)
                module.visit(visitor)
                visitor.infer_accesses()
        positions = TuplePositionProvider()
        positions._gen_impl(module)
        self.scopes = scopes._computed
        self.positions = positions._computed
        self._names: dict[cst.CSTNode, frozenset] = {}

    def scope(self, node: cst.CSTNode):
        return self.scopes.get(node)

    def release(self) -> None:
        """Break the reference cycles of libcst's scope model (a scope holds its assignments and
        accesses, which point back at it and at each other), once the file's analysis is done:
        reference counting then frees the file's tree at once, and the garbage collector, which
        the workers run after each file, has no cyclic tree of tens of thousands of objects to
        walk (that walk was a tenth of a file's analysis)."""
        seen: set[int] = set()
        queue = list(self.scopes.values())
        while queue:
            scope = queue.pop()
            if scope is None or id(scope) in seen:
                continue
            seen.add(id(scope))
            state = getattr(scope, "__dict__", {})
            queue.extend(v for v in (state.get("parent"), state.get("globals")) if v is not None)
            for bucket in state.values():
                if isinstance(bucket, dict):
                    for items in bucket.values():
                        for item in items if isinstance(items, set) else ():
                            _release_binding(item)
            state.clear()
        self.scopes = {}
        self._names = {}

    def position(self, node: cst.CSTNode) -> tuple[int, int, int, int]:
        return self.positions[node]

    def qualified_names(self, node: cst.CSTNode) -> frozenset:
        """What `QualifiedNameProvider` reports for the node."""
        # Keyed by the node itself, not its id: rules also ask about nodes they build, and an id
        # is reused once such a node is freed.
        names = self._names.get(node)
        if names is None:
            scope: Optional[object] = self.scopes.get(node)
            names = self._names[node] = frozenset(scope.get_qualified_names_for(node)) if scope else frozenset()
        return names


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
        recorder = _FieldOrder()
        node._visit_and_replace_children(recorder)  # each class visits its fields in a fixed order
        fields = _FIELDS[kind] = tuple(recorder.fields)
    return fields


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
                walk(child, on_visit, on_leave)
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
                _visit_without_rebuilding(child, visitor, reactions)
            if reactions.own_attribute:
                visitor.on_leave_attribute(node, name)
            elif hooks and name in hooks and hooks[name][1] is not None:
                hooks[name][1](visitor, node)
    if reactions.own_leave:
        visitor.on_leave(node)
    elif leave is not None:
        leave(visitor, node)


def _visit(self, visitor):
    """`CSTNode.visit` while `fast_traversal()` is on: for a `CSTVisitor` (whose result is the
    node itself), the same calls without rebuilding nodes; transformers as libcst does."""
    if not isinstance(visitor, cst.CSTVisitor) or isinstance(self, cst.Module):
        return _ORIGINAL_VISIT(self, visitor)
    kind = type(visitor)
    reactions = _REACTIONS.get(kind)
    if reactions is None:
        reactions = _REACTIONS[kind] = _Reactions(kind)
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


@contextlib.contextmanager
def fast_traversal():
    """For the duration (nestable): visits of read-only visitors, and `node.children`, without
    libcst's rebuilding of nodes."""
    global _patched
    if _patched == 0:
        cst.CSTNode.visit = _visit
        cst.CSTNode.children = property(_children)
    _patched += 1
    try:
        yield
    finally:
        _patched -= 1
        if _patched == 0:
            cst.CSTNode.visit = _ORIGINAL_VISIT
            cst.CSTNode.children = _ORIGINAL_CHILDREN
