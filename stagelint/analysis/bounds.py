"""Python numbers bounding an unrolled loop: their value from source text, and why the bounds
callers pass make the unrolling a problem. Shared by STG503 and its JAX twin."""

from __future__ import annotations

import ast


def literal(text: str):
    """The Python value of a number literal's source text (`1` and `1.0` are one trace key)."""
    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value)


#: A literal bound this large is a data size rather than a model's fixed structure.
LARGE_BOUND = 32


def varying_bound(shown, eager=None) -> str | None:
    """Why the Python bounds callers pass make the unrolled loop a problem: they vary (a loop
    variable, a counter, different literals from calls outside staged code: `eager`, all of
    `shown` when not given), or one is large; None for fixed small bounds."""
    for arg in shown:
        if arg.varies:
            why = arg.varies if f"`{arg.text}`" in arg.varies else f"`{arg.text}`, {arg.varies}"
            return f"a Python number that changes ({why})"
    eager = shown if eager is None else eager
    values = {literal(a.text) for a in eager} - {None}
    if len(values) > 1:
        return "different Python numbers (" + ", ".join(f"`{a.text}`" for a in eager[:3]) + ")"
    big = next((a for a in shown if (literal(a.text) or 0) >= LARGE_BOUND), None)
    if big is not None:
        return f"the Python number `{big.text}`"
    return None
