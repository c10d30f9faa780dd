"""Where each rule's page is published: a module of its own, so that a report that links its
findings' rules (the JSON `url`, the SARIF `helpUri`, the HTML report) does not import the
rules themselves.

The link is the `rule-url` setting of `[tool.stagelint]`, a template with `{code}` (and
`{version}`, stagelint's): the page of each rule wherever the project keeps stagelint's docs
(`docs/rules/STG101.md` of the repository it installed stagelint from, an internal wiki). Unset,
findings carry no link: there is no public host to point at, and a link that serves nothing is
worse than none (`stagelint rule CODE` prints the page, and SARIF carries it in `help`)."""

from __future__ import annotations

#: The placeholders a `rule-url` template may use.
FIELDS = ("code", "version")


def rule_url(code: str, template: str = "") -> str | None:
    """The page of rule `code` under `template`, or None when no template is set."""
    if not template:
        return None
    from stagelint import __version__

    return template.format(code=code, version=__version__)
