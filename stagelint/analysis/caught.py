"""The exceptions the `try` statements around a node catch, for rules whose finding is an error
raised while tracing: code that catches that error handles the traced case itself."""

from __future__ import annotations

import libcst as cst


class CaughtErrors:
    """Kept by a rule through its `visit_Try`/`leave_Try` (and `TryStar`): which exceptions the
    `try` bodies around a node of the function being walked catch, by qualified name ("*" for a
    bare `except:`). Only the body is covered, not the handlers, `else` or `finally`. Which
    names count is the rule's question (`frameworks.JAX_TRACER_ERROR_CATCHERS`)."""

    def __init__(self, ctx):
        self.ctx = ctx
        #: (function, body span, names caught) of each enclosing `try`, innermost last
        self.stack: list[tuple] = []

    def enter(self, node: cst.Try | cst.TryStar) -> None:
        ctx = self.ctx
        caught: set[str] = set()
        if ctx.function is not None:
            for handler in node.handlers:
                if handler.type is None:
                    caught.add("*")
                    continue
                types = handler.type.elements if isinstance(handler.type, cst.Tuple) else (handler.type,)
                for t in types:
                    caught |= ctx.qualified_names(t.value if isinstance(t, cst.Element) else t)
        span = ctx.position(node.body) if caught else None
        self.stack.append((ctx.function, span, frozenset(caught)))

    def leave(self) -> None:
        self.stack.pop()

    def around(self, node: cst.CSTNode) -> list[str]:
        """The exceptions caught around `node` in the current function, sorted."""
        if not any(caught for _, _, caught in self.stack):
            return []
        ctx = self.ctx
        at = ctx.position(node)
        out: set[str] = set()
        for function, span, caught in self.stack:
            if caught and function is ctx.function and (span.line, span.column) <= (at.line, at.column) \
                    and (at.end_line, at.end_column) <= (span.end_line, span.end_column):
                out |= caught
        return sorted(out)


class WatchesTry:
    """For a rule: `self.caught`, kept through the walk's `try` statements (mix in before `Rule`)."""

    def __init__(self, ctx):
        super().__init__(ctx)
        self.caught = CaughtErrors(ctx)

    def caught_fields(self, node: cst.CSTNode) -> dict:
        """The candidate field `catches` reads: the exceptions caught around `node`, if any."""
        caught = self.caught.around(node)
        return {"_caught": caught} if caught else {}

    def visit_Try(self, node: cst.Try) -> None:
        self.caught.enter(node)

    def leave_Try(self, node: cst.Try) -> None:
        self.caught.leave()

    visit_TryStar, leave_TryStar = visit_Try, leave_Try


def catches(fields: dict, catchers) -> bool:
    """Whether a candidate's `_caught` exceptions (`CaughtErrors.around`) include one of `catchers`."""
    return not catchers.isdisjoint(fields.get("_caught", ()))
