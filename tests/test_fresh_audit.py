"""bench/fresh_audit.py's pool says at which main each reading it adds up was made."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

import fresh_audit  # noqa: E402


def _reading(code: str, verdict: str) -> tuple[list[dict], dict]:
    f = {"project": "o/r", "path": "a.py", "line": 1, "code": code, "n": 1, "message": "m", "framework": "tf"}
    return [f], {fresh_audit.key_of(f): {"verdict": verdict, "framework": "tf"}}


def test_a_session_reading_and_a_tenth_audit_after_run_name_their_mains():
    assert fresh_audit.main_of("AD", "s19") == "b5aea52"
    assert fresh_audit.main_of("AL", "after") == "d3c3dde"
    assert fresh_audit.main_of("AD", "after") is None  # an earlier audit's own after: main not recorded here


def test_pool_names_each_main_and_adds_up_per_rule():
    latest = {"AD": ("s19", *_reading("STG101", "TP")), "AL": ("after", *_reading("STG101", "FP"))}
    out = fresh_audit.pooled(latest)
    assert "at main `b5aea52` (AD), at main `d3c3dde` (AL)" in out[0]
    assert "| TensorFlow | STG101 | 2 | 1 | 0 | 1 | 0.50 | 0.50 |" in out
    unknown = fresh_audit.pooled({"AD": ("after", *_reading("STG101", "TP"))})
    assert "different mains" in unknown[0]


def test_clean_pool_takes_each_held_back_half_s_before_reading_only():
    runs = fresh_audit.clean_runs("BD")
    assert runs and all(when == "before" for when, _, _ in runs.values())
    held = [h for _, h in dict.fromkeys(fresh_audit.LISTS.values())]
    assert set(runs) <= set(held[held.index("BD"):]) and "BB" not in runs
    out = fresh_audit.pooled({"BD": ("before", *_reading("STG402", "FP"))}, clean=True)
    assert "clean readings" in out[0] and "before anything was fixed" in out[0]
    assert "| TensorFlow | STG402 | 1 | 0 | 0 | 1 | 0.00 | 0.00 |" in out
