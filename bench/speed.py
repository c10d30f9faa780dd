"""How fast `stagelint check` is at repository scale, next to flake8 and a parse floor.

Usage (from the repository root, after `.venv/bin/python bench/corpus.py`):

    .venv/bin/python bench/speed.py [--corpus bench/.corpus/tf_models] [--repeat 3] [--jobs 1 2]
        [--baseline REV] [--no-flake8]

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
cache fingerprint. Each copy is compiled to bytecode first, as an installed package is (pip
compiles a wheel's modules): otherwise every run would compile stagelint's own sources again
(0.05-0.1 s of CPU, more for a bigger package), which no user pays. The script checks that
every stagelint run printed the same findings, and exits 1 if they differ or a target is missed:

* stagelint cold at most 0.5x flake8's wall time at the same --jobs;
* stagelint warm at most 0.1x;
* with `--baseline REV` (issue 11, "no slower"): the stagelint/ of commit REV is measured too, in
  its own folder and cache, alternating with this one (the order swapped every repetition), and
  cold and warm must stay within 1.10x its CPU time (`--no-flake8` leaves flake8 and the floor
  out, to measure only the two).
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
#: Issue 11: no slower than the --baseline commit by more than this (CPU time).
TARGET_BASELINE = 1.10

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
try:
    from stagelint.pipeline import cache, discovery
except ImportError:  # a --baseline from before the pipeline's modules moved into stagelint/pipeline/
    from stagelint import cache, discovery
settings = load_settings(sys.argv[1])
files, _ = discovery.discover([sys.argv[1]], settings)
try:
    print(cache.open_cache([sys.argv[1]]).dir)
except AttributeError:  # a --baseline from before the cache moved to the project root
    print(cache.Cache(cache.cache_root(settings)).dir)
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
    parser.add_argument("--baseline", metavar="REV",
                        help="also measure the stagelint/ of this commit, alternating, and print the ratios "
                             "to it (issue 11: within 1.10x, cold and warm)")
    parser.add_argument("--no-flake8", action="store_true",
                        help="leave out flake8 and the parse floor (with --baseline: only the two stagelints)")
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


def _snapshot(rev: str | None, dest: Path, working_tree: bool) -> str:
    """A copy of stagelint/ at `rev` (HEAD by default; the checkout's files with
    `working_tree`) in `dest`; its short description."""
    if working_tree:
        shutil.copytree(ROOT / "stagelint", dest / "stagelint", ignore=shutil.ignore_patterns("__pycache__"))
        _compiled(dest)
        return subprocess.run(["git", "-C", str(ROOT), "describe", "--always", "--dirty"], capture_output=True,
                              text=True).stdout.strip() + " (working tree)"
    dest.mkdir(parents=True)
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", rev or "HEAD", "stagelint"], capture_output=True,
                             check=True)
    subprocess.run(["tar", "-x", "-C", str(dest)], input=archive.stdout, check=True)
    _compiled(dest)
    return subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", rev or "HEAD"], capture_output=True,
                          text=True).stdout.strip()


def _compiled(dest: Path) -> None:
    """The bytecode of every module of the copy, written beside it (`__pycache__`), as pip does
    when it installs a package: the runs read it (PYTHONDONTWRITEBYTECODE only stops writes)."""
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(dest / "stagelint")], check=True,
                   capture_output=True)


class Variant:
    """One stagelint measured: a copy of its package, its own working folder and cache."""

    def __init__(self, label: str, commit: str, snapshot: Path, cwd: Path, env: dict):
        self.label, self.commit, self.snapshot, self.cwd, self.env = label, commit, snapshot, cwd, env
        self.cache_dir: Path | None = None

    def name(self, kind: str) -> str:
        return f"{self.label}stagelint {kind}"


def _measure(args, corpus: Path, python: str, work: Path) -> int:
    variants = []
    for label, rev, working_tree in ([("base ", args.baseline, False)] if args.baseline else []) + [
            ("", None, args.working_tree)]:
        snapshot = work / ("base-code" if label else "code")
        commit = _snapshot(rev, snapshot, working_tree)
        # Not the repository root: `python -m` puts the working directory first on sys.path, and
        # the checkout's own stagelint/ would shadow the copy. A folder of its own per variant:
        # stagelint before the cache moved to the project root keeps it in the working folder.
        cwd = work / ("base-cwd" if label else "cwd")
        cwd.mkdir()
        # The result cache in the run's own folder, wherever the corpus's project root is.
        env = dict(os.environ, PYTHONPATH=str(snapshot), PYTHONDONTWRITEBYTECODE="1",
                   STAGELINT_CACHE_DIR=str(work / ("base-cache" if label else "stagelint-cache")))
        variants.append(Variant(label, commit, snapshot, cwd, env))
    current = variants[-1]
    env, cwd = current.env, current.cwd
    wrapper = work / "flake8_without_stagelint.py"
    wrapper.write_text(FLAKE8_WITHOUT_STAGELINT)
    for v in variants:
        imported = subprocess.run([python, "-c", "import stagelint; print(stagelint.__file__)"], env=v.env,
                                  cwd=v.cwd, capture_output=True, text=True, check=True).stdout.strip()
        if not imported.startswith(str(v.snapshot)):
            sys.exit(f"the copy of stagelint is not the one imported ({imported})")
        listing = subprocess.run([python, "-c", LIST_FILES, str(corpus)], env=v.env, cwd=v.cwd,
                                 capture_output=True, text=True, check=True).stdout.splitlines()
        v.cache_dir, files = Path(listing[0]), listing[1:]
    file_list = work / "files.txt"
    file_list.write_text("\n".join(files) + "\n")
    edited = next(f for f in files if "@tf.function" in Path(f).read_text(errors="replace"))
    original = Path(edited).read_bytes()

    versions = " ".join(run([python, str(wrapper), "--version"], env, cwd).stdout.decode().split())
    f8_files = "(not run)"
    if not args.no_flake8:
        f8_count = run([python, str(wrapper), "--benchmark", "--select", "E999", str(corpus)], env, cwd).stdout.decode()
        f8_files = next((line.split()[0] for line in f8_count.splitlines() if "total files processed" in line), "?")
    print(f"corpus: {corpus} ({len(files)} files for stagelint, {f8_files} for flake8)")
    for v in variants:
        print(f"{v.label or 'stagelint: '}{'stagelint: ' if v.label else ''}{v.commit} "
              f"(a copy of the package taken at the start); cache: {v.cache_dir}")
    print(f"flake8 (stagelint's plugin left out): {versions}")
    print(f"machine: {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f} at start; "
          f"{args.repeat} repetitions, medians\n")

    results: dict[str, list[Run]] = {}
    outputs: dict[str, dict[str, set[bytes]]] = {v.label: {} for v in variants}

    def record(name, r, variant=None):
        results.setdefault(name, []).append(r)
        if variant is not None:
            outputs[variant.label].setdefault(name, set()).add(r.stdout)

    floor_runs = []
    lines = "0"
    for rep in range(args.repeat):
        for jobs in args.jobs:
            # Alternating, and the order swapped every repetition: neither variant always runs
            # first after flake8 or on a machine whose load just changed.
            order = variants if rep % 2 == 0 else variants[::-1]
            for v in order:
                check = [python, "-m", "stagelint", "check", "--output-format", "json", "--jobs", str(jobs),
                         str(corpus)]
                shutil.rmtree(v.cache_dir, ignore_errors=True)
                record(v.name(f"cold, --jobs {jobs}"), run(check, v.env, v.cwd), v)
                record(v.name(f"warm, --jobs {jobs}"), run(check, v.env, v.cwd), v)
                try:
                    Path(edited).write_bytes(
                        original + f"\n# edited by bench/speed.py ({rep}, {jobs}, {time.time()})\n".encode())
                    record(v.name(f"warm, one file edited, --jobs {jobs}"), run(check, v.env, v.cwd), v)
                finally:
                    Path(edited).write_bytes(original)
            if not args.no_flake8:
                record(f"flake8, --jobs {jobs}", run([python, str(wrapper), "--jobs", str(jobs), str(corpus)], env, cwd))
        if not args.no_flake8:
            out = subprocess.run([python, "-c", FLOOR, str(file_list)], capture_output=True, text=True, check=True)
            seconds, lines = out.stdout.split()
            floor_runs.append(float(seconds))

    print(f"{'':54} {'wall s':>8} {'(min-max)':>14} {'CPU s':>7} {'peak MB':>8}")
    for name, runs in results.items():
        walls = [r.wall for r in runs]
        print(f"{name:54} {statistics.median(walls):8.2f} {min(walls):6.2f}-{max(walls):<7.2f} "
              f"{statistics.median(r.cpu for r in runs):7.2f} {max(r.maxrss_kb for r in runs) / 1024:8.0f}")
    if floor_runs:
        floor = statistics.median(floor_runs)
        print(f"{'floor: read + ast.parse every file, 1 process':54} {floor:8.2f} "
              f"{min(floor_runs):6.2f}-{max(floor_runs):<7.2f}   ({int(lines):,} lines)")

    def med(name, cpu=False):
        return statistics.median((r.cpu if cpu else r.wall) for r in results[name])

    status = 0
    if not args.no_flake8:
        print("\nratios (stagelint / flake8 at the same --jobs; target):")
        for jobs in args.jobs:
            f8 = med(f"flake8, --jobs {jobs}")
            for kind, target in (("cold", TARGET_COLD), ("warm", TARGET_WARM), ("warm, one file edited", None)):
                ratio = med(current.name(f"{kind}, --jobs {jobs}")) / f8
                verdict = "" if target is None else (f"  target {target}x: " + ("met" if ratio <= target else "NOT MET"))
                if target is not None and ratio > target:
                    status = 1
                print(f"  {kind + ', --jobs ' + str(jobs):36} {ratio:6.2f}x{verdict}")
            print(f"  {'floor / flake8 --jobs ' + str(jobs):36} {floor / f8:6.2f}x")
    if args.baseline:
        base = variants[0]
        print(f"\nratios to the baseline {base.commit}, measured in this run (issue 11: within "
              f"{TARGET_BASELINE:.2f}x; CPU time of the process tree, wall in brackets):")
        for jobs in args.jobs:
            for kind, target in (("cold", TARGET_BASELINE), ("warm", TARGET_BASELINE),
                                 ("warm, one file edited", None)):
                name = f"{kind}, --jobs {jobs}"
                cpu = med(current.name(name), True) / med(base.name(name), True)
                wall = med(current.name(name)) / med(base.name(name))
                verdict = "" if target is None else (f"  target {target:.2f}x: " + ("met" if cpu <= target else "NOT MET"))
                if target is not None and cpu > target:
                    status = 1
                print(f"  {name:36} {cpu:6.2f}x ({wall:.2f}x){verdict}")

    for v in variants:
        distinct = set().union(*outputs[v.label].values())
        findings = json.loads(next(iter(distinct)))
        runs = sum(len(r) for r in outputs[v.label].values())
        who = f"{v.label}stagelint {v.commit}"
        if len(distinct) == 1:
            print(f"\nfindings of {who}: identical in all {runs} runs (cold, warm, warm after an edit; "
                  f"--jobs {', '.join(map(str, args.jobs))}): {len(findings)} findings")
        else:
            status = 1
            print(f"\nfindings of {who}: DIFFER between runs:")
            for name, outs in outputs[v.label].items():
                print(f"  {name}: {len(outs)} distinct output(s), {[len(json.loads(o)) for o in outs]} findings")
    return status


if __name__ == "__main__":
    sys.exit(main())
