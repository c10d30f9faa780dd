"""Every row of jax-behaviour.md's table: a positive that `stagelint check` reports with the
row's code and a negative twin it leaves alone.

`tests/data/jax_table/rNN_*.py` holds row NN as realistic user code: the pitfall and the way to
write it instead. Each module runs with real JAX (`python rNN_*.py`); its docstring records what
JAX 0.10.2 printed, which is the behaviour the row claims (a trace-time print, a stale value, a
tracer error, a trace count).

`tests/data/jax_table/expected.csv` lists per expectation the fixture, a snippet that occurs on
exactly one line of it, the code and whether it must be `reported` or `absent` (`*`: no finding
of any code on that line), or reported in the `preview` tier only (a step of the rule's proof is a
guess there: absent by default, reported with `--preview`). Rows that stagelint cannot report yet are strict xfails naming the
helper who owns the rule (issue 14): a change that makes one pass fails the test until the row
is marked `pass`.
"""

from __future__ import annotations

import csv
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

DATA = Path(__file__).parent / "data" / "jax_table"
ROWS = list(csv.DictReader((DATA / "expected.csv").open(encoding="utf-8", newline="")))
#: The rows of jax-behaviour.md's table that name a code (12 and 39 do not exist; 44 and 45 are
#: optional families stagelint does not have).
TABLE_ROWS = set(range(1, 44)) - {12, 39}
#: Rows whose point is that nothing is reported (runtime evidence only, or JAX really does not
#: retrace): a negative is enough.
NEGATIVE_ONLY = {27, 28, 34}


def line_of(fixture: str, snippet: str) -> int:
    """The number of the one line of the fixture that contains the snippet."""
    lines = (DATA / fixture).read_text(encoding="utf-8").splitlines()
    hits = [n for n, text in enumerate(lines, 1) if snippet in text]
    assert len(hits) == 1, f"{fixture}: {snippet!r} is on lines {hits}, expected exactly one"
    return hits[0]


@pytest.fixture(scope="module")
def reported(tmp_path_factory) -> dict[str, set[tuple[str, int, str]]]:
    """Per tier ("default", "preview"): (file, line, code) of what `stagelint check` reports on
    the fixtures, checked as one folder."""
    folder = tmp_path_factory.mktemp("jax_table")
    for module in DATA.glob("*.py"):
        shutil.copy(module, folder / module.name)
    out = {}
    for tier, flags in (("default", []), ("preview", ["--preview"])):
        proc = subprocess.run([sys.executable, "-m", "stagelint", "check", "--output-format", "json", *flags, "."],
                              cwd=folder, capture_output=True, text=True, check=False)
        assert proc.returncode in (0, 1), proc.stderr
        out[tier] = {(Path(f["path"]).name, f["line"], f["code"]) for f in json.loads(proc.stdout)}
    return out


def _param(row: dict):
    # The line is found here, at collection, so a snippet that lost its line is an error, never
    # hidden by an xfail.
    row = dict(row, line=line_of(row["fixture"], row["snippet"]))
    marks = []
    if row["status"] == "xfail":
        marks = [pytest.mark.xfail(strict=True, reason=f"{row['owner']}: {row['reason']}")]
    return pytest.param(row, id=f"{row['id']}-row{row['row']}-{row['code']}-{row['expect']}", marks=marks)


@pytest.mark.parametrize("row", [_param(r) for r in ROWS])
def test_jax_behaviour_row(row, reported):
    line = row["line"]
    here, previewed = ({code for name, number, code in reported[tier] if name == row["fixture"] and number == line}
                       for tier in ("default", "preview"))
    where = f"row {row['row']}, {row['fixture']}:{line}"
    if row["expect"] == "reported":
        assert row["code"] in here, f"{where}: expected {row['code']}, got {sorted(here)}"
    elif row["expect"] == "preview":
        assert row["code"] not in here, f"{where}: {row['code']} is reported outside the preview tier"
        assert row["code"] in previewed, f"{where}: expected {row['code']} with --preview, got {sorted(previewed)}"
    elif row["code"] == "*":
        assert not here, f"{where}: expected no finding, got {sorted(here)}"
    else:
        assert row["code"] not in here, f"{where}: {row['code']} is a false positive"


def test_every_row_has_a_positive_and_a_negative():
    ids = [r["id"] for r in ROWS]
    assert len(ids) == len(set(ids))
    kinds: dict[int, set[str]] = {}
    for r in ROWS:
        assert r["expect"] in ("reported", "preview", "absent") and r["status"] in ("pass", "xfail")
        assert r["owner"] in ("w-jaxcore", "w-jaxrules")
        assert r["status"] == "pass" or r["reason"]
        assert (DATA / r["fixture"]).name.startswith(f"r{int(r['row']):02d}_")
        line_of(r["fixture"], r["snippet"])
        kinds.setdefault(int(r["row"]), set()).add(r["expect"])
    assert set(kinds) == TABLE_ROWS
    for number, expects in kinds.items():
        assert "absent" in expects, f"row {number} has no negative"
        assert number in NEGATIVE_ONLY or expects & {"reported", "preview"}, f"row {number} has no positive"


def test_every_fixture_records_what_jax_did():
    """Each fixture says in its docstring what running it with real JAX printed."""
    for module in sorted(DATA.glob("r*.py")):
        assert "Observed with JAX 0.10.2" in module.read_text(encoding="utf-8"), module.name
