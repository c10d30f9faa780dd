"""Convert a Jupyter notebook's code cells to one Python module, line for line, for the audit.

    python bench/notebooks.py NOTEBOOK.ipynb [OUT.py]      # one notebook (stdout without OUT)

The audit keys a finding by (project, path, line, code), so the conversion must be
deterministic and its line numbers stable: the same notebook always gives the same module.

The scheme:

- every code cell, in notebook order, becomes a marker line ``# %% [cell N]`` (N counts the
  notebook's code cells from 1, markdown cells are not counted) followed by the cell's source
  verbatim, then one empty line;
- what IPython would not run as Python is commented out with ``# `` in front, keeping the line:
  line magics (``%pip install``), shell escapes (``!ls``), captured ones (``files = !ls``,
  ``x = %env``) and help requests (``tf.keras.Input?``) at the start of a statement (a ``%``
  continuing an open bracket or string is Python and is kept); an indented one becomes
  ``pass  # ...`` so that the block around it stays valid; a magic continued by a final
  backslash is commented out with its continuation lines;
- as IPython does, when a cell's first line is indented and every line shares that indentation,
  it is removed;
- a cell magic's cell (first line ``%%name``): for ``%%time``, ``%%timeit`` and ``%%capture``,
  whose body IPython runs as Python, only the magic line is commented out; for every other one
  (``%%bash``, ``%%writefile``, ...) the whole cell is, since its body is not Python run here;
- markdown and raw cells, outputs and metadata are dropped.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

#: Cell magics whose body IPython runs as ordinary Python code.
PYTHON_BODY_CELL_MAGICS = frozenset({"time", "timeit", "capture"})

_CAPTURE = re.compile(r"^\s*[A-Za-z_][\w.]*\s*=\s*[!%]")
_HELP = re.compile(r"^\s*[A-Za-z_][\w.]*\?{1,2}\s*$")


def _statement_starts(lines: list[str]) -> list[bool]:
    """For each line, whether it begins a new statement: not inside an open bracket, a string
    or a backslash continuation left open by the lines before it."""
    starts = []
    depth = 0
    quote = ""  # the open string's delimiter, for strings spanning lines ('''/""")
    continued = False
    for line in lines:
        starts.append(depth == 0 and not quote and not continued)
        continued = False
        i, n = 0, len(line)
        while i < n:
            ch = line[i]
            if quote:
                if ch == "\\":
                    i += 2
                    continue
                if line.startswith(quote, i):
                    i += len(quote)
                    quote = ""
                    continue
                i += 1
                continue
            if ch == "#":
                break
            if ch in "\"'":
                quote = line[i:i + 3] if line[i:i + 3] in ('"""', "'''") else ch
                i += len(quote)
                continue
            if ch in "([{":
                depth += 1
            elif ch in ")]}":
                depth = max(0, depth - 1)
            i += 1
        if quote in ("'", '"'):
            quote = ""  # an unterminated one-line string: a syntax error, not our concern
        if line.rstrip().endswith("\\") and not quote:
            continued = True
    return starts


def _is_ipython_line(line: str) -> bool:
    stripped = line.lstrip()
    return (stripped.startswith(("%", "!")) or bool(_CAPTURE.match(line))
            or bool(_HELP.match(line)))


def _comment(line: str) -> str:
    stripped = line.lstrip()
    indent = line[: len(line) - len(stripped)]
    return f"{indent}pass  # {stripped}" if indent else f"# {stripped}"


def convert_cell(source: str) -> list[str]:
    lines = source.split("\n")
    if lines and lines[0].startswith("%%"):
        name = lines[0][2:].split(maxsplit=1)[0] if lines[0][2:].strip() else ""
        if name in PYTHON_BODY_CELL_MAGICS:
            return [f"# {lines[0]}"] + convert_cell("\n".join(lines[1:]))
        return [f"# {line}" if line else "#" for line in lines]
    lines = _strip_leading_indent(lines)
    starts = _statement_starts(lines)
    out = []
    in_magic = False  # a magic continued onto the next line by a final backslash
    for line, start in zip(lines, starts):
        if in_magic or (start and _is_ipython_line(line)):
            out.append(_comment(line) if not in_magic else f"# {line}")
            in_magic = line.rstrip().endswith("\\")
        else:
            out.append(line)
    return out


def _strip_leading_indent(lines: list[str]) -> list[str]:
    """IPython's own clean-up: when the cell's first line is indented and every line shares
    that indentation, it is removed."""
    first = lines[0] if lines else ""
    indent = first[: len(first) - len(first.lstrip())]
    if not indent or not all(line.startswith(indent) or not line.strip() for line in lines):
        return lines
    return [line[len(indent):] for line in lines]


def convert(notebook: dict) -> str:
    out: list[str] = []
    number = 0
    for cell in notebook.get("cells", []):
        if cell.get("cell_type") != "code":
            continue
        number += 1
        source = cell.get("source", "")
        if isinstance(source, list):
            source = "".join(source)
        out.append(f"# %% [cell {number}]")
        out.extend(convert_cell(source.rstrip("\n")))
        out.append("")
    return "\n".join(out)


def convert_file(notebook: Path, target: Path) -> None:
    text = convert(json.loads(notebook.read_text(encoding="utf-8")))
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text, encoding="utf-8")


def convert_tree(source: Path, target: Path) -> int:
    """Every `.ipynb` under `source` -> the same relative path under `target`, as `.py`."""
    count = 0
    for nb in sorted(source.rglob("*.ipynb")):
        if ".ipynb_checkpoints" in nb.parts:
            continue
        convert_file(nb, target / nb.relative_to(source).with_suffix(".py"))
        count += 1
    return count


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if not argv or len(argv) > 2:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    nb = Path(argv[0])
    try:
        text = convert(json.loads(nb.read_text(encoding="utf-8")))
    except (OSError, ValueError) as exc:
        print(f"notebooks.py: cannot read {nb}: {exc}", file=sys.stderr)
        return 2
    if len(argv) == 2:
        Path(argv[1]).write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
