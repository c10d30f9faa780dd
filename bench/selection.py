"""What the screen and the demand rounds leave out, and whether it changes a finding.

Usage (from the repository root, after `.venv/bin/python bench/corpus.py`):

    .venv/bin/python bench/selection.py [--projects tf_models,tfa] [--jobs 2]

For each project of the pinned corpus it runs the check twice in this process, without the
result cache: as `stagelint check` does (the screen, then the rounds of `stagelint.pipeline.demand`), and
with every file analysed (`check_paths(..., screen=False)`). It prints how many files each
analysed, the wall times, and every finding one reports and the other does not; it exits 1 if
any differs.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from corpus import PROJECTS, corpus  # noqa: E402


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--projects", default=",".join(p[2] for p in PROJECTS))
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args(argv)

    from stagelint.pipeline import workers
    from stagelint.config import load_settings
    from stagelint.engine import check_paths

    analysed: list[str] = []
    original = workers.Pool.analyse

    def counting(self, paths, *a, **k):
        for outcome in original(self, paths, *a, **k):
            analysed.append(outcome.path)
            yield outcome

    workers.Pool.analyse = counting
    names = args.projects.split(",")
    chosen = [p[2] for p in PROJECTS if p[2] in names]
    folders = dict(zip(chosen, corpus(tuple(chosen))))
    names = chosen
    status = 0
    print(f"{'project':10} {'files':>6} {'analysed':>14} {'screened s':>11} {'all s':>7} {'findings':>9}  differences")
    here = os.getcwd()
    for name in names:
        os.chdir(folders[name])
        try:
            settings = load_settings(".")
            runs = {}
            for screen in (True, False):
                analysed.clear()
                start = time.perf_counter()
                result = check_paths(["."], settings, jobs=args.jobs, screen=screen)
                runs[screen] = (time.perf_counter() - start, len(analysed), result)
        finally:
            os.chdir(here)
        (t_on, n_on, on), (t_off, n_off, off) = runs[True], runs[False]

        def keys(r):
            return {(f.path, f.line, f.column, f.code, f.message) for f in r.findings}

        missing, extra = sorted(keys(off) - keys(on)), sorted(keys(on) - keys(off))
        share = f"{n_on} ({100 * n_on / max(n_off, 1):.0f}%)"
        print(f"{name:10} {n_off:6} {share:>14} {t_on:11.1f} {t_off:7.1f} {len(on.findings):9}  "
              f"{len(missing)} missing, {len(extra)} extra")
        for f in missing:
            print(f"    missing: {f[0]}:{f[1]}:{f[2]} {f[3]} {f[4][:120]}")
        for f in extra:
            print(f"    extra:   {f[0]}:{f[1]}:{f[2]} {f[3]} {f[4][:120]}")
        status |= bool(missing or extra)
    return status


if __name__ == "__main__":
    sys.exit(main())
