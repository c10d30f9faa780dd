"""Per-file budgets: which files are not analysed, and why, decided before they are parsed.

A linter meets generated code: megabytes of tables, one expression thousands of terms long.
libcst's parser takes time that grows faster than the length of one expression (a
2,000-term operator chain takes a second, 5,000 take minutes) and its native code overflows
its stack on longer ones, killing the process it runs in: a worker (reported as skipped, the
run goes on), or the only process when the analysis runs in-process (flake8's workers, an
editor's buffer). So such files are told apart before the parse and reported as skipped with
the reason, like a file over the size budget:

* `max-file-size` (bytes; default 5 MB): larger files are skipped, decided from the file's size
  before it is read (`files.read_source` reads at most one byte more);
* an expression nested deeper than `MAX_EXPRESSION` (operator terms, brackets) is skipped.
  Only files with a line longer than `LONG_LINE` bytes are measured (Python's own parser,
  then one walk), so ordinary files pay one regular-expression search;
* `file-timeout` (seconds; default 120), enforced by the worker processes (`workers.py`): a
  file whose analysis takes longer is abandoned and reported as skipped.
"""

from __future__ import annotations

import ast

from stagelint.pipeline.files import over_size

#: Lines longer than this (in bytes) have their expressions measured before the parse.
LONG_LINE = 4000
#: Deepest expression (nested operators and brackets) handed to the parser.
MAX_EXPRESSION = 2000


def has_long_line(source: bytes) -> bool:
    """A line of `LONG_LINE` bytes or more (from the lengths of the split lines: a regular
    expression such as `[^\\n]{4000}` tries every position up to the next newline, ten times slower)."""
    return len(source) >= LONG_LINE and max(map(len, source.split(b"\n"))) >= LONG_LINE


class OverBudget(Exception):
    """Code found over a budget once it is read out of its file (a notebook's cells): the
    message is the reason, as `over_budget` words it."""


def over_budget(source: bytes, settings, in_process: bool = False, python: bool = True) -> str | None:
    """Why `source` is not to be analysed (its size, its nesting), or None. `in_process`: the
    analysis would run in this process, which a crash of the parser would end (flake8's
    workers, an editor's buffer): every file then goes through Python's parser first, which
    refuses what libcst would crash on (more than 200 nested brackets, any line length).
    `python=False`: the bytes are not the code (a notebook's JSON): only their size is
    measured here, the code once it is read out of them."""
    limit = getattr(settings, "max_file_size", None)
    if limit and len(source) > limit:
        # (a buffer read with the cap of `files.read_source`, standard input, stops one byte past it)
        return over_size(None if len(source) == limit + 1 else len(source), limit)
    if not python:
        return None
    long_line = has_long_line(source)
    if not in_process and not long_line:
        return None
    depth, line, why = expression_depth(source, walk=long_line)
    if depth > MAX_EXPRESSION:
        where = f" on line {line}" if line else ""
        return f"skipped: {why}{where}, deeper than the parser handles (at most {MAX_EXPRESSION:,} levels)"
    return None


def expression_depth(source: bytes, walk: bool = True) -> tuple[int, int, str]:
    """The deepest expression in `source` (operator terms and nested brackets count one level
    each), its line and what it is. Python's parser reads it first: when it finds it too
    deep, the depth is past `MAX_EXPRESSION`; when it finds another syntax error, 0 (the
    analysis reports that error). `walk=False` stops after Python's parser."""
    try:
        tree = ast.parse(source)
    except SyntaxError as e:
        message = str(getattr(e, "msg", e))
        if "too many nested" in message or "too complex" in message:
            return MAX_EXPRESSION + 1, e.lineno or 0, f"Python's parser refuses it ({message})"
        return 0, 0, ""
    except (RecursionError, MemoryError):
        return MAX_EXPRESSION + 1, 0, "an expression nested too deep for Python's parser"
    except ValueError:  # null bytes: the analysis reports them
        return 0, 0, ""
    if not walk:
        return 0, 0, ""
    deepest, line = 0, 0
    stack: list[tuple[ast.AST, int]] = [(tree, 0)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, ast.expr):
            depth += len(node.values) - 1 if isinstance(node, ast.BoolOp) else (
                len(node.ops) if isinstance(node, ast.Compare) else 1)
            if depth > deepest:
                deepest, line = depth, getattr(node, "lineno", 0)
        elif isinstance(node, ast.stmt):
            depth = 0
        for child in ast.iter_child_nodes(node):
            stack.append((child, depth))
    return deepest, line, f"an expression nested {deepest:,} deep"
