"""Findings with the source line and a caret underline, like ruff's full output."""

from __future__ import annotations

from stagelint.report.concise import line_for


def _lines(path: str, cache: dict) -> list[str]:
    if path not in cache:
        try:
            with open(path, "rb") as fh:
                text = fh.read().decode("utf-8", errors="replace")
        except OSError:
            text = ""
        cache[path] = text.lstrip("\ufeff").splitlines()
    return cache[path]


def excerpt(f, lines: list[str]) -> str:
    if not 1 <= f.line <= len(lines):
        return ""
    text = lines[f.line - 1].expandtabs(1).rstrip("\n")
    width = len(str(f.line))
    start = max(0, f.column - 1)
    end = f.end_column - 1 if f.end_line == f.line else len(text)
    carets = "^" * max(1, end - start)
    pad = " " * width
    return (
        f"{pad} |\n"
        f"{f.line} | {text}\n"
        f"{pad} | {' ' * start}{carets} {f.code}\n"
        f"{pad} |\n"
    )


def summary(result) -> str:
    n = len(result.findings)
    text = "All checks passed!" if n == 0 else f"Found {n} finding{'s' if n != 1 else ''}."
    if result.skipped:
        text += f" {len(result.skipped)} path{'s' if len(result.skipped) != 1 else ''} skipped."
    return text


def render(result, out) -> None:
    cache: dict = {}
    for f in result.findings:
        out.write(line_for(f) + "\n")
        out.write(excerpt(f, _lines(f.path, cache)) + "\n")
    out.write(summary(result) + "\n")
