"""Shared runs of `stagelint run` over the fixture modules in tests/runtime/fixtures/.

Each fixture module is run once per test session (two real TensorFlow subprocesses), however the
tests are spread over xdist workers: the first worker to ask takes a file lock and runs it, the
others wait and read its JSON report and records. Tests then assert on the report, and on
verdicts computed from the records for findings made from the `# STGnnn` markers in the fixture,
so the runtime half is tested independently of what the static rules detect so far.
"""

from __future__ import annotations

import contextlib
import fcntl
import io
import json
import os
import re
from dataclasses import dataclass
from pathlib import Path

import pytest

from stagelint.findings import Finding
from stagelint.rules.base import REGISTRY
from stagelint.runtime import cli
from stagelint.runtime.compare import join
from stagelint.runtime.evidence import Evidence
from stagelint.runtime.records import Run, load_run
from stagelint.runtime.verdicts import Verdict, judge, runtime_only

FIXTURES = Path(__file__).parent / "fixtures"
REPO = Path(__file__).resolve().parents[2]

MARKER = re.compile(r"#\s*(STG\d{3})(?:\s+via\s+([\w.]+))?(?::\s*(not-reproduced|not-exercised))?\s*$")
RUNTIME_MARKER = re.compile(r"#\s*runtime-only\s+(STG9\d\d)\s*$")


@dataclass
class FixtureRun:
    name: str
    exit_code: int
    report: dict
    stderr: str
    graph: Run
    eager: Run
    graph_path: str

    @property
    def workdir(self) -> Path:
        return Path(self.graph_path).parent

    @property
    def path(self) -> str:
        return f"tests/runtime/fixtures/{self.name}.py"

    def markers(self) -> list[tuple[int, str, str, str | None]]:
        """(line, code, expected verdict, entry point) from the fixture's markers."""
        out = []
        for lineno, line in enumerate((REPO / self.path).read_text().splitlines(), start=1):
            m = MARKER.search(line)
            if m:
                out.append((lineno, m.group(1), m.group(3) or "confirmed", m.group(2)))
        return out

    def marked(self) -> list[tuple[int, str, str]]:
        """(line, code, expected verdict) from the fixture's markers."""
        return [(line, code, verdict) for line, code, verdict, _ in self.markers()]

    def runtime_marked(self) -> set[tuple[int, str]]:
        lines = (REPO / self.path).read_text().splitlines()
        return {(i, m.group(1)) for i, line in enumerate(lines, start=1) if (m := RUNTIME_MARKER.search(line))}

    def judged(self) -> tuple[dict[tuple[int, str], Verdict], list[Verdict]]:
        """Verdicts for findings made from the markers, and the runtime-only findings that follow."""
        # A finding outside staged code (a variable rebound in a test) reaches the runs through
        # its entry point, as the static engine reports it; `via NAME` in the marker gives it.
        findings = [Finding(code, getattr(REGISTRY.get(code), "name", code.lower()), self.path, line, 1, line, 1,
                            "marked in the fixture", entry_point=via) for line, code, _, via in self.markers()]
        ev = Evidence(self.graph, self.eager, join(self.graph, self.eager))
        verdicts = judge(findings, ev, self.graph, self.eager)
        extra = runtime_only(verdicts, ev, self.graph, self.eager)
        return {(v.finding.line, v.finding.code): v for v in verdicts}, extra

    def judged_pairs(self) -> list:
        """The two runs' calls joined and compared."""
        return join(self.graph, self.eager)

    def function(self, qualname: str) -> dict:
        matches = [f for f in self.report["functions"] if f["name"].endswith("." + qualname)]
        assert len(matches) == 1, f"{qualname} in {[f['name'] for f in self.report['functions']]}"
        return matches[0]


def _shared_dir(tmp_path_factory) -> Path:
    # Under xdist every worker has its own basetemp inside one per-session directory.
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


def run_stagelint(args: list[str]) -> tuple[int, str, str]:
    """`stagelint run ARGS` in this process, from the repository root (the runs themselves are
    subprocesses); paths in ARGS are relative to the root."""
    out, err = io.StringIO(), io.StringIO()
    here = os.getcwd()
    os.chdir(REPO)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = cli.main(args)
    finally:
        os.chdir(here)
    return code, out.getvalue(), err.getvalue()


@pytest.fixture(scope="session")
def stagelint_cli():
    """`stagelint run ARGS` in this process: (exit code, stdout, stderr)."""
    return run_stagelint


@pytest.fixture(scope="session")
def repo_root() -> Path:
    return REPO


@pytest.fixture(scope="session")
def fixture_run(tmp_path_factory):
    shared = _shared_dir(tmp_path_factory) / "stagelint-runtime"
    shared.mkdir(exist_ok=True)
    cache: dict[tuple, FixtureRun] = {}

    def get(name: str, *extra: str, env: dict[str, str] | None = None, repeat: int = 0) -> FixtureRun:
        """The run of fixture `name` with `extra` arguments; `env` is set around it; `repeat` > 0
        makes another run of the same arguments (to compare two runs)."""
        key = (name, *extra, *(f"{k}={v}" for k, v in sorted((env or {}).items())), *(["again"] * repeat))
        if key in cache:
            return cache[key]
        slug = re.sub(r"[^\w]+", "_", "-".join(key))
        workdir = shared / slug
        with open(shared / f"{slug}.lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            done = workdir / "done.json"
            if not done.exists():
                saved = {k: os.environ.get(k) for k in env or {}}
                os.environ.update(env or {})
                try:
                    code, out, err = run_stagelint([f"tests/runtime/fixtures/{name}.py", "--output-format", "json",
                                                    "--keep-records", str(workdir), *extra])
                finally:
                    for k, v in saved.items():
                        if v is None:
                            os.environ.pop(k, None)
                        else:
                            os.environ[k] = v
                done.write_text(json.dumps({"exit_code": code, "stdout": out, "stderr": err}))
        result = json.loads(done.read_text())
        assert result["stdout"].strip(), f"stagelint run printed nothing; stderr:\n{result['stderr']}"
        graph, eager = load_run(str(workdir / "graph.jsonl"), "graph"), load_run(str(workdir / "eager.jsonl"), "eager")
        eager.follow_graph(graph)  # as `stagelint run` reads them
        cache[key] = FixtureRun(name, result["exit_code"], json.loads(result["stdout"]), result["stderr"],
                                graph, eager, str(workdir / "graph.jsonl"))
        return cache[key]

    return get
