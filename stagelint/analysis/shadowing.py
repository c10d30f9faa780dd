"""An attribute bound by `__init__` that shadows a method of the same name (Python's lookup).

`self.encoder = self.encoder()` in `__init__` calls the method `encoder` (a builder) and binds
its result on the instance; Python's attribute lookup finds an instance's `__dict__` entry before
a non-data descriptor of its class (a plain `def`, a `staticmethod`, a `classmethod`), so every
later `self.encoder(x)` calls the stored object, never the method
(tests/runtime/test_tf_shadowing_facts.py). The project phase asks `shadowed` before it takes a
call `self.name(...)` for a call of the method `name`.

Known true only when each step is: `__init__` (the one the class runs) binds the attribute in a
statement of its own body, with no `return` above it and no call above it handing `self` away;
the method is a plain `def` (or staticmethod / classmethod), not a property, whose setter would
run instead; every base the project does not hold stores attributes in `__dict__`
(`object`, `tf.Module`, Keras layers: `frameworks.INSTANCE_DICT_BASES`), no project class of the
lineage defines `__setattr__` / `__getattribute__`, and no project subclass defines its own
`__init__` or the name. A call made before the binding still calls the method: one in `__init__`
above the statement's end (its right-hand side included), and any in a function that what
`__init__` calls up to there may reach. Anything else is unknown: the call keeps its method.
"""

from __future__ import annotations

from stagelint.frameworks import (INSTANCE_DICT_BASES, INSTANCE_DICT_BASES_PY, KERAS_INSTANCE_DICT_PREFIXES,
                                  NON_DATA_DECORATORS, TENSORFLOW)

_ATTRIBUTE_HOOKS = ("__setattr__", "__getattribute__")


def shadowed(project, caller, target, span) -> bool:
    """The call `self.name(...)` (`target` ("self", class, name)) that `caller` makes at `span`
    reads the attribute `__init__` bound, not the method `name`."""
    if target[0] != "self" or len(target) != 3:
        return False
    memo = project.shadow_memo
    key = (target[1], target[2])
    if key not in memo:
        memo[key] = _binding(project, target[1], target[2])
    binding = memo[key]
    if binding is None:
        return False
    init, end, early = binding
    if caller == init:
        return (span.line, span.column) > tuple(end)
    return caller not in early


def _stores_in_dict(base: str) -> bool:
    return base in INSTANCE_DICT_BASES_PY or base in INSTANCE_DICT_BASES \
        or base.startswith(KERAS_INSTANCE_DICT_PREFIXES) and TENSORFLOW.is_layer_base(base)


def _lineage_plain(project, cls: str) -> bool:
    """Every class `cls` derives from stores attributes in the instance's `__dict__` and finds
    them there first: the project's define no attribute hook, the others are known to."""
    for name, found in project.lineage(cls):
        if found is None:
            if not _stores_in_dict(name):
                return False
            continue
        mod, facts = found
        own = facts.qualname[len(mod) + 1:]
        if any(f"{own}.{hook}" in project.modules[mod].functions for hook in _ATTRIBUTE_HOOKS):
            return False
    return True


def _subclass_redefines(project, cls: str, name: str) -> bool:
    """A project class below `cls` defines its own `__init__` (which may not bind the attribute)
    or `name` (maybe a property)."""
    resolved = project.resolved_class_name(cls)
    for qual, (mod, facts) in project.classes.items():
        if facts.qualname == resolved or not project.derives(qual, {resolved}):
            continue
        own = facts.qualname[len(mod) + 1:]
        if any(f"{own}.{m}" in project.modules[mod].functions for m in ("__init__", name)):
            return True
    return False


def _early(project, init, end) -> set | None:
    """The functions what `init` calls up to `end` (its binding's end) may reach, or None when one
    of them calls a method of `self` the project does not define (a library's: Keras's
    `self.build(...)` runs `call`), whose reach is unknown."""
    seen: set = set()
    todo = [(init, True)]
    while todo:
        key, first = todo.pop()
        g = project.function(key)
        for edge in g.calls if g is not None else ():
            if first and (edge.span.line, edge.span.column) > tuple(end):
                continue  # after the binding
            callee = project.resolve(key[0], edge.target)
            if callee is None:
                if edge.target[0] == "self" or edge.target[0] == "super" and edge.target[-1] != "__init__":
                    return None
                continue
            if callee not in seen and callee != init:
                seen.add(callee)
                todo.append((callee, False))
    return seen


def _binding(project, cls: str, name: str):
    """(`__init__`'s key, the binding statement's end, the functions that may run before it), or
    None when the call `self.name(...)` is not known to read a bound attribute."""
    method = project.method_of(cls, name)
    if method is None or name == "__init__":
        return None
    mf = project.function(method)
    if mf is None or any(d not in NON_DATA_DECORATORS for d in mf.decorators):
        return None
    init = project.method_of(cls, "__init__")
    f = project.function(init) if init is not None else None
    end = f.self_binds.get(name) if f is not None else None
    if end is None:
        return None
    if f.first_return and f.first_return <= end[0] or f.self_passed and f.self_passed <= end[0]:
        return None
    if not _lineage_plain(project, cls) or _subclass_redefines(project, cls, name):
        return None
    early = _early(project, init, end)
    if early is None:
        return None
    return init, end, early
