"""Tests that observe staging through what a staged body writes (a counter in a closure, a module
global, an attribute, a witness list), a type check of a traced argument, or a donated buffer fail
in the eager run by design: not comparable there, recognised from what the failing assertion reads
(no static finding explains them). Their twins, whose failing assertion reads nothing staging
decides, stay STG901. Real JAX."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.jax

COUNTER = "which `{fn}` writes at line {line} as its Python body runs: once per trace in graph mode, once per call in eager mode"
NOT_COMPARABLE = {
    "test_closure_counter": "the failing assertion reads `count`, " + COUNTER.format(fn="test_closure_counter.body",
                                                                                    line=22),
    "test_counter_read_in_a_helper": "the failing assertion reads `calls`, " + COUNTER.format(
        fn="_make_checker.counted", line=36),
    "test_global_counter": "the failing assertion reads `traces`, " + COUNTER.format(fn="globally_counted", line=58),
    "test_attribute_counter": "the failing assertion reads `model.count`, " + COUNTER.format(fn="Model._apply",
                                                                                           line=75),
    "test_witness_list": "the failing assertion reads `seen`, " + COUNTER.format(fn="test_witness_list.body", line=90),
    "test_switch_branches_counted": "the failing assertion reads `g_seen`, " + COUNTER.format(
        fn="test_switch_branches_counted.g", line=146),
    "test_argument_is_no_int_under_jit": "`TypeOfArguments.test_argument_is_no_int_under_jit.body` checks that a "
                                         "value is a tracer (`n` is a Python int here, which jit passes as a tracer); "
                                         "the eager run passes concrete values",
    "test_donated_buffer_deleted": "the failing assertion calls `is_deleted()` of an array; "
                                   "`test_donated_buffer_deleted.<lambda>` donates its arguments (donate_argnums=0): "
                                   "jit donates buffers, with jit disabled nothing is donated",
    "test_donation_warning": "the test expects JAX's warning about a donated buffer it could not use; "
                             "`test_donation_warning.<lambda>` donates its arguments (donate_argnums=(0, 1)): jit "
                             "donates buffers, with jit disabled nothing is donated",
}


@pytest.fixture(scope="module")
def run(fixture_run):
    return fixture_run("fx_jax_observed_staging")


def test_tests_observing_staging_are_not_comparable_in_the_eager_run(run):
    outcomes = {o["test"].rsplit("::", 1)[1]: o for o in run.report["mode_outcomes"]}
    assert {t: o.get("not_comparable") for t, o in outcomes.items() if o.get("not_comparable")} == NOT_COMPARABLE
    for test in NOT_COMPARABLE:  # they do fail in the eager run: that is the point
        assert (outcomes[test]["graph"], outcomes[test]["eager"]) == ("passed", "failed")


def test_the_twins_are_divergences(run):
    """A test's own local named like a staged body's counter is not that counter; a donated call
    whose test fails on something else than a buffer is no donation effect."""
    runtime = sorted((f["line"], f["code"]) for f in run.report["findings"] if f["runtime_only"])
    assert runtime == sorted(run.runtime_marked())
    reads = {nodeid.rsplit("::", 1)[1]: r for nodeid, r in run.eager.failed_reads.items()}
    assert "writes" not in reads.get("test_local_named_like_a_counter", {}) or not reads[
        "test_local_named_like_a_counter"]["writes"]
    assert not reads.get("test_donated_call_failing_on_a_value", {}).get("buffers")


def test_only_the_eager_run_reads_failing_assertions(run):
    assert run.graph.failed_reads == {}
    assert run.report["runs"]["graph"]["tests"]["passed"] == 11


@pytest.mark.tf
def test_a_tf_function_counter_is_recognised_too(fixture_run):
    run = fixture_run("fx_tf_observed_staging")
    (outcome,) = run.report["mode_outcomes"]
    assert (outcome["graph"], outcome["eager"]) == ("passed", "failed")
    assert outcome["not_comparable"] == "the failing assertion reads `count`, " + COUNTER.format(
        fn="test_closure_counter.body", line=17)
    assert not [f for f in run.report["findings"] if f["runtime_only"]]


def test_errors_a_control_flow_primitive_raises_as_it_stages_are_not_comparable(fixture_run):
    """`lax.cond`/`switch` trace every branch with jit enabled (and check their outputs agree), only
    the branch taken with jit disabled: a test expecting the error that staging raised fails in the
    eager run by design. The twin's expected error is the test's own, on a stale value: STG901."""
    run = fixture_run("fx_jax_control_flow_errors")
    outcomes = {o["test"].rsplit("::", 1)[1]: o for o in run.report["mode_outcomes"]}
    assert {t: (o["graph"], o["eager"]) for t, o in outcomes.items()} == {
        "test_cond_branch_structure_error": ("passed", "failed"),
        "test_untaken_branch_error": ("passed", "failed"),
        "test_stale_value_raises": ("passed", "failed")}
    assert outcomes["test_cond_branch_structure_error"]["not_comparable"].startswith(
        "the test expects TypeError, which `lax.cond` raised in the graph run as it traced the functions it was "
        "given (cond branch outputs must have the same pytree structure")
    assert outcomes["test_untaken_branch_error"]["not_comparable"] == (
        "the test expects ValueError, which `lax.switch` raised in the graph run as it traced the functions it was "
        "given (this branch cannot be built); with jit disabled it runs them as Python, a `cond` only the branch "
        "taken")
    assert "not_comparable" not in outcomes["test_stale_value_raises"]
    runtime = sorted((f["line"], f["code"]) for f in run.report["findings"] if f["runtime_only"])
    assert runtime == sorted(run.runtime_marked())
    assert set(run.graph.staging_errors) == {o["test"] for t, o in outcomes.items() if t != "test_stale_value_raises"}
