"""SARIF (validated against the OASIS SARIF 2.1.0 schema) and GitHub workflow annotations."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
from integration_support import PROJECT, stagelint, write_tree

from stagelint import __version__

from stagelint.report.github import line_for
from stagelint.rules import all_rules

SCHEMA = Path(__file__).resolve().parents[1] / "data" / "sarif-schema-2.1.0.json"


def _validate(doc):
    schema = json.loads(SCHEMA.read_text())
    validator = jsonschema.Draft4Validator(schema, format_checker=jsonschema.FormatChecker())
    errors = sorted(validator.iter_errors(doc), key=lambda e: list(e.path))
    assert not errors, [f"{list(e.path)}: {e.message}" for e in errors[:5]]


def test_schema_file_is_the_oasis_one():
    schema = json.loads(SCHEMA.read_text())
    assert schema["title"] == "Static Analysis Results Format (SARIF) Version 2.1.0 JSON Schema"
    assert schema["id"].endswith("/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json")


def test_sarif_of_the_fixture_project_is_valid_and_complete():
    proc = stagelint("check", "--output-format", "sarif", ".", cwd=PROJECT)
    assert proc.returncode == 1, proc.stderr
    doc = json.loads(proc.stdout)
    _validate(doc)
    run = doc["runs"][0]
    driver = run["tool"]["driver"]
    assert driver["name"] == "stagelint"
    rules = {r["id"]: r for r in driver["rules"]}
    assert set(rules) == {r.code for r in all_rules()}
    for rule in all_rules():
        descriptor = rules[rule.code]
        assert descriptor["name"] == rule.name
        assert descriptor["shortDescription"]["text"] == rule.summary()
        assert descriptor["fullDescription"]["text"]
        assert descriptor["help"]["markdown"].startswith(f"# {rule.code} {rule.name}")
        assert "Why is this bad?" in descriptor["help"]["text"]
    assert run["columnKind"] == "unicodeCodePoints"
    results = run["results"]
    concise = stagelint("check", "--output-format", "json", ".", cwd=PROJECT)
    findings = json.loads(concise.stdout)
    assert len(results) == len(findings)
    for res, f in zip(results, findings):
        loc = res["locations"][0]["physicalLocation"]
        assert res["ruleId"] == f["code"] and driver["rules"][res["ruleIndex"]]["id"] == f["code"]
        assert loc["artifactLocation"] == {"uri": f["path"], "uriBaseId": "%SRCROOT%"}
        assert loc["region"]["startLine"] == f["line"] and loc["region"]["startColumn"] == f["column"]
        assert res["message"]["text"] == f["message"]
    assert run["invocations"][0]["executionSuccessful"] is True


def test_sarif_fixes_skipped_files_and_odd_paths(tmp_path):
    write_tree(tmp_path, {
        "my dir/m #1.py": "import tensorflow as tf\n\n\n@tf.function\ndef f(x):\n    print('é', x)\n",
        "bad.py": "def f(:\n",
    })
    proc = stagelint("check", "--output-format", "sarif", ".", "missing.py", cwd=tmp_path)
    assert proc.returncode == 2
    doc = json.loads(proc.stdout)
    _validate(doc)
    run = doc["runs"][0]
    by_rule = {r["ruleId"]: r for r in run["results"]}
    uri = by_rule["STG101"]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
    assert uri == "my%20dir/m%20%231.py"
    fix = by_rule["STG101"]["fixes"][0]
    change = fix["artifactChanges"][0]["replacements"][0]
    assert change["insertedContent"]["text"] == "tf.print"
    assert change["deletedRegion"] == {"startLine": 6, "startColumn": 5, "endLine": 6, "endColumn": 10}
    assert "STG000" in by_rule
    invocation = run["invocations"][0]
    assert invocation["executionSuccessful"] is False
    assert any("missing.py" in n["message"]["text"] for n in invocation["toolExecutionNotifications"])


def test_sarif_with_no_findings_is_valid(tmp_path):
    write_tree(tmp_path, {"m.py": "x = 1\n"})
    proc = stagelint("check", "--output-format", "sarif", ".", cwd=tmp_path)
    assert proc.returncode == 0
    doc = json.loads(proc.stdout)
    _validate(doc)
    assert doc["runs"][0]["results"] == []


def test_github_annotations():
    proc = stagelint("check", "--output-format", "github", ".", cwd=PROJECT)
    assert proc.returncode == 1
    lines = proc.stdout.splitlines()
    assert all(line.startswith("::error file=") for line in lines)
    assert (
        "::error file=pkg/utils.py,line=7,col=5,endLine=7,endColumn=24,title=STG101 trace-time-side-effect::"
        "`print()` runs only while `log_metrics` (traced by `pkg.model.train_step`) is traced, not on every call;"
        " use `tf.print()` to print on every call"
    ) in lines


def test_github_escaping():
    from stagelint.findings import Finding

    f = Finding("STG101", "trace-time-side-effect", "a,b:c%.py", 1, 2, 3, 4, "50% of\nlines, here: yes")
    assert line_for(f) == (
        "::error file=a%2Cb%3Ac%25.py,line=1,col=2,endLine=3,endColumn=4,title=STG101 trace-time-side-effect"
        "::50%25 of%0Alines, here: yes"
    )


PRINTS = """
import tensorflow as tf


@tf.function
def step(x):
    print("x", x)
    for i in range(3):
        x = x + i
    return x
"""


#: The `rule-url` of a project that keeps stagelint's docs beside it: every page it names exists.
DOCS_RULES = Path(__file__).resolve().parents[2] / "docs" / "rules"
RULE_URL = f"""
[tool.stagelint]
rule-url = "{DOCS_RULES.as_uri()}/{{code}}.md"
"""


def test_sarif_rules_have_help_uri_and_levels_and_results_follow(tmp_path):
    write_tree(tmp_path, {"m.py": PRINTS})
    doc = json.loads(stagelint("check", "--output-format", "sarif", ".", cwd=tmp_path).stdout)
    _validate(doc)
    rules = {r["id"]: r for r in doc["runs"][0]["tool"]["driver"]["rules"]}
    # No rule-url: no link to a host that may serve nothing; the page itself is in `help`.
    assert not any("helpUri" in r for r in rules.values())
    assert rules["STG101"]["help"]["markdown"].startswith("# STG101 trace-time-side-effect")
    write_tree(tmp_path, {"pyproject.toml": RULE_URL})
    doc = json.loads(stagelint("check", "--output-format", "sarif", ".", cwd=tmp_path).stdout)
    _validate(doc)
    rules = {r["id"]: r for r in doc["runs"][0]["tool"]["driver"]["rules"]}
    assert rules["STG101"]["helpUri"] == (DOCS_RULES / "STG101.md").as_uri()
    assert all(Path(r["helpUri"].removeprefix("file://")).read_text().startswith(f"# {code} ")
               for code, r in rules.items())
    assert rules["STG101"]["defaultConfiguration"]["level"] == "error"
    assert rules["STG502"]["defaultConfiguration"]["level"] == "warning"
    for res in doc["runs"][0]["results"]:
        assert res["level"] == rules[res["ruleId"]]["defaultConfiguration"]["level"]


def _fingerprints(tmp_path, source):
    write_tree(tmp_path, {"m.py": source})
    doc = json.loads(stagelint("check", "--output-format", "sarif", ".", cwd=tmp_path).stdout)
    return {(r["ruleId"], r["locations"][0]["physicalLocation"]["region"]["startLine"]):
            r["partialFingerprints"]["stagelint/v1"] for r in doc["runs"][0]["results"]}


def test_sarif_fingerprints_survive_line_shifts_and_tell_findings_apart(tmp_path):
    before = _fingerprints(tmp_path, PRINTS)
    shifted = PRINTS.replace("import tensorflow as tf\n", "import tensorflow as tf\nimport os\n\nX = 1\n")
    after = _fingerprints(tmp_path, shifted.replace('    print("x", x)', '    print("x",   x)   '))  # whitespace runs
    assert len(before) == 1 and sorted(before.values()) == sorted(after.values())
    assert list(before)[0][1] != list(after)[0][1]  # the line moved, the fingerprint did not
    two = _fingerprints(tmp_path, PRINTS.replace('    print("x", x)', '    print("x", x)\n    print("x", x)'))
    assert len(set(two.values())) == 2  # identical lines: `:1` and `:2`
    other = _fingerprints(tmp_path, PRINTS.replace('print("x", x)', 'print("y", x)'))
    assert set(other.values()).isdisjoint(before.values())


def test_json_has_the_rule_url_and_the_fix_edits(tmp_path):
    write_tree(tmp_path, {"m.py": PRINTS})
    (finding,) = json.loads(stagelint("check", "--output-format", "json", ".", cwd=tmp_path).stdout)
    assert finding["url"] is None and finding["cell"] is None
    assert finding["fix"] == {
        "applicability": "unsafe", "message": "Apply the STG101 fix (stagelint check --fix --unsafe-fixes)",
        "edits": [{"line": 6, "column": 5, "end_line": 6, "end_column": 10, "content": "tf.print"}],
    }
    write_tree(tmp_path, {"pyproject.toml": RULE_URL.replace("{code}.md", "{code}.md?v={version}")})
    (finding,) = json.loads(stagelint("check", "--output-format", "json", ".", cwd=tmp_path).stdout)
    assert finding["url"] == f"{(DOCS_RULES / 'STG101.md').as_uri()}?v={__version__}"


@pytest.mark.parametrize("value,error", [
    ('"https://example.invalid/rules.html"', "has no {code}, so every rule would get the same page"),
    ('"https://example.invalid/{rule}.md"', "is not a template of {code}, {version}"),
    ("1", "rule-url must be a string, got 1"),
])
def test_rule_url_mistakes_name_the_file_and_key(tmp_path, value, error):
    write_tree(tmp_path, {"m.py": PRINTS, "pyproject.toml": f"[tool.stagelint]\nrule-url = {value}\n"})
    proc = stagelint("check", ".", cwd=tmp_path)
    assert proc.returncode == 2
    assert f"{tmp_path / 'pyproject.toml'}: [tool.stagelint] rule-url" in proc.stderr and error in proc.stderr
