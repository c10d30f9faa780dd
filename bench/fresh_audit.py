"""Issue 23's fresh audit: stagelint on the repositories of bench/fresh_repos.txt, read by hand.

    python bench/fresh_audit.py run --root DIR --half B --out bench/fresh_findings_B_before.jsonl
    python bench/fresh_audit.py table --findings bench/fresh_findings_B_before.jsonl \
        --verdicts bench/fresh_verdicts_B.csv

`run` checks every repository of one half (`bench/fresh_split.py`) with
`stagelint check --no-cache --output-format json` from inside its folder (`DIR/owner+name`, the
pinned commit's files: a snapshot of the repository, never committed here) and writes one JSON
line per finding with its source line. `table` joins the findings with the verdicts (one row per
finding key: TP, intended or FP, and the reason, written by a person who read the code) and
prints precision per framework and per rule: true findings (TP + intended) over all, beside the
share a user would act on (TP alone). A finding's framework is the one its message or rule is
about: JAX where the message names JAX, jax.* or a JAX transformation, TensorFlow otherwise.
`--check` exits 1 when a finding has no verdict.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import re
import subprocess
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from audit import cell_line, source_line  # noqa: E402
from fresh_split import repos, split  # noqa: E402

VERDICTS = ("TP", "intended", "FP")
#: Not a rule's finding: a file stagelint could not parse (reported beside the tables, not in them).
DIAGNOSTICS = {"STG000"}
_JAX = re.compile(r"\bJAX\b|\bjax\.|\blax\.|\bjnp\.|\bvmap\b|\bpmap\b|\btracer\b|jit", re.I)


def key_of(row: dict) -> tuple[str, str, int, str, int]:
    """(project, path, line, code, n): n counts findings of one code on one line (two variables)."""
    return (row["project"], row["path"], int(row["line"]), row["code"], int(row.get("n", 1)))


def numbered(findings: list[dict]) -> list[dict]:
    """The findings with `n` set: the how-manieth of its (project, path, line, code) it is."""
    seen: Counter = Counter()
    for f in findings:
        k = (f["project"], f["path"], int(f["line"]), f["code"])
        seen[k] += 1
        f["n"] = seen[k]
    return findings


def framework_of(row: dict) -> str:
    return "jax" if _JAX.search(row.get("message", "")) else "tf"


def check(folder: Path, jobs: int | None) -> tuple[list[dict], float]:
    """`stagelint check --no-cache --output-format json .` from inside the repository's folder."""
    cmd = [sys.executable, "-m", "stagelint", "check", "--no-cache", "--output-format", "json", "."]
    if jobs:
        cmd += ["--jobs", str(jobs)]
    start = time.perf_counter()
    proc = subprocess.run(cmd, cwd=folder, capture_output=True, text=True, check=False, env=dict(os.environ))
    try:
        found = json.loads(proc.stdout) if proc.returncode in (0, 1) else None
    except json.JSONDecodeError:
        found = None
    if not isinstance(found, list):
        raise SystemExit(f"stagelint failed on {folder} (exit {proc.returncode}):\n{proc.stderr[-3000:]}")
    return found, time.perf_counter() - start


def run(args) -> int:
    halves = split(repos())
    chosen = halves[args.half] if args.half in halves else halves["A"] + halves["B"]
    with open(args.out, "w", encoding="utf-8") as out:
        for repo, commit, framework in chosen:
            folder = Path(args.root) / repo.replace("/", "+")
            found, elapsed = check(folder, args.jobs)
            sys.stderr.write(f"{repo}: {len(found)} findings, {elapsed:.1f} s\n")
            for f in found:
                path = f["path"]
                cell = f.get("cell")
                src = cell_line(folder, path, cell, f["line"]) if cell else source_line(folder, path, f["line"])
                row = {"project": repo, "commit": commit, "repo_framework": framework,
                       "path": path + (f":cell {cell}" if cell else ""), "line": f["line"],
                       "code": f["code"], "function": f.get("function"), "message": f["message"], "source": src}
                row["framework"] = framework_of(row)
                out.write(json.dumps(row) + "\n")
    return 0


def read_findings(path: str) -> list[dict]:
    return numbered([json.loads(line) for line in Path(path).read_text(encoding="utf-8").splitlines() if line.strip()])


def read_verdicts(path: str) -> dict[tuple, dict]:
    if not Path(path).exists():
        return {}
    with open(path, newline="", encoding="utf-8") as f:
        return {key_of(r): r for r in csv.DictReader(f)}


def _ratio(c: Counter) -> str:
    n = sum(c.values())
    if not n:
        return "–"
    return f"{(c['TP'] + c['intended']) / n:.2f} ({c['TP'] / n:.2f} act)"


def table(args) -> int:
    findings = read_findings(args.findings)
    verdicts = read_verdicts(args.verdicts)
    keys = {key_of(f): f for f in findings if f["code"] not in DIAGNOSTICS}
    missing = [k for k in keys if k not in verdicts]
    by_fw: dict[str, Counter] = defaultdict(Counter)
    by_rule: dict[tuple, Counter] = defaultdict(Counter)
    for k, f in keys.items():
        verdict = verdicts.get(k, {})
        v = verdict.get("verdict", "?")
        # The reader's framework (the code's, from reading it) wins over the message's.
        fw = verdict.get("framework") or f["framework"]
        by_fw[fw][v] += 1
        by_rule[(fw, f["code"])][v] += 1
    print("| framework | rule | findings | TP | intended | FP | precision (TP+intended) | act (TP) |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    for fw in sorted(by_fw):
        for (f2, code), c in sorted(by_rule.items()):
            if f2 == fw:
                n = sum(c.values())
                print(f"| {fw} | {code} | {n} | {c['TP']} | {c['intended']} | {c['FP']} | "
                      f"{(c['TP'] + c['intended']) / n:.2f} | {c['TP'] / n:.2f} |")
        c = by_fw[fw]
        n = sum(c.values())
        print(f"| **{fw}** | all | {n} | {c['TP']} | {c['intended']} | {c['FP']} | "
              f"{(c['TP'] + c['intended']) / n:.2f} | {c['TP'] / n:.2f} |")
    if missing:
        print(f"{len(missing)} findings have no verdict", file=sys.stderr)
        if args.check:
            return 1
    return 0


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run")
    r.add_argument("--root", required=True, help="folder holding one owner+name folder per repository")
    r.add_argument("--half", default="B", help="A, B or all")
    r.add_argument("--out", required=True)
    r.add_argument("--jobs", type=int, default=None)
    t = sub.add_parser("table")
    t.add_argument("--findings", required=True)
    t.add_argument("--verdicts", required=True)
    t.add_argument("--check", action="store_true")
    args = p.parse_args(argv)
    return run(args) if args.cmd == "run" else table(args)


if __name__ == "__main__":
    sys.exit(main())
