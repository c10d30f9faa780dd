"""One JSON array of findings on stdout, as interfaces.md specifies."""

from __future__ import annotations

import json


def render(result, out) -> None:
    json.dump([f.to_json(result.rule_url) for f in result.findings], out, indent=2)
    out.write("\n")
