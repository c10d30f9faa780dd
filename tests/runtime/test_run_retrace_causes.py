"""Issue 25: why each trace happened, and STG902's cause and remedy, on fixtures/fx_retrace_causes.py
(one run with real TensorFlow and JAX)."""

from __future__ import annotations

from pathlib import Path

import pytest

from stagelint.findings import Finding
from stagelint.runtime.steps import analyse
from stagelint.runtime.compare import join
from stagelint.runtime.evidence import Evidence
from stagelint.runtime.executor import RunStatus
from stagelint.runtime.lint import static_findings
from stagelint.runtime.report import render_full
from stagelint.runtime.verdicts import judge, runtime_only

pytestmark = [pytest.mark.tf, pytest.mark.jax]

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def run(fixture_run):
    return fixture_run("fx_retrace_causes")


@pytest.fixture(scope="module")
def judged(run):
    return run.judged()


def _retracing(judged, function: str):
    _, extra = judged
    return [v for v in extra if v.finding.code == "STG902" and v.finding.function.endswith(function)]


def test_sequence_lengths_name_the_dimension_and_the_input_signature(run, judged):
    (v,) = _retracing(judged, "encode")
    assert v.evidence == ("6 calls, 6 traces; 5 retraces from the shape of `tokens` changing in dimension 1: give it "
                          "`input_signature=[tf.TensorSpec([4, None], tf.int32)]` (None where the size varies) or "
                          "`reduce_retracing=True`")
    retraces = run.function("encode")["retraces"]
    assert [r["trace"] for r in retraces] == [2, 3, 4, 5, 6]
    assert retraces[2]["text"] == "trace 4 of `encode`: `tokens` shape (4, 12) → (4, 17)"
    assert {r["test"].rsplit("::", 1)[1] for r in retraces} == {"test_sequence_lengths"}


def test_input_signature_twin_traces_once(run, judged):
    fn = run.function("fixed_length")
    assert (fn["calls"], fn["traces"], fn["retraces"]) == (6, 1, [])
    assert not _retracing(judged, "fixed_length")


def test_python_value_confirms_the_static_finding_instead_of_stg902(run, judged):
    verdicts, _ = judged
    (line,) = [line for line, code, _ in run.marked() if code == "STG501"]
    assert verdicts[(line, "STG501")].verdict == "confirmed"
    assert not _retracing(judged, "scaled")
    assert [r["why"] for r in run.function("scaled")["retraces"]][:2] == [
        "`factor` Python value 0 → 1", "`factor` Python value 1 → 2"]


def test_jit_of_a_bound_method_per_step_is_a_new_object_each_step(run, judged):
    fn = run.function("Trainer.update")
    # Real JAX traces `jax.jit(self.update)` on every step: the recorder must not change that.
    assert (fn["calls"], fn["traces"]) == (6, 6)
    assert {r["cause"] for r in fn["retraces"]} == {"object"}
    (v,) = _retracing(judged, "update")
    assert v.evidence == ("6 calls, 6 traces; 5 retraces from a new function object made from the same code: create "
                          "it once (`jax.jit` outside the loop or in `__init__`) and call that object")


def test_jax_shapes_are_remedied_by_padding(run, judged):
    (v,) = _retracing(judged, "pooled")
    assert "5 retraces from the shape of `x` changing in dimension 1: pad or bucket `x` to a few fixed shapes" \
        in v.evidence
    assert run.function("pooled")["retraces"][0]["why"] == "`x` shape (2, 3) → (2, 4)"


def test_parametrized_matrix_is_explained_and_quiet(run, judged):
    fn = run.function("per_case")
    assert (fn["calls"], fn["traces"]) == (7, 7)
    assert len({r["test"] for r in fn["retraces"]}) == 6
    assert not _retracing(judged, "per_case")


def test_every_trace_is_explained_and_runtime_findings_are_where_marked(run, judged):
    for fn in run.report["functions"]:
        assert all(r["cause"] != "unexplained" for r in fn["retraces"]), fn["retraces"]
        assert len(fn["retraces"]) == fn["traces"] - 1
    _, extra = judged
    assert {(v.finding.line, v.finding.code) for v in extra} == run.runtime_marked()


def test_text_report_has_the_retrace_table(run, repo_root, monkeypatch):
    monkeypatch.chdir(repo_root)
    statuses = {m: RunStatus(m, r["status"], r["returncode"], r["seconds"], "", "", r["detail"], r["test"])
                for m, r in run.report["runs"].items()}
    result = static_findings(run.report["static"]["files"])
    report = analyse(run.path, statuses, run.graph, run.eager, list(result.findings), {}, ("STG",), ())
    text = render_full(report)
    assert "Retraces (why each trace after a function's first happened)" in text
    assert "trace 4  test_sequence_lengths  `tokens` shape (4, 12) → (4, 17)" in text


def test_a_retracing_code_without_a_check_of_its_own_is_confirmed_by_the_shape_retraces(run):
    """A static STG5xx finding predicting shape retracing (here at the call feeding 6 lengths)
    is confirmed by those retraces, and takes STG902's place."""
    lines = (REPO / run.path).read_text().splitlines()
    line = next(i for i, text in enumerate(lines, 1) if "encode(tf.ones([4, length]" in text)
    finding = Finding("STG509", "varying-input-shape", run.path, line, 9, line, 9, "predicted", function="encode")
    ev = Evidence(run.graph, run.eager, join(run.graph, run.eager))
    (verdict,) = judge([finding], ev, run.graph, run.eager)
    assert verdict.verdict == "confirmed"
    assert verdict.evidence.startswith("6 calls, 6 traces; 5 retraces from the shape of `tokens` changing in "
                                       "dimension 1: give it `input_signature=")
    assert not [v for v in runtime_only([verdict], ev, run.graph, run.eager)
                if v.finding.code == "STG902" and v.finding.function == "encode"]
