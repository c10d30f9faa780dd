"""STG001 unused-noqa (`rules.noqa`): the codes of `# noqa: ...` comments that suppressed no
finding in this run, once every finding of the file is judged (`pipeline.verdicts.judge`).

A code is used when a finding on a line the comment covers (flake8's reading: `findings.noqa_comments`)
has that code or starts with it, whether or not the host then applies the comment (flake8 does
so itself, `noqa=False`), and held when a finding there was held back (a preview step, a proof
stagelint cannot complete): the comment may still be needed. Only the codes of rules that all
run on the file are judged (`Enabled`)."""

from __future__ import annotations

from stagelint.pipeline.files import digest
from stagelint.findings import UNUSED_NOQA as CODE
from stagelint.findings import Finding, NoqaComment, file_is_off, is_selected, noqa_comments
from stagelint.fix import Edit, Fix
from stagelint.rules.base import REGISTRY


def covers(written: str, code: str) -> bool:
    """Whether the code `written` in a `# noqa` suppresses `code` (codes are prefixes)."""
    return code.startswith(written)


class NoqaUse:
    """The `# noqa: CODES` comments of one file, and which of their codes a finding used."""

    def __init__(self, lines: list[str]):
        self.comments = noqa_comments(lines) if any("noqa" in line.lower() for line in lines) else []
        self.by_line = {n: c for c in self.comments for n in range(c.first, c.last + 1)}
        #: (comment's line, code as written)
        self.used: set[tuple[int, str]] = set()

    def cover(self, line: int, code: str) -> None:
        """A finding (or one held back) of `code` on `line`: the codes that cover it are used."""
        comment = self.by_line.get(line)
        if comment is not None:
            self.used.update((comment.line, c) for c, _, _ in comment.codes if covers(c, code))


class Enabled:
    """Whether every rule a `# noqa` code covers runs on a file in this run (selected, not
    ignored there, not off in the file, not a preview rule without `--preview`, not a runtime
    rule, and it did not fail there): only then can the code be found unused."""

    def __init__(self, settings, failed: set[tuple[str, str]]):
        self.settings = settings
        self.failed = failed

    def rule(self, code: str, path: str, lines: list[str]) -> bool:
        rule, s = REGISTRY[code], self.settings
        return not rule.runtime_only and not (rule.preview and not s.preview) \
            and is_selected(code, s.select, s.ignore) and not s.ignored_for(path, code) \
            and not file_is_off(lines, code) \
            and (path, code) not in self.failed and ("<project>", code) not in self.failed


def unused(path: str, lines: list[str], source: bytes, use: NoqaUse, enabled: Enabled) -> list[Finding]:
    """The STG001 findings of a file whose other findings are all judged (`use` has seen them)."""
    if not use.comments or not enabled.rule(CODE, path, lines):
        return []
    rule = REGISTRY[CODE]
    out = []
    for comment in use.comments:
        written = [c for c, _, _ in comment.codes]
        if any(covers(c, CODE) for c in written):
            continue  # `# noqa: STG001`: the reader wants this comment left alone
        reasons = {}
        for c in written:
            if not c.startswith("STG") or (comment.line, c) in use.used:
                continue
            rules = sorted(code for code in REGISTRY if covers(c, code))
            if rules and not all(enabled.rule(code, path, lines) for code in rules):
                continue
            reasons[c] = _reason(c, rules)
        if not reasons:
            continue
        fix = Fix(digest(source), (_removal(comment, set(reasons), lines),), safe=True)
        for c, start, end in comment.codes:
            if c in reasons:
                out.append(Finding(
                    code=CODE, name=rule.name, path=path, line=comment.line, column=start + 1,
                    end_line=comment.line, end_column=end + 1,
                    message=rule.message.format(code=c, reason=reasons[c]), fixable=True, fix=fix))
    return out


def _reason(written: str, rules: list[str]) -> str:
    if not rules:
        return "no stagelint rule has this code"
    if rules == ["STG000"]:
        return "a syntax error cannot be suppressed"
    if rules == [written]:
        return f"no {written} finding on this line"
    return f"no finding of a {written} rule on this line"


def _removal(comment: NoqaComment, gone: set[str], lines: list[str]) -> Edit:
    """The edit that takes the codes `gone` out of the comment: the comment's other codes stay
    as written; with none left, the `# noqa` and its reason go (another comment after it
    stays), and a line that held only the comment goes with it. Columns 1-based."""
    line, text = comment.line, lines[comment.line - 1]
    kept = [c for c, _, _ in comment.codes if c not in gone]
    if kept:
        codes = comment.codes
        sep = text[codes[0][2]:codes[1][1]] if len(codes) > 1 else ","
        return Edit(line, codes[0][1] + 1, line, codes[-1][2] + 1, sep.join(kept))
    start, end = comment.noqa
    rest = text[end:comment.comment[1]]
    after = rest.find("#")
    if after >= 0:
        return Edit(line, start + 1, line, end + after + 1, "")
    begin = len(text[:start].rstrip())
    if begin == 0:
        if line < len(lines):
            return Edit(line, 1, line + 1, 1, "")
        return Edit(line, 1, line, len(text) + 1, "")
    return Edit(line, begin + 1, line, len(text.rstrip()) + 1, "")
