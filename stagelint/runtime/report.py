"""The `stagelint run` report: the JSON document (spec/interfaces.md) and the `full` text.

The JSON keys `module`, `tests`, `functions`, `findings` are the contract; `runs`,
`test_failures` and `static` are additions (extend, never rename).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from functools import cached_property

from stagelint.runtime import modeasserts
from stagelint.runtime.compare import Pair, describe_result, random_functions
from stagelint.runtime.defs import Def, enclosing
from stagelint.runtime.evidence import Evidence, norm, short_test
from stagelint.runtime.executor import RunStatus
from stagelint.runtime.records import Call, FnKey, Run
from stagelint.runtime.verdicts import Verdict, def_line, mode_outcomes, relpath

MAX_SIGNATURES = 10
#: Retraces listed per function in the text report (the JSON has them all).
MAX_RETRACES = 12
VERDICT_ORDER = {"confirmed": 0, "not-reproduced": 1, "not-exercised": 2}


def _arg_signature(name: str, s: dict) -> str:
    if s["k"] == "py":
        return f"{name}: {s.get('ty', 'object')} = {s['s']}"
    return f"{name}: {s['s']}"


def signature(call: Call) -> str:
    return "(" + ", ".join(_arg_signature(n, s) for n, s in call.args) + ")"


def _eager_vs_graph(pairs: list[Pair]) -> str:
    if any(p.kind in ("differ", "shapes-differ", "graph-error", "eager-error") for p in pairs):
        return "differ"
    if any(p.kind in ("same", "shapes-same", "rounding") for p in pairs):
        return "same"
    return "not-compared"


def _signatures(calls: list[Call]) -> list[str]:
    """The distinct argument summaries of the calls that traced."""
    signatures = list(dict.fromkeys(signature(c) for c in calls if c.traced))
    return signatures[:MAX_SIGNATURES] + ["..."] if len(signatures) > MAX_SIGNATURES else signatures


def _retraces(ev: Evidence, key: FnKey, name: str) -> list[dict]:
    """Each trace after the function's first, with the test it ran in and why it happened."""
    return [{"trace": t.number, "test": t.call.test, "call": t.call.index + 1, "cause": t.cause,
             "why": t.reason(), "text": t.text(name)} for t in ev.traces(key) if t.cause != "first"]


@dataclass
class FunctionDetail:
    #: The `functions` entry of the JSON report.
    row: dict
    #: The graph run's calls it counts, in run order, and their joined pairs.
    calls: list[Call]
    pairs: list[Pair]
    #: The staged function the calls are of (a library function for a `via` row).
    key: FnKey


@dataclass
class Report:
    module: str
    runs: dict[str, RunStatus]
    graph: Run
    eager: Run
    evidence: Evidence
    verdicts: list[Verdict]
    test_failures: list[dict]
    static: dict = field(default_factory=dict)
    #: The processes the tests left running after the runs ended, which stagelint ended
    #: (`leftovers.Leftovers.end`): [{"pid": 1234, "command": "python -c ...", "ended": True}].
    processes_left: list[dict] = field(default_factory=list)

    def functions(self) -> list[dict]:
        """The project's staged functions that were called, and the project functions a library
        `tf.function` ran (a Keras model's `call`/`train_step` under `fit`), with `via` naming it."""
        return [d.row for d in self.function_details()]

    def function_details(self) -> list[FunctionDetail]:
        """`functions()` with, for each row, the graph calls and the joined pairs it counts (worked
        out once: the JSON's functions and float notes and the HTML page all read them)."""
        return self._function_details

    @cached_property
    def _function_details(self) -> list[FunctionDetail]:
        ev = self.evidence
        randoms = random_functions(self.graph)
        out = []
        for key, fn in ev.functions.items():
            if not fn.project:
                continue
            graph_calls = ev.graph_calls.get(key, [])
            pairs = ev.pairs_by_key.get(key, [])
            out.append(FunctionDetail({
                "name": fn.name, "path": relpath(fn.path), "line": def_line(fn.path, fn.line),
                "calls": len(graph_calls), "traces": sum(c.traced for c in graph_calls),
                "eager_vs_graph": _eager_vs_graph(pairs), "signatures": _signatures(graph_calls),
                "retraces": _retraces(ev, key, fn.qualname),
                "eager_calls": len(ev.eager_calls.get(key, [])),
                "compared": "shapes and dtypes (stateful random ops)" if key in randoms else "values",
            }, graph_calls, list(pairs), key))
        listed = {(norm(d.row["path"]), d.row["line"]) for d in out}
        for key, fn in ev.functions.items():
            if not fn.project:
                out += [d for d in self._reached(key, randoms) if (norm(d.row["path"]), d.row["line"]) not in listed]
        return sorted(out, key=lambda d: (d.row["path"], d.row["line"], d.row.get("via", "")))

    def _reached(self, key: FnKey, randoms: set[FnKey]) -> list[FunctionDetail]:
        """Rows for the project functions whose lines ran during calls of the library function
        `key` (in graph mode, at its traces; in eager mode, at every call)."""
        ev = self.evidence
        library = ev.functions[key]
        pairs = {id(p.graph): p for p in ev.pairs_by_key.get(key, ())}
        modules = {norm(f.path): f.module for f in ev.functions.values() if f.project and f.module}
        reached: dict[tuple[str, Def], list[tuple[Call, Pair | None]]] = {}
        for call in ev.graph_calls.get(key, ()):
            pair = pairs.get(id(call))
            lines = set(call.lines) | (set(pair.eager.lines) if pair else set())
            for d in dict.fromkeys((path, d) for path, line in lines if path and (d := enclosing(path, line))):
                reached.setdefault(d, []).append((call, pair))
        out = []
        for (path, d), calls in reached.items():
            module = modules.get(norm(path)) or os.path.splitext(os.path.basename(path))[0]
            graph_calls = [c for c, _ in calls]
            joined = [p for _, p in calls if p is not None]
            out.append(FunctionDetail({
                "name": f"{module}.{d.qualname}", "path": relpath(path), "line": d.line,
                "calls": len(calls), "traces": sum(c.traced for c in graph_calls),
                "eager_vs_graph": _eager_vs_graph(joined), "signatures": _signatures(graph_calls),
                "eager_calls": len(joined),
                "compared": "shapes and dtypes (stateful random ops)" if key in randoms else "values",
                "via": library.name,
            }, graph_calls, joined, key))
        return out

    def float_notes(self) -> list[dict]:
        """The project functions whose results differed by float rounding only (not findings): the
        first such call of each, with both results and the largest difference."""
        notes, seen = [], set()
        for d in self.function_details():
            rounding = [p for p in d.pairs if p.kind == "rounding"]
            if rounding and d.key not in seen:  # a library function's calls once, not per project row
                seen.add(d.key)
                p = rounding[0]
                notes.append({"function": _function_label(d.row), "path": d.row["path"], "line": d.row["line"],
                              "calls": len(rounding), "test": p.graph.test, "call": p.graph.index + 1,
                              "eager": describe_result(p.eager.result), "graph": describe_result(p.graph.result),
                              "difference": p.detail})
        return notes

    def not_compared_calls(self) -> list[dict]:
        """Calls the runs differ on by design (`modeasserts`: an identity comparison of traced
        arguments, jit's x64 canonicalisation...) in tests with the same outcome in both runs (the
        others are under *Tests whose outcome differs*): the first of each function, with the reason."""
        notes, seen = [], set()
        for p in self.evidence.pairs:
            if (p.kind != modeasserts.KIND or p.key in seen
                    or self.graph.test_status(p.graph.test) != self.eager.test_status(p.graph.test)):
                continue
            seen.add(p.key)
            notes.append({"function": self.evidence.name(p.key), "test": p.graph.test, "call": p.graph.index + 1,
                          "eager": describe_result(p.eager.result), "graph": describe_result(p.graph.result),
                          "reason": p.detail})
        return notes

    def sorted_verdicts(self) -> list[Verdict]:
        return sorted(self.verdicts, key=lambda v: (VERDICT_ORDER[v.verdict], relpath(v.finding.path),
                                                    v.finding.line, v.finding.code))

    def confirmed(self) -> list[Verdict]:
        return [v for v in self.verdicts if v.verdict == "confirmed"]

    def exit_code(self) -> int:
        """2 if a run could not finish (its results are partial, whatever they confirm); else 1 if
        anything was confirmed; else 0."""
        if any(s.status != "ok" for s in self.runs.values()):
            return 2
        if self.confirmed():
            return 1
        return 0

    def failure_message(self) -> str | None:
        """One line for stderr when a run did not finish, or None."""
        failed = {mode: s for mode, s in self.runs.items() if s.status != "ok"}
        if not failed:
            return None
        details = {s.detail for s in failed.values()}
        if len(failed) == len(self.runs) and len(details) == 1 and " failed to import: " in next(iter(details)):
            module, error = next(iter(details)).split(" failed to import: ", 1)
            return f"stagelint run: {module} failed to import in both runs: {error}"
        sentences = {s.sentence() for s in failed.values()}
        if len(failed) > 1 and len(sentences) == 1:
            runs = f"the {' and '.join(failed)} runs each {sentences.pop()}"
        else:
            runs = " and ".join(f"the {mode} run {s.sentence()}" for mode, s in failed.items())
        kept = [mode for mode in self.runs if mode not in failed]
        tail = (f"; the {kept[0]} run's results are complete" if kept else "") + \
            "; the report uses everything recorded before the stop"
        return f"stagelint run: {runs}{tail}"

    def thread_warning(self) -> str | None:
        """One line for stderr when tests left non-daemon threads running, or None."""
        left = {mode: s.threads_left for mode, s in self.runs.items() if s.threads_left}
        if not left:
            return None
        names = list(dict.fromkeys(n for ns in left.values() for n in ns))
        runs = " and ".join(left) + (" runs" if len(left) > 1 else " run")
        return (f"stagelint run: the tests left {_threads(names)} running in the {runs}; stagelint ended the "
                f"process{'es' if len(left) > 1 else ''} after the tests instead of waiting")

    def process_warning(self) -> str | None:
        """One line for stderr when the tests left processes running after the runs, or None."""
        if not self.processes_left:
            return None
        who = "the program" if self.module.startswith("--script ") else "the tests"
        return f"stagelint run: {who} left {_processes(self.processes_left, len(self.runs))}"

    def not_comparable(self) -> dict[str, str]:
        """nodeid -> why a test that failed in the eager run only asserts staging itself."""
        return modeasserts.test_reasons(self.graph, self.eager, self.evidence.pairs, self.verdicts)

    def to_json(self) -> dict:
        return {
            "module": self.module,
            "tests": self.graph.counts(),
            "functions": self.functions(),
            "findings": [v.to_json(relpath) for v in self.sorted_verdicts()],
            "runs": {mode: {"status": s.status, "detail": s.detail, "returncode": s.returncode, "seconds": s.seconds,
                            "test": s.test, "threads_left": s.threads_left,
                            "tests": (self.graph if mode == "graph" else self.eager).counts(),
                            "calls": len((self.graph if mode == "graph" else self.eager).calls),
                            "recorder_errors": len((self.graph if mode == "graph" else self.eager).internal_errors),
                            **({"not_rerun": len(self.eager.not_rerun)} if mode == "eager" else {})}
                     for mode, s in self.runs.items()},
            "test_failures": self.test_failures,
            "mode_outcomes": mode_outcomes(self.graph, self.eager, self.not_comparable()),
            "float_notes": self.float_notes(),
            "not_compared_calls": self.not_compared_calls(),
            "static": self.static,
            "processes_left": self.processes_left,
        }


def _table(rows: list[list[str]], header: list[str]) -> list[str]:
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    fmt = "  ".join(f"{{:<{w}}}" for w in widths)
    return ["  " + fmt.format(*header).rstrip(), "  " + "  ".join("-" * w for w in widths)] + \
           ["  " + fmt.format(*map(str, r)).rstrip() for r in rows]


def render_full(report: Report) -> str:
    data = report.to_json()
    lines = [f"stagelint run {report.module}"]
    runs = "; ".join(f"{mode}: {s.describe()} in {s.seconds:.1f} s" for mode, s in report.runs.items())
    lines.append(f"runs: {runs}")
    if report.eager.not_rerun:
        n = len(report.eager.not_rerun)
        lines.append(f"  ({n} test{'s' if n > 1 else ''} not run again eagerly: no staged call in the graph run)")
    t = data["tests"]
    if report.module.startswith("--script "):
        lines.append(f"program: {_program_outcome(report)}")
    else:
        lines.append(f"tests: {t['passed']} passed, {t['failed']} failed, {t['errors']} errors")
    static = report.static
    if static.get("error"):
        lines.append(f"static analysis: {static['error']}")
    else:
        lines.append(f"static analysis: {static.get('findings', 0)} findings in {len(static.get('files', []))} files")
    functions = data["functions"]
    lines += ["", "Staged functions"]
    if functions:
        rows = [[_function_label(f), f"{f['path']}:{f['line']}", f["calls"], f["traces"], f["eager_vs_graph"]
                 + (" (shapes only)" if f["compared"] != "values" else "")] for f in functions]
        lines += _table(rows, ["function", "where", "calls", "traces", "eager vs graph"])
    else:
        lines.append("  (no staged function of the project was called)")
    retraced = [f for f in functions if f.get("retraces")]
    if retraced:
        lines += ["", "Retraces (why each trace after a function's first happened)"]
        for f in retraced:
            rows = [[f"trace {r['trace']}", short_test(r["test"]), r["why"]] for r in f["retraces"][:MAX_RETRACES]]
            lines.append(f"  {_function_label(f)} ({f['path']}:{f['line']}): {f['traces']} traces")
            lines += ["  " + row for row in _table(rows, ["trace", "test", "why"])]
            if len(f["retraces"]) > MAX_RETRACES:
                lines.append(f"    ... {len(f['retraces']) - MAX_RETRACES} more (the JSON report lists them all)")
    lines += ["", "Findings"]
    verdicts = report.sorted_verdicts()
    if verdicts:
        for v in verdicts:
            f = v.finding
            tag = "runtime-only" if v.runtime_only else v.verdict
            lines.append(f"  {relpath(f.path)}:{f.line}:{f.column}: {f.code} {f.name} [{tag}]")
            lines.append(f"      {v.evidence}")
    else:
        lines.append("  (none)")
    if report.test_failures:
        lines += ["", "Test failures"]
        for tf in report.test_failures:
            modes = " and ".join(tf["modes"])
            note = (" (fails in both modes: a bug in the test or code, not a staging pitfall)"
                    if len(tf["modes"]) == 2 else "")
            error = tf.get("graph") or tf.get("eager")
            if tf.get("when") == "collect":
                what = "fails to import" if "::" not in tf["test"] else "cannot be collected"
                lines.append(f"  {tf['test']}: {what} in {modes}: {error}")
            else:
                lines.append(f"  {tf['test']}: fails in {modes}{note}: {error}")
    if data["mode_outcomes"]:
        lines += ["", "Tests whose outcome differs between the runs"]
        for o in data["mode_outcomes"]:
            held = (f"; the test set run_functions_eagerly(True), the graph run held its mode for {o['held']} "
                    "calls" if o.get("held") else "")
            error = o.get("graph_error") or o.get("eager_error")
            lines.append(f"  {o['test']}: graph {o['graph']}, eager {o['eager']}{held}"
                         + (f": {error}" if error else ""))
            if o.get("not_comparable"):
                lines.append(f"      not comparable: {o['not_comparable']}")
    if data["float_notes"]:
        lines += ["", "Float rounding (not findings: the results agree within what float rounding explains)"]
        for n in data["float_notes"]:
            lines.append(f"  {n['path']}:{n['line']}: {n['function']}: {n['calls']} call"
                         f"{'s' if n['calls'] != 1 else ''}, e.g. call {n['call']} in {short_test(n['test'])}: "
                         f"eager {n['eager']}, graph {n['graph']} ({n['difference']})")
    if data["not_compared_calls"]:
        lines += ["", "Calls not compared (not findings: the runs differ there by design)"]
        for n in data["not_compared_calls"]:
            lines.append(f"  {n['function']}: call {n['call']} in {short_test(n['test'])}: eager {n['eager']}, "
                         f"graph {n['graph']}: {n['reason']}")
    stopped: dict[str, list[str]] = {}
    for mode, s in report.runs.items():
        if s.status != "ok":
            stopped.setdefault(s.sentence(), []).append(mode)
    for sentence, modes in stopped.items():  # both runs stopped the same way: say it once
        runs = " and ".join(modes) + (" runs" if len(modes) > 1 else " run")
        lines += ["", f"The {runs} did not finish: {'each' if len(modes) > 1 else 'it'} {sentence}; "
                      "records up to that point were used."]
    lingering: dict[tuple[str, ...], list[str]] = {}
    for mode, s in report.runs.items():
        if s.threads_left:
            lingering.setdefault(tuple(s.threads_left), []).append(mode)
    for names, modes in lingering.items():
        runs = " and ".join(modes) + (" runs" if len(modes) > 1 else " run")
        lines += ["", f"The tests left {_threads(list(names))} running in the {runs}: stagelint ended the "
                      "process after the tests instead of waiting for it."]
    if report.processes_left:
        note = report.process_warning().removeprefix("stagelint run: ")
        lines += ["", note[0].upper() + note[1:] + "."]
    counts = {k: sum(1 for v in verdicts if v.verdict == k and not v.runtime_only) for k in VERDICT_ORDER}
    runtime_only = sum(1 for v in verdicts if v.runtime_only)
    lines += ["", f"{counts['confirmed']} confirmed, {counts['not-reproduced']} not reproduced, "
                  f"{counts['not-exercised']} not exercised; {runtime_only} runtime-only finding"
                  f"{'s' if runtime_only != 1 else ''}"]
    return "\n".join(lines) + "\n"


def _program_outcome(report: Report) -> str:
    """How a `--script` program's graph run ended: at its end, at a limit, or with an error."""
    program = report.module.removeprefix("--script ")
    status = report.graph.test_status(program)
    if status == "failed":
        return f"failed: {report.graph.failure(program)}"
    if status == "passed":
        limit = next((o.error for o in report.graph.outcomes.get(program, []) if o.error), "")
        return limit or "ran to its end"
    return report.runs["graph"].detail or "did not finish"


def _function_label(f: dict) -> str:
    """`fx.Model.call (via multi_step_on_iterator)` for project code a library tf.function ran."""
    return f["name"] + (f" (via {f['via'].rsplit('.', 1)[-1]})" if f.get("via") else "")


def _threads(names: list[str]) -> str:
    shown = ", ".join(f"`{n}`" if not n.endswith(" more") else n for n in names)
    count = len(names)
    return f"{'a non-daemon thread' if count == 1 else 'non-daemon threads'} ({shown})"


#: Processes named in the one-line note (the JSON report lists them all).
MAX_PROCESSES = 3


def _processes(procs: list[dict], runs: int) -> str:
    """`2 processes running after the runs ended (pid 1234 `sleep 300`, ...); stagelint ended
    them`: what `leftovers` found and ended."""
    shown = ", ".join(f"pid {p['pid']} `{p['command']}`" for p in procs[:MAX_PROCESSES])
    if len(procs) > MAX_PROCESSES:
        shown += f", {len(procs) - MAX_PROCESSES} more"
    what = "a process" if len(procs) == 1 else f"{len(procs)} processes"
    alive = [p["pid"] for p in procs if not p.get("ended", True)]
    if not alive:
        ended = f"stagelint ended {'it' if len(procs) == 1 else 'them'}"
    else:  # another user's process (a setuid program), or one stuck in the kernel
        ended = f"stagelint could not end {', '.join(f'pid {pid}' for pid in alive)}" + \
            (f" (it ended the other {len(procs) - len(alive)})" if len(alive) < len(procs) else "")
    return f"{what} running after the run{'s' if runs > 1 else ''} ended ({shown}); {ended}"
