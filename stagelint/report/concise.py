"""One line per finding: `path:line:col: CODE [name] message` (flake8/ruff concise)."""

from __future__ import annotations


def line_for(f) -> str:
    return f"{f.path}:{f.line}:{f.column}: {f.code} [{f.name}] {f.message}"


def render(result, out) -> None:
    for f in result.findings:
        out.write(line_for(f) + "\n")
    from stagelint.report.full import summary

    out.write(summary(result) + "\n")
