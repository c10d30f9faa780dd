"""Joining the two runs call by call and comparing results honestly.

Calls are joined by (test, function, index of the call within the test). Results are compared
after `numpy.asarray` on both sides (eager may return a Python `2` where graph returns a
`tf.Tensor` 2: the values are compared, the dtypes only when both are tensors) with
`numpy.allclose(rtol=1e-5, atol=1e-6, equal_nan=True)`, looser for 16-bit floats. A function whose
graph holds stateful random ops draws different numbers in the two modes for legitimate reasons:
only shapes and dtypes are compared there.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

import numpy as np

from stagelint.runtime.records import Call, FnKey, Run, cause_line

RTOL, ATOL = 1e-5, 1e-6
HALF_TOL = 1e-3
#: Sums over more than FULL_LIMIT elements accumulate rounding differently in the two modes.
STATS_RTOL = 1e-4


@dataclass
class Pair:
    graph: Call
    eager: Call
    #: same | differ | shapes-same | shapes-differ | inputs-differ | graph-error | eager-error | both-error,
    #: or not comparable: in-graph (made inside a graph: staged in both runs), other-mode (a call
    #: did not run in its run's mode), asserted (the error one mode raised is one the test asserts),
    #: not-compared (JAX traced it in the eager run too: pmap, vmap)
    kind: str
    detail: str = ""

    @property
    def key(self) -> FnKey:
        return self.graph.fn

    @property
    def ok_in_both(self) -> bool:
        return self.kind in ("same", "differ", "shapes-same", "shapes-differ", "inputs-differ")


def random_functions(graph: Run) -> set[FnKey]:
    return {c.fn for c in graph.calls if c.random}


def join(graph: Run, eager: Run) -> list[Pair]:
    eager_calls = {(c.test, c.fn, c.index): c for c in eager.calls}
    randoms = random_functions(graph)
    pairs = []
    for g in graph.calls:
        e = eager_calls.get((g.test, g.fn, g.index))
        if e is not None:
            pairs.append(classify(g, e, g.fn in randoms))
    return pairs


#: Pair kinds that say nothing about eager against graph.
NOT_COMPARABLE = ("in-graph", "other-mode", "asserted", "not-compared")


def classify(g: Call, e: Call, random: bool) -> Pair:
    if g.in_graph or e.in_graph:
        return Pair(g, e, "in-graph", "made inside a graph: staged in both runs")
    if g.ran or e.ran:
        return Pair(g, e, "other-mode", f"ran {g.ran or 'graph'} in the graph run, {e.ran or 'eager'} in the eager run")
    if bool(g.error) != bool(e.error) and (g.asserted or e.asserted):
        return Pair(g, e, "asserted", "the test asserts the error " + error_line((g.error or e.error)))
    if g.error and e.error:
        return Pair(g, e, "both-error", f"graph: {error_line(g.error)}; eager: {error_line(e.error)}")
    if g.not_compared or e.not_compared:
        return Pair(g, e, "not-compared", g.not_compared or e.not_compared)
    if g.error:
        return Pair(g, e, "graph-error", error_line(g.error))
    if e.error:
        return Pair(g, e, "eager-error", error_line(e.error))
    if _input_digests(g) != _input_digests(e):
        return Pair(g, e, "inputs-differ")
    same = results_equal(g.result or [], e.result or [], shapes_only=random)
    if random:
        return Pair(g, e, "shapes-same" if same else "shapes-differ")
    return Pair(g, e, "same" if same else "differ")


def _input_digests(call: Call) -> list:
    return [(name, s.get("d")) for name, s in call.args if "d" in s]


def error_line(error: dict) -> str:
    """`Type: message`, using the line that names the real error inside AutoGraph's wrapper."""
    line = cause_line(error.get("msg", ""))
    kind = error.get("type", "Exception")
    return line if line.startswith(kind) or re.match(r"^[\w.]*(Error|Exception)\b", line) else f"{kind}: {line}"


def _floats(values: list) -> np.ndarray:
    return np.array([float(v) if isinstance(v, str) else v for v in values], dtype=np.float64)


def _text(value: str) -> str:
    """A text leaf with bytes decoded: a `tf.string` tensor gives `b'abc'` where the eager Python
    returned the str `'abc'`; the two are the same result."""
    if value[:2] in ("b'", 'b"'):
        try:
            return repr(ast.literal_eval(value).decode("utf-8"))
        except (ValueError, SyntaxError, UnicodeDecodeError, AttributeError):
            return value
    return value


def leaf_equal(a: dict, b: dict, shapes_only: bool = False) -> bool:
    if a.get("t") != b.get("t"):
        return False
    if a["t"] == "text":
        return shapes_only or [_text(v) for v in a.get("v", [])] == [_text(v) for v in b.get("v", [])]
    if a["t"] != "num":
        return shapes_only or a.get("v") == b.get("v")
    if a["sh"] != b["sh"]:
        return False
    if not (a.get("py") or b.get("py")) and a["dt"] != b["dt"]:
        return False
    if shapes_only:
        return True
    tol = HALF_TOL if {a["dt"], b["dt"]} & {"float16", "bfloat16"} else None
    rtol, atol = (tol, tol) if tol else (RTOL, ATOL)
    if "v" in a and "v" in b:
        x, y = _floats(a["v"]), _floats(b["v"])
        return x.shape == y.shape and bool(np.allclose(x, y, rtol=rtol, atol=atol, equal_nan=True))
    if "st" in a and "st" in b:
        return (bool(np.allclose(a["st"], b["st"], rtol=STATS_RTOL, atol=atol, equal_nan=True))
                and bool(np.allclose(_floats(a["smp"]), _floats(b["smp"]), rtol=rtol, atol=atol, equal_nan=True)))
    return False


def results_equal(a: list[dict], b: list[dict], shapes_only: bool = False) -> bool:
    return len(a) == len(b) and all(leaf_equal(x, y, shapes_only) for x, y in zip(a, b))


def describe_leaf(leaf: dict) -> str:
    t = leaf.get("t")
    if t == "num":
        if "v" in leaf:
            values = leaf["v"]
            if not leaf["sh"]:
                return _num(values[0])
            shown = ", ".join(_num(v) for v in values[:4]) + (", ..." if len(values) > 4 else "")
            return f"[{shown}] {leaf['dt']}{leaf['sh']}"
        return f"{leaf['dt']}{leaf['sh']} (sum {_num(leaf['st'][0])})"
    if t == "text":
        values = leaf.get("v", [])
        return values[0] if len(values) == 1 else "[" + ", ".join(values[:3]) + ("...]" if len(values) > 3 else "]")
    return str(leaf.get("v") or leaf.get("s") or t)


def _num(v) -> str:
    if isinstance(v, str):  # nan / inf, kept as text in the record
        return v
    if isinstance(v, float):
        return f"{v:.1f}" if v.is_integer() and abs(v) < 1e15 else f"{v:.6g}"
    return str(v)


def describe_result(result: list[dict] | None) -> str:
    if not result:
        return "None"
    if len(result) == 1:
        text = describe_leaf(result[0])
    else:
        text = "(" + ", ".join(describe_leaf(x) for x in result[:3]) + (", ...)" if len(result) > 3 else ")")
    return text if len(text) <= 80 else text[:77] + "..."
