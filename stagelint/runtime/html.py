"""`--report FILE.html`: the same report as one self-contained HTML page (no scripts, no links)."""

from __future__ import annotations

from html import escape

from stagelint.runtime.report import Report

_STYLE = """
body { font-family: system-ui, sans-serif; margin: 2em; color: #222; }
table { border-collapse: collapse; margin: 1em 0; }
th, td { border: 1px solid #ccc; padding: 4px 8px; text-align: left; vertical-align: top; }
th { background: #f3f3f3; }
.confirmed { color: #a00; font-weight: bold; } .not-reproduced { color: #555; } .not-exercised { color: #888; }
code { background: #f6f6f6; padding: 0 2px; }
"""


def _table(header: list[str], rows: list[list[str]]) -> str:
    head = "".join(f"<th>{escape(h)}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{c}</td>" for c in row) + "</tr>" for row in rows)
    return f"<table><tr>{head}</tr>{body}</table>"


def render_html(report: Report) -> str:
    data = report.to_json()
    t = data["tests"]
    runs = "; ".join(f"{escape(m)}: {escape(s.describe())} in {s.seconds:.1f} s" for m, s in report.runs.items())
    parts = [f"<h1>stagelint run <code>{escape(data['module'])}</code></h1>",
             f"<p>Runs: {runs}<br>Tests: {t['passed']} passed, {t['failed']} failed, {t['errors']} errors</p>",
             "<h2>Staged functions</h2>"]
    # A run that stopped early, or threads its tests left running: the same line as on stderr.
    notes = [n.removeprefix("stagelint run: ") for n in (report.failure_message(), report.thread_warning()) if n]
    parts[2:2] = [f"<p><strong>{escape(n[0].upper() + n[1:])}.</strong></p>" for n in notes]
    parts.append(_table(["function", "where", "calls", "traces", "eager vs graph", "signatures"], [
        [f"<code>{escape(f['name'])}</code>", escape(f"{f['path']}:{f['line']}"), str(f["calls"]), str(f["traces"]),
         escape(f["eager_vs_graph"] + ("" if f["compared"] == "values" else " (shapes only)")),
         "<br>".join(escape(s) for s in f["signatures"])] for f in data["functions"]]))
    parts.append("<h2>Findings</h2>")
    parts.append(_table(["where", "code", "name", "verdict", "evidence"], [
        [escape(f"{f['path']}:{f['line']}"), escape(f["code"]), escape(f["name"]),
         f"<span class='{escape(f['verdict'])}'>{escape('runtime-only' if f['runtime_only'] else f['verdict'])}</span>",
         escape(f["evidence"])] for f in data["findings"]]))
    if data["test_failures"]:
        parts.append("<h2>Test failures</h2>")
        parts.append(_table(["test", "fails in", "error"], [
            [escape(x["test"]), escape(" and ".join(x["modes"])), escape(x.get("graph") or x.get("eager") or "")]
            for x in data["test_failures"]]))
    return (f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>stagelint run {escape(data['module'])}</title>"
            f"<style>{_STYLE}</style></head><body>{''.join(parts)}</body></html>\n")
