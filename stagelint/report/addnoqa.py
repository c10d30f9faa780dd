"""`stagelint check --add-noqa`: a `# noqa: CODE` on every line with a finding, ruff's way to
start clean on an existing code base (new code is then held to every rule).

The comment goes where flake8 and stagelint read it (`findings.noqa_line_map`): at the end of
the finding's line, or, when that line is part of a token or a backslash continuation that
spans lines (a triple-quoted string), at the end of the last line of it. An existing `# noqa:
CODES` there keeps its codes and gains the new ones; a blanket `# noqa` already covers
everything (and such a line has no finding). Everything else in the file stays byte for byte.
Notebooks are refused: their lines are cell lines inside JSON (run it on the `.py` files, or
use `# stagelint: noqa` in a cell)."""

from __future__ import annotations

from stagelint import notebooks
from stagelint.pipeline.files import read_source, why_not_read, write_atomically
from stagelint.findings import NOQA_RE, UNUSED_NOQA, noqa_line_map


def _target(mapping: dict[int, str], line: int) -> int:
    group = mapping.get(line)
    if group is not None:
        while mapping.get(line + 1) is group:
            line += 1
    return line


def _with_codes(text: str, codes: set[str]) -> str:
    """`text` (one line, no newline) with `# noqa: ...` naming `codes` too."""
    m = NOQA_RE.search(text)
    if m is None:
        return text.rstrip() + f"  # noqa: {','.join(sorted(codes))}"
    old = m.group("codes")
    if not old:
        return text  # a blanket noqa covers every code already
    kept = old.replace(",", " ").split()
    merged = kept + sorted(c for c in codes if c not in kept)
    rest = text[m.end():]
    return text[:m.start()] + "# noqa: " + ",".join(merged) + (" " + rest.lstrip() if rest.strip() else "")


def add_noqa(findings) -> tuple[int, dict[str, str]]:
    """Write the comments. Returns (number of lines changed, {path: reason} for files left alone)."""
    from stagelint.fix import _decode

    by_path: dict[str, dict[int, set[str]]] = {}
    refused: dict[str, str] = {}
    for f in findings:
        if f.code in ("STG000", UNUSED_NOQA):
            # A file that does not parse: a comment cannot silence it. An unused `# noqa` code:
            # the answer is to remove it (`--fix`), not to suppress the report of it.
            continue
        if notebooks.is_notebook(f.path):
            refused[f.path] = "--add-noqa does not edit notebooks; mark the cell's line by hand or add `# stagelint: noqa`"
            continue
        by_path.setdefault(f.path, {}).setdefault(f.line, set()).add(f.code)
    changed = 0
    for path, lines_codes in sorted(by_path.items()):
        try:
            # As --fix reads: never a FIFO (it would block), a device, or a link swapped in since
            # the check read the file.
            old = read_source(path)
        except OSError as e:
            refused[path] = why_not_read(e)
            continue
        text, encoding = _decode(old)
        bom = text.startswith("\ufeff")
        lines = text.splitlines(keepends=True)
        bare = [line.rstrip("\r\n") for line in lines]
        if bom:
            bare[0] = bare[0][1:]
        mapping = noqa_line_map(bare)
        wanted: dict[int, set[str]] = {}
        for line, codes in lines_codes.items():
            wanted.setdefault(_target(mapping, line), set()).update(codes)
        for line, codes in wanted.items():
            if not 1 <= line <= len(lines):
                continue
            body = lines[line - 1]
            ending = body[len(body.rstrip("\r\n")):]
            new = _with_codes(body.rstrip("\r\n"), codes)
            if new + ending != body:
                lines[line - 1] = new + ending
                changed += 1
        new_text = "".join(lines)
        if new_text != text:
            write_atomically(path, new_text.encode(encoding), prefix=".stagelint-noqa-")
    return changed, refused
