"""`--report FILE.html`: the place to understand a run, as one self-contained page.

A summary first (verdicts, how each run ended, tests in both modes); then each finding with its
message, its source lines, its verdict and the evidence behind it (the joined calls: eager and
graph results, traces, how often the line ran, the output each mode wrote); then each staged
function with its calls and traces over the run as an inline SVG chart and the causes of its
retraces; then every test with its outcome in both modes.

No script, no external resource (a Content-Security-Policy forbids them, so a browser would say
if one slipped in), and everything that comes from the user's code or tests (names, values,
messages, source lines, output) is escaped: it is text, never markup.
"""

from __future__ import annotations

import os
from html import escape

from stagelint import __version__
from stagelint.report.docs import rule_url
from stagelint.runtime.compare import Pair, describe_result, error_line
from stagelint.runtime import retraces
from stagelint.runtime.evidence import norm, short_test
from stagelint.runtime.executor import output_tail
from stagelint.runtime.records import Call
from stagelint.runtime.report import VERDICT_ORDER, FunctionDetail, Report
from stagelint.runtime.verdicts import Verdict, relpath

#: Joined calls shown per finding and per function (the rest are counted).
MAX_CALL_ROWS = 12
#: Characters of captured output shown per call and mode.
MAX_OUTPUT = 300
#: Lines of source shown around a finding.
CONTEXT_LINES = 2
#: Points drawn per chart line (longer runs are sampled, keeping the first and last call).
MAX_POINTS = 400

_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:"

_STYLE = """
:root { --red: #b3261e; --green: #1e7b34; --grey: #666; --line: #d0d0d0; --soft: #f5f5f5; }
body { font: 15px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 0 auto; max-width: 1100px;
       padding: 1.5em 2em 4em; color: #1d1d1d; }
h1 { font-size: 1.5em; margin-bottom: .2em; } h2 { margin-top: 2em; border-bottom: 1px solid var(--line); }
h3 { font-size: 1.05em; margin: 0 0 .4em; }
code, pre { font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace; font-size: .9em; }
code { background: var(--soft); padding: 0 3px; border-radius: 3px; }
pre { background: var(--soft); padding: .6em .8em; overflow-x: auto; margin: .4em 0; white-space: pre-wrap;
      overflow-wrap: anywhere; }
td code, .note code { overflow-wrap: anywhere; }
table { border-collapse: collapse; margin: .6em 0; font-size: .92em; }
th, td { border: 1px solid var(--line); padding: 3px 8px; text-align: left; vertical-align: top; }
th { background: var(--soft); font-weight: 600; }
td.num, th.num { text-align: right; }
nav a { margin-right: 1.2em; }
.tiles { display: flex; flex-wrap: wrap; gap: .8em; margin: 1em 0; }
.tile { border: 1px solid var(--line); border-radius: 6px; padding: .5em 1em; min-width: 8em; }
.tile b { display: block; font-size: 1.6em; }
.confirmed, .differ, .failed, .error { color: var(--red); }
.not-reproduced, .same, .passed { color: var(--green); }
.not-exercised, .not-compared, .skipped, .not-run, .zero { color: var(--grey); }
.verdict { font-weight: 600; text-transform: none; }
.note { border-left: 4px solid var(--red); padding: .3em .8em; background: #fdf0ef; }
article { border: 1px solid var(--line); border-radius: 6px; padding: .8em 1em; margin: 1em 0; }
.src .ln { color: var(--grey); user-select: none; display: inline-block; min-width: 3em; }
.src .hit { background: #fff3c4; display: block; }
.evidence { font-weight: 500; }
tr.differ td, tr.disagree td { background: #fdf0ef; }
.muted { color: var(--grey); }
svg { display: block; margin: .4em 0; }
svg text { font: 11px system-ui, sans-serif; fill: #444; }
"""

_EXIT_MEANING = {0: "nothing confirmed", 1: "a finding was confirmed or a runtime-only finding made",
                 2: "a run did not finish: the results are partial"}


def _e(value) -> str:
    return escape(str(value), quote=True)


def _table(header: list[str], rows: list[list[str]], classes: list[str] | None = None,
           numeric: tuple[int, ...] = ()) -> str:
    """Header cells are plain text (escaped here); body cells are HTML already escaped by the caller."""
    num = ' class="num"'
    head = "".join(f"<th{num if i in numeric else ''}>{_e(h)}</th>" for i, h in enumerate(header))
    body = []
    for n, row in enumerate(rows):
        cls = f' class="{_e(classes[n])}"' if classes and classes[n] else ""
        cells = "".join(f"<td{num if i in numeric else ''}>{c}</td>" for i, c in enumerate(row))
        body.append(f"<tr{cls}>{cells}</tr>")
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"


def _plural(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


def _clip(text: str, limit: int = MAX_OUTPUT) -> str:
    return text if len(text) <= limit else text[:limit - 3] + "..."


def _sentence(text: str) -> str:
    """`text` as a sentence: its first word capitalised, unless it is a name as written (a path,
    a module, an identifier), which keeps its case."""
    word = text.split(" ", 1)[0]
    return text[0].upper() + text[1:] if word.isalpha() and word.islower() else text


# Summary ----------------------------------------------------------------------------------------

def _summary(report: Report, data: dict) -> str:
    verdicts = report.verdicts
    counts = {k: sum(1 for v in verdicts if v.verdict == k and not v.runtime_only) for k in VERDICT_ORDER}
    runtime_only = sum(1 for v in verdicts if v.runtime_only)
    tiles = [(counts["confirmed"], "confirmed", "confirmed"), (counts["not-reproduced"], "not reproduced",
             "not-reproduced"), (counts["not-exercised"], "not exercised", "not-exercised"),
             (runtime_only, "runtime-only", "confirmed" if runtime_only else "not-exercised"),
             (len(report.test_failures), "test failures", "failed" if report.test_failures else "passed")]
    parts = ["<div class=\"tiles\">"]
    # A count of zero is no news, good or bad: "0 not reproduced" in green would claim a check that
    # may never have run.
    parts += [f"<div class=\"tile {cls if n else 'zero'}\"><b>{n}</b> {_e(label)}</div>" for n, label, cls in tiles]
    parts.append("</div>")
    code = report.exit_code()
    parts.append(f"<p>Exit code <b>{code}</b>: {_e(_EXIT_MEANING[code])}.</p>")
    said = (report.failure_message(), report.thread_warning(), report.process_warning())
    notes = [n.removeprefix("stagelint run: ") for n in said if n]
    parts += [f"<p class=\"note\"><strong>{_e(_sentence(n))}.</strong></p>" for n in notes]
    rows = []
    for mode, status in report.runs.items():
        run = data["runs"][mode]
        t = run["tests"]
        during = f" during <code>{_e(status.test)}</code>" if status.test else ""
        cls = "passed" if status.status == "ok" else "failed"
        ended = f"<span class=\"{cls}\">{_e(status.describe())}</span>"
        rows.append([_e(mode), ended + during, f"{status.seconds:.1f} s", str(t["passed"]), str(t["failed"]),
                     str(t["errors"]), str(run["calls"])])
    parts.append(_table(["run", "status", "time", "passed", "failed", "errors", "staged calls"], rows,
                        numeric=(2, 3, 4, 5, 6)))
    static = report.static
    if static.get("error"):
        parts.append(f"<p>Static analysis: {_e(static['error'])}</p>")
    else:
        files = static.get("files", [])
        listing = "".join(f"<li><code>{_e(f)}</code></li>" for f in files)
        parts.append(f"<details><summary>Static analysis: {_plural(static.get('findings', 0), 'finding')} in "
                     f"{_plural(len(files), 'file')}</summary><ul>{listing}</ul></details>")
    for error in static.get("errors", []):
        parts.append(f"<p class=\"muted\">Not analysed: {_e(error)}</p>")
    return "".join(parts)


# Findings ---------------------------------------------------------------------------------------

def _source(path: str, line: int) -> str:
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            lines = f.read().splitlines()
    except OSError:
        return ""
    first, last = max(1, line - CONTEXT_LINES), min(len(lines), line + CONTEXT_LINES)
    if first > last:
        return ""
    out = []
    for n in range(first, last + 1):
        text = f"<span class=\"ln\">{n} </span>{_e(lines[n - 1])}"
        out.append(f"<span class=\"hit\">{text}</span>" if n == line else text + "\n")
    return f"<pre class=\"src\">{''.join(out)}</pre>"


def _result(call: Call) -> str:
    if call.error:
        return f"raised <code>{_e(error_line(call.error))}</code>"
    return f"<code>{_e(describe_result(call.result))}</code>"


def _line_runs(call: Call, path: str, line: int) -> int:
    return sum(n for (f, ln), n in call.lines.items() if ln == line and f and norm(f) == path)


def _output(pair: Pair) -> str:
    eager, graph = pair.eager.output.strip(), pair.graph.output.strip()
    if not eager and not graph:
        return ""
    return (f"eager: <code>{_e(_clip(eager)) if eager else '(none)'}</code><br>"
            f"graph: <code>{_e(_clip(graph)) if graph else '(none)'}</code>")


_KIND_TEXT = {"same": "same", "rounding": "same within float rounding", "differ": "differ", "shapes-same": "same shapes (random ops)",
              "shapes-differ": "shapes differ", "inputs-differ": "inputs differ (not compared)",
              "graph-error": "graph raised", "eager-error": "eager raised", "both-error": "both raised"}
_BAD = ("differ", "shapes-differ", "graph-error", "eager-error")


def _pairs_table(report: Report, pairs: list[Pair], path: str | None = None, line: int | None = None) -> str:
    """The joined calls, those that differ first, as a table (eager result, graph result, traces,
    how often the finding's line ran, the output of each mode)."""
    if not pairs:
        return ""
    ordered = sorted(pairs, key=lambda p: p.kind not in _BAD)  # stable: in the order the calls ran
    shown = ordered[:MAX_CALL_ROWS]
    with_lines = path is not None and any(_line_runs(p.eager, path, line) or _line_runs(p.graph, path, line)
                                          for p in shown)
    with_output = any(p.eager.output.strip() or p.graph.output.strip() for p in shown)
    header = ["test", "call", "eager", "graph", "traced", "eager vs graph"]
    header += [f"line {line} ran (eager / graph)"] if with_lines else []
    header += ["output"] if with_output else []
    rows, classes = [], []
    for p in shown:
        row = [f"<code>{_e(short_test(p.graph.test))}</code>",
               f"{p.graph.index + 1} of <code>{_e(report.evidence.name(p.key))}</code>",
               _result(p.eager), _result(p.graph), "yes" if p.graph.traced else "no",
               _e(_KIND_TEXT.get(p.kind, p.kind))]
        if with_lines:
            row.append(f"{_line_runs(p.eager, path, line)} / {_line_runs(p.graph, path, line)}")
        if with_output:
            row.append(_output(p))
        rows.append(row)
        classes.append("differ" if p.kind in _BAD else "")
    more = len(ordered) - len(shown)
    tail = f"<p class=\"muted\">{_plural(more, 'more joined call')} not shown.</p>" if more > 0 else ""
    return _table(header, rows, classes) + tail


def _tag(v: Verdict) -> str:
    return "runtime-only" if v.runtime_only else v.verdict


def _rule_link(code: str, url_template: str) -> str:
    """The rule's code, linked to its page when the `rule-url` setting gives one."""
    url = rule_url(code, url_template)
    return _e(code) if url is None else f"<a href=\"{_e(url)}\">{_e(code)}</a>"


def _finding(report: Report, v: Verdict, n: int, fn_anchor: dict, url_template: str) -> str:
    f = v.finding
    tag = _tag(v)
    path = relpath(f.path)
    parts = [f"<article class=\"finding\" id=\"finding-{n}\"><h3>{_rule_link(f.code, url_template)} "
             f"{_e(f.name)} <span class=\"verdict {_e(v.verdict)}\">[{_e(tag)}]</span> "
             f"<code>{_e(path)}:{f.line}:{f.column}</code></h3>"]
    if f.message and not v.runtime_only:
        parts.append(f"<p>{_e(f.message)}</p>")
    parts.append(_source(f.path, f.line))
    parts.append(f"<p class=\"evidence\">Evidence: {_e(v.evidence)}</p>")
    ev = report.evidence
    keys = sorted(v.keys)
    if keys:
        links = ", ".join(f"<a href=\"#{fn_anchor[k]}\"><code>{_e(ev.name(k))}</code></a>" if k in fn_anchor
                          else f"<code>{_e(ev.name(k))}</code>" for k in keys)
        calls = sum(len(ev.graph_calls.get(k, ())) for k in keys)
        traces = sum(c.traced for k in keys for c in ev.graph_calls.get(k, ()))
        parts.append(f"<p>Staged code that holds it: {links}: {_plural(calls, 'call')}, {_plural(traces, 'trace')} "
                     "in the graph run.</p>")
        pairs = [p for k in keys for p in ev.pairs_by_key.get(k, ())]
        if v.tests:
            pairs = [p for p in pairs if p.graph.test in v.tests] or pairs
        parts.append(_pairs_table(report, pairs, norm(f.path), f.line))
    elif v.tests:
        rows = [[f"<code>{_e(t)}</code>", _status(report.graph, t), _status(report.eager, t)] for t in sorted(v.tests)]
        parts.append(_table(["test", "graph", "eager"], rows))
    parts.append("</article>")
    return "".join(parts)


# Staged functions -------------------------------------------------------------------------------

def chart(calls: list[Call], pairs: list[Pair], label: str) -> str:
    """Calls and traces over the run: the cumulative count of calls (grey diagonal) and of traces
    (red steps, a dot per call that traced), with a mark under each call whose results differed."""
    n = len(calls)
    if n == 0:
        return ""
    width, height, left, right, top, bottom = 440, 150, 40, 12, 10, 34
    plot_w, plot_h = width - left - right, height - top - bottom
    traces = [0]
    for c in calls:
        traces.append(traces[-1] + c.traced)
    top_value = max(n, traces[-1], 1)

    def x(i: float) -> float:
        return left + plot_w * i / n

    def y(v: float) -> float:
        return top + plot_h * (1 - v / top_value)

    step = max(1, n // MAX_POINTS)
    picked = sorted(set(range(0, n + 1, step)) | {n})
    calls_line = " ".join(f"{x(i):.1f},{y(i):.1f}" for i in picked)
    # Steps: the count of traces rises at the call that traced.
    trace_points = [f"{x(0):.1f},{y(0):.1f}"]
    for before, i in zip(picked, picked[1:]):
        trace_points.append(f"{x(i):.1f},{y(traces[before]):.1f}")
        trace_points.append(f"{x(i):.1f},{y(traces[i]):.1f}")
    dots = "".join(f"<circle cx=\"{x(i + 1):.1f}\" cy=\"{y(traces[i + 1]):.1f}\" r=\"2.5\" fill=\"#b3261e\"/>"
                   for i, c in enumerate(calls) if c.traced and traces[-1] <= MAX_POINTS)
    bad = {id(p.graph) for p in pairs if p.kind in _BAD}
    marks = "".join(f"<line x1=\"{x(i + 1):.1f}\" x2=\"{x(i + 1):.1f}\" y1=\"{top + plot_h + 4}\" "
                    f"y2=\"{top + plot_h + 10}\" stroke=\"#e8710a\" stroke-width=\"2\"/>"
                    for i, c in enumerate(calls) if id(c) in bad)
    axis = (f"<line x1=\"{left}\" y1=\"{top + plot_h}\" x2=\"{left + plot_w}\" y2=\"{top + plot_h}\" stroke=\"#999\"/>"
            f"<line x1=\"{left}\" y1=\"{top}\" x2=\"{left}\" y2=\"{top + plot_h}\" stroke=\"#999\"/>"
            f"<text x=\"{left - 6}\" y=\"{top + 4}\" text-anchor=\"end\">{top_value}</text>"
            f"<text x=\"{left - 6}\" y=\"{top + plot_h}\" text-anchor=\"end\">0</text>"
            f"<text x=\"{left + plot_w}\" y=\"{height - 8}\" text-anchor=\"end\">{_plural(n, 'call')}</text>"
            f"<text x=\"{left}\" y=\"{height - 8}\">0</text>")
    legend = (f"<text x=\"{left + 8}\" y=\"{top + 12}\" fill=\"#888\">calls so far (dashed)</text>"
              f"<text x=\"{left + 8}\" y=\"{top + 26}\" fill=\"#b3261e\">traces so far: {traces[-1]}</text>"
              + (f"<text x=\"{left + 8}\" y=\"{top + 40}\" fill=\"#e8710a\">| a call whose results differ</text>"
                 if marks else ""))
    title = f"{label}: {_plural(n, 'call')}, {_plural(traces[-1], 'trace')} over the graph run"
    return (f"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{height}\" "
            f"viewBox=\"0 0 {width} {height}\" role=\"img\" aria-label=\"{_e(title)}\"><title>{_e(title)}</title>"
            f"{axis}<polyline points=\"{calls_line}\" fill=\"none\" stroke=\"#aaa\" stroke-dasharray=\"4 3\"/>"
            f"<polyline points=\"{' '.join(trace_points)}\" fill=\"none\" stroke=\"#b3261e\" stroke-width=\"2\"/>"
            f"{dots}{marks}{legend}</svg>")


def retrace_causes(report: Report, d: FunctionDetail) -> list[str]:
    """Why the function traced more than once, grouped by cause, with the framework's remedy."""
    fn = report.evidence.functions.get(d.key)
    if d.row.get("via") or fn is None:
        return []
    return [c.text(fn.framework == "jax") for c in retraces.causes(report.evidence.traces(d.key))]


def _function(report: Report, d: FunctionDetail, anchor: str) -> str:
    row = d.row
    label = row["name"]
    via = f" (run by <code>{_e(row['via'])}</code>)" if row.get("via") else ""
    parts = [f"<article class=\"function\" id=\"{anchor}\"><h3><code>{_e(label)}</code>{via} "
             f"<span class=\"{_e(row['eager_vs_graph'])}\">[eager vs graph: {_e(row['eager_vs_graph'])}]</span></h3>",
             f"<p><code>{_e(row['path'])}:{row['line']}</code>: {_plural(row['calls'], 'call')} and "
             f"{_plural(row['traces'], 'trace')} in the graph run, {_plural(row['eager_calls'], 'call')} joined with "
             f"the eager run; compared by {_e(row['compared'])}.</p>",
             chart(d.calls, d.pairs, label)]
    causes = retrace_causes(report, d)
    if causes:
        parts.append("<p>Retrace causes:</p><ul>" + "".join(f"<li>{_e(c)}</li>" for c in causes) + "</ul>")
    if d.row.get("retraces"):
        parts.append("<details><summary>Why each trace happened</summary><ol>"
                     + "".join(f"<li>trace {r['trace']} ({_e(short_test(r['test']))}, call {r['call']}): "
                               f"{_e(r['why'])}</li>" for r in d.row["retraces"]) + "</ol></details>")
    if row["signatures"]:
        parts.append("<details><summary>Traced signatures</summary><ul>"
                     + "".join(f"<li><code>{_e(s)}</code></li>" for s in row["signatures"]) + "</ul></details>")
    bad = [p for p in d.pairs if p.kind in _BAD]
    if bad:
        parts.append("<p>Calls where the two modes disagree:</p>" + _pairs_table(report, bad))
    parts.append("</article>")
    return "".join(parts)


# Tests ------------------------------------------------------------------------------------------

def _status(run, nodeid: str) -> str:
    status = run.test_status(nodeid) if nodeid in run.tests else "not-run"
    return f"<span class=\"{_e(status)}\">{_e(status)}</span>"


def _tests(report: Report) -> str:
    graph, eager = report.graph, report.eager
    nodeids = list(dict.fromkeys([*graph.tests, *eager.tests]))
    if not nodeids and not report.test_failures:
        return "<p>No test ran.</p>"
    parts, rows, classes = [], [], []
    for nodeid in nodeids:
        g = graph.test_status(nodeid) if nodeid in graph.tests else "not-run"
        e = eager.test_status(nodeid) if nodeid in eager.tests else "not-run"
        why = [f"{run.mode}: {run.failure(nodeid)}" for run in (graph, eager)
               if run.test_status(nodeid) in ("failed", "error") and run.failure(nodeid)]
        rows.append([f"<code>{_e(nodeid)}</code>", _status(graph, nodeid), _status(eager, nodeid),
                     "<br>".join(f"<code>{_e(w)}</code>" for w in why)])
        classes.append("disagree" if g != e else "")
    if rows:  # none when the module failed to import: the note below says why
        parts.append(_table(["test", "graph", "eager", "failure"], rows, classes))
    both = [t for t in report.test_failures if t.get("both") and t.get("when") != "collect"]
    if both:
        parts.append(f"<p>{_plural(len(both), 'test')} fail{'s' if len(both) == 1 else ''} in both modes: a bug in the "
                     "test or the code, not a staging pitfall.</p>")
    collect = [t for t in report.test_failures if t.get("when") == "collect"]
    for t in collect:
        parts.append(f"<p class=\"note\"><code>{_e(t['test'])}</code> could not be collected in "
                     f"{_e(' and '.join(t['modes']))}: <code>{_e(t.get('graph') or t.get('eager') or '')}</code></p>")
    return "".join(parts)


def _stopped_output(report: Report) -> str:
    parts = []
    for mode, status in report.runs.items():
        if status.status != "ok" and status.output_path and os.path.exists(status.output_path):
            tail = output_tail(status, 20).rstrip()
            if tail:
                parts.append(f"<h3>Last output of the {_e(mode)} run</h3><pre>{_e(tail)}</pre>")
    return "".join(parts)


def render_html(report: Report, url_template: str = "") -> str:
    """The page; `url_template` is the `rule-url` setting (no links to rule pages when empty)."""
    data = report.to_json()
    details = report.function_details()
    anchors: dict = {}  # a finding links to its function's section (the first row run by a library one)
    for n, d in sorted(enumerate(details, start=1), key=lambda nd: bool(nd[1].row.get("via"))):
        anchors.setdefault(d.key, f"fn-{n}")
    verdicts = report.sorted_verdicts()
    parts = [f"<header><h1>stagelint run <code>{_e(data['module'])}</code></h1>",
             "<nav><a href=\"#summary\">Summary</a><a href=\"#findings\">Findings</a>"
             "<a href=\"#functions\">Staged functions</a><a href=\"#tests\">Tests</a></nav></header>",
             f"<section id=\"summary\"><h2>Summary</h2>{_summary(report, data)}</section>",
             "<section id=\"findings\"><h2>Findings</h2>"]
    if verdicts:
        rows = [[f"<a href=\"#finding-{n}\"><code>{_e(relpath(v.finding.path))}:{v.finding.line}</code></a>",
                 _rule_link(v.finding.code, url_template), _e(v.finding.name),
                 f"<span class=\"verdict {_e(v.verdict)}\">{_e(_tag(v))}</span>"]
                for n, v in enumerate(verdicts, start=1)]
        parts.append(_table(["where", "code", "name", "verdict"], rows))
        parts += [_finding(report, v, n, anchors, url_template) for n, v in enumerate(verdicts, start=1)]
    else:
        parts.append("<p>No finding.</p>")
    parts.append("</section><section id=\"functions\"><h2>Staged functions</h2>")
    if details:
        rows = [[f"<a href=\"#fn-{n}\"><code>{_e(d.row['name'])}</code></a>"
                 + (f" <span class=\"muted\">via {_e(d.row['via'].rsplit('.', 1)[-1])}</span>"
                    if d.row.get("via") else ""),
                 f"<code>{_e(d.row['path'])}:{d.row['line']}</code>", str(d.row["calls"]), str(d.row["traces"]),
                 f"<span class=\"{_e(d.row['eager_vs_graph'])}\">{_e(d.row['eager_vs_graph'])}</span>"]
                for n, d in enumerate(details, start=1)]
        parts.append(_table(["function", "where", "calls", "traces", "eager vs graph"], rows, numeric=(2, 3)))
        parts += [_function(report, d, f"fn-{n}") for n, d in enumerate(details, start=1)]
    else:
        parts.append("<p>No staged function of the project was called.</p>")
    parts.append(f"</section><section id=\"tests\"><h2>Tests</h2>{_tests(report)}{_stopped_output(report)}</section>")
    parts.append(f"<footer><p class=\"muted\">stagelint {_e(__version__)}</p></footer>")
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<meta http-equiv=\"Content-Security-Policy\" content=\"{_CSP}\">"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            f"<title>stagelint run {_e(data['module'])}</title><style>{_STYLE}</style></head>"
            f"<body>{''.join(parts)}</body></html>\n")
