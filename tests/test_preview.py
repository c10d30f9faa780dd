"""The preview tier (ruff's `--preview`): rules and rule steps marked `preview` in their class
report only when preview is on (`--preview`, `preview = true`, flake8's `--stagelint-preview`),
and `stagelint rule` / `stagelint rules` / docs say which and why.

No rule is in preview by itself here: each test puts STG101 (print in a tf.function) there, in
this process or in the real command's subprocess, so that the tier is tested whatever rules the
evidence moves there."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from stagelint.config import ConfigError, Settings, load_settings
from stagelint.engine import check_source
from stagelint.rules import get_rule

ROOT = Path(__file__).resolve().parents[1]
WHY = "Right 7 times in 44 on code nobody here had tuned it on."
SOURCE = textwrap.dedent("""
    import tensorflow as tf


    @tf.function
    def step(x):
        print("step", x)
        return x + 1
""").lstrip("\n")
#: In the subprocess, before the command runs: STG101 in preview (or one step of it).
RULE_IN_PREVIEW = f"import stagelint.rules as R; R.get_rule('STG101').preview = {WHY!r}"
STEP_IN_PREVIEW = (
    "import stagelint.rules as R; rule = R.get_rule('STG101'); confirm = rule.confirm.__func__;"
    " rule.confirm = classmethod(lambda cls, c, p, m: confirm(cls, c, p, m) and {'_preview': 'a heuristic step'})"
)


def codes(findings) -> list[str]:
    return [f.code for f in findings]


@pytest.fixture
def stg101_in_preview(monkeypatch):
    monkeypatch.setattr(get_rule("STG101"), "preview", WHY)


def test_a_preview_rule_reports_only_with_preview_on(stg101_in_preview):
    assert codes(check_source(SOURCE)) == []
    assert codes(check_source(SOURCE, settings=Settings(preview=True))) == ["STG101"]


def test_a_stable_rule_reports_either_way():
    assert codes(check_source(SOURCE)) == ["STG101"]
    assert codes(check_source(SOURCE, settings=Settings(preview=True))) == ["STG101"]


def test_a_preview_step_reports_only_with_preview_on(monkeypatch):
    rule = get_rule("STG101")
    confirm = rule.confirm.__func__
    monkeypatch.setattr(rule, "confirm", classmethod(
        lambda cls, cand, project, module: confirm(cls, cand, project, module) and {"_preview": "a heuristic step"}))
    assert codes(check_source(SOURCE)) == []
    found = check_source(SOURCE, settings=Settings(preview=True))
    assert codes(found) == ["STG101"] and "heuristic" not in found[0].message


def test_preview_in_the_configuration(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.stagelint]\npreview = true\n")
    assert load_settings(str(tmp_path)).preview is True
    (tmp_path / "pyproject.toml").write_text('[tool.stagelint]\npreview = "yes"\n')
    with pytest.raises(ConfigError, match=r"pyproject.toml.*preview"):
        load_settings(str(tmp_path))
    assert Settings().preview is False


def run(patch: str, *args, cwd: Path):
    code = f"{patch}\nfrom stagelint.cli import main\nraise SystemExit(main({list(args)!r}))"
    return subprocess.run([sys.executable, "-c", code], cwd=cwd, capture_output=True, text=True, timeout=300)


def test_the_command_line_turns_preview_on_and_off(tmp_path):
    (tmp_path / "step.py").write_text(SOURCE)
    base = ("check", "--no-cache", "--output-format", "concise", "step.py")
    silent = run(RULE_IN_PREVIEW, *base, cwd=tmp_path)
    assert silent.returncode == 0 and "STG101" not in silent.stdout, silent.stderr
    shown = run(RULE_IN_PREVIEW, *base, "--preview", cwd=tmp_path)
    assert shown.returncode == 1 and "step.py:6:5: STG101" in shown.stdout, shown.stderr
    step = run(STEP_IN_PREVIEW, *base, "--preview", cwd=tmp_path)
    assert step.returncode == 1 and "STG101" in step.stdout, step.stderr
    assert "STG101" not in run(STEP_IN_PREVIEW, *base, cwd=tmp_path).stdout
    (tmp_path / "pyproject.toml").write_text("[tool.stagelint]\npreview = true\n")
    assert "STG101" in run(RULE_IN_PREVIEW, *base, cwd=tmp_path).stdout
    off = run(RULE_IN_PREVIEW, *base, "--no-preview", cwd=tmp_path)
    assert off.returncode == 0 and "STG101" not in off.stdout


def test_rule_and_rules_say_which_rules_are_in_preview_and_why(tmp_path):
    page = run(RULE_IN_PREVIEW, "rule", "STG101", cwd=tmp_path).stdout
    assert f"*Preview: reported only with `--preview` (`preview = true`). {WHY}*" in page
    listed = run(RULE_IN_PREVIEW, "rules", cwd=tmp_path).stdout.splitlines()
    assert next(line for line in listed if line.startswith("STG101")).endswith("(preview)")
    assert not next(line for line in listed if line.startswith("STG102")).endswith("(preview)")
    data = json.loads(run(RULE_IN_PREVIEW, "rules", "--output-format", "json", cwd=tmp_path).stdout)
    assert {r["code"]: r["preview"] for r in data if r["code"] in ("STG101", "STG102")} == {"STG101": WHY, "STG102": None}
    stable = run("", "rule", "STG101", cwd=tmp_path).stdout
    assert "*Preview" not in stable  # no tier banner (the text may say which steps are preview)


def test_flake8_reports_the_preview_tier_with_its_option(tmp_path):
    (tmp_path / "step.py").write_text(SOURCE)

    def flake8(*args):
        code = f"{RULE_IN_PREVIEW}\nfrom flake8.main.cli import main\nmain({list(args)!r})"
        return subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=300)

    base = ("--select", "STG", "--stagelint-no-cache", "step.py")
    assert "STG101" not in flake8(*base).stdout
    assert "step.py:6:5: STG101" in flake8(*base, "--stagelint-preview").stdout
    (tmp_path / "setup.cfg").write_text("[flake8]\nstagelint-preview = true\n")
    assert "step.py:6:5: STG101" in flake8(*base).stdout
