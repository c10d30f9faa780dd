"""Record summaries that need only numpy: shared by the TensorFlow and the JAX recorders.

A JAX-only test run must not import TensorFlow (nor a TensorFlow run JAX), so what both recorders
write the same way lives here: argument names, value digests, numeric result leaves, and the scan
of the places a staged function can write to.
"""

from __future__ import annotations

import inspect
import math
import zlib

import numpy as np

#: Results up to this many elements are stored in full; larger ones as statistics + a sample.
FULL_LIMIT = 4096
SAMPLE = 1024
#: Hash at most this many bytes of an input tensor.
DIGEST_BYTES = 1 << 20

SCALARS = (bool, int, float, complex, str, bytes, type(None))


def spec_text(dtype, shape) -> str:
    dims = ",".join("?" if d is None else str(d) for d in shape)
    return f"{dtype}[{dims}]"


def digest(array: np.ndarray) -> int:
    data = np.ascontiguousarray(array).view(np.uint8).reshape(-1)[:DIGEST_BYTES] if array.dtype != object else b""
    return zlib.crc32(bytes(data))


def summarize_scalar(value) -> dict:
    text = repr(value)
    return {"k": "py", "ty": type(value).__name__, "s": text if len(text) <= 60 else text[:57] + "..."}


def summarize_container(value, depth: int, summarize) -> dict | None:
    """A list/tuple/dict argument summarised item by item with `summarize`; None for other values."""
    if depth < 2 and isinstance(value, (list, tuple)):
        items = [summarize(v, depth + 1) for v in value[:6]]
        inner = ", ".join(i["s"] for i in items) + (", ..." if len(value) > 6 else "")
        out = {"k": "seq", "s": f"[{inner}]" if isinstance(value, list) else f"({inner})"}
        digests = [i.get("d") for i in items if "d" in i]
        if digests:
            out["d"] = zlib.crc32(repr(digests).encode())
        return out
    if depth < 2 and isinstance(value, dict):
        items = list(value.items())[:6]
        summaries = [(k, summarize(v, depth + 1)) for k, v in items]
        inner = ", ".join(f"{k!r}: {s['s']}" for k, s in summaries) + (", ..." if len(value) > 6 else "")
        return {"k": "map", "s": "{" + inner + "}"}
    return None


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


def is_python_number(value) -> bool:
    return isinstance(value, (bool, int, float, complex, np.generic))


def numeric_leaf(value, py: bool | None = None) -> dict:
    """A result leaf that is a host value: None/str/bytes, a Python or numpy number, an array.
    `py`: the value was a Python number before it was brought to the host (default: it is one now)."""
    py = is_python_number(value) if py is None else py
    if value is None or isinstance(value, (str, bytes)):
        return {"t": "text", "v": [repr(value)]}
    if not (py or isinstance(value, (np.ndarray, np.generic))):
        return {"t": "obj", "v": type(value).__name__}
    array = np.asarray(value)
    out = {"t": "num", "dt": array.dtype.name, "sh": list(array.shape)}
    if py:
        out["py"] = True
    if array.dtype.kind == "V" and array.dtype.name.startswith(("bfloat", "float", "int", "uint")):
        # ml_dtypes' formats (bfloat16, float8_*, int4) are numpy "void" types: their values go
        # out as float64 / int64, exactly, under their own dtype name.
        array = array.astype(np.float64 if "float" in array.dtype.name else np.int64)
    if array.dtype.kind in "OSUV":
        flat = [repr(x) for x in array.reshape(-1)[:FULL_LIMIT].tolist()]
        out.update(t="text", v=flat)
        return out
    if array.dtype.kind == "c":
        # Real and imaginary parts side by side (the last axis of a float view): a phase that
        # differs is a different result, however equal the magnitudes.
        out["cx"] = True
        array = np.stack([array.real, array.imag], axis=-1)
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


def _scan(value, where: str, found: list, depth: int, is_staged, opaque: tuple) -> None:
    if len(found) >= 10:
        return
    if is_staged(value):
        found.append({"where": where, "tensor": str(value)[:120]})
        return
    if depth <= 0:
        return
    if isinstance(value, (list, tuple)):
        for i, item in enumerate(value[:100]):
            _scan(item, f"{where}[{i}]", found, depth - 1, is_staged, opaque)
    elif isinstance(value, dict):
        for key, item in list(value.items())[:100]:
            _scan(item, f"{where}[{key!r}]", found, depth - 1, is_staged, opaque)
    elif hasattr(value, "__dict__") and not isinstance(value, opaque) and not inspect.isroutine(value):
        try:
            attrs = list(vars(value).items())[:100]
        except TypeError:
            return
        for key, item in attrs:
            if not key.startswith("__"):
                _scan(item, f"{where}.{key}", found, depth - 1, is_staged, opaque)


def _names(code) -> set[str]:
    names = set(code.co_names)
    for const in code.co_consts:
        if inspect.iscode(const):
            names |= _names(const)
    return names


def find_staged_values(func, instance, bound_args: list[tuple[str, object]], is_staged,
                       opaque: tuple = ()) -> list[dict]:
    """Staged values (`is_staged`: a symbolic tensor, a tracer) left after a call in the places
    the function can write to: globals it names, closure cells, `self`, list/dict/object arguments.
    Objects of the `opaque` types are not looked into."""
    opaque = (type, np.ndarray, type(inspect), *opaque)
    found: list[dict] = []
    code = getattr(func, "__code__", None)
    if code is not None:
        module_globals = getattr(func, "__globals__", {})
        for name in sorted(_names(code)):
            if name in module_globals:
                _scan(module_globals[name], f"global `{name}`", found, 2, is_staged, opaque)
        for name, cell in zip(code.co_freevars, getattr(func, "__closure__", None) or ()):
            try:
                _scan(cell.cell_contents, f"closure `{name}`", found, 2, is_staged, opaque)
            except ValueError:  # empty cell
                pass
    if instance is not None:
        _scan(instance, "`self`", found, 2, is_staged, opaque)
    for name, value in bound_args:
        if isinstance(value, (list, dict)) or hasattr(value, "__dict__"):
            _scan(value, f"argument `{name}`", found, 2, is_staged, opaque)
    return found
