"""The analysis of the same files by several stagelint trees, counted in instructions (a figure the
load of a shared machine does not move, unlike CPU time).

Usage (from the repository root, valgrind installed, the corpus fetched):

    git archive a4d6733 | tar -x -C /tmp/speed/a4d6733        # each tree to measure
    .venv/bin/python bench/instructions.py --files-of /tmp/speed/a4d6733 > /tmp/speed/files.txt
    .venv/bin/python bench/instructions.py --files /tmp/speed/files.txt /tmp/speed/a4d6733 .

`--files-of TREE` prints the files that tree analyses for `stagelint check official/modeling`
(in tf-models-official: a4d6733 analyses 27), each with the optional frameworks `check` leaves out
of its analysis there (`screen.framework_reach`: `jax` for all 27, no file of tf-models-official
reaching JAX), after a tab. Then, for each tree, one process under `valgrind --tool=cachegrind`
runs `stagelint.pipeline.perfile.analyze_source` over those files as a worker does (the collector
off, what is imported frozen, one collection after each file; passing each file's absent
frameworks, as `check` does, so a JAX-only step is not counted on files `check` runs it on for
nothing), and once more with the imports only: the counts, their difference (the analysis alone)
and each one's ratio to the first tree are printed. A list of paths alone (made before session
21) counts every file with JAX in reach, as the script did until then: that is what a project
importing JAX costs, not what `check` spends on these files.
"""

from __future__ import annotations

import argparse
import glob
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "bench" / ".corpus" / "tf_models"

LIST = r"""
import stagelint.pipeline.perfile as P
seen, analyse = [], P.analyze_source
def listed(path, source, *a, **k):
    seen.append("\t".join([path, *sorted(k.get("absent", a[2] if len(a) > 2 else ()))]))
    return analyse(path, source, *a, **k)
P.analyze_source = listed
from stagelint.engine import check_paths
check_paths(["official/modeling"], jobs=0)
print("\n".join(seen))
"""

ANALYSE = r"""
import gc, sys
gc.disable()
from stagelint.pipeline.perfile import analyze_source
from stagelint.config import Settings
import stagelint.rules
files = [line.rstrip("\n").split("\t") for line in open(sys.argv[1]) if line.strip()]
settings = Settings()
gc.collect(); gc.freeze()
if sys.argv[2] == "analyse":
    for path, *absent in files:
        with open(path, "rb") as fh:
            facts = analyze_source(path, fh.read(), settings, frozenset({"official", "orbit"}), frozenset(absent))
        del facts
        gc.collect()
"""


def count(tree: str, files: str, mode: str) -> int:
    with tempfile.TemporaryDirectory() as out:
        subprocess.run(["valgrind", "--tool=cachegrind", "--cache-sim=no", f"--cachegrind-out-file={out}/cg.%p",
                        sys.executable, "-B", "-c", ANALYSE, files, mode],
                       cwd=CORPUS, env=dict(os.environ, PYTHONPATH=tree), check=True, capture_output=True)
        return sum(int(line.split()[1]) for name in glob.glob(f"{out}/cg.*")
                   for line in open(name) if line.startswith("summary:"))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--files-of", metavar="TREE")
    ap.add_argument("--files", metavar="LIST")
    ap.add_argument("trees", nargs="*")
    args = ap.parse_args()
    if args.files_of:
        return subprocess.run([sys.executable, "-c", LIST], cwd=CORPUS,
                              env=dict(os.environ, PYTHONPATH=os.path.abspath(args.files_of))).returncode
    files = os.path.abspath(args.files)
    first = None
    for tree in args.trees:
        whole, imports = count(os.path.abspath(tree), files, "analyse"), count(os.path.abspath(tree), files, "imports")
        first = first or (whole, whole - imports)
        print(f"{tree}: {whole / 1e9:.3f}e9 ({whole / first[0]:.3f}x), imports {imports / 1e9:.3f}e9, "
              f"analysis {(whole - imports) / 1e9:.3f}e9 ({(whole - imports) / first[1]:.3f}x)", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
