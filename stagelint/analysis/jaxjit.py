"""What `jax.jit` is told about its arguments, read from the source: static and donated positions.

A jitted callable is made by a decorator (`@jax.jit`, `@functools.partial(jax.jit,
static_argnums=1)`), by a call (`step = jax.jit(f, donate_argnums=0)`) or by a partial applied
later (`jit_static = functools.partial(jax.jit, static_argnums=1)`, then `jit_static(f)`). The
rules about call sites (STG203 use after donation, STG504/STG505 static arguments) need, for the
callee of a call, which of its parameters are static and which are donated. The callee is often
defined in another module, so each file records its jitted callables as plain data in a
candidate that never stands by itself (`record`); the project phase gathers them into one table
(`table`) and the rules' `confirm` look their callee up there.

Spec values are literal (`static_argnums=(1, 2)`, `donate_argnames="state"`): a spec computed at
run time is unknown, and a rule then stays silent.
"""

from __future__ import annotations

import libcst as cst

from stagelint.analysis import facts as F
from stagelint.analysis.memo import once

#: Jitting transforms, by qualified name -> (static positions keyword, static names keyword).
JIT_TRANSFORMS = {
    "jax.jit": ("static_argnums", "static_argnames"),
    "jax.pmap": ("static_broadcasted_argnums", None),
}
PARTIALS = frozenset({"functools.partial"})
_SPEC_KEYWORDS = ("static_argnums", "static_argnames", "donate_argnums", "donate_argnames",
                  "static_broadcasted_argnums")


def _ints(expr: cst.BaseExpression) -> list[int] | None:
    """A literal int or tuple/list of ints (`1`, `(0, 2)`, `-1`), else None."""
    if isinstance(expr, cst.Integer):
        return [int(expr.value, 0)]
    if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Minus) and isinstance(expr.expression, cst.Integer):
        return [-int(expr.expression.value, 0)]
    if isinstance(expr, (cst.Tuple, cst.List)):
        out = []
        for el in expr.elements:
            if isinstance(el, cst.StarredElement):
                return None
            got = _ints(el.value)
            if got is None or len(got) != 1:
                return None
            out += got
        return out
    return None


def _strs(expr: cst.BaseExpression) -> list[str] | None:
    if isinstance(expr, cst.SimpleString):
        value = expr.evaluated_value
        return [value] if isinstance(value, str) else None
    if isinstance(expr, (cst.Tuple, cst.List)):
        out = []
        for el in expr.elements:
            if isinstance(el, cst.StarredElement) or not isinstance(el.value, cst.SimpleString):
                return None
            out += _strs(el.value) or []
        return out
    return None


def _keywords(call: cst.Call, kinds: tuple[str | None, str | None]) -> dict | None:
    """The spec keywords of a jit call, as {"static": [...], "static_names": [...], "donate": [...],
    "donate_names": [...]}; None when a spec is not literal (`**options`, a variable)."""
    static_pos, static_names = kinds
    spec: dict = {"static": [], "static_names": [], "donate": [], "donate_names": [], "nodes": {}}
    for arg in call.args:
        if arg.star:
            return None
        if arg.keyword is None:
            continue
        kw = arg.keyword.value
        if kw not in _SPEC_KEYWORDS:
            continue
        if kw in (static_pos, "donate_argnums"):
            values = _ints(arg.value)
            key = "static" if kw == static_pos else "donate"
        elif kw in (static_names, "donate_argnames"):
            values = _strs(arg.value)
            key = "static_names" if kw == static_names else "donate_names"
        else:
            continue
        if values is None:
            return None
        spec[key] += values
        spec["nodes"][key] = arg
    return spec


def jit_of(ctx, expr: cst.BaseExpression, partials: dict | None = None):
    """When `expr` makes a jitted callable or a jit decorator, (transform, spec, wrapped expr or
    None); else None. Recognises `jax.jit`, `jax.jit(f, ...)`, `jax.jit(**spec)` (a decorator
    factory), `functools.partial(jax.jit, ...)`, and names bound in the file to such a partial
    (`partials`: qualified name -> (transform, spec))."""
    names = ctx.qualified_names(expr) if isinstance(expr, (cst.Name, cst.Attribute)) else set()
    for q in names:
        if q in JIT_TRANSFORMS:
            return q, _empty(), None
        if partials and q in partials:
            return partials[q][0], partials[q][1], None
    if not isinstance(expr, cst.Call):
        return None
    func_names = ctx.qualified_names(expr.func)
    positional = [a for a in expr.args if a.keyword is None and not a.star]
    for q in func_names:
        if q in JIT_TRANSFORMS:
            spec = _keywords(expr, JIT_TRANSFORMS[q])
            return None if spec is None else (q, spec, positional[0].value if positional else None)
        if partials and q in partials:  # `jit_static(f)`
            base_transform, base = partials[q]
            return base_transform, base, positional[0].value if positional else None
    if func_names & PARTIALS and positional:
        inner = ctx.qualified_names(positional[0].value)
        for q in inner:
            if q in JIT_TRANSFORMS:
                spec = _keywords(expr, JIT_TRANSFORMS[q])
                if spec is None:
                    return None
                wrapped = positional[1].value if len(positional) > 1 else None
                return q, spec, wrapped
    return None


def _empty() -> dict:
    return {"static": [], "static_names": [], "donate": [], "donate_names": [], "nodes": {}}


def signature(params: cst.Parameters, method: bool = False) -> dict:
    positional = [p.name.value for p in (*params.posonly_params, *params.params)]
    return {
        "params": positional,
        "kwonly": [p.name.value for p in params.kwonly_params],
        "star": isinstance(params.star_arg, cst.Param),
        "kwstar": params.star_kwarg is not None,
        "method": method,
    }


def resolve_spec(spec: dict, sig: dict | None) -> dict:
    """Positions and names of static and donated parameters, each filled from the other through
    the signature where it is known (as `jax.jit` does with `inspect.signature`)."""
    out = {"static": sorted(set(spec["static"])), "static_names": sorted(set(spec["static_names"])),
           "donate": sorted(set(spec["donate"])), "donate_names": sorted(set(spec["donate_names"]))}
    if sig is not None:
        params = sig["params"]
        for pos_key, name_key in (("static", "static_names"), ("donate", "donate_names")):
            names = set(out[name_key])
            positions = set(out[pos_key])
            for i in list(positions):
                j = i + len(params) if i < 0 else i
                if 0 <= j < len(params):
                    names.add(params[j])
            for n in list(names):
                if n in params:
                    positions.add(params.index(n))
            out[pos_key] = sorted(p for p in positions if p >= 0)
            out[name_key] = sorted(names)
        out.update(sig)
    return out


def record(ctx, rule_code: str, node: cst.CSTNode, name: str, spec: dict) -> None:
    """Keep a jitted callable's spec in the file's facts, for the project phase (`table`). The
    candidate has no function and no anchor, so it never stands as a finding itself."""
    data = {k: v for k, v in spec.items() if k != "nodes"}
    ctx.facts.candidates.append(F.Candidate(rule_code, None, ctx.position(node), {"_jit": [name, data]}))


def table(project) -> dict:
    """(module, qualified name in it) -> resolved spec, for every jitted callable of the project."""
    return once(project, "_jaxjit_table", lambda: _table(project))


def _table(project) -> dict:
    out: dict = {}
    for m in project.modules.values():
        for c in m.candidates:
            rec = c.fields.get("_jit")
            if rec:
                name, data = rec
                prior = out.get((m.module, name))
                out[(m.module, name)] = data if prior is None else _merge(prior, data)
    return out


def _merge(a: dict, b: dict) -> dict:
    out = dict(a)
    for k in ("static", "static_names", "donate", "donate_names"):
        out[k] = sorted(set(a.get(k, ())) | set(b.get(k, ())))
    for k, v in b.items():
        out.setdefault(k, v)
    return out


def lookup(project, module: str, callee: list[str]) -> dict | None:
    """The spec of the callee a call site names (its absolute qualified names)."""
    specs = table(project)
    if not specs:
        return None
    for q in callee:
        split = project.split_qualified(q, module)
        if split is not None and split in specs:
            return specs[split]
        key = project.resolve(module, ("name", q))
        if key is not None and key in specs:
            return specs[key]
    return None


def shifted(spec: dict, index: int | None, through_attribute: bool) -> int | None:
    """The position among the def's parameters of a call's positional argument: one further for
    a method called through an instance (`obj.step(x)`: `self` is bound)."""
    if index is not None and through_attribute and spec.get("method"):
        return index + 1
    return index


def bound_parameter(spec: dict, index: int | None, keyword: str | None) -> str | None:
    """The parameter an argument fills (`index` for positional, `keyword` otherwise), by name
    when the signature is known, else as "#index" / the keyword."""
    params = spec.get("params")
    if keyword is not None:
        return keyword
    if params is not None and index < len(params):
        return params[index]
    return f"#{index}"


def is_static(spec: dict, index: int | None, keyword: str | None) -> bool:
    if keyword is not None:
        return keyword in spec["static_names"]
    return index in spec["static"]


def is_donated(spec: dict, index: int | None, keyword: str | None) -> bool:
    if keyword is not None:
        return keyword in spec["donate_names"]
    return index in spec["donate"]
