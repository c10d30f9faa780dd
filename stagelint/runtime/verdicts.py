"""A verdict for every static finding, and the runtime-only findings (STG9xx).

Each rule family names the evidence that confirms it (docs/runtime.md has the table). A finding is
`confirmed` when its evidence shows up, `not-reproduced` when the code ran in both modes and
behaved the same, `not-exercised` when the tests never ran it. Divergences that no confirmed
finding accounts for become runtime-only findings: STG901 eager-graph-divergence, STG902
excessive-retracing, STG903 graph-only-error.
"""

from __future__ import annotations

import linecache
import os
import re
from dataclasses import dataclass, field

from stagelint.findings import Finding
from stagelint.runtime import modeasserts, retraces
from stagelint.runtime.compare import NOT_COMPARABLE, Pair, describe_result, error_line
from stagelint.runtime.evidence import (EAGER_ONLY_ERRORS, JAX_CONTROL_ERRORS, JAX_DELETED_ERRORS, JAX_HOST_ERRORS,
                                        JAX_SCOPE_ERRORS, JAX_SHAPE_ERRORS, JAX_STATIC_ERRORS, RECURSION_ERRORS,
                                        SCOPE_ERRORS, VARIABLE_ERRORS, Evidence, norm,
                                        short_test)
from stagelint.runtime.records import FnKey, Run

#: Thresholds for STG902: TF itself warns from the 5th retrace within 10 calls.
RETRACE_MIN_TRACES = 5


def _checks(code: str):
    """The evidence questions for a rule code, most specific first, each with what it shows."""
    lines = ("lines", lambda ev, f, keys: ev.lines(keys, f.path, f.line))
    results = ("divergence", lambda ev, f, keys: ev.results(keys))
    leaks = ("leak", lambda ev, f, keys: ev.leaks(keys))

    def errors(patterns):
        return ("graph-error", lambda ev, f, keys: ev.graph_errors(keys, patterns))

    def traced(patterns):  # JAX: raised in both runs because the eager run traced too (vmap, scan)
        return ("graph-error", lambda ev, f, keys: ev.traced_errors(keys, patterns))

    def test_errors(patterns):  # JAX: a test failed in graph mode only, outside the recorded calls
        return ("graph-error", lambda ev, f, keys: ev.test_errors(ev.tests_holding(f.path, f.line)
                                                                  | ev.tests_of(keys), patterns))

    retrace_python = ("retrace", lambda ev, f, keys: ev.retrace_python(keys, ev.calls_at_site(f.path, f.line) or None))
    table = {
        # print/logging and external mutation show as lines that ran less; a frozen iterator,
        # random draw or guard also changes what the function returns.
        "STG101": (("lines", lambda ev, f, keys: ev.lines(keys, f.path, f.line, output=True)),),
        "STG102": (lines,),
        "STG10": (lines, results),
        "STG201": (leaks, errors(SCOPE_ERRORS + JAX_SCOPE_ERRORS), test_errors(JAX_SCOPE_ERRORS)),
        # An append in a converted loop runs once per trace, not once per iteration, so what the
        # function returns from the list differs too.
        "STG202": (leaks, errors(SCOPE_ERRORS), lines, results),
        "STG30": (results,),
        "STG401": (errors(RECURSION_ERRORS), ("retrace", lambda ev, f, keys: ev.traces_per_call(keys))),
        "STG40": (errors(VARIABLE_ERRORS),),
        "STG501": (retrace_python,),
        "STG502": (("retrace", lambda ev, f, keys: ev.retrace_objects(keys)), retrace_python),
        "STG503": (("retrace", lambda ev, f, keys: ev.graph_growth(keys)), retrace_python),
        "STG601": (errors(EAGER_ONLY_ERRORS + JAX_HOST_ERRORS), traced(JAX_HOST_ERRORS), results),
        "STG602": (errors(EAGER_ONLY_ERRORS + JAX_CONTROL_ERRORS), traced(JAX_CONTROL_ERRORS), results),
        "STG60": (errors(EAGER_ONLY_ERRORS), results),
        "STG603": (("divergence", lambda ev, f, keys: ev.eager_errors(keys)),),
        # JAX-only families (rules STG203, STG504, STG604).
        "STG203": (errors(JAX_DELETED_ERRORS), test_errors(JAX_DELETED_ERRORS)),
        "STG504": (errors(JAX_STATIC_ERRORS), test_errors(JAX_STATIC_ERRORS)),
        "STG505": (("retrace", lambda ev, f, keys: ev.retrace_unchanged(keys)),),
        # Any other retracing code (inputs whose shape varies between calls): the retraces it predicts.
        "STG50": (("retrace", lambda ev, f, keys: ev.retrace_shapes(keys, ev.calls_at_site(f.path, f.line) or None)),
                  retrace_python, ("retrace", lambda ev, f, keys: ev.retrace_objects(keys))),
        "STG604": (errors(JAX_SHAPE_ERRORS), traced(JAX_SHAPE_ERRORS), results),
    }
    for prefix in (code, code[:5]):
        if prefix in table:
            return table[prefix]
    return (results, errors(None))


@dataclass
class Verdict:
    finding: Finding
    verdict: str
    evidence: str
    runtime_only: bool = False
    keys: set[FnKey] = field(default_factory=set)
    tests: set[str] = field(default_factory=set)
    #: What the confirming evidence showed (divergence, graph-error, retrace, lines, leak), so the
    #: same symptom is not reported again as a runtime-only finding.
    shows: set[str] = field(default_factory=set)

    def to_json(self, relpath) -> dict:
        f = self.finding
        return {"code": f.code, "name": f.name, "path": relpath(f.path), "line": f.line, "column": f.column,
                "function": f.function, "verdict": self.verdict, "evidence": self.evidence,
                "message": f.message, "runtime_only": self.runtime_only}


def judge(findings: list[Finding], ev: Evidence, graph: Run, eager: Run) -> list[Verdict]:
    verdicts = []
    near = _near_files(ev, graph, eager)
    for f in findings:
        # A finding in a test's own body (a variable rebound between two calls, a call site) is
        # judged on that test's calls: another test's divergence of the same function is not its.
        tests = ev.tests_holding(f.path, f.line)
        fev = ev.scoped(tests) if tests else ev
        keys = fev.related(f.path, f.line, (f.entry_point, f.function))
        found = [(kind, text) for kind, check in _checks(f.code) if (text := check(fev, f, keys))]
        if found:
            evidence = "; ".join(dict.fromkeys(text for _, text in found))
            verdicts.append(Verdict(f, "confirmed", evidence, keys=keys, tests=fev.tests_of(keys) | tests,
                                    shows={kind for kind, _ in found}))
            continue
        verdict, text = _unconfirmed(fev, f, keys, graph, eager, tests)
        if verdict == "not-exercised" and not keys and norm(f.path) not in near:
            # A file the tests reach only through a package's imports: what they do not exercise
            # there is not news about these tests (it would repeat on every test module).
            continue
        verdicts.append(Verdict(f, verdict, text, keys=keys))
    return verdicts


def _near_files(ev: Evidence, graph: Run, eager: Run) -> set[str]:
    """The test modules, the project modules they import by name, and the files staged code ran in."""
    from stagelint.runtime.lint import direct_imports

    tests = {norm(loc[0]) for run in (graph, eager) for loc in run.test_locations.values() if loc[0]}
    near = set(tests)
    for path in tests:
        near |= {norm(p) for p in direct_imports(path)}
    near |= {norm(fn.path) for fn in ev.functions.values()}
    near |= {norm(path) for path, _ in ev.keys_by_line}
    return near


def _unconfirmed(ev: Evidence, f: Finding, keys: set[FnKey], graph: Run, eager: Run,
                 tests: set[str] = frozenset()) -> tuple[str, str]:
    joined = [p for k in keys for p in ev.pairs_by_key.get(k, ())]
    pairs = [p for p in joined if p.kind not in NOT_COMPARABLE]
    if joined and not pairs:
        names = ", ".join(sorted({f"`{ev.name(p.key)}`" for p in joined}))
        kinds = {p.kind for p in joined}
        if kinds == {"not-compared"}:
            reason = next(p.detail for p in joined)
            return "not-exercised", f"{names} ran {_n(len(joined), 'call')}; {reason}: eager and graph not compared"
        why = ("made inside a graph (a tf.data function, a SavedModel signature), staged in both runs"
               if kinds == {"in-graph"} else
               "raised an error the test asserts" if kinds == {"asserted"} else
               f"asserting the staging mode itself ({next(p.detail for p in joined)})"
               if kinds == {modeasserts.KIND} else
               "ran in the same mode in both runs or inside a graph")
        return "not-exercised", f"{names} ran {_n(len(joined), 'call')}, all {why}: eager and graph not compared"
    if pairs:
        names = ", ".join(sorted({f"`{ev.name(k)}`" for k in keys if ev.pairs_by_key.get(k)}))
        traces = sum(p.graph.traced for p in pairs)
        same = sum(1 for p in pairs if p.kind in ("same", "shapes-same", "rounding"))
        matched = ("the result matched" if same == len(pairs) == 1 else
                   f"results matched at all {len(pairs)} calls" if same == len(pairs) else
                   f"results matched at {same} of {len(pairs)} calls")
        text = f"{names} ran {_n(len(pairs), 'call')} in both modes ({_n(traces, 'trace')}); {matched}"
        rounding = sum(1 for p in pairs if p.kind == "rounding")
        if rounding:
            text += f" ({rounding} within float rounding)"
        if any(p.kind == "shapes-same" for p in pairs):
            text += " (shapes/dtypes only: stateful random ops)"
        return "not-reproduced", text
    in_graph = sum(len(ev.graph_calls.get(k, ())) for k in keys)
    in_eager = sum(len(ev.eager_calls.get(k, ())) for k in keys)
    if in_graph or in_eager:
        return "not-exercised", _one_sided(ev, keys, graph, eager, in_graph, in_eager)
    if tests:
        names = ", ".join(sorted(short_test(t) for t in tests))
        return "not-exercised", f"{names} never called the staged code this line concerns"
    return "not-exercised", "the tests never called the staged code that holds this line"


def _one_sided(ev: Evidence, keys: set[FnKey], graph: Run, eager: Run, in_graph: int, in_eager: int) -> str:
    """Why calls made in one run have no partner in the other, as it really happened."""
    counts = f"graph {in_graph}, eager {in_eager}"
    if not in_graph or not in_eager:
        ran, other = (graph, eager) if in_graph else (eager, graph)
        calls = ev.graph_calls if ran is graph else ev.eager_calls
        tests = list(dict.fromkeys(c.test for k in keys for c in calls.get(k, ())))
        if not other.ended and (not other.tests or tests[-1] not in other.tests
                                or other.test_status(tests[-1]) == "not-run"):
            return f"calls reached only the {ran.mode} run ({counts}): the {other.mode} run stopped first"
        for test in tests:
            status = other.test_status(test)
            if status == "skipped":
                return (f"calls reached only the {ran.mode} run ({counts}): {short_test(test)} was skipped "
                        f"in the {other.mode} run")
            if status in ("failed", "error"):
                return (f"calls reached only the {ran.mode} run ({counts}): {short_test(test)} failed in the "
                        f"{other.mode} run before calling it: {other.failure(test)}")
        return (f"calls reached only the {ran.mode} run ({counts}): the {other.mode} run finished the same "
                f"tests without calling it")
    return f"the two runs' calls could not be joined ({counts}): no call at the same test and index"


def _n(count: int, noun: str) -> str:
    return f"{count} {noun}{'' if count == 1 else 's'}"


# Runtime-only findings ---------------------------------------------------------------------------


def def_line(path: str, line: int) -> int:
    """The `def` line of a decorated function (its code starts at the first decorator)."""
    for offset in range(0, 15):
        text = linecache.getline(path, line + offset).lstrip()
        if text.startswith(("def ", "async def ")) or "lambda" in text:
            return line + offset
        if text and not text.startswith(("@", "#", ")")) and offset:
            break
    return line


def _runtime_finding(code: str, name: str, path: str, line: int, evidence: str, function: str | None) -> Finding:
    return Finding(code=code, name=name, path=path, line=line, column=1, end_line=line, end_column=1,
                   message=evidence, function=function, entry_point=function)


def runtime_only(verdicts: list[Verdict], ev: Evidence, graph: Run, eager: Run) -> list[Verdict]:
    explained: dict[str, set[FnKey]] = {"divergence": set(), "graph-error": set(), "retrace": set()}
    explained_tests: set[str] = set()
    for v in verdicts:
        if v.verdict == "confirmed":
            for what in v.shows & set(explained):
                explained[what] |= v.keys
            explained_tests |= v.tests
    out: list[Verdict] = []
    reported_tests: set[str] = set()
    for key, pairs in ev.pairs_by_key.items():
        fn = ev.functions[key]
        where = _location(ev, key, pairs)
        if where is None:
            continue
        # A test that asked for eager execution (tf.config.run_functions_eagerly(True)) knows its
        # calls do not stage: what the graph run shows there is not news to its author.
        bad = [p for p in pairs if p.kind in ("differ", "shapes-differ", "eager-error") and not p.graph.asked]
        if bad and key not in explained["divergence"]:
            out.append(_divergence(ev, key, bad, pairs, where))
            reported_tests |= {p.graph.test for p in bad}
        errs = [p for p in pairs if p.kind == "graph-error" and not p.graph.asked]
        if errs and key not in explained["graph-error"]:
            p = errs[0]
            text = (f"call {p.graph.index + 1} of `{fn.qualname}` in {short_test(p.graph.test)}: graph raised "
                    f"{error_line(p.graph.error)}; eager returned {describe_result(p.eager.result)}"
                    f" ({len(errs)} of {len(pairs)} calls)")
            out.append(Verdict(_runtime_finding("STG903", "graph-only-error", *where, text, fn.qualname),
                               "confirmed", text, True, {key}))
            reported_tests |= {p.graph.test for p in errs}
    out.extend(_retracing(ev, explained["retrace"]))
    # A test that asserts staging itself fails in the eager run by design: not comparable there.
    asserting = set(modeasserts.test_reasons(graph, eager, ev.pairs, verdicts))
    out.extend(_test_level(graph, eager, explained_tests | reported_tests | asserting))
    return out


def _location(ev: Evidence, key: FnKey, pairs: list[Pair]) -> tuple[str, int] | None:
    fn = ev.functions[key]
    if fn.project:
        return fn.path, def_line(fn.path, fn.line)
    # A library function (a Keras train function): point at the project line that called it.
    site = next((p.graph.site for p in pairs if p.graph.site), None)
    return site


def _divergence(ev: Evidence, key: FnKey, bad: list[Pair], pairs: list[Pair], where) -> Verdict:
    fn = ev.functions[key]
    p = bad[0]
    phrase = f"call {p.graph.index + 1} of `{fn.qualname}` in {short_test(p.graph.test)}"
    if p.kind == "eager-error":
        text = f"{phrase}: eager raised {error_line(p.eager.error)}; graph returned {describe_result(p.graph.result)}"
    else:
        text = f"{phrase}: eager {describe_result(p.eager.result)}, graph {describe_result(p.graph.result)}"
        if p.kind == "shapes-differ":
            text += " (shapes/dtypes differ; values not compared: stateful random ops)"
    text += f" ({len(bad)} of {len(pairs)} calls differ)"
    return Verdict(_runtime_finding("STG901", "eager-graph-divergence", *where, text, fn.qualname),
                   "confirmed", text, True, {key})


def _retracing(ev: Evidence, explained: set[FnKey]) -> list[Verdict]:
    out = []
    for key, calls in ev.graph_calls.items():
        fn = ev.functions.get(key)
        if fn is None or not fn.project or key in explained:
            continue
        # Traces within one test: a parametrized test matrix gives each test a new signature, one
        # trace per test, which a program would not repeat. A method's first trace on each new
        # instance is what a program building several models does too.
        explained_traces = ev.traces(key)
        per_test: dict[str, int] = {}
        for t in explained_traces:
            if t.cause != "instance":
                per_test[t.call.test] = per_test.get(t.call.test, 0) + 1
        if max(per_test.values(), default=0) < RETRACE_MIN_TRACES:
            continue
        traces = sum(c.traced for c in calls)
        found = retraces.causes(explained_traces)
        jax = fn.framework == "jax"
        cause = "; ".join(c.text(jax) for c in found) or "no retrace after a function object's first trace"
        text = f"{len(calls)} calls, {traces} traces; {cause}"
        out.append(Verdict(_runtime_finding("STG902", "excessive-retracing", fn.path, def_line(fn.path, fn.line),
                                            text, fn.qualname), "confirmed", text, True, {key}))
    return out


def _test_level(graph: Run, eager: Run, explained: set[str]) -> list[Verdict]:
    """Tests that fail in one mode only, where no staged call explains it (e.g. a leaked tensor used
    by the test itself)."""
    out = []
    asked = {c.test for c in graph.calls if c.asked}
    for nodeid in graph.tests:
        if nodeid in explained or nodeid not in eager.tests or nodeid in asked:
            continue
        g, e = graph.test_status(nodeid), eager.test_status(nodeid)
        if g in ("failed", "error") and e == "passed":
            code, name, failing = "STG903", "graph-only-error", graph
        elif e in ("failed", "error") and g == "passed":
            code, name, failing = "STG901", "eager-graph-divergence", eager
        else:
            continue
        other = eager if failing is graph else graph
        if _asserts_other_modes_error(failing.failure(nodeid), other, nodeid):
            continue  # reported under the tests whose outcome differs between the runs
        text = f"test `{short_test(nodeid)}` fails only in {failing.mode} mode: {failing.failure(nodeid)}"
        path, line = graph.test_locations.get(nodeid, (nodeid.split("::")[0], 1))
        out.append(Verdict(_runtime_finding(code, name, path, line or 1, text, short_test(nodeid)),
                           "confirmed", text, True, tests={nodeid}))
    return out


def _asserts_other_modes_error(failure: str, other: Run, nodeid: str) -> bool:
    """The test asserts an error (pytest.raises, assertRaises) that the other mode raised and this
    one did not: the test pins one mode's error, not a staging pitfall of the code."""
    if not re.search(r"DID NOT RAISE|not raised", failure):
        return False
    return any(c.asserted for c in other.calls if c.test == nodeid)


def mode_outcomes(graph: Run, eager: Run, not_comparable: dict[str, str] | None = None) -> list[dict]:
    """Tests whose outcome differs between the two runs (passed in one, skipped or failing in the
    other): their calls could not all be compared, and a user must know which. `not_comparable`:
    why a test asserts staging itself (`modeasserts.test_reasons`)."""
    out = []
    for nodeid in dict.fromkeys([*graph.tests, *eager.tests]):
        g, e = graph.test_status(nodeid), eager.test_status(nodeid)
        if g == e or ("not-run" in (g, e) and not (graph.ended and eager.ended)):
            continue
        entry = {"test": nodeid, "graph": g, "eager": e}
        held = sum(1 for c in graph.calls if c.test == nodeid and c.asked == "eager")
        if held:
            entry["held"] = held
        for run, status in ((graph, g), (eager, e)):
            if status in ("failed", "error"):
                entry[f"{run.mode}_error"] = run.failure(nodeid)
        if nodeid in (not_comparable or {}):
            entry["not_comparable"] = not_comparable[nodeid]
        out.append(entry)
    return out


def test_failures(graph: Run, eager: Run) -> list[dict]:
    """Every failing test, with the modes it fails in. Failing in both modes is the user's bug, not a
    staging pitfall; failing in one mode is also reported as a finding (or explained by one)."""
    out = []
    for nodeid in dict.fromkeys([*graph.tests, *eager.tests]):
        modes = [run.mode for run in (graph, eager) if run.test_status(nodeid) in ("failed", "error")]
        if modes:
            entry = {"test": nodeid, "modes": modes, "both": len(modes) == 2}
            for run in (graph, eager):
                if run.mode in modes:
                    entry[run.mode] = run.failure(nodeid)
            out.append(entry)
    # What pytest could not collect (a module that fails to import) never became a test.
    collect = {run.mode: run.collect_errors() for run in (graph, eager)}
    for nodeid in dict.fromkeys([*collect["graph"], *collect["eager"]]):
        modes = [mode for mode in ("graph", "eager") if nodeid in collect[mode]]
        entry = {"test": nodeid, "modes": modes, "both": len(modes) == 2, "when": "collect"}
        entry.update({mode: collect[mode][nodeid] for mode in modes})
        out.append(entry)
    return out


def relpath(path: str) -> str:
    try:
        rel = os.path.relpath(path)
    except ValueError:
        return path
    return path if rel.startswith("..") else rel


__all__ = ["Verdict", "judge", "runtime_only", "test_failures", "mode_outcomes", "relpath", "norm"]
