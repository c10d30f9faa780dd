"""What a pytree's flattening makes traced and what it makes static (issue 23).

An object JAX receives as an argument (`jax.jit`, `vmap`, a `lax` loop's carry) is flattened:
its children become tracers, its aux data (the treedef) stays the Python value it was and keys
the trace cache. So an attribute of a traced object is a tracer or a Python value according to
how its class is registered (`frameworks.JAX_PYTREE_*`, `FLAX_STRUCT_*`, `EQUINOX_*`; observed
with jax 0.10.2, flax 0.12.8, equinox 0.13.8 in tests/runtime/test_jax_pytree_fields.py):

* `@register_pytree_node_class` with `tree_flatten` returning `(children, aux)`, and
  `register_pytree_node(C, flatten, unflatten)`: the attributes `aux` reads are static;
* `register_dataclass` (`meta_fields`, or fields with `metadata=dict(static=True)`),
  `flax.struct.dataclass` / `PyTreeNode` (`struct.field(pytree_node=False)`) and `equinox.Module`
  (`eqx.field(static=True)`): the fields so declared are static, the others children;
* `register_static(C)`: the whole object is static;
* a property whose returns compute in Python (NumPy, `math`, builtins) from static attributes
  only (`Nt = np.ceil(self.t_end / self.dt)`) is a Python value too.

The per-file walk records, per class, the static attributes and children it shows
(`record_class`, `record_registration`, into `facts.ClassFacts`) and the class a parameter's
annotation names (`FunctionFacts.param_classes`); the project phase (`PytreeModel.of(project)`)
resolves the class of the object a function receives (annotation, or every call site) and its
bases, and answers "is this attribute read a Python value?" (`static_reads`).
"""

from __future__ import annotations

import libcst as cst

from stagelint.analysis.flatten_loops import changed_locals, filtered_aux
from stagelint.analysis.literals import keyword_constant
from stagelint.analysis.memo import once
from stagelint.analysis.proof import fact
from stagelint.frameworks import (
    EQUINOX_FIELDS,
    JAX_CONCRETIZING_FUNCTIONS,
    EQUINOX_MODULE_BASES,
    EQUINOX_STATIC_FIELD,
    EQUINOX_STATIC_FIELDS,
    FLAX_STATIC_FIELD,
    FLAX_STRUCT_BASES,
    FLAX_STRUCT_DATACLASSES,
    FLAX_STRUCT_FIELDS,
    JAX,
    JAX_PYTREE_CLASS_REGISTRATIONS,
    JAX_PYTREE_DATACLASSES,
    JAX_PYTREE_FLATTEN_METHODS,
    JAX_PYTREE_REGISTRATIONS,
    JAX_PYTREE_UNFLATTEN_METHOD,
    JAX_ARRAY_STATIC_METADATA,
    JAX_STATIC_REGISTRATIONS,
    PARTIAL_CALLS,
)

Key = tuple[str, str]
#: Bases whose subclasses are pytrees of their annotated fields (decided in the project phase:
#: a project base in between is followed).
FIELD_PYTREE_BASES = EQUINOX_MODULE_BASES | FLAX_STRUCT_BASES
_PROPERTIES = frozenset({"builtins.property", "functools.cached_property"})
#: Calls that compute a Python (or NumPy) value from Python values: never a tracer.
_PYTHON_COMPUTING = ("numpy.", "math.", "builtins.")
#: Builtins whose result is a Python value whatever they are given: under a trace the conversions
#: give a Python scalar or raise (`frameworks.JAX_CONCRETIZING_FUNCTIONS`; a tracer's `int()` is a
#: ConcretizationTypeError, STG601's), `len` reads the static leading dimension. sfincs_jax's
#: `n_xi` property, `return int(self.fblock.n_xi)` of a child, is a Python int.
_PYTHON_RESULTS = frozenset(q for q in JAX_CONCRETIZING_FUNCTIONS if q.startswith("builtins.")) \
    - {"builtins.range"} | {"builtins.len"}
_DATACLASS_FIELDS = frozenset({"dataclasses.field"})


# Per file --------------------------------------------------------------------------------------


def _keyword(call: cst.Call, name: str) -> cst.BaseExpression | None:
    return next((a.value for a in call.args if a.keyword is not None and a.keyword.value == name), None)


def _is(expr: cst.BaseExpression | None, text: str) -> bool:
    return isinstance(expr, cst.Name) and expr.value == text


def _statements(block) -> list:
    return [s for line in getattr(block, "body", ()) for s in (line.body if isinstance(
        line, (cst.SimpleStatementLine, cst.SimpleStatementSuite)) else [line])]


def _static_metadata(expr: cst.BaseExpression | None) -> bool:
    """`metadata=dict(static=True)` / `metadata={"static": True}`."""
    if isinstance(expr, cst.Call) and _is(expr.func, "dict"):
        return keyword_constant(_keyword(expr, "static"), "True")
    if isinstance(expr, cst.Dict):
        return any(isinstance(el, cst.DictElement) and isinstance(el.key, cst.SimpleString)
                   and el.key.evaluated_value == "static" and keyword_constant(el.value, "True") for el in expr.elements)
    return False


def _field_kind(ctx, value: cst.BaseExpression | None) -> str:
    """"static" for a field declared static by Equinox, Flax or `register_dataclass`, else "child"."""
    if not isinstance(value, cst.Call):
        return "child"
    names = ctx.qualified_names(value.func)
    if names & EQUINOX_STATIC_FIELDS:
        return "static"
    for fields, (keyword, text) in ((EQUINOX_FIELDS, EQUINOX_STATIC_FIELD), (FLAX_STRUCT_FIELDS, FLAX_STATIC_FIELD)):
        if names & fields and keyword_constant(_keyword(value, keyword), text):
            return "static"
    if names & (_DATACLASS_FIELDS | EQUINOX_FIELDS | FLAX_STRUCT_FIELDS) \
            and _static_metadata(_keyword(value, "metadata")):
        return "static"
    return "child"


def _declared_fields(ctx, node: cst.ClassDef) -> dict[str, str]:
    """The class body's annotated fields (`x: int = eqx.field(static=True)`): name -> kind."""
    out = {}
    for st in _statements(node.body):
        if isinstance(st, cst.AnnAssign) and isinstance(st.target, cst.Name):
            hint = st.annotation.annotation
            hint = hint.value if isinstance(hint, cst.Subscript) else hint
            if ctx.qualified_names(hint) & {"typing.ClassVar", "dataclasses.InitVar"}:
                continue
            out[st.target.value] = _field_kind(ctx, st.value)
    return out


def _strings(expr: cst.BaseExpression | None) -> list[str] | None:
    if isinstance(expr, (cst.List, cst.Tuple)):
        out = [el.value.evaluated_value for el in expr.elements if isinstance(el.value, cst.SimpleString)]
        return out if len(out) == len(expr.elements) else None
    return None


def _returns(ctx, fn) -> list[cst.BaseExpression | None]:
    """The return values of a def (not of defs or lambdas nested in it), as the walk recorded them
    (`FunctionInfo.returns`: a def it has not gone through, or never enters, returns nothing
    known), or a lambda's body."""
    if isinstance(fn, cst.Lambda):
        return [fn.body]
    info = ctx.function_infos.get(id(fn))
    return list(info.returns) if info is not None else []


def _locals(fn) -> dict[str, cst.BaseExpression | None]:
    """A def's local names bound by a plain `name = value` at the top of its body (None: bound
    more than once, or otherwise)."""
    out: dict[str, cst.BaseExpression | None] = {}
    if isinstance(fn, cst.Lambda):
        return out
    for st in _statements(fn.body):
        if isinstance(st, cst.Assign) and len(st.targets) == 1 and isinstance(st.targets[0].target, cst.Name):
            name = st.targets[0].target.value
            out[name] = None if name in out else st.value
        elif isinstance(st, (cst.AugAssign, cst.AnnAssign)) and isinstance(st.target, cst.Name):
            out[st.target.value] = None
    return out


def _outer_attribute(node: cst.Attribute) -> tuple[str, cst.BaseExpression]:
    """The attribute read first from the base of a chain, and that base: `self.cfg.dt` ->
    ("cfg", `self`)."""
    base = node
    while isinstance(base, cst.Attribute):
        attr, base = base.attr.value, base.value
    return attr, base


def _reads(expr, obj: str, local: dict, depth: int = 0) -> set[str] | None:
    """The attributes of `obj` an expression reads (`(self.dt, self.t_end)` -> {dt, t_end}),
    through the def's locals; None when it reads `obj` otherwise (`vars(self)`, `self` itself)
    or a name the def binds in a way not followed."""
    if depth > 6:
        return None
    out: set[str] = set()
    stack = [expr]
    while stack:
        n = stack.pop()
        if isinstance(n, cst.Attribute):
            attr, base = _outer_attribute(n)
            if _is(base, obj):
                out.add(attr)
                continue
            stack.append(base)
            continue
        if isinstance(n, cst.Name):
            if n.value == obj:
                return None
            if n.value in local:
                bound = local[n.value]
                inner = _reads(bound, obj, local, depth + 1) if bound is not None else None
                if inner is None:
                    return None
                out |= inner
            continue
        if isinstance(n, (cst.Lambda, cst.FunctionDef)):
            return None
        stack.extend(c for c in n.children if isinstance(c, cst.CSTNode))
    return out


def _flatten_parts(fn, obj: str, ctx, class_node: cst.ClassDef | None = None) \
        -> tuple[set[str], set[str]] | None:
    """(children, aux) attributes of `obj` a flatten function returns as `(children, aux)`, or
    None when a return is not such a pair the code spells out. A local the flatten changes in
    place (`aux[k] = v`, `leaves.append(v)`) is not the value it was bound to: read only as an aux
    dict filled by a loop over the object's attributes (`flatten_loops.filtered_aux`), whose
    children are the attributes it leaves out."""
    changed = changed_locals(ctx, fn)
    local = {**_locals(fn), **dict.fromkeys(changed)}
    children: set[str] = set()
    aux: set[str] = set()
    returns = _returns(ctx, fn)
    if not returns:
        return None
    for value in returns:
        if isinstance(value, cst.Name) and local.get(value.value) is not None:
            value = local[value.value]
        if not isinstance(value, (cst.Tuple, cst.List)) or len(value.elements) != 2 \
                or any(isinstance(el, cst.StarredElement) for el in value.elements):
            return None
        first, second = value.elements[0].value, value.elements[1].value
        if isinstance(second, cst.Name) and second.value in changed:
            a = filtered_aux(ctx, fn, obj, second.value, class_node)
            # (the children a loop appends are the attributes it leaves out of the aux data)
            c = set() if isinstance(first, cst.Name) and first.value in changed else _reads(first, obj, local)
        else:
            c, a = _reads(first, obj, local), _reads(second, obj, local)
        if c is None or a is None:
            return None
        children |= c
        aux |= a
    return children, aux


def _first_param(fn) -> str | None:
    params = fn.params.params
    return params[0].name.value if params else None


def _derived(ctx, node: cst.ClassDef) -> dict[str, list[str]]:
    """Properties computed in Python from attributes of `self` alone: name -> the attributes read
    (`Nt` -> [dt, t_end] for `return np.ceil(self.t_end / self.dt)`)."""
    out = {}
    for st in _statements(node.body):
        if not isinstance(st, cst.FunctionDef) or not any(
                ctx.qualified_names(d.decorator) & _PROPERTIES for d in st.decorators):
            continue
        obj = _first_param(st)
        returns = _returns(ctx, st)
        if obj is None or not returns or any(r is None for r in returns):
            continue
        local = _locals(st)
        reads: set[str] = set()
        for r in returns:
            found = _python_reads(ctx, r, obj, local)
            if found is None:
                break
            reads |= found
        else:
            out[st.name.value] = sorted(reads)
    return out


def _python_reads(ctx, expr, obj: str, local: dict, depth: int = 0, names: frozenset | set = frozenset()) \
        -> set[str] | None:
    """The attributes of `obj` an expression computes a Python value from, or None when it may
    compute anything else: a call of anything but NumPy, `math` and builtins (a `jax.numpy` op
    makes a tracer under a trace, whatever its operands), a method of `obj`, a name not followed
    (but `names`, Python values: an unflatten's aux data)."""
    if depth > 6:
        return None
    out: set[str] = set()
    stack = [expr]
    while stack:
        n = stack.pop()
        if isinstance(n, (cst.Integer, cst.Float, cst.SimpleString)):
            continue
        if isinstance(n, cst.Attribute):
            attr, base = _outer_attribute(n)
            if _is(base, obj) and _metadata_of_attribute(n):
                continue  # `self.parents.shape[0]`: an array's shape, a Python int under a trace too
            if _is(base, obj):
                out.add(attr)
                continue
            if isinstance(base, cst.Name) and base.value in names:
                continue
            if not isinstance(base, cst.Name) or not _python_name(ctx, n):
                return None
            continue
        if isinstance(n, cst.Name):
            if n.value == obj:
                return None
            if n.value in local:
                bound = local[n.value]
                inner = _python_reads(ctx, bound, obj, local, depth + 1, names) if bound is not None else None
                if inner is None:
                    return None
                out |= inner
                continue
            if keyword_constant(n) or n.value in names or _python_name(ctx, n):
                continue
            return None
        if isinstance(n, cst.Call):
            if not _python_name(ctx, n.func):
                return None
            if ctx.qualified_names(n.func) and ctx.qualified_names(n.func) <= _PYTHON_RESULTS:
                continue  # `int(self.fblock.n_xi)`: a Python value, whatever it is given
            stack.extend(a.value for a in n.args)
            continue
        if isinstance(n, (cst.BinaryOperation, cst.UnaryOperation, cst.Comparison, cst.Tuple, cst.List,
                          cst.Subscript, cst.IfExp, cst.BooleanOperation)):
            stack.extend(c for c in n.children if isinstance(c, cst.BaseExpression))
            if isinstance(n, cst.Comparison):
                stack.extend(c.comparator for c in n.comparisons)
            if isinstance(n, cst.Subscript):
                stack.extend(el.slice.value for el in n.slice if isinstance(el.slice, cst.Index))
            if isinstance(n, (cst.Tuple, cst.List)):
                stack.extend(el.value for el in n.elements)
            continue
        return None
    return out


def _metadata_of_attribute(node: cst.Attribute) -> bool:
    """`self.parents.shape` / `self.x.ndim`: the metadata (`frameworks.JAX_ARRAY_STATIC_METADATA`)
    of an attribute, whatever the attribute holds (a tracer's shape is static)."""
    chain = []
    while isinstance(node, cst.Attribute):
        chain.append(node.attr.value)
        node = node.value
    return bool(JAX_ARRAY_STATIC_METADATA.intersection(chain[:-1]))


def _python_int(ctx, expr, depth: int = 0) -> bool:
    """An int literal, `len(...)`, or `+ - * // %` of those: a Python int whatever `len` is given."""
    if isinstance(expr, cst.Integer):
        return True
    if isinstance(expr, cst.Call):
        return "builtins.len" in ctx.qualified_names(expr.func)
    if isinstance(expr, cst.BinaryOperation) and depth < 6 and isinstance(
            expr.operator, (cst.Add, cst.Subtract, cst.Multiply, cst.FloorDivide, cst.Modulo)):
        return _python_int(ctx, expr.left, depth + 1) and _python_int(ctx, expr.right, depth + 1)
    return False


def _python_int_methods(ctx, node: cst.ClassDef, qualname: str) -> dict[str, list]:
    """Methods taking `self` alone whose every return is a Python int whatever the object holds:
    `len(...)` (of any object; of a tracer, its static leading dimension under jit: JAX 0.10.2,
    tests/runtime/test_jax_fresh_facts.py), an int literal, integer arithmetic of those
    (`len(self.joint_names) - 1`), or the result of such a method of
    `self` (`self.count()`) or of an attribute the class body annotates with a class
    (`self.params.number_of_links()`, `params: KinDynParameters | None`): name -> those
    [class, method] pairs, followed in the project phase."""
    annotated = {}
    for st in _statements(node.body):
        if isinstance(st, cst.AnnAssign) and isinstance(st.target, cst.Name):
            hint = st.annotation.annotation
            if isinstance(hint, cst.BinaryOperation) and isinstance(hint.operator, cst.BitOr) \
                    and keyword_constant(hint.right, "None"):
                hint = hint.left  # `X | None`
            cls = annotated_class(ctx, hint)
            if cls:
                annotated[st.target.value] = cls
    out: dict[str, list] = {}
    for st in _statements(node.body):
        if not isinstance(st, cst.FunctionDef) or st.decorators or len(st.params.params) != 1 \
                or isinstance(st.params.star_arg, cst.Param) or st.params.kwonly_params or st.params.posonly_params:
            continue
        obj = st.params.params[0].name.value
        returns = _returns(ctx, st)
        pairs: list = []
        for r in returns:
            if _python_int(ctx, r):
                continue
            func = r.func if isinstance(r, cst.Call) and not r.args else None
            if isinstance(func, cst.Attribute) and _is(func.value, obj):
                pairs.append([qualname, func.attr.value])  # `self.count()`
                continue
            if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Attribute) \
                    and _is(func.value.value, obj) and func.value.attr.value in annotated:
                pairs.append([annotated[func.value.attr.value], func.attr.value])  # `self.params.count()`
                continue
            break
        else:
            if returns:
                out[st.name.value] = pairs
    return out


def _python_name(ctx, expr) -> bool:
    names = ctx.qualified_names(expr)
    return bool(names) and all(q.startswith(_PYTHON_COMPUTING) for q in names)


def note_class(ctx, node: cst.ClassDef, cf) -> None:
    """A class statement the walk enters, for the registration calls after it (`record_registration`)."""
    if JAX.name not in getattr(ctx, "absent", ()):
        ctx.memo.setdefault("class_nodes", {})[cf.qualname] = node


def record_class(ctx, node: cst.ClassDef, cf) -> None:
    """What the class statement shows of its pytree registration: its decorators, its annotated
    fields, its `tree_flatten`, its Python-computed properties (kept in `cf`, a `ClassFacts`).
    Asked as the walk leaves the class, its methods walked (`_returns`, `flatten_loops`)."""
    if JAX.name in getattr(ctx, "absent", ()):
        return  # a file JAX cannot reach registers no pytree
    fields = _declared_fields(ctx, node)
    cf.pytree_static = sorted(n for n, k in fields.items() if k == "static")
    cf.pytree_children = sorted(n for n, k in fields.items() if k == "child")
    if fields:
        cf.pytree_line = ctx.position(node.name).line
    for dec in node.decorators:
        d = dec.decorator
        options = None
        if isinstance(d, cst.Call):
            if ctx.qualified_names(d.func) & PARTIAL_CALLS and d.args:
                options, d = d, d.args[0].value
            else:
                options, d = d, d.func
        names = ctx.qualified_names(d)
        _registered(ctx, cf, node, names, options, fields)
    derived = _derived(ctx, node)
    if derived:
        cf.pytree_derived = derived
    methods = _python_int_methods(ctx, node, cf.qualname)
    if methods:
        cf.python_int_methods = methods


def _registered(ctx, cf, node: cst.ClassDef, names: set[str], options: cst.Call | None, fields: dict) -> None:
    """The class registered by `names` (a decorator or a call taking it; `options` the call
    holding `data_fields=`/`meta_fields=`)."""
    if names & JAX_STATIC_REGISTRATIONS:
        cf.pytree = "static"
    elif names & JAX_PYTREE_CLASS_REGISTRATIONS:
        method = next((m for name in JAX_PYTREE_FLATTEN_METHODS if (m := _method(node, name)) is not None), None)
        parts = _flatten_parts(method, _first_param(method), ctx, node) if method is not None and _first_param(method) \
            else None
        _set_parts(cf, parts, ctx, _method(node, JAX_PYTREE_UNFLATTEN_METHOD))
        if method is not None:
            cf.pytree_line = ctx.position(method.name).line
    elif names & (JAX_PYTREE_DATACLASSES | FLAX_STRUCT_DATACLASSES):
        meta = _strings(_keyword(options, "meta_fields")) if options is not None else None
        data = _strings(_keyword(options, "data_fields")) if options is not None else None
        if meta is not None or data is not None:
            _set_parts(cf, (set(data or ()), set(meta or ())))
        else:
            cf.pytree = "registered"


def _set_parts(cf, parts, ctx=None, unflatten=None) -> None:
    """The class's children and static attributes from its flatten's `(children, aux)` parts, and
    the attributes its unflatten computes from the aux data alone (static too)."""
    if parts is None:
        cf.pytree, cf.pytree_static, cf.pytree_children = "unknown", [], []
        return
    children, aux = parts
    rebuilt = _unflatten_static(ctx, unflatten) if unflatten is not None else set()
    cf.pytree = "registered"
    cf.pytree_children = sorted(children)
    cf.pytree_static = sorted((aux | rebuilt) - children)


def _method(node: cst.ClassDef, name: str) -> cst.FunctionDef | None:
    return next((st for st in _statements(node.body) if isinstance(st, cst.FunctionDef) and st.name.value == name),
                None)


def _unflatten_static(ctx, fn) -> set[str]:
    """The attributes an unflatten function sets, on the object it builds and returns, from its aux
    data alone (`out.num_diags = len(out.offsets)` after `out.offsets = aux_data["offsets"]`): the
    object a traced function receives is that one, built with the aux data's Python values and the
    children's tracers (`frameworks.JAX_PYTREE_REGISTRATIONS`). Read in the unflatten's top-level
    statements, in order; an attribute set twice, or set from anything but the aux data, literals,
    Python builtins, NumPy or `math` and attributes already found static, is not."""
    if not isinstance(fn, cst.FunctionDef) or len(fn.params.params) < 2:
        return set()
    aux = fn.params.params[-2].name.value  # JAX calls `unflatten(aux_data, children)` (after `cls`)
    returned = {r.value for r in _returns(ctx, fn) if isinstance(r, cst.Name)}
    static: set[str] = set()
    seen: set[str] = set()
    for st in _statements(fn.body):
        if not isinstance(st, cst.Assign):
            continue
        for t in st.targets:
            target = t.target
            if isinstance(target, cst.Attribute) and isinstance(target.value, cst.Name) \
                    and target.value.value in returned:
                attr = target.attr.value
                if attr in seen:
                    static.discard(attr)
                    continue
                seen.add(attr)
                reads = _python_reads(ctx, st.value, target.value.value, {}, names={aux})
                if reads is not None and reads <= static:
                    static.add(attr)
    return static


def record_registration(ctx, node: cst.Call, names: set[str]) -> None:
    """`register_pytree_node(C, flatten, unflatten)`, `register_pytree_node_class(C)`,
    `register_dataclass(C, data_fields=..., meta_fields=...)`, `register_static(C)` as calls, for
    a class of this file."""
    if not names & (JAX_PYTREE_REGISTRATIONS | JAX_PYTREE_CLASS_REGISTRATIONS | JAX_PYTREE_DATACLASSES
                    | JAX_STATIC_REGISTRATIONS) or not node.args or not isinstance(node.args[0].value, cst.Name):
        return
    qualname = f"{ctx.module}.{node.args[0].value.value}" if ctx.module else node.args[0].value.value
    cf = ctx.facts.classes.get(qualname)
    class_node = ctx.memo.get("class_nodes", {}).get(qualname)
    if cf is None or class_node is None:
        return
    if names & JAX_PYTREE_REGISTRATIONS:
        flatten = node.args[1].value if len(node.args) > 1 else (
            _keyword(node, "flatten_func") or _keyword(node, "flatten_with_keys"))
        unflatten = node.args[2].value if len(node.args) > 2 else _keyword(node, "unflatten_func")
        fn = _function_named(ctx, flatten, class_node)
        obj = None if fn is None else (fn.params.params[0].name.value if fn.params.params else None)
        _set_parts(cf, _flatten_parts(fn, obj, ctx, class_node) if obj else None, ctx,
                   _function_named(ctx, unflatten, class_node))
        if fn is not None:
            cf.pytree_line = ctx.position(fn).line
        return
    _registered(ctx, cf, class_node, names, node, _declared_fields(ctx, class_node))


def _function_named(ctx, expr, class_node: cst.ClassDef | None = None):
    """The def or lambda a registration argument names: a lambda, a function's name, or a method
    of the registered class (`JaxDia._tree_flatten`)."""
    if isinstance(expr, cst.Lambda):
        return expr
    if isinstance(expr, cst.Attribute) and class_node is not None and _is(expr.value, class_node.name.value):
        return _method(class_node, expr.attr.value)
    if isinstance(expr, cst.Name):
        for b in ctx.bindings_of(expr):
            if isinstance(getattr(b, "node", None), cst.FunctionDef):
                return b.node
    return None


def reads_through_locals(ctx, expr: cst.BaseExpression, func) -> list | None:
    """The attributes of the function's parameters a value is computed from in Python, through
    its locals, each as [param, attribute path] (`offset >= 0` with `for offset, data in
    zip(op.offsets, op.data)` -> [["op", ["offsets"]]]; [] when only Python values and array
    metadata do), or None when anything else may feed it:
    a parameter itself, `self`, a closure, a local bound more than once or otherwise (an augmented
    assignment, an unpacked call), a call of anything but builtins, NumPy or `math` or a method of
    such an attribute (a `jax.numpy` op makes a tracer under a trace, whatever its operands). An
    element of a `for` loop over `zip(A, B)` comes from its own sequence; over `enumerate(A)`, the
    index is a Python int. Used to decide that a value is a Python value (a pytree's aux data), never
    that it is traced."""
    if func is None or JAX.name in getattr(ctx, "absent", ()):
        return None
    out: list = []
    active: set[int] = set()

    def follow(name: cst.Name, depth: int) -> bool:
        refs = ctx.reaching(name, func)
        if not refs or len(refs) != 1 or depth > 6:
            return False
        node = getattr(next(iter(refs)), "node", None)
        if not isinstance(node, cst.Name) or id(node) in active:
            return False  # (a binding reached again while reading its own value: a cycle)
        bound = ctx.bound_values.get(id(node))
        if isinstance(bound, cst.For):
            bound = _loop_element(ctx, bound, node)
            if bound is True:
                return True
        elif id(node) in ctx.unpacked_names or id(node) in ctx.comprehension_targets:
            return False
        if not isinstance(bound, cst.BaseExpression):
            return False
        active.add(id(node))
        try:
            return walk(bound, depth + 1)
        finally:
            active.discard(id(node))

    def walk(n: cst.CSTNode, depth: int) -> bool:
        if isinstance(n, (cst.Integer, cst.Float, cst.SimpleString, cst.Imaginary)):
            return True
        if isinstance(n, cst.Attribute):
            path, base = [], n
            while isinstance(base, cst.Attribute):
                path.append(base.attr.value)
                base = base.value
            path.reverse()  # `bank.kernels_r.shape` -> [kernels_r, shape]
            if JAX_ARRAY_STATIC_METADATA.intersection(path[1:]) or (
                    path[0] in JAX_ARRAY_STATIC_METADATA and isinstance(base, cst.Name)
                    and ctx.binding_kind(base, func) in ("param", "local")):
                return True  # `op.data.shape[0]`, `x.shape`: an array's metadata, Python under a trace
            if isinstance(base, cst.Name) and base.value != func.self_name \
                    and ctx.binding_kind(base, func) == "param":
                out.append([base.value, path])
                return True
            return isinstance(base, cst.Name) and _python_name(ctx, n)
        if isinstance(n, cst.Name):
            kind = ctx.binding_kind(n, func)
            if kind == "local":
                return follow(n, depth)
            return kind in ("builtin", "import", "global") or keyword_constant(n)
        if isinstance(n, cst.Call):
            # `np.argsort(...)`, `len(...)`, or a method of a parameter's attribute (`left.offsets.index(d)`)
            return (_python_name(ctx, n.func) or isinstance(n.func, cst.Attribute) and walk(n.func, depth)) \
                and all(walk(a.value, depth) for a in n.args)
        if isinstance(n, cst.Subscript):
            return walk(n.value, depth) and all(
                walk(el.slice.value, depth) if isinstance(el.slice, cst.Index)
                else all(walk(b, depth) for b in (el.slice.lower, el.slice.upper, el.slice.step) if b is not None)
                for el in n.slice)
        if isinstance(n, (cst.BinaryOperation, cst.UnaryOperation, cst.BooleanOperation, cst.IfExp)):
            return all(walk(c, depth) for c in n.children if isinstance(c, cst.BaseExpression))
        if isinstance(n, cst.Comparison) and all(isinstance(c.operator, (cst.Is, cst.IsNot)) for c in n.comparisons):
            return True  # `params is not None`: an identity test, a Python bool whatever is compared
        if isinstance(n, cst.Comparison):
            # `off_out in out_dict`: a dict's membership hashes the value and compares it with keys,
            # which are hashable (never tracers): a Python bool when the value is a Python value
            return walk(n.left, depth) and all(
                (isinstance(c.operator, (cst.In, cst.NotIn)) and _dict_local(c.comparator)) or walk(c.comparator, depth)
                for c in n.comparisons)
        if isinstance(n, (cst.Tuple, cst.List)):
            return all(isinstance(el, cst.Element) and walk(el.value, depth) for el in n.elements)
        return False

    def _dict_local(expr) -> bool:
        """A local bound once, to a dict literal or `dict()`."""
        refs = ctx.reaching(expr, func) if isinstance(expr, cst.Name) and ctx.binding_kind(expr, func) == "local" \
            else None
        node = getattr(next(iter(refs)), "node", None) if refs and len(refs) == 1 else None
        bound = ctx.bound_values.get(id(node)) if node is not None and id(node) not in ctx.unpacked_names else None
        return isinstance(bound, cst.Dict) or (isinstance(bound, cst.Call) and not bound.args
                                                and "builtins.dict" in ctx.qualified_names(bound.func))

    ok = walk(expr, 0)
    walk = follow = _dict_local = None  # the closures refer to each other: a cycle holding `func`'s tree until a collection
    return out if ok else None


def _loop_element(ctx, loop: cst.For, name: cst.Name):
    """What a `for` target name holds on each iteration: the expression whose element it is (the
    iterated value, or `A` of `zip(A, B)` for the first name of `a, b`), True for `enumerate`'s
    index (a Python int), None when not shown."""
    target, it = loop.target, loop.iter
    if target is name:
        return it
    if not isinstance(target, (cst.Tuple, cst.List)) or not isinstance(it, cst.Call):
        return None
    position = next((i for i, el in enumerate(target.elements) if el.value is name), None)
    callee = {"builtins.zip": "zip", "builtins.enumerate": "enumerate"}.get(
        next(iter(ctx.qualified_names(it.func)), ""), "") if isinstance(it.func, cst.Name) else ""
    args = [a.value for a in it.args if a.keyword is None and a.star == ""]
    if position is None or len(args) != len(it.args):
        return None
    if callee == "zip" and len(args) == len(target.elements):
        return args[position]
    if callee == "enumerate" and len(args) == 1 and len(target.elements) == 2:
        return True if position == 0 else args[0]
    return None


def record_param_classes(ctx, node: cst.FunctionDef) -> None:
    """The classes the parameters' annotations name, on the function's facts."""
    if JAX.name in getattr(ctx, "absent", ()) or ctx.function is None:
        return
    params = (*node.params.posonly_params, *node.params.params, *node.params.kwonly_params)
    for p in params:
        if p.annotation is not None:
            cls = annotated_class(ctx, p.annotation.annotation)
            if cls:
                ctx.function.facts.param_classes[p.name.value] = cls


def annotated_class(ctx, annotation: cst.BaseExpression) -> str:
    """The class a parameter's annotation names (`time_axis: TimeAxis`, `Optional[TimeAxis]`,
    `Medium[OnGrid]`), "" when it names none or several."""
    if isinstance(annotation, cst.Subscript):
        if ctx.qualified_names(annotation.value) & {"typing.Optional"} and len(annotation.slice) == 1 \
                and isinstance(annotation.slice[0].slice, cst.Index):
            return annotated_class(ctx, annotation.slice[0].slice.value)
        annotation = annotation.value
    if not isinstance(annotation, (cst.Name, cst.Attribute)):
        return ""
    names = ctx.qualified_names(annotation)
    if len(names) != 1:
        return ""
    (q,) = names
    return "" if q.startswith(("builtins.", "typing.")) else q


# Project phase ---------------------------------------------------------------------------------


class PytreeModel:
    """The project's pytree classes, resolved through project bases."""

    def __init__(self, project):
        self.project = project
        self._static: dict[str, frozenset[str] | None] = {}

    @classmethod
    def of(cls, project) -> PytreeModel:
        return once(project, "_pytrees", lambda: cls(project))

    def static_attributes(self, cls: str, _depth: int = 0) -> frozenset[str] | None:
        """The attributes of `cls` that are Python values in a traced object of it (aux data, static
        fields, properties computed from them); None when `cls` is not a pytree the project
        shows, or everything is static (`register_static`: the set holds "*")."""
        if cls in self._static:
            return self._static[cls]
        self._static[cls] = None  # a cycle of bases adds nothing
        found = self.project.resolve_class(cls)
        result = None
        if found is not None and _depth < 8:
            facts = found[1]
            result = self._own(facts, _depth)
        self._static[cls] = result
        return result

    def _own(self, facts, depth: int) -> frozenset[str] | None:
        project = self.project
        if facts.pytree == "static":
            return frozenset({"*"})
        if facts.pytree == "unknown":
            return None
        static = set(facts.pytree_static)
        children = set(facts.pytree_children)
        if facts.pytree != "registered":
            if not project.derives(facts.qualname, FIELD_PYTREE_BASES):
                return None
            for base in facts.bases:  # fields a project base declares (an Equinox module's)
                inherited = self.static_attributes(base, depth + 1)
                if inherited:
                    static |= inherited - children
        # an attribute `__init__` makes an array of (`self.dt = jnp.asarray(dt)`) is one whatever it is built from
        static -= self._arrays(facts.qualname)
        derived = self._derived(facts, depth)
        static |= {name for name, reads in derived.items() if set(reads) <= static}
        return frozenset(static)

    def _derived(self, facts, depth: int) -> dict[str, list[str]]:
        out = {}
        for base in reversed(facts.bases):
            found = self.project.resolve_class(base)
            if found is not None and depth < 8:
                out.update(found[1].pytree_derived)
        out.update(facts.pytree_derived)
        return out

    def _arrays(self, cls: str) -> set[str]:
        return once(self.project, "_pytree_arrays", lambda: _init_arrays(self.project)).get(cls, set())

    def object_class(self, key: Key, root: str) -> str:
        """The class of the object a function receives as `root`: its annotation, or the one
        project class every call site passes an object of (`Project.class_near`); "" when
        unknown. (`NnxModel.object_class` asks it of an NNX store's root, where a library
        class's name is kept: what `nnx.Linear` holds is framework data.)"""
        project = self.project
        f = project.function(key)
        if f is None:
            return ""
        if f.class_qualname and f.params[:1] == [root]:
            return f.class_qualname
        named = f.param_classes.get(root)
        if named:
            found = project.resolve_class(named)
            return found[1].qualname if found is not None else ""
        classes = set()
        for module, _, arg in project.args_for(key, root):
            found = project.class_near(arg.cls, module) if arg.cls else None
            classes.add(found[1].qualname if found is not None else "")
        return classes.pop() if len(classes) == 1 else ""

    def static_read(self, key: Key, root: str, path: list[str]) -> str | None:
        """The class whose flattening makes `root.path[0]` a Python value in the function, or None."""
        if not path:
            return None
        cls = self.object_class(key, root)
        static = self.static_attributes(cls) if cls else None
        if static and ("*" in static or path[0] in static):
            return cls
        return None

    def guessed_static(self, key: Key, reads) -> bool:
        """For a read whose tracer-ness is a guess (the preview tier's step): every [root, path]
        read is of an object whose class is not shown (`object_class` is ""), and the project's
        classes that have that attribute are all pytrees that keep it static (aux data, a static
        field), none a child or an attribute of a class that is no pytree the project shows. A
        traced function's argument is a pytree, so its attribute is one of those classes' in
        all likelihood (qutip-jax's `left.offsets` of the `JaxDia` its dispatcher passes); still a
        guess, which only the preview tier made: it silences that guess, never a known step."""
        if not reads:
            return False
        index = once(self.project, "_pytree_attribute_owners", lambda: _attribute_owners(self.project))
        for root, path in reads:
            if not path or self.object_class(key, root):
                return False
            owners = index.get(path[0])
            if not owners:
                return False
            for cls in owners:
                static = self.static_attributes(cls)
                if not static or ("*" not in static and path[0] not in static):
                    return False
        return True

    def python_int_method(self, cls: str, name: str, _depth: int = 0) -> bool:
        """`cls.name()` returns a Python int whatever the object holds (`_python_int_methods`,
        followed through the methods it returns the result of)."""
        found = self.project.resolve_class(cls) if _depth < 6 else None
        if found is None:
            return False
        pairs = found[1].python_int_methods.get(name)
        return pairs is not None and all(self.python_int_method(c, m, _depth + 1) for c, m in pairs)

    def python_int_calls(self, key: Key, calls) -> bool:
        """Every `[root, method]` call (`model.number_of_links()`) of an object the function
        receives returns a Python int (its class from the annotation or the call sites)."""
        return bool(calls) and all(
            (cls := self.object_class(key, root)) and self.python_int_method(cls, method) for root, method in calls)

    def traced_read_facts(self, key: Key, reads, span) -> list:
        """For the proof a finding carries (`analysis.proof.fact`, anchored at `span`): each read
        of a child of a registered pytree the function receives (`signal.dt` with `dt` among
        `Signal.tree_flatten`'s children: traced)."""
        out = []
        for root, path in reads or ():
            cls = self.object_class(key, root) if path else ""
            found = self.project.resolve_class(cls) if cls else None
            if found is None or self.static_attributes(cls) is None:
                continue
            module, facts = found
            where = f"{self.project.modules[module].path}:{facts.pytree_line}"
            if path[0] in facts.pytree_children:
                out.append(fact(f"`{root}.{path[0]}` is traced: a child of the pytree `{cls.rsplit('.', 1)[-1]}`, "
                                f"not aux data or a static field ({where})", span))
            elif facts.pytree == "registered" and path[0] not in self.static_attributes(cls):
                # a property of children, or of JAX ops on aux data (`jnp.ceil(self.t_end / self.dt)`)
                out.append(fact(f"`{root}.{path[0]}` is traced: computed from the pytree `{cls.rsplit('.', 1)[-1]}`'s "
                                f"children or by JAX ops, not aux data or a static field ({where})", span))
        return out

    def static_reads(self, key: Key, reads) -> bool:
        """Every [root, path] read (`[["time_axis", ["Nt"]]]`) is a static attribute of the
        pytree the function receives."""
        return bool(reads) and all(self.static_read(key, root, path) is not None for root, path in reads)


def _attribute_owners(project) -> dict[str, set[str]]:
    """Attribute -> the project classes that have it: pytree children and static attributes, and
    attributes methods set on `self` (a class that is no pytree counts too: its attribute's value
    is not known static)."""
    owners: dict[str, set[str]] = {}
    for qualname, (_, facts) in project.classes.items():
        for attr in (*facts.pytree_children, *facts.pytree_static, *facts.pytree_derived):
            owners.setdefault(attr, set()).add(qualname)
    for m in project.modules.values():
        for w in m.attr_writes:
            if w.on_self and w.owner:
                owners.setdefault(w.attr, set()).add(w.owner)
    return owners


def _init_arrays(project) -> dict[str, set[str]]:
    """Class -> the attributes its `__init__` sets on `self` to arrays, over the project."""
    arrays: dict[str, set[str]] = {}
    for m in project.modules.values():
        for w in m.attr_writes:
            if w.on_self and w.in_init and w.value == "tensor":
                arrays.setdefault(w.owner, set()).add(w.attr)
    return arrays


def python_attribute_reads(project, key: Key, reads) -> bool:
    """The value reads only attributes of objects the function receives that are Python values
    under any transformation: static attributes of a Flax NNX module (`stagelint.analysis.nnx`), aux data
    and static fields of a registered pytree (`PytreeModel`)."""
    if not reads:
        return False
    from stagelint.analysis.nnx import static_attributes

    return static_attributes(project, key, reads) or PytreeModel.of(project).static_reads(key, reads)


def traced_attribute_facts(project, key: Key, reads, span) -> list:
    """The proof facts of the reads that are a registered pytree's children (`PytreeModel`), or
    a Variable, an array or `nnx.data` of a Flax NNX module the function receives (leaves of
    its graph: traced under `jax.jit` and the NNX transforms)."""
    if not reads:
        return []
    found = PytreeModel.of(project).traced_read_facts(key, reads, span)
    if found:
        return found
    from stagelint.analysis.nnx import NnxModel

    if NnxModel.of(project).traced_attributes(key, reads):
        shown = ", ".join(f"`{'.'.join([root, *path])}`" for root, path in reads)
        return [fact(f"{shown} reads a Variable, an array or `nnx.data` of a Flax NNX module the function "
                     f"receives, or an array its callers pass: a leaf, traced", span)]
    return []
