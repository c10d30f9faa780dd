"""Findings with the source line (in a notebook: the line of the cell) and a caret underline,
like ruff's full output."""

from __future__ import annotations

from stagelint.pipeline.files import read_source
from stagelint.report.colors import PLAIN
from stagelint.report.concise import closing, line_for


def _lines(path: str, cache: dict, cell: int | None = None) -> list[str]:
    """The file's lines, or (in a notebook) those of the finding's cell."""
    if (path, cell) not in cache:
        try:
            data = read_source(path)  # (a file the check read: in the project, a regular file)
        except OSError:
            data = b""
        if cell is not None:
            from stagelint.notebooks import cached

            nb = cached(path, data)
            found = nb.cell(cell) if nb is not None else None
            cache[path, cell] = found.source.splitlines() if found is not None else []
        else:
            cache[path, cell] = data.decode("utf-8", errors="replace").lstrip("\ufeff").splitlines()
    return cache[path, cell]


def excerpt(f, lines: list[str], paint=PLAIN) -> str:
    if not 1 <= f.line <= len(lines):
        return ""
    text = lines[f.line - 1].expandtabs(1).rstrip("\n")
    width = len(str(f.line))
    start = max(0, f.column - 1)
    end = f.end_column - 1 if f.end_line == f.line else len(text)
    carets = "^" * max(1, end - start)
    pad = " " * width
    bar = paint(f"{pad} |", "blue")
    return (
        f"{bar}\n"
        f"{paint(f'{f.line} |', 'blue')} {text}\n"
        f"{bar} {' ' * start}{paint(f'{carets} {f.code}', 'bold', 'red')}\n"
        f"{bar}\n"
    )


def notes(f, lines: list[str], paint=PLAIN) -> str:
    """The finding's proof under its excerpt, one fact a line, each with where it is seen
    (`Finding.because`), as rustc and ruff print their notes."""
    pad = " " * (len(str(f.line)) if 1 <= f.line <= len(lines) else 1)
    return "".join(f"{pad} {paint('=', 'blue')} because: {n.message} ({n.location})\n" for n in f.because)


def render(result, out, summary: bool = True, paint=PLAIN, unsafe_fixes: bool = False) -> None:
    cache: dict = {}
    for f in result.findings:
        out.write(line_for(f, paint, unsafe_fixes) + "\n")
        lines = _lines(f.path, cache, f.cell)
        out.write(excerpt(f, lines, paint) + notes(f, lines, paint) + "\n")
    if summary:
        out.write(closing(result, paint, unsafe_fixes) + "\n")
