"""What a staged call's arguments, results and outer places look like in a record (child side).

Summaries are small and JSON-friendly. A Python scalar argument keeps its value (it is part of the
trace key, and it is the evidence for retracing); a tensor keeps its dtype and shape plus a CRC of
its values, so the parent can tell whether both runs really fed the same inputs.
"""

from __future__ import annotations

import inspect
import math
import zlib

import numpy as np
import tensorflow as tf

#: Results up to this many elements are stored in full; larger ones as statistics + a sample.
FULL_LIMIT = 4096
SAMPLE = 1024
#: Hash at most this many bytes of an input tensor.
DIGEST_BYTES = 1 << 20

_SCALARS = (bool, int, float, complex, str, bytes, type(None))


def _spec(dtype, shape) -> str:
    dims = ",".join("?" if d is None else str(d) for d in shape)
    return f"{dtype}[{dims}]"


def _digest(array: np.ndarray) -> int:
    data = np.ascontiguousarray(array).view(np.uint8).reshape(-1)[:DIGEST_BYTES] if array.dtype != object else b""
    return zlib.crc32(bytes(data))


def summarize_arg(value, depth: int = 0) -> dict:
    """{"k": kind, "s": short text, "d": digest?}; kind is py, tensor, var, array, seq, map, obj."""
    if isinstance(value, _SCALARS):
        text = repr(value)
        return {"k": "py", "ty": type(value).__name__, "s": text if len(text) <= 60 else text[:57] + "..."}
    if isinstance(value, tf.Variable):
        shape = value.shape.as_list() if value.shape.rank is not None else []
        return {"k": "var", "s": "Variable " + _spec(value.dtype.name, shape)}
    if isinstance(value, tf.Tensor):
        shape = value.shape.as_list() if value.shape.rank is not None else []
        out = {"k": "tensor", "s": _spec(value.dtype.name, shape)}
        if hasattr(value, "numpy") and value.dtype not in (tf.string, tf.resource, tf.variant):
            try:
                out["d"] = _digest(value.numpy())
            except Exception:  # noqa: BLE001 - some eager tensors (resources) have no host value
                pass
        return out
    if isinstance(value, np.ndarray):
        return {"k": "array", "s": "ndarray " + _spec(value.dtype.name, list(value.shape)), "d": _digest(value)}
    if isinstance(value, np.generic):
        return {"k": "py", "ty": type(value).__name__, "s": repr(value.item())}
    if depth < 2 and isinstance(value, (list, tuple)):
        items = [summarize_arg(v, depth + 1) for v in value[:6]]
        inner = ", ".join(i["s"] for i in items) + (", ..." if len(value) > 6 else "")
        out = {"k": "seq", "s": f"[{inner}]" if isinstance(value, list) else f"({inner})"}
        digests = [i.get("d") for i in items if "d" in i]
        if digests:
            out["d"] = zlib.crc32(repr(digests).encode())
        return out
    if depth < 2 and isinstance(value, dict):
        items = list(value.items())[:6]
        summaries = [(k, summarize_arg(v, depth + 1)) for k, v in items]
        inner = ", ".join(f"{k!r}: {s['s']}" for k, s in summaries) + (", ..." if len(value) > 6 else "")
        return {"k": "map", "s": "{" + inner + "}"}
    return {"k": "obj", "s": type(value).__name__}


class Binder:
    """Names positional arguments after the Python function's parameters (cached per function).

    For a method, tf.function passes the arguments without `self`, so `self` is dropped from
    the signature.
    """

    def __init__(self, func, method: bool = False) -> None:
        try:
            sig = inspect.signature(func)
            if method and sig.parameters:
                sig = sig.replace(parameters=list(sig.parameters.values())[1:])
            self.sig = sig
        except (TypeError, ValueError):
            self.sig = None

    def bind(self, args: tuple, kwargs: dict) -> list[tuple[str, object]]:
        if self.sig is not None:
            try:
                bound = self.sig.bind(*args, **kwargs)
                return list(bound.arguments.items())
            except TypeError:
                pass
        return [(f"arg{i}", a) for i, a in enumerate(args)] + list(kwargs.items())


def _leaf(value) -> dict:
    py = isinstance(value, (bool, int, float, complex, np.generic))
    if isinstance(value, tf.Variable):
        value = value.read_value()
    if isinstance(value, tf.Tensor):
        if not hasattr(value, "numpy"):
            return {"t": "symbolic", "s": str(value)[:100]}
        if value.dtype in (tf.resource, tf.variant):
            return {"t": value.dtype.name}
        value = value.numpy()
    if value is None or isinstance(value, (str, bytes)):
        return {"t": "text", "v": [repr(value)]}
    if not (py or isinstance(value, (np.ndarray, np.generic))):
        return {"t": "obj", "v": type(value).__name__}
    array = np.asarray(value)
    out = {"t": "num", "dt": array.dtype.name, "sh": list(array.shape)}
    if py:
        out["py"] = True
    if array.dtype.kind in "OSUV":
        flat = [repr(x) for x in array.reshape(-1)[:FULL_LIMIT].tolist()]
        out.update(t="text", v=flat)
        return out
    if array.dtype.kind == "c":
        array = np.abs(array)
    if array.size <= FULL_LIMIT:
        out["v"] = _jsonable(array.reshape(-1).tolist())
    else:
        flat = array.reshape(-1).astype(np.float64)
        finite = flat[np.isfinite(flat)]
        stats = [float(finite.sum()), float(np.abs(finite).sum()), float(finite.min()) if finite.size else 0.0,
                 float(finite.max()) if finite.size else 0.0, int(flat.size - finite.size)]
        step = max(1, flat.size // SAMPLE)
        out["st"] = stats
        out["smp"] = _jsonable(flat[::step][:SAMPLE].tolist())
    return out


def _jsonable(values: list) -> list:
    # JSON has no NaN/inf; keep them as strings the parent turns back into floats.
    return [v if not isinstance(v, float) or math.isfinite(v) else repr(v) for v in values]


def _flatten(value, depth: int = 0) -> list:
    """Leaves of a result. An Optional (what Keras 3's train function returns) is opened, and
    composite tensors (ragged, sparse) are split into their component tensors."""
    if isinstance(value, tf.experimental.Optional) and depth < 3:
        return _flatten(value.get_value() if bool(value.has_value()) else None, depth + 1)
    try:
        leaves = tf.nest.flatten(value, expand_composites=True)
    except Exception:  # noqa: BLE001 - exotic structures: summarise the object as one leaf
        return [value]
    if any(isinstance(v, tf.experimental.Optional) for v in leaves) and depth < 3:
        return [x for v in leaves for x in _flatten(v, depth + 1)]
    return leaves


def summarize_result(result) -> list[dict]:
    return [_leaf(v) for v in _flatten(result)[:64]]


def is_symbolic(value) -> bool:
    return type(value).__name__ == "SymbolicTensor" or (isinstance(value, tf.Tensor) and not hasattr(value, "numpy"))


_OPAQUE = (type, tf.Variable, tf.Tensor, np.ndarray, type(inspect))


def _scan(value, where: str, found: list, depth: int) -> None:
    if len(found) >= 10:
        return
    if is_symbolic(value):
        found.append({"where": where, "tensor": str(value)[:120]})
        return
    if depth <= 0:
        return
    if isinstance(value, (list, tuple)):
        for i, item in enumerate(value[:100]):
            _scan(item, f"{where}[{i}]", found, depth - 1)
    elif isinstance(value, dict):
        for key, item in list(value.items())[:100]:
            _scan(item, f"{where}[{key!r}]", found, depth - 1)
    elif hasattr(value, "__dict__") and not isinstance(value, _OPAQUE) and not inspect.isroutine(value):
        try:
            attrs = list(vars(value).items())[:100]
        except TypeError:
            return
        for key, item in attrs:
            if not key.startswith("__"):
                _scan(item, f"{where}.{key}", found, depth - 1)


def _names(code) -> set[str]:
    names = set(code.co_names)
    for const in code.co_consts:
        if inspect.iscode(const):
            names |= _names(const)
    return names


def find_leaks(func, instance, bound_args: list[tuple[str, object]]) -> list[dict]:
    """Symbolic tensors left after a graph call in the places the function can write to."""
    found: list[dict] = []
    code = getattr(func, "__code__", None)
    if code is not None:
        module_globals = getattr(func, "__globals__", {})
        for name in sorted(_names(code)):
            if name in module_globals:
                _scan(module_globals[name], f"global `{name}`", found, 2)
        for name, cell in zip(code.co_freevars, getattr(func, "__closure__", None) or ()):
            try:
                _scan(cell.cell_contents, f"closure `{name}`", found, 2)
            except ValueError:  # empty cell
                pass
    if instance is not None:
        _scan(instance, "`self`", found, 2)
    for name, value in bound_args:
        if isinstance(value, (list, dict)) or hasattr(value, "__dict__"):
            _scan(value, f"argument `{name}`", found, 2)
    return found


# Ops that draw from hidden state: their numbers differ between a graph and an eager run even with
# the same seeds. Stateless ops (StatelessRandom*) are deterministic and are compared by value.
# `StatefulPartitionedCall` is only a call of another function, whose ops are checked themselves.
STATEFUL_RANDOM_PREFIXES = ("Random", "StatefulUniform", "StatefulStandardNormal", "StatefulTruncatedNormal",
                            "StatefulRandom")
# tf.timestamp() reads the clock on every call: as legitimately different between runs as a draw.
STATEFUL_RANDOM_OPS = frozenset({"TruncatedNormal", "ParameterizedTruncatedNormal", "Multinomial",
                                 "RngReadAndSkip", "RngSkip", "NonDeterministicInts", "Timestamp"})


def is_stateful_random(op: str) -> bool:
    return op in STATEFUL_RANDOM_OPS or op.startswith(STATEFUL_RANDOM_PREFIXES)


def has_stateful_random(concrete) -> bool:
    """Whether a concrete function's graph (or any function it calls) holds stateful random ops."""
    try:
        graph_def = concrete.graph.as_graph_def()
    except Exception:  # noqa: BLE001
        return False
    ops = {n.op for n in graph_def.node}
    for fn in graph_def.library.function:
        ops.update(n.op for n in fn.node_def)
    return any(is_stateful_random(op) for op in ops)
