"""Does `stagelint check` grow linearly with the size of a file? Generated modules of N units.

Usage (from the repository root):

    .venv/bin/python bench/growth.py [--shape functions] [--sizes 1000 4000 8000 20000] [--profile N]

`--shape` says what N counts (each shape is one generated module):

* `functions` (the default): N staged functions (`@tf.function`, a loop, a Python side effect,
  a call of the previous function, a method of a class every 50 functions);
* `statements`: one staged function of N `print` statements (before the fix: 4 / 12.5 / 52 s of CPU at
  2,000 / 4,000 / 8,000 before);
* `elif`: one staged function holding an `if`/`elif` chain N branches long;
* `rebinds`: one staged function that binds one name N times (`y = y + 1`).

For each N it times `stagelint check --no-cache --jobs 1 --output-format json` on the module
(budgets lifted) (wall and CPU time of the process tree, best of `--repeat`). It prints the
time per unit and its ratio to the smallest size's, and exits 1 when a ratio is above 2x (the
target: linear growth). `--profile N` runs the analysis of the N-unit module in this process
under cProfile and prints the 25 most expensive functions, to find what grows faster than the
file.
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


STAGED = "import tensorflow as tf\n\n\n@tf.function\ndef step(x):\n"


def statements(n: int) -> str:
    return STAGED + "".join(f"    print('line {i}', x)\n" for i in range(n)) + "    return x\n"


def elif_chain(n: int) -> str:
    branches = "".join(f"    elif x == {i}:\n        y = {i}\n" for i in range(1, n))
    return STAGED + "    if x == 0:\n        y = 0\n" + branches + "    else:\n        y = -1\n    return y\n"


def rebinds(n: int) -> str:
    return STAGED + "    y = x\n" + "    y = y + 1\n" * n + "    return y\n"


#: --shape -> (the module of N units, what a unit is, default sizes)
SHAPES = {
    "functions": (module, "function", [1000, 4000, 8000, 20000]),
    "statements": (statements, "statement", [2000, 4000, 8000, 16000]),
    "elif": (elif_chain, "branch", [500, 1000, 2000, 4000]),
    "rebinds": (rebinds, "binding", [250, 500, 1000, 2000]),
}


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
    parser.add_argument("--shape", choices=sorted(SHAPES), default="functions")
    parser.add_argument("--sizes", type=int, nargs="+")
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--profile", type=int, metavar="N")
    args = parser.parse_args()
    make, unit, sizes = SHAPES[args.shape]
    if args.profile:
        return _profile(make, args.profile)
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    rows = []
    with tempfile.TemporaryDirectory(prefix="stagelint-growth-") as tmp:
        # The analysis is what is measured: no per-file budget cuts it short here.
        Path(tmp, "pyproject.toml").write_text("[tool.stagelint]\nfile-timeout = 7200\nmax-file-size = 100000000\n")
        for n in args.sizes or sizes:
            path = Path(tmp) / f"gen_{n}.py"
            path.write_text(make(n))
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
            print(f"{n:6d} {unit}s {path.stat().st_size / 1e6:6.2f} MB  wall {wall:7.2f} s  CPU {cpu:7.2f} s  "
                  f"{cpu / n * 1e3:6.2f} ms/{unit}  findings {findings}" + (f"  {skipped[0]}" if skipped else ""),
                  flush=True)
    base = rows[0][3] / rows[0][0]
    worst = 0.0
    print(f"\nCPU per {unit}, relative to {rows[0][0]} {unit}s (target: within {TARGET:.0f}x):")
    for n, _, _, cpu, _, skipped in rows:
        ratio = (cpu / n) / base
        worst = max(worst, ratio)
        print(f"  {n:6d}: {ratio:5.2f}x" + ("  (skipped: not a measure of the analysis)" if skipped else ""))
    met = worst <= TARGET and not any(r[5] for r in rows)
    print(f"target {'met' if met else 'NOT MET'}")
    return 0 if met else 1


def _profile(make, n: int) -> int:
    import cProfile
    import pstats

    sys.path.insert(0, str(ROOT))
    from stagelint.config import Settings
    from stagelint.engine import check_source

    source = make(n)
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 20000))
    profiler = cProfile.Profile()
    profiler.enable()
    findings = check_source(source, settings=Settings())
    profiler.disable()
    print(f"{n} units: {len(findings)} findings")
    pstats.Stats(profiler).sort_stats("tottime").print_stats(25)
    return 0


if __name__ == "__main__":
    sys.exit(main())
