"""Evidence in numbers, gathered from the two joined runs for a set of staged functions.

Each `Evidence` method answers one question the rules table (docs/runtime.md) asks, and returns
a one-line sentence with the numbers, or None when the runs do not show it.
"""

from __future__ import annotations

import dataclasses
import functools
import os
import re
from collections import defaultdict

from stagelint.runtime import retraces
from stagelint.runtime.compare import Pair, describe_result, error_line
from stagelint.runtime.records import Call, FnKey, FunctionRecord, Run
from stagelint.runtime.retraces import PY_KINDS, SPEC_KINDS, format_values

# What graph mode raises for each family, as TF 2.21 words it (spec/tf-behaviour.md).
SCOPE_ERRORS = ("is out of scope and cannot be used here", "InaccessibleTensorError", "out of scope")
RECURSION_ERRORS = ("RecursionError", "maximum recursion depth", "StagingError")
VARIABLE_ERRORS = ("singleton tf.Variables", "Creating variables on a non-first call",
                   "tried to create variables on non-first call")
EAGER_ONLY_ERRORS = ("SymbolicTensor", "Cannot convert a symbolic", "OperatorNotAllowedInGraphError",
                     "symbolic tf.Tensor", "symbolic Tensor", "is not allowed in Graph execution")

# What JAX raises while tracing, per family (spec/jax-behaviour.md, "Runtime confirmation for JAX").
# ConcretizationTypeError serves several families: its message says which conversion failed.
JAX_SCOPE_ERRORS = ("UnexpectedTracerError",)
JAX_HOST_ERRORS = ("TracerArrayConversionError", "The problem arose with the `float` function",
                   "The problem arose with the `int` function", "The problem arose with the `complex` function",
                   "item() method")
JAX_CONTROL_ERRORS = ("TracerBoolConversionError", "TracerIntegerConversionError")
JAX_SHAPE_ERRORS = ("NonConcreteBooleanIndexError", "must be statically specified", "jnp.arange argument",
                    "compatible with JIT and other transforms", "Slice entries must be static",
                    "Shapes must be 1D sequences of concrete values")
# A static spec naming no parameter and a method jitted with a traced `self` are STG504 too.
JAX_STATIC_ERRORS = ("Non-hashable static arguments", "unhashable type", "Jitted function has static_argnums",
                     "Jitted function has invalid argnames", "as an abstract array")
JAX_DELETED_ERRORS = ("Array has been deleted", "Buffer has been deleted or donated")
#: JAX's staging errors by type: under vmap (and a scan JAX still traces) the eager run raises them
#: too, and they are still staging evidence.
JAX_TRACER_ERROR_TYPES = frozenset({"TracerBoolConversionError", "TracerIntegerConversionError",
                                    "TracerArrayConversionError", "ConcretizationTypeError",
                                    "NonConcreteBooleanIndexError", "UnexpectedTracerError"})


@functools.lru_cache(maxsize=None)
def norm(path: str) -> str:
    return os.path.realpath(path) if path else path


def short_test(nodeid: str) -> str:
    return nodeid.rsplit("::", 1)[-1] if "::" in nodeid else nodeid


def _distinct(items) -> list:
    seen, out = set(), []
    for x in items:
        if x not in seen:
            seen.add(x)
            out.append(x)
    return out


class Evidence:
    def __init__(self, graph: Run, eager: Run, pairs: list[Pair]):
        self.graph, self.eager, self.pairs = graph, eager, pairs
        self.functions: dict[FnKey, FunctionRecord] = {**eager.functions, **graph.functions}
        self.pairs_by_key: dict[FnKey, list[Pair]] = defaultdict(list)
        for p in pairs:
            self.pairs_by_key[p.key].append(p)
        self.graph_calls: dict[FnKey, list[Call]] = defaultdict(list)
        for c in graph.calls:
            self.graph_calls[c.fn].append(c)
        self.eager_calls: dict[FnKey, list[Call]] = defaultdict(list)
        for c in eager.calls:
            self.eager_calls[c.fn].append(c)
        # Where each line ran and where each call came from, for relating findings to functions.
        self.keys_by_line: dict[tuple[str, int], set[FnKey]] = defaultdict(set)
        self.keys_by_site: dict[tuple[str, int], set[FnKey]] = defaultdict(set)
        for c in (*graph.calls, *eager.calls):
            for (path, line) in c.lines:
                self.keys_by_line[(norm(path), line)].add(c.fn)
            if c.site:
                self.keys_by_site[(norm(c.site[0]), c.site[1])].add(c.fn)
        self._scoped: dict[frozenset[str], Evidence] = {}
        self._traces: dict[FnKey, list[retraces.Trace]] = {}

    def traces(self, key: FnKey) -> list[retraces.Trace]:
        """Every graph-run trace of the staged function, with why it happened."""
        if key not in self._traces:
            fn = self.functions.get(key)
            self._traces[key] = retraces.explain(self.graph_calls.get(key, []), bool(fn and fn.method))
        return self._traces[key]

    # Findings in a test's own body ------------------------------------------------------------

    def tests_holding(self, path: str, line: int) -> set[str]:
        """The tests whose function body holds the line (a variable rebound between two calls)."""
        path = norm(path)
        out = set()
        for run in (self.graph, self.eager):
            for nodeid, (first, last) in run.test_spans.items():
                where = run.test_locations.get(nodeid)
                if where and first <= line <= last and norm(where[0]) == path:
                    out.add(nodeid)
        return out

    def scoped(self, tests: set[str]) -> Evidence:
        """The same evidence restricted to the calls made in `tests`."""
        key = frozenset(tests)
        if key not in self._scoped:
            graph = dataclasses.replace(self.graph, calls=[c for c in self.graph.calls if c.test in key])
            eager = dataclasses.replace(self.eager, calls=[c for c in self.eager.calls if c.test in key])
            self._scoped[key] = Evidence(graph, eager, [p for p in self.pairs if p.graph.test in key])
        return self._scoped[key]

    # Relating a finding to the staged functions that exercise it ------------------------------

    def related(self, path: str, line: int, names: tuple[str | None, ...] = ()) -> set[FnKey]:
        path = norm(path)
        keys = set(self.keys_by_line.get((path, line), ()))
        keys |= self.keys_by_site.get((path, line), set())
        for key, fn in self.functions.items():
            if norm(fn.path) == path and (fn.line <= line <= fn.end or fn.qualname in names):
                keys.add(key)
        return keys

    def calls_at_site(self, path: str, line: int) -> list[Call]:
        path = norm(path)
        return [c for c in self.graph.calls if c.site and norm(c.site[0]) == path and c.site[1] == line]

    def name(self, key: FnKey) -> str:
        fn = self.functions.get(key)
        return fn.qualname if fn else key[2]

    def _call_phrase(self, call: Call) -> str:
        return f"call {call.index + 1} of `{self.name(call.fn)}` in {short_test(call.test)}"

    def tests_of(self, keys: set[FnKey]) -> set[str]:
        return {c.test for k in keys for c in self.graph_calls.get(k, ())}

    # The questions ----------------------------------------------------------------------------

    def lines(self, keys: set[FnKey], path: str, line: int, output: bool = False) -> str | None:
        """Did the line run fewer times under graph than eager (side effects happen per trace)?"""
        pairs = [p for k in keys for p in self.pairs_by_key.get(k, ()) if p.ok_in_both]
        if not pairs:
            return None
        path = norm(path)
        ran_eager = sum(n for p in pairs for (f, ln), n in p.eager.lines.items() if ln == line and norm(f) == path)
        ran_graph = sum(n for p in pairs for (f, ln), n in p.graph.lines.items() if ln == line and norm(f) == path)
        traces = sum(p.graph.traced for p in pairs)
        # A side effect runs once per trace: fewer times than eager when a trace is reused, more
        # when one call traced twice (a function creating variables traces again without them).
        retraced = any(p.graph.traced > 1 for p in pairs)
        if ran_eager == ran_graph or (ran_eager < ran_graph and not retraced):
            return None
        text = (f"line {line} ran {ran_eager}× eager, {ran_graph}× graph over {len(pairs)} "
                f"call{'s' if len(pairs) != 1 else ''} ({traces} trace{'s' if traces != 1 else ''})")
        out_eager = sum(1 for p in pairs if p.eager.output.strip())
        out_graph = sum(1 for p in pairs if p.graph.output.strip())
        if output and out_eager != out_graph:
            text += f"; output at {out_eager} of {len(pairs)} calls eager, {out_graph} graph"
        return text

    def results(self, keys: set[FnKey]) -> str | None:
        """Did eager and graph return different results for the same inputs?"""
        pairs = [p for k in keys for p in self.pairs_by_key.get(k, ()) if p.kind in ("differ", "shapes-differ")]
        if not pairs:
            return None
        first = pairs[0]
        total = sum(1 for k in keys for p in self.pairs_by_key.get(k, ()) if p.ok_in_both)
        text = (f"{self._call_phrase(first.graph)}: eager {describe_result(first.eager.result)}, "
                f"graph {describe_result(first.graph.result)}")
        if first.kind == "shapes-differ":
            text += " (shapes/dtypes: stateful random ops)"
        return text + f" ({len(pairs)} of {total} calls differ)"

    def leaks(self, keys: set[FnKey]) -> str | None:
        """Was a symbolic tensor left in an outer place after a graph call?"""
        for key in sorted(keys):
            for call in self.graph_calls.get(key, ()):
                if call.leaks:
                    places = _distinct(leak["where"] for leak in call.leaks)
                    tensor = call.leaks[0]["tensor"]
                    return (f"after {self._call_phrase(call)} (graph) {', '.join(places[:3])} held the symbolic "
                            f"tensor {tensor}")
        return None

    def graph_errors(self, keys: set[FnKey], patterns: tuple[str, ...] | None) -> str | None:
        """Did graph mode raise (the predicted error) where eager returned?"""
        for key in sorted(keys):
            for p in self.pairs_by_key.get(key, ()):
                if p.kind == "graph-error" and _matches(p.graph.error, patterns):
                    return (f"{self._call_phrase(p.graph)}: graph raised {error_line(p.graph.error)}; "
                            f"eager returned {describe_result(p.eager.result)}")
        return None

    def traced_errors(self, keys: set[FnKey], patterns: tuple[str, ...]) -> str | None:
        """JAX: did both runs raise the predicted tracer error (a vmap or scan traces the eager run too)?"""
        for key in sorted(keys):
            for p in self.pairs_by_key.get(key, ()):
                if (p.kind == "both-error" and p.graph.error.get("type") in JAX_TRACER_ERROR_TYPES
                        and _matches(p.graph.error, patterns)):
                    return (f"{self._call_phrase(p.graph)}: both runs raised {error_line(p.graph.error)} "
                            f"(JAX traced it in the eager run too)")
        return None

    def test_errors(self, tests: set[str], patterns: tuple[str, ...]) -> str | None:
        """Did a test fail in graph mode only with the predicted error, raised outside any recorded
        call (a donated array used after the call, a leaked tracer used by the test itself)?"""
        for nodeid in sorted(tests):
            if self.graph.test_status(nodeid) not in ("failed", "error") or self.eager.test_status(nodeid) != "passed":
                continue
            failure = self.graph.failure(nodeid)
            if _matches({"msg": failure}, patterns):
                return f"test `{short_test(nodeid)}` failed only in graph mode: {failure}"
        return None

    def eager_errors(self, keys: set[FnKey]) -> str | None:
        for key in sorted(keys):
            for p in self.pairs_by_key.get(key, ()):
                if p.kind == "eager-error":
                    return (f"{self._call_phrase(p.graph)}: eager raised {error_line(p.eager.error)}; "
                            f"graph returned {describe_result(p.graph.result)} (the op was pruned)")
        return None

    def traces_per_call(self, keys: set[FnKey]) -> str | None:
        """Recursion with a Python depth traces once per level within one call."""
        for key in sorted(keys):
            for call in self.graph_calls.get(key, ()):
                if call.traced >= 3:
                    return f"{self._call_phrase(call)} traced {call.traced} times (once per recursion level)"
        return None

    def retrace_causes(self, calls: list[Call]) -> tuple[dict[str, list[str]], dict[str, list[str]], int]:
        """({arg: Python values}, {arg: tensor specs}, retraces with no argument change) of traced calls.

        A retrace is put down to the arguments whose summary is new for that Function object;
        a Python value (or a list/dict of them) is the STG501 cause, a new tensor spec a shape change.
        """
        py: dict[str, list[str]] = {}
        spec: dict[str, list[str]] = {}
        unexplained = 0
        seen: dict[int, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
        for call in calls:
            mine = seen[call.obj]
            first = not mine
            changed = [(name, s) for name, s in call.args if s["s"] not in mine[name]]
            if call.traced and not first:
                py_changed = [(n, s) for n, s in changed if s["k"] in PY_KINDS]
                spec_changed = [(n, s) for n, s in changed if s["k"] in SPEC_KINDS]
                if not py_changed and not spec_changed:
                    unexplained += 1
                for name, _ in py_changed if not spec_changed else ():
                    py.setdefault(name, [])
                for name, _ in spec_changed:
                    spec.setdefault(name, [])
            for name, s in call.args:
                mine[name].add(s["s"])
        for call in calls:
            for name, s in call.args:
                if name in py and s["k"] in PY_KINDS and s["s"] not in py[name]:
                    py[name].append(s["s"])
                if name in spec and s["k"] in SPEC_KINDS and s["s"] not in spec[name]:
                    spec[name].append(s["s"])
        return py, spec, unexplained

    def retrace_python(self, keys: set[FnKey], site_calls: list[Call] | None = None) -> str | None:
        """Did the trace count grow with Python values while the tensor specs stayed the same?"""
        for key in sorted(keys):
            calls = [c for c in site_calls if c.fn == key] if site_calls else self.graph_calls.get(key, [])
            if not calls:
                continue
            py, _, _ = self.retrace_causes(calls)
            if py:
                traces = sum(c.traced for c in calls)
                args = "; ".join(f"argument `{n}` took the Python values {format_values(v)}" for n, v in py.items())
                return f"{len(calls)} calls, {traces} traces; {args}" + jax_explanation(calls)
        return None

    def retrace_shapes(self, keys: set[FnKey], site_calls: list[Call] | None = None) -> str | None:
        """Did the function retrace on the same object because a tensor's shape or dtype changed?"""
        for key in sorted(keys):
            fn = self.functions.get(key)
            if site_calls:
                calls = [c for c in site_calls if c.fn == key]
                traces = retraces.explain(calls, bool(fn and fn.method))
            else:
                calls, traces = self.graph_calls.get(key, []), self.traces(key)
            if not calls:
                continue
            found = [c for c in retraces.causes(traces) if c.kind in ("shape", "dtype")]
            if found:
                jax = fn is not None and fn.framework == "jax"
                text = "; ".join(c.text(jax) for c in found)
                return f"{len(calls)} calls, {sum(c.traced for c in calls)} traces; {text}"
        return None

    def retrace_unchanged(self, keys: set[FnKey]) -> str | None:
        """JAX: did every call retrace with no argument value or spec changed (a static argument hashed by
        identity, built anew for each call)? JAX's explanation names the static argument."""
        for key in sorted(keys):
            calls = self.graph_calls.get(key, [])
            traces = sum(c.traced for c in calls)
            _, _, unexplained = self.retrace_causes(calls)
            if traces >= 2 and unexplained >= traces - 1 and any(c.why for c in calls):
                return (f"{len(calls)} calls, {traces} traces; no argument's value or spec changed"
                        + jax_explanation(calls))
        return None

    def retrace_objects(self, keys: set[FnKey]) -> str | None:
        """Did re-created Function objects for the same code (for a method: bound to the same
        instance, `jax.jit(self.update)` per step) each trace again?"""
        for key in sorted(keys):
            fn = self.functions.get(key)
            calls = self.graph_calls.get(key, [])
            objects = len({c.obj for c in calls})
            traces = sum(c.traced for c in calls)
            renewed = any(t.cause == "object" for t in self.traces(key))
            if fn is not None and renewed and objects > 1 and traces >= objects:
                return (f"{len(calls)} calls, {traces} traces across {objects} Function objects "
                        f"made from the same code")
        return None

    def graph_growth(self, keys: set[FnKey]) -> str | None:
        """Did the graph grow with the data (an unrolled Python loop)?"""
        for key in sorted(keys):
            sizes = [c.ops for c in self.graph_calls.get(key, ()) if c.traced and c.ops is not None]
            if len(set(sizes)) > 1:
                return f"{len(sizes)} traces built graphs of {', '.join(map(str, sizes[:6]))} ops"
        return None


def jax_explanation(calls: list[Call]) -> str:
    """What JAX said about the first retrace of these calls (`jax_explain_cache_misses`), or ""."""
    why = next((c.why[0] for c in calls if c.why), None)
    return f"; JAX: {why}" if why else ""


def _matches(error: dict | None, patterns: tuple[str, ...] | None) -> bool:
    if error is None:
        return False
    if patterns is None:
        return True
    text = f"{error.get('type', '')}: {error.get('msg', '')}"
    return any(re.search(re.escape(p), text) for p in patterns)
