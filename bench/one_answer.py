"""One answer per file, on real code: a file checked alone gets what `check .` gives it.

Usage (from the repository root, after `.venv/bin/python bench/corpus.py`):

    .venv/bin/python bench/one_answer.py [--project tfa] [--sample 12] [--stdin 3] [--seed 0]

The project of the pinned corpus is copied to a temporary folder with a `setup.cfg` marking
its root (the corpus folders sit inside this repository, whose root would otherwise be the
project). There it runs `stagelint check .` once (through `engine.check_paths`, as the
command line calls it, with a result cache), then `stagelint check FILE` for a sample of the
project's files (half of them files with findings, as many as there are, the rest drawn at
random), and `flake8 --select STG` on standard input for the first few of them, as on disk and
edited (a comment appended, as an editor sends the buffer after a keystroke). Every file's
findings (place, code, message, entry point) must equal those `check .` gave it; it prints
each difference and exits 1 if there is any.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from corpus import corpus  # noqa: E402


def keys(findings) -> set[tuple]:
    return {(f.line, f.column, f.end_line, f.end_column, f.code, f.message, f.entry_point) for f in findings}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--project", default="tfa")
    parser.add_argument("--sample", type=int, default=12)
    parser.add_argument("--stdin", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)

    from stagelint.pipeline.cache import Cache
    from stagelint.config import load_settings
    from stagelint.engine import check_paths

    source = corpus((args.project,))[0]
    status = 0
    here = os.getcwd()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / args.project
        shutil.copytree(source, root, ignore=shutil.ignore_patterns(".stagelint_cache", ".complete"))
        (root / "setup.cfg").write_text("# the project root\n")
        os.chdir(root)
        try:
            settings = load_settings(".")
            cache = Cache(Path(tmp) / "cache")
            start = time.perf_counter()
            whole = check_paths(["."], settings, cache=cache)
            t_whole = time.perf_counter() - start
            by_file: dict[str, list] = {}
            for f in whole.findings:
                by_file.setdefault(f.path, []).append(f)
            files = sorted(p.relative_to(root).as_posix() for p in root.rglob("*.py"))
            rng = random.Random(args.seed)
            with_findings = sorted(by_file)[: args.sample // 2]
            rest = [f for f in files if f not in with_findings]
            sample = with_findings + rng.sample(rest, min(len(rest), args.sample - len(with_findings)))
            print(f"{args.project}: {len(files)} files, {len(whole.findings)} findings in {len(by_file)} files "
                  f"(check . {t_whole:.1f} s); checking {len(sample)} files alone")
            times = []
            for path in sample:
                start = time.perf_counter()
                alone = check_paths([path], settings, cache=Cache(Path(tmp) / "cache"), whole_project=True)
                times.append(time.perf_counter() - start)
                got, want = keys(alone.findings), keys(by_file.get(path, []))
                mark = "same" if got == want else "DIFFERENT"
                print(f"  check FILE  {path}: {len(want)} findings, {mark} ({times[-1]:.1f} s)")
                for k in sorted(want - got):
                    print(f"      missing: {k}")
                for k in sorted(got - want):
                    print(f"      extra:   {k}")
                status |= got != want
            for path in sample[: args.stdin]:
                want = {(str(f.line), str(f.column), f.code) for f in by_file.get(path, [])}
                # The buffer as on disk, then edited as an editor sends it after a keystroke (a
                # comment appended: the findings stay those of `check .`; the project's facts and
                # the plan of the rounds come from the cache the first run filled).
                text = (root / path).read_text()
                for label, buffer in (("", text), (" (edited)", text + "\n# edited in an editor\n")):
                    start = time.perf_counter()
                    proc = subprocess.run(
                        [sys.executable, "-m", "flake8", "--select", "STG", "--stdin-display-name", path, "-"],
                        input=buffer, capture_output=True, text=True, timeout=1800)
                    took = time.perf_counter() - start
                    got = {tuple(line.split(":", 3)[1:3]) + (line.split(": ", 1)[1].split(" ", 1)[0],)
                           for line in proc.stdout.splitlines() if ": STG" in line}
                    mark = "same" if got == want else "DIFFERENT"
                    print(f"  flake8 -{label}    {path}: {len(want)} findings, {mark} ({took:.1f} s)")
                    status |= got != want
        finally:
            os.chdir(here)
    print("every file got the findings of check ." if status == 0 else "some files got other findings")
    return status


if __name__ == "__main__":
    raise SystemExit(main())
