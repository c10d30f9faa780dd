"""What `stagelint check` costs per file on JAX code, next to TensorFlow code (issue 14).

    python bench/jax_cost.py [--repeat 5] [--jax flax] [--tf tf_examples]

Both sides are real code users write, from the pinned corpus (`bench/corpus.py`, fetched when
missing): the JAX side is the Python files of google/flax's `examples/` (140 files; `--jax
jax_examples` for jax-ml/jax's), the TensorFlow side the Python files of tensorflow/examples
(`--tf tf_docs` for the tensorflow/docs notebooks converted to `.py`; `--tf tf_examples,tf_docs`
for both, each in a folder of its own). Only the files that import
their side's framework are taken (`--all-files`: every file): both sides are then code written
against the framework, not the data scripts and setup files around it. Each side is copied to a
folder of its own and checked with `stagelint check --no-cache --jobs 1 --output-format json`,
the two alternating, `--repeat` times, in one run on one machine; an empty folder is checked
the same way to measure what a run costs before it reads a file (interpreter start, imports).

Printed per side: the median CPU time (user + system of the stagelint process) and wall time,
per file and per 1,000 lines, both with and without the empty-folder start; then the ratio
JAX / TensorFlow per file. CPU time is the figure to compare: the machine is shared, and CPU time
moves less than wall time when other work runs. Exit 1 when JAX costs more per file than
TensorFlow (CPU, start excluded): issue 14's "no more per file than on TensorFlow code".

Then where the ratio comes from: one more check of each side in this process counts the files
(and lines) analysed in full, the rest having stopped at the screen or been deferred and never
needed, and the CPU per 1,000 lines analysed is printed for each side, with its ratio. A ratio
per file above 1 with a ratio per line analysed near 1 says the JAX side costs more because
more of it needs the analysis (JAX code is staged nearly throughout), not because a line of
JAX code costs more to analyse.
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from corpus import corpus  # noqa: E402

#: Which files of a corpus folder form the side (the flax corpus also holds its docs notebooks).
SUBSETS = {"flax": "examples", "jax_examples": "examples"}
#: A file "uses" a framework when a line imports it.
IMPORTS = {"JAX": re.compile(rb"^\s*(import|from) (jax|flax|equinox)\b", re.M),
           "TensorFlow": re.compile(rb"^\s*(import|from) (tensorflow|keras)\b", re.M)}


def copy_side(name: str, into: Path, uses: re.Pattern | None) -> tuple[int, int]:
    """Copy the `.py` files of corpus folder `name` (those matching `uses`) into `into`; (files, lines)."""
    (root,) = corpus((name,))
    source = root / SUBSETS.get(name, "")
    files = lines = 0
    for path in sorted(source.rglob("*.py")):
        if uses is not None and not uses.search(path.read_bytes()):
            continue
        target = into / path.relative_to(source)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, target)
        files += 1
        lines += len(path.read_bytes().splitlines())
    return files, lines


def check(folder: Path) -> tuple[float, float]:
    """(CPU seconds, wall seconds) of one `stagelint check` of the folder."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "stagelint", "check", "--no-cache", "--jobs", "1",
                           "--output-format", "json", "."], cwd=folder, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode not in (0, 1):
        raise SystemExit(f"stagelint failed on {folder} (exit {proc.returncode}):\n{proc.stderr[-2000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, wall


def analysed(folder: Path) -> tuple[int, int]:
    """(files, lines) of the folder that `stagelint check` analyses in full: the others stop at
    the screen, or are deferred and never needed (`stagelint.screen`, `stagelint.demand`). One
    check in this process, uncached, after the timed ones."""
    from stagelint.config import Settings
    from stagelint.engine import run
    from stagelint.pipeline.state import Options, ProjectState

    here = os.getcwd()
    os.chdir(folder)  # as `check` is run above: `stagelint check .` in the folder
    try:
        state = ProjectState(settings=Settings(), paths=["."], options=Options(jobs=0, whole_project=True))
        run(state)
    finally:
        os.chdir(here)
    lines = sum(len(Path(real).read_bytes().splitlines()) for real in state.modules)
    return len(state.modules), lines


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--jax", default="flax", help="JAX corpus folder (flax or jax_examples; several: flax,jax_examples)")
    ap.add_argument("--tf", default="tf_examples", help="TensorFlow corpus folder (tf_examples or tf_docs; several: tf_examples,tf_docs)")
    ap.add_argument("--all-files", action="store_true", help="every .py file, not only those importing the framework")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        sides = {"empty": (Path(tmp) / "empty", 0, 0)}
        sides["empty"][0].mkdir()
        for label, name in (("JAX", args.jax), ("TensorFlow", args.tf)):
            folder = Path(tmp) / label
            folder.mkdir()
            files = lines = 0
            names = name.split(",")
            for one in names:  # several corpora: each in a folder of its own, checked as one
                got = copy_side(one, folder / one if len(names) > 1 else folder, None if args.all_files else IMPORTS[label])
                files, lines = files + got[0], lines + got[1]
            sides[label] = (folder, files, lines)
            print(f"{label}: {name}, {files} files, {lines} lines", file=sys.stderr)
        times: dict[str, list[tuple[float, float]]] = {k: [] for k in sides}
        for round_ in range(args.repeat):
            order = list(sides) if round_ % 2 == 0 else list(reversed(sides))
            for label in order:
                times[label].append(check(sides[label][0]))
        cpu0 = statistics.median(c for c, _ in times["empty"])
        wall0 = statistics.median(w for _, w in times["empty"])
        print(f"start (empty folder): CPU {cpu0:.2f} s, wall {wall0:.2f} s (median of {args.repeat})")
        per_file = {}
        for label in ("JAX", "TensorFlow"):
            _, files, lines = sides[label]
            cpu = statistics.median(c for c, _ in times[label])
            wall = statistics.median(w for _, w in times[label])
            per_file[label] = (cpu - cpu0) / files
            print(f"{label}: {files} files, {lines} lines: CPU {cpu:.2f} s, wall {wall:.2f} s; start excluded: "
                  f"{1000 * (cpu - cpu0) / files:.1f} ms CPU per file, {1000 * (cpu - cpu0) / lines * 1000:.0f} ms "
                  f"CPU per 1,000 lines, {1000 * (wall - wall0) / files:.1f} ms wall per file")
        ratio = per_file["JAX"] / per_file["TensorFlow"]
        print(f"JAX / TensorFlow, CPU per file (start excluded): {ratio:.2f}x (target: at most 1.00x)")
        # Where the ratio comes from: how much of each side reaches full analysis, and what a
        # line analysed costs. (JAX code is staged nearly throughout; much TensorFlow code stages
        # nothing and stops at the screen.)
        per_line = {}
        for label in ("JAX", "TensorFlow"):
            folder, files, lines = sides[label]
            done, done_lines = analysed(folder)
            cpu = statistics.median(c for c, _ in times[label])
            per_line[label] = (cpu - cpu0) / done_lines
            print(f"{label}: analysed in full {done} of {files} files, {done_lines} of {lines} lines "
                  f"({100 * done_lines / lines:.0f} %): {1e6 * per_line[label]:.0f} ms CPU per 1,000 lines analysed")
        print(f"JAX / TensorFlow, CPU per line analysed: {per_line['JAX'] / per_line['TensorFlow']:.2f}x")
    return 0 if ratio <= 1.0 else 1


if __name__ == "__main__":
    raise SystemExit(main())
