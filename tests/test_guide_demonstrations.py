"""Every staging pitfall that the tf.function guides demonstrate is reported with the right code.

The guides are `site/en/guide/function.ipynb` and `site/en/guide/intro_to_graphs.ipynb` of
tensorflow/docs (audited as converted modules by `bench/audit.py`). Their code is not committed:
`tests/data/guide_demos/*.py` re-state each demonstration in a few lines, in the notebooks' cell
order and with their names (later cells redefine earlier names, as notebooks do), marked
`# %% [cell N]` like `bench/notebooks.py` marks the converted notebooks.

`tests/data/guide_demos/expected.csv` lists, per demonstration, the cell, the source line inside
that cell (stripped; the first such line of the cell), the code and whether it must
be `reported` or `absent` (`*`: no finding of any code; the guide's correct versions and the
false positives the audit found). Rows marked `xfail` fail today, each with its reason
(issue 11): they are strict, so a fix that makes one pass flips it to a failure until the row is
marked `pass`.
"""

from __future__ import annotations

import csv
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

DATA = Path(__file__).parent / "data" / "guide_demos"
ROWS = list(csv.DictReader((DATA / "expected.csv").open(encoding="utf-8", newline="")))


def line_of(fixture: str, cell: str, snippet: str) -> int:
    """The number of the first line inside `# %% [cell N]` of the fixture that is the snippet."""
    lines = (DATA / fixture).read_text(encoding="utf-8").splitlines()
    marker = f"# %% [cell {cell}]"
    start = lines.index(marker)
    for number, text in enumerate(lines[start + 1:], start + 2):
        if text.startswith("# %% [cell "):
            break
        if text.strip() == snippet:
            return number
    raise AssertionError(f"{fixture} cell {cell}: no line is {snippet!r}")


@pytest.fixture(scope="module")
def reported(tmp_path_factory) -> set[tuple[str, int, str]]:
    """(file, line, code) of what `stagelint check` reports on the fixtures, checked together as
    a folder the way the audit checks the converted notebooks."""
    folder = tmp_path_factory.mktemp("guide_demos")
    for module in DATA.glob("*.py"):
        shutil.copy(module, folder / module.name)
    proc = subprocess.run([sys.executable, "-m", "stagelint", "check", "--output-format", "json", "."],
                          cwd=folder, capture_output=True, text=True, check=False)
    assert proc.returncode in (0, 1), proc.stderr
    return {(Path(f["path"]).name, f["line"], f["code"]) for f in json.loads(proc.stdout)}


def _param(row: dict):
    marks = [pytest.mark.xfail(strict=True, reason=row["reason"])] if row["status"] == "xfail" else []
    return pytest.param(row, id=f"{row['id']}-{row['code']}-{row['expect']}", marks=marks)


@pytest.mark.parametrize("row", [_param(r) for r in ROWS])
def test_guide_demonstration(row, reported):
    line = line_of(row["fixture"], row["cell"], row["snippet"])
    here = {code for name, number, code in reported if name == row["fixture"] and number == line}
    if row["expect"] == "reported":
        assert row["code"] in here, f"{row['guide']}: expected {row['code']} on line {line}, got {sorted(here)}"
    elif row["code"] == "*":
        assert not here, f"{row['guide']}: expected no finding on line {line}, got {sorted(here)}"
    else:
        assert row["code"] not in here, f"{row['guide']}: {row['code']} on line {line} is a false positive"


def test_expectations_are_well_formed():
    """Every row finds its line, and the counts the audit page quotes add up."""
    ids = [r["id"] for r in ROWS]
    assert len(ids) == len(set(ids))
    for r in ROWS:
        assert r["expect"] in ("reported", "absent") and r["status"] in ("pass", "xfail")
        assert r["status"] == "pass" or r["reason"]
        line_of(r["fixture"], r["cell"], r["snippet"])
    function_demos = [r for r in ROWS if r["fixture"] == "function_guide.py" and r["expect"] == "reported"]
    assert len(function_demos) == 19
