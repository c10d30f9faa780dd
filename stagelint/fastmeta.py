"""The metadata one traversal needs (scopes, positions), resolved at half libcst's usual cost.

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
* `PositionProvider` regenerates the source and records a `CodeRange` of two frozen dataclass
  positions for every node. `TuplePositionProvider` runs the same code generation with the same
  rules (libcst's own `record_syntactic_position` overrides, newline handling) but records plain
  `(line, column, end_line, end_column)` tuples, and finds newlines without a regular
  expression when a token has none.

The results are the same values libcst computes: the scope of every node, the qualified names
libcst reports, positions identical to `PositionProvider`'s (tests compare them node by node).
"""

from __future__ import annotations

from typing import Optional

import libcst as cst
from libcst.metadata import ExpressionContextProvider, MetadataWrapper, ScopeProvider
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


class Metadata:
    """Scopes, qualified names and positions of one parsed module."""

    __slots__ = ("scopes", "positions", "_names")

    def __init__(self, module: cst.Module):
        wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
        context = ExpressionContextProvider()
        module.visit(ExpressionContextVisitor(context, ExpressionContext.LOAD))
        wrapper._metadata[ExpressionContextProvider] = context._computed
        scopes = ScopeProvider()
        with scopes.resolve(wrapper):  # reads the expression contexts stored above
            scopes.visit_Module(module)
        positions = TuplePositionProvider()
        positions._gen_impl(module)
        self.scopes = scopes._computed
        self.positions = positions._computed
        self._names: dict[cst.CSTNode, frozenset] = {}

    def scope(self, node: cst.CSTNode):
        return self.scopes.get(node)

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


def walk(node: cst.CSTNode, on_visit, on_leave) -> None:
    """`node.visit(visitor)` for a `CSTVisitor` that has no attribute hooks (`visit_Call_func`):
    the same nodes in the same order, `on_visit(node)` (children only if it returns true) and
    `on_leave(node)`, without libcst's rebuilding of every node on the way back up, which a
    visitor throws away (8.5 ms against 1.9 ms for a tf-models file)."""
    if on_visit(node):
        for name in _fields(node):
            value = getattr(node, name)
            if isinstance(value, cst.CSTNode):
                walk(value, on_visit, on_leave)
            elif isinstance(value, (tuple, list)):
                for child in value:
                    if isinstance(child, cst.CSTNode):
                        walk(child, on_visit, on_leave)
    on_leave(node)
