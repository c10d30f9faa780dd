"""Functional updates of JAX arrays whose result is dropped (STG605)."""

from __future__ import annotations

import libcst as cst

from stagelint.context import short_code
from stagelint.rules.base import Rule

#: The update methods of `x.at[...]` (JAX 0.10.2); `get` reads and is left to other checks.
UPDATE_METHODS = frozenset({"set", "add", "subtract", "multiply", "mul", "divide", "power", "min", "max", "apply"})


def discarded_update(node: cst.Expr) -> tuple[cst.Call, cst.BaseExpression, str] | None:
    """(call, updated array, method) for an expression statement `x.at[i].set(v)`."""
    call = node.value
    if not isinstance(call, cst.Call) or not isinstance(call.func, cst.Attribute):
        return None
    method = call.func.attr.value
    indexed = call.func.value
    if method not in UPDATE_METHODS or not isinstance(indexed, cst.Subscript):
        return None
    at = indexed.value
    if not (isinstance(at, cst.Attribute) and at.attr.value == "at"):
        return None
    return call, at.value, method


#: Context managers that expect the statements they hold to raise.
_EXPECT_ERROR = frozenset({"pytest.raises", "numpy.testing.assert_raises", "absl.testing.absltest.TestCase.assertRaises"})
_EXPECT_ERROR_METHODS = frozenset({"assertRaises", "assertRaisesRegex", "assertRaisesWithLiteralMatch"})


def _expects_error(ctx, expr: cst.BaseExpression) -> bool:
    if not isinstance(expr, cst.Call):
        return False
    if ctx.qualified_names(expr.func) & _EXPECT_ERROR:
        return True
    return isinstance(expr.func, cst.Attribute) and expr.func.attr.value in _EXPECT_ERROR_METHODS


class DiscardedFunctionalUpdate(Rule):
    """
    ## What it does
    Flags `x.at[i].set(v)` (and `.add`, `.subtract`, `.multiply`/`.mul`, `.divide`, `.power`,
    `.min`, `.max`, `.apply`) written as a statement of its own, so that its result is
    dropped. Anywhere, staged or not: the update is lost in both modes.

    Where the line is drawn, and why: an update whose result is assigned, returned, passed on or
    used in an expression is what `.at[]` is for. `x.at[i].get()` only reads. A statement inside
    `with pytest.raises(...)` (or `self.assertRaises(...)`) is there to raise, not for its result.

    ## Why is this bad?
    JAX arrays are immutable: `.at[i].set(v)` returns an updated copy and leaves `x` as it was.
    Dropping the copy is a silent no-op, under `jax.jit` and under `jax.disable_jit()` alike, so
    neither tests nor the eager run tell; the values simply never change. It is what NumPy's
    in-place `x[i] = v` turns into when code is ported to JAX.

    ## Example
    ```python
    def reset(x, i):
        x.at[i].set(0.0)        # x is unchanged
        return x
    ```

    ## Use instead
    ```python
    def reset(x, i):
        x = x.at[i].set(0.0)
        return x
    ```
    `--fix` writes the assignment where the array is a plain local name (or a module-level name
    at module level): rebinding it there keeps the rest of the program's meaning.
    """

    code = "STG605"
    name = "discarded-functional-update"
    message = "`{expr}` returns an updated copy that is dropped: JAX arrays are immutable, so `{array}` stays unchanged (with or without jax.jit); assign it: `{array} = {array}.at[...].{method}(...)`"
    always = True
    fixable = True
    valid = (
        """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def reset(x, i):
            x = x.at[i].set(0.0)
            y = x.at[0].add(1.0)
            x.at[i].get()
            return jnp.stack([x, y, x.at[1].mul(2.0)])
        """,
    )
    invalid = (
        """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def reset(x, i):
            x.at[i].set(0.0)  # STG605
            return x

        counts = jnp.zeros(3)
        counts.at[0].add(1)  # STG605
        """,
    )

    def __init__(self, ctx):
        super().__init__(ctx)
        self._expecting_error = 0

    def visit_With(self, node: cst.With) -> None:
        if any(_expects_error(self.ctx, item.item) for item in node.items):
            self._expecting_error += 1

    def leave_With(self, node: cst.With) -> None:
        if any(_expects_error(self.ctx, item.item) for item in node.items):
            self._expecting_error -= 1

    def visit_Expr(self, node: cst.Expr) -> None:
        if self._expecting_error:
            return  # `with pytest.raises(...)`: the statement is there to raise
        found = discarded_update(node)
        if found is None:
            return
        call, array, method = found
        self.report(call, expr=short_code(call), array=short_code(array), method=method)

    def fix(self, node: cst.CSTNode, fields: dict):
        """`x.at[i].set(v)` -> `x = x.at[i].set(v)`, where `x` is a name the code may rebind: a
        local or a parameter of the enclosing function, or a module-level name at module level
        (in a function, rebinding a global or a closure variable would make it local)."""
        found = discarded_update(cst.Expr(node)) if isinstance(node, cst.Call) else None
        if found is None or not isinstance(found[1], cst.Name):
            return None
        name = found[1]
        func = self.ctx.function
        kind = self.ctx.binding_kind(name, func)
        if func is None:
            if kind not in ("global", "import"):
                return None
        elif kind not in ("local", "param") or name.value in func.declared:
            return None
        from stagelint.context import code_of

        return [(node, f"{name.value} = {code_of(node)}")]
