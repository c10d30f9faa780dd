"""Shared helpers for the static tests: check a snippet, compare (line, code) pairs."""

from __future__ import annotations

import textwrap

import pytest

from stagelint.pipeline import cache as cache_module
from stagelint.engine import check_source
from stagelint.rules.base import REGISTRY, expected_findings


def findings(source: str, **kwargs):
    return check_source(textwrap.dedent(source).lstrip("\n"), **kwargs)


def pairs(source: str, codes: set[str] | None = None, **kwargs) -> set[tuple[int, str]]:
    """(line, code) of the findings, restricted to `codes` when given."""
    return {(f.line, f.code) for f in findings(source, **kwargs) if codes is None or f.code in codes}


def marked(source: str, codes: set[str] | None = None) -> set[tuple[int, str]]:
    """(line, code) marked with trailing `# STG101` comments, restricted to `codes`."""
    return {(line, code) for line, code in expected_findings(source) if codes is None or code in codes}


@pytest.fixture(autouse=True)
def rule_logic_without_framework_tiers(request, monkeypatch):
    """The in-process tests assert what each rule finds and proves; which framework's code a rule
    reports in by default (`Rule.preview_under`, issue 23's held-back measure) is a reporting
    policy of its own, tested with the `framework_tiers` marker (tests/test_preview_under.py).
    Subprocess tests (CLI, README example, flake8, server) see the policy as users do."""
    if request.node.get_closest_marker("framework_tiers"):
        return
    for rule in REGISTRY.values():
        if rule.preview_under:
            monkeypatch.setattr(rule, "preview_under", {})


@pytest.fixture
def own_signing_key(tmp_path, monkeypatch):
    """A cache signing key of this test's own (subprocesses find it through XDG_CACHE_HOME)."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "user-cache"))
    monkeypatch.setattr(cache_module, "_user_key", None)
