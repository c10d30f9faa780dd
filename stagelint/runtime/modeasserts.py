"""Tests that assert staging itself: the eager run fails them by design, so they are "not
comparable" there, not an eager-graph divergence (STG901).

Each case is a framework fact, checked by running the framework (tests/runtime/fixtures/
fx_staging_asserts.py):

- the test reads a trace count (`experimental_get_tracing_count()`, a jitted function's
  `_cache_size()`: `modeprobe` records the read) and fails an assertion in the eager run, where
  the body runs at every call and nothing is traced (the count reads 0);
- the test counts how often a staged function's Python body runs, through state the body writes
  (a counter, a list): a confirmed STG101/STG102 finding shows that line ran once per trace in the
  graph run and once per call in the eager run, and the test fails an assertion in the eager run;
- a staged call expects an error only tracing raises (`pytest.raises(TracerBoolConversionError)`
  inside the jitted function, Flax's `TraceContextError`) and, not traced, did not get it;
- a staged call checks that a value is a tracer (`isinstance(x, jax.core.Tracer)`, TensorFlow's
  `SymbolicTensor`, resolved by `modeprobe`) and the eager run's concrete value fails the check;
- a jitted call returns an array of the 32-bit dtype where the eager run returned the 64-bit one
  with the same values: `jit` canonicalises 64-bit inputs while `jax_enable_x64` is off, and the
  test may assert that dtype.
"""

from __future__ import annotations

import dataclasses
import os
import re

#: Exception types only tracing raises (TensorFlow graph building, JAX tracers, Flax's transforms):
#: code that runs eagerly never gets them.
TRACING_ONLY_ERRORS = frozenset({
    "OperatorNotAllowedInGraphError", "InaccessibleTensorError",
    "ConcretizationTypeError", "TracerArrayConversionError", "TracerBoolConversionError",
    "TracerIntegerConversionError", "UnexpectedTracerError", "NonConcreteBooleanIndexError",
    "TraceContextError",
})
#: JAX's canonical dtype of a 64-bit one while `jax_enable_x64` is off.
X64_CANONICAL = {"int64": "int32", "uint64": "uint32", "float64": "float32", "complex128": "complex64"}
#: Static findings of a staged body writing state that outlives the call (a counter, a list).
COUNTING_CODES = ("STG101", "STG102")

KIND = "mode-asserted"
_NOT_RAISED = (re.compile(r"DID NOT RAISE\s+(?:<class ')?([\w.]+)"), re.compile(r"^(?:\w+Error: )?([\w.]+) not raised"))


def reclassify(pairs: list) -> list:
    """The joined calls, with those that assert the staging mode marked `mode-asserted`."""
    out = []
    for pair in pairs:
        reason = call_reason(pair)
        out.append(dataclasses.replace(pair, kind=KIND, detail=reason) if reason else pair)
    return out


def call_reason(pair) -> str | None:
    """Why a call's eager result is, by design, not the graph one's; None when it should be."""
    name = pair.graph.fn[2]
    if pair.kind == "eager-error":
        error = pair.eager.error or {}
        expected = expected_error(error.get("msg", ""))
        if expected in TRACING_ONLY_ERRORS:
            return f"`{name}` expects {expected}, which only tracing raises; the eager run does not trace"
        if error.get("tracer"):
            return (f"`{name}` checks that a value is a tracer ({error['tracer']}); the eager run passes "
                    "concrete values")
    if pair.kind == "differ" and (dtypes := canonicalised(pair.graph.result, pair.eager.result)):
        wide, narrow = dtypes
        return (f"`{name}` returned {narrow} under jit where the eager run returned {wide} with the same values: "
                "jit canonicalises 64-bit inputs to 32 bits while jax_enable_x64 is off")
    return None


def expected_error(message: str) -> str | None:
    """The exception type a `DID NOT RAISE X` / `X not raised` failure expected, unqualified."""
    for pattern in _NOT_RAISED:
        m = pattern.search(message)
        if m:
            return m.group(1).rsplit(".", 1)[-1]
    return None


def canonicalised(graph: list | None, eager: list | None) -> tuple[str, str] | None:
    """(64-bit dtype, its 32-bit canonical dtype) when the results are the same values and differ
    only by that canonicalisation, leaf by leaf."""
    if not graph or not eager or len(graph) != len(eager):
        return None
    found = None
    for g, e in zip(graph, eager):
        if g == e:
            continue
        if g.get("dt") != X64_CANONICAL.get(e.get("dt")):
            return None
        if {k: v for k, v in g.items() if k != "dt"} != {k: v for k, v in e.items() if k != "dt"}:
            return None
        found = (e["dt"], g["dt"])
    return found


def test_reasons(graph, eager, pairs: list, verdicts: list) -> dict[str, str]:
    """nodeid -> why a test that failed in the eager run only asserts staging itself."""
    out: dict[str, str] = {}
    by_test: dict[str, list] = {}
    for pair in pairs:
        by_test.setdefault(pair.graph.test, []).append(pair)
    for nodeid in graph.tests:
        if graph.test_status(nodeid) != "passed" or eager.test_status(nodeid) not in ("failed", "error"):
            continue
        pairs = by_test.get(nodeid, ())
        reason = next((p.detail for p in pairs if p.kind == KIND), None)
        # A call of the test whose results differ explains the failure better than what it read.
        diverged = any(p.kind in ("differ", "shapes-differ", "eager-error") for p in pairs)
        if reason is None and not diverged and _assertion(eager.failure(nodeid)):
            reason = _trace_count_read(eager, nodeid) or _counter(verdicts, nodeid)
        if reason:
            out[nodeid] = reason
    return out


def _assertion(failure: str) -> bool:
    return failure.startswith("assert ") or "AssertionError" in failure


def _trace_count_read(run, nodeid: str) -> str | None:
    reads = run.trace_reads.get(nodeid)
    if not reads:
        return None
    shown = ", ".join(f"`{name}` ({api})" for name, api in reads[:3])
    return (f"the test reads the trace count of {shown}; in the eager run the body runs at every call and "
            "nothing is traced")


def _counter(verdicts: list, nodeid: str) -> str | None:
    for v in verdicts:
        f = v.finding
        if (v.verdict == "confirmed" and not v.runtime_only and f.code in COUNTING_CODES and "lines" in v.shows
                and nodeid in v.tests):
            function = f"`{f.function}`'s" if f.function else "a staged function's"
            where = os.path.relpath(f.path) if not os.path.relpath(f.path).startswith("..") else f.path
            return (f"the test counts how often {function} Python body runs ({f.code} at {where}:{f.line}, confirmed: "
                    f"{v.evidence}): once per trace in graph mode, once per call in eager mode")
    return None
