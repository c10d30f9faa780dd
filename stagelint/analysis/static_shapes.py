"""Static shapes the code spells out, for ops whose shape function decides at trace (STG603).

An op's shape function runs while the op is built: in a trace, whether or not its result is used.
A Function traces with the concrete shapes of the call's tensors (no `input_signature`, no
relaxed shapes), so static shapes that do not fit raise ValueError at trace and are not pruned
with an unused op; only errors of run-time values are (`frameworks.INDEXED_UPDATE_OPS`). The
shapes known here: a Python display of numbers (`[0, 1]` has shape (2,)), and a constructor given
one (`tf.Variable([1, 2])`, `frameworks.DISPLAY_SHAPED_CONSTRUCTORS`, no `shape=`). Unknown is
None: nothing is decided from it.
"""

from __future__ import annotations

import libcst as cst

from stagelint.frameworks import DISPLAY_SHAPED_CONSTRUCTORS

_NUMBERS = (cst.Integer, cst.Float)


def display_shape(expr: cst.BaseExpression) -> tuple | None:
    """The shape of a (nested, rectangular) display of literal numbers: () for `3`, (2,) for
    `[0, 1]`, (2, 1) for `[[0], [1]]`; None for anything else, or a ragged display."""
    if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Minus):
        expr = expr.expression
    if isinstance(expr, _NUMBERS):
        return ()
    if not isinstance(expr, (cst.List, cst.Tuple)) or not expr.elements:
        return None
    inner = []
    for el in expr.elements:
        if not isinstance(el, cst.Element):
            return None
        shape = display_shape(el.value)
        if shape is None:
            return None
        inner.append(shape)
    if any(s != inner[0] for s in inner):
        return None
    return (len(inner), *inner[0])


def spelled_shape(ctx, expr: cst.BaseExpression) -> tuple | None:
    """`display_shape`, or the shape of a tensor constructed from a display with no `shape=`
    (`tf.Variable([1, 2])`: (2,))."""
    shape = display_shape(expr)
    if shape is not None or not isinstance(expr, cst.Call):
        return shape
    if not ctx.qualified_names(expr.func) & DISPLAY_SHAPED_CONSTRUCTORS or not expr.args:
        return None
    if expr.args[0].keyword is not None or expr.args[0].star or any(
            a.keyword is not None and a.keyword.value == "shape" for a in expr.args):
        return None
    return display_shape(expr.args[0].value)


def indexed_update_shapes(ctx, call: cst.Call, func) -> list | None:
    """The static shapes of an indexed update's (tensor, indices, updates), each a shape
    (`spelled_shape`) or, for a parameter of `func` the argument names and nothing else binds,
    that parameter's position; None when one is neither, or the call is not spelled positionally."""
    if len(call.args) != 3 or any(a.keyword is not None or a.star for a in call.args):
        return None
    out: list = []
    for arg in call.args:
        shape = spelled_shape(ctx, arg.value)
        if shape is None:
            shape = _param_position(ctx, arg.value, func)
        if shape is None:
            return None
        out.append(shape)
    return out


def _param_position(ctx, expr, func) -> int | None:
    """The position of `func`'s positional parameter `expr` names, when that is its one binding."""
    if not isinstance(expr, cst.Name) or func is None or not isinstance(func.node, cst.FunctionDef):
        return None
    refs = ctx.bindings_of(expr)
    if not refs or len(refs) != 1 or not isinstance(getattr(refs[0], "node", None), cst.Param):
        return None
    params = list(func.node.params.posonly_params) + list(func.node.params.params)
    for i, p in enumerate(params):
        if p is refs[0].node:
            return i
    return None


def shapes_per_call(ctx, func, shapes: list, named_calls: dict, python_reads: set) -> list | None:
    """For each call of `func`'s name in the file, `shapes` with each parameter position replaced
    by the shape of the argument that call passes there (`spelled_shape`); None when the name is
    read any other way than called or for its Python function (`f.python_function`,
    `frameworks.FUNCTION_PYTHON_ATTRIBUTE`: `python_reads`, ids of such Names), or a call's
    argument there is not spelled out. Calls of another binding of the name count as well (`f =
    tf.function(f.python_function)` traces the same body). A Function traces each call with its
    arguments' concrete shapes (`frameworks.INDEXED_UPDATE_OPS`)."""
    node = func.node
    scope = ctx.scope(node) if isinstance(node, cst.FunctionDef) else None
    if scope is None or func.is_method:
        return None
    bound = list(scope.assignments[node.name.value])
    if not any(b.node is node for b in bound):
        return None
    accesses = {id(a.node): a for b in bound for a in b.references}
    out = []
    for key in sorted(accesses):
        call = named_calls.get(key)
        if call is None:
            if key in python_reads:
                continue  # its Python function: no trace of this Function
            return None  # the function's name is read other than to call it
        if any(a.keyword is not None or a.star for a in call.args):
            return None
        traced = []
        for s in shapes:
            if isinstance(s, int):
                if s >= len(call.args):
                    return None
                s = spelled_shape(ctx, call.args[s].value)
                if s is None:
                    return None
            traced.append(s)
        out.append(traced)
    return out
