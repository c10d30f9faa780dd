"""`stagelint check --show-settings`: the settings a check of a path uses, where they come from,
and every key with its value, written as the TOML `[tool.stagelint]` takes (ruff's
`--show-settings`). Command-line options are already applied."""

from __future__ import annotations

import json

from stagelint.config import _KEYS


def _toml(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value)
    return "[" + ", ".join(_toml(v) for v in value) + "]"


def show_settings(settings, path: str) -> str:
    lines = [f"Resolved settings for: {json.dumps(str(path))}",
             f"Settings path: {json.dumps(settings.source) if settings.source else 'none (the defaults)'}"]
    lines += [f"Not read (the file above comes first): {json.dumps(p)}" for p in settings.shadowed]
    lines.append("")
    for key, (attr, _) in _KEYS.items():
        if key == "extend-select":  # folded into select when read
            continue
        value = getattr(settings, attr)
        text = ("{" + ", ".join(f"{json.dumps(k)} = {_toml(list(v))}" for k, v in value) + "}"
                if key == "per-file-ignores" else _toml(value))
        lines.append(f"{key} = {text}")
    return "\n".join(lines) + "\n"
