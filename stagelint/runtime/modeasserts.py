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
  or, with no static finding (the function staged through a helper, as chex's variants do), the
  failing assertion reads a variable a staged function of the test writes: the same closure cell,
  module global, or attribute of the object the staged method was bound to, or a local counted from
  one (`modeprobe`); staged functions include, in the eager run, the project functions handed to
  `lax.cond`/`switch`/loops (every branch traced under staging, only the one taken with jit disabled);
- the test observes buffer donation (the failing assertion calls `x.is_deleted()` or
  `unsafe_buffer_pointer()`, or a `pytest.warns` expects JAX's "Some donated buffers were not
  usable") and a staged call of the test was made with donation (`donate_argnums`,
  `filter_jit(donate=...)`): only jit donates, with jit disabled every buffer stays;
- the test expects an error a JAX control-flow primitive raised as it staged its functions (with
  jit enabled, `lax.cond`/`switch` trace every branch, even outside `jit`, and raise `TypeError`
  when their outputs differ in structure or type; an untaken branch's trace-time error surfaces
  too) and the eager run, where they run only the branch taken, failed with `X not raised`;
- a staged call expects an error only tracing raises (`pytest.raises(TracerBoolConversionError)`
  inside the jitted function, Flax's `TraceContextError`) and, not traced, did not get it;
- a staged call checks that a value is a tracer (`isinstance(x, jax.core.Tracer)`, TensorFlow's
  `SymbolicTensor`, resolved by `modeprobe`) and the eager run's concrete value fails the check; or,
  in a jitted function, checks the type of an argument holding a Python number
  (`assertNotIsInstance(n, int)`), which jit passes as a tracer and the eager run as the number;
- a jitted call returns an array of the 32-bit dtype where the eager run returned the 64-bit one
  with the same values: `jit` canonicalises 64-bit inputs while `jax_enable_x64` is off, and the
  test may assert that dtype;
- JAX refuses an op with jit disabled (`lax.scan` over zero steps: "zero-length scan is not
  supported in disable_jit() mode because the output type is unknown"; ahead-of-time lowering:
  "Disable jit is not supported in the AOT path"): its message names `disable_jit`, the eager
  run's own mode;
- a Python number lacks an array's attribute (`'float' object has no attribute 'dtype'`) in a JAX
  session: `jit` turns a Python scalar argument into an array and returns arrays, while with jit
  disabled the function gets and returns the Python number itself, so code that reads `.dtype`,
  `.shape` or `.ndim` of such a value works only under `jit`;
- a jitted call whose runs took different branches only at an identity comparison (`is`) of a value
  handed to the function: `jit` passes every array leaf of the arguments as a new tracer, with jit
  disabled the function gets the caller's objects (`identity`).
"""

from __future__ import annotations

import dataclasses
import os
import re

from stagelint.runtime import identity

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

#: Attributes every JAX array has and no Python number does (`float.real`, `imag` and `conjugate`
#: exist on both, so their absence never shows it).
ARRAY_ATTRIBUTES = frozenset({"dtype", "shape", "ndim", "size", "astype", "at", "item", "tolist", "reshape", "T",
                              "sharding", "block_until_ready", "aval", "weak_type", "devices", "squeeze", "ravel",
                              "flatten", "sum", "mean", "min", "max", "nbytes", "itemsize"})
_SCALAR_ATTRIBUTE = re.compile(r"'(int|float|bool|complex)' object has no attribute '(\w+)'")
#: JAX's refusals name the mode: "... not supported in disable_jit() mode", "Disable jit is not supported
#: in the AOT path" (`jitted.lower(...)` with jit disabled).
_JIT_DISABLED = re.compile(r"\bdisable[_ ]jit\b", re.IGNORECASE)

KIND = "mode-asserted"
#: What JAX warns when a donated buffer is of no use to the compiled computation (jax/_src/interpreters/mlir.py).
DONATION_WARNING = "Some donated buffers were not usable: ShapedArray(float32[10])."
_NOT_RAISED = (re.compile(r"DID NOT RAISE\s+(?:<class ')?([\w.]+)"), re.compile(r"^(?:\w+Error: )?([\w.]+) not raised"))


def reclassify(pairs: list, jax_functions: frozenset = frozenset()) -> list:
    """The joined calls, with those that assert the staging mode marked `mode-asserted`
    (`jax_functions`: the keys of the functions JAX stages)."""
    out = []
    for pair in pairs:
        reason = call_reason(pair, pair.key in jax_functions)
        out.append(dataclasses.replace(pair, kind=KIND, detail=reason) if reason else pair)
    return out


def call_reason(pair, jax: bool = False) -> str | None:
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
        if jax:
            reason = jit_disabled_reason(error.get("msg", ""))
            if reason:
                return f"`{name}`: {reason}"
    if pair.kind == "differ" and jax and (split := identity.identity_split(pair.graph, pair.eager)):
        return f"`{name}`: {split}"
    if pair.kind == "differ" and (dtypes := canonicalised(pair.graph.result, pair.eager.result)):
        wide, narrow = dtypes
        return (f"`{name}` returned {narrow} under jit where the eager run returned {wide} with the same values: "
                "jit canonicalises 64-bit inputs to 32 bits while jax_enable_x64 is off")
    return None


def jax_functions(run) -> frozenset:
    """The keys of the functions JAX staged in a run."""
    return frozenset(key for key, fn in run.functions.items() if fn.framework == "jax")


def jit_disabled_reason(message: str) -> str | None:
    """Why an error of the eager run of a JAX session comes from running with jit disabled, or None."""
    line = re.sub(r"^[\w.]+(Error|Exception): ", "", message.strip().splitlines()[-1] if message.strip() else "")
    if _JIT_DISABLED.search(message):
        return f"JAX refuses it with jit disabled ({line})"
    m = _SCALAR_ATTRIBUTE.search(message)
    if m and m.group(2) in ARRAY_ATTRIBUTES:
        return (f"a Python {m.group(1)} has no `.{m.group(2)}` ({line}); jit makes Python scalars arrays, in its "
                "arguments and its results, and the eager run keeps them Python numbers")
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
    jax_session = bool(jax_functions(graph) | jax_functions(eager))
    for nodeid in graph.tests:
        if graph.test_status(nodeid) != "passed" or eager.test_status(nodeid) not in ("failed", "error"):
            continue
        pairs = by_test.get(nodeid, ())
        reason = next((p.detail for p in pairs if p.kind == KIND), None)
        # A call of the test whose results differ explains the failure better than what it read.
        diverged = any(p.kind in ("differ", "shapes-differ", "eager-error") for p in pairs)
        if reason is None and not diverged and _assertion(eager.failure(nodeid)):
            reason = (_trace_count_read(eager, nodeid) or _counter(verdicts, nodeid)
                      or _staged_write_read(eager, nodeid))
        if reason is None:
            reason = _donation(eager, nodeid, pairs)
        if reason is None:
            reason = _staging_error(graph, eager, nodeid)
        if reason is None and not diverged and jax_session:
            reason = jit_disabled_reason(eager.failure(nodeid))
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


def _staged_write_read(run, nodeid: str) -> str | None:
    """The failing assertion reads a variable a staged function of the test writes (a counter, a
    witness list): the write runs once per trace under staging, once per call in the eager run."""
    writes = run.failed_reads.get(nodeid, {}).get("writes")
    if not writes:
        return None
    name, key, line, writer = writes[0]
    fn = run.functions.get(key)
    function = f"`{writer or fn.qualname}`" if writer or fn else "a staged function"
    where = f" at line {line}" if line else ""
    return (f"the failing assertion reads `{name}`, which {function} writes{where} as its Python body runs: once "
            "per trace in graph mode, once per call in eager mode")


def _staging_error(graph, eager, nodeid: str) -> str | None:
    """The test expects an error that a JAX control-flow primitive raised in the graph run as it
    staged its functions (every branch of a `lax.cond`, and the check that their outputs agree) and
    that the eager run, which runs only the branch taken, did not raise."""
    found = graph.staging_errors.get(nodeid)
    if found is None or expected_error(eager.failure(nodeid)) is None:
        return None
    via, kind, message = found
    line = (message.strip().splitlines() or [""])[0]
    line = line if len(line) <= 100 else line[:97] + "..."
    return (f"the test expects {kind}, which `{via}` raised in the graph run as it traced the functions it was given "
            f"({line}); with jit disabled it runs them as Python, a `cond` only the branch taken")


def _donation(run, nodeid: str, pairs) -> str | None:
    """The test observes a donated buffer (`x.is_deleted()`, JAX's warning about a donated buffer it
    could not use) of a call made with donation: only jit donates, with jit disabled nothing is."""
    donated = next((p.graph for p in pairs if p.graph.donates), None)
    if donated is None:
        return None
    failure = run.failure(nodeid)
    reads = run.failed_reads.get(nodeid, {})
    observed = None
    if reads.get("buffers") and _assertion(failure):
        observed = f"the failing assertion calls `{reads['buffers'][0]}()` of an array"
    elif reads.get("warns") and "DID NOT WARN" in failure:
        try:
            if re.search(reads["warns"], DONATION_WARNING):
                observed = "the test expects JAX's warning about a donated buffer it could not use"
        except re.error:
            pass
    if observed is None:
        return None
    return (f"{observed}; `{donated.fn[2]}` donates its arguments ({donated.donates}): jit donates buffers, with jit "
            "disabled nothing is donated")


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
