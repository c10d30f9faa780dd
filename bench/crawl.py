"""Crawl a whole tree of real code (by default this environment's site-packages, TensorFlow's
own Python code included) with `stagelint check`, and count internal errors.

    python bench/crawl.py [ROOT] [--jobs N]

Prints files, findings, skipped files with their reasons, internal errors and the wall time.
Exits 1 if there was any internal error.
"""

from __future__ import annotations

import argparse
import collections
import sysconfig
import time

from stagelint.config import Settings
from stagelint.engine import check_paths


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("root", nargs="?", default=sysconfig.get_paths()["purelib"])
    parser.add_argument("--jobs", type=int, default=None)
    args = parser.parse_args()
    start = time.perf_counter()
    # site-packages is skipped when met inside a walk, but walked when it is the path given.
    result = check_paths([args.root], Settings(), jobs=args.jobs, follow_imports=False)
    elapsed = time.perf_counter() - start
    by_code = collections.Counter(f.code for f in result.findings)
    print(f"root: {args.root}")
    print(f"files checked: {result.files_checked}")
    print(f"findings: {len(result.findings)} " + " ".join(f"{c}={n}" for c, n in sorted(by_code.items())))
    print(f"skipped: {len(result.skipped)}")
    for path, reason in result.skipped[:20]:
        print(f"  {path}: {reason}")
    print(f"internal errors: {len(result.errors)}")
    for path, where, tb in result.errors[:20]:
        print(f"  {where} on {path}:\n{tb}")
    print(f"wall time: {elapsed:.1f} s")
    return 1 if result.errors else 0


if __name__ == "__main__":
    raise SystemExit(main())
