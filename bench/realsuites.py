"""`stagelint run` on real test modules of five projects, against plain pytest on the same modules.

    python bench/realsuites.py --setup          # once: the bench venv and the projects' sources
    python bench/realsuites.py [--only NAME] [--json FILE]

For every pinned module it runs plain pytest, then `stagelint run`, one after the other in the
bench venv, and prints the tests passed in plain pytest / the graph run / the eager run, the wall
time of each and the ratio, and every confirmed and runtime-only finding with its evidence.
The target (issue 13): no false confirmed or runtime-only finding, both runs' outcomes equal to
plain pytest's where the code has no staging bug, and a median ratio <= 1.3x plain pytest.

Nothing fetched is committed: everything lives in bench/.realsuites/ (git-ignored).

Setup. The projects' packages are installed, without their dependencies (their pins ask for
other TensorFlow versions), into a bench-only venv beside TensorFlow CPU 2.21 and tf_keras 2.21.
Their test modules come from the wheels of the pinned versions (`pip download --no-deps`), except
tensorflow-addons, whose wheel holds no tests: its tests come from the tag v0.23.0 of its
repository (`--addons-repo GIT_DIR`, a clone or a bare mirror). The packages' Python sources are
copied out of site-packages into bench/.realsuites/src/<project>/ (a project root of their own),
because `stagelint run` treats site-packages as library code: it lints, traces and reports the
project, not what is installed. tensorflow-addons 0.23.0 imports Keras 2's internals as `keras.src`
(Keras 2.13-2.15); with TF 2.21 Keras 2 is `tf_keras`, so the bench rewrites those imports in its
copy (`keras.src.` -> `tf_keras.src.`), and runs addons, tf-models, recommenders and tf-agents
with TF_USE_LEGACY_KERAS=1, as their documentation says for TensorFlow 2.16 and later.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
HOME = REPO / "bench" / ".realsuites"
VENV = HOME / "venv"
SRC = HOME / "src"
PY = VENV / "bin" / "python"
TARGET_RATIO = 1.3

#: What the bench venv holds besides the projects (installed with their dependencies).
BASE = ["tensorflow-cpu==2.21.0", "tf-keras==2.21.0", "pytest>=8", "absl-py", "dm-tree", "tabulate", "wrapt",
        "typeguard<3", "packaging", "gin-config", "pyyaml", "cloudpickle", "pillow", "six", "gym<=0.23.0",
        "tensorflow-text==2.21.1", "tensorflow-datasets", "decorator", "tensorflow-probability==0.25.0"]

LEGACY_KERAS = {"TF_USE_LEGACY_KERAS": "1"}

#: project -> (pip requirement, packages to copy, environment, test modules relative to its src dir)
PROJECTS = {
    "tensorflow-addons": ("tensorflow-addons==0.23.0", ["tensorflow_addons"], LEGACY_KERAS, [
        "tensorflow_addons/activations/tests/hardshrink_test.py",
        "tensorflow_addons/layers/tests/maxout_test.py",
        "tensorflow_addons/losses/tests/contrastive_test.py",
    ]),
    "dm-sonnet": ("dm-sonnet==2.0.2", ["sonnet"], {}, [
        "sonnet/src/linear_test.py",
        "sonnet/src/optimizers/sgd_test.py",
        "sonnet/src/moving_averages_test.py",
    ]),
    "tf-models-official": ("tf-models-official==2.20.0", ["official", "orbit"], LEGACY_KERAS, [
        "official/modeling/multitask/evaluator_test.py",
        "official/modeling/optimization/lr_schedule_test.py",
        "orbit/standard_runner_test.py",
    ]),
    "tensorflow-recommenders": ("tensorflow-recommenders==0.7.7", ["tensorflow_recommenders"], LEGACY_KERAS, [
        "tensorflow_recommenders/layers/factorized_top_k_test.py",
        "tensorflow_recommenders/tasks/ranking_test.py",
    ]),
    "tf-agents": ("tf-agents==0.19.0", ["tf_agents"], LEGACY_KERAS, [
        "tf_agents/networks/q_network_test.py",
        "tf_agents/utils/value_ops_test.py",
    ]),
}


# Setup -------------------------------------------------------------------------------------------


def _pip(*args: str) -> None:
    subprocess.run([str(PY), "-m", "pip", "install", "-q", *args], check=True)


def setup(addons_repo: str | None) -> None:
    if not PY.exists():
        subprocess.run([sys.executable, "-m", "venv", str(VENV)], check=True)
    _pip(*BASE)
    _pip("--no-deps", *(spec for spec, *_ in PROJECTS.values()))
    _pip("--no-deps", "-e", str(REPO))
    wheels = HOME / "wheels"
    wheels.mkdir(parents=True, exist_ok=True)
    for name, (spec, packages, _, _) in PROJECTS.items():
        subprocess.run([str(PY), "-m", "pip", "download", "-q", "--no-deps", "--only-binary", ":all:", spec,
                        "-d", str(wheels)], check=True)
        wheel = next(wheels.glob(spec.split("==")[0].replace("-", "_") + "-" + spec.split("==")[1] + "-*.whl"))
        root = SRC / name
        shutil.rmtree(root, ignore_errors=True)
        root.mkdir(parents=True)
        (root / "setup.cfg").write_text("# the project root of the bench's copy\n")
        with zipfile.ZipFile(wheel) as zf:
            for member in zf.namelist():
                if member.split("/")[0] in packages:
                    zf.extract(member, root)
        if name == "tensorflow-addons":
            _addons_tests(root, addons_repo)
    print(f"bench venv: {VENV}\nsources: {SRC}")


def _addons_tests(root: Path, addons_repo: str | None) -> None:
    """Test modules and conftest of tensorflow-addons v0.23.0, and its Keras 2 imports as tf_keras."""
    if addons_repo is None:
        raise SystemExit("tensorflow-addons' wheel has no tests: pass --addons-repo GIT_DIR (a clone or mirror of "
                         "github.com/tensorflow/addons holding the tag v0.23.0)")
    with tempfile.TemporaryDirectory() as tmp:
        archive = subprocess.run(["git", "--git-dir", addons_repo, "archive", "v0.23.0", "tensorflow_addons"],
                                 check=True, capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", tmp], input=archive, check=True)
        for path in Path(tmp, "tensorflow_addons").rglob("*.py"):
            rel = path.relative_to(tmp)
            if "/tests/" in f"/{rel}" or rel.name == "conftest.py":
                (root / rel).parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(path, root / rel)
    for path in (root / "tensorflow_addons").rglob("*.py"):
        text = path.read_text()
        fixed = re.sub(r"\bfrom keras\.src\.", "from tf_keras.src.", text)
        if fixed != text:
            path.write_text(fixed)


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


def plain(module: str, cwd: Path, env: dict[str, str]) -> tuple[float, dict[str, int]]:
    """Plain `pytest MODULE`. Its options go through PYTEST_ADDOPTS: absl's flag parsing (tf-models'
    tests) reads sys.argv and rejects `-q`, as it would have rejected stagelint's own options."""
    start = time.perf_counter()
    proc = subprocess.run([str(PY), "-m", "pytest", module], cwd=cwd, capture_output=True, text=True,
                          env={**env, "PYTEST_ADDOPTS": "-q -p no:cacheprovider"})
    return time.perf_counter() - start, _counts(proc.stdout)


def staged(module: str, cwd: Path, env: dict[str, str], keep: Path) -> tuple[float, dict, int, str]:
    start = time.perf_counter()
    proc = subprocess.run([str(PY), "-m", "stagelint", "run", module, "--output-format", "json",
                           "--keep-records", str(keep)], cwd=cwd, env=env, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    try:
        report = json.loads(proc.stdout)
    except ValueError:
        report = {}
    last = (proc.stderr.strip().splitlines() or [""])[-1]
    return seconds, report, proc.returncode, last


def _passed(counts: dict) -> str:
    return f"{counts.get('passed', 0)}" + (f"/{counts.get('failed', 0)}f" if counts.get("failed") else "") + \
        (f"/{counts.get('errors', 0)}e" if counts.get("errors") else "")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--setup", action="store_true", help="create the bench venv and the sources, then stop")
    parser.add_argument("--addons-repo", default=next((p for p in ("/work/.mirror/tensorflow+addons/repo",)
                                                       if os.path.isdir(p)), None),
                        help="git dir of tensorflow/addons (for its v0.23.0 tests)")
    parser.add_argument("--only", help="only the projects or modules whose name contains this")
    parser.add_argument("--exclude", help="leave out the projects or modules whose name contains this")
    parser.add_argument("--json", help="also write the results to this file")
    args = parser.parse_args(argv)
    if args.setup:
        setup(args.addons_repo)
        return 0
    if not PY.exists() or not SRC.exists():
        print("run `python bench/realsuites.py --setup` first", file=sys.stderr)
        return 2
    rows, alarms, results = [], [], []
    records = HOME / "records"
    for project, (_, _, extra, modules) in PROJECTS.items():
        for module in modules:
            if args.only and args.only not in project and args.only not in module:
                continue
            if args.exclude and (args.exclude in project or args.exclude in module):
                continue
            cwd, env = SRC / project, _env(extra)
            keep = records / module.replace("/", "_")
            plain_s, plain_counts = plain(module, cwd, env)
            run_s, report, code, last = staged(module, cwd, env, keep)
            runs = report.get("runs", {})
            graph = runs.get("graph", {}).get("tests", {})
            eager = runs.get("eager", {}).get("tests", {})
            # pytest counts skips; the report's counts do not: passed is what the three share.
            ratio = run_s / plain_s if plain_s else float("nan")
            found = [f for f in report.get("findings", []) if f["verdict"] == "confirmed"]
            status = ",".join(sorted({r.get("status", "?") for r in runs.values()})) or f"no report ({last})"
            rows.append((project, module, _passed(plain_counts), _passed(graph), _passed(eager), plain_s, run_s,
                         ratio, code, status, len(found)))
            results.append({"project": project, "module": module, "plain": plain_counts, "graph": graph,
                            "eager": eager, "plain_seconds": round(plain_s, 1), "run_seconds": round(run_s, 1),
                            "ratio": round(ratio, 2), "exit": code, "status": status, "findings": found,
                            "mode_outcomes": report.get("mode_outcomes", []),
                            "test_failures": report.get("test_failures", [])})
            for f in found:
                tag = "runtime-only" if f["runtime_only"] else "confirmed"
                alarms.append(f"{module}: {f['path']}:{f['line']}: {f['code']} [{tag}] {f['evidence']}")
            print(f"{module}: plain {_passed(plain_counts)} in {plain_s:.1f} s; graph {_passed(graph)}, eager "
                  f"{_passed(eager)}; stagelint run {run_s:.1f} s ({ratio:.2f}x), exit {code}, {status}",
                  file=sys.stderr)
    header = ("project", "module", "plain", "graph", "eager", "plain s", "run s", "ratio", "exit", "runs", "alarms")
    table = [header] + [(p, m, a, b, c, f"{x:.1f}", f"{y:.1f}", f"{r:.2f}x", str(e), s, str(n))
                        for p, m, a, b, c, x, y, r, e, s, n in rows]
    widths = [max(len(str(r[i])) for r in table) for i in range(len(header))]
    for r in table:
        print("  ".join(str(v).ljust(w) for v, w in zip(r, widths)).rstrip())
    ratios = [r[7] for r in rows if r[7] == r[7]]
    if ratios:
        median = statistics.median(ratios)
        print(f"\nmedian ratio stagelint run / plain pytest: {median:.2f}x (target <= {TARGET_RATIO}x) over "
              f"{len(ratios)} modules")
    print(f"\nconfirmed and runtime-only findings ({len(alarms)}):")
    for line in alarms or ["  (none)"]:
        print(f"  {line}")
    differ = [(r["module"], o) for r in results for o in r["mode_outcomes"]]
    if differ:
        print(f"\ntests whose outcome differs between the runs ({len(differ)}):")
        for module, o in differ:
            print(f"  {module}::{o['test'].rsplit('::', 1)[-1]}: graph {o['graph']}, eager {o['eager']}")
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
