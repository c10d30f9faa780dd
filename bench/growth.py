"""Does `stagelint check` grow linearly with the size of a file? Generated modules, N functions.

Usage (from the repository root):

    .venv/bin/python bench/growth.py [--sizes 1000 4000 8000 20000] [--profile N]

For each N it writes one module with N staged functions (`@tf.function`, a loop, a Python
side effect, a call of the previous function, a method of a class every 50 functions) and
times `stagelint check --no-cache --jobs 1 --output-format json` on it (budgets lifted) (wall and CPU time of
the process tree, best of `--repeat`). It prints the time per function and its ratio to the
smallest size's, and exits 1 when a ratio is above 2x (the target: linear growth).
`--profile N` runs the analysis of the N-function module in this process under cProfile and
prints the 25 most expensive functions, to find what grows faster than the file.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TARGET = 2.0

FUNCTION = '''
@tf.function
def step_{i}(x, n=3):
    total = tf.constant(0.0)
    for j in range(n):
        total += x * j
    print("step {i}", x)
    return {call}
'''

METHOD_CLASS = '''
class Block{i}(tf.keras.layers.Layer):
    def build(self, shape):
        self.scale = self.add_weight(name="scale_{i}", shape=())

    @tf.function
    def call(self, x):
        self.calls = x
        return step_{i}(x) * self.scale
'''


def module(n: int) -> str:
    parts = ["import tensorflow as tf\n"]
    for i in range(n):
        call = f"step_{i - 1}(total)" if i else "total"
        parts.append(FUNCTION.format(i=i, call=call))
        if i % 50 == 49:
            parts.append(METHOD_CLASS.format(i=i))
    return "".join(parts)


def _timed(cmd, cwd, env):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, proc


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 4000, 8000, 20000])
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--profile", type=int, metavar="N")
    args = parser.parse_args()
    if args.profile:
        return _profile(args.profile)
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    rows = []
    with tempfile.TemporaryDirectory(prefix="stagelint-growth-") as tmp:
        # The analysis is what is measured: no per-file budget cuts it short here.
        Path(tmp, "pyproject.toml").write_text("[tool.stagelint]\nfile-timeout = 7200\nmax-file-size = 100000000\n")
        for n in args.sizes:
            path = Path(tmp) / f"gen_{n}.py"
            path.write_text(module(n))
            cmd = [sys.executable, "-m", "stagelint", "check", "--no-cache", "--jobs", "1", "--output-format",
                   "json", path.name]
            best = None
            for _ in range(args.repeat):
                wall, cpu, proc = _timed(cmd, tmp, env)
                if best is None or cpu < best[1]:
                    best = (wall, cpu, proc)
            wall, cpu, proc = best
            try:
                findings = len(json.loads(proc.stdout)) if proc.stdout.strip() else 0
            except (ValueError, KeyError, TypeError):
                findings = "?"
            skipped = [line for line in proc.stderr.splitlines() if "skipped" in line or "error" in line]
            rows.append((n, path.stat().st_size, wall, cpu, findings, skipped))
            print(f"{n:6d} functions {path.stat().st_size / 1e6:6.2f} MB  wall {wall:7.2f} s  CPU {cpu:7.2f} s  "
                  f"{cpu / n * 1e3:6.2f} ms/function  findings {findings}" + (f"  {skipped[0]}" if skipped else ""),
                  flush=True)
    base = rows[0][3] / rows[0][0]
    worst = 0.0
    print(f"\nCPU per function, relative to {rows[0][0]} functions (target: within {TARGET:.0f}x):")
    for n, _, _, cpu, _, skipped in rows:
        ratio = (cpu / n) / base
        worst = max(worst, ratio)
        print(f"  {n:6d}: {ratio:5.2f}x" + ("  (skipped: not a measure of the analysis)" if skipped else ""))
    met = worst <= TARGET and not any(r[5] for r in rows)
    print(f"target {'met' if met else 'NOT MET'}")
    return 0 if met else 1


def _profile(n: int) -> int:
    import cProfile
    import pstats

    sys.path.insert(0, str(ROOT))
    from stagelint.config import Settings
    from stagelint.engine import check_source

    source = module(n)
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 20000))
    profiler = cProfile.Profile()
    profiler.enable()
    findings = check_source(source, settings=Settings())
    profiler.disable()
    print(f"{n} functions: {len(findings)} findings")
    pstats.Stats(profiler).sort_stats("tottime").print_stats(25)
    return 0


if __name__ == "__main__":
    sys.exit(main())
