"""Recursion that ends while tracing: a function's call of itself decided by a Python value that
strictly decreases from one call to the next (STG401).

A `tf.function` that calls itself traces the inner call as a trace of its own (another input
signature: a lower rank, another Python number); when the test that decides the recursive call
reads a Python value, tracing runs the recursion as Python runs it, so it ends where eager code
ends: `if len(t.shape) > dim: ... f(t[..., i], dim=dim)` traces once per rank and later calls
reuse every trace; `if n > 0: return x * f(x, n - 1)` with a Python `n` once per value of `n`
(TF 2.21: tests/runtime/test_tf_twelfth_audit_facts.py). The same test on a tensor (`n` a
tensor) or a call that does not lower the value fails with a StagingError.

`decreasing_measure` answers for one condition around one call whether it is that kind of
test: the measure is the static rank of a parameter (`len(t.shape)`, `t.shape.rank`,
`t.shape.ndims`, `t.ndim`, `len(t.get_shape())`) that the call passes indexed with at least one
integer and no new axis, or a parameter with a literal number default that the call passes less
a positive literal; the call runs only while the measure exceeds (`>`, `>=`) a bound that is a
literal or a parameter passed on unchanged; and neither name is bound again before the call.
Whether a parameter may hold a tensor is the project's question (the rule asks
`tensor_params`): a rank is a Python value whatever the tensor.
"""

from __future__ import annotations

import libcst as cst

from stagelint.analysis.literals import keyword_constant

#: `t.shape.rank`, `t.shape.ndims`: the static rank of `t` as a Python number.
_RANK_OF_SHAPE = frozenset({"rank", "ndims"})
#: comparison operators mirrored when the measure is on the right, negated on the `else` side
_MIRROR = {cst.GreaterThan: cst.LessThan, cst.GreaterThanEqual: cst.LessThanEqual,
           cst.LessThan: cst.GreaterThan, cst.LessThanEqual: cst.GreaterThanEqual}
_NEGATE = {cst.GreaterThan: cst.LessThanEqual, cst.GreaterThanEqual: cst.LessThan,
           cst.LessThan: cst.GreaterThanEqual, cst.LessThanEqual: cst.GreaterThan}


def decreasing_measure(ctx, func, test: cst.BaseExpression, holds: bool, call: cst.Call) -> str | None:
    """"rank" or "number", the kind of Python measure that decides `call` (a call of `func` by
    its own name made where `test` is `holds`) when the call lowers that measure and runs only
    while it exceeds a fixed bound; else None. See the module docstring for what is known.
    TensorFlow's fact: under `jax.jit` the call of itself passes tracers (the number, the
    forwarded bound), so the rule does not ask there."""
    node = func.node
    if not isinstance(node, cst.FunctionDef) or not isinstance(call.func, cst.Name) \
            or call.func.value != node.name.value or ctx.binding_kind(call.func, func) != "global":
        return None
    if not isinstance(test, cst.Comparison) or len(test.comparisons) != 1:
        return None
    left, op, right = test.left, type(test.comparisons[0].operator), test.comparisons[0].comparator
    if op not in _MIRROR:
        return None
    if not holds:
        op = _NEGATE[op]
    measured = _measure(ctx, func, left)
    bound = right
    if measured is None:
        measured, bound, op = _measure(ctx, func, right), left, _MIRROR[op]
    if measured is None or op not in (cst.GreaterThan, cst.GreaterThanEqual):
        return None
    kind, param = measured
    passed = _passed(func, call, param)
    if passed is None or not (_lowers_rank(ctx, passed, param) if kind == "rank" else _lowers_number(passed, param)):
        return None
    if not _fixed_bound(func, call, bound):
        return None
    names = {param} | ({bound.value} if isinstance(bound, cst.Name) else set())
    if not _unbound_before(ctx, func, call, names):
        return None
    return kind


def _measure(ctx, func, expr) -> tuple[str, str] | None:
    """("rank", p) for the static rank of parameter `p`, ("number", p) for a parameter with a
    literal number default, or None."""
    if isinstance(expr, cst.Name):
        default = func.defaults.get(expr.value)
        if ctx.binding_kind(expr, func) == "param" and _number(default):
            return "number", expr.value
        return None
    target = None
    if isinstance(expr, cst.Call) and isinstance(expr.func, cst.Name) and expr.func.value == "len" \
            and len(expr.args) == 1 and ctx.binding_kind(expr.func, func) == "builtin":
        arg = expr.args[0].value
        if isinstance(arg, cst.Attribute) and arg.attr.value == "shape":
            target = arg.value  # len(t.shape)
        elif isinstance(arg, cst.Call) and not arg.args and isinstance(arg.func, cst.Attribute) \
                and arg.func.attr.value == "get_shape":
            target = arg.func.value  # len(t.get_shape())
    elif isinstance(expr, cst.Attribute):
        if expr.attr.value in _RANK_OF_SHAPE and isinstance(expr.value, cst.Attribute) \
                and expr.value.attr.value == "shape":
            target = expr.value.value  # t.shape.rank
        elif expr.attr.value == "ndim":
            target = expr.value  # t.ndim
    if isinstance(target, cst.Name) and ctx.binding_kind(target, func) == "param":
        return "rank", target.value
    return None


def _number(node) -> bool:
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
        node = node.expression
    return isinstance(node, (cst.Integer, cst.Float))


def _passed(func, call: cst.Call, param: str) -> cst.BaseExpression | None:
    """The argument `call` passes for `param` of `func`, or None (left out, or passed through
    `*args` / `**kwargs`)."""
    params = func.facts.params
    for i, arg in enumerate(call.args):
        if arg.star:
            return None
        if arg.keyword is not None:
            if arg.keyword.value == param:
                return arg.value
        elif i < len(params) and params[i] == param:
            return arg.value
    return None


def _lowers_rank(ctx, expr, param: str) -> bool:
    """`param[..., i]`, `param[0]`: more integer indices than new axes, no index of unknown
    kind (an integer literal, a name a `for` over `range(...)` binds, a slice, `...`)."""
    if not isinstance(expr, cst.Subscript) or not isinstance(expr.value, cst.Name) or expr.value.value != param:
        return False
    dropped = 0
    for element in expr.slice:
        part = element.slice
        if isinstance(part, cst.Slice):
            continue
        value = part.value
        if isinstance(value, cst.Ellipsis):
            continue
        if keyword_constant(value, "None") or (isinstance(value, cst.Attribute) and value.attr.value == "newaxis"):
            dropped -= 1
        elif _number(value) and not isinstance(value, cst.Float) or (isinstance(value, cst.Name) and _range_bound(ctx, value)):
            dropped += 1
        else:
            return False
    return dropped > 0


def _range_bound(ctx, name: cst.Name) -> bool:
    """Every binding of `name` is the target of a `for` over `range(...)`: a Python int."""
    bindings = ctx.bindings_of(name)
    if not bindings:
        return False
    for b in bindings:
        target = getattr(b, "node", None)
        loop = ctx.comprehension_targets.get(id(target)) or ctx.bound_values.get(id(target))
        if not isinstance(loop, (cst.CompFor, cst.For)) or loop.target is not target:
            return False
        if not (isinstance(loop.iter, cst.Call) and isinstance(loop.iter.func, cst.Name) and loop.iter.func.value == "range"):
            return False
    return True


def _lowers_number(expr, param: str) -> bool:
    """`param - 1`: the parameter less a positive literal."""
    return isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, cst.Subtract) \
        and isinstance(expr.left, cst.Name) and expr.left.value == param \
        and isinstance(expr.right, (cst.Integer, cst.Float)) and float(expr.right.value.replace("_", "")) > 0


def _fixed_bound(func, call: cst.Call, bound) -> bool:
    """A number literal, or a parameter the call passes on unchanged (`dim=dim`)."""
    if _number(bound):
        return True
    if not isinstance(bound, cst.Name) or bound.value not in func.facts.params:
        return False
    passed = _passed(func, call, bound.value)
    if passed is None:
        # left out: the default, which must then be what this call received
        return False
    return isinstance(passed, cst.Name) and passed.value == bound.value


def _unbound_before(ctx, func, call: cst.Call, names: set[str]) -> bool:
    """No name of `names` is bound in `func` (other than as its parameter) before `call` ends,
    and `call` is in no `for`/`while` of `func` (whose next pass would follow a later binding)."""
    end = ctx.position(call)
    stack = [func.node.body]
    while stack:
        n = stack.pop()
        if isinstance(n, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
            continue
        if isinstance(n, (cst.For, cst.While)):
            at = ctx.position(n)
            if (at.line, at.column) <= (end.line, end.column) and (end.end_line, end.end_column) <= (at.end_line, at.end_column):
                return False
        if isinstance(n, cst.Name) and n.value in names:
            for b in ctx.bindings_of(n):
                target = getattr(b, "node", None)
                if type(target) is cst.Param:
                    continue
                if target is None:
                    return False
                at = ctx.position(target)
                if (at.line, at.column) < (end.end_line, end.end_column):
                    return False
        stack.extend(n.children)
    return True
