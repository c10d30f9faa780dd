"""Flax NNX state, modelled once: what an attribute of an `nnx.Module` is (issue 14).

Flax 0.12 makes every `nnx.Module` (any `nnx.Pytree`) a graph node whose attributes are of three
kinds, decided when `__init__` stores them (observed with flax 0.12.8 / JAX 0.10.2):

* **state**: an `nnx.Variable` (`nnx.Param`, `BatchStat`, `Cache`, `Intermediate`, ... and the
  project's own subclasses). Traced under jit. `nnx.jit` (and the other nnx transforms) carry its
  in-place updates out of the trace (`self.count[...] += 1`, `.value = ...`); plain `jax.jit`
  loses them (jax-behaviour.md row 41) unless the Variable is a *hijax* one (`hijax=True` or
  `ref=True`, or made after `nnx.var_defaults(hijax=True)`), whose updates propagate.
* **data**: a submodule, `nnx.Rngs`, `nnx.List`/`nnx.Dict`, a JAX or NumPy array, `nnx.data(...)`:
  traced pytree data (a submodule is itself a node with attributes of these kinds).
* **static**: every other Python value (ints, strings, lists, dicts, config objects,
  `nnx.static(...)`): part of the graph definition. Python control flow on it works under any jit
  (`if model.dim == 4`); a change under `nnx.jit` is carried out but keys a new trace, so
  `model.steps += 1` retraces on every call (row 42: 3 traces for 3 calls); under plain
  `jax.jit` the change is lost; an in-place change of a static list (`model.hist.append(x)`)
  happens once, at trace time, under either.

The per-file walk records the kind of each value stored on `self` (`stored_kind`, kept in
`AttrWrite.nnx`) and whether the module makes hijax Variables (`record_call`); rules record the
attribute path of a store (`store_path`) or of a tested value (`param_attributes`). The project
phase (`NnxModel.of(project)`) resolves the class of the object a function receives (call sites,
`self`), across modules and through base classes, and answers the rules' questions.
"""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from stagelint.analysis.literals import keyword_constant
from stagelint.analysis.memo import once
from stagelint.frameworks import (
    JAX,
    NNX_DATA,
    NNX_DATA_ANNOTATIONS,
    NNX_HIJAX_CALLS,
    NNX_NODE_BASES,
    NNX_NODE_PACKAGES,
    NNX_NODES,
    NNX_STATIC,
    NNX_STATIC_ANNOTATIONS,
    NNX_VARIABLES,
    NNX_VARIABLE_VALUES,
)

Key = tuple[str, str]
#: What a constructor's caller passes (`ArgFacts.what`) that is a static attribute once stored.
PYTHON_VALUES = frozenset({"int", "float", "complex", "str", "bool", "none", "tuple"})


def _node_name(q: str) -> bool:
    last = q.rsplit(".", 1)[-1]
    return q in NNX_NODES or (q.startswith(NNX_NODE_PACKAGES) and last[:1].isupper())


def _keyword_true(call: cst.Call, names: tuple[str, ...]) -> bool:
    return any(a.keyword is not None and a.keyword.value in names and keyword_constant(a.value, "True")
               for a in call.args)


# Per file --------------------------------------------------------------------------------------


def record_call(ctx, node: cst.Call, names: set[str]) -> None:
    """A module that makes hijax Variables: `nnx.var_defaults(hijax=True)` (also as a context
    manager or decorator), `nnx.Variable(x, hijax=True)` / `ref=True`, `nnx.with_vars(m, ref=True)`.
    Called for every call of `frameworks.NNX_HIJAX_CALLS`."""
    if ctx.facts.nnx_hijax:
        return
    if names & NNX_HIJAX_CALLS and _keyword_true(node, ("hijax", "ref")):
        ctx.facts.nnx_hijax = True


def declared_kind(ctx, node: cst.AnnAssign) -> None:
    """A class body's `x: int = nnx.static()` / `nnx.data()`, `x: nnx.Static[int]` /
    `nnx.Data[...]`: the attribute's kind whatever `__init__` stores (flax 0.12 pytree fields)."""
    cls = ctx.current_class_for_methods()
    if cls is None or not imports_flax(ctx):
        return
    kind = ""
    value, annotation = node.value, node.annotation.annotation
    if isinstance(value, cst.Call):
        names = ctx.qualified_names(value.func)
        kind = "data" if names & NNX_DATA else "static" if names & NNX_STATIC else ""
    if not kind and isinstance(annotation, cst.Subscript):
        names = ctx.qualified_names(annotation.value)
        kind = "data" if names & NNX_DATA_ANNOTATIONS else "static" if names & NNX_STATIC_ANNOTATIONS else ""
    if kind:
        cls.nnx_fields[node.target.value] = kind


def _static_literal(expr: cst.BaseExpression) -> bool:
    if isinstance(expr, (cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString, cst.ConcatenatedString,
                         cst.FormattedString)):
        return True
    if isinstance(expr, cst.Name):
        return keyword_constant(expr)
    if isinstance(expr, cst.UnaryOperation):
        return _static_literal(expr.expression)
    if isinstance(expr, (cst.Tuple, cst.List, cst.Set)):
        return all(isinstance(el, cst.Element) and _static_literal(el.value) for el in expr.elements)
    if isinstance(expr, cst.Dict):
        return all(isinstance(el, cst.DictElement) and _static_literal(el.key) and _static_literal(el.value)
                   for el in expr.elements)
    return False


def stored_kind(ctx, value: cst.BaseExpression | None, func, is_array) -> str:
    """What a value stored on `self` is in NNX's terms: "variable" ("variable:hijax"), "node",
    "array" (`is_array(value)`: the walk's tensor inference says so), "data", "static",
    "class:<qualified name>" (a call of a class the project phase resolves), "alias:<attr>",
    "param:<name>" (an argument of the method: its callers say), or "unknown"."""
    if value is None:
        return "unknown"
    if isinstance(value, cst.Call):
        names = ctx.qualified_names(value.func)
        if names & NNX_DATA:
            return "data"
        if names & NNX_STATIC:
            return "static"
        if names & NNX_VARIABLES:
            return "variable:hijax" if _keyword_true(value, ("hijax", "ref")) else "variable"
        if any(_node_name(q) for q in names):
            return "node"
        if len(names) == 1:
            (q,) = names
            if q.rsplit(".", 1)[-1][:1].isupper() and not q.startswith(("builtins.", "jax.", "numpy.")):
                return "class:" + q
    if _static_literal(value):
        return "static"
    if isinstance(value, cst.Attribute) and isinstance(value.value, cst.Name) and func is not None \
            and value.value.value == func.self_name:
        return "alias:" + value.attr.value  # `self.b = self.a`: one object under two names
    if isinstance(value, cst.Name) and func is not None and ctx.binding_kind(value, func) == "param":
        return "param:" + value.value
    return "array" if is_array(value) else "unknown"


def _store_root(site) -> cst.Name | None:
    node = site.node
    if isinstance(node, cst.Call):
        target = node.func.value if isinstance(node.func, cst.Attribute) else None
    elif isinstance(node, (cst.AugAssign, cst.AnnAssign)):
        target = node.target
    elif isinstance(node, cst.Assign) and node.targets:
        target = node.targets[0].target
    else:
        return None
    while isinstance(target, (cst.Attribute, cst.Subscript)):
        target = target.value
    return target if isinstance(target, cst.Name) else None


def captured_variable(ctx, site) -> str:
    """A store into a Variable a staged function captures (`v[...] = x` with `v = nnx.Variable(x,
    hijax=True)` outside): "hijax" when it is one (explicitly, or made in a module that makes
    hijax Variables), "plain" for another Variable, "" when the name holds no Variable."""
    name = _store_root(site)
    if name is None:
        return ""
    bindings = [getattr(b, "node", None) for b in ctx.bindings_of(name)]
    values = [ctx.bound_values.get(id(b)) for b in bindings if isinstance(b, cst.Name)]
    if not values or len(values) != len(bindings):
        return ""
    kinds = set()
    for value in values:
        if not isinstance(value, cst.Call) or not ctx.qualified_names(value.func) & NNX_VARIABLES:
            return ""
        kinds.add("hijax" if _keyword_true(value, ("hijax", "ref")) or ctx.facts.nnx_hijax else "plain")
    return kinds.pop() if len(kinds) == 1 else "plain"


def store_path(site) -> list | None:
    """[attribute path from the root name, how]: `model.steps += 1` -> [["steps"], "attr"],
    `model.count[...] += 1` -> [["count"], "item"], `v.value = x` -> [["value"], "attr"],
    `model.hist.append(x)` -> [["hist"], "method"]; None for other shapes (`a[0].x = ...`)."""
    node = site.node
    if isinstance(node, cst.Call):
        if not isinstance(node.func, cst.Attribute):
            return None
        target, how = node.func.value, "method"
    elif isinstance(node, (cst.AugAssign, cst.AnnAssign)):
        target, how = node.target, ""
    elif isinstance(node, cst.Assign) and node.targets:
        target, how = node.targets[0].target, ""
    else:
        return None
    path: list[str] = []
    if not how:
        if isinstance(target, cst.Attribute):
            how = "attr"
            path.append(target.attr.value)
            target = target.value
        elif isinstance(target, cst.Subscript):
            how = "item"
            target = target.value
        else:
            return None
    while isinstance(target, cst.Attribute):
        path.append(target.attr.value)
        target = target.value
    if not isinstance(target, cst.Name):
        return None
    return [path[::-1], how]


def imports_flax(ctx) -> bool:
    """The file imports Flax (where NNX modules are defined or jitted)."""
    if JAX.name in getattr(ctx, "absent", ()):
        return False  # a file JAX cannot reach (`screen.framework_reach`) names no Flax
    return any(v == "flax" or v.startswith("flax.") for v in ctx.facts.imports.values())


def store_fields(ctx, site) -> dict:
    """The candidate fields of a store: on `self` or a parameter, its attribute path (`_nnx`);
    into a captured NNX Variable, whether it is a hijax one (`_nnx_captured`)."""
    if site.root_kind in ("closure", "global"):
        hijax = ctx.facts.nnx_hijax and captured_variable(ctx, site) == "hijax"
        return {"_nnx_captured": "hijax"} if hijax else {}
    if site.root_kind not in ("param", "self"):
        return {}
    found = store_path(site)
    return {"_nnx": found} if found is not None else {}


def changes_every_call(site) -> bool:
    """An attribute store whose new value depends on the old one (`x.n += 1`, `x.n = x.n + 1`):
    a new value on every call, not a constant set once."""
    node = site.node
    if isinstance(node, cst.AugAssign):
        return True
    if not isinstance(node, cst.Assign) or not node.targets or site.value is None:
        return False
    target = node.targets[0].target
    if not isinstance(target, cst.Attribute):
        return False

    def reads(expr: cst.CSTNode) -> bool:
        if isinstance(expr, cst.Attribute) and expr.attr.value == target.attr.value \
                and expr.value.deep_equals(target.value):
            return True
        return any(reads(child) for child in expr.children)

    return reads(site.value)


def param_attributes(ctx, expr: cst.BaseExpression, func) -> list | None:
    """The parameters an expression reads, each as [param, attribute path] (`model.dim == 4` ->
    [["model", ["dim"]]]), or None when it uses a parameter otherwise (`x > 0`, `f(model)`). Only
    JAX's confirmations read it: None in a file JAX cannot reach (`screen.framework_reach`)."""
    if func is None or JAX.name in getattr(ctx, "absent", ()):
        return None
    out: list = []
    ok = True

    def walk(node: cst.CSTNode) -> None:
        nonlocal ok
        if not ok:
            return
        if isinstance(node, cst.Attribute):
            path = []
            base = node
            while isinstance(base, cst.Attribute):
                path.append(base.attr.value)
                base = base.value
            if isinstance(base, cst.Name):
                if base.value != func.self_name and ctx.binding_kind(base, func) == "param":
                    out.append([base.value, path[::-1]])
                elif base.value == func.self_name and ctx.binding_kind(base, func) == "self":
                    out.append([base.value, path[::-1]])
                return
            walk(base)
            return
        if isinstance(node, cst.Name):
            if ctx.binding_kind(node, func) in ("param", "self"):
                ok = False
            return
        for child in node.children:
            walk(child)

    walk(expr)
    walk = None  # the closure refers to itself: a cycle holding `func`'s tree until a collection
    return out if ok else None


# Project phase ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Store:
    """What a store in staged code writes, in NNX's terms.

    `kind`: "variable" (into a Variable's value), "rebind" (an attribute of an NNX node is
    rebound: `attribute` says what it held), "container" (an in-place change of a static list or
    dict held by a node), or "unknown". `owner` is the node's class, `attr` the attribute."""

    kind: str
    attribute: str = ""
    owner: str = ""
    attr: str = ""
    hijax: bool = False


UNKNOWN = Store("unknown")


class NnxModel:
    """The project's NNX classes and their attributes; one per `staging.Project`."""

    def __init__(self, project):
        self.project = project
        self._attrs: dict[str, dict[str, set[str]]] | None = None
        self._kinds: dict[str, str | None] = {}
        self._built: dict[str, list] | None = None
        self._any_hijax: bool | None = None

    @classmethod
    def of(cls, project) -> NnxModel:
        return once(project, "_nnx_model", lambda: cls(project))

    # Classes ------------------------------------------------------------------------------

    def class_kind(self, cls: str) -> str | None:
        """"node" for an NNX graph node class, "variable" for an `nnx.Variable` class, None else."""
        if not cls:
            return None
        if cls in self._kinds:
            return self._kinds[cls]
        kind = None
        if cls in NNX_VARIABLES:
            kind = "variable"
        elif _node_name(cls):
            kind = "node"
        else:
            found = self.project.resolve_class(cls)
            if found is not None:
                name = found[1].qualname
                if self.project.derives(name, NNX_VARIABLES):
                    kind = "variable"
                elif self.project.derives(name, NNX_NODE_BASES):
                    kind = "node"
        self._kinds[cls] = kind
        return kind

    def _index(self) -> dict[str, dict[str, set[str]]]:
        """Class qualified name -> attribute -> the kinds `__init__`-like methods store there."""
        if self._attrs is None:
            index: dict[str, dict[str, set[str]]] = {}
            for name in sorted(self.project.modules):
                for w in self.project.modules[name].attr_writes:
                    if w.on_self and w.in_init and w.owner and w.nnx and not w.augmented:
                        index.setdefault(w.owner, {}).setdefault(w.attr, set()).add(w.nnx)
            self._attrs = index
        return self._attrs

    def attribute(self, cls: str, attr: str, _depth: int = 0) -> str:
        """The kind of `cls`'s attribute `attr`, from its own `__init__` stores or its project
        bases': "variable", "variable:hijax", "node:<class>", "node", "array", "data", "static",
        or "unknown" (stores that disagree, values no store shows)."""
        if _depth > 8:
            return "unknown"
        found = self.project.resolve_class(cls)
        if found is None:
            return "unknown"
        facts = found[1]
        if attr in facts.nnx_fields:
            return facts.nnx_fields[attr]  # declared in the class body: flax applies it to every store
        kinds = self._index().get(facts.qualname, {}).get(attr)
        if kinds:
            resolved = {self._resolve(k, found[0], facts.qualname, attr) for k in kinds}
            return resolved.pop() if len(resolved) == 1 else "unknown"
        for base in facts.bases:
            if self.class_kind(base) == "node" and self.project.resolve_class(base) is not None:
                kind = self.attribute(base, attr, _depth + 1)
                if kind != "unknown":
                    return kind
        return "unknown"

    def _resolve(self, kind: str, module: str, cls: str, attr: str) -> str:
        if kind.startswith("class:"):
            name = kind[6:]
            ck = self.class_kind(name)
            if ck == "variable":
                return "variable"
            if ck == "node":
                found = self.project.resolve_class(name)
                return "node:" + found[1].qualname if found is not None else "node"
            if self.project.resolve_class(name) is not None:
                return "static"  # a plain project class: a static attribute (not registered data)
            return "unknown"
        if kind.startswith("param:"):
            return self._param_kind(module, cls, kind[6:])
        if kind.startswith("alias:"):
            return "unknown" if kind[6:] == attr else self.attribute(cls, kind[6:])
        return kind

    def shares_variables(self, cls: str) -> bool:
        """`self.b = self.a` with `a` a Variable: the object holds one Variable twice. Plain
        `jax.jit` then carries no update of it out, hijax or not (checked with flax 0.12.8)."""
        found = self.project.resolve_class(cls)
        if found is None:
            return False
        for attr, kinds in self._index().get(found[1].qualname, {}).items():
            for k in kinds:
                if k.startswith("alias:") and k[6:] != attr and self.attribute(cls, k[6:]).startswith("variable"):
                    return True
        return False

    def _param_kind(self, module: str, cls: str, param: str) -> str:
        """`self.dim = dim` in `__init__`: what the constructor's callers pass for `dim`, by
        keyword or at its place among the parameters a positional argument binds
        (`FunctionFacts.positional_params`: a keyword-only one past `*args` takes none)."""
        project = self.project
        prefix = cls[len(module) + 1:] if module else cls
        init = project.function((module, f"{prefix}.__init__"))
        if init is None or param not in init.params[1:]:
            return "unknown"
        positional = init.positional_params
        index = positional.index(param) - 1 if param in positional else -1
        args = []
        for site in self._constructions().get(cls, ()):
            arg = site.kwargs.get(param)
            if arg is None and 0 <= index < len(site.args) and not site.star:
                arg = site.args[index]
            if arg is None:
                return "unknown"
            args.append((None, site, arg))
        if not args:
            return "unknown"
        kinds = set()
        for _, _, arg in args:
            if arg.kind == "tensor":
                kinds.add("array")
            elif arg.what in PYTHON_VALUES:
                kinds.add("static")
            else:
                kinds.add("unknown")
        return kinds.pop() if len(kinds) == 1 else "unknown"

    def _constructions(self) -> dict[str, list]:
        """Class qualified name -> the call sites that construct it (`Foo(4, rngs)`)."""
        if self._built is None:
            index: dict[str, list] = {}
            project = self.project
            for name in sorted(project.modules):
                for site in project.modules[name].call_sites:
                    if site.target[0] != "name" or not site.target[1].rsplit(".", 1)[-1][:1].isupper():
                        continue
                    found = project.resolve_class(site.target[1])
                    if found is not None:
                        index.setdefault(found[1].qualname, []).append(site)
            self._built = index
        return self._built

    # Objects functions receive ------------------------------------------------------------

    def object_class(self, key: Key, root_kind: str, root: str) -> str:
        """The class of the object a function reaches through `root` (`self`, or a parameter
        its callers pass an object of a known class for), "" when unknown or not one class."""
        project = self.project
        f = project.function(key)
        if f is None:
            return ""
        if root_kind == "self":
            return f.class_qualname or ""
        if root_kind != "param":
            return ""
        classes = {self._class_near(arg.cls, module) for module, _, arg in project.args_for(key, root)}
        if len(classes) != 1:
            return ""
        (cls,) = classes
        return cls

    def _class_near(self, cls: str, module: str) -> str:
        """A class name as a call site in `module` spells it (`models.Model` from `from models
        import Model`), resolved to the project class it means (`exp1.models.Model`, the one in the
        importer's folder), or kept as it is (a library class, an unknown one)."""
        project = self.project
        if not cls or project.resolve_class(cls) is not None:
            return cls
        found = project.class_near(cls, module)
        return found[1].qualname if found is not None else cls

    def any_hijax(self) -> bool:
        if self._any_hijax is None:
            self._any_hijax = any(m.nnx_hijax for m in self.project.modules.values())
        return self._any_hijax

    def hijax(self, key: Key) -> bool:
        """The function's module, or a module calling it, makes hijax Variables."""
        project = self.project
        modules = {key[0]} | {m for m, _ in project.call_sites.get(key, ())}
        return any(project.modules[m].nnx_hijax for m in modules if m in project.modules)

    def store(self, key: Key, root_kind: str, root: str, path: list[str], how: str) -> Store:
        """What a store through `root` (`self` or a parameter) at `path` writes."""
        cls = self.object_class(key, root_kind, root)
        kind = self.class_kind(cls)
        if kind is None:
            return Store("unknown", hijax=self.hijax(key))
        hijax = self.hijax(key)
        # an object holding one Variable under two names carries no update out of plain `jax.jit`
        shared = kind == "node" and self.shares_variables(cls)
        owner = cls
        for i, attr in enumerate(path):
            if kind == "variable":
                if attr not in NNX_VARIABLE_VALUES:
                    return UNKNOWN
                return Store("variable", hijax=hijax and not shared)
            found = self.attribute(owner, attr)
            last = i == len(path) - 1
            if last and how == "attr":
                return Store("rebind", found, owner, attr, (hijax or found == "variable:hijax") and not shared)
            if found.startswith("variable"):
                kind, hijax = "variable", hijax or found == "variable:hijax"
            elif found.startswith("node:"):
                kind, owner = "node", found[5:]
                shared = shared or self.shares_variables(owner)
            elif found == "static" and last:
                return Store("container", found, owner, attr)
            else:
                return UNKNOWN
        if kind == "variable" and how in ("item", "method"):
            return Store("variable", hijax=hijax and not shared)
        return UNKNOWN

    def traced_attributes(self, key: Key, reads: list) -> bool:
        """Some [param, path] read is a Variable, an array or `nnx.data` of an NNX node, or reads
        an array the callers pass (`x.sum() > 0`)."""
        f = self.project.function(key)
        for root, path in reads:
            root_kind = "self" if f is not None and f.class_qualname and f.params[:1] == [root] else "param"
            owner = self.object_class(key, root_kind, root)
            if self.class_kind(owner) != "node":
                args = self.project.args_for(key, root) if root_kind == "param" else []
                if args and all(arg.kind == "tensor" for _, _, arg in args):
                    return True
                continue
            for attr in path:
                found = self.attribute(owner, attr)
                if found.startswith("variable") or found in ("array", "data"):
                    return True
                if not found.startswith("node:"):
                    break
                owner = found[5:]
        return False

    def static_attributes(self, key: Key, reads: list) -> bool:
        """Every [param, path] read is a static attribute of an NNX node the function receives
        (`model.dim` with `self.dim = 4` in `Model.__init__`): a Python value under any jit."""
        if not reads:
            return False
        for root, path in reads:
            f = self.project.function(key)
            root_kind = "self" if f is not None and f.class_qualname and f.params[:1] == [root] else "param"
            cls = self.object_class(key, root_kind, root)
            if self.class_kind(cls) != "node" or not path:
                return False
            owner = cls
            for attr in path:
                found = self.attribute(owner, attr)
                if found == "static":
                    break
                if not found.startswith("node:"):
                    return False
                owner = found[5:]
            else:
                return False
        return True


# What the rules ask ------------------------------------------------------------------------------


def _store_of(candidate, project, key) -> Store:
    fields = candidate.fields
    path, how = fields.get("_nnx") or ([], "")
    if not how and fields.get("_root") != "param":
        return UNKNOWN
    return NnxModel.of(project).store(key, fields.get("_root"), fields.get("_root_name", ""), path, how)


def writes_variable(candidate, project, key) -> bool:
    """The store writes into an NNX Variable the function receives (`counter.count[...] += 1`):
    module state, meant to outlive the call."""
    return _store_of(candidate, project, key).kind == "variable"


def writes_module_state(candidate, project, key) -> bool:
    """The store changes a Flax NNX module or Variable the caller holds: a Variable's value, an
    attribute of a module (rebound, or a static list or dict changed in place), or a Variable the
    function captures. Under plain `jax.jit` the change stays in the trace (row 41: the
    caller's counter stays 0), which `store_carried` has already ruled out where JAX carries it."""
    if candidate.fields.get("_nnx_captured"):
        return True
    return _store_of(candidate, project, key).kind in ("variable", "rebind", "container")


def store_carried(candidate, project, key) -> bool:
    """A store on a module or Variable the function receives (STG102, STG201 candidates) that
    JAX keeps: anything but an in-place change of a static list or dict under the Flax NNX
    transforms (they carry the modules' updates out of the trace; a Python attribute changed
    on every call is STG501's), and a hijax Variable's update under plain `jax.jit` (passed in
    or captured: `jax.grad` and `lax.scan` bodies carry it out too)."""
    root = candidate.fields.get("_root")
    if candidate.fields.get("_nnx_captured") == "hijax":
        return True  # a captured hijax Variable: its update propagates out of any trace
    if root not in ("param", "self"):
        return False
    if key not in project.jax.nnx_only and not NnxModel.of(project).any_hijax():
        return False  # (cheap: TensorFlow code, and JAX code without hijax Variables)
    store = _store_of(candidate, project, key)
    if key in project.jax.nnx_only:
        return store.kind != "container"  # `model.history.append(x)`: runs once, at trace time
    if store.hijax and store.kind in ("variable", "unknown") and root == "param":
        return True  # hijax Variables propagate their updates out of plain `jax.jit` too
    return False


def python_attribute_retrace(candidate, project, key):
    """STG501 for `model.steps += 1` under `nnx.jit`: a static attribute of an NNX module that
    changes on every call keys a new trace each time (row 42). Message fields, or False."""
    if key not in project.jax.nnx_only:
        return False  # plain `jax.jit`: the change is lost (STG102)
    store = _store_of(candidate, project, key)
    if store.kind != "rebind" or store.attribute != "static":
        return False
    owner = store.owner.rsplit(".", 1)[-1]
    attr = store.attr
    return {
        "jax_what": f"{candidate.fields.get('action', '')} changes `{attr}`, a plain Python attribute of the "
                    f"Flax NNX module `{owner}` (static: part of the graph definition nnx.jit caches on)",
        "jax_instead": f"keep it in an `nnx.Variable` (`self.{attr} = nnx.Variable(...)` in `__init__`, "
                       f"updated as `{candidate.fields.get('_root_name', 'self')}.{attr}[...] += 1`)",
    }


def static_attributes(project, key, reads) -> bool:
    """STG602: the tested value reads only static attributes of Flax NNX modules the function
    receives (`if model.dim == 4`), or, under the NNX transforms, attributes of modules none of
    which is known to be traced (a Variable, an array,
    `nnx.data`): a config object set from an argument no caller shows is static there too."""
    if not reads:
        return False
    model = NnxModel.of(project)
    if model.static_attributes(key, reads):
        return True
    if key in project.jax.nnx_only:
        return not model.traced_attributes(key, reads)
    return False


def static_container(candidate, project, key) -> bool:
    """`model.history.append(x)`: an in-place change of a static list or dict a Flax NNX module
    holds (the same object on every call, changed once, at trace time)."""
    return candidate.fields.get("_root") in ("param", "self") and _store_of(candidate, project, key).kind == "container"
