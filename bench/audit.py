"""Audit stagelint's findings on real code no one here wrote: precision per rule.

    python bench/audit.py              # corpus -> findings -> sample -> docs/accuracy.md

One command from a fresh clone (with stagelint installed in the interpreter that runs it):

1. fetches the pinned corpus (`bench/corpus.py`, git-ignored): five wheels' Python files, the
   tensorflow/docs guide and tutorial notebooks converted to `.py` (`bench/notebooks.py`) and the
   tensorflow/examples Python files, both at a pinned commit (`--source FOLDER=PATH_OR_URL` says
   where that commit is when the local mirror is absent; see `bench/corpus.py`),
2. runs `stagelint check --output-format json` over each project and writes every finding, with
   its source line, to `bench/audit/findings.jsonl` (generated, git-ignored),
3. draws the audit sample with a fixed seed: every finding when there are at most `--all-below`
   of them (default 300), otherwise at least `--sample` (default 150) findings stratified by rule
   (each rule's share of the total, at least `--per-rule-min` of each rule),
4. joins the sample with the committed verdicts (`bench/audit_verdicts.csv`: one row per finding
   key, TP/FP and a one-line reason, written by a person who read the code) and renders
   `docs/accuracy.md`: precision per rule, before the precision fixes and now, and the audit table.

A finding's key is (project, path relative to the project, line, code). The corpus is pinned, so
keys do not move. Findings on the same line with the same code share one key (one verdict).

`--reuse` skips step 2 and reads the findings file of an earlier run; `--projects tfa,tf_agents`
checks (and reports) only some projects, for re-checking after a fix. `--check` exits 1 when a
sampled finding has no verdict (the audit is incomplete). `--baseline FILE --projects ...` marks
the sample of an earlier findings file as the "before" of those projects. `--stagelint DIR
--label TEXT` audits the stagelint of another checkout (a worktree where branches are merged)
with this interpreter; the page says which stagelint checked each project.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

from corpus import FOLDERS, GIT_PROJECTS, PROJECTS, corpus, parse_sources  # noqa: E402

OUT = HERE / "audit"
FINDINGS = OUT / "findings.jsonl"
RUNS = OUT / "runs.json"  # which stagelint checked each project
DEMO_RUN = OUT / "demonstrations.json"  # what it reported on the guides' demonstrations
VERDICTS = HERE / "audit_verdicts.csv"
#: The keys `main` reported at the start of the issue-11 session (commit `f0175c6`), one a row:
#: the page's "session start" columns judge them with the same verdicts as the current findings.
SESSION_START = HERE / "audit_session_start.csv"
SESSION_COMMIT = "f0175c6"
DOC = ROOT / "docs" / "accuracy.md"
SEED = 20261121
VERDICT_FIELDS = ("project", "path", "line", "code", "verdict", "reason", "baseline", "source")
TARGET = 0.90
MIN_FINDINGS = 10


def key_of(row: dict) -> tuple[str, str, int, str]:
    return (row["project"], row["path"], int(row["line"]), row["code"])


# 2. Findings ----------------------------------------------------------------------------------


def run_project(folder: Path, jobs: int | None, code: Path | None = None) -> tuple[list[dict], float]:
    """`stagelint check --output-format json` over one project, from inside its folder, so the
    paths are relative to the project and the module names are the package's own. `code`: a
    checkout of stagelint to run instead of the installed one (same interpreter and packages)."""
    cmd = [sys.executable, "-m", "stagelint", "check", "--output-format", "json", "."]
    if jobs:
        cmd += ["--jobs", str(jobs)]
    env = dict(os.environ)
    if code is not None:
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(code), env.get("PYTHONPATH")]))
    start = time.perf_counter()
    proc = subprocess.run(cmd, cwd=folder, capture_output=True, text=True, check=False, env=env)
    elapsed = time.perf_counter() - start
    # Exit 1 means "findings", but a stagelint that cannot even start exits 1 too: only a JSON list
    # on stdout counts as a result.
    try:
        found = json.loads(proc.stdout or ("[]" if proc.returncode == 0 else "")) if proc.returncode in (0, 1) else None
    except json.JSONDecodeError:
        found = None
    if not isinstance(found, list):
        raise SystemExit(f"stagelint failed on {folder} (exit {proc.returncode}):\n{proc.stderr[-3000:]}")
    return found, elapsed


def source_line(folder: Path, path: str, line: int) -> str:
    try:
        lines = (folder / path).read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return ""
    return lines[line - 1].strip() if 0 < line <= len(lines) else ""


def describe(code: Path | None, label: str | None) -> str:
    """Which stagelint produced a run: the commit of the checkout (and a label, e.g. what was merged)."""
    where = code or ROOT
    proc = subprocess.run(["git", "-C", str(where), "rev-parse", "--short", "HEAD"], capture_output=True,
                          text=True, check=False)
    commit = proc.stdout.strip() or "unknown commit"
    return f"`{commit}`" + (f" ({label})" if label else "")


def collect(projects: list[str], jobs: int | None, sources: dict[str, str], code: Path | None = None) -> list[dict]:
    chosen = [f for f in FOLDERS if f in projects]
    folders = dict(zip(chosen, corpus(tuple(chosen), sources)))
    rows = []
    for project in projects:
        folder = folders[project]
        found, elapsed = run_project(folder, jobs, code)
        print(f"{project}: {len(found)} findings ({elapsed:.0f} s)", file=sys.stderr)
        for f in found:
            path = Path(f["path"]).as_posix().removeprefix("./")
            rows.append({
                "project": project, "path": path, "line": f["line"], "column": f["column"],
                "code": f["code"], "name": f["name"], "function": f.get("function"),
                "entry_point": f.get("entry_point"), "message": f["message"],
                "source": source_line(folder, path, f["line"]),
            })
    return rows


def write_runs(projects: list[str], what: str) -> None:
    runs = read_runs()
    runs.update({p: what for p in projects})
    OUT.mkdir(exist_ok=True)
    RUNS.write_text(json.dumps(runs, indent=1, sort_keys=True) + "\n", encoding="utf-8")


def read_runs() -> dict[str, str]:
    return json.loads(RUNS.read_text(encoding="utf-8")) if RUNS.exists() else {}


def write_findings(rows: list[dict], projects: list[str]) -> None:
    """Replace the findings of the projects just checked, keep the others'."""
    kept = [r for r in read_findings() if r["project"] not in projects] if FINDINGS.exists() else []
    rows = sorted(kept + rows, key=lambda r: (r["project"], r["path"], r["line"], r["column"], r["code"]))
    OUT.mkdir(exist_ok=True)
    with FINDINGS.open("w", encoding="utf-8") as fh:
        for r in rows:
            fh.write(json.dumps(r, sort_keys=True) + "\n")


def read_findings() -> list[dict]:
    with FINDINGS.open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


# 3. The sample ----------------------------------------------------------------------------------


def unique_keys(rows: list[dict]) -> dict[tuple, dict]:
    out: dict[tuple, dict] = {}
    for r in rows:
        out.setdefault(key_of(r), r)
    return out


def draw_sample(keys: list[tuple], size: int, all_below: int, per_rule_min: int, seed: int) -> list[tuple]:
    """Every key when there are few; else a stratified random sample, reproducible by seed."""
    keys = sorted(keys)
    if len(keys) <= all_below:
        return keys
    rng = random.Random(seed)
    by_rule: dict[str, list[tuple]] = defaultdict(list)
    for k in keys:
        by_rule[k[3]].append(k)
    chosen = []
    for code in sorted(by_rule):
        items = by_rule[code]
        want = max(per_rule_min, round(size * len(items) / len(keys)))
        chosen += rng.sample(items, min(want, len(items)))
    return sorted(chosen)


# 4. Verdicts and the page ----------------------------------------------------------------------


def read_verdicts() -> dict[tuple, dict]:
    if not VERDICTS.exists():
        return {}
    with VERDICTS.open(encoding="utf-8", newline="") as fh:
        return {key_of(r): r for r in csv.DictReader(fh)}


def write_verdicts(verdicts: dict[tuple, dict]) -> None:
    with VERDICTS.open("w", encoding="utf-8", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=VERDICT_FIELDS, lineterminator="\n")
        w.writeheader()
        for k in sorted(verdicts):
            w.writerow({f: verdicts[k].get(f, "") for f in VERDICT_FIELDS})


def session_start_keys(folders) -> list[tuple]:
    if not SESSION_START.exists():
        return []
    with SESSION_START.open(encoding="utf-8", newline="") as fh:
        rows = list(csv.DictReader(fh))
    return sorted({(r["project"], r["path"], int(r["line"]), r["code"]) for r in rows if r["project"] in folders})


def precision_table(keys: list[tuple], verdicts: dict[tuple, dict]) -> dict[str, dict]:
    stats: dict[str, Counter] = defaultdict(Counter)
    for k in keys:
        v = verdicts.get(k, {}).get("verdict", "")
        stats[k[3]]["audited" if v in ("TP", "FP") else "unaudited"] += 1
        if v in ("TP", "FP"):
            stats[k[3]][v] += 1
    return stats


def fmt_precision(c: Counter) -> str:
    n = c["TP"] + c["FP"]
    return f"{100 * c['TP'] / n:.0f}%" if n else "–"


def meets(c: Counter) -> str:
    n = c["TP"] + c["FP"]
    if n < MIN_FINDINGS:
        return "n < 10"
    return "yes" if c["TP"] / n >= TARGET else "**no**"


#: The corpus groups the page reports apart: the pinned wheels (library code, audited first) and
#: the code users write and read (issue 11: the docs notebooks and tensorflow/examples).
GROUPS = (
    ("pinned wheels", tuple(p[2] for p in PROJECTS)),
    ("tf_docs", ("tf_docs",)),
    ("tf_examples", ("tf_examples",)),
)
DEMOS = ROOT / "tests" / "data" / "guide_demos" / "expected.csv"


def _rule_table(w, sample: list[tuple], verdicts: dict[tuple, dict], findings: list[dict], folders) -> None:
    sample = [k for k in sample if k[0] in folders]
    per_rule = Counter(r["code"] for r in findings if r["project"] in folders)
    now = precision_table(sample, verdicts)
    baseline_keys = sorted(k for k, v in verdicts.items() if v.get("baseline") == "yes" and k[0] in folders)
    before = precision_table(baseline_keys, verdicts)
    start = precision_table(session_start_keys(folders), verdicts)
    w("| rule | first audit: audited | first audit: TP | first audit: precision | session start: findings | "
      "session start: TP | session start: precision | now: findings | now: audited | now: TP | "
      "now: FP | now: precision | meets target |")
    w("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")

    def row(label, b, s, n, count):
        return (f"| {label} | {b['TP'] + b['FP']} | {b['TP']} | {fmt_precision(b)} | "
                f"{s['TP'] + s['FP'] + s['unaudited']} | {s['TP']} | {fmt_precision(s)} | {count} | "
                f"{n['TP'] + n['FP']} | {n['TP']} | {n['FP']} | {fmt_precision(n)} | {meets(n)} |")
    for code in sorted(set(now) | set(before) | set(start)):
        w(row(code, before[code], start[code], now[code], per_rule.get(code, 0)))
    w(row("**all**", sum(before.values(), Counter()), sum(start.values(), Counter()),
          sum(now.values(), Counter()), sum(per_rule.values())) + "\n")


def _demo_line(fixture: str, cell: str, snippet: str) -> int:
    """The line of `snippet` (a whole stripped line) inside `# %% [cell N]` of a demonstration
    fixture, as tests/test_guide_demonstrations.py finds it."""
    lines = (DEMOS.parent / fixture).read_text(encoding="utf-8").splitlines()
    start = lines.index(f"# %% [cell {cell}]")
    for number, text in enumerate(lines[start + 1:], start + 2):
        if text.startswith("# %% [cell "):
            break
        if text.strip() == snippet:
            return number
    raise SystemExit(f"{DEMOS}: {fixture} cell {cell} has no line {snippet!r}")


def check_demonstrations(code: Path | None, what: str) -> None:
    """Run the audited stagelint on the guides' demonstrations (tests/data/guide_demos) and keep
    what it reports, so the page counts them for the same stagelint as the corpus."""
    with tempfile.TemporaryDirectory() as tmp:
        for module in DEMOS.parent.glob("*.py"):
            shutil.copy(module, Path(tmp) / module.name)
        found, _ = run_project(Path(tmp), None, code)
    reported = sorted([Path(f["path"]).name, f["line"], f["code"]] for f in found)
    OUT.mkdir(exist_ok=True)
    DEMO_RUN.write_text(json.dumps({"stagelint": what, "reported": reported}, indent=1) + "\n", encoding="utf-8")


def _demonstrations() -> tuple[list[dict], str]:
    """The demonstrations (rows of expected.csv to be reported), each with `now`: whether the
    last audited stagelint reported it (None when it was not run on them)."""
    if not DEMOS.exists():
        return [], ""
    with DEMOS.open(encoding="utf-8", newline="") as fh:
        rows = [r for r in csv.DictReader(fh) if r["expect"] == "reported"]
    run = json.loads(DEMO_RUN.read_text(encoding="utf-8")) if DEMO_RUN.exists() else {"stagelint": "", "reported": None}
    seen = {tuple(x) for x in run["reported"]} if run["reported"] is not None else None
    for r in rows:
        line = _demo_line(r["fixture"], r["cell"], r["snippet"])
        r["now"] = None if seen is None else (r["fixture"], line, r["code"]) in seen
    return rows, run["stagelint"]


def render(findings: list[dict], sample: list[tuple], verdicts: dict[tuple, dict], projects: list[str],
           args) -> str:
    found = unique_keys(findings)
    per_project = Counter(r["project"] for r in findings)
    out = []
    w = out.append
    w("# Accuracy: stagelint's findings on real code, audited by hand\n")
    w("<!-- generated by `python bench/audit.py`; edit bench/audit_verdicts.csv or bench/audit.py, not this page -->\n")
    w("**Question:** of what `stagelint check` reports on code no one here wrote, how much would the "
      "code's maintainers want reported? **Target:** precision (TP / (TP + FP) in the audited "
      f"sample) of at least {TARGET:.0%} for every rule with at least {MIN_FINDINGS} audited findings, "
      "and over all findings of each corpus (issue 11).\n")
    w("**Command** (from the repository root of a fresh clone, after `pip install -e .`):\n")
    w("```sh\npython bench/audit.py\n# without the local mirrors of tensorflow/docs and tensorflow/examples:\n"
      "python bench/audit.py --source tf_docs=https://github.com/tensorflow/docs.git "
      "--source tf_examples=https://github.com/tensorflow/examples.git\n```\n")
    w("It fetches the pinned corpus (`bench/corpus.py`), runs `stagelint check --output-format json` on each "
      "project from inside its folder, writes every finding with its source line to `bench/audit/findings.jsonl` "
      f"(git-ignored), draws the sample (seed {args.seed}: every finding when there are at most {args.all_below}, "
      f"otherwise a stratified sample of at least {args.sample}), joins it with the verdicts in "
      "`bench/audit_verdicts.csv` and writes this page. `--reuse` renders from the last findings file "
      "without running stagelint; `--check` fails when a sampled finding has no verdict.\n")
    w("## Corpus\n")
    w("| project | source | findings |")
    w("|---|---|---:|")
    for name, version, folder in PROJECTS:
        if folder in projects:
            w(f"| {folder} | wheel {name} {version} | {per_project.get(folder, 0)} |")
    for g in GIT_PROJECTS:
        if g.folder in projects:
            what = ("the guide and tutorial notebooks (" + ", ".join(f"`{p}`" for p in g.paths)
                    + "), code cells converted to one `.py` each by `bench/notebooks.py`") if g.notebooks \
                else "its Python files"
            w(f"| {g.folder} | {g.repo} @ `{g.commit[:12]}`: {what} | {per_project.get(g.folder, 0)} |")
    w(f"| **total** | | **{len(findings)}** ({len(found)} distinct keys) |\n")
    runs = read_runs()
    checked = sorted({runs.get(p, "not recorded") for p in projects})
    w("Checked with stagelint " + "; ".join(
        f"{what} ({', '.join(p for p in projects if runs.get(p, 'not recorded') == what)})" if len(checked) > 1
        else what for what in checked) + ".\n")
    sampled = "every finding" if len(sample) == len(found) else f"{len(sample)} of {len(found)} findings"
    w(f"Audited: {sampled}. A finding is a **TP** when the pitfall is real in that code under "
      "`tf.function` (the code is staged there, and the behaviour the message describes would happen) "
      "and a maintainer would want to hear about it; **FP** otherwise. Each verdict comes from reading "
      "the function, its callers and how it is staged, checked against `tf-behaviour.md` (and a "
      "TensorFlow 2.21 snippet where in doubt). In the docs notebooks a pitfall the page *demonstrates* "
      "(a `print` that shows when tracing happens, a trace counter) is a TP: the behaviour happens, and "
      "it is what a reader copying the code needs to know.\n")
    w("## Precision per corpus\n")
    w("*First audit*: the first audited run of each corpus (verdict rows marked `baseline=yes`: for the "
      "pinned wheels the run before the first precision work, commit `518a5c9`; for tf_docs and tf_examples "
      f"`main` when they joined the audit, commit `{SESSION_COMMIT}`, before the issue-11 value model). "
      f"*Session start*: every finding of `main` at the start of the issue-11 session (commit "
      f"`{SESSION_COMMIT}`, keys in `bench/audit_session_start.csv`). *Now*: the current findings. The same "
      "key has the same verdict in every column.\n")
    w("| corpus | first audit: audited | first audit: precision | session start: findings | session start: TP "
      "| session start: FP | session start: precision | now: findings | now: TP | now: FP | now: precision "
      "| meets target |")
    w("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    rows = GROUPS + (("tf_docs + tf_examples", ("tf_docs", "tf_examples")), ("**all**", tuple(projects)))
    for label, folders in rows:
        folders = tuple(f for f in folders if f in projects)
        if not folders:
            continue
        n = sum(precision_table([k for k in sample if k[0] in folders], verdicts).values(), Counter())
        b = sum(precision_table(sorted(k for k, v in verdicts.items() if v.get("baseline") == "yes"
                                       and k[0] in folders), verdicts).values(), Counter())
        st = sum(precision_table(session_start_keys(folders), verdicts).values(), Counter())
        count = sum(per_project.get(f, 0) for f in folders)
        w(f"| {label} | {b['TP'] + b['FP']} | {fmt_precision(b)} | {st['TP'] + st['FP'] + st['unaudited']} | "
          f"{st['TP']} | {st['FP']} | {fmt_precision(st)} | {count} | {n['TP']} | {n['FP']} | "
          f"{fmt_precision(n)} | {meets(n)} |")
    w("")
    demos, demo_run = _demonstrations()
    if demos:
        w("## The guides' demonstrations\n")
        w("Every staging pitfall that `site/en/guide/function.ipynb` and `intro_to_graphs.ipynb` demonstrate, "
          "re-stated cell by cell in `tests/data/guide_demos/` (expected code per demonstration in `expected.csv`, "
          "checked by `tests/test_guide_demonstrations.py`). *Reported*: by the audited stagelint "
          f"({demo_run or 'not run'}); *tests pass*: rows of `expected.csv` marked `pass` (the rest are strict "
          "xfails of this commit).\n")
        w("| guide | demonstrations | reported | tests pass | not reported |")
        w("|---|---:|---:|---:|---|")
        for fixture, label in (("function_guide.py", "function.ipynb"),
                               ("intro_to_graphs_guide.py", "intro_to_graphs.ipynb")):
            rows = [r for r in demos if r["fixture"] == fixture]
            now = "–" if any(r["now"] is None for r in rows) else str(sum(bool(r["now"]) for r in rows))
            missed = ", ".join(f"{r['id']} {r['code']} ({r['guide']})" for r in rows if r["now"] is False)
            w(f"| {label} | {len(rows)} | {now} | {sum(r['status'] == 'pass' for r in rows)} | {missed or '–'} |")
        w("")
    for label, folders in (("the pinned wheels", GROUPS[0][1]),
                           ("tf_docs and tf_examples", ("tf_docs", "tf_examples"))):
        folders = tuple(f for f in folders if f in projects)
        if folders:
            w(f"## Precision per rule: {label}\n")
            _rule_table(w, sample, verdicts, findings, folders)
    missing = [k for k in sample if verdicts.get(k, {}).get("verdict") not in ("TP", "FP")]
    if missing:
        w(f"**{len(missing)} sampled findings have no verdict yet**: the audit is incomplete.\n")
    for notes in (HERE / "audit_notes.md", HERE / "audit_notes_docs.md"):
        if notes.exists():
            w(notes.read_text(encoding="utf-8").strip() + "\n")
    w("## The audit table (current findings)\n")
    w("| project | location | code | verdict | reason | source line |")
    w("|---|---|---|---|---|---|")
    for k in sample:
        r = found[k]
        v = verdicts.get(k, {})
        w(f"| {k[0]} | `{k[1]}:{k[2]}` | {k[3]} | {v.get('verdict', '?') or '?'} | {_cell(v.get('reason', ''))} | "
          f"`{_cell(r['source'], 90, code=True)}` |")
    baseline_keys = sorted(k for k, v in verdicts.items() if v.get("baseline") == "yes")
    gone = [k for k in baseline_keys if k not in found and k[0] in projects]
    if gone:
        w("\n## Findings of the first runs that are no longer reported\n")
        w("Fixed false positives (and any true positive a fix lost, which would show here as TP).\n")
        w("| project | location | code | verdict | reason |")
        w("|---|---|---|---|---|")
        for k in gone:
            v = verdicts[k]
            w(f"| {k[0]} | `{k[1]}:{k[2]}` | {k[3]} | {v['verdict']} | {_cell(v.get('reason', ''))} |")
    return "\n".join(out) + "\n"


def _cell(text: str, limit: int | None = None, code: bool = False) -> str:
    """A table cell: one line, pipes escaped; inside a code span, backticks become quotes."""
    text = " ".join(str(text).split()).replace("|", "\\|")
    if code:
        text = text.replace("`", "'")
    if limit and len(text) > limit:
        text = text[: limit - 1] + "…"
    return text


def mark_baseline(args) -> int:
    """The "before" half of the audit: the first run's findings, sampled like the current ones."""
    with args.baseline.open(encoding="utf-8") as fh:
        rows = [json.loads(line) for line in fh if line.strip()]
    if args.projects:
        rows = [r for r in rows if r["project"] in args.projects.split(",")]
    found = unique_keys(rows)
    sample = draw_sample(list(found), args.sample, args.all_below, args.per_rule_min, args.seed)
    verdicts = read_verdicts()
    for k in sample:
        row = verdicts.setdefault(k, {"project": k[0], "path": k[1], "line": k[2], "code": k[3], "verdict": "",
                                      "reason": "", "source": found[k]["source"][:120]})
        row["baseline"] = "yes"
    write_verdicts(verdicts)
    todo = sum(1 for k in sample if verdicts[k].get("verdict") not in ("TP", "FP"))
    print(f"baseline: {len(rows)} findings, {len(found)} keys, {len(sample)} sampled, {todo} without verdict")
    return 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--projects", help="comma list of corpus folders (default: all)")
    ap.add_argument("--reuse", action="store_true", help="read bench/audit/findings.jsonl instead of running stagelint")
    ap.add_argument("--jobs", type=int, help="passed to stagelint check --jobs")
    ap.add_argument("--stagelint", type=Path, metavar="DIR",
                    help="audit the stagelint of this checkout (e.g. a worktree with branches merged) "
                         "instead of the installed one")
    ap.add_argument("--label", help="what that stagelint is, for the page (e.g. 'main + w-model')")
    ap.add_argument("--source", action="append", metavar="FOLDER=PATH_OR_URL",
                    help="where a git project's pinned commit is (a git directory or URL; see bench/corpus.py)")
    ap.add_argument("--seed", type=int, default=SEED)
    ap.add_argument("--sample", type=int, default=150)
    ap.add_argument("--all-below", type=int, default=300)
    ap.add_argument("--per-rule-min", type=int, default=10)
    ap.add_argument("--check", action="store_true", help="exit 1 if a sampled finding has no verdict")
    ap.add_argument("--add-missing", action="store_true",
                    help="add verdict rows (empty verdict) for sampled findings that have none, to fill in")
    ap.add_argument("--no-doc", action="store_true", help="do not write docs/accuracy.md")
    ap.add_argument("--baseline", type=Path,
                    help="findings file of the run before the precision fixes: draw its sample (same seed and "
                         "rules) and add verdict rows marked baseline=yes for the keys that have none")
    args = ap.parse_args(argv)
    if args.baseline:
        return mark_baseline(args)
    every = list(FOLDERS)
    projects = args.projects.split(",") if args.projects else every
    if args.reuse:
        findings = [r for r in read_findings() if r["project"] in projects]
    else:
        code = args.stagelint.resolve() if args.stagelint else None
        findings = collect(projects, args.jobs, parse_sources(args.source), code)
        write_findings(findings, projects)
        write_runs(projects, describe(code, args.label))
        check_demonstrations(code, describe(code, args.label))
        findings = [r for r in read_findings() if r["project"] in projects]
    keys = list(unique_keys(findings))
    sample = draw_sample(keys, args.sample, args.all_below, args.per_rule_min, args.seed)
    verdicts = read_verdicts()
    missing = [k for k in sample if verdicts.get(k, {}).get("verdict") not in ("TP", "FP")]
    if args.add_missing and missing:
        found = unique_keys(findings)
        for k in missing:
            verdicts.setdefault(k, {"project": k[0], "path": k[1], "line": k[2], "code": k[3], "verdict": "",
                                    "reason": "", "baseline": "", "source": found[k]["source"][:120]})
        write_verdicts(verdicts)
    if not args.no_doc and set(projects) == set(every):
        DOC.write_text(render(findings, sample, verdicts, projects, args), encoding="utf-8")
        print(f"wrote {DOC.relative_to(ROOT)}", file=sys.stderr)
    stats = precision_table(sample, verdicts)
    for code in sorted(stats):
        c = stats[code]
        print(f"{code}: {c['TP'] + c['FP'] + c['unaudited']} sampled, TP {c['TP']}, FP {c['FP']}, "
              f"unaudited {c['unaudited']}, precision {fmt_precision(c)}")
    print(f"{len(findings)} findings, {len(keys)} keys, {len(sample)} sampled, {len(missing)} without verdict")
    return 1 if args.check and missing else 0


if __name__ == "__main__":
    raise SystemExit(main())
