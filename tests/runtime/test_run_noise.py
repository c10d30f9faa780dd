"""Issue 13 point 6: no alarm on clean code: a parametrized matrix's one trace per test, an error
the test asserts, str against bytes, a decorator's wrapper, files the tests never use."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.tf


@pytest.fixture(scope="module")
def run(fixture_run):
    return fixture_run("fx_noise")


def test_clean_module_has_no_confirmed_or_runtime_only_finding(run):
    assert [f for f in run.report["findings"] if f["verdict"] == "confirmed"] == []
    assert run.exit_code == 0, run.report["findings"]
    for mode in ("graph", "eager"):
        assert run.report["runs"][mode]["tests"] == {"passed": 10, "failed": 0, "errors": 0}


def test_a_trace_per_parametrized_test_is_not_excessive_retracing(run):
    total = run.function("total")
    assert (total["calls"], total["traces"]) == (6, 6)
    _, extra = run.judged()
    assert not [v for v in extra if v.finding.code == "STG902"]


def test_an_asserted_error_is_not_a_divergence(run):
    pairs = [p for p in run.judged_pairs() if p.key[2] == "gather_unused"]
    assert [p.kind for p in pairs] == ["asserted"]
    assert run.eager.calls and any(c.asserted for c in run.eager.calls)


def test_bytes_and_str_results_are_the_same(run):
    assert run.function("label")["eager_vs_graph"] == "same"


def test_a_decorated_method_is_placed_on_the_method(run, repo_root):
    step = run.function("Stepper.step")
    source = (repo_root / step["path"]).read_text().splitlines()
    assert source[step["line"] - 1].strip() == "def step(self, x):"
    assert not [f for f in run.report["functions"] if "wrapper" in f["name"]]


def test_files_reached_only_through_a_package_are_linted_but_not_reported(run):
    assert "tests/runtime/fixtures/fx_pkg/unused.py" in run.report["static"]["files"]
    assert not [f for f in run.report["findings"] if f["path"].endswith("unused.py")]
