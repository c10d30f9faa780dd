"""What `stagelint check` costs per file on JAX code, next to TensorFlow code (issue 14).

    python bench/jax_cost.py [--repeat 5] [--jax flax,jax_examples,equinox] [--tf tf_examples,tf_docs]

Both sides are the code users write that the project audits, from the pinned corpus
(`bench/corpus.py`, fetched when missing): by default every JAX corpus (google/flax, jax-ml/jax,
patrick-kidger/equinox: their `examples/` and their guide notebooks) against every TensorFlow
one the TensorFlow audit reads as user code (tensorflow/examples, and the tensorflow/docs guide
and tutorial notebooks). The two sides are built alike: a corpus's Python files (for flax and
jax_examples those under `examples/`), and its `.ipynb` notebooks converted to `.py` cell by
cell with `bench/notebooks.py`, the conversion the tensorflow/docs corpus was made with
(`--no-notebooks`: Python files only). Only the files that import their side's framework are
taken (`--all-files`: every file): code written against the framework, not the data scripts and
setup files around it. Each corpus is copied to a folder of its own and checked as a project of
its own, as a user would check it, with `stagelint check --no-cache --jobs 1 --output-format
json`, all of them alternating, `--repeat` times, in one run on one machine; an empty folder is
checked the same way to measure what a run costs before it reads a file (interpreter start,
imports).

Printed per corpus: files, lines, the median CPU time (user + system of the stagelint process)
and wall time, start excluded, per file. Then per side, all its corpora together: CPU per file
(the sum of the corpora's CPU over the sum of their files), and the ratio JAX / TensorFlow per
file: issue 14's "no more per file than on TensorFlow code"; exit 1 when it is above 1. The
ratio of every pair (one JAX corpus against one TensorFlow corpus) follows, because it depends on
the pair: how much of a corpus stages nothing (TensorFlow examples that only call `fit` or run
TFLite) moves it more than stagelint does. CPU time is the figure to compare: the machine is
shared, and CPU time moves less than wall time when other work runs.

Then where the ratio comes from: one more check of each corpus in this process counts the files
(and lines) analysed in full, the rest having stopped at the screen or been deferred and never
needed, and the CPU per 1,000 lines analysed is printed per side, with its ratio; so are the lines of
staged code (the functions staged code reaches, whose pitfalls the rules judge) and the CPU per
1,000 of them, and the CPU per 1,000 syntax nodes analysed (JAX code is written more densely:
more nodes to a line). A ratio per file above 1 with a ratio per line analysed near 1 says the JAX side
costs more because more of it needs the analysis (JAX code is staged nearly throughout), not
because a line of JAX code costs more to analyse.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from corpus import corpus  # noqa: E402
from notebooks import convert  # noqa: E402

#: Which files of a corpus folder form the side (the flax corpus also holds its docs notebooks).
SUBSETS = {"flax": "examples", "jax_examples": "examples"}
#: A file "uses" a framework when a line imports it.
IMPORTS = {"JAX": re.compile(rb"^\s*(import|from) (jax|flax|equinox)\b", re.M),
           "TensorFlow": re.compile(rb"^\s*(import|from) (tensorflow|keras)\b", re.M)}


def copy_side(name: str, into: Path, uses: re.Pattern | None, notebooks: bool = True) -> tuple[int, int]:
    """Copy the `.py` files of corpus folder `name` (under its `SUBSETS` folder) and, with
    `notebooks`, its `.ipynb` notebooks converted to `.py` (anywhere in the corpus), into `into`,
    keeping those whose text matches `uses`; (files, lines)."""
    (root,) = corpus((name,))
    source = root / SUBSETS.get(name, "")
    taken: list[tuple[Path, bytes]] = [(path.relative_to(source), path.read_bytes()) for path in sorted(source.rglob("*.py"))]
    if notebooks:
        for nb in sorted(root.rglob("*.ipynb")):
            if ".ipynb_checkpoints" in nb.parts:
                continue
            try:
                text = convert(json.loads(nb.read_text(encoding="utf-8")))
            except (OSError, ValueError):
                continue  # not a notebook Jupyter could open either
            taken.append((Path("notebooks") / nb.relative_to(root).with_suffix(".py"), text.encode("utf-8")))
    files = lines = 0
    for relative, data in taken:
        if uses is not None and not uses.search(data):
            continue
        target = into / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        files += 1
        lines += len(data.splitlines())
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


def analysed(folder: Path) -> tuple[int, int, int, int]:
    """(files, lines, staged lines, syntax nodes) of the folder: the files and lines that
    `stagelint check` analyses in full (the others stop at the screen, or are deferred and never
    needed: `stagelint.pipeline.screen`, `stagelint.pipeline.demand`), the lines of the functions staged code
    reaches (the code its rules judge; nested functions counted once), and the nodes of the
    analysed files' syntax trees (Python's `ast`: a measure of code that does not depend on how
    densely it is written). One check in this process, uncached, after the timed ones."""
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
    ends: dict[str, dict[int, int]] = {}  # module -> the line of a def (or lambda) -> its last line
    lines = nodes = 0
    for real, m in state.modules.items():
        spans = ends[m.module] = {}
        source = Path(real).read_bytes()
        lines += len(source.splitlines())
        try:
            tree = ast.parse(source)
        except SyntaxError:
            continue  # (its STG000 is all it has)
        for node in ast.walk(tree):
            nodes += 1
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                spans[node.lineno] = max(spans.get(node.lineno, 0), node.end_lineno)
    staged: set[tuple[str, int]] = set()
    for module, qualname in state.project.reached:
        f = state.project.function((module, qualname))
        if f is not None and module in ends:
            last = ends[module].get(f.span.line, f.span.line)
            staged.update((module, line) for line in range(f.span.line, last + 1))
    return len(state.modules), lines, len(staged), nodes


def _ratio(a: float, b: float) -> str:
    return f"{a / b:.2f}x" if b > 0 else "n/a"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--jax", default="flax,jax_examples,equinox",
                    help="JAX corpus folders, comma-separated (flax, jax_examples, equinox)")
    ap.add_argument("--tf", default="tf_examples,tf_docs",
                    help="TensorFlow corpus folders, comma-separated (tf_examples, tf_docs)")
    ap.add_argument("--all-files", action="store_true", help="every file, not only those importing the framework")
    ap.add_argument("--no-notebooks", action="store_true", help="Python files only, no converted notebooks")
    args = ap.parse_args(argv)
    sides = {"JAX": [n for n in args.jax.split(",") if n], "TensorFlow": [n for n in args.tf.split(",") if n]}
    with tempfile.TemporaryDirectory() as tmp:
        empty = Path(tmp) / "empty"
        empty.mkdir()
        corpora: dict[str, tuple[str, Path, int, int]] = {}  # corpus -> (side, folder, files, lines)
        for label, names in sides.items():
            for name in names:
                folder = Path(tmp) / label / name
                folder.mkdir(parents=True)
                files, lines = copy_side(name, folder, None if args.all_files else IMPORTS[label], not args.no_notebooks)
                if files:
                    corpora[name] = (label, folder, files, lines)
                print(f"{label}: {name}, {files} files, {lines} lines", file=sys.stderr)
        runs = {"": empty} | {name: folder for name, (_, folder, _, _) in corpora.items()}
        times: dict[str, list[tuple[float, float]]] = {k: [] for k in runs}
        for round_ in range(args.repeat):
            order = list(runs) if round_ % 2 == 0 else list(reversed(runs))
            for name in order:
                times[name].append(check(runs[name]))
        cpu0 = statistics.median(c for c, _ in times[""])
        wall0 = statistics.median(w for _, w in times[""])
        print(f"start (empty folder): CPU {cpu0:.2f} s, wall {wall0:.2f} s (median of {args.repeat})")
        cost: dict[str, float] = {}  # corpus -> CPU seconds, start excluded
        print(f"{'corpus':<14}{'side':<12}{'files':>6}{'lines':>8}{'CPU s':>8}{'ms CPU/file':>13}{'ms wall/file':>14}")
        for name, (label, _, files, lines) in corpora.items():
            cpu = statistics.median(c for c, _ in times[name])
            wall = statistics.median(w for _, w in times[name])
            cost[name] = cpu - cpu0
            print(f"{name:<14}{label:<12}{files:>6}{lines:>8}{cpu:>8.2f}{1000 * (cpu - cpu0) / files:>13.1f}"
                  f"{1000 * (wall - wall0) / files:>14.1f}")
        per_file: dict[str, float] = {}
        for label in sides:
            mine = [n for n, c in corpora.items() if c[0] == label]
            files = sum(corpora[n][2] for n in mine)
            lines = sum(corpora[n][3] for n in mine)
            per_file[label] = sum(cost[n] for n in mine) / files
            print(f"{label} ({', '.join(mine)}): {files} files, {lines} lines: {1000 * per_file[label]:.1f} ms CPU "
                  f"per file, {1e6 * sum(cost[n] for n in mine) / lines:.0f} ms CPU per 1,000 lines (start excluded)")
        ratio = per_file["JAX"] / per_file["TensorFlow"]
        print(f"JAX / TensorFlow, CPU per file (start excluded): {ratio:.2f}x (target: at most 1.00x)")
        print("each pair, JAX corpus / TensorFlow corpus, CPU per file:")
        for jax in (n for n, c in corpora.items() if c[0] == "JAX"):
            pairs = ", ".join(f"/ {tf} {_ratio(cost[jax] / corpora[jax][2], cost[tf] / corpora[tf][2])}"
                              for tf, c in corpora.items() if c[0] == "TensorFlow")
            print(f"  {jax} {pairs}")
        # Where the ratio comes from: how much of each side reaches full analysis, and what a
        # line analysed costs. (JAX code is staged nearly throughout; much TensorFlow code stages
        # nothing and stops at the screen.)
        per_line, per_node, per_staged = {}, {}, {}
        for label in sides:
            mine = [n for n, c in corpora.items() if c[0] == label]
            done = done_lines = staged = nodes = 0
            for name in mine:
                got = analysed(corpora[name][1])
                done, done_lines, staged, nodes = done + got[0], done_lines + got[1], staged + got[2], nodes + got[3]
            files = sum(corpora[n][2] for n in mine)
            lines = sum(corpora[n][3] for n in mine)
            spent = sum(cost[n] for n in mine)
            per_line[label], per_node[label], per_staged[label] = spent / done_lines, spent / nodes, spent / staged
            print(f"{label}: analysed in full {done} of {files} files, {done_lines} of {lines} lines "
                  f"({100 * done_lines / lines:.0f} %), {nodes} syntax nodes ({nodes / done_lines:.2f} a line): "
                  f"{1e6 * per_line[label]:.0f} ms CPU per 1,000 lines analysed, {1e6 * per_node[label]:.1f} "
                  f"per 1,000 nodes; {staged} lines in staged code ({100 * staged / lines:.0f} %, "
                  f"{staged / files:.0f} a file): {1e6 * per_staged[label]:.0f} ms CPU per 1,000 of them")
        print(f"JAX / TensorFlow, CPU per line analysed: {per_line['JAX'] / per_line['TensorFlow']:.2f}x, "
              f"per syntax node analysed: {per_node['JAX'] / per_node['TensorFlow']:.2f}x, "
              f"per line of staged code: {per_staged['JAX'] / per_staged['TensorFlow']:.2f}x")
    return 0 if ratio <= 1.0 else 1


if __name__ == "__main__":
    raise SystemExit(main())
