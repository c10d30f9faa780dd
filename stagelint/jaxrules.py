"""What the existing rule families decide differently for code JAX stages (issue 14).

The rule classes stay the one home of each rule; where JAX's semantics differ from TensorFlow's
they call in here (observed on jax 0.10.2, ../shared/spec/jax-behaviour.md):

* no AutoGraph: every Python `if`/`while`/`assert`/`and`/`or`/`not`, `range()` and dict key
  on a tracer fails (rows 13, 18, 20), including on a jitted function's parameters, which are
  tracers unless static;
* iterating or unpacking a traced array works (it unrolls: STG503's business, row 23), and so does
  `len(x)` (the shape is static);
* `float()`/`int()` on a tracer is a ConcretizationTypeError (STG601, row 16).
"""

from __future__ import annotations

import libcst as cst

#: STG602 checks that JAX does not fail on: iteration unrolls, `len` reads the static shape,
#: `int()`/`float()` are STG601's there.
_NOT_IN_JAX = frozenset({"a `for` loop", "unpacking", "a comprehension", "`len(...)`", "`int(...)`",
                         "`float(...)`"})
_ERRORS = {
    "`range(...)`": "TracerIntegerConversionError",
    "a dict key": "TypeError (unhashable tracer)",
}
_INSTEAD = {
    "`while`": "loop with `jax.lax.while_loop` / `lax.fori_loop`, or mark the argument static (`static_argnums`)",
    "`assert`": "check with `checkify.check` or `jax.debug.callback`, or assert on static values (shapes)",
    "`range(...)`": "loop with `lax.fori_loop` / `lax.scan`, or mark the bound static (`static_argnums`)",
    "a dict key": "key the dict by a static value",
}
_BRANCH = "branch with `jax.lax.cond` / `jnp.where`, or mark the argument static (`static_argnums`)"


def jax_branch_test(expr: cst.BaseExpression) -> bool:
    """A test that computes on a value (`x > 0`, `x.sum()`), not one that asks whether an
    optional argument was given (`if mask:`, `if not cfg.flag:`): a jitted function's argument
    may be None or a Python flag as well as an array."""
    if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Not):
        return jax_branch_test(expr.expression)
    return not isinstance(expr, (cst.Name, cst.Attribute))


def confirm_tracer_as_python_value(candidate, project, key):
    """STG602 for a function JAX stages: a dict of message fields, or False."""
    fields = candidate.fields
    what = fields.get("what", "")
    if what in _NOT_IN_JAX or "iterat" in fields.get("error", ""):
        return False
    if not fields.get("_definite") and not project.jax.is_traced(key, fields.get("_params", ())):
        return False
    return {
        "jax_error": _ERRORS.get(what, "TracerBoolConversionError"),
        "jax_instead": _INSTEAD.get(what, _BRANCH),
    }


def confirm_concrete_value(candidate, project, key):
    """STG601 for a function JAX stages: traced values only (a static argument is a Python value)."""
    fields = candidate.fields
    return bool(fields.get("_definite") or project.jax.is_traced(key, fields.get("_params", ())))
