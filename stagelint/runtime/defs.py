"""Which function of a source file holds a line: names the project code that a library
`tf.function` (Keras's train function) ran, from the line counts its calls recorded.

The parent reads the source with `ast` only; nothing is imported or run.
"""

from __future__ import annotations

import ast
import functools
from dataclasses import dataclass


@dataclass(frozen=True)
class Def:
    qualname: str
    line: int  # the `def` line (decorators excluded)
    end: int


@functools.lru_cache(maxsize=256)
def defs_of(path: str) -> tuple[Def, ...]:
    """Every function definition of the file, outer ones before the ones they contain."""
    try:
        with open(path, "rb") as f:
            tree = ast.parse(f.read(), filename=path)
    except (OSError, SyntaxError, ValueError):
        return ()
    out: list[Def] = []

    def walk(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                name = prefix + child.name
                out.append(Def(name, child.lineno, child.end_lineno or child.lineno))
                walk(child, name + ".")
            elif isinstance(child, ast.ClassDef):
                walk(child, prefix + child.name + ".")
            else:
                walk(child, prefix)

    walk(tree, "")
    return tuple(out)


def enclosing(path: str, line: int) -> Def | None:
    """The innermost function whose body holds the line, or None (module level)."""
    inner = None
    for d in defs_of(path):
        if d.line < line <= d.end and (inner is None or d.line >= inner.line):
            inner = d
    return inner
