"""Recall on real bugs: does stagelint find the staging bugs that projects later fixed?

    python bench/fixed_bugs.py run --mirrors /work/.mirror --out bench/fixed_bugs_results.jsonl
    python bench/fixed_bugs.py table --results bench/fixed_bugs_results.jsonl
    python bench/fixed_bugs.py doc --results bench/fixed_bugs_results.jsonl     # writes docs/recall.md

`bench/fixed_bugs.txt` lists commits of public repositories whose diff fixes a tf.function / Keras /
tf.data / JAX staging bug, one bug a line: the repository, the fix commit, the file, the pre-fix
line (or `first-last` when the rule may report anywhere in one statement), the rule that ought to
flag it, the pre-fix line's text and one line of why (fields separated by ` | `; `#` starts a
comment). `run` takes each bug's repository from a local mirror with its full history
(`MIRRORS/owner+name/repo`, a bare git directory, or `.../repo/.git`), writes the pre-fix commit's
(first parent's) file and the package around it, blob by blob, to a snapshot under `--root`
(never committed here), runs `stagelint check --no-cache --output-format json` on it in the default
tier and again with `--preview`, and does the same at the fix commit. Per bug it records:

- `default`: the expected rule reported at the pre-fix line in the default tier;
- `preview`: reported only with `--preview`;
- `missed`: not reported in either;

and, at the fix commit, whether the finding went away (`gone`: no finding of that rule on a line
whose text is the pre-fix line's; `stays`: one is still there). `table` prints the figures: recall
in the default tier and with `--preview` (found / bugs), per rule and per framework. `doc` writes
the page `docs/recall.md` from the results file (the reasons for the misses are read by hand and
kept in `bench/fresh_audit_notes.md`, section "Recall on fixed bugs").
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from collections import Counter
from dataclasses import asdict, dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
BUGS = HERE / "fixed_bugs.txt"
RESULTS = HERE / "fixed_bugs_results.jsonl"
DOC = ROOT / "docs" / "recall.md"
#: A package bigger than this many Python files is cut to the file's own folder (a snapshot of
#: jax-ml/jax's whole `jax/` would cost minutes per run and say nothing more about one line).
MAX_FILES = 150
VERDICTS = ("default", "preview", "missed")


@dataclass(frozen=True)
class Bug:
    repo: str
    fix: str
    path: str
    first: int
    last: int
    rule: str
    text: str
    why: str
    framework: str

    @property
    def key(self) -> str:
        return f"{self.repo}@{self.fix[:10]}:{self.path}:{self.first}:{self.rule}"


def parse(text: str) -> list[Bug]:
    """The bugs of a `fixed_bugs.txt` text; a malformed line raises ValueError naming it."""
    bugs = []
    for n, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        parts = [p.strip() for p in line.split(" | ")]
        if len(parts) != 8:
            raise ValueError(f"line {n}: {len(parts)} fields, want 8: {raw!r}")
        repo, fix, path, lines, rule, framework, text_, why = parts
        first, _, last = lines.partition("-")
        if "/" not in repo or not fix or not first.isdigit() or (last and not last.isdigit()):
            raise ValueError(f"line {n}: bad repository, commit or line: {raw!r}")
        if framework not in ("tf", "jax"):
            raise ValueError(f"line {n}: framework is tf or jax, not {framework!r}")
        bugs.append(Bug(repo, fix, path, int(first), int(last or first), rule, text_, why, framework))
    return bugs


def load(path: Path = BUGS) -> list[Bug]:
    return parse(path.read_text(encoding="utf-8"))


# -- verdicts --------------------------------------------------------------------------------------


def _at(bug: Bug, f: dict) -> bool:
    return f.get("code") == bug.rule and f.get("path") == bug.path and bug.first <= int(f["line"]) <= bug.last


def verdict(bug: Bug, default: list[dict], preview: list[dict]) -> str:
    """`default` when the rule is reported at the bug's line(s) without --preview, `preview` when
    only with it, `missed` otherwise."""
    if any(_at(bug, f) for f in default):
        return "default"
    if any(_at(bug, f) for f in preview):
        return "preview"
    return "missed"


def after_fix(bug: Bug, fixed_source: str | None, findings: list[dict]) -> str:
    """At the fix commit: `gone` when no finding of the rule sits on a line whose text is the
    pre-fix line's (or the file is gone), `stays` otherwise."""
    if fixed_source is None:
        return "gone"
    lines = fixed_source.splitlines()
    want = bug.text.strip()
    same = {i + 1 for i, text in enumerate(lines) if text.strip() == want}
    hit = [f for f in findings if f.get("code") == bug.rule and f.get("path") == bug.path and int(f["line"]) in same]
    return "stays" if hit else "gone"


def line_matches(bug: Bug, source: str) -> bool:
    """The pre-fix file holds the recorded text on one of the recorded lines."""
    lines = source.splitlines()
    return any(lines[n - 1].strip() == bug.text.strip() for n in range(bug.first, bug.last + 1) if 0 < n <= len(lines))


# -- snapshots -------------------------------------------------------------------------------------


def git_dir(mirrors: Path, repo: str) -> Path:
    base = mirrors / repo.replace("/", "+")
    for cand in (base / "repo", base / "repo" / ".git", base):
        if (cand / "HEAD").exists():
            return cand
    raise FileNotFoundError(f"no mirror of {repo} under {mirrors}")


def _git(gd: Path, *args: str, binary: bool = False):
    out = subprocess.run(["git", f"--git-dir={gd}", *args], capture_output=True, check=False)
    if out.returncode:
        return None
    return out.stdout if binary else out.stdout.decode("utf-8", "replace")


def package_of(paths: list[str], path: str) -> list[str]:
    """The Python files snapshotted around `path`: its top-level folder's, or only its own folder's
    when the top-level folder holds more than MAX_FILES (a file at the root: the root's own files)."""
    parts = path.split("/")
    if len(parts) == 1:
        return [p for p in paths if "/" not in p]
    top = parts[0] + "/"
    chosen = [p for p in paths if p.startswith(top)]
    if len(chosen) > MAX_FILES:
        folder = "/".join(parts[:-1]) + "/"
        chosen = [p for p in paths if p.startswith(folder) and "/" not in p[len(folder):]]
    return chosen


def snapshot(gd: Path, commit: str, path: str, dest: Path) -> str | None:
    """Write the package around `path` at `commit` to `dest` blob by blob (a blob the mirror lacks
    is left out); return the text of `path` itself, None when it does not exist there."""
    listing = _git(gd, "ls-tree", "-r", "--full-tree", commit)
    if listing is None:
        raise RuntimeError(f"{gd}: no commit {commit}")
    blobs = {}
    for row in listing.splitlines():
        meta, _, name = row.partition("\t")
        mode, kind, sha = meta.split()
        if kind == "blob" and name.endswith(".py") and mode != "120000":
            blobs[name] = sha
    own = None
    for name in package_of(sorted(blobs), path) + ([path] if path in blobs else []):
        data = _git(gd, "cat-file", "blob", blobs[name], binary=True)
        if data is None:
            continue
        target = dest / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        if name == path:
            own = data.decode("utf-8", "replace")
    return own


#: The stagelint checkout that is measured (its root goes first on PYTHONPATH): `run --stagelint DIR`.
STAGELINT = ROOT


_RUNS: dict[tuple, list[dict]] = {}


def stagelint(folder: Path, target: str, preview: bool) -> list[dict]:
    """The findings of one snapshot, once per run (two bugs of one commit share it)."""
    key = (str(folder), target, preview, str(STAGELINT))
    if key not in _RUNS:
        _RUNS[key] = _stagelint(folder, target, preview)
    return _RUNS[key]


def _stagelint(folder: Path, target: str, preview: bool) -> list[dict]:
    cmd = [sys.executable, "-m", "stagelint", "check", "--no-cache", "--output-format", "json", target]
    if preview:
        cmd.append("--preview")
    env = dict(os.environ, PYTHONPATH=str(STAGELINT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.run(cmd, cwd=folder, capture_output=True, text=True, check=False, env=env)
    try:
        found = json.loads(proc.stdout)
    except json.JSONDecodeError:
        raise SystemExit(f"stagelint failed in {folder} (exit {proc.returncode}):\n{proc.stderr[-2000:]}")
    return [{"code": f["code"], "path": f["path"], "line": f["line"], "message": f.get("message", "")} for f in found]


def check_commit(gd: Path, commit: str, bug: Bug, root: Path) -> tuple[str | None, list[dict], list[dict]]:
    dest = root / f"{bug.repo.replace('/', '+')}@{commit[:12]}"
    if not dest.exists():
        snapshot(gd, commit, bug.path, dest)
    source = (dest / bug.path).read_text(encoding="utf-8", errors="replace") if (dest / bug.path).exists() else None
    target = bug.path.split("/")[0] if "/" in bug.path else "."
    if not (dest / target).exists():
        target = "."
    return source, stagelint(dest, target, False), stagelint(dest, target, True)


def run(args) -> int:
    global STAGELINT
    STAGELINT = Path(args.stagelint).resolve()
    bugs = load(Path(args.bugs))
    if args.only:
        bugs = [b for b in bugs if args.only in b.key]
    root = Path(args.root)
    root.mkdir(parents=True, exist_ok=True)
    head = subprocess.run(["git", "-C", str(STAGELINT), "rev-parse", "--short", "HEAD"], capture_output=True,
                          text=True, check=False).stdout.strip()
    label = args.label or head
    rows = read_results(args.out) if args.resume and Path(args.out).exists() else []
    done = {_key(r) for r in rows}
    for bug in bugs:
        if (bug.repo, bug.fix, bug.path, bug.first, bug.rule) in done:
            continue
        start = time.perf_counter()
        gd = git_dir(Path(args.mirrors), bug.repo)
        parent = (_git(gd, "rev-parse", f"{bug.fix}^") or "").strip()
        fix = (_git(gd, "rev-parse", bug.fix) or "").strip()
        source, default, preview = check_commit(gd, parent, bug, root)
        if source is None or not line_matches(bug, source):
            raise SystemExit(f"{bug.key}: the pre-fix file does not hold {bug.text!r} at line {bug.first}")
        v = verdict(bug, default, preview)
        if v == "missed" and any(f["code"] == "STG000" and f["path"] == bug.path for f in default):
            v = "unparsable"  # the pre-fix file does not parse: not counted (the list should not hold it)
        fixed_source, fdefault, fpreview = check_commit(gd, fix, bug, root)
        row = asdict(bug) | {
            "parent": parent, "fix": fix, "verdict": v, "stagelint": label,
            "after_fix": after_fix(bug, fixed_source, fpreview) if v != "missed" else "",
            "near": sorted({f"{f['code']}:{f['line']}" for f in preview if f["path"] == bug.path
                            and abs(int(f["line"]) - bug.first) <= 15}),
        }
        rows.append(row)
        with open(args.out, "a" if (args.resume or len(rows) > 1) else "w", encoding="utf-8") as out:
            out.write(json.dumps(row, sort_keys=True) + "\n")  # row by row: `--resume` goes on from here
        print(f"{v:8} {row['after_fix']:6} {bug.key}  ({time.perf_counter() - start:.1f}s)", flush=True)
    print("\n".join(summary(rows)))
    return 0


# -- figures ---------------------------------------------------------------------------------------


def read_results(path: str | Path) -> list[dict]:
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def figures(rows: list[dict]) -> dict[str, Counter]:
    """Per group ("all", "rule STGnnn", "framework tf|jax"): bugs, found by default, found with
    --preview (default + preview-only), gone at the fix (of those found)."""
    out: dict[str, Counter] = {}
    for row in rows:
        if row["verdict"] not in VERDICTS:
            continue
        for group in ("all", f"rule {row['rule']}", f"framework {row['framework']}"):
            c = out.setdefault(group, Counter())
            c["bugs"] += 1
            c["default"] += row["verdict"] == "default"
            c["with_preview"] += row["verdict"] in ("default", "preview")
            c["gone"] += row.get("after_fix") == "gone"
    return out


def _share(n: int, d: int) -> str:
    return f"{n}/{d} ({n / d:.2f})" if d else "0/0"


def summary(rows: list[dict]) -> list[str]:
    figs = figures(rows)
    lines = ["| group | bugs | found (default) | found (default + preview) | finding gone at the fix |",
             "|---|---:|---:|---:|---:|"]
    order = ["all"] + sorted(k for k in figs if k.startswith("framework")) + sorted(k for k in figs if k.startswith("rule"))
    for key in order:
        c = figs[key]
        lines.append(f"| {key} | {c['bugs']} | {_share(c['default'], c['bugs'])} | "
                     f"{_share(c['with_preview'], c['bugs'])} | {_share(c['gone'], c['with_preview'])} |")
    return lines


def table(args) -> int:
    rows = read_results(args.results)
    print("\n".join(summary(rows)))
    for row in rows:
        print(f"{row['verdict']:8} {row.get('after_fix', ''):6} {row['rule']} {row['repo']} "
              f"{row['path']}:{row['first']}  {row['why']}")
    return 0


def render_doc(rows: list[dict], after: list[dict] | None = None) -> str:
    repos = sorted({r["repo"] for r in rows})
    measured = sorted({r.get("stagelint", "") for r in rows} - {""})
    later = sorted({r.get("stagelint", "") for r in after or ()} - {""} - set(measured))
    out = ["# Recall: real staging bugs that projects fixed", "",
           "<!-- generated by `python bench/fixed_bugs.py doc`; edit bench/fixed_bugs.txt or bench/fixed_bugs.py, not this page -->", "",
           "**Question:** of the tf.function, Keras, tf.data and JAX staging bugs that real projects found and fixed "
           "themselves, how many would `stagelint check` have reported on the code before the fix? Precision "
           "([accuracy.md](accuracy.md)) says how much of what stagelint reports is true; this page says how much of "
           "what was really wrong it reports.", "",
           f"**Method:** `bench/fixed_bugs.txt` lists {len(rows)} fix commits from {len(repos)} public repositories, "
           "each read by hand: the diff itself fixes a staging pitfall, and the line says which rule ought to have "
           "flagged the code before the fix. None of these repositories is in the held-back audits. "
           "`bench/fixed_bugs.py run` checks out the fix commit's parent (the file and the package around it, from "
           "a mirror with the repository's history), runs `stagelint check --no-cache --output-format json` in the "
           "default tier and with `--preview`, and does the same at the fix commit, where the finding should be "
           "gone. A bug counts as found when the expected rule is reported at the recorded line.", "",
           "## Figures", "", f"Measured with stagelint {', '.join(measured) or '(this checkout)'}:", ""]
    out += summary(rows)
    if after:
        out += ["", f"And with {', '.join(later) or 'a later stagelint'} (the rules whose facts changed, checked again):", ""]
        out += summary(after)
    later_verdict = {_key(r): r for r in after or ()}
    out += ["", "## Every bug", "", "| repository | fix | file:line | rule | found | at the fix | why |",
            "|---|---|---|---|---|---|---|"]
    for r in rows:
        found = r["verdict"]
        new = later_verdict.get(_key(r))
        if new is not None and new["verdict"] != found:
            found = f"{found}; {new['verdict']} with {new.get('stagelint') or 'the later stagelint'}"
        at_fix = (new or r).get("after_fix") or "-"
        out.append(f"| {r['repo']} | `{r['fix'][:10]}` | `{r['path']}:{r['first']}` | {r['rule']} | "
                   f"{found} | {at_fix} | {r['why']} |")
    out += ["", "Why each missed bug is missed (which fact the model lacks) is written down in "
            "`bench/fresh_audit_notes.md`, section \"Recall on fixed bugs\"."]
    return "\n".join(out) + "\n"


def doc(args) -> int:
    after = read_results(args.after) if args.after else None
    DOC.write_text(render_doc(read_results(args.results), after), encoding="utf-8")
    return 0


def _key(row: dict) -> tuple:
    return (row["repo"], row["fix"], row["path"], row["first"], row["rule"])


def merge(args) -> int:
    """The results of `--results` with the rows of `--rerun` (the same bugs checked again, e.g.
    with a later stagelint) in their place: `--out`."""
    rerun = {_key(r): r for r in read_results(args.rerun)}
    rows = [rerun.get(_key(r), r) for r in read_results(args.results)]
    with open(args.out, "w", encoding="utf-8") as out:
        for row in rows:
            out.write(json.dumps(row, sort_keys=True) + "\n")
    print("\n".join(summary(rows)))
    return 0


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run")
    r.add_argument("--bugs", default=str(BUGS))
    r.add_argument("--mirrors", default="/work/.mirror")
    r.add_argument("--root", default="/tmp/fixrecall/snap")
    r.add_argument("--out", default=str(RESULTS))
    r.add_argument("--only", default="", help="only bugs whose key contains this")
    r.add_argument("--stagelint", default=str(ROOT), metavar="DIR", help="the stagelint checkout to measure")
    r.add_argument("--label", default="", help="what that stagelint is, for the results (default: its commit)")
    r.add_argument("--resume", action="store_true", help="keep the rows already in --out and check the others")
    t = sub.add_parser("table")
    t.add_argument("--results", default=str(RESULTS))
    d = sub.add_parser("doc")
    d.add_argument("--results", default=str(RESULTS))
    d.add_argument("--after", default="", help="a later stagelint's results, shown beside")
    m = sub.add_parser("merge")
    m.add_argument("--results", default=str(RESULTS))
    m.add_argument("--rerun", required=True)
    m.add_argument("--out", required=True)
    args = p.parse_args(argv)
    return {"run": run, "table": table, "doc": doc, "merge": merge}[args.cmd](args)


if __name__ == "__main__":
    sys.exit(main())
