"""`stagelint run` on JAX fixture modules: each family confirmed with its evidence, and the negatives
(jax.debug.print, lax.fori_loop, the same function jitted in a loop) not confirmed. Real JAX."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.jax


@pytest.fixture(scope="module")
def effects(fixture_run):
    return fixture_run("fx_jax_effects")


@pytest.fixture(scope="module")
def errors(fixture_run):
    return fixture_run("fx_jax_errors")


@pytest.fixture(scope="module")
def retracing(fixture_run):
    return fixture_run("fx_jax_retracing")


def _line(run, code, verdict="confirmed", nth=0):
    return [line for line, c, v in run.marked() if c == code and v == verdict][nth]


@pytest.mark.parametrize("name", ["fx_jax_effects", "fx_jax_errors", "fx_jax_retracing"])
def test_every_marked_finding_gets_its_verdict(fixture_run, name):
    run = fixture_run(name)
    verdicts, _ = run.judged()
    for line, code, expected in run.marked():
        assert verdicts[(line, code)].verdict == expected, (line, code, verdicts[(line, code)].evidence)


def test_the_runs_are_jax_runs_without_tensorflow(effects):
    """Both runs recorded JAX's version and never imported TensorFlow (nothing in the fixture uses it)."""
    for path in (effects.workdir / "graph.jsonl", effects.workdir / "eager.jsonl"):
        start = path.read_text().splitlines()[0]
        assert '"jax":"0.' in start and '"tf"' not in start
    assert effects.report["runs"]["graph"]["status"] == "ok" and effects.report["runs"]["eager"]["status"] == "ok"
    for run in (effects.graph, effects.eager):
        nodeid = next(t for t in run.tests if t.endswith("test_tensorflow_is_not_imported"))
        assert run.test_status(nodeid) == "passed", run.failure(nodeid)
    assert not [t for t in effects.eager.not_rerun if t.endswith("test_tensorflow_is_not_imported")]


def test_print_and_append_run_once_per_trace(effects):
    verdicts, _ = effects.judged()
    printed, appended = _line(effects, "STG101"), _line(effects, "STG102")
    assert verdicts[(printed, "STG101")].evidence == (
        f"line {printed} ran 3× eager, 1× graph over 3 calls (1 trace); output at 3 of 3 calls eager, 1 graph")
    assert verdicts[(appended, "STG102")].evidence.startswith(f"line {appended} ran 3× eager, 1× graph over 3 calls")


def test_stale_global_differs_after_the_global_changed(effects):
    verdicts, _ = effects.judged()
    line = _line(effects, "STG301")
    assert verdicts[(line, "STG301")].evidence == (
        "call 2 of `scaled` in test_stale_global: eager [5.0, 5.0] float32[2], graph [2.0, 2.0] float32[2] "
        "(1 of 2 calls differ)")


def test_negatives_are_traced_once_and_match(effects):
    """jax.debug.print prints at every call in both runs; fori_loop and the module-level function
    jitted anew in a loop trace once and return what eager returns: nothing for a finding to show."""
    pairs = effects.judged_pairs()
    for name in ("debug_printed", "summed_with_fori", "half"):
        mine = [p for p in pairs if p.key[2] == name]
        assert len(mine) == 3 and {p.kind for p in mine} == {"same"}, name
        assert sum(p.graph.traced for p in mine) == 1, name
    printed = [p for p in pairs if p.key[2] == "debug_printed"]
    assert all("debug_printed got" in p.graph.output and "debug_printed got" in p.eager.output for p in printed)
    _, extra = effects.judged()
    assert {v.finding.function for v in extra} <= {"scaled"}


def test_control_flow_and_host_conversion_errors(errors):
    verdicts, _ = errors.judged()
    branch = _line(errors, "STG602")
    assert verdicts[(branch, "STG602")].evidence == (
        "call 1 of `relu_if` in test_python_if_on_tracer: graph raised TracerBoolConversionError: Attempted boolean "
        "conversion of traced array with shape bool[].; eager returned 2.0")
    float_line, numpy_line = _line(errors, "STG601"), _line(errors, "STG601", nth=1)
    assert "graph raised ConcretizationTypeError" in verdicts[(float_line, "STG601")].evidence
    assert "graph raised TracerArrayConversionError" in verdicts[(numpy_line, "STG601")].evidence


def test_host_conversion_patterns_do_not_confirm_a_shape_finding(errors):
    """ConcretizationTypeError serves several families: the message decides (float() is STG601,
    a size-less nonzero STG604), so one does not confirm the other."""
    from stagelint.runtime.evidence import JAX_HOST_ERRORS, JAX_SHAPE_ERRORS

    verdicts, _ = errors.judged()
    ev_keys = {p.key for p in errors.judged_pairs() if p.key[2] in ("to_float", "nonzero_count")}
    from stagelint.runtime.compare import join
    from stagelint.runtime.evidence import Evidence

    ev = Evidence(errors.graph, errors.eager, join(errors.graph, errors.eager))
    to_float = {k for k in ev_keys if k[2] == "to_float"}
    nonzero = {k for k in ev_keys if k[2] == "nonzero_count"}
    assert ev.graph_errors(to_float, JAX_HOST_ERRORS) and not ev.graph_errors(to_float, JAX_SHAPE_ERRORS)
    assert ev.graph_errors(nonzero, JAX_SHAPE_ERRORS) and not ev.graph_errors(nonzero, JAX_HOST_ERRORS)


def test_data_dependent_shapes(errors):
    verdicts, _ = errors.judged()
    boolean, nonzero = _line(errors, "STG604"), _line(errors, "STG604", nth=1)
    assert "graph raised NonConcreteBooleanIndexError: Array boolean indices must be concrete" in \
        verdicts[(boolean, "STG604")].evidence
    assert "eager returned 2" in verdicts[(nonzero, "STG604")].evidence


def test_leaked_tracer_is_found_in_the_global_and_the_test_fails_in_graph_only(errors):
    verdicts, _ = errors.judged()
    line = _line(errors, "STG201")
    evidence = verdicts[(line, "STG201")].evidence
    assert evidence.startswith("after call 1 of `remember` in test_leaked_tracer (graph) global `leaked`[0] held "
                               "the symbolic tensor JitTracer(float32[2])")
    assert "test `test_leaked_tracer` failed only in graph mode: jax.errors.UnexpectedTracerError" in evidence


def test_unhashable_static_and_donated_array(errors):
    verdicts, _ = errors.judged()
    static = _line(errors, "STG504")
    assert "graph raised TypeError: unhashable type: 'list'; eager returned [3.0, 3.0] float32[2]" in \
        verdicts[(static, "STG504")].evidence
    donated = _line(errors, "STG203")
    assert verdicts[(donated, "STG203")].evidence == (
        "test `test_donated_array_used_after_the_call` failed only in graph mode: RuntimeError: Array has been "
        "deleted with shape=float32[3].")
    # The donating call itself compares: the argument was summarised before JAX deleted it.
    pair = next(p for p in errors.judged_pairs() if p.key[2] == "doubled_in_place")
    assert pair.kind == "same"


def test_tracer_error_under_vmap_fails_in_both_runs_and_is_still_evidence(errors):
    verdicts, _ = errors.judged()
    line = _line(errors, "STG602", nth=1)
    assert verdicts[(line, "STG602")].evidence == (
        "call 1 of `sign_of` in test_python_if_under_vmap: both runs raised TracerBoolConversionError: Attempted "
        "boolean conversion of traced array with shape bool[]. (JAX traced it in the eager run too)")


def test_confirmed_errors_are_not_reported_again_as_runtime_only(errors):
    _, extra = errors.judged()
    assert extra == []


def test_static_argument_retrace_with_jax_explanation(retracing):
    verdicts, _ = retracing.judged()
    line = _line(retracing, "STG501")
    assert verdicts[(line, "STG501")].evidence == (
        "6 calls, 6 traces; argument `n` took the Python values 1..6; JAX: at input path [0][1], now static 2 and "
        "before static 1")


def test_filter_jit_scalar_retraces(retracing):
    verdicts, _ = retracing.judged()
    line = _line(retracing, "STG501", nth=1)
    evidence = verdicts[(line, "STG501")].evidence
    assert evidence.startswith("6 calls, 6 traces; argument `offset` took the Python values 0.0, 1.0, 2.0, 3.0, 4.0, "
                               "5.0; JAX: at input path [0][2], now static")


def test_recreated_jit_retraces_per_object(retracing):
    verdicts, _ = retracing.judged()
    line = _line(retracing, "STG502")
    assert verdicts[(line, "STG502")].evidence == "4 calls, 4 traces across 4 Function objects made from the same code"


def test_nnx_jit_print(retracing):
    verdicts, _ = retracing.judged()
    line = _line(retracing, "STG101")
    assert verdicts[(line, "STG101")].evidence.startswith(f"line {line} ran 3× eager, 1× graph over 3 calls (1 trace)")


def test_pmap_is_not_compared(retracing):
    pairs = [p for p in retracing.judged_pairs() if p.key[2] == "pmapped_square"]
    assert len(pairs) == 2 and {p.kind for p in pairs} == {"not-compared"}
    assert pairs[0].detail == "pmap traced it in the eager run too (JAX cannot run it eagerly)"
    row = retracing.function("pmapped_square")
    assert row["calls"] == 2


def test_identity_hashed_static_argument_retraces_every_call(retracing):
    verdicts, _ = retracing.judged()
    line = _line(retracing, "STG505")
    evidence = verdicts[(line, "STG505")].evidence
    assert evidence.startswith("3 calls, 3 traces; no argument's value or spec changed; JAX: at input path [0][1], "
                               "now static <"), evidence


# End to end: `stagelint check`'s own JAX findings (w-jaxcore, w-jaxrules) judged by the runs.

EXPECTED_STATIC = {
    "fx_jax_effects": {"STG101", "STG102", "STG301"},
    "fx_jax_errors": {"STG201", "STG203", "STG504", "STG601", "STG602", "STG604"},
    "fx_jax_retracing": {"STG101", "STG501", "STG502", "STG505"},
    "fx_jax_methods": {"STG101"},
}


@pytest.mark.parametrize("name", sorted(EXPECTED_STATIC))
def test_static_jax_findings_are_confirmed_end_to_end(fixture_run, name):
    run = fixture_run(name)
    marked = {(line, code): verdict for line, code, verdict in run.marked()}
    static = [f for f in run.report["findings"] if not f["runtime_only"]]
    judged = {(f["line"], f["code"]): f for f in static}
    # Every static finding the fixture marks gets the marked verdict; the families all show up.
    for key, finding in judged.items():
        if key in marked:
            assert finding["verdict"] == marked[key], finding
    confirmed = {code for (line, code), f in judged.items() if f["verdict"] == "confirmed" and (line, code) in marked}
    assert confirmed >= EXPECTED_STATIC[name], (confirmed, static)


def test_negatives_have_no_static_or_runtime_finding(effects):
    """jax.debug.print, lax.fori_loop and jax.jit(half) in a loop: nothing reported there at all."""
    negative = {effects.function(n)["line"] for n in ("debug_printed", "summed_with_fori", "half")}
    spans = [(line, line + 4) for line in negative]
    reported = [f for f in effects.report["findings"] if any(a <= f["line"] <= b for a, b in spans)]
    assert reported == []


@pytest.mark.tf
def test_a_module_using_both_frameworks_gets_both_recorders(fixture_run):
    run = fixture_run("fx_jax_mixed")
    start = (run.workdir / "graph.jsonl").read_text().splitlines()[0]
    assert '"tf":"2.' in start and '"jax":"0.' in start
    verdicts, extra = run.judged()
    for line, code, expected in run.marked():
        assert verdicts[(line, code)].verdict == expected, (line, code, verdicts[(line, code)].evidence)
        assert verdicts[(line, code)].evidence.startswith(f"line {line} ran 3× eager, 1× graph over 3 calls")
    assert {f["name"].rsplit(".", 1)[-1] for f in run.report["functions"]} == {"tf_noisy", "jax_noisy"}


def test_two_subprocess_path_gives_the_same_verdicts(fixture_run, effects):
    """Off Linux (STAGELINT_RUN_FORK=0) the eager child gets JAX_DISABLE_JIT=1 in its environment."""
    plain = fixture_run("fx_jax_effects", env={"STAGELINT_RUN_FORK": "0"})
    verdicts, _ = plain.judged()
    forked, _ = effects.judged()
    assert {k: v.evidence for k, v in verdicts.items()} == {k: v.evidence for k, v in forked.items()}


def test_jitted_methods_are_recorded_with_their_arguments(fixture_run):
    run = fixture_run("fx_jax_methods")
    verdicts, extra = run.judged()
    for line, code, expected in run.marked():
        assert verdicts[(line, code)].verdict == expected, (line, code, verdicts[(line, code)].evidence)
        assert verdicts[(line, code)].evidence.startswith(f"line {line} ran 3× eager, 1× graph over 3 calls")
    calls = [c for c in run.graph.calls if c.fn[2] == "Scaler.__call__"]
    assert [name for name, _ in calls[0].args] == ["x"] and [c.traced for c in calls] == [1, 0, 0]
    assert extra == []
