"""Jupyter notebooks (`.ipynb`) as one Python module, and findings back in cell coordinates.

* The notebook is read with nbformat (any nbformat version it reads; v3 files are converted).
  Its code cells, in order, joined line after line, are the module stagelint analyses, as the
  kernel runs them top to bottom: a name a later cell redefines is the later cell's.
* IPython syntax is skipped as IPython's input transformer sees it: a cell whose first line is
  indented is dedented by that indentation (columns are reported as written); a cell that
  starts with a
  cell magic (`%%time`, `%%bash`, `%%writefile ...`) is left out as a whole; at the start of a
  logical line, a line magic (`%pip ...`), a shell escape (`!ls`, `!!ls`), a help request
  (`?obj`, `obj?`, `obj??`), an auto-call escape (`,f a`, `;f a`, `/f a`) and an assignment from
  one (`x = !ls`, `x = %who_ls`), with their backslash continuation lines, are replaced by
  `pass` (or `x = get_ipython()`), indented as written, so that a magic inside a block keeps
  the block valid and every other line keeps its number and columns.
* A cell that still does not parse becomes blank lines and one STG000 (at its syntax error);
  the other cells are checked.
* Findings come back as (cell, line in the cell, column): `cell` counts every cell of the
  notebook from 1 (markdown cells too, as Jupyter and VS Code number them), and lines count
  from 1 in the cell's source.
* Fixes rewrite only the `source` of the cells they change, in the layout the file already
  uses (a list of lines or one string, the same indentation); every other byte (outputs,
  metadata, key order, indentation) stays as it was.

A notebook whose kernel is not Python (its `metadata.kernelspec.language` or
`metadata.language_info.name` says so) is skipped with that reason, and a file that is not a
notebook (not JSON, no `cells`) is one STG000 at line 1.
"""

from __future__ import annotations

import bisect
import json
import re
import warnings
from dataclasses import dataclass, field, replace

SUFFIX = ".ipynb"


def is_notebook(path) -> bool:
    return str(path).lower().endswith(SUFFIX)


class NotebookError(ValueError):
    """The file is not a notebook stagelint can read (the message says why)."""


class NotPython(ValueError):
    """A notebook for another language (the message names it)."""


@dataclass
class Cell:
    #: 1-based position among all the notebook's cells
    number: int
    #: the cell's source as written
    source: str
    #: the lines the module holds for it (IPython syntax replaced, blank if skipped)
    lines: list[str] = field(default_factory=list)
    #: why the whole cell is left out ("cell magic %%bash", "syntax error"), or ""
    skipped: str = ""
    #: 1-based cell lines that were replaced (IPython syntax)
    replaced: set[int] = field(default_factory=set)
    #: columns IPython took off every line (a cell whose first line is indented is dedented)
    indent: int = 0


@dataclass
class Notebook:
    cells: list[Cell]
    #: first module line of each code cell (1-based), in the order of `cells`
    starts: list[int]
    #: (cell, line, column, message) of each cell that does not parse
    broken: list[tuple[Cell, int, int, str]] = field(default_factory=list)
    #: nbformat major version of the file (fixes are written only into v4 files)
    nbformat: int = 4

    @property
    def source(self) -> bytes:
        return "".join(line + "\n" for c in self.cells for line in c.lines).encode("utf-8")

    def locate(self, line: int) -> tuple[Cell, int]:
        """The cell holding a module line, and the line's number in the cell."""
        i = max(0, bisect.bisect_right(self.starts, line) - 1)
        return self.cells[i], line - self.starts[i] + 1

    def cell(self, number: int) -> Cell | None:
        return next((c for c in self.cells if c.number == number), None)

    def blank(self, cell: Cell, reason: str) -> None:
        cell.skipped = reason
        cell.lines = [""] * len(cell.lines)

    def hidden_names(self) -> frozenset[str]:
        """The words of the code the module leaves out: cells skipped whole (a cell magic such
        as `%%time`, a syntax error) and the lines replaced (`%timeit step_jit(x)`, `!ls`). Names
        there may be read when the kernel runs the notebook, though no code the analysis sees
        reads them."""
        words: set[str] = set()
        for cell in self.cells:
            lines = cell.source.splitlines()
            hidden = lines if cell.skipped else [lines[n - 1] for n in cell.replaced if 0 < n <= len(lines)]
            for line in hidden:
                words.update(_WORD.findall(line))
        return frozenset(words)


_WORD = re.compile(r"[A-Za-z_]\w*")


def _read_json(data: bytes) -> tuple[str, dict]:
    try:
        text = data.decode("utf-8-sig")
        raw = json.loads(text)
    except (UnicodeDecodeError, ValueError) as e:
        raise NotebookError(f"not a notebook (not JSON: {e})") from None
    except RecursionError:  # (Python's json reads nesting as deep as its recursion limit)
        raise NotebookError("not a notebook (its JSON nests deeper than a notebook does)") from None
    if not isinstance(raw, dict) or not isinstance(raw.get("cells", raw.get("worksheets")), list):
        raise NotebookError("not a notebook (no list of cells)")
    return text, raw


def _shape_error(nb) -> str | None:
    """What in a notebook nbformat read is not of the shape nbformat's schema gives it (it reads
    more than it validates: a `kernelspec` of 5, a cell `source` of 5), or None."""
    meta = nb.get("metadata", {})
    if not isinstance(meta, dict):
        return f"its metadata is {_kind(meta)}, not a table"
    for key in ("kernelspec", "language_info"):
        table = meta.get(key)
        if table is not None and not isinstance(table, dict):
            return f"its metadata.{key} is {_kind(table)}, not a table"
        name = (table or {}).get("language" if key == "kernelspec" else "name")
        if name is not None and not isinstance(name, str):
            return f"its metadata.{key} names its language with {_kind(name)}, not text"
    for number, cell in enumerate(nb.get("cells", []), 1):
        if not isinstance(cell, dict):
            return f"its cell {number} is {_kind(cell)}, not a table"
        source = cell.get("source", "")
        if not isinstance(cell.get("cell_type"), str):
            return f"its cell {number} has no cell_type"
        if not (isinstance(source, str) or isinstance(source, list) and all(isinstance(s, str) for s in source)):
            return f"the source of its cell {number} is {_kind(source)}, not text"
    return None


def _kind(value) -> str:
    return {dict: "a table", list: "a list", str: "text", bool: "a boolean", type(None): "null"}.get(
        type(value), f"the number {value!r}" if isinstance(value, (int, float)) else type(value).__name__)


def load(data: bytes) -> Notebook:
    """The notebook's code cells as module lines (nothing checked for syntax yet)."""
    text, raw = _read_json(data)
    import nbformat

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # nbformat warns about missing cell ids and the like
            nb = nbformat.reads(text, as_version=4)
    except RecursionError:
        raise NotebookError("not a notebook (its JSON nests deeper than a notebook does)") from None
    except Exception as e:  # nbformat raises its own errors, and KeyError/TypeError on odd files
        raise NotebookError(f"not a notebook nbformat can read ({type(e).__name__}: {e})") from None
    shape = _shape_error(nb)
    if shape is not None:
        raise NotebookError(f"not a notebook stagelint can read ({shape})")
    meta = nb.get("metadata", {}) or {}
    language = ((meta.get("kernelspec") or {}).get("language") or (meta.get("language_info") or {}).get("name") or "")
    if language and not str(language).lower().startswith(("python", "ipython")):
        raise NotPython(f"not a Python notebook (its kernel language is {language})")
    cells: list[Cell] = []
    starts: list[int] = []
    line = 1
    for number, cell in enumerate(nb.cells, 1):
        if cell.get("cell_type") != "code":
            continue
        source = cell.get("source") or ""
        if isinstance(source, list):
            source = "".join(source)
        c = Cell(number, source)
        c.lines, c.skipped, c.replaced, c.indent = transform(source)
        cells.append(c)
        starts.append(line)
        line += len(c.lines)
    major = raw.get("nbformat")  # (nbformat read it: a version it knows)
    return Notebook(cells, starts, nbformat=major if isinstance(major, int) and not isinstance(major, bool) else 4)


def parse(data: bytes, parse_module):
    """(libcst module, Notebook): the code cells as one module, cells that do not parse blanked
    (each in `Notebook.broken`). Raises NotebookError / NotPython."""
    nb = load(data)
    for cell in nb.cells:
        if cell.skipped:
            continue
        error = syntax_error("".join(line + "\n" for line in cell.lines))
        if error is not None:
            nb.broken.append((cell, *error))
            nb.blank(cell, "syntax error")
    while True:
        try:
            return parse_module(nb.source), nb
        except Exception as e:  # what libcst alone refuses: blank the cell it points at, try again
            line = getattr(e, "raw_line", None)
            if not isinstance(line, int) or not nb.cells:
                raise
            cell, cell_line = nb.locate(line)
            if cell.skipped:
                raise
            message = " ".join(str(getattr(e, "message", e)).split()) or "invalid syntax"
            nb.broken.append((cell, cell_line, max(1, getattr(e, "raw_column", 0) + 1), message))
            nb.blank(cell, "syntax error")


def syntax_error(text: str) -> tuple[int, int, str] | None:
    """Python's own (line, column, message) if the cell does not parse (top-level `await` is
    fine in a notebook), else None."""
    import ast

    try:
        compile(text, "<cell>", "exec", ast.PyCF_ONLY_AST | ast.PyCF_ALLOW_TOP_LEVEL_AWAIT, dont_inherit=True)
    except SyntaxError as e:
        return max(1, e.lineno or 1), max(1, e.offset or 1), e.msg
    except ValueError as e:  # null bytes
        return 1, 1, str(e)
    except (RecursionError, MemoryError):
        return None  # valid code too deep for this process: the analysis' budget measures it (`budget`)
    return None


# IPython syntax ------------------------------------------------------------------------------

#: What starts an IPython escape at the beginning of a logical line (IPython's ESCAPE_SINGLES
#: and ESCAPE_DOUBLES): none of them can start a Python statement.
_ESCAPES = ("!", "%", "?", ",", ";", "/")
#: `x = !ls`, `a, b = %who_ls`: an assignment whose value is a shell or line-magic escape.
_ASSIGN = re.compile(r"^(\s*)([A-Za-z_][\w.]*(?:\s*,\s*[A-Za-z_][\w.]*)*|\(.*?\)|\[.*?\])\s*=\s*[!%]")
#: A Colab form line: `#@title Setup`, `#@markdown ...`, `# @param`.
_COLAB_FORM = re.compile(r"^\s*#\s*@(title|markdown|param)\b")
#: IPython line magics a kernel runs without their `%` (automagic, on by default) when the line
#: is not Python: `pip install x`, `cd data`. A line such as `pip = 3` stays Python.
_AUTOMAGIC = frozenset({
    "alias", "autoreload", "cd", "conda", "env", "history", "load_ext", "ls", "mamba",
    "matplotlib", "pip", "pwd", "pylab", "reset", "run", "tensorflow_version", "time", "timeit",
    "who", "whos",
})
_STRING_START = re.compile(r"(?i)(?:rb|br|fr|rf|b|r|u|f)?('''|\"\"\"|'|\")")


def transform(source: str) -> tuple[list[str], str, set[int], int]:
    """(module lines, reason the whole cell is skipped or "", replaced line numbers, columns
    taken off each line)."""
    lines = source.split("\n")
    if lines and lines[-1] == "":
        lines.pop()  # the newline that ends the last line
    lines = [line.rstrip("\r") for line in lines]
    # Colab runs a cell's form lines (`#@title ...`, `#@markdown ...`) as comments and then a
    # cell magic below them, as if it were first.
    first = next((line for line in lines if line.strip() and not _COLAB_FORM.match(line)), "")
    if first.startswith("%%"):
        name = first[2:].split(None, 1)[0] if first[2:].strip() else ""
        return [""] * len(lines), f"cell magic %%{name}", set(range(1, len(lines) + 1)), 0
    # IPython's `leading_indent`: the first line's indentation comes off every line that has it.
    prefix = first[: len(first) - len(first.lstrip(" \t"))]
    if prefix:
        lines = [line[len(prefix):] if line.startswith(prefix) else line for line in lines]
    out = list(lines)
    replaced: set[int] = set()
    scanner = _Scanner()
    i = 0
    while i < len(lines):
        line = lines[i]
        if scanner.at_statement_start():
            stripped = line.lstrip()
            indent = line[: len(line) - len(stripped)]
            assign = _ASSIGN.match(line)
            if stripped.startswith(_ESCAPES) or assign or _automagic(stripped):
                end = i
                while lines[end].endswith("\\") and end + 1 < len(lines):
                    end += 1
                out[i] = f"{indent}{assign.group(2)} = get_ipython()" if assign else f"{indent}pass"
                for k in range(i + 1, end + 1):
                    out[k] = ""
                replaced.update(range(i + 1, end + 2))
                i = end + 1
                continue
            # `obj?` / `obj.attr??`: a logical line ending in a help request
            end = _logical_end(lines, i)
            if end is not None and _code_part(lines[end]).rstrip().endswith("?"):
                out[i] = f"{indent}pass"
                for k in range(i + 1, end + 1):
                    out[k] = ""
                replaced.update(range(i + 1, end + 2))
                i = end + 1
                continue
        scanner.feed(line)
        i += 1
    return out, "", replaced, len(prefix)


def _automagic(stripped: str) -> bool:
    """`pip install x`: a line magic's name, then words that do not make the line Python."""
    word, _, rest = stripped.partition(" ")
    if word not in _AUTOMAGIC or not rest.strip() or stripped.endswith(("\\", ":", ",", "(", "[", "{")):
        return False
    if rest.lstrip()[:1] in ("=", ","):
        return False  # `history = model.fit(...`: IPython's AssignmentChecker runs it as Python, first

    try:
        compile(stripped, "<cell>", "exec")
    except SyntaxError:
        return True
    return False


def _code_part(line: str) -> str:
    """The line without a trailing comment (outside strings)."""
    s = _Scanner()
    s.feed(line)
    return line[: s.comment_at] if s.comment_at is not None else line


def _logical_end(lines: list[str], i: int) -> int | None:
    s = _Scanner()
    for k in range(i, len(lines)):
        s.feed(lines[k])
        if s.at_statement_start():
            return k
    return None


class _Scanner:
    """Just enough of Python's tokenizer to tell whether a line starts a logical line: open
    brackets, open triple-quoted strings and backslash continuations carry a statement on."""

    def __init__(self):
        self.depth = 0
        self.quote: str | None = None  # an open triple-quoted string
        self.continued = False
        self.comment_at: int | None = None

    def at_statement_start(self) -> bool:
        return self.depth == 0 and self.quote is None and not self.continued

    def feed(self, line: str) -> None:
        self.continued = False
        self.comment_at = None
        i, n = 0, len(line)
        while i < n:
            if self.quote is not None:
                end = _string_end(line, i, self.quote)
                if end is None:
                    return
                self.quote = None
                i = end
                continue
            ch = line[i]
            if ch == "#":
                self.comment_at = i
                return
            if ch in "([{":
                self.depth += 1
            elif ch in ")]}":
                self.depth = max(0, self.depth - 1)
            elif ch == "\\" and i == n - 1:
                self.continued = True
            else:
                m = _STRING_START.match(line, i)
                if m and (i == 0 or not (line[i - 1].isalnum() or line[i - 1] == "_")):
                    quote = m.group(1)
                    end = _string_end(line, m.end(), quote)
                    if end is None:
                        if len(quote) == 3:
                            self.quote = quote
                        elif line.endswith("\\"):
                            self.continued = True
                        return
                    i = end
                    continue
            i += 1


def _string_end(line: str, i: int, quote: str) -> int | None:
    """Index just past the closing quote, or None if the string goes on past the line."""
    n = len(line)
    while i < n:
        if line[i] == "\\":
            i += 2
            continue
        if line.startswith(quote, i):
            return i + len(quote)
        i += 1
    return None


# Findings in cell coordinates ----------------------------------------------------------------

_loaded: dict[tuple[str, int], tuple[bytes, Notebook | None]] = {}


def cached(path: str, data: bytes) -> Notebook | None:
    """`load(data)` kept for the run (the report and the fixer ask again), None if unreadable."""
    key = (path, hash(data))
    got = _loaded.get(key)
    if got is None or got[0] != data:
        try:
            nb = load(data)
        except (NotebookError, NotPython):
            nb = None
        if nb is not None:
            for cell in nb.cells:  # as `parse` blanks them: the same module lines
                if not cell.skipped and syntax_error("".join(line + "\n" for line in cell.lines)) is not None:
                    nb.blank(cell, "syntax error")
        if len(_loaded) > 32:
            _loaded.clear()
        got = _loaded[key] = (data, nb)
    return got[1]


def module_lines(path: str, data: bytes) -> list[str]:
    """The lines of the module stagelint analysed for this notebook (for `# noqa`)."""
    nb = cached(path, data)
    return [] if nb is None else [line for c in nb.cells for line in c.lines]


def place(finding, data: bytes):
    """The finding (in module lines) in the notebook's cell coordinates; its fix's edits too
    (a fix whose edits leave their cell is dropped)."""
    nb = cached(finding.path, data)
    if nb is None or not nb.cells:
        return finding
    cell, line = nb.locate(finding.line)
    end_cell, end_line = nb.locate(max(finding.end_line, finding.line))
    if end_cell is not cell:
        end_line, end_column = len(cell.lines) or 1, len(cell.lines[-1]) + 1 if cell.lines else 1
    else:
        end_column = finding.end_column + cell.indent
    fix = finding.fix
    if fix is not None:
        fix = _cell_fix(nb, cell, fix)
    because = tuple(_cell_note(nb, n) if n.path == finding.path else n for n in finding.because)
    return replace(finding, cell=cell.number, line=line, column=finding.column + cell.indent, end_line=end_line,
                   end_column=end_column, fix=fix, fixable=fix is not None, because=because)


def _cell_note(nb: Notebook, note):
    """A fact of the proof seen in this notebook, in its cell's coordinates."""
    cell, line = nb.locate(note.line)
    return replace(note, cell=cell.number, line=line, column=note.column + cell.indent)


def _cell_fix(nb: Notebook, cell: Cell, fix):
    edits = []
    for e in fix.edits:
        c, line = nb.locate(e.line)
        c_end, end_line = nb.locate(e.end_line)
        if c is not cell or c_end is not cell or cell.replaced & set(range(line, end_line + 1)):
            return None
        if cell.indent and "\n" in e.text:
            return None  # new lines would need the indentation IPython takes off
        edits.append(replace(e, line=line, column=e.column + cell.indent, end_line=end_line,
                             end_column=e.end_column + cell.indent, cell=cell.number))
    return replace(fix, edits=tuple(edits))


# Writing fixed cells back --------------------------------------------------------------------

_WS = re.compile(r"[ \t\n\r]*")
_ATOM = re.compile(r"-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][-+]?\d+)?|true|false|null")


def source_spans(text: str) -> dict[int, tuple[int, int, list[int]]]:
    """For each cell (1-based, all cells), where its `source` value sits in the file's text:
    (start, end, start offsets of its list items). Raises ValueError if the text is not JSON."""
    from json.decoder import scanstring

    spans: dict[int, tuple[int, int, list[int]]] = {}

    def value(i: int, path: tuple) -> int:
        i = _WS.match(text, i).end()
        start = i
        ch = text[i]
        items: list[int] = []
        if ch == "{":
            i = _WS.match(text, i + 1).end()
            if text[i] == "}":
                i += 1
            else:
                while True:
                    if text[i] != '"':
                        raise ValueError(f"expected a key at {i}")
                    key, i = scanstring(text, i + 1)
                    i = _WS.match(text, i).end()
                    if text[i] != ":":
                        raise ValueError(f"expected ':' at {i}")
                    i = _WS.match(text, value(i + 1, path + (key,))).end()
                    if text[i] == ",":
                        i = _WS.match(text, i + 1).end()
                        continue
                    if text[i] != "}":
                        raise ValueError(f"expected '}}' at {i}")
                    i += 1
                    break
        elif ch == "[":
            i = _WS.match(text, i + 1).end()
            k = 0
            if text[i] == "]":
                i += 1
            else:
                while True:
                    items.append(_WS.match(text, i).end())
                    i = _WS.match(text, value(i, path + (k,))).end()
                    k += 1
                    if text[i] == ",":
                        i += 1
                        continue
                    if text[i] != "]":
                        raise ValueError(f"expected ']' at {i}")
                    i += 1
                    break
        elif ch == '"':
            _, i = scanstring(text, i + 1)
        else:
            m = _ATOM.match(text, i)
            if m is None:
                raise ValueError(f"unexpected {ch!r} at {i}")
            i = m.end()
        if len(path) == 3 and path[0] == "cells" and path[2] == "source" and isinstance(path[1], int):
            spans[path[1] + 1] = (start, i, items)
        return i

    try:
        value(0, ())
    except IndexError:
        raise ValueError("unexpected end of the file") from None
    return spans


def json_line(data: bytes, cell: int, line: int) -> int | None:
    """The line of the notebook file that holds a cell's source line (nbformat writes one item
    per line), or None."""
    try:
        text = data.decode("utf-8-sig")
        spans = source_spans(text)
    except ValueError:
        return None
    span = spans.get(cell)
    if span is None:
        return None
    start, _, items = span
    at = items[line - 1] if items and 1 <= line <= len(items) else start
    return text.count("\n", 0, at) + 1


def apply_fixes(data: bytes, fixes, apply_to_text) -> tuple[bytes, list, list]:
    """Apply cell-coordinate fixes that do not overlap: (new bytes, applied, deferred). Each
    cell's source is fixed by `apply_to_text` (`fix.apply_fixes`, which asks this module, not
    the reverse)."""
    text = data.decode("utf-8")
    bom = text.startswith("\ufeff")
    body = text[1:] if bom else text
    nb = cached("", data)
    if nb is None or nb.nbformat < 4:
        return data, [], []
    spans = source_spans(body)
    by_cell: dict[int, list] = {}
    for fix in fixes:
        cells = {e.cell for e in fix.edits}
        if len(cells) == 1 and None not in cells:
            by_cell.setdefault(cells.pop(), []).append(fix)
    applied, deferred, changes = [], [], []
    for number, cell_fixes in sorted(by_cell.items()):
        cell = nb.cell(number)
        if cell is None or number not in spans:
            continue
        plain = [replace(f, edits=tuple(replace(e, cell=None) for e in f.edits)) for f in cell_fixes]
        new, done, later = apply_to_text(cell.source.encode("utf-8"), plain)
        applied += [cell_fixes[plain.index(p)] for p in done]
        deferred += [cell_fixes[plain.index(p)] for p in later]
        start, end, _ = spans[number]
        changes.append((start, end, _encode_source(body[start:end], new.decode("utf-8"))))
    for start, end, new in sorted(changes, reverse=True):
        body = body[:start] + new + body[end:]
    return (("\ufeff" if bom else "") + body).encode("utf-8"), applied, deferred


def _encode_source(old: str, source: str) -> str:
    """The new `source` value, laid out as the old one was (a list of lines, one item per
    line at the old indentation, or one string)."""
    ascii_only = "\\u" in old and old.isascii()
    if not old.startswith("["):
        return json.dumps(source, ensure_ascii=ascii_only)
    lines = source.splitlines(keepends=True)
    if not lines:
        return "[]"
    inner = old[1:-1]
    lead = inner[: len(inner) - len(inner.lstrip())] if inner.strip() else "\n"
    trail = inner[len(inner.rstrip()):] if inner.strip() else ""
    sep = ","
    m = re.search(r'",(\s*)"', inner)
    if m:
        sep = "," + m.group(1)
    elif "\n" in lead:
        sep = "," + lead
    return "[" + lead + sep.join(json.dumps(line, ensure_ascii=ascii_only) for line in lines) + trail + "]"


def cell_diffs(path: str, old: bytes, new: bytes) -> list[tuple[str, list[str], list[str]]]:
    """(`path:cell N`, old lines, new lines) of each code cell whose source a fix changed."""
    a, b = cached("", old), cached("", new)
    if a is None or b is None:
        return []
    after = {c.number: c.source for c in b.cells}
    return [(f"{path}:cell {c.number}", c.source.splitlines(keepends=True),
             after.get(c.number, "").splitlines(keepends=True))
            for c in a.cells if after.get(c.number, c.source) != c.source]
