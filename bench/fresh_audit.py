"""Issue 23's fresh audit: stagelint on the repositories of bench/fresh_repos.txt, read by hand.

    python bench/fresh_audit.py run --root DIR --half B --out bench/fresh_findings_B_before.jsonl
    python bench/fresh_audit.py table --findings bench/fresh_findings_B_before.jsonl \
        --verdicts bench/fresh_verdicts_B.csv

`run` checks every repository of one half (`bench/fresh_split.py`) with
`stagelint check --no-cache --output-format json` from inside its folder (`DIR/owner+name`, the
pinned commit's files: a snapshot of the repository, never committed here; or `DIR/owner+name/name`
when that exists: a repository checked out under its own name, so that code importing its own
package by that name resolves as it does for the repository's users) and writes one JSON
line per finding with its source line. `table` joins the findings with the verdicts (one row per
finding key: TP, intended or FP, and the reason, written by a person who read the code) and
prints precision per framework and per rule: true findings (TP + intended) over all, beside the
share a user would act on (TP alone). A finding's framework is the one its message or rule is
about: JAX where the message names JAX, jax.* or a JAX transformation, TensorFlow otherwise.
`--check` exits 1 when a finding has no verdict; `--unread` lists those findings (a re-run read
against an earlier run's verdicts: the new findings are the ones left to read).

    python bench/fresh_audit.py carry --half B --when s15    # verdicts of unchanged findings carried
    python bench/fresh_audit.py pool                         # per rule, every held-back half's latest

`carry` writes a re-reading's verdicts file from the same half's earlier readings (a finding the
same as one read before keeps its verdict) and lists what is left to read by hand; `pool` adds up
the held-back halves' latest readings (`WHENS`, `MAINS`: which reading, at which main).
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

from audit import DOC, FRESH_MARKER, cell_line, source_line  # noqa: E402
from fresh_split import LISTS, SEED, all_halves, halves_of  # noqa: E402

VERDICTS = ("TP", "intended", "FP")
#: Not a rule's finding (reported beside the tables, not in them): a file stagelint could not parse
#: (STG000), a file it skipped with the reason on stderr (SKIPPED: over the time budget, too deeply
#: nested), which `run` records instead of stopping.
DIAGNOSTICS = {"STG000", "SKIPPED", "ERROR"}
_SKIPPED = re.compile(r"^stagelint: error: (?P<path>.+?): (?P<reason>.+)$")
#: A rule that crashed on a file (exit 2 beside a JSON report of the rest): one ERROR row, so that a
#: half's run goes on and the crash is counted apart (the ninth audit met one in STG301).
_INTERNAL = re.compile(r"^stagelint: internal error in (?P<rule>\S+) on (?P<path>.+?) \(")
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
    """`stagelint check --no-cache --output-format json .` from inside the repository's folder; a
    file stagelint skipped (exit 2 beside a whole JSON report) is one SKIPPED row."""
    cmd = [sys.executable, "-m", "stagelint", "check", "--no-cache", "--output-format", "json", "."]
    if jobs:
        cmd += ["--jobs", str(jobs)]
    start = time.perf_counter()
    proc = subprocess.run(cmd, cwd=folder, capture_output=True, text=True, check=False, env=dict(os.environ))
    try:
        found = json.loads(proc.stdout) if proc.returncode in (0, 1, 2) else None
    except json.JSONDecodeError:
        found = None
    skipped = [m for m in map(_SKIPPED.match, proc.stderr.splitlines()) if m]
    crashed = [m for m in map(_INTERNAL.match, proc.stderr.splitlines()) if m]
    if not isinstance(found, list) or (proc.returncode == 2 and not skipped and not crashed):
        raise SystemExit(f"stagelint failed on {folder} (exit {proc.returncode}):\n{proc.stderr[-3000:]}")
    found += [{"path": m["path"], "line": 1, "code": "SKIPPED", "message": m["reason"]} for m in skipped]
    found += [{"path": m["path"], "line": 1, "code": "ERROR", "message": f"internal error in {m['rule']}"}
              for m in crashed]
    return found, time.perf_counter() - start


def checkout_of(root: Path, repo: str) -> Path:
    """`root/owner+name/name` when the repository was checked out under its own name, else
    `root/owner+name`: a folder named `owner+name` is no importable package name, so a repository
    whose code imports itself by its name (`from TTS_tf.layers import ...`) reads differently there."""
    top = root / repo.replace("/", "+")
    own = top / repo.split("/", 1)[1]
    # Alone: a repository of its own checked out flat may hold a folder of its own name beside its other files.
    return own if own.is_dir() and [p.name for p in top.iterdir()] == [own.name] else top


def run(args) -> int:
    if args.half == "all":
        chosen = [row for rows in all_halves().values() for row in rows]
    else:
        chosen = halves_of(args.half)[args.half]
    if args.repos:
        chosen = [row for row in chosen if row[0] in args.repos.split(",")]
    with open(args.out, "w", encoding="utf-8") as out:
        for repo, commit, framework in chosen:
            folder = checkout_of(Path(args.root), repo)
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
        fw = "tf" if fw == "tensorflow" else fw  # some verdict files spell it out (fifth audit, Q/R)
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
        if args.unread:
            # A later run read against an earlier run's verdicts: what is new is what to read.
            for k in missing:
                f = keys[k]
                print(f"{f['project']} {f['path']}:{f['line']} {f['code']} (n={k[-1]}): {f['message']}\n"
                      f"    {f.get('source', '')}", file=sys.stderr)
        if args.check:
            return 1
    return 0


NOTES = "bench/fresh_audit_notes.md"


def counts(findings: list[dict], verdicts: dict[tuple, dict]) -> tuple[dict, dict]:
    """Verdict counts per framework and per (framework, rule), parse diagnostics left out."""
    by_fw: dict[str, Counter] = defaultdict(Counter)
    by_rule: dict[tuple, Counter] = defaultdict(Counter)
    for f in findings:
        if f["code"] in DIAGNOSTICS:
            continue
        verdict = verdicts.get(key_of(f), {})
        fw = verdict.get("framework") or f["framework"]
        fw = "tf" if fw == "tensorflow" else fw  # some verdict files spell it out (fifth audit, Q/R)
        by_fw[fw][verdict.get("verdict", "?")] += 1
        by_rule[(fw, f["code"])][verdict.get("verdict", "?")] += 1
    return by_fw, by_rule


def _cells(c: Counter) -> str:
    n = sum(c.values())
    if not n:
        return "0 | – | –"
    return f"{n} | {(c['TP'] + c['intended']) / n:.2f} | {c['TP'] / n:.2f}"


#: The runs of a half, in the order they were made: before the fixes of its audit, after them, `now`
#: (a later session's re-run of an earlier audit's half with that session's main), then the
#: re-readings of every held-back half at one main, named by session (`s15`: session 15's first,
#: `s15b` its second), whose main `MAINS` names. The last of these a half has is its latest reading.
WHENS = ("before", "after", "now", "s15", "s15b", "s19", "s20", "s22", "s22f", "s23f", "s24f", "s24g", "s25", "s25f", "s25h", "s26h", "s27", "s27h", "s28f")
#: The main each session re-reading was made at (the earlier runs' mains: bench/fresh_audit_notes.md).
MAINS = {"s15": "39cc0c4", "s15b": "27d6fda", "s19": "b5aea52", "s20": "1a8292e", "s22": "db298d8",
         "s22f": "05c1688",  # s22f: session 22's final code (later commits: notes and bench only)
         "s23f": "54ffd86",  # s23f: session 23's final code (later: a behaviour-neutral fold, notes and bench)
         "s24f": "3db41ab",  # s24f: session 24's code at the sixteenth audit's "after" (the fifteenth's halves re-run)
         "s24g": "dfb28ce",  # s24g: session 24's final code (BJ and BI fixed from after their measure)
         "s25": "d1d7ecb",  # s25: session 25's start (every held-back half read before s24f re-read here)
         "s25f": "96d5b70",  # s25f: session 25's code at the seventeenth audit's "after"
         "s25h": "b86b6c8",  # s25h: session 25's final code (BN1 fixed from BN after its measure: tfbn1)
         "s26h": "a6837df",  # s26h: session 26's final code (BR's three classes fixed from BR after its measure)
         "s27": "29600b8",  # s27: session 27's start (its first commit, f40a635, changes bench only)
         "s27h": "8fec5e0",  # s27h: session 27's final code (BV-t1, BV-t2, BV-t3 fixed from BV after its measure: tfbv1, tfbv23)
         "s28f": "6e423e1"}  # s28f: session 28's final code (BT re-read: BT1 gone, jaxleft)
#: The first held-back half of the audits whose clean readings the docs pool: from the fifteenth on,
#: every audit ran the certainty model (known / unknown / guess) of issue 23.
CLEAN_SINCE = "BD"
#: A half's own before or after run that a pool takes as a reading at a known main: the tenth
#: audit's `after` (session 18's final code, whose findings on AJ and AL b5aea52 repeats); the
#: thirteenth's (AV, AX: made at 18c36c2, whose later commits up to db298d8 are behaviour-neutral
#: folds; every repository with a finding re-run at db298d8 in session 22 gave the same findings).
RUN_MAINS = {("AJ", "after"): "d3c3dde", ("AL", "after"): "d3c3dde",
             ("AR", "after"): "1a8292e", ("AT", "after"): "1a8292e",  # the twelfth's: session 20's final main
             ("AV", "after"): "db298d8", ("AX", "after"): "db298d8",
             ("AZ", "after"): "05c1688", ("BB", "after"): "05c1688",  # the fourteenth's: session 22's final code
             ("BD", "before"): "4d1aca2", ("BF", "before"): "4d1aca2",  # the fifteenth's: session 23's start
             ("BD", "after"): "54ffd86", ("BF", "after"): "54ffd86",  # and its final code
             ("BH", "before"): "9550dbb",  # the sixteenth JAX audit's: session 24's start
             ("BJ", "before"): "9550dbb",  # the sixteenth TensorFlow audit's: session 24's start
             ("BH", "after"): "3db41ab", ("BJ", "after"): "3db41ab",  # and its final code
             ("BL", "before"): "d1d7ecb",  # the seventeenth JAX audit's: session 25's start
             ("BN", "before"): "d1d7ecb",  # the seventeenth TensorFlow audit's: session 25's start
             ("BL", "after"): "96d5b70", ("BN", "after"): "96d5b70",  # and its final code
             ("BP", "before"): "82f258c",  # the eighteenth JAX audit's: session 26's start
             ("BR", "before"): "82f258c",  # the eighteenth TensorFlow audit's: session 26's start
             ("BP", "after"): "fa3db73", ("BR", "after"): "fa3db73",  # and session 26's code at the measure
             ("BT", "before"): "29600b8",  # the nineteenth JAX audit's: session 27's start (f40a635: bench only)
             ("BV", "before"): "29600b8",  # the nineteenth TensorFlow audit's
             ("BT", "after"): "7c65ade", ("BV", "after"): "7c65ade",  # and session 27's code at the measure
             ("BX", "before"): "82b89d0",  # the twentieth JAX audit's: session 28's start
             ("BZ", "before"): "82b89d0",  # the twentieth TensorFlow audit's (three auditors' lists, joined)
             ("BX", "after"): "6e423e1", ("BZ", "after"): "6e423e1"}  # and session 28's code at the measure


def main_of(half: str, when: str) -> str | None:
    """The main a half's reading was made at, where this file records it."""
    return MAINS.get(when) or RUN_MAINS.get((half, when))
_AUDITS = {"A": "The first audit", "C": "The second JAX audit", "E": "The second TensorFlow audit",
           "G": "The third JAX audit", "I": "The third TensorFlow audit", "K": "The fourth JAX audit",
           "M": "The fourth TensorFlow audit", "O": "The fifth JAX audit", "Q": "The fifth TensorFlow audit",
           "S": "The sixth JAX audit", "U": "The sixth TensorFlow audit", "W": "The seventh JAX audit",
           "Y": "The seventh TensorFlow audit", "AA": "The eighth JAX audit",
           "AC": "The eighth TensorFlow audit",
           "AE": "The ninth JAX audit",
           "AG": "The ninth TensorFlow audit",
           "AI": "The tenth JAX audit",
           "AK": "The tenth TensorFlow audit",
           "AO": "The eleventh TensorFlow audit",
           "AM": "The eleventh JAX audit"}
_AUDITS["AS"] = "The twelfth TensorFlow audit"
_AUDITS["AW"] = "The thirteenth TensorFlow audit"

_AUDITS["AQ"] = "The twelfth JAX audit"

_AUDITS["AU"] = "The thirteenth JAX audit"

_AUDITS["AY"] = "The fourteenth JAX audit"

_AUDITS["BA"] = "The fourteenth TensorFlow audit"

_AUDITS["BC"] = "The fifteenth JAX audit"

_AUDITS["BE"] = "The fifteenth TensorFlow audit"

_AUDITS["BG"] = "The sixteenth JAX audit"

_AUDITS["BI"] = "The sixteenth TensorFlow audit"

_AUDITS["BK"] = "The seventeenth JAX audit"
_AUDITS["BM"] = "The seventeenth TensorFlow audit"
_AUDITS["BO"] = "The eighteenth JAX audit"
_AUDITS["BQ"] = "The eighteenth TensorFlow audit"
_AUDITS["BS"] = "The nineteenth JAX audit"
_AUDITS["BU"] = "The nineteenth TensorFlow audit"
_AUDITS["BW"] = "The twentieth JAX audit"
_AUDITS["BY"] = "The twentieth TensorFlow audit"


def latest_runs(halves=None, upto: str | None = None) -> dict[str, tuple[str, list[dict], dict]]:
    """Per held-back half (or per half of `halves`), its latest read run (no later than `upto`):
    (when, findings, verdicts)."""
    chosen = halves or [held for _, held in dict.fromkeys(LISTS.values())]
    latest = {}
    for half in chosen:
        for when in reversed(WHENS[:WHENS.index(upto) + 1] if upto else WHENS):
            findings = HERE / f"fresh_findings_{half}_{when}.jsonl"
            verdicts = HERE / f"fresh_verdicts_{half}_{when}.csv"
            if findings.exists() and verdicts.exists():
                latest[half] = (when, read_findings(str(findings)), read_verdicts(str(verdicts)))
                break
    return latest


def clean_runs(since: str | None = None) -> dict[str, tuple[str, list[dict], dict]]:
    """Per held-back half (from `since`'s audit on, in LISTS order), its `before` reading: stagelint's
    findings on it before anything was fixed from it, the one reading that measures how the model
    does on code nobody here had read (a later reading counts the fixes made from the half itself)."""
    held = [h for _, h in dict.fromkeys(LISTS.values())]
    if since is not None:
        held = held[held.index(since):]
    return latest_runs(held, "before")


def pooled(latest: dict[str, tuple[str, list[dict], dict]], clean: bool = False) -> list[str]:
    """Per framework and rule, the held-back halves' latest runs added up: the figure that decides
    whether a rule keeps its place in the default tier (below 0.80 it belongs in preview)."""
    by_rule: dict[tuple, Counter] = defaultdict(Counter)
    by_fw: dict[str, Counter] = defaultdict(Counter)
    for _, findings, verdicts in latest.values():
        fw_counts, rule_counts = counts(findings, verdicts)
        for k, c in rule_counts.items():
            by_rule[k].update(c)
        for k, c in fw_counts.items():
            by_fw[k].update(c)
    runs = ", ".join(f"{h} {w}" for h, (w, _, _) in latest.items())
    mains = {main_of(h, w) for h, (w, _, _) in latest.items()}
    if len(mains) == 1 and None not in mains:
        when = f"every one made at main `{mains.pop()}`, so the figures are that main's behaviour."
    elif None not in mains:
        at = defaultdict(list)
        for h, (w, _, _) in latest.items():
            at[main_of(h, w)].append(h)
        when = "made at main " + ", at main ".join(f"`{m}` ({' '.join(hs)})" for m, hs in at.items()) + "."
    else:
        when = "the runs were made at different mains, so a rule fixed since counts with its old findings."
    if clean:
        when = ("each reading made at its audit's own start, before anything was fixed from the half: how the "
                "model of each session did on code nobody here had read.")
        runs = ", ".join(latest)
    head = "clean readings (their `before` runs" if clean else "latest read runs ("
    if clean:
        runs += ")"
    out = [f"Pooled over the held-back halves' {head}{runs}); {when}" if not clean else
           f"Pooled over the held-back halves' {head}: {runs}; {when}", "",
           "| framework | rule | findings | TP | intended | FP | precision | act |",
           "|---|---|---:|---:|---:|---:|---:|---:|"]
    for fw in ("tf", "jax"):
        name = {"tf": "TensorFlow", "jax": "JAX"}[fw]
        rows = sorted((code, c) for (f, code), c in by_rule.items() if f == fw)
        for code, c in rows + [("all", by_fw[fw])]:
            n = sum(c.values())
            if n:
                label = f"**{code}**" if code == "all" else code
                out.append(f"| {name} | {label} | {n} | {c['TP']} | {c['intended']} | {c['FP']} | "
                           f"{(c['TP'] + c['intended']) / n:.2f} | {c['TP'] / n:.2f} |")
    return out


def _carried(findings: list[dict], earlier: list[tuple[str, list[dict], dict]]) -> tuple[dict, list]:
    """Per key of `findings`, the verdict row an earlier reading of the same half gave the same
    finding, the latest reading first, and the findings carried though their message changed.

    One finding is the same as an earlier one when project, path, line and rule agree and either
    the message is the same or the line held exactly one finding of that rule both times: `n`
    alone is no match, since a line's first finding vanishing renumbers the second."""
    carried: dict[tuple, dict] = {}
    changed = []
    groups: dict[tuple, list[dict]] = defaultdict(list)
    for f in findings:
        if f["code"] not in DIAGNOSTICS:
            groups[key_of(f)[:4]].append(f)
    for _, old_findings, old_verdicts in earlier:
        old_groups: dict[tuple, list[dict]] = defaultdict(list)
        for f in old_findings:
            if key_of(f) in old_verdicts:
                old_groups[key_of(f)[:4]].append(f)
        for where, new in groups.items():
            old = old_groups.get(where, [])
            for f in new:
                if key_of(f) in carried:
                    continue
                same = [o for o in old if o["message"] == f["message"]]
                if same:
                    carried[key_of(f)] = old_verdicts[key_of(same[0])]
                    old.remove(same[0])
                elif len(new) == 1 and len(old) == 1:
                    carried[key_of(f)] = old_verdicts[key_of(old[0])]
                    changed.append((f, old[0]))
    return carried, changed


def carry(args) -> int:
    """Start (or complete) a reading's verdicts from the earlier readings of the same half: each
    unchanged finding keeps its verdict; rows already in the output (read by hand) are kept; the
    findings left without one are listed to be read."""
    half, when = args.half, args.when
    findings = read_findings(str(HERE / f"fresh_findings_{half}_{when}.jsonl"))
    out_path = HERE / f"fresh_verdicts_{half}_{when}.csv"
    kept = read_verdicts(str(out_path))
    earlier = []
    for w in reversed(WHENS[:WHENS.index(when)]):
        fpath, vpath = HERE / f"fresh_findings_{half}_{w}.jsonl", HERE / f"fresh_verdicts_{half}_{w}.csv"
        if fpath.exists() and vpath.exists():
            earlier.append((w, read_findings(str(fpath)), read_verdicts(str(vpath))))
    carried, changed = _carried(findings, earlier)
    fields = ["project", "path", "line", "code", "n", "framework", "verdict", "reason", "source"]
    rows, unread = [], []
    for f in findings:
        if f["code"] in DIAGNOSTICS:
            continue
        k = key_of(f)
        got = kept.get(k) or carried.get(k)
        if got is None:
            unread.append(f)
            continue
        rows.append({"project": f["project"], "path": f["path"], "line": f["line"], "code": f["code"], "n": k[-1],
                     "framework": got.get("framework") or f["framework"], "verdict": got["verdict"],
                     "reason": got["reason"], "source": f.get("source", "")})
    with open(out_path, "w", newline="", encoding="utf-8") as out:
        writer = csv.DictWriter(out, fieldnames=fields)
        writer.writeheader()
        writer.writerows(rows)
    sources = ", ".join(w for w, _, _ in earlier) or "none"
    print(f"{half} {when}: {len(rows)} verdicts ({len(kept)} kept, carried from {sources}), "
          f"{len(changed)} of them with a changed message, {len(unread)} findings to read", file=sys.stderr)
    for f, old in changed:
        print(f"changed: {f['project']} {f['path']}:{f['line']} {f['code']}\n    was: {old['message']}\n"
              f"    now: {f['message']}", file=sys.stderr)
    for f in unread:
        print(f"unread: {f['project']} {f['path']}:{f['line']} {f['code']} (n={f['n']}): {f['message']}\n"
              f"    {f.get('source', '')}", file=sys.stderr)
    return 0


def pool(args) -> int:
    if args.clean:
        print("\n".join(pooled(clean_runs(args.since), clean=True)))
        return 0
    print("\n".join(pooled(latest_runs(args.halves.split(",") if args.halves else None, args.upto))))
    return 0


def _tables(runs: dict[str, tuple[list[dict], dict]], cols: list[str]) -> list[str]:
    """Per framework and per rule: findings | precision | acted on, one column group per run."""
    counted = {label: counts(*runs[label]) for label in cols}
    head = " | ".join(f"{c}: findings | {c}: precision | {c}: act" for c in cols)
    out = ["Each cell: findings | precision | acted on (TP share).", "",
           f"| framework | {head} |", "|---|" + "---:|" * (3 * len(cols))]
    frameworks = [fw for fw in ("tf", "jax") if any(counted[c][0].get(fw) for c in cols)]
    for fw in frameworks:
        name = {"tf": "TensorFlow", "jax": "JAX"}[fw]
        out.append(f"| **{name}** | " + " | ".join(_cells(counted[c][0].get(fw, Counter())) for c in cols) + " |")
    out += ["", "Per rule:", "", f"| framework | rule | {head} |", "|---|---|" + "---:|" * (3 * len(cols))]
    for fw, code in sorted({k for c in cols for k in counted[c][1]}):
        name = {"tf": "TensorFlow", "jax": "JAX"}[fw]
        out.append(f"| {name} | {code} | " + " | ".join(_cells(counted[c][1].get((fw, code), Counter())) for c in cols) + " |")
    return out


#: What a reader of an audit's tables must know that the figures do not say (keyed by its fix-from
#: half): a change made after its held-back findings were read counts in its "after" column.
_CAVEATS = {
    "AO": "**AP after is not a clean measure.** It includes two changes the lead made after reading AP's "
          "findings: STG301's fact that a Function defined again under the same name is a new Function "
          "(34 false findings of one repository's tests) and STG601's preview tier in TensorFlow code (11, "
          "decided from the pooled held-back figure, 2 true in 14). The helpers' work alone, made without "
          "reading AP: 111 findings, 0.55 (act 0.28). One repository (sionna) held 75 of AP's 117 findings "
          "before; the other 43 gave 42 findings, 0.98.",
}
_CAVEATS["AS"] = ("**One repository holds most of AT.** rlutils gave 35 of AT's 46 findings before, all "
                  "intended ('Tracing ...' notices its author prints in traced functions); the other 36 "
                  "repositories gave 11 findings: TP 4, intended 5, FP 2 (0.82, act 0.36). After: the one "
                  "change is AT1's false STG402 gone (the values a parameter has in every trace), made without "
                  "reading AT; one helper's grep of the notes printed AT's paragraphs while it fixed AS's classes "
                  "(a py_function lambda, a flag-cleared build, a recursion on a static rank), none of which "
                  "touches an AT finding.")
_CAVEATS["AQ"] = ("**AR after has one new finding, false**: the row-loop fact `range(x.shape[0])` (taken from a "
                  "fixed bug, not from AR) met STG503's claim under `jax.vmap` alone, which keeps no trace and "
                  "compiles nothing (the program does not grow). AR's nine false findings before are all still "
                  "there: none of the session's facts reaches them (AR1 a vmap returning a Python list, AR2 a "
                  "new array size per iteration, AR3 a call that cannot bind). The lead then moved STG503 under "
                  "vmap or grad alone to preview (after reading that finding, so not a clean measure): 28 "
                  "findings, 0.68, the table's 29 less that one.")
_CAVEATS["BC"] = ("**BD is a small sample.** Its 40 repositories (four lists, the fourth added in a second round) "
                  "gave 8 default-tier findings before (95% interval of the precision about 0.68 to 1.00); each "
                  "search for more ended with the fetch allowance the audit set itself. With `--preview` the first "
                  "three lists' 18 snapshots give 16, 0.31 (the 12 of preview rules, read after BD: 1 intended, "
                  "11 FP). BC's 27 are 19 tracing demonstrations of one JAX tutorial, 6 other intended findings "
                  "and 1 false (a new jit per benchmark iteration that is a new program anyway).")


def render_doc(runs: dict[str, tuple[list[dict], dict]]) -> str:
    """The fresh-audit section of docs/accuracy.md: per pinned list of `LISTS`, its halves, then per
    framework and per rule each run of the held-back half and of the fix-from half (`runs` keyed
    "B before", "F after", ...)."""
    out = [FRESH_MARKER, "", "## Fresh code: an audit of repositories nobody here had tuned on", "",
           "**Question:** on real TensorFlow and JAX code that nobody working on stagelint had read, how many "
           "findings are true (a real bug or hazard: **TP**; true but plainly intended: **intended**), and "
           "how many would a user act on (TP alone)? **Target:** default-tier precision "
           "((TP + intended) / all) of at least 0.90 per framework on the held-back half.", "",
           f"**Method:** each audit is a list of repositories pinned by commit (`bench/fresh_repos*.txt`), "
           f"written down before any finding was read and split per framework with a fixed seed by "
           f"`bench/fresh_split.py` (seed {SEED}) into a half to fix from and a held-back half. Fixes came only "
           f"from the first; the held-back half was measured before and after, every finding read both times "
           f"(`bench/fresh_verdicts_<half>_<run>.csv`: verdict and reason per finding, checked with "
           f"TensorFlow 2.21 / JAX 0.10.2 where in doubt). `python bench/fresh_audit.py run --root DIR --half F "
           f"--out ...` re-runs stagelint on a checkout of the pinned commits (the fetched code is never committed); "
           f"parse diagnostics (STG000) are counted apart. A `now` or session (`s15`, `s15b`, `s19`, `s22`) run is a later "
           f"session's re-run of an earlier held-back half, its new findings read (the tables show a half's latest "
           f"re-run; session re-runs were made at main " + ", ".join(f"`{m}` ({w})" for w, m in MAINS.items()) + "). The classes of error and what each fix states: "
           f"`{NOTES}`."]
    for fix, held in dict.fromkeys(LISTS.values()):
        # Each half's before and after, and of its later re-readings only the latest.
        cols = []
        for half in (held, fix):
            have = [w for w in WHENS if f"{half} {w}" in runs]
            cols += [f"{half} {w}" for w in have if w in WHENS[:2]] + [f"{half} {w}" for w in have if w not in WHENS[:2]][-1:]
        if not cols:
            continue
        halves = halves_of(fix)
        lists = ", ".join(f"`bench/{path.name}`" for path, names in LISTS.items() if names == (fix, held))
        out += ["", f"### {_AUDITS.get(fix, fix)}: {lists}", "",
                "| half | repositories (framework) |", "|---|---|"]
        for half, rows in halves.items():
            role = "fix from" if half == fix else "held back"
            out.append(f"| {half} ({role}) | " + ", ".join(f"{r} ({fw})" for r, _, fw in rows) + " |")
        out += [""] + _tables(runs, cols)
        if fix in _CAVEATS:
            out += ["", _CAVEATS[fix]]
    out += ["", "### Every held-back half together", "",
            "A rule whose pooled figure stays under 0.80 here belongs in the preview tier for that framework "
            "until it earns its place (`python bench/fresh_audit.py pool`)."]
    out += [""] + pooled(latest_runs())
    out += ["", f"### Every held-back half's clean reading together, since the fifteenth audit ({CLEAN_SINCE})", "",
            "The figures above count the fixes each half's own reading led to; these do not. Each held-back half "
            "read once, before anything was fixed from it, at its audit's start (`python bench/fresh_audit.py pool "
            f"--clean --since {CLEAN_SINCE}`): how the model, session by session, did on code nobody here had read."]
    out += [""] + pooled(clean_runs(CLEAN_SINCE), clean=True)
    return "\n".join(out) + "\n"


def doc(args) -> int:
    runs = {}
    for names in LISTS.values():
        for half in names:
            for when in WHENS:
                findings = HERE / f"fresh_findings_{half}_{when}.jsonl"
                verdicts = HERE / f"fresh_verdicts_{half}_{when}.csv"
                if findings.exists() and verdicts.exists():
                    runs[f"{half} {when}"] = (read_findings(str(findings)), read_verdicts(str(verdicts)))
    text = DOC.read_text(encoding="utf-8")
    at = text.find(FRESH_MARKER)
    head = text if at < 0 else text[:at]
    DOC.write_text(head.rstrip("\n") + "\n\n" + render_doc(runs), encoding="utf-8")
    return 0


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run")
    r.add_argument("--root", required=True, help="folder holding one owner+name folder per repository")
    r.add_argument("--half", default="B", help="a half of bench/fresh_split.py's LISTS (A to Z) or all")
    r.add_argument("--out", required=True)
    r.add_argument("--jobs", type=int, default=None)
    r.add_argument("--repos", help="only these repositories of the half (owner/name, comma-separated)")
    t = sub.add_parser("table")
    t.add_argument("--findings", required=True)
    t.add_argument("--verdicts", required=True)
    t.add_argument("--check", action="store_true")
    t.add_argument("--unread", action="store_true",
                   help="list each finding without a verdict (e.g. a re-run read against the before run's verdicts)")
    pl = sub.add_parser("pool", help="per rule, the held-back halves' latest read runs added up")
    pl.add_argument("--halves", help="comma-separated halves (default: every list's held-back half)")
    pl.add_argument("--upto", choices=WHENS, help="each half's latest reading no later than this one (e.g. s15)")
    pl.add_argument("--clean", action="store_true",
                    help="each held-back half's before reading instead (made before anything was fixed from it)")
    pl.add_argument("--since", help="with --clean: the held-back halves from this one on (e.g. BD)")
    c = sub.add_parser("carry", help="a reading's verdicts from the same half's earlier readings (unchanged findings)")
    c.add_argument("--half", required=True)
    c.add_argument("--when", required=True, choices=WHENS[1:],
                   help="the reading: bench/fresh_findings_<half>_<when>.jsonl, verdicts to fresh_verdicts_<half>_<when>.csv")
    sub.add_parser("doc", help="rewrite the fresh-audit section of docs/accuracy.md")
    args = p.parse_args(argv)
    return {"run": run, "table": table, "pool": pool, "carry": carry, "doc": doc}[args.cmd](args)


if __name__ == "__main__":
    sys.exit(main())
