"""Which modules are tests: code a test runner calls once per test, not a program's loop."""

from __future__ import annotations


def is_test_module(module: str) -> bool:
    """pytest's and unittest's naming: `test_*.py`, `*_test.py`, or a module under `tests/`."""
    last = module.rsplit(".", 1)[-1]
    return last.startswith("test_") or last.endswith("_test") or ".tests." in f".{module}."
