"""Each finding carries its proof (`Finding.because`): the staging chain the project phase
knows (why the entry point is staged, each call down to the finding's function), then the facts
the rule states, each with a certainty: the finding stands only when every fact is known true
(unknown: silent; heuristic: the preview tier). Shown in JSON, in `full` output and in SARIF
(the language server's related information is tested in tests/integrations/test_server.py)."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

from stagelint.analysis.proof import HEURISTIC, TRUE, UNKNOWN, chain_verdict, fact, verdict_fields, with_preview, with_steps
from stagelint.config import Settings
from stagelint.engine import check_source
from stagelint.analysis.facts import Span
from stagelint.findings import Note
from stagelint.rules import get_rule

TF_HELPER = textwrap.dedent("""
    import tensorflow as tf


    def helper(x):
        print(x)
        return x


    @tf.function
    def step(x):
        return helper(x) + 1
""").lstrip("\n")
JAX_BODY = textwrap.dedent("""
    from jax import lax


    def body(i, carry):
        print(i)
        return carry


    def run(state):
        return lax.fori_loop(0, 10, body, state)
""").lstrip("\n")


def test_a_helper_s_finding_names_the_decorator_and_the_call_that_stages_it():
    (f,) = check_source(TF_HELPER, "m.py")
    assert f.because == (
        Note("`step` is decorated with `tf.function`, which traces it into a graph", "m.py", 10, 5),
        Note("`step` calls `helper`, which is traced with it", "m.py", 11, 12),
    )


def test_a_lax_body_s_finding_names_the_transformation():
    (f,) = check_source(JAX_BODY, "m.py")
    assert f.because == (Note("`body` is traced by `jax.lax.fori_loop`", "m.py", 4, 5),)


def test_a_finding_outside_staged_code_has_no_staging_chain():
    (f,) = check_source("def f(:\n", "m.py")  # STG000: reported anywhere, staged by nothing
    assert f.code == "STG000" and f.because == ()


def test_the_chain_verdict_needs_every_fact_known_true():
    span = Span(1, 1, 1, 2)
    assert chain_verdict([]) == "report"
    assert chain_verdict([fact("a", span), fact("b", span)]) == "report"
    assert chain_verdict([fact("a", span), fact("b", span, HEURISTIC)]) == "preview"
    assert chain_verdict([fact("a", span, HEURISTIC), fact("b", span, UNKNOWN)]) == "silent"
    with pytest.raises(ValueError):
        fact("a", span, "probably")


def test_a_verdict_grows_by_one_helper_and_keeps_what_it_stated():
    """`with_steps` adds to the verdict's own proof, or to the candidate's where the verdict
    states none; `with_preview` keeps a reason already given; neither changes the verdict given."""
    class Candidate:
        fields = {"_because": ["c"]}
    own = {"_because": ["v"], "x": 1}
    assert with_steps(True, Candidate, "s") == {"_because": ["c", "s"]}
    assert with_steps(own, Candidate, "s", "t") == {"_because": ["v", "s", "t"], "x": 1}
    assert own == {"_because": ["v"], "x": 1} and verdict_fields(True) == {}
    assert with_preview(True, "why") == {"_preview": "why"}
    assert with_preview({"_preview": "first"}, "why") == {"_preview": "first"}


@pytest.mark.parametrize("certainty, default, preview", [(TRUE, True, True), (HEURISTIC, False, True),
                                                         (UNKNOWN, False, False)])
def test_a_rule_s_stated_fact_decides_with_its_certainty(monkeypatch, certainty, default, preview):
    rule = get_rule("STG101")
    confirm = rule.confirm.__func__

    def stating(cls, cand, project, module):
        return confirm(cls, cand, project, module) and {"_because": [["`x` is a parameter of `helper`", 4, 12, certainty]]}

    monkeypatch.setattr(rule, "confirm", classmethod(stating))
    assert bool(check_source(TF_HELPER, "m.py")) is default
    found = check_source(TF_HELPER, "m.py", settings=Settings(preview=True))
    assert bool(found) is preview
    if found:  # the rule's fact comes after the staging chain
        assert found[0].because[-1] == Note("`x` is a parameter of `helper`", "m.py", 4, 12)
        assert len(found[0].because) == 3


def _check(tmp_path, *args):
    (tmp_path / "m.py").write_text(TF_HELPER)
    return subprocess.run([sys.executable, "-m", "stagelint", "check", "--no-cache", *args, "m.py"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=300)


def test_json_full_and_sarif_carry_the_proof(tmp_path):
    (finding,) = json.loads(_check(tmp_path, "--output-format", "json").stdout)
    assert finding["because"] == [
        {"message": "`step` is decorated with `tf.function`, which traces it into a graph", "path": "m.py",
         "line": 10, "column": 5},
        {"message": "`step` calls `helper`, which is traced with it", "path": "m.py", "line": 11, "column": 12},
    ]
    full = _check(tmp_path).stdout
    assert ("  |\n"
            "  = because: `step` is decorated with `tf.function`, which traces it into a graph (m.py:10:5)\n"
            "  = because: `step` calls `helper`, which is traced with it (m.py:11:12)\n") in full
    sarif = json.loads(_check(tmp_path, "--output-format", "sarif").stdout)
    related = sarif["runs"][0]["results"][0]["relatedLocations"]
    assert [(r["id"], r["message"]["text"], r["physicalLocation"]["region"]["startLine"]) for r in related] == [
        (1, "`step` is decorated with `tf.function`, which traces it into a graph", 10),
        (2, "`step` calls `helper`, which is traced with it", 11),
    ]
    assert related[0]["physicalLocation"]["artifactLocation"] == {"uri": "m.py", "uriBaseId": "%SRCROOT%"}


def test_a_leak_s_proof_says_why_the_value_is_a_tensor_and_why_the_object_outlives_the_call():
    source = textwrap.dedent("""
        import tensorflow as tf

        history = []
        steps = {"n": 0}


        @tf.function
        def step(x):
            loss = tf.reduce_sum(x)
            history.append(loss)
            steps["n"] += 1
            return loss
    """).lstrip("\n")
    leak, lost = check_source(source, "m.py")
    assert (leak.code, lost.code) == ("STG201", "STG102")
    assert leak.because[1:] == (
        Note("`loss` is a traced tensor here: a framework op's result or a value the staging traces", "m.py", 10, 5),
        Note("`history` is a module global: it outlives the call", "m.py", 10, 5),
    )
    assert lost.because[1:] == (
        Note("`steps` is a module global: it outlives the call", "m.py", 11, 5),
        Note("`steps[\"n\"] += ...` changes `steps[\"n\"]` again on every eager call; under `tf.function` only the "
             "call that traces runs it, so calls that reuse the trace leave `steps[\"n\"]` behind", "m.py", 11, 5),
    )


def test_a_tensor_used_as_a_python_value_says_why_it_is_a_tensor():
    source = textwrap.dedent("""
        import tensorflow as tf


        def helper(x):
            return int(x)


        @tf.function(autograph=False)
        def step(x):
            y = tf.reduce_sum(x)
            return helper(tf.abs(x)) + y.numpy()
    """).lstrip("\n")
    found = {f.code: f for f in check_source(source, "m.py")}
    assert found["STG601"].because[-1] == Note(
        "`y` is a traced tensor here: a framework op's result or a value the staging traces", "m.py", 11, 32)
    assert found["STG602"].because[-1] == Note(
        "`x` comes from parameter `x`, which the project shows is a tensor (what its callers pass, or an op it "
        "is given to)", "m.py", 5, 12)


JAX_AFTER_NUMPY = textwrap.dedent("""
    import jax

    table = make_table()


    def show(x):
        counts = table.numpy()
        print("x", counts)
        return x


    @jax.jit
    def step(state, x):
        counts = table.numpy()
        state["n"] = state["n"] + 1
        return show(x)


    show(1)
""").lstrip("\n")


def test_a_jax_effect_s_proof_keeps_the_candidate_s_own_facts(tmp_path):
    """STG101 (a print a helper also runs eagerly: the rule adds a guess) and STG102 (a write
    into JAX's copy of an argument: a bare True verdict, then JAX's step) keep the step the walk
    gave the candidate itself (`table.numpy()` above it raises under a trace if `table` is a
    tensor: `walk._after_raising`), between the staging chain and the rule's own facts."""
    (tmp_path / "m.py").write_text(JAX_AFTER_NUMPY)
    out = subprocess.run([sys.executable, "-m", "stagelint", "check", "--no-cache", "--preview", "--output-format",
                          "json", "m.py"], cwd=tmp_path, capture_output=True, text=True, timeout=300).stdout
    found = {f["code"]: f for f in json.loads(out)}
    raising = ("`table.numpy()` runs before this in the same block: under a trace `.numpy()` raises on a tensor or "
               "a variable, so this runs while tracing only if `table` is neither (a guess)")
    printed, lost = found["STG101"]["because"], found["STG102"]["because"]
    assert [(b["message"], b["line"]) for b in printed[2:]] == [
        (raising, 8),
        ("`show` is also called where nothing traces (line 19), where the print runs on every call: whether the "
         "traced caller's trace-time print misleads is a guess", 8),
        # the traced caller reaches `show` only past its own `.numpy()` (`tracers.after_raising_fact`)
        ("`step` calls `show` only after `table.numpy()` (line 14) in m.py: under a trace `.numpy()` raises on a "
         "tensor or a variable, so this is traced only if its receiver is neither (a guess)", 8)]
    assert [(b["message"], b["line"]) for b in lost[1:2]] == [(raising, 15)]
    assert lost[2]["message"].startswith("`state[\"n\"] = ...` writes into JAX's copy of the caller's argument")
