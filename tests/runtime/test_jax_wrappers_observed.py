"""The recorder's replacement of `jax.jit` / `equinox.filter_jit` changes nothing tests can observe:
the graph run passes what plain pytest passes (fixture fx_eqx_wrappers: the type of each
decorator's result, Equinox's check of a wrapped function assigned to a Module field, the trace
shared by equal `filter_jit` wrappers and by `filter_jit` of the bound methods of Modules differing
only in an array field, and not by those differing in a Python number). Real JAX and Equinox."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.runtime.conftest import REPO

pytestmark = pytest.mark.jax


@pytest.fixture(scope="module")
def run(fixture_run):
    return fixture_run("fx_eqx_wrappers")


def test_graph_run_passes_what_plain_pytest_passes(run):
    plain = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "0",
                            "tests/runtime/fixtures/fx_eqx_wrappers.py"], cwd=REPO, capture_output=True, text=True)
    assert "5 passed" in plain.stdout, plain.stdout[-2000:]
    assert run.report["runs"]["graph"]["tests"] == {"passed": 5, "failed": 0, "errors": 0}


def test_the_eager_run_differs_only_where_a_counter_asserts_staging(run):
    outcomes = {o["test"].rsplit("::", 1)[1]: o for o in run.report["mode_outcomes"]}
    assert set(outcomes) == {"test_equal_wrappers_share_a_trace", "test_methods_of_modules_holding_arrays_share_a_trace"}
    for outcome in outcomes.values():
        assert "once per trace in graph mode, once per call in eager mode" in outcome["not_comparable"]
    assert not [f for f in run.report["findings"] if f["runtime_only"]]
