"""Every rule's own documentation and examples: one home per rule, and it must be true."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from stagelint.report.docs import pages
from stagelint.engine import check_source
from stagelint.rules import all_rules
from stagelint.rules.base import SECTIONS, example_source, expected_findings

SPEC = Path(__file__).resolve().parents[2] / "shared" / "spec" / "rules.md"
RULES = all_rules()
STATIC = [r for r in RULES if not r.runtime_only]


def _examples():
    for rule in STATIC:
        for kind in ("valid", "invalid"):
            for i, ex in enumerate(getattr(rule, kind)):
                yield pytest.param(rule, kind, ex, id=f"{rule.code}-{kind}-{i}")


@pytest.mark.parametrize("rule,kind,example", list(_examples()))
def test_example_findings_match_markers(rule, kind, example):
    """All findings of an example, of every code, are exactly the `# STGnnn` markers."""
    got = {(f.line, f.code) for f in check_source(example_source(example))}
    assert got == expected_findings(example)
    if kind == "invalid":
        assert any(code == rule.code for _, code in got), "an invalid example must show its own rule"


@pytest.mark.parametrize("rule", RULES, ids=lambda r: r.code)
def test_rule_is_fully_documented(rule):
    sections = rule.doc_sections()
    for title in SECTIONS:
        assert sections.get(title, "").strip(), f"{rule.code} lacks the section {title!r}"
    assert rule.message and "\n" not in rule.message
    assert re.fullmatch(r"STG\d{3}", rule.code)
    assert re.fullmatch(r"[a-z]+(-[a-z]+)*", rule.name)
    if not rule.runtime_only:
        assert rule.valid and rule.invalid, f"{rule.code} needs valid and invalid examples"


#: Codes added after the shared rules.md was written (issue 14: JAX's own traps; issue 25: inputs
#: whose shape varies between calls; STG001, unused `# noqa` codes, ruff's RUF100, asked for by
#: the adoption issue), named in the issues.
BEYOND_THE_SPEC = frozenset({"STG001", "STG203", "STG504", "STG505", "STG506", "STG604", "STG605"})


def _spec_table() -> dict[str, str]:
    table = {}
    for line in SPEC.read_text(encoding="utf-8").splitlines():
        m = re.match(r"\|\s*(STG\d{3})\s*\|\s*([a-z-]+)\s*\|", line)
        if m:
            table[m.group(1)] = m.group(2)
    return table


@pytest.mark.skipif(not SPEC.exists(), reason="the shared spec is beside the checkout")
def test_codes_and_names_follow_the_spec():
    spec = _spec_table()
    assert spec, "rules.md has a code table"
    for rule in STATIC:
        if rule.code == "STG000":
            continue  # defined in interfaces.md
        if rule.code in BEYOND_THE_SPEC:
            assert rule.code not in spec, f"{rule.code} is in rules.md now: drop it from BEYOND_THE_SPEC"
            continue
        assert spec.get(rule.code) == rule.name, f"{rule.code} is named {spec.get(rule.code)!r} in rules.md"


def test_codes_beyond_the_spec_are_in_the_catalog():
    """The codes the shared rules.md predates (`BEYOND_THE_SPEC`): each is
    in the project's catalog (docs/rules/README.md) under its name, with a page of its own."""
    catalog = (Path(__file__).resolve().parents[1] / "docs" / "rules" / "README.md").read_text(encoding="utf-8")
    names = {rule.code: rule.name for rule in STATIC}
    for code in BEYOND_THE_SPEC:
        assert code in names, f"{code} has no rule"
        assert re.search(rf"\b{code}\b.*\b{names[code]}\b", catalog), f"{code} ({names[code]}) is not in the catalog"


@pytest.mark.framework_tiers  # the pages show each rule's per-framework preview tier
def test_docs_pages_are_generated_from_the_rules():
    docs = Path(__file__).resolve().parents[1] / "docs" / "rules"
    expected = pages()
    stale = [name for name, text in expected.items()
             if not (docs / name).exists() or (docs / name).read_text(encoding="utf-8") != text]
    extra = [p.name for p in docs.glob("STG*.md") if p.name not in expected]
    assert not stale and not extra, f"run `python -m stagelint.report.docs`: stale {stale}, extra {extra}"


@pytest.mark.parametrize("rule", all_rules(), ids=lambda r: r.code)
def test_the_page_shows_the_message_a_reader_gets(rule):
    """`stagelint rule CODE` (and hover) shows the message filled in, as its first flagged
    example gets it; only the rules `stagelint run` reports keep the template, said so."""
    from stagelint.report.docs import render_rule

    (line,) = [ln for ln in render_rule(rule).splitlines() if ln.startswith("Message")]
    if rule.runtime_only:
        assert line == f"Message (`stagelint run` fills in the fields in braces): `{rule.message}`"
        return
    found = [f for f in check_source(example_source(rule.invalid[0])) if f.code == rule.code]
    assert line == f"Message (on the first flagged example below, line {found[0].line}): {found[0].message}"
    assert "{" not in found[0].message
