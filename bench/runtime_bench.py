"""Wall time of `stagelint run MODULE` against plain `pytest MODULE`, and the ratio.

    python bench/runtime_bench.py [--module bench/fixtures/model_tests.py] [--repeat 3]

Both commands run as fresh processes from the repository root, alternating, after one warm-up of
each (the first TensorFlow import of a session reads ~1 GB of shared libraries from disk). The
medians are printed with the ratio; the target is stagelint run <= 1.6x plain pytest. stagelint run
starts its graph and eager runs in parallel, so it needs two free cores to meet it.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
TARGET = 1.6


def timed(cmd: list[str]) -> tuple[float, subprocess.CompletedProcess]:
    env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "2"}
    start = time.perf_counter()
    proc = subprocess.run(cmd, cwd=REPO, env=env, capture_output=True, text=True)
    return time.perf_counter() - start, proc


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--module", default="bench/fixtures/model_tests.py")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    plain_cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", args.module]
    run_cmd = [sys.executable, "-m", "stagelint", "run", args.module, "--output-format", "json"]
    timed(plain_cmd)
    timed(run_cmd)
    plain, run, children = [], [], []
    for i in range(args.repeat):
        t, proc = timed(plain_cmd)
        if proc.returncode != 0:
            print(proc.stdout[-2000:], proc.stderr[-2000:], file=sys.stderr)
            return 2
        plain.append(t)
        t, proc = timed(run_cmd)
        if proc.returncode not in (0, 1):
            print(proc.stdout[-2000:], proc.stderr[-2000:], file=sys.stderr)
            return 2
        run.append(t)
        report = json.loads(proc.stdout)
        children.append({mode: r["seconds"] for mode, r in report["runs"].items()})
        print(f"  #{i + 1}: pytest {plain[-1]:.2f} s, stagelint run {run[-1]:.2f} s "
              f"(graph run {children[-1]['graph']:.2f} s, eager run {children[-1]['eager']:.2f} s)")
    p, r = statistics.median(plain), statistics.median(run)
    tests = report["tests"]
    print(f"module: {args.module} ({tests['passed']} tests passed, {len(report['functions'])} staged functions "
          f"of the project, {sum(f['calls'] for f in report['functions'])} project calls)")
    print(f"cores: {os.cpu_count()}, python {sys.version.split()[0]}")
    print(f"plain pytest:   {p:.2f} s (median of {args.repeat})")
    print(f"stagelint run:  {r:.2f} s (median of {args.repeat})")
    print(f"ratio:          {r / p:.2f}x (target <= {TARGET}x)")
    return 0 if r / p <= TARGET else 1


if __name__ == "__main__":
    sys.exit(main())
