"""Which parameters of its function a value is computed from, and so whether JAX traces a JAX
operation's result. The tensor model (`tensors.tensorness`) answers whether a value is an array,
and for a framework operation's result it need not say from what; JAX's `grad` and `vmap` make
tracers only of what is computed from the arguments they transform
(`frameworks.JAX_TRACES_DEPENDENTS`), so that is asked here: every name the value reads, through
the operations applied to them (`jnp.sum(w)` is computed from `w`, as `w * 2` is) and through the
local names that reach it.
"""

from __future__ import annotations

import libcst as cst
from libcst.metadata import ImportAssignment

from stagelint.analysis.literals import keyword_constant
from stagelint.analysis.proof import HEURISTIC, definite_tensor, fact

#: How far through local bindings (`a = f(w); b = a + 1; ... b`) a value is followed.
_DEPTH = 6


def params_feeding(ctx, expr: cst.BaseExpression | None, func) -> frozenset[str]:
    """The parameters of `func` that `expr` reads, directly or through the locals reaching it.
    A name bound by a nested function or lambda's own parameters does not count."""
    if expr is None or func is None:
        return frozenset()
    memo = ctx.memo.setdefault("params_feeding", {})
    return _feeding(ctx, expr, func, memo, 0, set())


def _feeding(ctx, expr, func, memo, depth: int, active: set) -> frozenset[str]:
    key = (id(expr), id(func))
    if key in memo:
        return memo[key]
    if key in active or depth > _DEPTH:
        return frozenset()
    active.add(key)
    out: set[str] = set()
    for name in name_loads(expr):
        kind = ctx.binding_kind(name, func)
        if kind == "param":
            out.add(name.value)
        elif kind == "local":
            for ref in ctx.reaching(name, func) or ():
                node = getattr(ref, "node", None)
                bound = ctx.bound_values.get(id(node)) if node is not None else None
                if isinstance(bound, cst.BaseExpression):
                    out |= _feeding(ctx, bound, func, memo, depth + 1, active)
                elif isinstance(bound, (cst.For, cst.AugAssign)):
                    value = bound.iter if isinstance(bound, cst.For) else bound.value
                    out |= _feeding(ctx, value, func, memo, depth + 1, active)
    active.discard(key)
    result = frozenset(out)
    memo[key] = result
    return result


def name_loads(expr: cst.CSTNode, instead=None, lambdas: bool = False):
    """The Name loads of an expression, not those inside a nested lambda (with `lambdas`, those
    too: what a function made of the expression runs), and not attribute names (`x.shape`'s
    `shape`) or keyword names. `instead(call)`: the one part of a call to read in its place, or
    None to read it whole (`functools.partial(f, ...)`: `f`). Of a statement (a def), the names
    it holds, its own name and its parameters' too."""
    stack = [expr]
    while stack:
        node = stack.pop()
        if isinstance(node, cst.Name):
            yield node
            continue
        if isinstance(node, cst.Lambda) and not lambdas:
            continue
        if instead is not None and isinstance(node, cst.Call) and (part := instead(node)) is not None:
            stack.append(part)
            continue
        if isinstance(node, cst.Attribute):
            stack.append(node.value)
            continue
        if isinstance(node, cst.Arg):
            stack.append(node.value)
            continue
        stack.extend(child for child in node.children if isinstance(child, cst.CSTNode))


def op_result_fact(project, key, value: str, params, span) -> list:
    """The proof that `value`, a JAX operation's result computed from `params` in the function
    `key`, is a tracer: known where the whole body is traced (`JaxView.op_results_traced`) or a
    traced parameter feeds it; only likely (`proof.HEURISTIC`, the preview tier) under
    `jax.grad` / `jax.vmap` alone, where an array of closures or constants stays concrete."""
    jax = project.jax
    if not project.staged_by_jax(key) or jax.op_results_traced(key):
        return fact(definite_tensor(value), span)
    traced = sorted(set(params) & jax.traced_params(key))
    if traced:
        names = ", ".join(f"`{p}`" for p in traced)
        return fact(f"`{value}` is computed from parameter {names}, which the transformation traces", span)
    return fact(f"`{value}` is a JAX operation's result, but only `jax.grad` / `jax.vmap`-like transformations "
                f"stage this function, and they make tracers only of what is computed from the arguments they "
                f"transform (an array of closures or constants stays concrete); the code does not show that "
                f"`{value}` is", span, HEURISTIC)


def same_each_iteration(ctx, expr: cst.BaseExpression, loop: cst.CSTNode, depth: int = 0) -> bool:
    """`expr`, evaluated once per iteration of `loop`, evaluates the same names to the same
    bindings every time, as far as the code shows: literals; names the loop never binds (an
    import, a module-level alias `opti = optimizers.adam`), or binds only to such an expression
    (`lr = args.lr`); attributes and literal subscripts of those; and a call of such a callee with
    such arguments (`opti(lr)`). Not a loop variable, a counter (`rng += 1`), or a call nested in
    the arguments (`adam(random.random())` draws anew). What an attribute holds is not followed (an
    object the loop mutates is not seen): a guess, not a proof."""
    if depth > 4:
        return False
    if isinstance(expr, cst.UnaryOperation):
        expr = expr.expression
    if isinstance(expr, (cst.Integer, cst.Float, cst.SimpleString)):
        return True
    if isinstance(expr, cst.Attribute):
        return _stable_value(ctx, expr.value, loop, depth)
    if isinstance(expr, cst.Subscript):
        return _stable_value(ctx, expr.value, loop, depth) and all(
            isinstance(el.slice, cst.Index) and isinstance(el.slice.value, (cst.Integer, cst.SimpleString))
            for el in expr.slice)
    if isinstance(expr, cst.Call) and depth == 0:
        return _stable_value(ctx, expr.func, loop, depth) and all(
            not a.star and _stable_value(ctx, a.value, loop, depth) for a in expr.args)
    if isinstance(expr, cst.Name):
        if keyword_constant(expr):
            return True
        refs = ctx.referents(expr)
        if not refs:
            return False
        for r in refs:
            node = getattr(r, "node", None)
            if isinstance(r, ImportAssignment) or node is None or not ctx.inside(node, loop):
                continue  # bound outside the loop (or imported): not changed by its iterations
            bound = ctx.bound_values.get(id(node)) if isinstance(node, cst.Name) else None
            if bound is None or isinstance(bound, (cst.For, cst.AugAssign, cst.Call)) \
                    or not same_each_iteration(ctx, bound, loop, depth + 1):
                return False
        return True
    return False


def _stable_value(ctx, expr: cst.BaseExpression, loop: cst.CSTNode, depth: int) -> bool:
    return not isinstance(expr, cst.Call) and same_each_iteration(ctx, expr, loop, depth + 1)
