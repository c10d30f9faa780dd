"""GitLab Code Quality: the JSON array a job's `artifacts:reports:codequality` file holds, which
GitLab shows in the merge request widget and on the diff.

Each finding is one issue with the fields GitLab documents: `description`, `check_name` (the
code), `fingerprint` (unique in the report and stable when lines above move: the SARIF
fingerprint of rule, function and source line, with the path), `severity` (`major` for an
error-level rule, `minor` for a warning-level one: `Rule.severity`) and `location` (`path`
relative to the repository, `lines.begin` and `lines.end`). Paths are made relative to
`$CI_PROJECT_DIR` when GitLab sets it (the job's checkout), else to the working directory. In
a notebook the line is the `.ipynb` file's line that holds the source line, as in SARIF. A
path that could not be checked is an issue of severity `critical` (check name `stagelint`)."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from stagelint.rules import severity

_SEVERITY = {"error": "major", "warning": "minor"}


def _relative(path: str) -> str:
    base = Path(os.environ.get("CI_PROJECT_DIR") or Path.cwd()).resolve()
    try:
        return Path(path).resolve().relative_to(base).as_posix()
    except ValueError:
        return Path(path).as_posix()


def issues(result) -> list[dict]:
    from stagelint.report.full import _lines
    from stagelint.report.sarif import fingerprint, notebook_line

    out = []
    lines: dict = {}
    seen: dict = {}
    for f in result.findings:
        path = _relative(f.path)
        print_id = fingerprint(f, _lines(f.path, lines, f.cell), seen)
        if f.cell is not None:
            begin = end = notebook_line(f, lines)
            description = f"{f.message} (notebook cell {f.cell}, line {f.line}, column {f.column})"
        else:
            begin, end, description = f.line, max(f.line, f.end_line), f.message
        out.append({
            "description": f"{f.code} {f.name}: {description}",
            "check_name": f.code,
            "fingerprint": hashlib.sha256(f"{path}\0{print_id}".encode()).hexdigest(),
            "severity": _SEVERITY[severity(f.code)],
            "location": {"path": path, "lines": {"begin": begin, "end": end}},
        })
    for path, reason in result.skipped:
        out.append({
            "description": f"{path}: {reason}",
            "check_name": "stagelint",
            "fingerprint": hashlib.sha256(f"{_relative(path)}\0skipped\0{reason}".encode()).hexdigest(),
            "severity": "critical",
            "location": {"path": _relative(path), "lines": {"begin": 1}},
        })
    return out


def render(result, out) -> None:
    json.dump(issues(result), out, indent=2)
    out.write("\n")
