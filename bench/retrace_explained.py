"""Traces explained / traces recorded by `stagelint run` on the runtime fixtures (issue 25).

    python bench/retrace_explained.py [FIXTURE.py ...] [--timeout SECONDS]

Runs `stagelint run FIXTURE --output-format json` on each fixture module (default: every
tests/runtime/fixtures/fx_*.py), one after the other, and counts over the project's staged
functions the graph run's traces and those whose cause the report names (`functions[].retraces`:
every trace after a function's first has a cause; `unexplained` is the one that does not count).
Prints one line per fixture and the total; the target is all traces explained.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
FIXTURES = REPO / "tests" / "runtime" / "fixtures"


def measure(module: Path, timeout: float) -> tuple[int, int, Counter, str]:
    """(traces, explained, causes, note) for one fixture module."""
    env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "2"}
    cmd = [sys.executable, "-m", "stagelint", "run", str(module.relative_to(REPO)), "--output-format", "json",
           "--timeout", str(timeout)]
    proc = subprocess.run(cmd, cwd=REPO, env=env, capture_output=True, text=True, timeout=3 * timeout + 60)
    try:
        report = json.loads(proc.stdout)
    except ValueError:
        return 0, 0, Counter(), f"no report (exit {proc.returncode})"
    traces = explained = 0
    causes: Counter = Counter()
    for fn in report.get("functions", []):
        if "retraces" not in fn or not fn["traces"]:
            continue  # a project function a library tf.function ran: its traces are the library's
        traces += fn["traces"]
        causes["first"] += 1
        causes.update(r["cause"] for r in fn["retraces"])
        explained += 1 + sum(1 for r in fn["retraces"] if r["cause"] != "unexplained")
    return traces, explained, causes, ""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("modules", nargs="*", type=Path)
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds per run of a fixture")
    args = parser.parse_args(argv)
    modules = [m.resolve() for m in args.modules] or sorted(FIXTURES.glob("fx_*.py"))
    total_traces = total_explained = 0
    total_causes: Counter = Counter()
    for module in modules:
        traces, explained, causes, note = measure(module, args.timeout)
        total_traces += traces
        total_explained += explained
        total_causes += causes
        shown = ", ".join(f"{k} {v}" for k, v in causes.most_common())
        print(f"{module.name:28} {explained:4}/{traces:<4} explained  {note or shown}", flush=True)
    share = total_explained / total_traces if total_traces else 1.0
    print(f"traces explained: {total_explained}/{total_traces} ({share:.0%}); target: all")
    print("causes: " + ", ".join(f"{k} {v}" for k, v in total_causes.most_common()))
    return 0 if total_explained == total_traces else 1


if __name__ == "__main__":
    sys.exit(main())
