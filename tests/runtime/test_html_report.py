"""The HTML report of `stagelint run --report`: its content, parsed as a browser parses it (html5lib),
from real runs of the fixture modules; escaping of whatever comes from the user's code; and the page
loaded in a real browser (headless Chromium, where installed)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys

import html5lib
import pytest

from stagelint.runtime.steps import analyse
from stagelint.runtime.executor import RunStatus
from stagelint.report.docs import rule_url
from stagelint.runtime.html import render_html
from stagelint.runtime.lint import static_findings

NS = "{http://www.w3.org/1999/xhtml}"
SVG = "{http://www.w3.org/2000/svg}"


def parse(page: str):
    """The document as html5lib builds it; strict: a parse error (unclosed or misnested markup)
    fails the test."""
    return html5lib.HTMLParser(strict=True, namespaceHTMLElements=True).parse(page)


def text(element) -> str:
    return " ".join("".join(element.itertext()).split())


def by_id(doc, ident: str):
    (found,) = [e for e in doc.iter() if e.get("id") == ident]
    return found


def elements(doc, tag: str, ns: str = NS) -> list:
    return list(doc.iter(ns + tag))


def assert_self_contained(doc) -> None:
    """No script, no external resource, no event handler; links are in-page or rule docs."""
    tags = {e.tag.split("}")[-1] for e in doc.iter() if isinstance(e.tag, str)}
    assert not tags & {"script", "img", "link", "iframe", "object", "embed", "base"}, tags
    for e in doc.iter():
        if not isinstance(e.tag, str):
            continue
        assert not [a for a in e.attrib if a.lower().startswith("on") or a == "src"], (e.tag, e.attrib)
        href = e.get("href")
        if href is not None:
            assert href.startswith("#") or re.fullmatch(r"https://\S+/docs/rules/STG\d{3}\.md", href), href
    (csp,) = [m for m in elements(doc, "meta") if m.get("http-equiv") == "Content-Security-Policy"]
    assert "default-src 'none'" in csp.get("content")


def _report(run, repo_root, monkeypatch):
    """The report of a fixture's real run, rebuilt from its records, with the static findings."""
    monkeypatch.chdir(repo_root)
    statuses = {m: RunStatus(m, r["status"], r["returncode"], r["seconds"], "", "", r["detail"], r["test"])
                for m, r in run.report["runs"].items()}
    result = static_findings(run.report["static"]["files"])
    static = {"files": run.report["static"]["files"], "findings": len(result.findings)}
    return analyse(run.path, statuses, run.graph, run.eager, list(result.findings), static, ("STG",), ())


@pytest.mark.tf
def test_findings_carry_message_source_verdict_and_evidence(fixture_run, repo_root, monkeypatch):
    run = fixture_run("fx_state")
    report = _report(run, repo_root, monkeypatch)
    template = "https://git.example.com/ml/stagelint/blob/main/docs/rules/{code}.md"  # the `rule-url` setting
    doc = parse(render_html(report, template))
    assert_self_contained(doc)
    data = report.to_json()
    assert data["findings"] == run.report["findings"]  # the same report as `stagelint run` printed
    articles = [a for a in elements(doc, "article") if "finding" in a.get("class", "")]
    assert len(articles) == len(data["findings"])
    source = (repo_root / run.path).read_text().splitlines()
    for article, finding in zip(articles, data["findings"]):
        heading = text(next(article.iter(NS + "h3")))
        assert heading.startswith(f"{finding['code']} {finding['name']} [")
        assert f"{finding['path']}:{finding['line']}:{finding['column']}" in heading
        link = next(article.iter(NS + "a"))
        assert (text(link), link.get("href")) == (finding["code"], rule_url(finding["code"], template))
        assert link.get("href") == f"https://git.example.com/ml/stagelint/blob/main/docs/rules/{finding['code']}.md"
        assert f"Evidence: {' '.join(finding['evidence'].split())}" in text(article)
        if not finding["runtime_only"]:
            assert " ".join(finding["message"].split()) in text(article)
        # The finding's own line, highlighted, with its number.
        (hit,) = [s for s in article.iter(NS + "span") if s.get("class") == "hit"]
        assert text(hit) == f"{finding['line']} {' '.join(source[finding['line'] - 1].split())}"
    # Without the setting, the codes are plain text: no link to a page that may not exist.
    plain = [a for a in elements(parse(render_html(report)), "article") if "finding" in a.get("class", "")]
    assert [text(next(a.iter(NS + "h3"))) for a in plain] == [text(next(a.iter(NS + "h3"))) for a in articles]
    assert not any(list(next(a.iter(NS + "h3")).iter(NS + "a")) for a in plain)
    # STG301: the joined calls, the differing one first, with both values and the line counts.
    stale = next(a for a, f in zip(articles, data["findings"]) if f["code"] == "STG301")
    rows = [[text(td) for td in tr.iter(NS + "td")] for tr in stale.iter(NS + "tr") if tr.find(NS + "td") is not None]
    assert rows[0] == ["test_stale_global", "2 of scale", "10.0", "2.0", "no", "differ", "1 / 0"]
    assert rows[1] == ["test_stale_global", "1 of scale", "2.0", "2.0", "yes", "same", "1 / 1"]
    # The summary counts what the JSON counts.
    summary = by_id(doc, "summary")
    tiles = {text(t).split(" ", 1)[1]: int(text(t).split(" ", 1)[0]) for t in summary.iter(NS + "div")
             if t.get("class", "").startswith("tile ")}
    confirmed = sum(1 for f in data["findings"] if f["verdict"] == "confirmed" and not f["runtime_only"])
    assert tiles["confirmed"] == confirmed and tiles["test failures"] == len(data["test_failures"])
    assert "Exit code 1:" in text(summary)


@pytest.mark.tf
def test_each_staged_function_has_its_chart_and_retrace_causes(fixture_run, repo_root, monkeypatch):
    run = fixture_run("fx_retracing")
    report = _report(run, repo_root, monkeypatch)
    doc = parse(render_html(report))
    assert_self_contained(doc)
    functions = [a for a in elements(doc, "article") if a.get("class") == "function"]
    assert [text(next(a.iter(NS + "code"))) for a in functions] == [f["name"] for f in run.report["functions"]]
    for article, row in zip(functions, run.report["functions"]):
        (svg,) = article.iter(SVG + "svg")
        title = text(next(svg.iter(SVG + "title")))
        assert title.endswith(f"{row['calls']} call{'s' * (row['calls'] != 1)}, {row['traces']} "
                              f"trace{'s' * (row['traces'] != 1)} over the graph run")
        # One dot per call that traced; the traces line ends at the number of traces.
        assert len(list(svg.iter(SVG + "circle"))) == row["traces"]
        calls_line, traces_line = [p.get("points").split() for p in svg.iter(SVG + "polyline")]
        assert len(calls_line) == row["calls"] + 1
        top, bottom = 10, 150 - 34
        scale = max(row["calls"], row["traces"], 1)
        last_y = float(traces_line[-1].split(",")[1])
        assert abs(last_y - (top + (bottom - top) * (1 - row["traces"] / scale))) < 0.1
    step = next(a for a in functions if text(next(a.iter(NS + "code"))).endswith(".step_fn"))
    causes = [text(li) for ul in step.iter(NS + "ul") for li in ul.iter(NS + "li")]
    assert ("5 retraces from the Python value of `step` (0..5): pass it as a tensor (tf.constant) so that one "
            "trace serves every value") in causes


@pytest.mark.tf
def test_tests_in_both_modes_and_functions_run_by_keras(fixture_run, repo_root, monkeypatch):
    run = fixture_run("fx_state")
    doc = parse(render_html(_report(run, repo_root, monkeypatch)))
    tests = by_id(doc, "tests")
    rows = {text(tr.find(NS + "td")): tr for tr in tests.iter(NS + "tr") if tr.find(NS + "td") is not None}
    assert set(rows) == set(run.graph.tests)
    creation = rows["tests/runtime/fixtures/fx_state.py::test_variable_creation"]
    cells = [text(td) for td in creation.iter(NS + "td")]
    assert cells[1:3] == ["failed", "passed"] and creation.get("class") == "disagree"
    assert cells[3].startswith("graph: ") and "singleton tf.Variables" in cells[3]
    assert rows["tests/runtime/fixtures/fx_state.py::test_stale_global"].get("class") is None
    # Keras's train function ran the model's `call`: its own section, saying by what.
    functions = by_id(doc, "functions")
    keras = [a for a in functions.iter(NS + "article") if "run by" in text(next(a.iter(NS + "h3")))]
    assert [text(next(a.iter(NS + "code"))) for a in keras] == ["fx_state.Scaled.call"]
    assert "multi_step_on_iterator" in text(keras[0])


# A project whose names, values and output are markup -------------------------------------------------

HOSTILE = '''\
import pytest
import tensorflow as tf


@tf.function
def shout(x):
    print("<script>alert('trace')</script>")
    return x * 2


@pytest.mark.parametrize("tag", ["<script>alert(1)</script>"])
def test_tag(tag):
    assert int(shout(tf.constant(2))) == 4
    assert int(shout(tf.constant(3))) == 6


def test_fails_in_both():
    shout(tf.constant(1))
    raise AssertionError("<img src=x onerror=alert(2)>")
'''


@pytest.fixture(scope="module")
def hostile_report(tmp_path_factory):
    """A real `stagelint run --report` of a project whose test ids, output and messages hold markup."""
    root = tmp_path_factory.mktemp("hostile")
    (root / "test_hostile.py").write_text(HOSTILE)
    page = root / "out" / "report.html"
    page.parent.mkdir()
    proc = subprocess.run([sys.executable, "-m", "stagelint", "run", "test_hostile.py", "--report", str(page)],
                          cwd=root, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert f"stagelint run: HTML report written to {page}" in proc.stderr.splitlines()
    return page


@pytest.mark.tf
def test_markup_from_user_code_is_text(hostile_report):
    page = hostile_report.read_text()
    doc = parse(page)
    assert_self_contained(doc)
    cells = [text(td) for td in doc.iter(NS + "td")]
    assert "test_hostile.py::test_tag[<script>alert(1)</script>]" in cells
    assert any("<img src=x onerror=alert(2)>" in c for c in cells)
    # The print in the staged function: its source line and the output each mode wrote.
    (hit,) = [s for s in doc.iter(NS + "span") if s.get("class") == "hit"]
    assert text(hit) == """7 print("<script>alert('trace')</script>")"""
    assert "eager: <script>alert('trace')</script>graph: (none)" in cells  # eager prints at every call
    assert page.count("<script") == 0 and page.count("<img") == 0


def _chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.mark.tf
@pytest.mark.skipif(_chromium() is None, reason="no Chromium installed here (Debian: apt-get install chromium; "
                                                "`.ci/run` installs it where it can)")
def test_the_report_loads_in_a_real_browser_without_console_errors(hostile_report, tmp_path):
    """Headless Chromium loads the page and dumps the DOM it built; with logging on, every console
    message (a script error, a resource the Content-Security-Policy blocked) is on stderr."""
    command = [_chromium(), "--headless", "--disable-gpu", "--no-first-run", f"--user-data-dir={tmp_path}",
               "--enable-logging=stderr", "--v=0", "--dump-dom", hostile_report.as_uri()]
    if os.geteuid() == 0:
        command.insert(1, "--no-sandbox")  # Chromium refuses to run as root with its sandbox
    proc = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    console = [line for line in proc.stderr.splitlines() if ":CONSOLE" in line]
    assert console == []
    dom = parse(proc.stdout)
    assert_self_contained(dom)
    assert text(next(dom.iter(NS + "h1"))) == "stagelint run test_hostile.py"
    summary = by_id(dom, "summary")
    assert "1 confirmed" in text(summary) and "Exit code 1:" in text(summary)
    findings = by_id(dom, "findings")
    assert "STG101 trace-time-side-effect [confirmed]" in text(findings)
    (svg,) = by_id(dom, "functions").iter(SVG + "svg")
    assert text(next(svg.iter(SVG + "title"))) == "test_hostile.shout: 3 calls, 1 trace over the graph run"
    assert "test_hostile.py::test_tag[<script>alert(1)</script>]" in text(by_id(dom, "tests"))


def test_a_console_error_would_be_seen(tmp_path):
    """The browser test's net: the same command reports a blocked resource and a script error."""
    if _chromium() is None:
        pytest.skip("no Chromium installed here (Debian: apt-get install chromium)")
    page = tmp_path / "bad.html"
    page.write_text("<!DOCTYPE html><html><head><meta http-equiv=\"Content-Security-Policy\" content=\"default-src "
                    "'none'\"><title>x</title></head><body><img src=\"https://example.invalid/x.png\"></body></html>")
    command = [_chromium(), "--headless", "--disable-gpu", "--no-first-run", f"--user-data-dir={tmp_path / 'p'}",
               "--enable-logging=stderr", "--v=0", "--dump-dom", page.as_uri()]
    if os.geteuid() == 0:
        command.insert(1, "--no-sandbox")
    proc = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert [line for line in proc.stderr.splitlines() if ":CONSOLE" in line and "Content Security Policy" in line]


def test_a_report_without_runs_still_renders(tmp_path):
    """Nothing recorded (both runs stopped at once): a page that says so, parsed without errors."""
    from stagelint.runtime.evidence import Evidence
    from stagelint.runtime.records import Run
    from stagelint.runtime.report import Report

    graph, eager = Run("graph"), Run("eager")
    runs = {m: RunStatus(m, "crashed", -11, 0.5, "", "", "SIGSEGV") for m in ("graph", "eager")}
    doc = parse(render_html(Report("m.py", runs, graph, eager, Evidence(graph, eager, []), [], [],
                                   {"error": "static analysis unavailable (<none>)"})))
    assert_self_contained(doc)
    assert "No finding." in text(by_id(doc, "findings"))
    assert "No staged function of the project was called." in text(by_id(doc, "functions"))
    assert "No test ran." in text(by_id(doc, "tests"))
    assert "Static analysis: static analysis unavailable (<none>)" in text(by_id(doc, "summary"))
    assert "Exit code 2:" in text(by_id(doc, "summary"))


@pytest.fixture(scope="module")
def import_error_report(tmp_path_factory):
    """A real `stagelint run --report` of a test module that cannot import a dependency: a run that
    did little (no test, no staged call), under a lower-case package path."""
    root = tmp_path_factory.mktemp("little")
    (root / "pyproject.toml").write_text("")
    (root / "privacy_lib" / "tests").mkdir(parents=True)
    (root / "privacy_lib" / "tests" / "test_dp.py").write_text(
        "import missing_dependency_xyz\n\n\ndef test_dp():\n    assert missing_dependency_xyz.epsilon() < 1\n")
    page = root / "report.html"
    proc = subprocess.run([sys.executable, "-m", "stagelint", "run", "privacy_lib/tests/test_dp.py", "--report",
                           str(page)], cwd=root, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    return parse(page.read_text())


ERROR = "ModuleNotFoundError: No module named 'missing_dependency_xyz'"


def test_a_run_that_did_little_reads_right(import_error_report):
    doc = import_error_report
    assert_self_contained(doc)
    summary = by_id(doc, "summary")
    # The note starts with a path: written as the path is, not capitalised like a sentence.
    (note,) = [p for p in summary.iter(NS + "p") if p.get("class") == "note"]
    assert text(note) == f"privacy_lib/tests/test_dp.py failed to import in both runs: {ERROR}."
    # pytest's `E   ` prefix is not part of the message, anywhere it is shown.
    assert f"privacy_lib/tests/test_dp.py failed to import: {ERROR}" in text(summary)
    said = [text(e) for tag in ("p", "td", "li") for e in elements(doc, tag)]
    assert any(ERROR in t for t in said) and not any("E " + ERROR in t for t in said)
    # Nothing ran: no count is shown as good (green) or bad (red) news.
    tiles = {text(t): t.get("class") for t in summary.iter(NS + "div") if "tile" in t.get("class", "").split()}
    assert tiles == {"0 confirmed": "tile zero", "0 not reproduced": "tile zero", "0 not exercised": "tile zero",
                     "0 runtime-only": "tile zero", "1 test failures": "tile failed"}
    # No empty table of tests above the collection error.
    tests = by_id(doc, "tests")
    assert elements(tests, "table") == []
    (collect,) = [p for p in tests.iter(NS + "p") if p.get("class") == "note"]
    assert text(collect) == f"privacy_lib/tests/test_dp.py could not be collected in graph and eager: {ERROR}"


def test_long_lines_wrap_instead_of_running_off_the_page(import_error_report):
    """Output, messages and names can be one long unbroken line: preformatted text wraps (it stays
    preformatted), and code in table cells and notes may break anywhere."""
    (style,) = elements(import_error_report, "style")
    rules = {sel.strip(): body for sel, body in re.findall(r"([^{}]+)\{([^}]*)\}", style.text)}
    assert "white-space: pre-wrap" in rules["pre"] and "overflow-wrap: anywhere" in rules["pre"]
    assert "overflow-wrap: anywhere" in rules["td code, .note code"]
    # pytest's own output of the stopped runs is shown as it is, in such a block.
    assert elements(by_id(import_error_report, "tests"), "pre")
