"""Reports for CI systems other than GitHub code scanning, and one severity across formats:
`--output-format gitlab` (GitLab Code Quality), `junit` (JUnit XML), `github` and `sarif`."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import jsonschema
from integration_support import PROJECT, stagelint, write_tree

from stagelint.rules import all_rules

#: The fields GitLab documents for a Code Quality report (docs.gitlab.com, "Code Quality",
#: "Implement a custom tool"): an array of issues, each with these; `location.lines.begin`
#: (or `positions`) required, severity from GitLab's five.
GITLAB_ISSUE = {
    "type": "object",
    "required": ["description", "check_name", "fingerprint", "severity", "location"],
    "properties": {
        "description": {"type": "string", "minLength": 1},
        "check_name": {"type": "string", "minLength": 1},
        "fingerprint": {"type": "string", "minLength": 1},
        "severity": {"enum": ["info", "minor", "major", "critical", "blocker"]},
        "location": {
            "type": "object",
            "required": ["path", "lines"],
            "properties": {
                "path": {"type": "string", "minLength": 1, "not": {"pattern": "^/"}},
                "lines": {"type": "object", "required": ["begin"],
                          "properties": {"begin": {"type": "integer", "minimum": 1},
                                         "end": {"type": "integer", "minimum": 1}}},
            },
        },
    },
}


def test_severity_is_one_source_for_every_format(tmp_path):
    """A warning-level rule (STG5xx) is `::warning` in the github format, as its SARIF level,
    and `minor` in GitLab's; an error-level one `::error`, `error`, `major`."""
    write_tree(tmp_path, {"m.py": PRINTS + RETRACES})
    sarif = json.loads(stagelint("check", "--output-format", "sarif", ".", cwd=tmp_path).stdout)
    github = stagelint("check", "--output-format", "github", ".", cwd=tmp_path).stdout.splitlines()
    gitlab = json.loads(stagelint("check", "--output-format", "gitlab", ".", cwd=tmp_path).stdout)
    levels = [(r["ruleId"], r["level"]) for r in sarif["runs"][0]["results"]]
    kinds = [(line.split("title=")[1][:6], line.split(" ", 1)[0].lstrip(":")) for line in github]
    assert kinds == levels == [("STG101", "error"), ("STG501", "warning")]
    assert [(i["check_name"], i["severity"]) for i in gitlab] == [("STG101", "major"), ("STG501", "minor")]
    severities = {r.code: r.severity for r in all_rules()}
    assert severities["STG501"] == severities["STG502"] == "warning" and severities["STG101"] == "error"


def test_gitlab_code_quality(tmp_path):
    proc = stagelint("check", "--output-format", "gitlab", ".", cwd=PROJECT)
    assert proc.returncode == 1, proc.stderr
    issues = json.loads(proc.stdout)
    jsonschema.validate(issues, {"type": "array", "items": GITLAB_ISSUE})
    concise = stagelint("check", "--output-format", "concise", "-q", ".", cwd=PROJECT).stdout.splitlines()
    assert len(issues) == len(concise) > 0
    assert len({i["fingerprint"] for i in issues}) == len(issues)
    first = concise[0].split(":")
    assert (issues[0]["location"]["path"], issues[0]["location"]["lines"]["begin"]) == (first[0], int(first[1]))
    # Paths relative to $CI_PROJECT_DIR, the checkout GitLab runs the job in.
    inside = stagelint("check", "--output-format", "gitlab", "pkg", cwd=PROJECT,
                       env={"CI_PROJECT_DIR": str(PROJECT.parent)})
    assert all(i["location"]["path"].startswith("project/pkg/") for i in json.loads(inside.stdout))
    # A fingerprint stays when lines above the finding move.
    write_tree(tmp_path, {"m.py": PRINTS})
    before = json.loads(stagelint("check", "--output-format", "gitlab", ".", cwd=tmp_path).stdout)
    (tmp_path / "m.py").write_text("\n\n" + (tmp_path / "m.py").read_text())
    after = json.loads(stagelint("check", "--output-format", "gitlab", ".", cwd=tmp_path).stdout)
    assert [i["fingerprint"] for i in before] == [i["fingerprint"] for i in after]
    assert [i["location"]["lines"]["begin"] + 2 for i in before] == [i["location"]["lines"]["begin"] for i in after]


def test_gitlab_with_a_missing_path_and_with_nothing(tmp_path):
    write_tree(tmp_path, {"m.py": "x = 1\n"})
    clean = stagelint("check", "--output-format", "gitlab", ".", cwd=tmp_path)
    assert (clean.returncode, json.loads(clean.stdout)) == (0, [])
    missing = stagelint("check", "--output-format", "gitlab", "m.py", "nope.py", cwd=tmp_path)
    assert missing.returncode == 2
    (issue,) = json.loads(missing.stdout)
    jsonschema.validate(issue, GITLAB_ISSUE)
    assert issue["severity"] == "critical" and issue["location"]["path"] == "nope.py"


def _junit(proc):
    root = ET.fromstring(proc.stdout)
    assert root.tag == "testsuites"
    return root


def test_junit_report(tmp_path):
    proc = stagelint("check", "--output-format", "junit", ".", cwd=PROJECT)
    assert proc.returncode == 1
    root = _junit(proc)
    concise = stagelint("check", "--output-format", "concise", "-q", ".", cwd=PROJECT).stdout.splitlines()
    cases = root.findall("./testsuite/testcase")
    assert int(root.get("tests")) == int(root.get("failures")) == len(cases) == len(concise)
    for suite in root.findall("testsuite"):
        assert int(suite.get("tests")) == len(suite.findall("testcase")) == int(suite.get("failures"))
    for case, line in zip(cases, concise):
        path, lineno = line.split(":")[:2]
        failure = case.find("failure")
        assert case.get("classname") == case.get("file") == path and case.get("line") == lineno
        assert case.get("name") == "stagelint." + line.split(" ")[1]
        assert failure is not None and failure.get("message") and failure.text.startswith(line.split(" [")[0])
    # A clean run is one passing test case; a missing path is an error.
    write_tree(tmp_path, {"m.py": "x = 1\n"})
    clean = _junit(stagelint("check", "--output-format", "junit", ".", cwd=tmp_path))
    assert (clean.get("tests"), clean.get("failures"), clean.get("errors")) == ("1", "0", "0")
    assert clean.find("./testsuite/testcase/failure") is None
    missing = stagelint("check", "--output-format", "junit", "nope.py", "m.py", cwd=tmp_path)
    assert missing.returncode == 2
    errors = _junit(missing).findall("./testsuite/testcase/error")
    assert [e.get("message") for e in errors] == ["no such file or directory"]


PRINTS = """
import tensorflow as tf


@tf.function
def step(x, n=1):
    print("tracing", x)
    return x * n
"""


RETRACES = """

for i in range(5):
    step(tf.constant(1.0), i)
"""
