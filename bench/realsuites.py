"""`stagelint run` on real test modules of JAX and Keras 3 projects, against plain pytest on the same modules.

    python bench/realsuites.py --setup          # once: the pinned packages and the projects' sources
    python bench/realsuites.py [--only NAME[,NAME...]] [--exclude NAME] [--json FILE]

Run it with the interpreter of the environment to measure (here /work/main/.venv/bin/python, which
holds TensorFlow CPU 2.21, JAX 0.10.2 and the pinned packages below). For every pinned module it
runs plain pytest, then `stagelint run`, one after the other, and prints the tests passed in plain
pytest / the graph run / the eager run, the wall time of each and the ratio, and every confirmed
and runtime-only finding with its evidence; bench/realsuites_verdicts.csv holds the verdict of a
person who read each one (true/false, with the reason), and the script says which findings have
none. The target (issue 24): both runs' outcomes equal to plain pytest's wherever plain pytest
passes, no false confirmed or runtime-only finding, a median ratio <= 1.15x plain pytest.

Nothing fetched is committed: everything lives in bench/.realsuites/ (git-ignored).

Setup. `--setup` installs the pinned packages (PINS) into the running interpreter's environment
with pip (the projects themselves without their dependencies, which the environment already has:
their pins would ask for other JAX or TensorFlow versions), then lays out each project's sources in
bench/.realsuites/src/<project>/, a project root of its own, because `stagelint run` treats
site-packages as library code: it lints, traces and reports the project, not what is installed.
The sources come from the pinned version's wheel (optax, chex, haiku and sonnet ship their tests
inside the package), its sdist (flax and blackjax ship tests/ and their pytest configuration), or
the pinned tag of the repository (equinox, keras: `fetch` brings a mirror to
/work/.mirror/OWNER+NAME/repo, or pass --mirrors DIR), so each project's own pytest configuration
(`filterwarnings = error`, conftest.py, markers) is part of what is measured.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tarfile
import time
import zipfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
HOME = REPO / "bench" / ".realsuites"
SRC = HOME / "src"
VERDICTS = REPO / "bench" / "realsuites_verdicts.csv"
TARGET_RATIO = 1.15

#: Installed into the measured environment by --setup, besides TensorFlow CPU 2.21 and JAX 0.10.2
#: (left as they are); the first group with their dependencies, the second without.
PINS = ["chex==0.1.92", "blackjax==1.7.1", "dm-haiku==0.0.17", "dm-tree", "tabulate", "cloudpickle",
        "beartype"]  # beartype: equinox's tests
PINS_NO_DEPS = ["dm-sonnet==2.0.2"]

JAX_ENV = {"JAX_PLATFORMS": "cpu"}
KERAS_TF = {"KERAS_BACKEND": "tensorflow"}

#: project -> (source, packages or tag, environment, test modules relative to its root). A source
#: is ("wheel", "name==version", [packages]), ("sdist", "name==version") or ("git", "owner/name", tag,
#: commit, [paths]): the paths of the tagged commit the tests need (a mirror may lack large data files).
PROJECTS = {
    "optax": (("wheel", "optax==0.2.8", ["optax"]), JAX_ENV, [
        "optax/_src/update_test.py",
        "optax/_src/numerics_test.py",
        "optax/_src/lookahead_test.py",
        "optax/_src/combine_test.py",
        "optax/_src/transform_test.py",
    ]),
    "chex": (("wheel", "chex==0.1.92", ["chex"]), JAX_ENV, [
        "chex/_src/variants_test.py",
        "chex/_src/dimensions_test.py",
        "chex/_src/dataclass_test.py",
    ]),
    "flax-linen": (("sdist", "flax==0.12.8"), JAX_ENV, [
        "tests/linen/linen_dtypes_test.py",
        "tests/linen/linen_activation_test.py",
        "tests/linen/linen_batch_apply_test.py",
    ]),
    "flax-nnx": (("sdist", "flax==0.12.8"), JAX_ENV, [
        "tests/nnx/rngs_test.py",
        "tests/nnx/variable_test.py",
        "tests/nnx/ema_test.py",
        "tests/nnx/helpers_test.py",
    ]),
    "equinox": (("git", "patrick-kidger/equinox", "v0.13.8", "dfadb04884a0fc067fb85282c994f8e5c106941f",
                 ["equinox", "tests", "pyproject.toml"]),
                JAX_ENV, [
        "tests/test_jit.py",
        "tests/test_filters.py",
        "tests/test_update.py",
        "tests/test_callback.py",
    ]),
    "blackjax": (("sdist", "blackjax==1.7.1"), JAX_ENV, [
        "tests/mcmc/test_proposal.py",
        "tests/mcmc/test_metrics.py",
        "tests/test_util.py",
    ]),
    "dm-haiku": (("wheel", "dm-haiku==0.0.17", ["haiku"]), JAX_ENV, [
        "haiku/_src/basic_test.py",
        "haiku/_src/layer_norm_test.py",
        "haiku/_src/stateful_test.py",
    ]),
    "keras": (("git", "keras-team/keras", "v3.15.1", "250b42181ce9f37df68319d8f4753ec89a349a43",
               ["keras", "conftest.py", "pyproject.toml"]), KERAS_TF, [
        "keras/src/layers/core/dense_test.py",
        "keras/src/optimizers/sgd_test.py",
        "keras/src/layers/activations/relu_test.py",
        "keras/src/metrics/accuracy_metrics_test.py",
    ]),
    "dm-sonnet": (("wheel", "dm-sonnet==2.0.2", ["sonnet"]), {}, [
        "sonnet/src/linear_test.py",
        "sonnet/src/moving_averages_test.py",
        "sonnet/src/optimizers/adam_test.py",
    ]),
}


# Setup -------------------------------------------------------------------------------------------


def _pip(*args: str) -> None:
    subprocess.run([sys.executable, "-m", "pip", *args], check=True)


def _download(spec: str, kind: str) -> Path:
    store = HOME / "downloads"
    store.mkdir(parents=True, exist_ok=True)
    name, version = spec.split("==")
    binary = ["--only-binary", ":all:"] if kind == "wheel" else ["--no-binary", ":all:"]
    _pip("download", "-q", "--no-deps", *binary, spec, "-d", str(store))
    stem = f"{name.replace('-', '_')}-{version}"
    pattern = f"{stem}-*.whl" if kind == "wheel" else f"{stem}.tar.gz"
    found = list(store.glob(pattern)) or list(store.glob(pattern.replace("_", "-", 1)))
    if not found:
        raise SystemExit(f"{spec}: no {kind} in {store}")
    return found[0]


def _lay_out(project: str, source: tuple, mirrors: Path) -> None:
    root = SRC / project
    shutil.rmtree(root, ignore_errors=True)
    root.mkdir(parents=True)
    kind = source[0]
    if kind == "wheel":
        packages = source[2]
        (root / "setup.cfg").write_text("# the project root of the bench's copy\n")
        with zipfile.ZipFile(_download(source[1], "wheel")) as zf:
            for member in zf.namelist():
                if member.split("/")[0] in packages:
                    zf.extract(member, root)
    elif kind == "sdist":
        with tarfile.open(_download(source[1], "sdist")) as tf:
            for member in tf.getmembers():
                parts = member.name.split("/", 1)
                if len(parts) == 2 and parts[1] and (member.isfile() or member.isdir()):
                    member.name = parts[1]
                    tf.extract(member, root, filter="data")
    else:
        _, repo, _, commit, paths = source
        git_dir = mirrors / repo.replace("/", "+") / "repo"
        archive = subprocess.run(["git", "--git-dir", str(git_dir), "archive", "--format=tar", commit, *paths],
                                 check=True, capture_output=True).stdout
        with tarfile.open(fileobj=io.BytesIO(archive)) as tf:
            tf.extractall(root, filter="data")


def setup(mirrors: Path) -> None:
    _pip("install", "-q", *PINS)
    _pip("install", "-q", "--no-deps", *PINS_NO_DEPS)
    done: dict[str, str] = {}
    for project, (source, _, _) in PROJECTS.items():
        if source[1] in done:  # flax linen and nnx share one copy
            shutil.rmtree(SRC / project, ignore_errors=True)
            shutil.copytree(SRC / done[source[1]], SRC / project)
            continue
        _lay_out(project, source, mirrors)
        done[source[1]] = project
    print(f"sources: {SRC}")


# The bench -----------------------------------------------------------------------------------------


def _env(extra: dict[str, str]) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "STAGELINT_"))}
    env.update(TF_CPP_MIN_LOG_LEVEL="2", **extra)
    return env


def _counts(text: str) -> dict[str, int]:
    """pytest's closing line: `3 passed, 1 failed, 2 skipped in 4.5s`."""
    lines = [ln for ln in text.splitlines() if re.search(r"\d+ (passed|failed|skipped|error)", ln)]
    found = {}
    for n, what in re.findall(r"(\d+) (passed|failed|skipped|errors?|xfailed|xpassed)", lines[-1] if lines else ""):
        found["errors" if what.startswith("error") else what] = int(n)
    return found


def _cpu() -> float:
    """User + system CPU seconds of the finished children (and theirs) so far."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def plain(module: str, cwd: Path, env: dict[str, str]) -> tuple[float, float, dict[str, int]]:
    """Plain `pytest MODULE`: wall and CPU seconds, the closing line's counts. Its options go through
    PYTEST_ADDOPTS: absl's flag parsing reads sys.argv and rejects `-q`, as it would have rejected
    stagelint's own options."""
    start, cpu = time.perf_counter(), _cpu()
    proc = subprocess.run([sys.executable, "-m", "pytest", module], cwd=cwd, capture_output=True, text=True,
                          env={**env, "PYTEST_ADDOPTS": "-q -p no:cacheprovider"})
    return time.perf_counter() - start, _cpu() - cpu, _counts(proc.stdout)


def staged(module: str, cwd: Path, env: dict[str, str], keep: Path) -> tuple[float, float, dict, int, str]:
    """`stagelint run MODULE` with this checkout's stagelint (PYTHONPATH: the measured code, not
    whatever the environment has installed)."""
    start, cpu = time.perf_counter(), _cpu()
    path = os.pathsep.join(filter(None, [env.get("PYTHONPATH"), str(REPO)]))
    proc = subprocess.run([sys.executable, "-m", "stagelint", "run", module, "--output-format", "json",
                           "--keep-records", str(keep)], cwd=cwd, env={**env, "PYTHONPATH": path},
                          capture_output=True, text=True)
    seconds, cpu = time.perf_counter() - start, _cpu() - cpu
    try:
        report = json.loads(proc.stdout)
    except ValueError:
        report = {}
    last = (proc.stderr.strip().splitlines() or [""])[-1]
    return seconds, cpu, report, proc.returncode, last


def _passed(counts: dict) -> str:
    return f"{counts.get('passed', 0)}" + (f"/{counts.get('failed', 0)}f" if counts.get("failed") else "") + \
        (f"/{counts.get('errors', 0)}e" if counts.get("errors") else "")


def _same_outcomes(plain_counts: dict, run: dict) -> bool:
    return all(plain_counts.get(k, 0) == run.get(k, 0) for k in ("passed", "failed", "errors"))


def read_verdicts() -> dict[tuple[str, str, int, str], tuple[str, str]]:
    """(module, path, line, code) -> (true/false, the reason), from bench/realsuites_verdicts.csv."""
    if not VERDICTS.exists():
        return {}
    with VERDICTS.open(newline="") as fh:
        return {(r["module"], r["path"], int(r["line"]), r["code"]): (r["verdict"], r["reason"])
                for r in csv.DictReader(fh)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--setup", action="store_true", help="install the pins and lay out the sources, then stop")
    parser.add_argument("--mirrors", default="/work/.mirror", help="folder of the git mirrors (OWNER+NAME/repo)")
    parser.add_argument("--only", help="only the projects or modules whose name contains this (or one of these, "
                                       "comma-separated)")
    parser.add_argument("--exclude", help="leave out the projects or modules whose name contains this")
    parser.add_argument("--json", help="also write the results to this file")
    parser.add_argument("--warm", action="store_true",
                        help="keep the projects' static-check caches of an earlier run (default: each project's first "
                             "module starts cold)")
    args = parser.parse_args(argv)
    if args.setup:
        setup(Path(args.mirrors))
        return 0
    if not SRC.exists():
        print("run `python bench/realsuites.py --setup` first", file=sys.stderr)
        return 2
    verdicts = read_verdicts()
    if not args.warm:
        # `stagelint run` keeps the static check's cache in the project (as `stagelint check` does): the
        # first module of each project is measured cold, the others find what it analysed, as in use.
        for project in PROJECTS:
            shutil.rmtree(SRC / project / ".stagelint_cache", ignore_errors=True)
    rows, alarms, results = [], [], []
    records = HOME / "records"
    for project, (_, extra, modules) in PROJECTS.items():
        for module in modules:
            if args.only and not any(part in project or part in module for part in args.only.split(",")):
                continue
            if args.exclude and (args.exclude in project or args.exclude in module):
                continue
            cwd, env = SRC / project, _env(extra)
            keep = records / project / module.replace("/", "_")
            load = os.getloadavg()[0]
            plain_s, plain_cpu, plain_counts = plain(module, cwd, env)
            run_s, run_cpu, report, code, last = staged(module, cwd, env, keep)
            runs = report.get("runs", {})
            graph = runs.get("graph", {}).get("tests", {})
            eager = runs.get("eager", {}).get("tests", {})
            ratio = run_s / plain_s if plain_s else float("nan")
            cpu_ratio = run_cpu / plain_cpu if plain_cpu else float("nan")
            found = [f for f in report.get("findings", []) if f["verdict"] == "confirmed"]
            status = ",".join(sorted({r.get("status", "?") for r in runs.values()})) or f"no report ({last})"
            # The eager run may fail tests by design (they assert staging itself): equal when every
            # test whose outcome differs between the runs is one stagelint calls not comparable.
            explained = all(o.get("not_comparable") for o in report.get("mode_outcomes", []))
            same = _same_outcomes(plain_counts, graph) and (_same_outcomes(plain_counts, eager) or explained)
            # The eager run's counts hold the graph run's outcome for each test it did not run again.
            rerun = runs.get("eager", {}).get("not_rerun", 0)
            eager_text = _passed(eager) + (f" ({rerun} not rerun)" if rerun else "")
            rows.append((project, module, _passed(plain_counts), _passed(graph), eager_text, plain_s, run_s,
                         ratio, code, status, len(found), "yes" if same else "NO", cpu_ratio, load))
            for f in found:
                f["read"] = verdicts.get((module, f["path"], f["line"], f["code"]))
            results.append({"project": project, "module": module, "plain": plain_counts, "graph": graph,
                            "eager": eager, "eager_not_rerun": rerun, "same_outcomes": same, "plain_seconds": round(plain_s, 1),
                            "run_seconds": round(run_s, 1), "ratio": round(ratio, 2), "plain_cpu": round(plain_cpu, 1),
                            "run_cpu": round(run_cpu, 1), "cpu_ratio": round(cpu_ratio, 2), "load": round(load, 1),
                            "exit": code, "status": status,
                            "findings": found, "float_notes": report.get("float_notes", []),
                            "not_compared_calls": report.get("not_compared_calls", []),
                            "mode_outcomes": report.get("mode_outcomes", []),
                            "test_failures": report.get("test_failures", [])})
            for f in found:
                tag = "runtime-only" if f["runtime_only"] else "confirmed"
                read = f["read"] or ("UNREAD", "no verdict in bench/realsuites_verdicts.csv")
                alarms.append(f"{project} {module}: {f['path']}:{f['line']}: {f['code']} [{tag}] {f['evidence']}\n"
                              f"      read: {read[0]}: {read[1]}")
            print(f"{module}: plain {_passed(plain_counts)} in {plain_s:.1f} s; graph {_passed(graph)}, eager "
                  f"{eager_text}; stagelint run {run_s:.1f} s ({ratio:.2f}x; CPU {plain_cpu:.1f} -> {run_cpu:.1f} s, "
                  f"{cpu_ratio:.2f}x; load {load:.1f}), exit {code}, {status}",
                  file=sys.stderr, flush=True)
    header = ("project", "module", "plain", "graph", "eager", "plain s", "run s", "ratio", "exit", "runs", "alarms",
              "outcomes equal", "CPU ratio", "load")
    table = [header] + [(p, m, a, b, c, f"{x:.1f}", f"{y:.1f}", f"{r:.2f}x", str(e), s, str(n), q, f"{u:.2f}x",
                         f"{ld:.1f}") for p, m, a, b, c, x, y, r, e, s, n, q, u, ld in rows]
    widths = [max(len(str(r[i])) for r in table) for i in range(len(header))]
    for r in table:
        print("  ".join(str(v).ljust(w) for v, w in zip(r, widths)).rstrip())
    ratios = [r[7] for r in rows if r[7] == r[7]]
    if ratios:
        median = statistics.median(ratios)
        print(f"\nmedian ratio stagelint run / plain pytest: {median:.2f}x (target <= {TARGET_RATIO}x) over "
              f"{len(ratios)} modules of {len({r[0] for r in rows})} projects; CPU time "
              f"{statistics.median([r[12] for r in rows if r[12] == r[12]]):.2f}x; load average "
              f"{statistics.median([r[13] for r in rows]):.1f} on {os.cpu_count()} cores")
    unequal = [r[1] for r in rows if r[11] != "yes"]
    print(f"modules whose runs' outcomes differ from plain pytest's (an eager failure of a test that is not "
          f"comparable there excepted): {len(unequal)}"
          + "".join(f"\n  {m}" for m in unequal))
    read = [f["read"] for r in results for f in r["findings"]]
    false = sum(1 for v in read if v and v[0] == "false")
    unread = sum(1 for v in read if not v)
    print(f"\nconfirmed and runtime-only findings ({len(alarms)}; read false: {false}, unread: {unread}):")
    for line in alarms or ["  (none)"]:
        print(f"  {line}")
    notes = [(r["module"], n) for r in results for n in r["float_notes"]]
    if notes:
        print(f"\nfloat rounding notes ({len(notes)}, not findings):")
        for module, n in notes:
            print(f"  {module}: {n['function']}: {n['calls']} calls, {n['difference']}")
    calls = [(r["module"], n) for r in results for n in r["not_compared_calls"]]
    if calls:
        print(f"\ncalls not compared, the runs differing there by design ({len(calls)}, not findings):")
        for module, n in calls:
            print(f"  {module}: {n['function']}: {n['reason']}")
    differ = [(r["module"], o) for r in results for o in r["mode_outcomes"]]
    if differ:
        print(f"\ntests whose outcome differs between the runs ({len(differ)}):")
        for module, o in differ:
            why = f" (not comparable: {o['not_comparable']})" if o.get("not_comparable") else ""
            print(f"  {module}::{o['test'].rsplit('::', 1)[-1]}: graph {o['graph']}, eager {o['eager']}{why}")
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
