"""SARIF 2.1.0, for GitHub code scanning and other SARIF viewers.

One run; the rules (with descriptions and help rendered from the rule classes, like
`stagelint rule CODE`) under `tool.driver.rules`; one result per finding, with its fix as a
SARIF `fix` where it has one. Paths below the working directory are written relative to it
under `%SRCROOT%` (GitHub resolves them against the repository root when stagelint runs from
there); other paths as absolute `file://` URIs. Columns count Unicode code points, as
stagelint's do, and the run says so (`columnKind`): SARIF's default is UTF-16 code units.

Each rule has its page in `help`, a `helpUri` when the `rule-url` setting gives one
(`stagelint.ruleurls`), and a level
(`defaultConfiguration.level`, and the same `level` on its results): `error` where staged code
computes or does something else than it says, `warning` where it only costs time (retracing,
unrolled loops, a discarded op). Each result has `partialFingerprints["stagelint/v1"]`: a hash
of the rule, the function and the offending source line with its whitespace normalised (plus
`:N` for the N-th identical one in the file), so an alert keeps its identity when lines above
it move.

Notebooks: SARIF addresses a file by its lines, and a notebook file is JSON. The region is the
line of the `.ipynb` file that holds the offending source line (nbformat writes one line of a
cell per line of the file), which is the line GitHub code scanning shows and links to; the
cell, the line in the cell and the column are in the result's `properties` (`cell`,
`cellLine`, `cellColumn`) and in its message. A notebook finding carries no SARIF `fix` (its
edits are in cell coordinates; `stagelint check --fix` applies them).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from stagelint.rules import severity as level

SCHEMA_URI = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"


def _uri(path: str) -> dict:
    p = Path(path)
    absolute = p.resolve()
    try:
        rel = absolute.relative_to(Path.cwd().resolve())
    except ValueError:
        return {"uri": absolute.as_uri()}
    # Relative URI references: percent-encode what a URI cannot hold (spaces, `#`, `%`).
    from urllib.parse import quote

    return {"uri": quote(rel.as_posix()), "uriBaseId": "%SRCROOT%"}


def _rule_descriptor(rule, url_template: str) -> dict:
    from stagelint.report.docs import render_rule, rule_url

    sections = rule.doc_sections()
    what = " ".join(sections.get("What it does", "").split())
    descriptor = {
        "id": rule.code,
        "name": rule.name,
        "shortDescription": {"text": rule.summary() or rule.name},
        "fullDescription": {"text": what or rule.summary() or rule.name},
        "help": {"text": _plain(rule), "markdown": render_rule(rule)},
        "defaultConfiguration": {"level": level(rule.code)},
        "properties": {
            "tags": ["tensorflow", "tf.function"] + (["runtime"] if rule.runtime_only else []),
            "fixable": bool(rule.fixable),
        },
    }
    url = rule_url(rule.code, url_template)
    if url is not None:  # SARIF's helpUri is optional; `help` carries the page itself
        descriptor["helpUri"] = url
    return descriptor


def _plain(rule) -> str:
    """The help as plain text: why it is wrong and what to write instead."""
    sections = rule.doc_sections()
    parts = []
    for title in ("Why is this bad?", "Use instead"):
        body = sections.get(title, "").strip()
        if body:
            parts.append(f"{title}\n{body}")
    return "\n\n".join(parts) or rule.summary() or rule.name


def _region(line: int, column: int, end_line: int, end_column: int) -> dict:
    region = {"startLine": max(1, line), "startColumn": max(1, column)}
    if end_line >= line:
        region["endLine"] = end_line
        if end_line > line or end_column > column:
            region["endColumn"] = max(1, end_column)
    return region


def _fix(finding) -> dict:
    # Explicit ends: a region without endColumn would run to the end of its line.
    replacements = [
        {
            "deletedRegion": {"startLine": e.line, "startColumn": e.column,
                              "endLine": e.end_line, "endColumn": e.end_column},
            "insertedContent": {"text": e.text},
        }
        for e in finding.fix.edits
    ]
    return {
        "description": {"text": f"Apply the {finding.code} fix (stagelint check --fix"
                                f"{'' if finding.fix.safe else ' --unsafe-fixes'}){'' if finding.fix.safe else '; unsafe: review it'}"},
        "artifactChanges": [{"artifactLocation": _uri(finding.path), "replacements": replacements}],
    }


def fingerprint(f, lines: list[str], seen: dict) -> str:
    """Stable across line shifts: the rule, the function and the source line's words."""
    text = " ".join(lines[f.line - 1].split()) if 1 <= f.line <= len(lines) else ""
    key = (f.path, f.code, f.function or "", text)
    seen[key] = n = seen.get(key, 0) + 1
    data = "\0".join((f.code, f.function or "", text)).encode("utf-8")
    return f"{hashlib.sha256(data).hexdigest()[:32]}:{n}"


def notebook_line(f, cache: dict) -> int:
    from stagelint.pipeline.files import read_source
    from stagelint.notebooks import json_line

    key = ("json", f.path)
    if key not in cache:
        try:
            cache[key] = read_source(f.path)
        except OSError:
            cache[key] = b""
    return json_line(cache[key], f.cell, f.line) or 1


def build(result) -> dict:
    from stagelint import __version__
    from stagelint.rules import all_rules

    rules = all_rules()
    index = {r.code: i for i, r in enumerate(rules)}
    from stagelint.report.full import _lines

    results = []
    lines: dict = {}
    seen: dict[tuple, int] = {}
    for f in result.findings:
        message = f.message
        region = _region(f.line, f.column, f.end_line, f.end_column)
        properties = {}
        if f.entry_point or f.function:
            properties = {"function": f.function, "entryPoint": f.entry_point}
        if f.cell is not None:
            region = {"startLine": notebook_line(f, lines)}
            properties.update(cell=f.cell, cellLine=f.line, cellColumn=f.column)
            message += f" (notebook cell {f.cell}, line {f.line}, column {f.column})"
        res = {
            "ruleId": f.code,
            "level": level(f.code),
            "message": {"text": message},
            "locations": [{
                "physicalLocation": {
                    "artifactLocation": _uri(f.path),
                    "region": region,
                },
            }],
            "partialFingerprints": {"stagelint/v1": fingerprint(f, _lines(f.path, lines, f.cell), seen)},
        }
        if f.because:  # the proof: each fact where it is seen (`Finding.because`)
            res["relatedLocations"] = [
                {"id": i, "message": {"text": n.message},
                 "physicalLocation": {"artifactLocation": _uri(n.path), "region": _region(n.line, n.column, n.line, n.column)}}
                for i, n in enumerate(f.because, start=1)
            ]
        if f.code in index:
            res["ruleIndex"] = index[f.code]
        if properties:
            res["properties"] = properties
        if f.fix is not None and f.cell is None:
            res["fixes"] = [_fix(f)]
        results.append(res)
    notifications = [
        {"level": "error", "message": {"text": f"{path}: {reason}"},
         "locations": [{"physicalLocation": {"artifactLocation": _uri(path)}}]}
        for path, reason in result.skipped
    ] + [
        {"level": "error", "message": {"text": f"internal error in {where} on {path}"},
         "locations": [{"physicalLocation": {"artifactLocation": _uri(path)}}]}
        for path, where, _ in result.errors if not path.startswith("<")
    ]
    invocation = {"executionSuccessful": not (result.skipped or result.errors)}
    if notifications:
        invocation["toolExecutionNotifications"] = notifications
    return {
        "$schema": SCHEMA_URI,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "stagelint",
                "version": __version__,
                "semanticVersion": __version__,
                "rules": [_rule_descriptor(r, result.rule_url) for r in rules],
            }},
            "originalUriBaseIds": {"%SRCROOT%": {"uri": Path.cwd().resolve().as_uri() + "/"}},
            "columnKind": "unicodeCodePoints",
            "invocations": [invocation],
            "results": results,
        }],
    }


def render(result, out) -> None:
    json.dump(build(result), out, indent=2)
    out.write("\n")
