"""A pytree flatten that builds its aux data by a loop over the object's attributes (issue 23, the
eighteenth JAX audit's BO-P1: gyaradax's `GKParams.tree_flatten`):

    aux, leaves = {}, []
    for k, v in vars(self).items():
        if k in self._STATIC_FIELDS and not hasattr(v, "shape"):
            aux[k] = v
        else:
            leaves.append(v)
    return leaves, aux

JAX hands the traced function the object `tree_unflatten` rebuilds from the aux data's Python
values and the children's tracers, so the attributes the class names in `_STATIC_FIELDS` are
Python values under jit, the others tracers (JAX 0.10.2:
tests/runtime/test_jax_eighteenth_audit_bo_facts.py). `analysis.pytrees` reads the plain
`return (children, aux)` spelling; this reads the loop, and tells it which locals a flatten
changes after binding them (a dict filled by stores is not the `{}` it was bound to).
"""

from __future__ import annotations

import libcst as cst

from stagelint.analysis.trivia import inner_nodes

#: Methods that change the container they are called on.
_MUTATING = frozenset({"append", "extend", "insert", "update", "setdefault", "add", "pop", "clear", "__setitem__"})
#: `not hasattr(v, "shape")`: an array goes to the children, a Python value to the aux data.
_ARRAY_ATTRIBUTES = frozenset({"shape", "dtype", "ndim"})


def _own(ctx, fn, recorded: list) -> list:
    """The nodes of `recorded` (a list of the def's `FunctionInfo`, which the walk filled as it
    went through it) in the def's body itself: not in its parameters' defaults, nor in a def, a
    lambda or a class nested in it (their code runs when they are called)."""
    info = ctx.function_infos.get(id(fn))
    body = fn.body
    nested = [n for n in info.inner if isinstance(n, (cst.FunctionDef, cst.Lambda, cst.ClassDef))]
    return [n for n in recorded if ctx.inside(n, body) and not any(ctx.inside(n, d) for d in nested)]


def _recorded(ctx, fn):
    """(the stores, the calls) of a def's own body (`_own`); None for a lambda, or a def the walk
    has not gone through (never entered: code that never runs)."""
    info = ctx.function_infos.get(id(fn)) if not isinstance(fn, cst.Lambda) else None
    if info is None:
        return None
    return _own(ctx, fn, info.stores), _own(ctx, fn, info.calls)


def _mutated(call: cst.Call) -> str | None:
    """The name whose container `call` changes (`leaves.append(v)`: "leaves"), if any."""
    func = call.func
    if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.attr.value in _MUTATING:
        return func.value.value
    return None


def _item_targets(store) -> list:
    """The targets of an assignment or `del` that store into an item of a name (`aux[k] = v`)."""
    targets = [t.target for t in store.targets] if isinstance(store, cst.Assign) else [store.target]
    return [t for t in targets if isinstance(t, cst.Subscript) and isinstance(t.value, cst.Name)]


def changed_locals(ctx, fn) -> set[str]:
    """Names a def changes in place: a store into an item (`aux[k] = v`, `del aux[k]`) or a
    mutating method (`leaves.append(v)`)."""
    recorded = _recorded(ctx, fn)
    if recorded is None:
        return set()
    stores, calls = recorded
    out = {t.value.value for n in stores for t in _item_targets(n)}
    out.update(name for n in calls if (name := _mutated(n)) is not None)
    return out


def _class_strings(class_node: cst.ClassDef, name: str) -> list[str] | None:
    """The strings of a class-level `NAME = ("a", "b")` (a tuple, list or set of literals), bound once."""
    found = []
    for line in class_node.body.body:
        for st in getattr(line, "body", ()) if isinstance(line, cst.SimpleStatementLine) else ():
            if isinstance(st, cst.Assign) and any(isinstance(t.target, cst.Name) and t.target.value == name
                                                  for t in st.targets):
                found.append(st.value)
            elif isinstance(st, cst.AnnAssign) and isinstance(st.target, cst.Name) and st.target.value == name:
                found.append(st.value)
    if len(found) != 1 or not isinstance(found[0], (cst.Tuple, cst.List, cst.Set)):
        return None
    out = [el.value.evaluated_value for el in found[0].elements
           if isinstance(el, cst.Element) and isinstance(el.value, cst.SimpleString)]
    return out if len(out) == len(found[0].elements) else None


def _attributes_of(ctx, fn, loop_iter: cst.BaseExpression, obj: str) -> bool:
    """`vars(obj).items()` / `obj.__dict__.items()`, directly or through a local bound once."""
    if not (isinstance(loop_iter, cst.Call) and not loop_iter.args and isinstance(loop_iter.func, cst.Attribute)
            and loop_iter.func.attr.value == "items"):
        return False
    source = loop_iter.func.value
    if isinstance(source, cst.Name):
        bound = [st.value for line in fn.body.body if isinstance(line, cst.SimpleStatementLine)
                 for st in line.body if isinstance(st, cst.Assign)
                 and any(isinstance(t.target, cst.Name) and t.target.value == source.value for t in st.targets)]
        if len(bound) != 1:
            return False
        source = bound[0]
    if isinstance(source, cst.Attribute):
        return source.attr.value == "__dict__" and isinstance(source.value, cst.Name) and source.value.value == obj
    return isinstance(source, cst.Call) and "builtins.vars" in ctx.qualified_names(source.func) \
        and len(source.args) == 1 and isinstance(source.args[0].value, cst.Name) and source.args[0].value.value == obj


def _conjuncts(test: cst.BaseExpression) -> list[cst.BaseExpression]:
    if isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.And):
        return _conjuncts(test.left) + _conjuncts(test.right)
    return [test]


def _filter(ctx, test, key: str, value: str, obj: str, class_node) -> list[str] | None:
    """The names a store's `if` test lets into the aux data (`k in self._STATIC_FIELDS`, which
    may keep arrays out: `and not hasattr(v, "shape")`); None for any other test."""
    names = None
    for part in _conjuncts(test):
        if isinstance(part, cst.Comparison) and len(part.comparisons) == 1 \
                and isinstance(part.comparisons[0].operator, cst.In) and isinstance(part.left, cst.Name) \
                and part.left.value == key and names is None:
            holder = part.comparisons[0].comparator
            if isinstance(holder, cst.Attribute) and isinstance(holder.value, cst.Name) \
                    and holder.value.value in (obj, class_node.name.value):
                names = _class_strings(class_node, holder.attr.value)
                if names is None:
                    return None
                continue
            return None
        if isinstance(part, cst.UnaryOperation) and isinstance(part.operator, cst.Not) \
                and isinstance(part.expression, cst.Call) \
                and "builtins.hasattr" in ctx.qualified_names(part.expression.func) \
                and len(part.expression.args) == 2 and isinstance(part.expression.args[0].value, cst.Name) \
                and part.expression.args[0].value.value == value \
                and isinstance(part.expression.args[1].value, cst.SimpleString) \
                and part.expression.args[1].value.evaluated_value in _ARRAY_ATTRIBUTES:
            continue
        return None
    return names


def filtered_aux(ctx, fn, obj: str, aux: str, class_node: cst.ClassDef | None) -> set[str] | None:
    """The attributes of `obj` a flatten's aux dict `aux` holds, when every store into it is
    either a literal key (`aux["_leaf_keys"] = ...`: bookkeeping, no attribute) or `aux[k] = v` in
    a `for k, v in vars(obj).items():` loop under `if k in obj.NAMES` (a class-level tuple of
    names), optionally `and not hasattr(v, "shape")`; None otherwise. With that guard an array
    stored in a listed field goes to the children: the model does not follow what callers store,
    and takes the class's list as what is static (a miss there is silence, never a false finding)."""
    if ctx is None or class_node is None or isinstance(fn, cst.Lambda):
        return None
    recorded = _recorded(ctx, fn)
    if recorded is None:
        return None
    stores, calls = recorded
    if any(_mutated(n) == aux for n in calls):
        return None  # `aux.update(...)`: not followed
    found: set[str] = set()
    for n in stores:
        for t in _item_targets(n):
            if t.value.value != aux:
                continue
            index = t.slice[0].slice.value if len(t.slice) == 1 and isinstance(t.slice[0].slice, cst.Index) else None
            if isinstance(index, cst.SimpleString) and isinstance(n, cst.Assign):
                continue
            names = _loop_store(ctx, fn, obj, n, index, class_node)
            if names is None:
                return None
            found.update(names)
    return found or None


def _path(ctx, top: cst.CSTNode, node: cst.CSTNode) -> list | None:
    """The nodes from `top` down to `node`, both included, found by position (a parent lookup, not
    a walk: one child per level); None if no child holds it."""
    path = [top]
    while path[-1] is not node:
        child = next((c for c in inner_nodes(path[-1]) if ctx.inside(node, c)), None)
        if child is None:
            return None
        path.append(child)
    return path


def _loop_store(ctx, fn, obj, store, index, class_node):
    """For `aux[k] = v` (`store`): the filter of the `if` it sits in, inside a loop over
    `vars(obj).items()` binding `k, v`; None for any other place."""
    if not isinstance(store, cst.Assign) or not isinstance(index, cst.Name) or not isinstance(store.value, cst.Name):
        return None
    loops = [n for n in _own(ctx, fn, ctx.function_infos[id(fn)].inner)
             if isinstance(n, cst.For) and ctx.inside(store, n)]
    if len(loops) != 1:
        return None
    loop = loops[0]
    target = loop.target
    if not (isinstance(target, cst.Tuple) and len(target.elements) == 2
            and all(isinstance(el.value, cst.Name) for el in target.elements)
            and _attributes_of(ctx, fn, loop.iter, obj)):
        return None
    key, value = (el.value.value for el in target.elements)
    if index.value != key or store.value.value != value:
        return None
    path = _path(ctx, loop, store)
    if path is None:
        return None
    inside = path[1:]
    ifs = [(a, inside[i + 1]) for i, a in enumerate(inside[:-1]) if isinstance(a, cst.If)]
    if len(ifs) != 1 or ifs[0][1] is not ifs[0][0].body:
        return None  # (in an `else:`, or under several tests)
    return _filter(ctx, ifs[0][0].test, key, value, obj, class_node)
