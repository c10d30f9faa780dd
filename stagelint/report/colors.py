"""Colours on a terminal, as ruff shows them, and when to use them.

Colour is on when the report goes to standard output and that is a terminal; `NO_COLOR` (any
non-empty value, no-color.org) turns it off and `FORCE_COLOR` (any non-empty value,
force-color.org) on, `NO_COLOR` winning when both are set, as in Python 3.13's own tracebacks.
`TERM=dumb` counts as no colour. A report written with `--output-file` is never coloured."""

from __future__ import annotations

import os

_CODES = {"bold": "1", "red": "31", "green": "32", "cyan": "36", "blue": "34", "dim": "2"}


def wanted(stream, environ=None) -> bool:
    env = os.environ if environ is None else environ
    if env.get("NO_COLOR"):
        return False
    if env.get("FORCE_COLOR"):
        return True
    if env.get("TERM") == "dumb":
        return False
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


class Paint:
    """`paint.red("x")` is "x" in red when colour is on, "x" when not."""

    def __init__(self, enabled: bool = False):
        self.enabled = enabled

    def __call__(self, text: str, *styles: str) -> str:
        if not self.enabled or not text:
            return text
        return f"\x1b[{';'.join(_CODES[s] for s in styles)}m{text}\x1b[0m"


PLAIN = Paint(False)
