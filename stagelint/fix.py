"""Safe autofixes: `stagelint check --fix` and `--diff`.

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
import hashlib
import io
import os
import re
import shutil
import tempfile
import tokenize
from dataclasses import dataclass, field

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


@dataclass(frozen=True)
class Fix:
    #: sha256 of the file's bytes as the analysis read them.
    digest: str
    edits: tuple[Edit, ...]


def digest(source: bytes) -> str:
    return hashlib.sha256(source).hexdigest()


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


def plan(findings) -> FixOutcome:
    """Work out what the fixes of these findings change, without writing anything."""
    from libcst import ParserSyntaxError, parse_module

    outcome = FixOutcome()
    by_path: dict[str, list] = {}
    for f in findings:
        if f.fix is not None:
            by_path.setdefault(f.path, []).append(f.fix)
    for path, fixes in sorted(by_path.items()):
        try:
            with open(path, "rb") as fh:
                old = fh.read()
        except OSError as e:
            outcome.refused.append((path, f"cannot read: {e.strerror or e}"))
            continue
        wanted = {f.digest for f in fixes}
        if wanted != {digest(old)}:
            outcome.refused.append((path, "changed since it was analysed; not fixed (run again)"))
            continue
        unique = list(dict.fromkeys(fixes))
        new, applied, deferred = apply_fixes(old, unique)
        outcome.deferred += len(deferred)
        if new == old:
            continue
        try:
            parse_module(new)
        except (ParserSyntaxError, RecursionError) as e:  # a rule's bug must never break a file
            outcome.refused.append((path, f"the fixed text would not parse ({type(e).__name__}); not fixed"))
            continue
        outcome.changed[path] = (old, new)
        outcome.fixed += len(applied)
    return outcome


def write(outcome: FixOutcome) -> None:
    """Write the changed files, each only if it still holds what the plan read."""
    for path, (old, new) in list(outcome.changed.items()):
        try:
            with open(path, "rb") as fh:
                current = fh.read()
        except OSError as e:
            outcome.refused.append((path, f"cannot read: {e.strerror or e}"))
            del outcome.changed[path]
            continue
        if current != old:
            outcome.refused.append((path, "changed while fixing; not fixed (run again)"))
            del outcome.changed[path]
            continue
        _write_atomically(path, new)


def _write_atomically(path: str, data: bytes) -> None:
    real = os.path.realpath(path)  # through a symlink, to the file itself
    directory = os.path.dirname(real) or "."
    fd, tmp = tempfile.mkstemp(prefix=".stagelint-fix-", dir=directory)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        shutil.copymode(real, tmp)
        os.replace(tmp, real)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def unified_diff(outcome: FixOutcome) -> str:
    chunks = []
    for path, (old, new) in sorted(outcome.changed.items()):
        a = _decode(old)[0].splitlines(keepends=True)
        b = _decode(new)[0].splitlines(keepends=True)
        lines = list(difflib.unified_diff(a, b, fromfile=path, tofile=path))
        chunks.append("".join(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n"
                              for line in lines))
    return "".join(chunks)
