"""Ownership: which object an expression starts from, and how it is bound (a parameter, `self`,
a global, a closure variable, an import) — whether a store into it can outlive the call.

Asked by the value model (`stagelint.analysis.tensors`, an argument's root at a call site) and by the
store sites (`stagelint.analysis.stores`); it asks only the per-file context's bindings.
"""

from __future__ import annotations

import libcst as cst

from stagelint.analysis.context import FileContext, FunctionInfo


def _root(expr: cst.BaseExpression) -> cst.Name | None:
    while isinstance(expr, (cst.Attribute, cst.Subscript)):
        expr = expr.value
    return expr if isinstance(expr, cst.Name) else None


def root_kind(ctx: FileContext, func: FunctionInfo, expr: cst.BaseExpression) -> str | None:
    """How the object an expression starts from is bound, or None when it is local/unknown."""
    owner = root_owner(ctx, func, expr)
    return owner[0] if owner is not None else None


def root_owner(ctx: FileContext, func: FunctionInfo, expr: cst.BaseExpression,
               _depth: int = 0, store: bool = False) -> tuple[str, str] | None:
    """(how, name): how the object an expression starts from is bound (`root_kind`) and the name
    bound so, through local aliases (`runner_state` for `time_state` in `(params, time_state) =
    runner_state; time_state["n"] = ...`), or None when it is local/unknown. `store`: `expr` is
    the target of a store (its last link is what is written), not the object changed or read."""
    root = _root(expr)
    if root is None:
        return None
    kind = ctx.binding_kind(root, func)
    if kind == "param" and _is_star_param(ctx, root, func):
        return None  # `**kwargs` / `*args`: a dict or tuple made afresh for every call
    if kind in ("param", "local") and _rebound_to_copy(ctx, root, func, _links(expr, store)):
        return None  # `obs = obs.copy()` before `obs["image"] = ...`: the call's own new object
    if kind == "param" and _rebound_in_call(ctx, root, func):
        # `inputs = prepare(inputs)` before `inputs[k] = ...`: the name no longer holds the
        # caller's argument but what the call bound to it, followed as a local's value is
        kind = "local"
    if kind == "closure" and _enclosing_self(ctx, root, func):
        return "self", root.value  # `def keep(t): self.last = t` nested in `call`: the layer's own attribute
    if kind in ("global", "closure", "self", "param", "import"):
        return kind, root.value
    if kind == "local" and _depth < 4:
        # `items = self.items; items.append(x)` mutates self's list: follow plain aliases.
        values = [ctx.bound_values.get(id(getattr(b, "node", None))) for b in ctx.bindings_of(root)]
        if any(_fresh_container(ctx, v) for v in values):
            # `processed = observation if ... else []`: the branch that fills it made it
            return None
        for value in values:
            if isinstance(value, (cst.Name, cst.Attribute, cst.Subscript)):
                aliased = root_owner(ctx, func, value, _depth + 1)
                if aliased is not None:
                    return aliased
    return None


def _enclosing_self(ctx: FileContext, name: cst.Name, func: FunctionInfo) -> bool:
    """`name` is the `self` of a method enclosing `func` (a closure over the object)."""
    outer = func.parent
    while outer is not None:
        if outer.self_name == name.value:
            return any(isinstance(getattr(b, "node", None), cst.Param) and b.scope is ctx.scope(outer.node.body)
                       for b in ctx.bindings_of(name))
        outer = outer.parent
    return False


def root_name(expr: cst.BaseExpression) -> str:
    root = _root(expr)
    return root.value if root is not None else ""


def _is_star_param(ctx: FileContext, name: cst.Name, func: FunctionInfo) -> bool:
    params = func.node.params
    stars = [p for p in (params.star_kwarg, params.star_arg) if isinstance(p, cst.Param)]
    return any(getattr(b, "node", None) in stars for b in ctx.bindings_of(name))


#: Constructors of a new Python container.
_CONTAINER_CALLS = frozenset({"builtins.list", "builtins.dict", "builtins.set", "collections.OrderedDict",
                              "collections.defaultdict", "collections.deque"})


#: Calls that return a new object with the argument's contents.
_COPY_CALLS = frozenset({"copy.copy", "copy.deepcopy"})

#: Calls that return a new instance of an attrs class / dataclass holding the same attribute
#: values except those given by keyword (a shallow copy: `attr.evolve(s)` shares `s.counters`;
#: TF 2.21 refuses a write into it as a change to the Function's input, and accepts one into
#: `attr.evolve(s, counters=OrderedDict(s.counters))`: tests/runtime/test_tf_fresh_facts.py).
_EVOLVE_CALLS = frozenset({"attr.evolve", "attrs.evolve", "dataclasses.replace"})


def _links(expr: cst.BaseExpression, store: bool) -> list[cst.BaseExpression]:
    """The attribute / subscript links from the root name to the object `expr` changes, innermost
    first: none for `s.x = v` (it changes `s`), `[s.counters]` for `s.counters[k] = v`."""
    chain = []
    while isinstance(expr, (cst.Attribute, cst.Subscript)):
        chain.append(expr)
        expr = expr.value
    chain.reverse()
    return chain[:-1] if store and chain else chain


def _rebound_to_copy(ctx: FileContext, name: cst.Name, func: FunctionInfo,
                     links: list[cst.BaseExpression] = ()) -> bool:
    """Every binding of `name` that reaches this use is a copy made in the call (`x = x.copy()`,
    `x = dict(x)`, `x = copy.copy(x)`, a literal): `dict.copy()` / `list.copy()` return a new
    object, so writing into it changes nothing the caller holds. `x = attr.evolve(x, f=dict(x.f))`
    is a new instance whose own attributes are new, and of what they hold only those given by
    keyword as a copy (`links`: the path from `x` to the object changed)."""
    refs = ctx.reaching(name, func)
    if not refs:
        return False
    for b in refs:
        value = ctx.bound_values.get(id(getattr(b, "node", None)))
        if not (_copied(ctx, value) or _fresh_container(ctx, value) or _evolved_owns(ctx, value, links)):
            return False
    return True


def _rebound_in_call(ctx: FileContext, name: cst.Name, func: FunctionInfo) -> bool:
    """No binding of the parameter `name` that reaches this use is the parameter itself: an
    assignment in straight-line code above it (`inputs = prepare(inputs)`) rebound the name, so
    what it holds is that assignment's value, not the object the caller passed."""
    refs = ctx.reaching(name, func)
    if not refs or any(isinstance(getattr(b, "node", None), cst.Param) for b in refs):
        return False
    # `s = attr.evolve(s)` is a new instance whose attributes are the caller's (a shallow copy):
    # `_evolved_owns` says which of them the call owns
    values = [ctx.bound_values.get(id(getattr(b, "node", None))) for b in refs]
    return not any(isinstance(v, cst.Call) and ctx.qualified_names(v.func) & _EVOLVE_CALLS for v in values)


def _copied(ctx: FileContext, value) -> bool:
    return isinstance(value, cst.Call) and (
        (isinstance(value.func, cst.Attribute) and value.func.attr.value == "copy" and not value.args)
        or bool(ctx.qualified_names(value.func) & _COPY_CALLS))


def _evolved_owns(ctx: FileContext, value, links) -> bool:
    if not (isinstance(value, cst.Call) and ctx.qualified_names(value.func) & _EVOLVE_CALLS):
        return False
    if not links:
        return True  # `s.x = v`: an attribute of the new instance
    first = links[0]
    if len(links) > 1 or not isinstance(first, cst.Attribute):
        return False
    given = next((a.value for a in value.args if a.keyword is not None and a.keyword.value == first.attr.value), None)
    return given is not None and (_copied(ctx, given) or _fresh_container(ctx, given))


def _fresh_container(ctx: FileContext, value) -> bool:
    if isinstance(value, (cst.List, cst.Dict, cst.Set, cst.ListComp, cst.DictComp, cst.SetComp)):
        return True
    return isinstance(value, cst.Call) and bool(ctx.qualified_names(value.func) & _CONTAINER_CALLS)
