"""Which modules and functions are tests: code a test runner calls once per test, not a program's loop."""

from __future__ import annotations


def is_test_module(module: str) -> bool:
    """pytest's and unittest's naming: `test_*.py`, `*_test.py`, or a module under `tests/`."""
    last = module.rsplit(".", 1)[-1]
    return last.startswith("test_") or last.endswith("_test") or ".tests." in f".{module}."


def run_once_by_test_runner(module_facts, qualname: str | None) -> bool:
    """`qualname` is a notebook's test function its cells call at most once (`FunctionFacts.test_run`),
    or is nested in one: it runs once per run of the notebook or per test."""
    if not qualname:
        return False
    top = module_facts.functions.get(qualname.split(".", 1)[0])
    return top is not None and top.test_run
