"""How fast `stagelint check` is at repository scale, next to flake8 and a parse floor.

Usage (from the repository root, after `.venv/bin/python bench/corpus.py`):

    .venv/bin/python bench/speed.py [--corpus bench/.corpus/tf_models] [--repeat 3] [--jobs 1 2]

In one run, on the same files and the same machine, alternating, it times:

* `stagelint check --output-format json --jobs N CORPUS`: cold (the result cache of this
  stagelint removed first; the run fills it), warm (the cache filled), and warm after one
  staged file was edited (a comment appended, then taken out again);
* flake8 with its default plugins (pycodestyle, pyflakes, mccabe), `--jobs N`, on the same
  folder. flake8 loads every installed plugin whatever `--select` says, and stagelint's plugin
  would run the whole stagelint check in flake8's main process: flake8 is run here through a
  wrapper that leaves the stagelint distribution out of plugin discovery (`flake8 --version`
  through it is printed, to show which plugins ran);
* a floor: one process reading every file and running `ast.parse` on it.

Each figure is the median of `--repeat` runs (wall time; CPU time of the whole process tree;
peak resident memory of its largest process, from `wait4`). The stagelint code measured is a
copy of the committed package (`git archive HEAD`; `--working-tree` for the checkout's files)
taken when the script starts: other work in the checkout cannot change it mid-run, nor the
cache fingerprint. The script checks that every stagelint run printed the
same findings, and exits 1 if they differ or a target is missed:

* stagelint cold at most 0.5x flake8's wall time at the same --jobs;
* stagelint warm at most 0.1x.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TARGET_COLD, TARGET_WARM = 0.5, 0.1

FLAKE8_WITHOUT_STAGELINT = r"""
import sys
import flake8.plugins.finder as finder

_find = finder._find_importlib_plugins


def _without_stagelint():
    # By the module the entry point names, not the distribution (renamed tf-stagelint).
    return (p for p in _find() if not p.entry_point.value.startswith("stagelint."))


finder._find_importlib_plugins = _without_stagelint
from flake8.main.cli import main

sys.exit(main(sys.argv[1:]))
"""

FLOOR = r"""
import ast, sys, time
files = [line.rstrip("\n") for line in open(sys.argv[1])]
start = time.perf_counter()
lines = 0
for path in files:
    with open(path, "rb") as fh:
        data = fh.read()
    lines += data.count(b"\n")
    try:
        ast.parse(data)
    except (SyntaxError, ValueError):
        pass
print(time.perf_counter() - start, lines)
"""

LIST_FILES = r"""
import sys
from stagelint.config import load_settings
from stagelint.discovery import discover
from stagelint.cache import open_cache
settings = load_settings(sys.argv[1])
files, _ = discover([sys.argv[1]], settings)
print(open_cache([sys.argv[1]]).dir)
print("\n".join(files))
"""


class Run:
    def __init__(self, wall, cpu, maxrss_kb, stdout, status):
        self.wall, self.cpu, self.maxrss_kb, self.stdout, self.status = wall, cpu, maxrss_kb, stdout, status


def run(cmd, env, cwd) -> Run:
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=out, stderr=err, env=env, cwd=cwd)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read(), err.read()
    if proc.returncode not in (0, 1):
        sys.exit(f"{' '.join(map(str, cmd))} exited {proc.returncode}:\n{stderr.decode(errors='replace')[-3000:]}")
    return Run(wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss, stdout, proc.returncode)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", default="bench/.corpus/tf_models")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--jobs", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--working-tree", action="store_true",
                        help="measure the stagelint/ of the working tree (default: the committed one, HEAD)")
    args = parser.parse_args(argv)
    # A stopped run still puts the edited corpus file back and removes its folder.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))

    corpus = Path(args.corpus).resolve()
    if not corpus.is_dir():
        sys.exit(f"{args.corpus}: no such folder; run `.venv/bin/python bench/corpus.py` first")
    python = sys.executable
    work = Path(tempfile.mkdtemp(prefix="stagelint-speed-"))
    try:
        return _measure(args, corpus, python, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _measure(args, corpus: Path, python: str, work: Path) -> int:
    snapshot = work / "code"
    if args.working_tree:
        shutil.copytree(ROOT / "stagelint", snapshot / "stagelint", ignore=shutil.ignore_patterns("__pycache__"))
        commit = subprocess.run(["git", "-C", str(ROOT), "describe", "--always", "--dirty"], capture_output=True,
                                text=True).stdout.strip() + " (working tree)"
    else:
        snapshot.mkdir()
        archive = subprocess.run(["git", "-C", str(ROOT), "archive", "HEAD", "stagelint"], capture_output=True, check=True)
        subprocess.run(["tar", "-x", "-C", str(snapshot)], input=archive.stdout, check=True)
        commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True,
                                text=True).stdout.strip()
    # The result cache in the run's own folder, wherever the corpus's project root is.
    env = dict(os.environ, PYTHONPATH=str(snapshot), PYTHONDONTWRITEBYTECODE="1",
               STAGELINT_CACHE_DIR=str(work / "stagelint-cache"))
    wrapper = work / "flake8_without_stagelint.py"
    wrapper.write_text(FLAKE8_WITHOUT_STAGELINT)
    # Not the repository root: `python -m` puts the working directory first on sys.path, and
    # the checkout's own stagelint/ would shadow the copy.
    cwd = work
    imported = subprocess.run([python, "-c", "import stagelint; print(stagelint.__file__)"], env=env, cwd=cwd,
                              capture_output=True, text=True, check=True).stdout.strip()
    if not imported.startswith(str(snapshot)):
        sys.exit(f"the copy of stagelint is not the one imported ({imported})")

    listing = subprocess.run([python, "-c", LIST_FILES, str(corpus)], env=env, cwd=cwd, capture_output=True,
                             text=True, check=True).stdout.splitlines()
    cache_dir, files = Path(listing[0]), listing[1:]
    file_list = work / "files.txt"
    file_list.write_text("\n".join(files) + "\n")
    edited = next(f for f in files if "@tf.function" in Path(f).read_text(errors="replace"))
    original = Path(edited).read_bytes()

    versions = " ".join(run([python, str(wrapper), "--version"], env, cwd).stdout.decode().split())
    f8_count = run([python, str(wrapper), "--benchmark", "--select", "E999", str(corpus)], env, cwd).stdout.decode()
    f8_files = next((line.split()[0] for line in f8_count.splitlines() if "total files processed" in line), "?")
    print(f"corpus: {corpus} ({len(files)} files for stagelint, {f8_files} for flake8)")
    print(f"stagelint: {commit} (a copy of the package taken at the start); cache: {cache_dir}")
    print(f"flake8 (stagelint's plugin left out): {versions}")
    print(f"machine: {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f} at start; "
          f"{args.repeat} repetitions, medians\n")

    results: dict[str, list[Run]] = {}
    outputs: dict[str, set[bytes]] = {}

    def record(name, r, stagelint=False):
        results.setdefault(name, []).append(r)
        if stagelint:
            outputs.setdefault(name, set()).add(r.stdout)

    floor_runs = []
    for rep in range(args.repeat):
        for jobs in args.jobs:
            check = [python, "-m", "stagelint", "check", "--output-format", "json", "--jobs", str(jobs), str(corpus)]
            shutil.rmtree(cache_dir, ignore_errors=True)
            record(f"stagelint cold, --jobs {jobs}", run(check, env, cwd), True)
            record(f"stagelint warm, --jobs {jobs}", run(check, env, cwd), True)
            try:
                Path(edited).write_bytes(original + f"\n# edited by bench/speed.py ({rep}, {jobs}, {time.time()})\n".encode())
                record(f"stagelint warm, one file edited, --jobs {jobs}", run(check, env, cwd), True)
            finally:
                Path(edited).write_bytes(original)
            record(f"flake8, --jobs {jobs}", run([python, str(wrapper), "--jobs", str(jobs), str(corpus)], env, cwd))
        out = subprocess.run([python, "-c", FLOOR, str(file_list)], capture_output=True, text=True, check=True)
        seconds, lines = out.stdout.split()
        floor_runs.append(float(seconds))

    print(f"{'':48} {'wall s':>8} {'(min-max)':>14} {'CPU s':>7} {'peak MB':>8}")
    for name, runs in results.items():
        walls = [r.wall for r in runs]
        print(f"{name:48} {statistics.median(walls):8.2f} {min(walls):6.2f}-{max(walls):<7.2f} "
              f"{statistics.median(r.cpu for r in runs):7.2f} {max(r.maxrss_kb for r in runs) / 1024:8.0f}")
    floor = statistics.median(floor_runs)
    print(f"{'floor: read + ast.parse every file, 1 process':48} {floor:8.2f} {min(floor_runs):6.2f}-{max(floor_runs):<7.2f}"
          f"   ({int(lines):,} lines)")

    def med(name):
        return statistics.median(r.wall for r in results[name])

    status = 0
    print("\nratios (stagelint / flake8 at the same --jobs; target):")
    for jobs in args.jobs:
        f8 = med(f"flake8, --jobs {jobs}")
        for kind, target in (("cold", TARGET_COLD), ("warm", TARGET_WARM), ("warm, one file edited", None)):
            ratio = med(f"stagelint {kind}, --jobs {jobs}") / f8
            verdict = "" if target is None else (f"  target {target}x: " + ("met" if ratio <= target else "NOT MET"))
            if target is not None and ratio > target:
                status = 1
            print(f"  {kind + ', --jobs ' + str(jobs):36} {ratio:6.2f}x{verdict}")
        print(f"  {'floor / flake8 --jobs ' + str(jobs):36} {floor / f8:6.2f}x")

    distinct = set().union(*outputs.values())
    findings = json.loads(next(iter(distinct)))
    if len(distinct) == 1:
        print(f"\nfindings: identical in all {sum(len(r) for n, r in results.items() if n.startswith('stagelint'))} "
              f"stagelint runs (cold, warm, warm after an edit; --jobs {', '.join(map(str, args.jobs))}): "
              f"{len(findings)} findings")
    else:
        status = 1
        print("\nfindings: DIFFER between runs:")
        for name, outs in outputs.items():
            print(f"  {name}: {len(outs)} distinct output(s), {[len(json.loads(o)) for o in outs]} findings")
    return status


if __name__ == "__main__":
    sys.exit(main())
