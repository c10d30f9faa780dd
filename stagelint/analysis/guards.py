"""Path facts: tests whose truth tells what a value is on the path they guard.

`type_dispatch`: a test that dispatches on a value's type or on which backend a module serves
(`isinstance(x, np.ndarray)`, `tf.is_tensor(x)`, `JAX_MODE`): the code under it is written for
one kind of value, and knows which.
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
