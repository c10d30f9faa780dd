"""Rule documentation rendered from the rule classes: `stagelint rule CODE` and docs/rules/.

`python -m stagelint.report.docs` rewrites docs/rules/; a test fails when the pages are stale.
"""

from __future__ import annotations

import sys
from functools import lru_cache
from pathlib import Path

import stagelint
from stagelint.rules import all_rules
from stagelint.rules.base import FRAMEWORK_NAMES, SECTIONS, example_source
from stagelint.ruleurls import rule_url  # noqa: F401  (re-exported)


def render_rule(rule) -> str:
    sections = rule.doc_sections()
    out = [f"# {rule.code} {rule.name}", ""]
    if rule.runtime_only:
        out += ["*Runtime-only: reported by `stagelint run`, which observes it; no static check.*", ""]
    if rule.preview:
        out += [f"*Preview: reported only with `--preview` (`preview = true`). {rule.preview}*", ""]
    for framework, why in sorted(rule.preview_under.items()):
        out += [f"*Preview under {FRAMEWORK_NAMES[framework]}: in code {FRAMEWORK_NAMES[framework]} stages, reported "
                f"only with `--preview` (`preview = true`). {why}*", ""]
    if rule.fixable:
        out += ["*Fix available: `stagelint check --fix`.*", ""]
    if rule.repeated_cost:
        out += ["*Not reported in test modules (`test_*.py`, `*_test.py`, under `tests/`): its cost "
                "needs repetition, and a test runs once.*", ""]
    out += [message_line(rule), ""]
    for title in SECTIONS:
        out += [f"## {title}", "", sections.get(title, ""), ""]
    for title in sections:
        if title not in SECTIONS:
            out += [f"## {title}", "", sections[title], ""]
    if rule.invalid:
        out += ["## Flagged", ""]
        for ex in rule.invalid:
            out += ["```python", example_source(ex).rstrip(), "```", ""]
    if rule.valid:
        out += ["## Not flagged", ""]
        for ex in rule.valid:
            out += ["```python", example_source(ex).rstrip(), "```", ""]
    return "\n".join(out).rstrip() + "\n"


def message_line(rule) -> str:
    """The rule's message as a reader meets it: the finding its first flagged example gets, or,
    for the rules only `stagelint run` reports (no static example to run), the template."""
    example = example_message(rule.code)
    if example is not None:
        line, message = example
        return f"Message (on the first flagged example below, line {line}): {message}"
    return f"Message (`stagelint run` fills in the fields in braces): `{rule.message}`"


@lru_cache(maxsize=None)
def example_message(code: str) -> tuple[int, str] | None:
    """(line, message) of the first finding of `code` in its rule's first flagged example."""
    from stagelint.config import Settings
    from stagelint.engine import check_source
    from stagelint.rules.base import REGISTRY

    rule = REGISTRY[code]
    if rule.runtime_only or not rule.invalid:
        return None
    # A rule in a preview tier shows the message its preview findings carry.
    settings = Settings(preview=True) if rule.preview or rule.preview_under else None
    found = [f for f in check_source(example_source(rule.invalid[0]), settings=settings) if f.code == code]
    return (found[0].line, found[0].message) if found else None


def render_index() -> str:
    out = ["# Rules", "", "Generated from the rule classes by `python -m stagelint.report.docs`.", "",
           "| code | name | what it flags |", "|---|---|---|"]
    for r in all_rules():
        tag = " (runtime-only)" if r.runtime_only else r.tier_tag()
        out.append(f"| [{r.code}]({r.code}.md) | {r.name} | {r.summary()}{tag} |")
    return "\n".join(out) + "\n"


def pages() -> dict[str, str]:
    files = {f"{r.code}.md": render_rule(r) for r in all_rules()}
    files["README.md"] = render_index()
    return files


def write(directory: Path) -> list[str]:
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    wanted = pages()
    for name, text in wanted.items():
        path = directory / name
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")
            written.append(name)
    for stale in directory.glob("STG*.md"):
        if stale.name not in wanted:
            stale.unlink()
            written.append(stale.name)
    return written


if __name__ == "__main__":
    target = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(stagelint.__file__).resolve().parents[1] / "docs" / "rules"
    for name in write(target):
        print(f"wrote {target / name}")
