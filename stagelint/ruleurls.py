"""Where each rule's page is published: a module of its own, so that a report that links its
findings' rules (the JSON `url`, the SARIF `helpUri`) does not import the rules themselves."""

from __future__ import annotations

#: docs/rules/ of the stagelint repository at the tag of the installed version (the SARIF
#: `helpUri`, the JSON `url`, the HTML report's links).
RULES_URL = "https://github.com/stagelint/stagelint/blob/v{version}/docs/rules/{code}.md"


def rule_url(code: str) -> str:
    from stagelint import __version__

    return RULES_URL.format(version=__version__, code=code)
