"""One small, shared inference of tensor-ness.

A value is a tensor when it is the result of a framework op (`tf.constant`, `tf.matmul`, but
not classes such as `tf.TensorSpec`, nor `tf.data`/`tf.keras` objects), arithmetic or
indexing on a tensor, a local name bound to a tensor, or an element of a loop over a tensor.
A parameter is a tensor when the project phase decides so (used as an operand of a framework
op, a Keras `call` input, or passed a tensor at a call site), so the answer for an expression
is "definitely" plus the set of parameters it depends on.

Answers are asked for at the end of the file (rules' `finish`), when every binding is known.
"""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst
from libcst.metadata import BuiltinAssignment, ImportAssignment

from stagelint import facts as F
from stagelint.context import FileContext, FunctionInfo, is_literal


@dataclass(frozen=True)
class Tensorness:
    definite: bool = False
    params: frozenset[str] = frozenset()

    def __or__(self, other: Tensorness) -> Tensorness:
        return Tensorness(self.definite or other.definite, self.params | other.params)

    @property
    def possible(self) -> bool:
        return self.definite or bool(self.params)


NOT = Tensorness()
TENSOR = Tensorness(True)


def tensorness(ctx: FileContext, expr: cst.BaseExpression, func: FunctionInfo | None = None) -> Tensorness:
    return _Inference(ctx, func).of(expr)


class _Inference:
    def __init__(self, ctx: FileContext, func: FunctionInfo | None):
        self.ctx = ctx
        self.func = func
        self.active: set[int] = set()

    def of(self, expr) -> Tensorness:
        key = id(expr)
        if key in self.active:
            return NOT  # a name bound from itself (`x = x + 1`): its other bindings decide
        self.active.add(key)
        try:
            return self._of(expr)
        finally:
            self.active.discard(key)

    def _union(self, exprs) -> Tensorness:
        out = NOT
        for e in exprs:
            out = out | self.of(e)
        return out

    def _of(self, expr) -> Tensorness:
        ctx = self.ctx
        fw = ctx.framework
        if isinstance(expr, cst.Name):
            return self._name(expr)
        if isinstance(expr, cst.Call):
            names = ctx.qualified_names(expr.func)
            if any(fw.returns_tensor(q) for q in names):
                return TENSOR
            if names and any(fw.owns(q) for q in names):
                return NOT
            if isinstance(expr.func, cst.Attribute):
                if expr.func.attr.value in fw.non_tensor_attributes:
                    return NOT
                receiver = self.of(expr.func.value)
                return receiver
            return NOT
        if isinstance(expr, cst.Attribute):
            if expr.attr.value in fw.non_tensor_attributes:
                return NOT
            if isinstance(expr.value, cst.Name) and self.func is not None and expr.value.value == self.func.self_name:
                return NOT
            return self.of(expr.value)
        if isinstance(expr, cst.BinaryOperation):
            return self._union((expr.left, expr.right))
        if isinstance(expr, cst.UnaryOperation):
            return NOT if isinstance(expr.operator, cst.Not) else self.of(expr.expression)
        if isinstance(expr, cst.Comparison):
            return self._union([expr.left, *(c.comparator for c in expr.comparisons)])
        if isinstance(expr, cst.Subscript):
            return self.of(expr.value)
        if isinstance(expr, cst.IfExp):
            return self._union((expr.body, expr.orelse))
        if isinstance(expr, (cst.Tuple, cst.List, cst.Set)):
            return self._union(el.value for el in expr.elements)
        if isinstance(expr, cst.Dict):
            return self._union(el.value for el in expr.elements if isinstance(el, cst.DictElement))
        if isinstance(expr, cst.StarredElement):
            return self.of(expr.value)
        if isinstance(expr, cst.AugAssign):
            return self.of(expr.value)
        if isinstance(expr, cst.For):
            return self._iterated(expr.iter)
        return NOT

    def _iterated(self, iterable) -> Tensorness:
        """Elements of a loop's iterable: tensors for `tf.range`, a tensor or a dataset."""
        ctx = self.ctx
        if isinstance(iterable, cst.Call):
            names = ctx.qualified_names(iterable.func)
            if "builtins.range" in names or "builtins.enumerate" in names or "builtins.zip" in names:
                if "builtins.range" in names:
                    return NOT
                return self._union(a.value for a in iterable.args)
        return self.of(iterable)

    def _name(self, name: cst.Name) -> Tensorness:
        ctx = self.ctx
        refs = ctx.referents(name)
        if not refs:
            return NOT
        out = NOT
        for r in refs:
            if isinstance(r, (BuiltinAssignment, ImportAssignment)):
                continue
            node = getattr(r, "node", None)
            if isinstance(node, cst.Param):
                if self.func is not None and name.value != self.func.self_name and name.value in self.func.facts.params:
                    out = out | Tensorness(False, frozenset({name.value}))
                continue
            value = ctx.bound_values.get(id(node))
            if value is not None:
                out = out | self.of(value)
        return out


def arg_facts(ctx: FileContext, expr: cst.BaseExpression) -> F.ArgFacts:
    """How an argument looks at a call site: a tensor, a Python value, or unknown."""
    from stagelint.context import short_code

    if is_literal(expr):
        return F.ArgFacts("python", short_code(expr))
    t = tensorness(ctx, expr, ctx.function)
    if t.definite:
        return F.ArgFacts("tensor", short_code(expr))
    if isinstance(expr, cst.Name) and _is_python_number_name(ctx, expr):
        return F.ArgFacts("python", short_code(expr))
    return F.ArgFacts("unknown", short_code(expr))


def _is_python_number_name(ctx: FileContext, name: cst.Name) -> bool:
    """A name bound only to literals or to the target of `for ... in range(...)`."""
    refs = ctx.referents(name)
    if not refs:
        return False
    for r in refs:
        node = getattr(r, "node", None)
        value = ctx.bound_values.get(id(node)) if node is not None else None
        if value is None:
            return False
        if isinstance(value, cst.For):
            it = value.iter
            if not (isinstance(it, cst.Call) and "builtins.range" in ctx.qualified_names(it.func)):
                return False
        elif isinstance(value, cst.AugAssign):
            if not is_literal(value.value):
                return False
        elif not is_literal(value):
            return False
    return True
