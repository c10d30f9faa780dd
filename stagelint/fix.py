"""Autofixes: `stagelint check --fix` and `--diff` (safe fixes; with `--unsafe-fixes` the
unsafe ones too).

A rule offers a fix by setting `fixable = True` and implementing `Rule.fix(node, fields)`,
which runs during the one traversal, with the node and all the metadata at hand, and returns
text replacements for nodes (or None where no exact rewrite exists). The engine keeps them on
the finding as a `Fix`: edits in the file's coordinates, plus the digest of the bytes the
analysis read. Applying a fix therefore needs no second analysis, and everything the source
does not touch, comments and formatting included, stays byte for byte.

Guarantees:

* A file that changed since the analysis read it is left alone (its digest no longer
  matches), and so is a file whose fixed text would not parse.
* The fixes of one file are applied together when they do not overlap; an overlapping fix
  waits for the next pass, after a fresh analysis of the fixed files (at most `MAX_PASSES`).
* Running `--fix` again changes nothing: a fixed finding is gone, so is its fix.
"""

from __future__ import annotations

import difflib
import io
import re
import tokenize
from dataclasses import dataclass, field

from stagelint import notebooks
from stagelint.pipeline.files import digest, read_source, why_not_read, write_atomically

MAX_PASSES = 10


@dataclass(frozen=True)
class Edit:
    """Replace the text from (line, column) up to, not including, (end_line, end_column):
    1-based, in characters of the decoded source, as findings count them."""

    line: int
    column: int
    end_line: int
    end_column: int
    text: str
    #: the notebook cell (1-based, `stagelint.notebooks`) whose source the lines count in;
    #: None in a `.py` file (and while a notebook's finding is still in module lines)
    cell: int | None = None


@dataclass(frozen=True)
class Fix:
    #: sha256 of the file's bytes as the analysis read them.
    digest: str
    edits: tuple[Edit, ...]
    #: False for an unsafe fix (`Rule.fix_is_safe`): one that can change what a value is or
    #: where output goes; only `--unsafe-fixes` applies it.
    safe: bool = True

    @property
    def applicability(self) -> str:
        """ruff's word for it, in JSON: "safe" or "unsafe"."""
        return "safe" if self.safe else "unsafe"


_NEWLINE = re.compile(r"\r\n|\r|\n")


def _decode(source: bytes) -> tuple[str, str]:
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(source).readline)
    except SyntaxError:
        encoding = "utf-8"
    return source.decode(encoding), encoding


def _line_starts(text: str) -> list[int]:
    starts = [0]
    starts.extend(m.end() for m in _NEWLINE.finditer(text))
    return starts


def _offset(starts: list[int], line: int, column: int) -> int:
    return starts[line - 1] + column - 1


def apply_fixes(source: bytes, fixes) -> tuple[bytes, list, list]:
    """Apply the fixes that do not overlap one another. Returns (new source, applied, deferred)."""
    text, encoding = _decode(source)
    starts = _line_starts(text)
    taken: list[tuple[int, int]] = []
    applied, deferred = [], []
    spans: list[tuple[int, int, str]] = []
    for fix in sorted(fixes, key=lambda f: (f.edits[0].line, f.edits[0].column) if f.edits else (0, 0)):
        mine = []
        for e in fix.edits:
            if e.line > len(starts) or e.end_line > len(starts):
                break
            mine.append((_offset(starts, e.line, e.column), _offset(starts, e.end_line, e.end_column), e.text))
        else:
            clash = any(a < end and start < b or a == start == b == end
                        for a, b, _ in mine for start, end in taken)
            if not clash:
                taken.extend((a, b) for a, b, _ in mine)
                spans.extend(mine)
                applied.append(fix)
                continue
        deferred.append(fix)
    for start, end, new in sorted(spans, reverse=True):
        text = text[:start] + new + text[end:]
    return text.encode(encoding), applied, deferred


@dataclass
class FixOutcome:
    #: path -> (old source, new source) for every file a fix changes
    changed: dict[str, tuple[bytes, bytes]] = field(default_factory=dict)
    fixed: int = 0
    #: fixes left for another pass (they overlapped one applied in this one)
    deferred: int = 0
    #: (path, reason) for files left alone
    refused: list[tuple[str, str]] = field(default_factory=list)


def plan(findings, unsafe: bool = False) -> FixOutcome:
    """Work out what the fixes of these findings change, without writing anything: the safe
    fixes, and the unsafe ones too when `unsafe`."""
    from libcst import ParserSyntaxError, parse_module

    outcome = FixOutcome()
    by_path: dict[str, list] = {}
    for f in findings:
        if f.fix_applies(unsafe):
            by_path.setdefault(f.path, []).append(f.fix)
    for path, fixes in sorted(by_path.items()):
        try:
            old = read_source(path)
        except OSError as e:
            outcome.refused.append((path, why_not_read(e)))
            continue
        wanted = {f.digest for f in fixes}
        if wanted != {digest(old)}:
            outcome.refused.append((path, "changed since it was analysed; not fixed (run again)"))
            continue
        unique = list(dict.fromkeys(fixes))
        if notebooks.is_notebook(path):  # edits in cell coordinates, into the cells' sources
            new, applied, deferred = notebooks.apply_fixes(old, unique, apply_fixes)
        else:
            new, applied, deferred = apply_fixes(old, unique)
        outcome.deferred += len(deferred)
        if new == old:
            continue
        try:
            if notebooks.is_notebook(path):
                parse_module(_notebook_module(new))
            else:
                parse_module(new)
        except (ParserSyntaxError, RecursionError, ValueError) as e:  # a rule's bug must never break a file
            outcome.refused.append((path, f"the fixed text would not parse ({type(e).__name__}); not fixed"))
            continue
        outcome.changed[path] = (old, new)
        done = set(applied)  # findings that share one fix (STG001 on one comment) each count
        outcome.fixed += sum(1 for fix in fixes if fix in done)
    return outcome


def _notebook_module(data: bytes) -> bytes:
    nb = notebooks.cached("", data)
    if nb is None:
        raise ValueError("the fixed notebook does not read")
    return nb.source


def write(outcome: FixOutcome) -> None:
    """Write the changed files, each only if it still holds what the plan read."""
    for path, (old, new) in list(outcome.changed.items()):
        try:
            current = read_source(path)
        except OSError as e:
            outcome.refused.append((path, why_not_read(e)))
            del outcome.changed[path]
            continue
        if current != old:
            outcome.refused.append((path, "changed while fixing; not fixed (run again)"))
            del outcome.changed[path]
            continue
        write_atomically(path, new, prefix=".stagelint-fix-")


def unified_diff(outcome: FixOutcome) -> str:
    chunks = []
    for path, (old, new) in sorted(outcome.changed.items()):
        if notebooks.is_notebook(path):  # each changed cell's source, not the JSON
            parts = notebooks.cell_diffs(path, old, new)
        else:
            parts = [(path, _decode(old)[0].splitlines(keepends=True), _decode(new)[0].splitlines(keepends=True))]
        lines = [line for name, a, b in parts for line in difflib.unified_diff(a, b, fromfile=name, tofile=name)]
        chunks.append("".join(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n"
                              for line in lines))
    return "".join(chunks)


# Helpers for the rules' fixes ----------------------------------------------------------------

#: Modules whose `print` and `random` are TensorFlow's.
_TF_MODULES = frozenset({"tensorflow", "tensorflow.compat.v1", "tensorflow.compat.v2"})


def _tf_module_bound(import_node, name: str) -> bool:
    import libcst as cst

    if not isinstance(import_node, cst.Import):
        return False
    for alias in import_node.names:
        bound = alias.evaluated_alias or alias.evaluated_name.split(".")[0]
        module = alias.evaluated_name if alias.evaluated_alias else bound
        if bound == name and module in _TF_MODULES:
            return True
    return False


def tensorflow_alias(ctx, node) -> str | None:
    """The name under which `node`'s scope sees the module's own `import tensorflow [as tf]`,
    or None: no such import, or the name is rebound or shadowed there. A fix spells TensorFlow
    with it, so it never adds a reference the module cannot resolve."""
    from libcst.metadata import ImportAssignment

    scope = ctx.scope(node)
    if scope is None:
        return None
    # Once per module, not once per fix: the module's assignments grow with the file.
    memo = getattr(ctx, "tf_import_names", None)
    names = memo.get(id(scope.globals)) if memo is not None else None
    if names is None:
        names = {a.name for a in scope.globals.assignments
                 if isinstance(a, ImportAssignment) and _tf_module_bound(a.node, a.name)}
        if memo is not None:
            memo[id(scope.globals)] = names
    for name in sorted(names, key=lambda n: (n != "tf", n)):
        seen = scope[name]
        if seen and all(isinstance(a, ImportAssignment) and _tf_module_bound(a.node, name) for a in seen):
            return name
    return None


#: NumPy / Python draws with a TensorFlow op of the same distribution, shape and parameters:
#: qualified name -> (tf.random function, NumPy-style parameters in order, their tf keywords).
_RANDOM = {
    "numpy.random.normal": ("normal", ("loc", "scale", "size"), ("mean", "stddev")),
    "numpy.random.standard_normal": ("normal", ("size",), ()),
    "numpy.random.uniform": ("uniform", ("low", "high", "size"), ("minval", "maxval")),
    "numpy.random.random": ("uniform", ("size",), ()),
    "numpy.random.random_sample": ("uniform", ("size",), ()),
    "numpy.random.sample": ("uniform", ("size",), ()),
    "numpy.random.ranf": ("uniform", ("size",), ()),
    "random.random": ("uniform", (), ()),
    "random.gauss": ("normal", ("mu", "sigma"), ("mean", "stddev")),
    "random.normalvariate": ("normal", ("mu", "sigma"), ("mean", "stddev")),
}
#: `np.random.randn(d0, d1, ...)` / `rand(...)`: the dimensions are the arguments.
_RANDOM_DIMS = {"numpy.random.randn": "normal", "numpy.random.rand": "uniform"}


def _number(node) -> bool:
    import libcst as cst

    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, (cst.Minus, cst.Plus)):
        node = node.expression
    return isinstance(node, (cst.Integer, cst.Float))


def _shape(node) -> str | None:
    """A NumPy `size` as a TensorFlow shape: None -> `()`, `n` -> `(n,)`, a tuple or list of
    numbers as written; anything computed is left alone (it may be an int or a tuple)."""
    import libcst as cst

    from stagelint.analysis.context import code_of

    if node is None or (isinstance(node, cst.Name) and node.value == "None"):
        return "()"
    if isinstance(node, cst.Integer):
        return f"({node.value},)"
    if isinstance(node, (cst.Tuple, cst.List)) and all(
        isinstance(e, cst.Element) and isinstance(e.value, (cst.Integer, cst.Name, cst.Attribute)) for e in node.elements
    ):
        return code_of(node)
    return None


def tf_random_rewrite(ctx, node) -> str | None:
    """`np.random.normal(0.0, 0.1, size=(3, 3))` -> `tf.random.normal((3, 3), mean=0.0,
    stddev=0.1)` and the like, or None where no rewrite is exact: a shape that is computed,
    parameters that are not plain numbers (NumPy broadcasts array parameters, a scalar draw
    plus an array would not), `**kwargs`, a comment inside the call."""
    import libcst as cst

    from stagelint.analysis.context import code_of

    if not isinstance(node, cst.Call) or "#" in code_of(node):
        return None
    names = ctx.qualified_names(node.func)
    alias = None
    if len(names) == 1:
        (qualified,) = names
        if qualified in _RANDOM_DIMS or qualified in _RANDOM or qualified == "time.time":
            alias = tensorflow_alias(ctx, node)
    if alias is None:
        return None
    if qualified == "time.time":
        return f"{alias}.timestamp()" if not node.args else None
    if any(a.star for a in node.args):
        return None
    if qualified in _RANDOM_DIMS:
        if any(a.keyword is not None for a in node.args):
            return None
        dims = [code_of(a.value) for a in node.args]
        shape = "()" if not dims else f"({', '.join(dims)}{',' if len(dims) == 1 else ''})"
        return f"{alias}.random.{_RANDOM_DIMS[qualified]}({shape})"
    function, params, keywords = _RANDOM[qualified]
    given: dict[str, cst.BaseExpression] = {}
    for i, arg in enumerate(node.args):
        name = arg.keyword.value if arg.keyword is not None else (params[i] if i < len(params) else None)
        if name not in params or name in given:
            return None
        given[name] = arg.value
    shape = _shape(given.get("size")) if "size" in params else "()"
    if shape is None:
        return None
    parts = [shape]
    for param, keyword in zip(params, keywords):
        if param in given:
            if not _number(given[param]):
                return None
            parts.append(f"{keyword}={code_of(given[param])}")
    return f"{alias}.random.{function}({', '.join(parts)})"
