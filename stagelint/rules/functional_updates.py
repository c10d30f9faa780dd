"""Functional updates of JAX arrays whose result is dropped (STG605)."""

from __future__ import annotations

import libcst as cst

from stagelint.analysis.context import short_code
from stagelint.analysis.jitsites import InExpectedErrors, uses_pallas
from stagelint.frameworks import JAX_AT_UPDATE_METHODS
from stagelint.rules.base import Rule


def discarded_update(node: cst.Expr) -> tuple[cst.Call, cst.BaseExpression, str] | None:
    """(call, updated array, method) for an expression statement `x.at[i].set(v)`."""
    call = node.value
    if not isinstance(call, cst.Call) or not isinstance(call.func, cst.Attribute):
        return None
    method = call.func.attr.value
    indexed = call.func.value
    if method not in JAX_AT_UPDATE_METHODS or not isinstance(indexed, cst.Subscript):
        return None
    at = indexed.value
    if not (isinstance(at, cst.Attribute) and at.attr.value == "at"):
        return None
    return call, at.value, method


class DiscardedFunctionalUpdate(InExpectedErrors, Rule):
    """
    ## What it does
    Flags `x.at[i].set(v)` (and `.add`, `.subtract`, `.multiply`/`.mul`, `.divide`, `.power`,
    `.min`, `.max`, `.apply`) written as a statement of its own, so that its result is
    dropped, in staged code and the helpers it reaches (like every stagelint finding; the update
    is lost in eager code too).

    Where the line is drawn, and why: an update whose result is assigned, returned, passed on or
    used in an expression is what `.at[]` is for. `x.at[i].get()` only reads. A statement inside
    `with pytest.raises(...)` (or `self.assertRaises(...)`) is there to raise, not for its result.
    Modules that import Pallas are left alone: a Pallas ref's `x_ref.at[i].set(v)` is a store.

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
    `--fix --unsafe-fixes` writes the assignment where the array is a plain local name or
    parameter (rebinding a global or closure variable would make it local). The fix is unsafe:
    the code below the statement then reads the updated array, not the old one, which is what
    the statement meant but changes what that code computes; review it.
    """

    code = "STG605"
    name = "discarded-functional-update"
    message = "`{expr}` in {func} returns an updated copy that is dropped: JAX arrays are immutable, so `{array}` stays unchanged (with or without jax.jit); assign it: `{array} = {array}.at[...].{method}(...)`"
    fixable = True
    fix_safe = False  # the code below now reads the updated array: see "Use instead"
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

        def bump(counts):
            counts.at[0].add(1)  # STG605
            return counts

        @jax.jit
        def step(counts):
            return bump(counts)
        """,
    )

    def visit_Expr(self, node: cst.Expr) -> None:
        found = discarded_update(node)
        if found is None:
            return
        if self.expecting_error:
            return  # `with pytest.raises(...)`: the statement is there to raise
        if uses_pallas(self.ctx):
            return  # a Pallas ref's `.at[i].set(v)` stores into the ref
        call, array, method = found
        self.report(call, expr=short_code(call), array=short_code(array), method=method)

    def fix(self, node: cst.CSTNode, fields: dict):
        """`x.at[i].set(v)` -> `x = x.at[i].set(v)`, where `x` is a local or a parameter of the
        enclosing function (rebinding a global or a closure variable would make it local)."""
        found = discarded_update(cst.Expr(node)) if isinstance(node, cst.Call) else None
        if found is None or not isinstance(found[1], cst.Name):
            return None
        name = found[1]
        func = self.ctx.function
        if func is None or self.ctx.binding_kind(name, func) not in ("local", "param") or name.value in func.declared:
            return None
        from stagelint.analysis.context import code_of

        return [(node, f"{name.value} = {code_of(node)}")]
