"""Where traced code writes to Python state that outlives the call (shared by STG102, STG201).

A write is external when its root object is not local to the call: a global or nonlocal name,
`self`, a parameter of an entry point (the caller's object), an imported module, or a local
name that aliases one of those (`items = self.items`). A container created inside the call
(`acc = []`) is local, and so is everything reached from it. Writes under a first-call guard
(`if self.v is None:`), inside `tf.init_scope()`, and stores of newly created variables or
Keras objects (STG402's business) are not listed.
"""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from stagelint.context import FileContext, FunctionInfo, code_of, short_code
from stagelint.tensors import Tensorness, tensorness


@dataclass
class StoreSite:
    func: FunctionInfo
    node: cst.CSTNode
    #: what is written, for messages: "global `x`", "`self.counter`", "`external_list`"
    place: str
    #: the write itself: "`external_list.append(...)`", "`self.counter += ...`"
    action: str
    value: cst.BaseExpression | None
    #: "global", "closure", "self", "param", "import"
    root_kind: str
    tensor: Tensorness


def _root(expr: cst.BaseExpression) -> cst.Name | None:
    while isinstance(expr, (cst.Attribute, cst.Subscript)):
        expr = expr.value
    return expr if isinstance(expr, cst.Name) else None


def root_kind(ctx: FileContext, func: FunctionInfo, expr: cst.BaseExpression, _depth: int = 0) -> str | None:
    """How the object an expression starts from is bound, or None when it is local/unknown."""
    root = _root(expr)
    if root is None:
        return None
    kind = ctx.binding_kind(root, func)
    if kind in ("global", "closure", "self", "param", "import"):
        return kind
    if kind == "local" and _depth < 4:
        # `items = self.items; items.append(x)` mutates self's list: follow plain aliases.
        for binding in ctx.bindings_of(root):
            value = ctx.bound_values.get(id(getattr(binding, "node", None)))
            if isinstance(value, (cst.Name, cst.Attribute, cst.Subscript)):
                aliased = root_kind(ctx, func, value, _depth + 1)
                if aliased is not None:
                    return aliased
    return None


def store_sites(ctx: FileContext) -> list[StoreSite]:
    if ctx._store_sites is not None:
        return ctx._store_sites
    sites = []
    fw = ctx.framework
    for func, node, kind, target, value, guarded in ctx.raw_stores:
        if guarded:
            continue
        if kind == "method":
            rk = root_kind(ctx, func, target)
            if rk is None:
                continue
            method = node.func.attr.value
            args = [a.value for a in node.args]
            t = Tensorness()
            for a in args:
                t = t | tensorness(ctx, a, func)
            sites.append(StoreSite(func, node, f"`{short_code(target)}`", f"`{short_code(target)}.{method}(...)`",
                                   None, rk, t))
            continue
        if isinstance(target, cst.Name):
            rk = "global" if func.declared.get(target.value) == "global" else "closure"
            place = f"{'global' if rk == 'global' else 'nonlocal'} `{target.value}`"
        else:
            rk = root_kind(ctx, func, target)
            if rk is None:
                continue
            place = f"`{short_code(target)}`"
        if value is not None and isinstance(value, cst.Call):
            if any(fw.creates_variables(q) for q in ctx.qualified_names(value.func)):
                continue  # creating state is STG402's business, storing it on self is the point
        action = f"`del {short_code(target)}`" if value is None else f"`{short_code(target)} {_op(node)} ...`"
        t = tensorness(ctx, value, func) if value is not None else Tensorness()
        sites.append(StoreSite(func, node, place, action, value, rk, t))
    ctx._store_sites = sites
    return sites


def _op(node: cst.CSTNode) -> str:
    return code_of(node.operator).strip() if isinstance(node, cst.AugAssign) else "="


def site_is_tensor(site: StoreSite, project, key) -> bool:
    """Definitely a tensor, or built from parameters the project shows are tensors."""
    if site.tensor.definite:
        return True
    return bool(site.tensor.params and site.tensor.params & project.tensor_params(key))
