"""Where `stagelint run`'s wall time goes: a phase timeline of one run beside plain pytest, and two
checkouts of stagelint compared on the same modules, interleaved.

    python bench/run_timeline.py MODULE [MODULE ...] [--reps 3] [--checkout NAME=PATH ...] [--cold]

MODULE is one of bench/realsuites.py's modules (its path or a unique part of it, e.g. lookahead_test),
run in its project's laid-out sources (`realsuites.py --setup`; --src for a copy elsewhere), in the
project's environment, as realsuites.py's `plain` and `staged` run them. Each repetition runs plain
pytest, then `stagelint run` with each checkout's stagelint (PYTHONPATH; default: this one), the order
of the checkouts alternating between repetitions so that neither always runs right after plain pytest.
With --cold the static check's cache is emptied before each `stagelint run` (default: warm, one
untimed run first fills it); with --sibling MODULE it is emptied, then filled by the static check of
another module of the project (untimed), as when a project's test modules are run one after another.

Each `stagelint run` is started through this script (`--hook`), which times the parent's phases by
wrapping its functions where they exist (stagelint's own import, the import scans, starting the runs,
the static check, waiting, reading the records, the report) and watches the run folder for the fork
server's and the runs' progress: the fork (after the framework import), each run's first record
(pytest configured), its collection, its end and its exit, with each process's CPU seconds from /proc.
Timestamps are seconds since the command started. CPU seconds are steadier than wall seconds on the
shared machine; the load average is printed with every figure.

Printed: each run's timeline and CPU split, then per module and checkout the median wall and CPU
seconds, their ratios to plain pytest's in the same repetitions, and to the first checkout's.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent

#: (module, attribute, label): the parent's phases, wrapped where the measured checkout has them.
PHASES = [
    ("stagelint.runtime.frameworks", "of_tests", "frameworks scan"),
    ("stagelint.runtime.lint", "project_files", "project files"),
    ("stagelint.runtime.executor", "start_runs", "start runs"),
    ("stagelint.runtime.steps", "static_findings", "static check"),
    ("stagelint.runtime.lint", "static_findings", "static check (engine)"),
    ("stagelint.runtime.executor", "wait_runs", "wait runs"),
    ("stagelint.runtime.records", "load_run", "load record"),
    ("stagelint.runtime.steps", "analyse", "analyse"),
    ("stagelint.runtime.report", "render_full", "render"),
]


# The hook: runs `stagelint run` in this process, timed --------------------------------------------


def _proc_cpu(pid: int) -> float | None:
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class Watcher(threading.Thread):
    """Polls the run folder: when the fork server forked each run, when each run wrote its first
    record, its collection and its end, when it exited; the last CPU seen of each process."""

    def __init__(self, workdir: str, t0: float, events: list):
        super().__init__(daemon=True)
        self.workdir, self.t0, self.events = workdir, t0, events
        self.seen: set[str] = set()
        self.pids: dict[str, int] = {}
        self.cpu: dict[str, float] = {}
        self.stop = threading.Event()
        self.own_cpu = 0.0

    def mark(self, name: str, at: float | None = None) -> None:
        if name not in self.seen:
            self.seen.add(name)
            self.events.append({"what": name, "at": (at if at is not None else time.time()) - self.t0})

    def run(self) -> None:
        start = time.thread_time()
        while not self.stop.is_set():
            self.poll()
            self.stop.wait(0.05)
        self.poll()
        self.own_cpu = time.thread_time() - start

    def poll(self) -> None:
        for mode in ("graph", "eager"):
            pid_file = os.path.join(self.workdir, f"{mode}.pid")
            if mode not in self.pids and os.path.exists(pid_file):
                try:
                    self.pids[mode] = int(open(pid_file).read().strip())
                    self.mark(f"{mode} forked", os.stat(pid_file).st_mtime)
                except (OSError, ValueError):
                    pass
            try:
                data = open(os.path.join(self.workdir, f"{mode}.jsonl"), "rb").read()
            except OSError:
                data = b""
            if data:
                self.mark(f"{mode} pytest configured")
            if b'"ev":"collected"' in data:
                self.mark(f"{mode} collected")
            if b'"ev":"end"' in data:
                self.mark(f"{mode} tests done")
            status = os.path.join(self.workdir, f"{mode}.status")
            if os.path.exists(status):
                self.mark(f"{mode} exited", os.stat(status).st_mtime)
        for name, pid in self.pids.items():
            cpu = _proc_cpu(pid)
            if cpu is not None:
                self.cpu[name] = cpu


def hook(out: str, workdir: str, argv: list[str]) -> int:
    t0 = float(os.environ.pop("RUN_TIMELINE_T0"))
    events: list[dict] = [{"what": "interpreter up", "at": time.time() - t0}]
    watcher = Watcher(workdir, t0, events)
    import importlib

    before = time.thread_time()
    from stagelint.runtime import cli

    events.append({"what": "stagelint imported", "at": time.time() - t0, "cpu": time.thread_time() - before})
    for module, attr, label in PHASES:
        try:
            target = importlib.import_module(module)
        except ImportError:
            continue
        original = getattr(target, attr, None)
        if original is None:
            continue

        def timed(*a, __f=original, __label=label, **k):
            start, cpu = time.time(), time.thread_time()
            try:
                return __f(*a, **k)
            finally:
                events.append({"what": __label, "at": start - t0, "end": time.time() - t0,
                               "cpu": time.thread_time() - cpu, "thread": threading.current_thread().name})

        for name, mod in list(sys.modules.items()):
            if name.startswith("stagelint") and mod is not None:
                for key, value in list(vars(mod).items()):
                    if value is original:
                        setattr(mod, key, timed)
    start_runs = getattr(importlib.import_module("stagelint.runtime.executor"), "start_runs")

    def started(*a, **k):
        children = start_runs(*a, **k)
        server = next((c.server for c in children.values() if getattr(c, "server", None) is not None), None)
        if server is not None:
            watcher.pids["server"] = server.pid
        for mode, child in children.items():
            if getattr(child, "proc", None) is not None:
                watcher.pids[mode] = child.proc.pid
        return children

    for name, mod in list(sys.modules.items()):
        if name.startswith("stagelint") and mod is not None:
            for key, value in list(vars(mod).items()):
                if value is start_runs:
                    setattr(mod, key, started)
    watcher.start()
    try:
        code = cli.main(argv)
    finally:
        watcher.stop.set()
        watcher.join()
    events.append({"what": "report written", "at": time.time() - t0})
    usage = resource.getrusage(resource.RUSAGE_SELF)
    with open(out, "w") as f:
        json.dump({"events": events, "cpu": watcher.cpu, "watcher_cpu": watcher.own_cpu,
                   "parent_cpu": usage.ru_utime + usage.ru_stime - watcher.own_cpu, "exit": code}, f)
    sys.stdout.flush()
    sys.stderr.flush()
    return code


# The bench -----------------------------------------------------------------------------------------


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed_run(checkout: Path, module: str, cwd: Path, env: dict, extra: list[str]) -> dict:
    with tempfile.TemporaryDirectory(prefix="run-timeline-") as tmp:
        out, keep = os.path.join(tmp, "timeline.json"), os.path.join(tmp, "records")
        path = os.pathsep.join(filter(None, [env.get("PYTHONPATH"), str(checkout)]))
        load = os.getloadavg()[0]
        t0, cpu = time.time(), _children_cpu()
        proc = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--hook", out, keep, "run", module,
                               "--output-format", "json", "--keep-records", keep, *extra],
                              cwd=cwd, env={**env, "PYTHONPATH": path, "RUN_TIMELINE_T0": repr(t0)},
                              capture_output=True, text=True)
        wall, cpu = time.time() - t0, _children_cpu() - cpu
        try:
            data = json.loads(Path(out).read_text())
        except (OSError, ValueError):
            data = {"events": [], "cpu": {}, "error": proc.stderr[-2000:]}
        try:
            report = json.loads(proc.stdout)
        except ValueError:
            report = {}
    tests = {m: r.get("tests", {}) for m, r in report.get("runs", {}).items()}
    return {**data, "wall": wall, "total_cpu": cpu, "load": load, "tests": tests, "code": proc.returncode}


def show(name: str, run: dict) -> None:
    cpu = run.get("cpu", {})
    split = ", ".join(f"{k} {v:.1f}" for k, v in cpu.items())
    print(f"  {name}: {run['wall']:.1f} s wall, CPU {run['total_cpu']:.1f} s (parent {run.get('parent_cpu', 0):.1f}"
          f"{', ' + split if split else ''}; load {run['load']:.1f}); exit {run['code']}, "
          f"{', '.join(f'{m} {t}' for m, t in run['tests'].items())}")
    if "error" in run:
        print("    " + run["error"].replace("\n", "\n    "))
    phases: dict[tuple[str, str], list] = {}
    for e in run.get("events", []):
        if "end" in e:
            key = (e["what"], e.get("thread", ""))
            first = phases.setdefault(key, [e["at"], e["end"], 0.0, 0])
            first[1], first[2], first[3] = e["end"], first[2] + e.get("cpu", 0.0), first[3] + 1
        else:
            phases[(e["what"], "")] = [e["at"], None, e.get("cpu"), 1]
    for (what, thread), (at, end, cpu_s, n) in sorted(phases.items(), key=lambda kv: kv[1][0]):
        span = f"{at:6.2f} - {end:6.2f}" if end is not None else f"{at:6.2f}         "
        extra = f"  CPU {cpu_s:.2f}" if cpu_s else ""
        extra += f"  x{n}" if n > 1 else ""
        extra += f"  [{thread}]" if thread and thread != "MainThread" else ""
        print(f"    {span}  {what}{extra}")


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] == "--hook":
        return hook(argv[1], argv[2], argv[4:])
    sys.path.insert(0, str(HERE))
    import realsuites

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("modules", nargs="+")
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--checkout", action="append", default=[], metavar="NAME=PATH",
                        help="a stagelint checkout to measure (repeatable; default: this one)")
    parser.add_argument("--src", default=str(realsuites.SRC), help="the laid-out sources (realsuites.py --setup)")
    parser.add_argument("--cold", action="store_true", help="empty the static check's cache before each run")
    parser.add_argument("--sibling", help="before each run, empty the cache and fill it with this module's static "
                                           "check (a path relative to the project)")
    parser.add_argument("--quiet", action="store_true", help="no per-run timelines, only the summary")
    args = parser.parse_args(argv)
    checkouts = [(c.split("=", 1)[0], Path(c.split("=", 1)[1]).resolve()) for c in args.checkout] or \
        [("this", REPO)]
    targets = []
    for wanted in args.modules:
        found = [(p, m, extra) for p, (_, extra, ms) in realsuites.PROJECTS.items() for m in ms if wanted in m]
        if len(found) != 1:
            raise SystemExit(f"{wanted}: {len(found)} modules of bench/realsuites.py match")
        targets.append(found[0])
    results: dict[tuple[str, str], list] = {}
    for project, module, extra in targets:
        cwd, env = Path(args.src) / project, realsuites._env(extra)
        cache = cwd / ".stagelint_cache"
        if not args.cold and not args.sibling:
            for _, checkout in checkouts:  # fill the cache, untimed
                timed_run(checkout, module, cwd, env, [])
        for rep in range(args.reps):
            load = os.getloadavg()[0]
            wall, cpu, counts = realsuites.plain(module, cwd, env)
            results.setdefault((module, "plain"), []).append((wall, cpu))
            print(f"{module} rep {rep + 1}: plain pytest {wall:.1f} s, CPU {cpu:.1f} s (load {load:.1f}), "
                  f"{realsuites._passed(counts)} passed", flush=True)
            order = checkouts if rep % 2 == 0 else list(reversed(checkouts))
            for name, checkout in order:
                if args.cold or args.sibling:
                    import shutil

                    shutil.rmtree(cache, ignore_errors=True)
                if args.sibling:
                    fill = "from stagelint.runtime import lint; lint.static_findings(lint.project_files(%r))" % args.sibling
                    subprocess.run([sys.executable, "-c", fill], cwd=cwd, check=True,
                                   env={**env, "PYTHONPATH": os.pathsep.join(filter(None, [env.get("PYTHONPATH"),
                                                                                              str(checkout)]))})
                run = timed_run(checkout, module, cwd, env, [])
                results.setdefault((module, name), []).append((run["wall"], run["total_cpu"], wall, cpu, run["load"]))
                if not args.quiet:
                    show(name, run)
                else:
                    print(f"  {name}: {run['wall']:.1f} s, CPU {run['total_cpu']:.1f} s (load {run['load']:.1f})",
                          flush=True)
                sys.stdout.flush()
    print("\nmedians (ratios to plain pytest are per repetition, then the median):")
    for project, module, _ in targets:
        base = None
        for name, _ in checkouts:
            rows = results[(module, name)]
            wall = statistics.median(r[0] for r in rows)
            cpu = statistics.median(r[1] for r in rows)
            ratio = statistics.median(r[0] / r[2] for r in rows)
            cpu_ratio = statistics.median(r[1] / r[3] for r in rows)
            loads = f"{min(r[4] for r in rows):.1f}-{max(r[4] for r in rows):.1f}"
            versus = ""
            if base is None:
                base = (wall, cpu)
            else:
                versus = f"; vs {checkouts[0][0]}: wall {wall / base[0]:.2f}x, CPU {cpu / base[1]:.2f}x"
            print(f"  {module} {name}: {wall:.1f} s ({ratio:.2f}x plain), CPU {cpu:.1f} s ({cpu_ratio:.2f}x plain)"
                  f"{versus}; load {loads}")
        plain_rows = results[(module, "plain")]
        print(f"  {module} plain: {statistics.median(r[0] for r in plain_rows):.1f} s, CPU "
              f"{statistics.median(r[1] for r in plain_rows):.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
