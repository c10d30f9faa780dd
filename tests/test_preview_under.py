"""The per-framework preview tier (`Rule.preview_under`, issue 23): a rule held back on code
nobody here tuned on reports in that framework's staged code only with `--preview`, and stays in
the default tier for the other framework."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

from stagelint.config import Settings
from stagelint.report.docs import render_rule
from stagelint.engine import check_source
from stagelint.rules.base import REGISTRY

pytestmark = pytest.mark.framework_tiers

JAX_LEAK = textwrap.dedent("""
    import jax
    import jax.numpy as jnp

    history = []

    @jax.jit
    def step(x):
        loss = jnp.sum(x * x)
        history.append(loss)
        if loss > 1.0:
            return x
        return -x
""").lstrip()

TF_LEAK = textwrap.dedent("""
    import tensorflow as tf

    history = []

    @tf.function
    def step(x):
        loss = tf.reduce_sum(x * x)
        history.append(loss)
        assert loss > 1.0
        return x
""").lstrip()


def codes(source: str, preview: bool = False) -> set[tuple[int, str]]:
    settings = Settings(preview=True) if preview else None
    return {(f.line, f.code) for f in check_source(source, settings=settings)}


def test_a_rule_held_back_under_jax_reports_there_only_with_preview():
    assert not codes(JAX_LEAK) & {(9, "STG201"), (10, "STG602")}
    assert {(9, "STG201"), (10, "STG602")} <= codes(JAX_LEAK, preview=True)


def test_the_same_rule_stays_in_the_default_tier_for_the_other_framework():
    # STG201 is held back under JAX only: a symbolic tensor appended under tf.function is reported.
    found = codes(TF_LEAK)
    assert (8, "STG201") in found
    # STG602 is held back under both frameworks.
    assert (9, "STG602") not in found
    assert (9, "STG602") in codes(TF_LEAK, preview=True)


def test_every_held_back_rule_says_why_with_its_figure():
    held = {code: r.preview_under for code, r in REGISTRY.items() if r.preview_under}
    assert set(held) >= {"STG102", "STG201", "STG302", "STG601", "STG602"}
    for code, by_framework in held.items():
        assert set(by_framework) <= {"jax", "tensorflow"}, code
        for why in by_framework.values():
            assert "findings" in why and "fresh_audit_notes.md" in why, code
        page = render_rule(REGISTRY[code])
        assert "*Preview under JAX" in page or "*Preview under TensorFlow" in page, code


def test_stagelint_rules_marks_the_framework_it_is_held_back_under():
    out = subprocess.run([sys.executable, "-m", "stagelint", "rules"], capture_output=True, text=True, check=True).stdout
    line = next(x for x in out.splitlines() if x.startswith("STG201"))
    assert line.endswith("(preview under JAX)")
    line = next(x for x in out.splitlines() if x.startswith("STG602"))
    assert line.endswith("(preview under JAX and TensorFlow)")
    data = json.loads(subprocess.run([sys.executable, "-m", "stagelint", "rules", "--output-format", "json"],
                                     capture_output=True, text=True, check=True).stdout)
    by_code = {r["code"]: r for r in data}
    assert set(by_code["STG201"]["preview_under"]) == {"jax"}
    assert by_code["STG101"]["preview_under"] is None


JAX_CALL_SITE_RULES = textwrap.dedent("""
    import functools

    import jax
    import jax.numpy as jnp


    @jax.jit
    def positive_mean(x):
        return jnp.mean(x[x > 0])


    @functools.partial(jax.jit, static_argnums=1)
    def scale(x, factors):
        return x * len(factors)


    @functools.partial(jax.jit, donate_argnums=0)
    def update(state, grads):
        return state - 0.1 * grads


    def main(state, grads, x):
        new_state = update(state, grads)
        print(state.mean())
        return positive_mean(x), scale(x, [1, 2]), new_state
""").lstrip()


def test_jax_only_rules_below_the_mark_report_only_with_preview():
    # STG604 (0 of 3 on the held-back halves), STG504 (0 of 1) and STG203 (2 of 4): JAX-only
    # rules, so held back under JAX means out of the default tier everywhere.
    expected = {(9, "STG604"), (24, "STG203"), (25, "STG504")}
    assert not codes(JAX_CALL_SITE_RULES) & expected
    assert expected <= codes(JAX_CALL_SITE_RULES, preview=True)
    for code in ("STG604", "STG504", "STG203"):
        assert set(REGISTRY[code].preview_under) == {"jax"}, code
