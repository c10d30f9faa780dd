"""Why each trace happened (parent side, from the graph run's records; no framework imported).

A staged function traces when its cache has no entry for the call's key: the function object (each
`tf.function(f)` / `jax.jit(f)` has its own cache), and per argument the tensor's shape and dtype,
a Python value, or an object's identity. The recorder writes each call's argument summaries, its
function object (`obj`) and, for a method, the instance it is bound to (`inst`); this module
compares each trace's signature with the signatures the same object was called with before and
names what changed: "trace 4 of `train_step`: `x` shape (32, 17) → (32, 23)". For JAX the recorder
also keeps what `jax_explain_cache_misses` said (`why`), used when no recorded summary changed.

`causes` groups a function's retraces by cause, with the framework's remedy, for STG902.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from stagelint.runtime.records import Call

#: Kinds of argument summaries that are tensors / arrays (their spec is the cache key).
SPEC_KINDS = ("tensor", "var", "array")
PY_KINDS = ("py", "seq", "map")

_SPEC = re.compile(r"(?:tracer |Variable |ndarray )?([A-Za-z]\w*)\[([\d?,]*)\]")


@dataclass(frozen=True)
class Change:
    """One difference between a trace's signature and the closest earlier one of the same object."""

    #: shape, dtype, value, identity, structure (a container's summary changed otherwise).
    kind: str
    arg: str
    before: str
    after: str
    #: For a shape change: the dimensions that differ (0-based); the rank when the rank changed.
    dims: tuple[int, ...] = ()
    rank: int | None = None
    #: For a change inside a list/tuple/dict argument: which item ("item 0").
    item: str = ""

    def text(self) -> str:
        where = f"`{self.arg}`" + (f" {self.item}" if self.item else "")
        if self.kind == "shape":
            return f"{where} shape {self.before} → {self.after}"
        if self.kind == "dtype":
            return f"{where} dtype {self.before} → {self.after}"
        if self.kind == "value":
            return f"{where} Python value {self.before} → {self.after}"
        if self.kind == "identity":
            return f"{where} a different {self.after} object (compared by identity)"
        return f"{where} {self.before} → {self.after}"


@dataclass
class Trace:
    """One trace of a staged function in the graph run."""

    call: Call
    #: 1-based, over all the function's traces in the run.
    number: int
    #: first, object (a new function object), instance (the first call on a new instance of a
    #: method), changed (an argument changed), within-call (the same call traced again), jax (JAX's
    #: explanation only), unexplained.
    cause: str
    changes: list[Change] = field(default_factory=list)
    why: str = ""
    #: How many function objects made from this code the calls had reached (for `object`).
    objects: int = 0

    def reason(self) -> str:
        if self.cause == "first":
            return "first trace"
        if self.cause == "object":
            return f"a new function object made from the same code (the {_ordinal(self.objects)})"
        if self.cause == "instance":
            return "first call on a new instance (each instance has its own function object)"
        if self.cause == "within-call":
            return ("traced again within the same call (a function that creates variables traces twice; "
                    "a recursive one once per level)")
        if self.cause == "changed":
            text = "; ".join(c.text() for c in self.changes)
            # JAX's words add to an identity or structure change, not to a shape or value it repeats.
            plain = all(c.kind in ("shape", "dtype", "value") for c in self.changes)
            return text + (f" (JAX: {self.why})" if self.why and not plain else "")
        if self.cause == "jax":
            return f"JAX: {self.why}"
        return "no recorded argument changed (captured Python state, or an argument the recorder does not see)"

    def text(self, name: str) -> str:
        return f"trace {self.number} of `{name}`: {self.reason()}"


def format_values(values: list[str]) -> str:
    """`0..5` for a run of consecutive ints, else the first few values."""
    try:
        ints = [int(v) for v in values]
    except ValueError:
        ints = None
    if ints is not None and len(ints) >= 3 and sorted(ints) == list(range(min(ints), max(ints) + 1)):
        return f"{min(ints)}..{max(ints)}"
    shown = ", ".join(values[:6])
    return shown + (", ..." if len(values) > 6 else "")


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def _specs(text: str) -> list[tuple[str, tuple[str, ...]]]:
    return [(m.group(1), tuple(d for d in m.group(2).split(",") if d)) for m in _SPEC.finditer(text)]


def _shape(dims: tuple[str, ...]) -> str:
    return "(" + ", ".join(dims) + ("," if len(dims) == 1 else "") + ")"


def _spec_changes(arg: str, before: str, after: str, item: str = "") -> list[Change]:
    """Shape and dtype changes between two spec texts (`float32[32,17]`), or [] if they are not specs."""
    b, a = _specs(before), _specs(after)
    if len(b) != 1 or len(a) != 1:
        return []
    (bdt, bdims), (adt, adims) = b[0], a[0]
    out = []
    if bdt != adt:
        out.append(Change("dtype", arg, bdt, adt, item=item))
    if bdims != adims:
        if len(bdims) == len(adims):
            dims = tuple(i for i, (x, y) in enumerate(zip(bdims, adims)) if x != y)
            out.append(Change("shape", arg, _shape(bdims), _shape(adims), dims, len(adims), item))
        else:
            out.append(Change("shape", arg, _shape(bdims), _shape(adims), (), len(adims), item))
    return out


def _container_changes(arg: str, before: dict, after: dict) -> list[Change]:
    """Changes inside a list/tuple/dict argument, item by item when its items are specs."""
    b, a = _specs(before["s"]), _specs(after["s"])
    if b and len(b) == len(a) and re.sub(_SPEC, "#", before["s"]) == re.sub(_SPEC, "#", after["s"]):
        out = []
        for i, ((bdt, bdims), (adt, adims)) in enumerate(zip(b, a)):
            out += _spec_changes(arg, f"{bdt}[{','.join(bdims)}]", f"{adt}[{','.join(adims)}]", f"item {i}")
        if out:
            return out
    return [Change("structure", arg, before["s"], after["s"])]


def _arg_changes(name: str, before: dict | None, after: dict) -> list[Change]:
    if before is None:
        return [Change("structure", name, "absent", after["s"])]
    if before.get("s") == after.get("s"):
        if after.get("k") == "obj" and before.get("o") is not None and before.get("o") != after.get("o"):
            return [Change("identity", name, before["s"], after["s"])]
        return []
    bk, ak = before.get("k"), after.get("k")
    if bk in SPEC_KINDS and ak in SPEC_KINDS:
        return _spec_changes(name, before["s"], after["s"]) or [Change("structure", name, before["s"], after["s"])]
    if bk == ak == "py":
        return [Change("value", name, before["s"], after["s"])]
    if bk in ("seq", "map") and ak == bk:
        return _container_changes(name, before, after)
    return [Change("structure", name, before["s"], after["s"])]


def _diff(before: list[tuple[str, dict]], after: list[tuple[str, dict]]) -> list[Change]:
    old = dict(before)
    out = []
    for name, s in after:
        out += _arg_changes(name, old.get(name), s)
    return out


def explain(calls: list[Call], method: bool = False) -> list[Trace]:
    """Every trace of one staged function's graph-run calls (in run order), with why it happened."""
    traces: list[Trace] = []
    seen: dict[int, list[list[tuple[str, dict]]]] = {}
    instances: set = set()
    objects = 0
    for call in calls:
        signatures = seen.get(call.obj)
        new_object = signatures is None
        if new_object:
            signatures = seen[call.obj] = []
            objects += 1
        inst = call.inst
        for n in range(call.traced):
            number = len(traces) + 1
            if n > 0:
                traces.append(Trace(call, number, "within-call"))
            elif not traces:
                traces.append(Trace(call, number, "first"))
            elif new_object:
                if method and inst is not None and inst not in instances:
                    traces.append(Trace(call, number, "instance"))
                elif method and inst is None:
                    traces.append(Trace(call, number, "instance"))
                else:
                    traces.append(Trace(call, number, "object", objects=objects))
            else:
                traces.append(_changed(call, number, signatures))
        if inst is not None:
            instances.add(inst)
        signatures.append(call.args)
    return traces


def _changed(call: Call, number: int, signatures: list[list[tuple[str, dict]]]) -> Trace:
    """A retrace on an object already called: the changes from the closest earlier signature."""
    why = call.why[0] if call.why else ""
    best: list[Change] | None = None
    for earlier in reversed(signatures):
        changes = _diff(earlier, call.args)
        if best is None or len(changes) < len(best):
            best = changes
    if best:
        return Trace(call, number, "changed", best, why)
    if why:
        return Trace(call, number, "jax", why=why)
    return Trace(call, number, "unexplained")


# Causes and remedies (STG902) ---------------------------------------------------------------------


@dataclass
class Cause:
    kind: str  # shape, dtype, value, identity, structure, object, jax, unexplained
    arg: str = ""
    traces: int = 0
    dims: set[int] = field(default_factory=set)
    #: The latest shape seen (dimension sizes as text), for the input_signature remedy.
    shape: tuple[str, ...] | None = None
    dtype: str = ""
    values: list[str] = field(default_factory=list)

    def text(self, jax: bool) -> str:
        n = f"{self.traces} retrace{'s' if self.traces != 1 else ''}"
        if self.kind == "shape":
            dims = ", ".join(map(str, sorted(self.dims)))
            where = f" in dimension{'s' if len(self.dims) > 1 else ''} {dims}" if self.dims else " (its rank)"
            return f"{n} from the shape of `{self.arg}` changing{where}: {self.remedy(jax)}"
        if self.kind == "dtype":
            return f"{n} from the dtype of `{self.arg}` changing: cast it to one dtype before the call"
        if self.kind == "value":
            shown = format_values(self.values)
            return f"{n} from the Python value of `{self.arg}` ({shown}): {self.remedy(jax)}"
        if self.kind == "identity":
            return (f"{n} from `{self.arg}` being a new object each time (compared by identity): pass the same "
                    "object, or one whose hash and equality are by value")
        if self.kind == "object":
            return f"{n} from a new function object made from the same code: {self.remedy(jax)}"
        if self.kind == "jax":
            return f"{n} JAX puts down to: {self.values[0]}"
        if self.kind == "structure":
            return f"{n} from the structure of `{self.arg}` changing"
        return f"{n} with no recorded argument change"

    def remedy(self, jax: bool) -> str:
        if self.kind == "shape":
            if jax:
                return f"pad or bucket `{self.arg}` to a few fixed shapes"
            if self.shape is None or not self.dims:
                return "give it an `input_signature` with None where the size varies, or `reduce_retracing=True`"
            dims = ", ".join("None" if (i in self.dims or not self.dims) else d for i, d in enumerate(self.shape))
            return (f"give it `input_signature=[tf.TensorSpec([{dims}], {self.dtype or 'dtype'})]` "
                    "(None where the size varies) or `reduce_retracing=True`")
        if self.kind == "value":
            if jax:
                return "pass it as an array (mark it static only if it takes a few values)"
            return "pass it as a tensor (tf.constant) so that one trace serves every value"
        if self.kind == "object":
            return (f"create it once (`{'jax.jit' if jax else 'tf.function'}` outside the loop or in `__init__`) "
                    "and call that object")
        return ""


def causes(traces: list[Trace]) -> list[Cause]:
    """The retraces (traces after a function object's first) grouped by cause, most traces first."""
    groups: dict[tuple[str, str], Cause] = {}
    for t in traces:
        if t.cause in ("first", "instance", "within-call"):
            continue
        if t.cause == "object":
            keys = [("object", "", None)]
        elif t.cause == "changed":
            keys = [(c.kind, c.arg, c) for c in t.changes]
        elif t.cause == "jax":
            keys = [("jax", "", None)]
            cause = groups.setdefault(("jax", ""), Cause("jax"))
            if t.why not in cause.values:
                cause.values.append(t.why)
        else:
            keys = [("unexplained", "", None)]
        for kind, arg, change in keys:
            cause = groups.setdefault((kind, arg), Cause(kind, arg))
            cause.traces += 1
            if change is not None and change.kind == "shape":
                cause.dims |= set(change.dims)
                spec = _specs(next(s["s"] for n, s in t.call.args if n == change.arg))
                if len(spec) == 1 and not change.item:
                    cause.dtype, cause.shape = f"tf.{spec[0][0]}", spec[0][1]
            if change is not None and change.kind == "value":
                for v in (change.before, change.after):
                    if v not in cause.values:
                        cause.values.append(v)
    return sorted(groups.values(), key=lambda c: -c.traces)
