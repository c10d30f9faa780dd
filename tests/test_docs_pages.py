"""The user-facing pages stand alone: what they cite is in the repository, and they speak of no
issue tracker their readers cannot see. (`bench/docs_commands.py` runs their commands.)"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
sys.path.insert(0, str(ROOT / "bench"))


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_a_page_cites_only_what_the_repository_holds(page):
    text = page.read_text(encoding="utf-8")
    assert not re.findall(r"\bissues? \d+", text, re.I), "readers have no issue tracker"
    for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text):  # relative Markdown links
        if not re.match(r"[a-z]+:", target):
            assert (page.parent / target).exists(), target
    for name in set(re.findall(r"`([\w./-]+\.md)`", text)) - {"docs/rules/STGnnn.md"}:  # a page named in code
        assert list(ROOT.glob(f"**/{Path(name).name}")), name


def test_every_command_of_the_pages_is_found():
    """The runner's extraction: `sh` lines (a command over several lines is one) and `$ ` lines."""
    from docs_commands import commands

    found = commands(PAGES)
    texts = [c.text for c in found]
    assert "python3 -m venv .venv && .venv/bin/pip install -q -e . && .venv/bin/stagelint check examples/" in texts
    assert "stagelint check examples/" in texts  # a `$ ` line of a text block
    multi = [t for t in texts if t.startswith('.venv/bin/python -c "import time')]
    assert len(multi) == 1 and multi[0].count("\n") == 3 and multi[0].endswith("round(time.perf_counter() - t, 1))\"")
    assert not any(t.startswith("#") or not t.strip() for t in texts)
