"""Helpers for the rule-family tests: check snippets and small projects against `# STGnnn` markers.

A snippet marks each expected finding bugbear-style (`print(x)  # STG101`); the tests compare the
full set of (line, code) pairs, of every code, so a finding nobody expected fails too.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from stagelint.config import Settings
from stagelint.engine import check_paths, check_source
from stagelint.rules.base import example_source, expected_findings


def found(source: str, **kwargs) -> set[tuple[int, str]]:
    return {(f.line, f.code) for f in check_source(example_source(source), **kwargs)}


def findings(source: str, code: str | None = None, preview: bool = False):
    settings = Settings(preview=True) if preview else None
    return [f for f in check_source(example_source(source), settings=settings) if code is None or f.code == code]


def assert_marked(source: str, preview: bool = False) -> None:
    """Every finding of the snippet, of every code, is exactly its markers (with the preview
    tier too when `preview`)."""
    got, want = found(source, settings=Settings(preview=True)) if preview else found(source), expected_findings(source)
    assert got == want, f"unexpected {sorted(got - want)}, missing {sorted(want - got)}"


PREVIEW_MARKER = re.compile(r"#\s*preview\s+((?:STG\d{3}[\s,]*)+)")


def assert_tiers(source: str) -> None:
    """The snippet's `# STGnnn` markers are exactly its default findings, and with `--preview`
    those plus the lines marked `# preview STGnnn` (a step of the rule's proof is a guess there)."""
    assert_marked(source)
    previewed = {(n, code) for n, line in enumerate(example_source(source).splitlines(), start=1)
                 for m in [PREVIEW_MARKER.search(line)] if m for code in re.findall(r"STG\d{3}", m.group(1))}
    got = found(source, settings=Settings(preview=True))
    want = expected_findings(source) | previewed
    assert got == want, f"with --preview: unexpected {sorted(got - want)}, missing {sorted(want - got)}"


def check_project(tmp_path: Path, files: dict[str, str], preview: bool = False):
    """Write a package (paths relative to tmp_path) and check it; returns the findings."""
    for rel, text in files.items():
        path = tmp_path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(example_source(text), encoding="utf-8")
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        result = check_paths(sorted({rel.split("/")[0] for rel in files}), settings=Settings(preview=preview) if preview else None,
                             jobs=1)
    finally:
        os.chdir(cwd)
    assert not result.errors, result.errors
    return result.findings


def assert_project_marked(tmp_path: Path, files: dict[str, str], preview: bool = False):
    """Every finding in a multi-module project is exactly the files' markers (with the preview
    tier too when `preview`); returns findings."""
    got = check_project(tmp_path, files, preview)
    expected = {(rel, line, code) for rel, text in files.items() for line, code in expected_findings(text)}
    seen = {(Path(f.path).as_posix(), f.line, f.code) for f in got}
    assert seen == expected, f"unexpected {sorted(seen - expected)}, missing {sorted(expected - seen)}"
    return got
