"""Output formats for `stagelint check`: one module per format, each a `render(result, out)`."""

from __future__ import annotations

from stagelint.report import concise, full, github, gitlab, json_format, junit, sarif

FORMATS = {
    "full": full.render,
    "concise": concise.render,
    "json": json_format.render,
    "sarif": sarif.render,
    "github": github.render,
    "gitlab": gitlab.render,
    "junit": junit.render,
}
