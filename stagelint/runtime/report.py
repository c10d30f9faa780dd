"""The `stagelint run` report: the JSON document (spec/interfaces.md) and the `full` text.

The JSON keys `module`, `tests`, `functions`, `findings` are the contract; `runs`,
`test_failures` and `static` are additions (extend, never rename).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from stagelint.runtime.compare import Pair, random_functions
from stagelint.runtime.evidence import Evidence
from stagelint.runtime.executor import RunStatus
from stagelint.runtime.records import Call, Run
from stagelint.runtime.verdicts import Verdict, def_line, relpath

MAX_SIGNATURES = 10
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
    if any(p.kind in ("same", "shapes-same") for p in pairs):
        return "same"
    return "not-compared"


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

    def functions(self) -> list[dict]:
        ev = self.evidence
        randoms = random_functions(self.graph)
        out = []
        for key, fn in ev.functions.items():
            if not fn.project:
                continue
            graph_calls = ev.graph_calls.get(key, [])
            pairs = ev.pairs_by_key.get(key, [])
            signatures = list(dict.fromkeys(signature(c) for c in graph_calls if c.traced))
            if len(signatures) > MAX_SIGNATURES:
                signatures = signatures[:MAX_SIGNATURES] + ["..."]
            out.append({
                "name": fn.name, "path": relpath(fn.path), "line": def_line(fn.path, fn.line),
                "calls": len(graph_calls), "traces": sum(c.traced for c in graph_calls),
                "eager_vs_graph": _eager_vs_graph(pairs), "signatures": signatures,
                "eager_calls": len(ev.eager_calls.get(key, [])),
                "compared": "shapes and dtypes (stateful random ops)" if key in randoms else "values",
            })
        return sorted(out, key=lambda f: (f["path"], f["line"]))

    def sorted_verdicts(self) -> list[Verdict]:
        return sorted(self.verdicts, key=lambda v: (VERDICT_ORDER[v.verdict], relpath(v.finding.path),
                                                    v.finding.line, v.finding.code))

    def confirmed(self) -> list[Verdict]:
        return [v for v in self.verdicts if v.verdict == "confirmed"]

    def exit_code(self) -> int:
        """1 if anything was confirmed; 2 if a run could not finish (nothing confirmed); else 0."""
        if self.confirmed():
            return 1
        if any(s.status != "ok" for s in self.runs.values()):
            return 2
        return 0

    def to_json(self) -> dict:
        return {
            "module": self.module,
            "tests": self.graph.counts(),
            "functions": self.functions(),
            "findings": [v.to_json(relpath) for v in self.sorted_verdicts()],
            "runs": {mode: {"status": s.status, "detail": s.detail, "returncode": s.returncode, "seconds": s.seconds,
                            "tests": (self.graph if mode == "graph" else self.eager).counts(),
                            "calls": len((self.graph if mode == "graph" else self.eager).calls),
                            "recorder_errors": len((self.graph if mode == "graph" else self.eager).internal_errors)}
                     for mode, s in self.runs.items()},
            "test_failures": self.test_failures,
            "static": self.static,
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
    t = data["tests"]
    lines.append(f"tests: {t['passed']} passed, {t['failed']} failed, {t['errors']} errors")
    static = report.static
    if static.get("error"):
        lines.append(f"static analysis: {static['error']}")
    else:
        lines.append(f"static analysis: {static.get('findings', 0)} findings in {len(static.get('files', []))} files")
    functions = data["functions"]
    lines += ["", "Staged functions"]
    if functions:
        rows = [[f["name"], f"{f['path']}:{f['line']}", f["calls"], f["traces"], f["eager_vs_graph"]
                 + (" (shapes only)" if f["compared"] != "values" else "")] for f in functions]
        lines += _table(rows, ["function", "where", "calls", "traces", "eager vs graph"])
    else:
        lines.append("  (no staged function of the project was called)")
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
            lines.append(f"  {tf['test']}: fails in {modes}{note}: {error}")
    for mode, s in report.runs.items():
        if s.status != "ok":
            lines += ["", f"The {mode} run did not finish: {s.describe()}; records up to that point were used."]
    counts = {k: sum(1 for v in verdicts if v.verdict == k and not v.runtime_only) for k in VERDICT_ORDER}
    runtime_only = sum(1 for v in verdicts if v.runtime_only)
    lines += ["", f"{counts['confirmed']} confirmed, {counts['not-reproduced']} not reproduced, "
                  f"{counts['not-exercised']} not exercised; {runtime_only} runtime-only finding"
                  f"{'s' if runtime_only != 1 else ''}"]
    return "\n".join(lines) + "\n"
