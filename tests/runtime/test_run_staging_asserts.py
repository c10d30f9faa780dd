"""Tests that assert staging itself (trace counters, trace-count reads, tracer checks, errors only
tracing raises, JAX's x64 canonicalisation) are not comparable in the eager run, which fails them
by design; their twins, which fail in the eager run for a real divergence, are still STG901."""

from __future__ import annotations

import pytest

from stagelint.runtime.compare import Pair
from stagelint.runtime.modeasserts import call_reason, canonicalised, expected_error, jit_disabled_reason
from stagelint.runtime.records import Call

pytestmark = [pytest.mark.tf, pytest.mark.jax]

NOT_COMPARABLE = {
    "test_counter_in_jit": "the test counts how often `counted`'s Python body runs (STG102 at "
                           "tests/runtime/fixtures/fx_staging_asserts.py:17, confirmed: line 17 ran 2× eager, 1× graph "
                           "over 2 calls (1 trace)): once per trace in graph mode, once per call in eager mode",
    "test_tf_tracing_count": "the test reads the trace count of `tf_counted` (experimental_get_tracing_count()); in "
                             "the eager run the body runs at every call and nothing is traced",
    "test_jax_cache_size": "the test reads the trace count of `cached` (_cache_size()); in the eager run the body "
                           "runs at every call and nothing is traced",
    "test_tracer_check": "`tracer_checked` checks that a value is a tracer (jax._src.core.Tracer); the eager run "
                         "passes concrete values",
    "test_error_only_tracing_raises": "`expects_tracing_error` expects TracerBoolConversionError, which only "
                                      "tracing raises; the eager run does not trace",
    "test_assert_raises_inside_jit": "`TracingErrorCase.test_assert_raises_inside_jit.concrete_only` expects "
                                     "ConcretizationTypeError, which only tracing raises; the eager run does not trace",
    "test_zero_length_scan": "`total`: JAX refuses it with jit disabled (zero-length scan is not supported "
                             "in disable_jit() mode because the output type is unknown.)",
    "test_python_scalar_argument": "`ones_like_scalar`: a Python float has no `.dtype` ('float' object "
                                   "has no attribute 'dtype'); jit makes Python scalars arrays, in its "
                                   "arguments and its results, and the eager run keeps them Python numbers",
    "test_python_scalar_result": "a Python float has no `.ndim` ('float' object has no attribute 'ndim')"
                                 "; jit makes Python scalars arrays, in its arguments and its results, and "
                                 "the eager run keeps them Python numbers",
    "test_int64_canonicalised": "`identity` returned int32 under jit where the eager run returned int64 with the "
                                "same values: jit canonicalises 64-bit inputs to 32 bits while jax_enable_x64 is off",
}


@pytest.fixture(scope="module")
def run(fixture_run):
    return fixture_run("fx_staging_asserts")


def test_tests_that_assert_staging_are_not_comparable_in_the_eager_run(run):
    outcomes = {o["test"].rsplit("::", 1)[1]: o for o in run.report["mode_outcomes"]}
    assert {t: o.get("not_comparable") for t, o in outcomes.items() if o.get("not_comparable")} == NOT_COMPARABLE
    for test in NOT_COMPARABLE:  # they do fail in the eager run: that is the point
        assert (outcomes[test]["graph"], outcomes[test]["eager"]) == ("passed", "failed")


def test_only_the_twins_are_divergences(run):
    """No STG901 for the tests above. Their twins are still divergences: a check on jax.Array (no
    tracer type; a NumPy input stays NumPy when not traced) is STG901, and a stale global read beside
    a trace-count read is its confirmed STG301, the test not called "not comparable"."""
    runtime = sorted((f["line"], f["code"]) for f in run.report["findings"] if f["runtime_only"])
    _, extra = run.judged()
    assert runtime == sorted(run.runtime_marked()) == sorted((v.finding.line, v.finding.code) for v in extra)
    (stale,) = [o for o in run.report["mode_outcomes"] if o["test"].endswith("::test_cache_size_read_beside_a_stale_global")]
    assert stale["eager"] == "failed" and "not_comparable" not in stale
    (finding,) = [f for f in run.report["findings"] if f["code"] == "STG301"]
    assert finding["verdict"] == "confirmed" and finding["evidence"].startswith(
        "call 2 of `scaled` in test_cache_size_read_beside_a_stale_global: eager 2.0, graph 1.0")


def test_the_counter_is_the_static_finding_that_explains_it(run):
    verdicts, _ = run.judged()
    for (line, code), verdict in verdicts.items():
        assert verdict.verdict == "confirmed", (line, code, verdict.evidence)


def _pair(kind: str, graph_result=None, eager_result=None, eager_error=None) -> Pair:
    def call(result, error):
        return Call("t::test", ("m.py", 1, "f"), 0, 0, 1, [], None, result, error, {}, "", None, False, [], 0.0)

    return Pair(call(graph_result, None), call(eager_result, eager_error), kind)


@pytest.mark.parametrize("message, expected", [
    ("DID NOT RAISE <class 'flax.errors.TraceContextError'>", "TraceContextError"),
    ("DID NOT RAISE TracerBoolConversionError", "TracerBoolConversionError"),
    ("ConcretizationTypeError not raised", "ConcretizationTypeError"),
    ("assert 2 == 1", None),
])
def test_the_expected_error_is_read_from_pytest_and_unittest_messages(message, expected):
    assert expected_error(message) == expected


def test_an_error_that_eager_code_can_raise_stays_a_divergence():
    def reason(error: dict):
        return call_reason(_pair("eager-error", [], None, error))

    assert reason({"type": "Failed", "msg": "DID NOT RAISE <class 'jax.errors.UnexpectedTracerError'>"})
    assert reason({"type": "Failed", "msg": "DID NOT RAISE <class 'ValueError'>"}) is None
    assert reason({"type": "AssertionError", "msg": "assert False"}) is None
    assert reason({"type": "AssertionError", "msg": "assert False", "tracer": "jax._src.core.Tracer"})


@pytest.mark.parametrize("graph, eager, expected", [
    ([{"t": "num", "dt": "int32", "sh": [3], "v": [0, 1, 2]}], [{"t": "num", "dt": "int64", "sh": [3], "v": [0, 1, 2]}],
     ("int64", "int32")),
    ([{"t": "num", "dt": "float32", "sh": [], "v": [0.5]}], [{"t": "num", "dt": "float64", "sh": [], "v": [0.5]}],
     ("float64", "float32")),
    # Other values, or a dtype change that is not the canonicalisation: a divergence.
    ([{"t": "num", "dt": "int32", "sh": [3], "v": [0, 1, 2]}], [{"t": "num", "dt": "int64", "sh": [3], "v": [0, 1, 3]}],
     None),
    ([{"t": "num", "dt": "int64", "sh": [3], "v": [0, 1, 2]}], [{"t": "num", "dt": "int32", "sh": [3], "v": [0, 1, 2]}],
     None),
    ([{"t": "num", "dt": "float16", "sh": [], "v": [0.5]}], [{"t": "num", "dt": "float32", "sh": [], "v": [0.5]}], None),
])
def test_only_the_x64_canonicalisation_is_not_comparable(graph, eager, expected):
    assert canonicalised(graph, eager) == expected
    assert bool(call_reason(_pair("differ", graph, eager))) == bool(expected)


@pytest.mark.parametrize("message, refused", [
    ("ValueError: zero-length scan is not supported in disable_jit() mode because the output type is unknown.", True),
    ("ValueError: Disable jit is not supported in the AOT path since the function is not available for (jit(f))",
     True),
    ("AttributeError: 'float' object has no attribute 'dtype'", True),
    ("AttributeError: 'int' object has no attribute 'ndim'", True),
    # Not an array's attribute, not a Python number, or no word of disable_jit: a divergence.
    ("AttributeError: 'float' object has no attribute 'append'", False),
    ("AttributeError: 'list' object has no attribute 'shape'", False),
    ("ValueError: too many values to unpack (expected 2)", False),
])
def test_only_what_jit_disabled_explains_is_not_comparable(message, refused):
    assert bool(jit_disabled_reason(message)) == refused
    pair = _pair("eager-error", [], None, {"type": message.split(":")[0], "msg": message})
    assert call_reason(pair) is None  # a TensorFlow call: jit is JAX's
    assert bool(call_reason(pair, jax=True)) == refused
