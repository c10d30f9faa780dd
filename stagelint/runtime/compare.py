"""Joining the two runs call by call and comparing results honestly.

Calls are joined by (test, function, index of the call within the test). Results are compared
after `numpy.asarray` on both sides (eager may return a Python `2` where graph returns a
`tf.Tensor` 2: the values are compared, the dtypes only when both are tensors). Integers, bools
and text must be equal. Floating results are compared in units of their own format's rounding
(docs/runtime.md, "Comparing results honestly", has the reasoning): a difference is measured
against the largest magnitude of the result leaf in either run, L, and the machine epsilon of the
leaf's dtype, eps:

- `same`: every element within eps**(3/4) * L (they differ only in the last quarter of the
  significand: about 54 ulps of L in float32, 6 in float16);
- `rounding`: within eps**(1/2) * L (the leading half of the significand agrees): what XLA's fusion
  and reordering, or grappler's rewrites, can produce once a cancellation amplifies a rounding
  error. Not a divergence unless the test's outcome differs between the runs; the report lists it
  as a note;
- `differ`: anything larger, a NaN or an infinity in one run only.

A function whose graph holds stateful random ops draws different numbers in the two modes for
legitimate reasons: only shapes and dtypes are compared there.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

import numpy as np

from stagelint.runtime import modeasserts
from stagelint.runtime.records import Call, FnKey, Run, cause_line

#: Machine epsilon (2**-(significand bits - 1)) of each floating format a result can have; complex
#: formats are compared component by component at their float's precision.
EPS = {"float64": 2.0 ** -52, "float32": 2.0 ** -23, "float16": 2.0 ** -10, "bfloat16": 2.0 ** -7,
       "float8_e4m3fn": 2.0 ** -3, "float8_e4m3": 2.0 ** -3, "float8_e4m3fnuz": 2.0 ** -3,
       "float8_e4m3b11fnuz": 2.0 ** -3, "float8_e5m2": 2.0 ** -2, "float8_e5m2fnuz": 2.0 ** -2,
       "complex128": 2.0 ** -52, "complex64": 2.0 ** -23}
#: A floating format not in EPS (a new 4- or 6-bit type) is given the coarsest precision: never a
#: false difference.
EPS_UNKNOWN = 2.0 ** -2
#: The bands, as powers of eps: `same` up to eps**SAME_POWER * L, `rounding` up to eps**ROUNDING_POWER * L.
SAME_POWER, ROUNDING_POWER = 0.75, 0.5
#: Outcomes of comparing two leaves, from the best to the worst.
SAME, ROUNDING, DIFFER = "same", "rounding", "differ"
_ORDER = {SAME: 0, ROUNDING: 1, DIFFER: 2}


@dataclass
class Pair:
    graph: Call
    eager: Call
    #: same | rounding | differ | shapes-same | shapes-differ | inputs-differ | graph-error | eager-error |
    #: both-error (rounding: the results differ by no more than float rounding can explain),
    #: or not comparable: in-graph (made inside a graph: staged in both runs), other-mode (a call
    #: did not run in its run's mode), asserted (the error one mode raised is one the test asserts),
    #: not-compared (JAX traced it in the eager run too: pmap, vmap), mode-asserted (it asserts the
    #: staging mode: an error only tracing raises, a tracer check, JAX's x64 canonicalisation)
    kind: str
    detail: str = ""

    @property
    def key(self) -> FnKey:
        return self.graph.fn

    @property
    def ok_in_both(self) -> bool:
        return self.kind in ("same", "rounding", "differ", "shapes-same", "shapes-differ", "inputs-differ")


def random_functions(graph: Run) -> set[FnKey]:
    return {c.fn for c in graph.calls if c.random}


def join(graph: Run, eager: Run) -> list[Pair]:
    eager_calls = {(c.test, c.fn, c.index): c for c in eager.calls}
    randoms = random_functions(graph)
    pairs = []
    for g in graph.calls:
        e = eager_calls.get((g.test, g.fn, g.index))
        if e is not None:
            pair = classify(g, e, g.fn in randoms)
            if pair.kind == ROUNDING and graph.test_status(g.test) != eager.test_status(g.test):
                # The test's own assertions tell the two results apart: what rounding could explain
                # changed an outcome, so the call is the divergence the test saw.
                pair.kind = "differ"
            pairs.append(pair)
    return modeasserts.reclassify(pairs, modeasserts.jax_functions(graph) | modeasserts.jax_functions(eager))


#: Pair kinds that say nothing about eager against graph (mode-asserted: the call asserts the
#: staging mode itself, `modeasserts`).
NOT_COMPARABLE = ("in-graph", "other-mode", "asserted", "not-compared", "mode-asserted")


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
    if random:
        same = results_equal(g.result or [], e.result or [], shapes_only=True)
        return Pair(g, e, "shapes-same" if same else "shapes-differ")
    outcome, detail = compare_results(g.result or [], e.result or [])
    return Pair(g, e, outcome, detail)


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


def _exact(dtype: str) -> bool:
    return dtype == "bool" or dtype.startswith(("int", "uint"))


def leaf_eps(a: dict, b: dict) -> float | None:
    """The rounding unit two numeric leaves are compared at; None when they must be equal.

    A Python number from the eager run (`py`) takes the precision of the tensor it is compared
    with: `x * 2.0` returns a float64 Python float where the graph's float32 tensor holds the same
    value rounded to float32. Two tensors of different floating formats are not compared at all."""
    dtypes = [leaf["dt"] for leaf in (a, b) if not leaf.get("py")] or [a["dt"], b["dt"]]
    floats = [dt for dt in dtypes if not _exact(dt)]
    if not floats:
        return None
    return max(EPS.get(dt, EPS_UNKNOWN) for dt in floats)


def _elements(x: np.ndarray, y: np.ndarray, eps: float | None, scale: float | None = None) -> tuple[str, float]:
    """Compare two arrays of values; the outcome and the largest difference in units of the scale
    (`scale`: the largest magnitude the elements are measured against; by default their own)."""
    if x.shape != y.shape:
        return DIFFER, float("inf")
    nan_x, nan_y = np.isnan(x), np.isnan(y)
    if (nan_x != nan_y).any():
        return DIFFER, float("inf")
    finite = np.isfinite(x) & np.isfinite(y)
    if (x[~finite & ~nan_x] != y[~finite & ~nan_x]).any():  # an infinity in one run or of another sign
        return DIFFER, float("inf")
    x, y = x[finite], y[finite]
    if eps is None or not x.size:
        return (SAME if np.array_equal(x, y) else DIFFER), 0.0
    if scale is None:
        scale = float(max(np.abs(x).max(), np.abs(y).max()))
    worst = float(np.abs(x - y).max())
    if worst == 0.0:
        return SAME, 0.0
    relative = worst / scale if scale else float("inf")
    if relative <= eps ** SAME_POWER:
        return SAME, relative
    return (ROUNDING if relative <= eps ** ROUNDING_POWER else DIFFER), relative


def compare_leaves(a: dict, b: dict) -> tuple[str, float]:
    """same / rounding / differ for two result leaves, and the largest difference relative to the
    largest magnitude of the leaf (0 when equal, inf for a NaN, infinity or kind that differs)."""
    if a.get("t") != b.get("t"):
        return DIFFER, float("inf")
    if a["t"] == "text":
        equal = [_text(v) for v in a.get("v", [])] == [_text(v) for v in b.get("v", [])]
        return (SAME if equal else DIFFER), 0.0
    if a["t"] != "num":
        return (SAME if a.get("v") == b.get("v") else DIFFER), 0.0
    if a["sh"] != b["sh"] or bool(a.get("cx")) != bool(b.get("cx")):
        return DIFFER, float("inf")
    if not (a.get("py") or b.get("py")) and a["dt"] != b["dt"]:
        return DIFFER, float("inf")
    eps = leaf_eps(a, b)
    if "v" in a and "v" in b:
        return _elements(_floats(a["v"]), _floats(b["v"]), eps)
    if "st" in a and "st" in b:
        # [sum, sum of magnitudes, min, max, non-finite count] and a strided sample. Each element's
        # rounding is relative to its own magnitude, so the sums' differences are measured against
        # the sum of magnitudes, the extremes and the sample against the largest magnitude.
        (sa, aa, mina, maxa, na), (sb, ab, minb, maxb, nb) = a["st"], b["st"]
        if na != nb:
            return DIFFER, float("inf")
        largest = max(abs(mina), abs(maxa), abs(minb), abs(maxb))
        parts = [_elements(np.array([sa, aa]), np.array([sb, ab]), eps, max(aa, ab)),
                 _elements(np.array([mina, maxa]), np.array([minb, maxb]), eps, largest),
                 _elements(_floats(a["smp"]), _floats(b["smp"]), eps, largest)]
        return max(parts, key=lambda part: (_ORDER[part[0]], part[1]))
    return DIFFER, float("inf")


def compare_results(a: list[dict], b: list[dict]) -> tuple[str, str]:
    """same / rounding / differ for two results, and for `rounding`, the largest difference."""
    if len(a) != len(b):
        return DIFFER, ""
    outcomes = [compare_leaves(x, y) for x, y in zip(a, b)]
    worst = max(outcomes, key=lambda o: (_ORDER[o[0]], o[1]), default=(SAME, 0.0))
    if worst[0] == ROUNDING:
        index = outcomes.index(worst)
        dtype = a[index]["dt"] if not a[index].get("py") else b[index]["dt"]
        where = f" in result {index + 1}" if len(a) > 1 else ""
        return ROUNDING, (f"largest difference{where} {worst[1]:.1e} of the largest magnitude, "
                          f"{worst[1] / leaf_eps(a[index], b[index]):.0f} {dtype} ulps")
    return worst[0], ""


def leaf_equal(a: dict, b: dict, shapes_only: bool = False) -> bool:
    """Whether two leaves hold the same result (within float rounding); with `shapes_only`, only
    their kinds, shapes and dtypes are compared."""
    if not shapes_only:
        return compare_leaves(a, b)[0] != DIFFER
    if a.get("t") != b.get("t"):
        return False
    if a["t"] != "num":
        return True
    return a["sh"] == b["sh"] and ((a.get("py") or b.get("py")) or a["dt"] == b["dt"])


def results_equal(a: list[dict], b: list[dict], shapes_only: bool = False) -> bool:
    return len(a) == len(b) and all(leaf_equal(x, y, shapes_only) for x, y in zip(a, b))


def describe_leaf(leaf: dict) -> str:
    t = leaf.get("t")
    if t == "num":
        if "v" in leaf:
            values = leaf["v"]
            if leaf.get("cx"):
                values = [_complex(re, im) for re, im in zip(values[::2], values[1::2])]
            if not leaf["sh"]:
                return _num(values[0])
            shown = ", ".join(_num(v) for v in values[:4]) + (", ..." if len(values) > 4 else "")
            return f"[{shown}] {leaf['dt']}{leaf['sh']}"
        return f"{leaf['dt']}{leaf['sh']} (sum {_num(leaf['st'][0])})"
    if t == "text":
        values = leaf.get("v", [])
        return values[0] if len(values) == 1 else "[" + ", ".join(values[:3]) + ("...]" if len(values) > 3 else "]")
    return str(leaf.get("v") or leaf.get("s") or t)


def _complex(re, im) -> str:
    re, im = float(re), float(im)
    return f"{_num(re)}{'-' if im < 0 or str(im).startswith('-') else '+'}{_num(abs(im))}j"


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
