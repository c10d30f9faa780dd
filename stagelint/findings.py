"""Findings: what a check reports, how findings sort, and how `# noqa` suppresses them."""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field


@dataclass(frozen=True)
class Finding:
    """One reported pitfall. Lines and columns are 1-based, like ruff and flake8."""

    code: str
    name: str
    path: str
    line: int
    column: int
    end_line: int
    end_column: int
    message: str
    function: str | None = None
    entry_point: str | None = None
    fixable: bool = False

    def sort_key(self) -> tuple:
        return (self.path, self.line, self.column, self.code)

    def to_json(self) -> dict:
        return asdict(self)


@dataclass
class CheckResult:
    """Everything one `check` produced: findings, plus files that could not be analysed."""

    findings: list[Finding] = field(default_factory=list)
    #: (path, reason) for files that were skipped, e.g. unreadable or too deeply nested.
    skipped: list[tuple[str, str]] = field(default_factory=list)
    #: (path, rule code or "engine", short traceback) for internal errors.
    errors: list[tuple[str, str, str]] = field(default_factory=list)
    files_checked: int = 0


def code_matches(code: str, patterns: list[str] | tuple[str, ...]) -> bool:
    """`STG1` matches `STG101`; `STG` matches everything; `ALL` too."""
    return any(p == "ALL" or code.startswith(p) for p in patterns)


def is_selected(code: str, select: list[str] | tuple[str, ...], ignore: list[str] | tuple[str, ...]) -> bool:
    """The longest matching prefix wins, as in ruff: `--select STG1 --ignore STG101` keeps STG102."""
    best_select = max((len(p) for p in select if p == "ALL" or code.startswith(p)), default=-1)
    best_ignore = max((len(p) for p in ignore if p == "ALL" or code.startswith(p)), default=-1)
    return best_select >= 0 and best_select > best_ignore


# flake8's grammar: `# noqa`, `# noqa: A1,B2`, `# NOQA:A1 B2`; anything after the codes is a comment.
NOQA_RE = re.compile(r"#\s*noqa(?::[\s]?(?P<codes>[A-Z]+[0-9]+(?:[,\s]+[A-Z]+[0-9]+)*))?", re.IGNORECASE)
FILE_NOQA_RE = re.compile(r"#\s*stagelint\s*:\s*noqa\b", re.IGNORECASE)


def noqa_codes(line: str) -> frozenset[str] | None:
    """None if the line has no noqa; an empty set for a bare `# noqa` (all codes)."""
    m = NOQA_RE.search(line)
    if m is None:
        return None
    codes = m.group("codes")
    if not codes:
        return frozenset()
    return frozenset(c.upper() for c in re.split(r"[,\s]+", codes) if c)


def is_suppressed(finding: Finding, lines: list[str]) -> bool:
    if not 1 <= finding.line <= len(lines):
        return False
    codes = noqa_codes(lines[finding.line - 1])
    if codes is None:
        return False
    return not codes or any(finding.code.startswith(c) for c in codes)


def file_is_off(lines: list[str]) -> bool:
    """`# stagelint: noqa` in the file's first comment block turns the whole file off."""
    for line in lines:
        stripped = line.strip()
        if not stripped or stripped.startswith("#!"):
            continue
        if not stripped.startswith("#"):
            return False
        if FILE_NOQA_RE.search(stripped):
            return True
    return False
