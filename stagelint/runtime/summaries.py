"""What a staged call's arguments, results and outer places look like in a record (child side).

Summaries are small and JSON-friendly. A Python scalar argument keeps its value (it is part of the
trace key, and it is the evidence for retracing); a tensor keeps its dtype and shape plus a CRC of
its values, so the parent can tell whether both runs really fed the same inputs.
"""

from __future__ import annotations

import numpy as np
import tensorflow as tf

from stagelint.runtime.values import (DIGEST_BYTES, FULL_LIMIT, SAMPLE, Binder,  # noqa: F401 - re-exported
                                      digest, find_staged_values, is_python_number, numeric_leaf, spec_text,
                                      summarize_container, summarize_scalar)

_SCALARS = (bool, int, float, complex, str, bytes, type(None))


def summarize_arg(value, depth: int = 0) -> dict:
    """{"k": kind, "s": short text, "d": digest?}; kind is py, tensor, var, array, seq, map, obj."""
    if isinstance(value, _SCALARS):
        return summarize_scalar(value)
    if isinstance(value, tf.Variable):
        shape = value.shape.as_list() if value.shape.rank is not None else []
        return {"k": "var", "s": "Variable " + spec_text(value.dtype.name, shape)}
    if isinstance(value, tf.Tensor):
        shape = value.shape.as_list() if value.shape.rank is not None else []
        out = {"k": "tensor", "s": spec_text(value.dtype.name, shape)}
        if hasattr(value, "numpy") and value.dtype not in (tf.string, tf.resource, tf.variant):
            try:
                out["d"] = digest(value.numpy())
            except Exception:  # noqa: BLE001 - some eager tensors (resources) have no host value
                pass
        return out
    if isinstance(value, np.ndarray):
        return {"k": "array", "s": "ndarray " + spec_text(value.dtype.name, list(value.shape)), "d": digest(value)}
    if isinstance(value, np.generic):
        return {"k": "py", "ty": type(value).__name__, "s": repr(value.item())}
    return summarize_container(value, depth, summarize_arg) or {"k": "obj", "s": type(value).__name__}


def _leaf(value) -> dict:
    py = is_python_number(value)
    if isinstance(value, tf.Variable):
        value = value.read_value()
    if isinstance(value, tf.Tensor):
        if not hasattr(value, "numpy"):
            return {"t": "symbolic", "s": str(value)[:100]}
        if value.dtype in (tf.resource, tf.variant):
            return {"t": value.dtype.name}
        value = value.numpy()
    return numeric_leaf(value, py)


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


def find_leaks(func, instance, bound_args: list[tuple[str, object]]) -> list[dict]:
    """Symbolic tensors left after a graph call in the places the function can write to."""
    return find_staged_values(func, instance, bound_args, is_symbolic, (tf.Variable, tf.Tensor))


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
