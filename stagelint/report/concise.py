"""One line per finding: `path:line:col: CODE [name] message` (flake8/ruff concise); in a
notebook `path:cell N:line:col: ...`; `[*]` after the code when `--fix` can fix it."""

from __future__ import annotations


def line_for(f) -> str:
    mark = " [*]" if f.fixable else ""
    return f"{f.location}: {f.code}{mark} [{f.name}] {f.message}"


def render(result, out, summary: bool = True) -> None:
    for f in result.findings:
        out.write(line_for(f) + "\n")
    if summary:
        from stagelint.report.full import closing

        out.write(closing(result) + "\n")
