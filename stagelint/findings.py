"""Findings: what a check reports, how findings sort, and how `# noqa` suppresses them."""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field


def _location(where) -> str:
    cell = f"cell {where.cell}:" if where.cell is not None else ""
    return f"{where.path}:{cell}{where.line}:{where.column}"


@dataclass(frozen=True)
class Note:
    """One fact of a finding's proof (`Finding.because`): what holds, and where it is seen."""

    message: str
    path: str
    line: int
    column: int
    #: In a notebook: the cell the line counts in (as `Finding.cell`).
    cell: int | None = None

    @property
    def location(self) -> str:
        return _location(self)


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
    #: Whether this finding has a fix (`stagelint check --fix`; an unsafe one needs
    #: `--unsafe-fixes`: `fix.safe`).
    fixable: bool = False
    #: The fix (`stagelint.fix.Fix`: edits applied all or none), if the finding has one.
    fix: object = field(default=None, compare=False, repr=False)
    #: In a notebook: the cell (1-based, every cell counted); `line` and `end_line` then count
    #: in the cell's source. None in a `.py` file.
    cell: int | None = None
    #: The proof: the chain of facts the finding rests on, each where it is seen (why the code
    #: is staged, why the value is a tensor, why the object outlives the call...), in the order
    #: a reader checks them (`stagelint.analysis.proof`, docs/model.md).
    because: tuple[Note, ...] = ()

    def fix_applies(self, unsafe: bool = False) -> bool:
        """Whether `--fix` applies this finding's fix (with `--unsafe-fixes` when `unsafe`)."""
        return self.fix is not None and (unsafe or self.fix.safe)

    def sort_key(self) -> tuple:
        return (self.path, self.cell or 0, self.line, self.column, self.code)

    @property
    def location(self) -> str:
        """`path:line:col`, or `path:cell N:line:col` in a notebook."""
        return _location(self)

    def to_json(self, rule_url_template: str = "") -> dict:
        """The JSON form; `url` is the rule's page under the `rule-url` setting, or null."""
        from stagelint.ruleurls import rule_url

        data = asdict(self)
        del data["fix"], data["cell"], data["because"]
        # `cell`: the notebook cell (1-based) the lines count in, null in a .py file.
        data["cell"] = self.cell
        data["url"] = rule_url(self.code, rule_url_template)
        data["fix"] = None if self.fix is None else {
            "applicability": self.fix.applicability,
            "message": f"Apply the {self.code} fix (stagelint check --fix{'' if self.fix.safe else ' --unsafe-fixes'})",
            "edits": [
                {"line": e.line, "column": e.column, "end_line": e.end_line, "end_column": e.end_column,
                 "content": e.text, **({"cell": e.cell} if e.cell is not None else {})}
                for e in self.fix.edits
            ],
        }
        data["because"] = [{"message": n.message, "path": n.path, "line": n.line, "column": n.column,
                            **({"cell": n.cell} if n.cell is not None else {})} for n in self.because]
        return data


@dataclass
class CheckResult:
    """Everything one `check` produced: findings, plus files that could not be analysed."""

    findings: list[Finding] = field(default_factory=list)
    #: (path, reason) for files that were skipped, e.g. unreadable or too deeply nested.
    skipped: list[tuple[str, str]] = field(default_factory=list)
    #: (path, rule code or "engine", short traceback) for internal errors.
    errors: list[tuple[str, str, str]] = field(default_factory=list)
    files_checked: int = 0
    #: The `rule-url` setting the reports link each finding's rule with.
    rule_url: str = ""


#: The code of unused `# noqa` codes (`rules.noqa`): about the comments, not about staged code.
UNUSED_NOQA = "STG001"


def code_matches(code: str, patterns: list[str] | tuple[str, ...]) -> bool:
    """`STG1` matches `STG101`; `STG` matches everything; `ALL` too."""
    return any(p == "ALL" or code.startswith(p) for p in patterns)


def is_selected(code: str, select: list[str] | tuple[str, ...], ignore: list[str] | tuple[str, ...]) -> bool:
    """The longest matching prefix wins, as in ruff: `--select STG1 --ignore STG101` keeps STG102."""
    best_select = max((len(p) for p in select if p == "ALL" or code.startswith(p)), default=-1)
    best_ignore = max((len(p) for p in ignore if p == "ALL" or code.startswith(p)), default=-1)
    return best_select >= 0 and best_select > best_ignore


# flake8's inline grammar, character for character (flake8/defaults.py), so a comment means
# the same under `stagelint check` as under flake8, which applies it to the plugin's findings:
# `# noqa`, `# noqa: STG101,STG201`, `# NOQA:STG101 STG201`. "noqa" is case-insensitive, the
# codes are not; a code is a prefix (`STG1` covers STG101). Quirks kept on purpose: `#noqa`
# (no space) is not a noqa, and a colon not followed by codes (`# noqa : STG101`,
# `# noqa:  STG101`) leaves a blanket `# noqa`.
NOQA_RE = re.compile(r"# noqa(?::[\s]?(?P<codes>([A-Z]+[0-9]+(?:[,\s]+)?)+))?", re.IGNORECASE)
# File level: `# stagelint: noqa` (every code) or `# stagelint: noqa: STG101,STG2` (those codes).
FILE_NOQA_RE = re.compile(
    r"#\s*stagelint\s*:\s*noqa(?:\s*:\s*(?P<codes>[A-Z]+[0-9]*(?:[,\s]+[A-Z]+[0-9]*)*))?", re.IGNORECASE
)


def _split_codes(text: str) -> frozenset[str]:
    return frozenset(c for c in re.split(r"[,\s]+", text) if c)


def noqa_codes(line: str) -> frozenset[str] | None:
    """None if the line has no noqa; an empty set for a blanket `# noqa` (all codes)."""
    m = NOQA_RE.search(line)
    if m is None:
        return None
    codes = m.group("codes")
    return _split_codes(codes) if codes else frozenset()


def noqa_line_map(lines: list[str]) -> dict[int, str]:
    """For each line, the text flake8 searches for `# noqa` (flake8's
    `FileProcessor._noqa_line_mapping`): the line itself, joined with the other lines of a token
    that spans lines (a triple-quoted string) or of a backslash continuation, so a `# noqa`
    after such a string covers its first line too. Lines inside brackets stay separate: a
    `# noqa` after the `)` of a call that spans lines does not cover the call's first line.
    Empty if the file does not tokenize."""
    out: dict[int, str] = {}
    for low, high, joined in _noqa_groups(lines)[0]:
        for n in range(low, high + 1):
            out[n] = joined
    return out


def _noqa_groups(lines: list[str]) -> tuple[list[tuple[int, int, str]], dict[int, list[tuple[int, int]]]]:
    """The groups of lines flake8 reads one `# noqa` for, (first, last, joined text), and the
    comments by line, (start, end) 0-based columns; nothing if the file does not tokenize."""
    import io
    import tokenize

    text = "".join(line + "\n" for line in lines)
    groups: list[tuple[int, int, str]] = []
    comments: dict[int, list[tuple[int, int]]] = {}
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return [], {}
    low, high = len(lines) + 2, -1
    for tok in tokens:
        if tok.type in (tokenize.ENDMARKER, tokenize.DEDENT):
            continue
        if tok.type == tokenize.COMMENT:
            comments.setdefault(tok.start[0], []).append((tok.start[1], tok.end[1]))
        low, high = min(low, tok.start[0]), max(high, tok.end[0])
        if tok.type in (tokenize.NL, tokenize.NEWLINE):
            groups.append((low, high, "\n".join(lines[low - 1: high])))
            low, high = len(lines) + 2, -1
    return groups, comments


_CODE_RE = re.compile(r"[A-Z]+[0-9]+", re.IGNORECASE)  # as NOQA_RE reads them


@dataclass(frozen=True)
class NoqaComment:
    """A `# noqa: CODES` in a comment, as flake8 reads it for the lines `first`..`last`. Columns
    are 0-based in line `line`: the comment token, the `# noqa...` in it (to the end of its
    codes), and each code."""

    line: int
    first: int
    last: int
    comment: tuple[int, int]
    noqa: tuple[int, int]
    codes: tuple[tuple[str, int, int], ...]


def noqa_comments(lines: list[str]) -> list[NoqaComment]:
    """The `# noqa: CODES` comments flake8 reads in these lines: for each group of lines
    (`noqa_line_map`), the first `# noqa` of its text, when it has codes and lies in a comment
    (one inside a string is read by flake8 too, but it is not a comment to report or edit)."""
    groups, comments = _noqa_groups(lines)
    out = []
    for low, high, joined in groups:
        m = NOQA_RE.search(joined)
        if m is None or not m.group("codes"):
            continue
        before = joined[:m.start()]
        line = low + before.count("\n")
        shift = m.start() - (before.rfind("\n") + 1) - m.start()
        column = m.start() + shift
        comment = next(((a, b) for a, b in comments.get(line, ()) if a <= column < b), None)
        if comment is None:
            continue
        found = list(_CODE_RE.finditer(joined, m.start("codes"), m.end("codes")))
        if not found or "\n" in joined[m.start():found[-1].end()]:
            continue  # the codes run on past the comment's line: not a comment to edit
        codes = tuple((c.group(), c.start() + shift, c.end() + shift) for c in found)
        out.append(NoqaComment(line, low, high, comment, (column, codes[-1][2]), codes))
    return out


_line_maps: dict[int, tuple[list[str], dict[int, str] | None]] = {}


def _line_map(lines: list[str]) -> dict[int, str] | None:
    """`noqa_line_map(lines)`, or None when no line mentions noqa. The engine asks once per
    finding with the same list per file, so the answer is kept for that list."""
    cached = _line_maps.get(id(lines))
    if cached is None or cached[0] is not lines:
        if len(_line_maps) > 64:
            _line_maps.clear()
        mapping = noqa_line_map(lines) if any("noqa" in line.lower() for line in lines) else None
        cached = _line_maps[id(lines)] = (lines, mapping)
    return cached[1]


def is_suppressed(finding: Finding, lines: list[str]) -> bool:
    """Whether an inline `# noqa` covers the finding, exactly as flake8 decides it."""
    if not 1 <= finding.line <= len(lines):
        return False
    mapping = _line_map(lines)
    if mapping is None:
        return False
    text = mapping.get(finding.line)
    if text is None:
        text = lines[finding.line - 1]
    codes = noqa_codes(text)
    if codes is None:
        return False
    return not codes or finding.code in codes or finding.code.startswith(tuple(codes))


def file_noqa(lines: list[str]) -> frozenset[str] | None:
    """Codes turned off for the whole file by `# stagelint: noqa` in its first comment block:
    None if there is none, an empty set for every code."""
    for line in lines:
        stripped = line.strip()
        if not stripped or stripped.startswith("#!"):
            continue
        if not stripped.startswith("#"):
            return None
        m = FILE_NOQA_RE.search(stripped)
        if m:
            codes = m.group("codes")
            return frozenset(c.upper() for c in _split_codes(codes)) if codes else frozenset()
    return None


def file_is_off(lines: list[str], code: str | None = None) -> bool:
    """Whether `# stagelint: noqa` in the file's first comment block turns `code` off (any
    code, if `code` is None and the directive names none)."""
    codes = file_noqa(lines)
    if codes is None:
        return False
    if not codes:
        return True
    return code is not None and code_matches(code, tuple(codes))
