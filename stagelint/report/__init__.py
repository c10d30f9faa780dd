"""Output formats for `stagelint check`: one module per format, each a `render(result, out)`."""

from __future__ import annotations

from stagelint.report import concise, full, github, json_format, sarif

FORMATS = {
    "full": full.render,
    "concise": concise.render,
    "json": json_format.render,
    "sarif": sarif.render,
    "github": github.render,
}
