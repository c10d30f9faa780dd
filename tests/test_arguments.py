"""`analysis.arguments.passed_argument`: the argument a call passes for a parameter named by its
position and its keyword."""

from __future__ import annotations

import libcst as cst

from stagelint.analysis.arguments import passed_argument


def _passed(code: str, position: int, keyword: str) -> str | None:
    arg = passed_argument(cst.parse_expression(code), position, keyword)
    return None if arg is None else cst.Module([]).code_for_node(arg.value)


def test_the_keyword_first_then_the_position():
    assert _passed("jnp.ones((n, n))", 0, "shape") == "(n, n)"
    assert _passed("jnp.ones(shape=(n, n))", 0, "shape") == "(n, n)"
    assert _passed("lax.cond(p, f, g, x)", 1, "true_fun") == "f"
    assert _passed("lax.cond(p, g, true_fun=f)", 1, "true_fun") == "f"  # the keyword wins
    assert _passed("jax.lax.psum(x, 'batch')", 1, "axis_name") == "'batch'"


def test_what_a_star_holds_is_not_counted():
    assert _passed("f(*args, a, b)", 1, "k") == "b"  # counted among the plain positional ones
    assert _passed("f(a, **kw)", 1, "k") is None
    assert _passed("f(a, k2=b)", 1, "k") is None
    assert _passed("f()", 0, "k") is None
