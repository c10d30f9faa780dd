"""`stagelint run --script PROGRAM [-- ARGS]` (issue 25): a training program under the recorder, with
the retrace table in its report; bounded by --steps or --timeout."""

from __future__ import annotations

import json

import pytest

PROGRAM = "tests/runtime/fixtures/train_lengths.py"


@pytest.mark.tf
def test_program_to_its_end_prints_the_retrace_table(stagelint_cli, tmp_path):
    page = tmp_path / "run.html"
    code, out, err = stagelint_cli(["--script", PROGRAM, "--report", str(page), "--", "--batches", "8"])
    assert code == 1, err
    html = page.read_text()
    assert "Why each trace happened" in html and "`tokens` shape (4, 12) → (4, 17)" in html
    assert f"stagelint run --script {PROGRAM}" in out
    assert "program: ran to its end" in out
    assert "Retraces (why each trace after a function's first happened)" in out
    assert f"trace 4  {PROGRAM}  `tokens` shape (4, 12) → (4, 17)" in out
    assert ("8 calls, 6 traces; 5 retraces from the shape of `tokens` changing in dimension 1: give it "
            "`input_signature=[tf.TensorSpec([4, None], tf.int32)]`") in out
    assert "eager:" not in out  # graph mode only without --compare


@pytest.mark.tf
def test_steps_and_timeout_bound_an_endless_program(stagelint_cli):
    code, out, err = stagelint_cli(["--script", PROGRAM, "--steps", "7", "--output-format", "json", "--",
                                    "--batches", "0"])
    report = json.loads(out)
    (fn,) = report["functions"]
    assert (fn["calls"], fn["traces"]) == (7, 6)
    assert list(report["runs"]) == ["graph"] and report["runs"]["graph"]["status"] == "ok"
    assert [f["code"] for f in report["findings"]] == ["STG902"]
    code, out, err = stagelint_cli(["--script", PROGRAM, "--timeout", "40", "--", "--batches", "0"])
    assert code != 2, err
    assert "program: stopped after 40 s (--timeout)" in out


@pytest.mark.parametrize("argv, message", [
    (["--script", "nowhere.py"], "--script nowhere.py: no such file"),
    (["--script", PROGRAM, "--batches", "3"], "put its arguments after --"),
    (["--script", PROGRAM, "--steps", "0"], "--steps must be a positive whole number"),
    (["tests/runtime/fixtures/fx_argv.py", "--steps", "3"], "--steps and --compare go with --script PROGRAM"),
])
def test_usage_errors(stagelint_cli, argv, message):
    code, out, err = stagelint_cli(argv)
    assert code == 2 and message in err and not out
