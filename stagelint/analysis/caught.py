"""The exceptions the `try` statements around a node catch, for rules whose finding is an error
raised while tracing: code that catches that error handles the traced case itself; and what the
body of a `try` can raise while JAX traces it, for rules that ask whether its `except` handlers
run there (`try_body_raises`: STG401's recursion continued only from a handler)."""

from __future__ import annotations

import libcst as cst

from stagelint.analysis.literals import is_literal
from stagelint.frameworks import JAX_RAISE_ON_NO_VALUE, JAX_SEQUENCE_INDEX


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


# What the body of a `try` can raise while JAX traces it (STG401's handler step) -----------------

#: `try_body_raises`'s answers: only what is static in a trace decides whether the body raises
#: (its calls are numerics that raise on no value); a statement that runs whenever the body does
#: converts a value (`int(x)`), which on a tracer raises on every trace.
STATIC, CONVERTS = "static", "converts"


def try_body_raises(ctx, node: cst.Try | cst.TryStar) -> tuple[str, cst.CSTNode | None, cst.CSTNode | None]:
    """How the body of the `try` `node` can come to raise while JAX traces it, so whether its
    `except` handlers run there because of the traced values:

    (STATIC, None, None): every call in the body is a JAX numeric that raises on no value
    (`frameworks.JAX_RAISE_ON_NO_VALUE`: `cholesky` of a non-positive-definite matrix gives NaNs,
    eagerly and under jit), given its arrays in its array places and literals elsewhere, or a call
    of a plain def of the file whose body is such (`def _chol(a): return cholesky(a, lower=True)`),
    and the rest is names, attributes, literals, arithmetic, displays and literal indices. Then the
    body raises only on what every trace with the same shapes and Python values decides alike (a
    shape, a dtype), as Python would eagerly: never because of a traced value.
    (CONVERTS, call, value): a simple statement of the body, run whenever the body runs until it
    raises, converts `value` (`int(x)`, `float(x)`, `x.item()`: `context.concretizing_call`): on a
    tracer it raises on every trace (ConcretizationTypeError), so the handlers run on every trace.
    Whether `value` is a tracer is the caller's question.
    ("", part, None) otherwise: `part` is the first thing that may raise otherwise (a call of
    something else, an `if` on a value), not known either way.
    Observed with jax 0.10.2: tests/runtime/test_jax_value_errors_facts.py."""
    from stagelint.analysis.context import block_statements, concretizing_call

    for statement in block_statements(node.body):
        if isinstance(statement, cst.SimpleStatementLine):
            found = concretizing_call(ctx, statement)
            if found is not None and found[1] is not None and found[2] and found[2] != JAX_SEQUENCE_INDEX:
                return CONVERTS, found[0], found[1]
    part = _first_unknown_statement(ctx, node.body, set())
    return ("", part, None) if part is not None else (STATIC, None, None)


def _first_unknown_statement(ctx, suite, seen: set) -> cst.CSTNode | None:
    """The first part of a block (an indented block or a one-line suite) that may raise on a
    value (`try_body_raises`), or None."""
    if isinstance(suite, cst.SimpleStatementSuite):
        lines = [suite]
    elif isinstance(suite, cst.IndentedBlock):
        lines = list(suite.body)
    else:
        return suite
    for line in lines:
        if isinstance(line, cst.FunctionDef) and not line.decorators:
            continue  # a def binds a name and runs nothing
        if not isinstance(line, (cst.SimpleStatementLine, cst.SimpleStatementSuite)):
            return line  # (an `if` or `while` converts its test; a loop may index, unpack, convert)
        for small in line.body:
            if isinstance(small, cst.Pass):
                continue
            if isinstance(small, (cst.Return, cst.Expr)):
                value = small.value
            elif isinstance(small, (cst.Assign, cst.AnnAssign, cst.AugAssign)):
                targets = [t.target for t in small.targets] if isinstance(small, cst.Assign) else [small.target]
                if not all(_plain_target(t) for t in targets):
                    return small
                value = small.value
            else:
                return small  # (`raise`, `assert`, `del`, ...)
            found = _first_unknown(ctx, value, seen) if value is not None else None
            if found is not None:
                return found
    return None


def _plain_target(target) -> bool:
    """A name, or a tuple or list of names: binding it runs nothing (unpacking a tuple of a
    wrong length is a matter of structure, static in a trace)."""
    if isinstance(target, cst.Name):
        return True
    return isinstance(target, (cst.Tuple, cst.List)) and all(
        isinstance(e, cst.Element) and _plain_target(e.value) for e in target.elements)


_PLAIN = (cst.Name, cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString, cst.ConcatenatedString, cst.Ellipsis)


def _first_unknown(ctx, expr, seen: set) -> cst.CSTNode | None:
    """The first part of an expression that may raise on a value (`try_body_raises`), or None."""
    if isinstance(expr, _PLAIN):
        return None
    if isinstance(expr, cst.Attribute):
        return _first_unknown(ctx, expr.value, seen)
    if isinstance(expr, (cst.Tuple, cst.List)):
        for element in expr.elements:
            found = element if not isinstance(element, cst.Element) else _first_unknown(ctx, element.value, seen)
            if found is not None:
                return found
        return None
    if isinstance(expr, cst.BinaryOperation):
        # arithmetic on arrays gives NaN / inf; on Python numbers Python decides, as eagerly
        return _first_unknown(ctx, expr.left, seen) or _first_unknown(ctx, expr.right, seen)
    if isinstance(expr, cst.UnaryOperation):
        # (`not x` is a truth test: a conversion)
        return expr if isinstance(expr.operator, cst.Not) else _first_unknown(ctx, expr.expression, seen)
    if isinstance(expr, cst.Subscript):
        for element in expr.slice:
            part = element.slice
            pieces = (part.lower, part.upper, part.step) if isinstance(part, cst.Slice) else (part.value,)
            if not all(p is None or is_literal(p) or isinstance(p, cst.Ellipsis) for p in pieces):
                return expr  # (a traced index into a Python list raises)
        return _first_unknown(ctx, expr.value, seen)
    if isinstance(expr, cst.Call):
        return _first_unknown_call(ctx, expr, seen)
    return expr


def _first_unknown_call(ctx, call: cst.Call, seen: set) -> cst.CSTNode | None:
    if any(a.star for a in call.args):
        return call
    arrays = next((JAX_RAISE_ON_NO_VALUE[q] for q in ctx.qualified_names(call.func) if q in JAX_RAISE_ON_NO_VALUE),
                  None)
    if arrays is not None:
        for i, arg in enumerate(call.args):
            if arg.keyword is None and i < arrays:
                found = _first_unknown(ctx, arg.value, seen)
                if found is not None:
                    return found
            elif not is_literal(arg.value):
                return arg.value  # (an option given a tracer raises on every trace)
        return None
    target = _plain_def(ctx, call.func)
    if target is None:
        return call
    for arg in call.args:
        found = _first_unknown(ctx, arg.value, seen)
        if found is not None:
            return found
    if id(target) in seen:
        return None  # (its body is being read already)
    seen.add(id(target))
    return call if _first_unknown_statement(ctx, target.body, seen) is not None else None


def _plain_def(ctx, func) -> cst.FunctionDef | None:
    """The def a called name is bound to by its only binding, undecorated and not async, in
    this file; else None."""
    if not isinstance(func, cst.Name):
        return None
    refs = ctx.referents(func)
    if not refs or len(refs) != 1:
        return None
    node = getattr(refs[0], "node", None)
    if isinstance(node, cst.FunctionDef) and not node.decorators and node.asynchronous is None:
        return node
    return None
