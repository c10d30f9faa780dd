"""Path facts: tests whose truth tells what a value is on the path they guard.

`type_dispatch`: a test that dispatches on a value's type or on which backend a module serves
(`isinstance(x, np.ndarray)`, `tf.is_tensor(x)`, `JAX_MODE`): the code under it is written for
one kind of value, and knows which. `resets_its_flag`: a block in a loop that clears the flag it
tests runs on the iterations that set it, not on each one.
"""

from __future__ import annotations

import libcst as cst

#: Calls that test what kind of object a value is.
_TYPE_TESTS = frozenset({"builtins.isinstance", "builtins.hasattr", "builtins.callable", "builtins.type",
                         "tensorflow.is_tensor", "tensorflow.compat.v1.is_tensor", "tensorflow.compat.v2.is_tensor",
                         "keras.ops.is_tensor"})


def type_dispatch(ctx, test) -> bool:
    """`isinstance(x, np.ndarray)`, `not tf.is_tensor(x)`, `hasattr(x, "cpu") and ...`,
    `"jax" in str(type(x))`, `JAX_MODE` (a module flag bound only to a literal)."""
    stack = [test]
    while stack:
        node = stack.pop()
        if isinstance(node, cst.Call):
            names = ctx.qualified_names(node.func)
            if names & _TYPE_TESTS or (isinstance(node.func, cst.Attribute) and node.func.attr.value == "is_tensor"):
                return True
        if isinstance(node, cst.Name) and node.value.isupper() and ctx.binding_kind(node) == "global":
            bindings = ctx.bindings_of(node)
            if bindings and all(
                isinstance(ctx.bound_values.get(id(getattr(b, "node", None))), cst.Name)
                and ctx.bound_values[id(b.node)].value in ("True", "False") for b in bindings
            ):
                return True  # `if JAX_MODE:` with `JAX_MODE = False`: which backend the module serves
        if isinstance(node, (cst.BooleanOperation, cst.UnaryOperation, cst.Comparison)):
            stack.extend(node.children)
        elif isinstance(node, cst.ComparisonTarget):
            stack.append(node.comparator)
        elif isinstance(node, cst.Call) and ctx.qualified_names(node.func) & {"builtins.str", "builtins.repr"}:
            stack.extend(a.value for a in node.args)  # `"jax" in str(type(videos))`
    return False


def resets_its_flag(ctx, node: cst.If, loop: cst.For | cst.While) -> bool:
    """`if need_compile: ...; need_compile = False` in `loop`: the block clears the flag it tests,
    and the loop sets it again only under a test of its own (`if step % n == 0: need_compile =
    True`), so the block runs on the first iteration and then only on those, not on each one.
    An assignment of the flag the loop makes on every pass (at its own level, or in a `with`,
    `try` or inner loop) leaves the block running on each iteration."""
    a, b = ctx.position(node), ctx.position(loop)
    if not isinstance(node.test, cst.Name) or not (
            (b.line, b.column) < (a.line, a.column) and (a.end_line, a.end_column) <= (b.end_line, b.end_column)):
        return False  # (an `if` around the loop runs the loop or not)
    flag = node.test.value

    def assigns(stmt) -> list:
        if not isinstance(stmt, cst.SimpleStatementLine):
            return []
        return [s for s in stmt.body if isinstance(s, (cst.Assign, cst.AugAssign, cst.AnnAssign)) and any(
            isinstance(t, cst.Name) and t.value == flag
            for t in ([x.target for x in s.targets] if isinstance(s, cst.Assign) else [s.target]))]

    if not any(isinstance(s, cst.Assign) and isinstance(s.value, cst.Name) and s.value.value == "False"
               for stmt in node.body.body for s in assigns(stmt)):
        return False
    todo = list(loop.body.body)
    while todo:
        stmt = todo.pop()
        if stmt is node or isinstance(stmt, cst.If):
            continue  # the block itself, or a set under a test of the loop's own
        if assigns(stmt):
            return False
        body = getattr(stmt, "body", None)
        if isinstance(body, cst.BaseSuite):
            todo.extend(getattr(body, "body", ()))
        for part in [*getattr(stmt, "handlers", ()), getattr(stmt, "orelse", None), getattr(stmt, "finalbody", None)]:
            inner = getattr(part, "body", None)
            if isinstance(inner, cst.BaseSuite):
                todo.extend(getattr(inner, "body", ()))
    return True
