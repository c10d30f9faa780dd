"""JUnit XML, the test report format CI systems read (GitLab's `artifacts:reports:junit`,
Jenkins, Azure Pipelines, CircleCI, Buildkite): as ruff writes it.

One `<testsuite>` per file with findings, named by its path, and in it one `<testcase>` per
finding (`classname` the path, `name` `stagelint.CODE`, `file` and `line` attributes) holding
a `<failure>` whose message is the finding's message and whose text says where. A path that
could not be checked is a test case with an `<error>`. A run with neither has one suite
`stagelint` with one passing test case, so a CI system shows a passed check rather than no
tests at all. The root `<testsuites>` counts tests, failures and errors."""

from __future__ import annotations

import xml.etree.ElementTree as ET


def build(result) -> ET.Element:
    root = ET.Element("testsuites", name="stagelint")
    by_path: dict[str, list] = {}
    for f in result.findings:
        by_path.setdefault(f.path, []).append(f)
    tests = failures = errors = 0
    for path, found in by_path.items():
        suite = ET.SubElement(root, "testsuite", name=path, tests=str(len(found)), failures=str(len(found)),
                              errors="0", skipped="0")
        for f in found:
            case = ET.SubElement(suite, "testcase", name=f"stagelint.{f.code}", classname=path, file=path,
                                 line=str(f.line))
            failure = ET.SubElement(case, "failure", message=f.message, type=f"{f.code} {f.name}")
            failure.text = f"{f.location}: {f.code} [{f.name}] {f.message}"
        tests += len(found)
        failures += len(found)
    if result.skipped:
        suite = ET.SubElement(root, "testsuite", name="stagelint", tests=str(len(result.skipped)), failures="0",
                              errors=str(len(result.skipped)), skipped="0")
        for path, reason in result.skipped:
            case = ET.SubElement(suite, "testcase", name="stagelint.check", classname=path, file=path)
            ET.SubElement(case, "error", message=reason, type="not checked").text = f"{path}: {reason}"
        tests += len(result.skipped)
        errors += len(result.skipped)
    if not tests:
        suite = ET.SubElement(root, "testsuite", name="stagelint", tests="1", failures="0", errors="0", skipped="0")
        ET.SubElement(suite, "testcase", name="stagelint.check", classname="stagelint")
        tests = 1
    root.set("tests", str(tests))
    root.set("failures", str(failures))
    root.set("errors", str(errors))
    return root


def render(result, out) -> None:
    tree = ET.ElementTree(build(result))
    ET.indent(tree)
    out.write('<?xml version="1.0" encoding="UTF-8"?>\n')
    out.write(ET.tostring(tree.getroot(), encoding="unicode"))
    out.write("\n")
