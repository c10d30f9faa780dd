"""The bundled JAX example (`examples/jax_pitfalls.py`) reports each pitfall its comments name.

README's first command checks `examples/`, so this is what a new user sees for JAX.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "jax_pitfalls.py"
#: (a snippet on exactly one line of the example, the code stagelint must report there)
EXPECTED = (
    ('print("loss:", loss)', "STG101"),
    ("noise = np.random.normal(0.0, 1e-3)", "STG104"),
    ("total += jax.jit(lambda p, x, y: loss_fn(p, x, y))(params, x, y)", "STG502"),
)
#: Pitfalls of rules held back under JAX (`Rule.preview_under`): reported with `--preview` only.
PREVIEW = (
    ("history.append(loss)", "STG201"),
    ("if norm > clip:", "STG602"),
    ("targets = y * (1.0 - label_smoothing)", "STG301"),
)
#: Pitfalls of the example stagelint does not report yet (strict xfails naming the owner): none now.
MISSED: tuple[tuple[str, str, str], ...] = ()


def line_of(snippet: str) -> int:
    hits = [n for n, text in enumerate(EXAMPLE.read_text(encoding="utf-8").splitlines(), 1) if snippet in text]
    assert len(hits) == 1, (snippet, hits)
    return hits[0]


def _check(*flags: str) -> set[tuple[int, str]]:
    proc = subprocess.run([sys.executable, "-m", "stagelint", "check", "--output-format", "json", *flags,
                           "examples/jax_pitfalls.py"], cwd=ROOT, capture_output=True, text=True, check=False)
    assert proc.returncode in (0, 1), proc.stderr
    return {(f["line"], f["code"]) for f in json.loads(proc.stdout)}


@pytest.fixture(scope="module")
def reported() -> set[tuple[int, str]]:
    return _check()


@pytest.fixture(scope="module")
def previewed() -> set[tuple[int, str]]:
    return _check("--preview")


@pytest.mark.parametrize(("snippet", "code"), EXPECTED + tuple(
    pytest.param(s, c, marks=pytest.mark.xfail(strict=True, reason=f"w-jaxcore: {why}")) for s, c, why in MISSED))
def test_jax_example_reports(snippet, code, reported):
    assert (line_of(snippet), code) in reported


@pytest.mark.parametrize(("snippet", "code"), PREVIEW)
def test_jax_example_reports_rules_held_back_under_jax_with_preview_only(snippet, code, reported, previewed):
    assert (line_of(snippet), code) not in reported
    assert (line_of(snippet), code) in previewed


def test_jax_example_reports_nothing_else(reported):
    """No finding on a line the example does not mark as a pitfall (the constant, the key)."""
    expected_lines = {line_of(s) for s, _ in EXPECTED} | {line_of(s) for s, _, _ in MISSED}
    assert {line for line, _ in reported} <= expected_lines
