"""What a `**mapping` spread into a call passes, where the code shows it (Python's own semantics).

`f(**d)` passes each item of the mapping `d` as a keyword argument, `{**d, "k": v}` makes a dict
of `d`'s items with "k" bound last, and a function's `**kwargs` parameter holds exactly the
keyword arguments its call gave that no named parameter took. So:

- a spread of a dict display with string-literal keys, or of a name bound once, in the calling
  function or a function around it, to such a display (its own `**` spreads resolved the same
  way), passes those keys with those values (`dict_keywords`), as long as nothing can change
  the dict: every use of the name is a spread of it, a read of one of its items (`d["k"]`,
  `d.get(...)`, `"k" in d`, `.keys()` ...), never a store, a `pop`, an `update`, nor the dict
  handed anywhere (FoldJAX's `predict_kwargs = {..., "use_scan": True}` ... `jax.jit(run_model)`
  with `boltz2_predict(..., **predict_kwargs)`);
- a spread of the caller's own `**kwargs` parameter, or of one of a function around it
  (`forwarded_kwargs`), passes the keywords the owner's call gave it, less the keys the owner
  changes (`kwargs_changed`: `kwargs["backend"] = "xla"`, `kwargs.pop("multiplicity", 1)`):
  `boltz2_predict(..., **sample_kwargs)` hands `use_scan` to `boltz2_sample_forward` as its
  own callers gave it.

Unknown (None) is anything else. Observed with Python 3.11: tests/test_spreads.py (which also checks
`functools.partial`: a keyword it binds reaches every call unless the call passes it itself).
"""

from __future__ import annotations

import libcst as cst

#: Methods of a dict that read it (calling them changes nothing).
_READS = frozenset({"get", "keys", "items", "values", "copy", "__contains__", "__getitem__"})
#: Methods that remove or set one key, named by their first argument.
_KEY_CHANGES = frozenset({"pop", "setdefault"})


def _string_key(node) -> str | None:
    if isinstance(node, cst.SimpleString):
        value = node.evaluated_value
        return value if isinstance(value, str) else None
    return None


def _uses(root: cst.CSTNode, name: str, bindings: int = 0) -> tuple[set[int], frozenset | None]:
    """(ids of the Name nodes spelled `name` under `root` whose use is a spread or a read of an
    item, the string keys the other uses change) for every use of `name` that is one of those;
    the keys are None when some use is anything else (a store under a key not a literal,
    `update`, the name handed on), or `name` is bound under `root` other than `bindings` times
    by a plain `=` (the dict display's own binding: 1)."""
    safe: set[int] = set()
    changed: set[str] = set()
    seen: list[int] = []
    unknown = False
    stack = [root]
    while stack:
        node = stack.pop()
        if isinstance(node, cst.Name) and node.value == name:
            seen.append(id(node))
            continue
        if isinstance(node, (cst.Assign, cst.AugAssign, cst.AnnAssign, cst.Del)):
            targets = [t.target for t in node.targets] if isinstance(node, cst.Assign) else [node.target]
            for target in (n for t in targets for n in _target_names(t)):
                if isinstance(target, cst.Subscript) and isinstance(target.value, cst.Name) \
                        and target.value.value == name:
                    key = _item_key(target)
                    if key is None:
                        unknown = True
                    changed.add(key)
                    safe.add(id(target.value))
                    stack.extend(s.slice.value for s in target.slice if isinstance(s.slice, cst.Index))
                elif isinstance(target, cst.Name) and target.value == name:
                    bindings -= 1
                    unknown = unknown or not isinstance(node, cst.Assign)
                    safe.add(id(target))
                else:
                    stack.append(target)
            value = getattr(node, "value", None)
            if value is not None:
                stack.append(value)
            continue
        if isinstance(node, cst.Arg) and node.star == "**" and isinstance(node.value, cst.Name) \
                and node.value.value == name:
            safe.add(id(node.value))
            continue
        if isinstance(node, cst.StarredDictElement) and isinstance(node.value, cst.Name) and node.value.value == name:
            safe.add(id(node.value))
            continue
        if isinstance(node, cst.Subscript) and isinstance(node.value, cst.Name) and node.value.value == name:
            safe.add(id(node.value))  # (a load: the stores are met at their statements)
            stack.extend(s.slice.value for s in node.slice if isinstance(s.slice, cst.Index))
            continue
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) \
                and isinstance(node.func.value, cst.Name) and node.func.value.value == name:
            method = node.func.attr.value
            if method in _KEY_CHANGES:
                key = _string_key(node.args[0].value) if node.args and not node.args[0].star else None
                if key is None:
                    unknown = True
                else:
                    changed.add(key)
                    safe.add(id(node.func.value))
            elif method in _READS:
                safe.add(id(node.func.value))
            else:
                unknown = True  # (`update`, `clear`, `popitem`, ...: may change any key)
            stack.extend(a.value for a in node.args)
            continue
        if isinstance(node, cst.Comparison) and isinstance(node.left, (cst.SimpleString, cst.Name)) \
                and len(node.comparisons) == 1 and isinstance(node.comparisons[0].operator, (cst.In, cst.NotIn)) \
                and isinstance(node.comparisons[0].comparator, cst.Name) \
                and node.comparisons[0].comparator.value == name:
            safe.add(id(node.comparisons[0].comparator))
            stack.append(node.left)
            continue
        stack.extend(node.children)
    if unknown or bindings != 0 or any(i not in safe for i in seen):
        return safe, None
    return safe, frozenset(changed)


def _item_key(target: cst.Subscript) -> str | None:
    if len(target.slice) != 1 or not isinstance(target.slice[0].slice, cst.Index):
        return None
    return _string_key(target.slice[0].slice.value)


def _target_names(target) -> list:
    if isinstance(target, (cst.Tuple, cst.List)):
        return [n for e in target.elements for n in _target_names(e.value)]
    if isinstance(target, cst.StarredElement):
        return _target_names(target.value)
    return [target]


def _owner(ctx, func, name: cst.Name):
    """(the function around the load that binds `name`, its binding) when exactly one binding of
    it reaches the load and a function of `func`'s chain (itself or one around it) makes it."""
    refs = ctx.referents(name)
    if not refs or len(refs) != 1:
        return None, None
    binding = refs[0]
    f = func
    while f is not None:
        if ctx.scope(f.node.body) is binding.scope:
            return f, binding
        f = f.parent
    return None, None


def dict_keywords(ctx, func, expr, _depth: int = 0) -> dict | None:
    """{key: (value expression, the function it is written in)} of the mapping `expr` a `**expr`
    spread in `func` passes, or None: see the module's docstring."""
    if _depth > 4:
        return None
    if isinstance(expr, cst.Name):
        owner, binding = _owner(ctx, func, expr)
        node = getattr(binding, "node", None)
        value = ctx.bound_values.get(id(node)) if node is not None else None
        if owner is None or not isinstance(value, cst.Dict) or id(node) in ctx.unpacked_names \
                or expr.value in owner.declared:
            return None
        memo = ctx.memo.setdefault("spreads_dict_uses", {})
        key = (id(owner.node), expr.value)
        if key not in memo:
            memo[key] = _uses(owner.node.body, expr.value, bindings=1)[1]
        if memo[key] != frozenset():
            return None  # (changed, or used where it may be: not the display's items any more)
        return dict_keywords(ctx, owner, value, _depth + 1)
    if not isinstance(expr, cst.Dict):
        return None
    out: dict = {}
    for element in expr.elements:
        if isinstance(element, cst.StarredDictElement):
            inner = dict_keywords(ctx, func, element.value, _depth + 1)
            if inner is None:
                return None
            out.update(inner)
            continue
        key = _string_key(element.key)
        if key is None:
            return None
        out[key] = (element.value, func)
    return out


def forwarded_kwargs(ctx, func, expr) -> tuple[str, frozenset] | None:
    """(the qualified name of the function whose `**kwargs` parameter `expr` is, the keys that
    function changes on it) for a spread of the caller's own `**kwargs` or of a function around
    it; None otherwise, or where the function uses it otherwise than `_uses` allows."""
    if not isinstance(expr, cst.Name):
        return None
    owner, binding = _owner(ctx, func, expr)
    node = getattr(binding, "node", None)
    if owner is None or node is not owner.node.params.star_kwarg or expr.value in owner.declared:
        return None
    memo = ctx.memo.setdefault("spreads_kwargs_uses", {})
    key = (id(owner.node), expr.value)
    if key not in memo:
        memo[key] = _uses(owner.node.body, expr.value)[1]
    changed = memo[key]
    return None if changed is None else (owner.facts.qualname, changed)
