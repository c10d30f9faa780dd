"""Run the test module twice, graph and eager, in two fresh pytest processes at the same time.

On Linux both are forked from one process that has imported TensorFlow (`forkserver`), which
saves one `import tensorflow`; elsewhere they are two subprocesses. Each child gets its own
process group, so a timeout kills the child and anything it started in the group (what left the
group is ended by `leftovers`).
Output goes to files, never pipes, so a chatty test cannot block on a full pipe. The records
are JSON lines flushed per event, so whatever a child wrote before it hung or crashed is kept.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from stagelint.runtime import eagercover, frameworks
from stagelint.runtime.pids import alive
from stagelint.runtime.progress import Progress, RecordTail
from stagelint.runtime.safepath import python_command

MODES = ("graph", "eager")
PLUGIN = "stagelint.runtime.pytest_plugin"

#: pytest's exit codes, for reporting a run that ended without finishing its tests.
PYTEST_EXIT = {2: "interrupted (collection error?)", 3: "pytest internal error", 4: "pytest usage error",
               5: "no tests collected"}


@dataclass
class RunStatus:
    mode: str
    #: ok | timeout | crashed | exited | error
    status: str
    returncode: int | None
    seconds: float
    record_path: str
    output_path: str
    detail: str = ""
    #: The test that was running when the run stopped early, if any (from its record).
    test: str = ""
    #: Non-daemon threads the tests left running: the run ended its process without them.
    threads_left: list[str] = field(default_factory=list)

    def describe(self) -> str:
        return self.status + (f" ({self.detail})" if self.detail else "")

    def explain(self, run) -> None:
        """Complete the status from what the run recorded (`records.Run`): a collection error
        names the module and its exception, an early stop names the test it stopped in."""
        errors = run.collect_errors()
        if errors and self.status == "error":
            nodeid, line = next(iter(errors.items()))
            what = f"{nodeid} failed to import" if "::" not in nodeid else f"could not collect {nodeid}"
            self.detail = f"{what}: {line}" if line else what
        elif self.status == "error" and self.returncode == 3:
            # An internal error (a configuration warning the project turns into an error): pytest's line.
            line = error_line(output_tail(self, 40))
            if line:
                self.detail = f"pytest exit code 3: {line}"
        if self.status != "ok":
            self.test = run.interrupted_test() or ""
        self.threads_left = list(run.threads_left)
        if run.threads_left_count > len(run.threads_left):
            self.threads_left.append(f"{run.threads_left_count - len(run.threads_left)} more")

    def sentence(self) -> str:
        """How the run ended, as a clause: `crashed (SIGSEGV) during test_segfault`."""
        if self.status == "timeout":
            text = f"timed out: {self.detail}" if "," in self.detail or "(" in self.detail else \
                f"timed out after {self.detail.removeprefix('stopped after ')}"
        elif self.status == "crashed":
            text = f"crashed ({self.detail})"
        elif self.status == "exited":
            text = f"exited with code {self.returncode}" + ("" if self.test else " before pytest finished")
        else:
            text = f"ended early ({self.detail})" if self.status == "error" else "finished"
        if self.test:
            text += f" during {self.test.rsplit('::', 1)[-1]}"
        return text


def child_command(test_module: str, pytest_args: list[str]) -> list[str]:
    """`pytest TEST_MODULE ARGS`: the child's `sys.argv` is what plain pytest gives the tests (absl
    flag parsing reads it); the plugin and its options come through the environment."""
    return python_command("pytest", [test_module, *pytest_args])


def without_jit_if_eager(env: dict[str, str], mode: str) -> dict[str, str]:
    """A copy of `env`; for the eager run of code that uses JAX, with `jax.jit` turned off."""
    env = dict(env)
    if mode == "eager" and "jax" in frameworks.from_env(env):
        env["JAX_DISABLE_JIT"] = "1"
    return env


def child_mode_env(env: dict[str, str], record: str, mode: str) -> dict[str, str]:
    env = without_jit_if_eager(env, mode)
    env["STAGELINT_RECORD"], env["STAGELINT_MODE"] = record, mode
    env["PYTEST_PLUGINS"] = ",".join(p for p in (env.get("PYTEST_PLUGINS", ""), PLUGIN) if p)
    env["PYTEST_ADDOPTS"] = " ".join(p for p in ("-p no:cacheprovider", env.get("PYTEST_ADDOPTS", "")) if p)
    return env


def pytest_argv0() -> str:
    """`sys.argv[0]` of a plain `pytest` command: the script beside this Python, if there is one."""
    script = os.path.join(os.path.dirname(sys.executable), "pytest")
    return script if os.path.exists(script) else "pytest"


def child_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_XDIST", "PYTEST_CURRENT_TEST"))}
    env.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    env["PYTHONUNBUFFERED"] = "1"
    # The children import this stagelint, installed or not: `python_command` puts its directory
    # on their path (after the standard library, unlike PYTHONPATH).
    return env


class Child:
    """One run's process: a subprocess of ours, or a child of the fork server (known by its pid)."""

    def __init__(self, mode: str, workdir: str, started: float, proc: subprocess.Popen | None = None,
                 server: subprocess.Popen | None = None, end_group: bool = False):
        self.mode, self.workdir, self.started = mode, workdir, started
        self.proc, self.server = proc, server
        self.pid = proc.pid if proc is not None else None
        #: Kill what is left in the run's process group when it ends (no subreaper: `leftovers`).
        self.end_group = end_group

    def _file(self, suffix: str) -> str:
        return os.path.join(self.workdir, f"{self.mode}.{suffix}")

    def poll(self) -> int | None:
        """The exit code (negative: killed by that signal), or None while it runs."""
        if self.proc is not None:
            if self.end_group and self.proc.returncode is None:
                self._end_group()
            return self.proc.poll()
        if self.pid is None and os.path.exists(self._file("pid")):
            self.pid = int(_read(self._file("pid")))
        if os.path.exists(self._file("status")):
            return int(_read(self._file("status")))
        if self.server.poll() is not None and not os.path.exists(self._file("status")):
            if self.pid is None:  # the server died before forking (it could not import TensorFlow)
                return self.server.returncode if self.server.returncode else 3
            if not alive(self.pid):
                return 3
        return None

    def kill(self) -> None:
        """Kill the run's whole process group and wait until it is gone."""
        if self.pid is None and self.proc is None:
            self.poll()
        if self.pid is not None:
            try:
                os.killpg(self.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        if self.proc is not None:
            self.proc.wait()
            return
        deadline = time.monotonic() + 10
        while self.pid is not None and alive(self.pid) and time.monotonic() < deadline:
            time.sleep(0.02)

    def _end_group(self) -> None:
        """Once the run's process has exited, kill the processes the tests left in its group.
        Before it is reaped where Python can tell (`waitid` with WNOWAIT): its pid, the group's
        id, then names nothing else. Elsewhere just after: a group id in use is never a new
        process's pid, and an empty group's id would have to be reused within that instant."""
        waitid = getattr(os, "waitid", None)
        if waitid is not None:
            try:
                if waitid(os.P_PID, self.proc.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is None:
                    return
            except ChildProcessError:
                return
        elif self.proc.poll() is None:
            return
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass

    @property
    def output_path(self) -> str:
        if self.proc is None and self.pid is None:
            return os.path.join(self.workdir, "server.out")
        return self._file("out")


def _read(path: str) -> str:
    with open(path) as f:
        return f.read().strip()


def use_fork_server() -> bool:
    """Linux only (fork after importing TensorFlow); STAGELINT_RUN_FORK=0 turns it off."""
    return sys.platform.startswith("linux") and os.environ.get("STAGELINT_RUN_FORK", "1") != "0"


def start_runs(test_module: str, pytest_args: list[str], workdir: str,
               preload: Callable[[], frozenset[str]], named: frozenset[str] = frozenset(),
               end_groups: bool = False) -> dict[str, Child]:
    """Start both runs. `preload()`: the frameworks the session imports as it starts
    (`frameworks.of_tests`), imported before the fork and patched before collection; `named`: those
    the test modules name themselves, known at once; `end_groups`: kill what each run leaves in its
    process group (no subreaper watches).

    The fork server starts first, imports pytest and then the `named` frameworks while this process
    follows the project's imports (`preload()`: half a second on a mid-sized project, seconds on
    Keras), so neither waits for the other; it forks the runs once it has the whole list."""
    env = child_env()
    started = time.monotonic()
    if use_fork_server():
        with open(os.path.join(workdir, "server.out"), "wb") as output:
            command = python_command("stagelint.runtime.forkserver", [workdir, test_module, *pytest_args])
            server = subprocess.Popen(command, stdout=output, stderr=subprocess.STDOUT,
                                      stdin=subprocess.PIPE, env=env, start_new_session=True)
        try:
            _tell(server, "import", named)
            _tell(server, "run", preload())
        except BaseException:
            server.kill()
            server.wait()
            raise
        finally:
            try:
                server.stdin.close()  # without "run" first, the server exits without forking
            except OSError:
                pass
        return {mode: Child(mode, workdir, started, server=server) for mode in MODES}
    env[frameworks.ENV] = frameworks.to_env(preload())
    children = {}
    for mode in MODES:
        record = os.path.join(workdir, f"{mode}.jsonl")
        mode_env = child_mode_env(env, record, mode)
        if "graph" in children:  # the eager run follows the graph run (`eagercover`)
            mode_env[eagercover.RECORD_ENV] = os.path.join(workdir, "graph.jsonl")
            mode_env[eagercover.PID_ENV] = str(children["graph"].pid)
        with open(os.path.join(workdir, f"{mode}.out"), "wb") as output:
            proc = subprocess.Popen(child_command(test_module, pytest_args), stdout=output,
                                    stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                    env=mode_env, start_new_session=True)
        children[mode] = Child(mode, workdir, started, proc=proc, end_group=end_groups)
    return children


def _tell(server: subprocess.Popen, what: str, names: frozenset[str]) -> None:
    """One line of the fork server's instructions (`forkserver.preload`). A server that has already
    died cannot read it: its exit is reported where the runs are waited for."""
    try:
        server.stdin.write(f"{what}:{frameworks.to_env(names)}\n".encode())
        server.stdin.flush()
    except OSError:
        pass


def stop_all(children: dict[str, Child]) -> None:
    """Kill whatever still runs (interrupt, internal error), and the fork server."""
    for child in children.values():
        if child.poll() is None:
            child.kill()
    servers = {id(c.server): c.server for c in children.values() if c.server is not None}
    for server in servers.values():
        # The server exits by itself once it has reaped its children; killing it first would
        # leave them as zombies for init to reap (or not).
        try:
            server.wait(timeout=5)
        except subprocess.TimeoutExpired:
            try:
                os.killpg(server.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            server.wait()


#: Without --timeout: a run that writes nothing to its record (no test started or finished, no
#: staged call) for STALL seconds is stopped as hung; once the other run has finished in T
#: seconds, a run is stopped after max(FLOOR, MULTIPLE * T) (the graph run takes about what plain
#: pytest takes; eager runs are slower, but not by this much).
STALL = 300.0
FLOOR = 300.0
MULTIPLE = 6.0


def auto_limit(mode: str, elapsed: float, idle: float, finished: dict[str, float]) -> str | None:
    """Why a run should stop now under the automatic timeout, or None to let it go on."""
    if idle > STALL:
        return f"stopped after {elapsed:.0f} s, {STALL:g} s without progress"
    others = [t for m, t in finished.items() if m != mode]
    if others:
        limit = max(FLOOR, MULTIPLE * max(others))
        if elapsed > limit:
            return f"stopped after {limit:.0f} s ({MULTIPLE:g}x the other run)"
    return None


def wait_runs(children: dict[str, Child], workdir: str, timeout: float | None,
              progress: Progress | None = None) -> dict[str, RunStatus]:
    """Wait for both runs. `timeout` is a fixed limit per run in seconds; None: the automatic
    limits above, which scale with what the tests need."""
    tails = {mode: RecordTail(os.path.join(workdir, f"{mode}.jsonl")) for mode in children}
    statuses: dict[str, RunStatus] = {}
    finished: dict[str, float] = {}
    started = min(c.started for c in children.values())
    while len(statuses) < len(children):
        for mode, child in children.items():
            if mode in statuses:
                continue
            tails[mode].poll()
            now = time.monotonic()
            elapsed = now - child.started
            code = child.poll()
            if code is not None:
                statuses[mode] = _status(mode, child, code, elapsed)
                finished[mode] = elapsed
                continue
            if timeout is not None:
                why = f"stopped after {timeout:g} s" if elapsed > timeout else None
            else:
                why = auto_limit(mode, elapsed, now - max(tails[mode].last_change, child.started), finished)
            if why:
                child.kill()
                statuses[mode] = _status(mode, child, None, elapsed, timed_out=True, timeout=timeout or 0)
                statuses[mode].detail = why
        if progress is not None:
            parts = []
            for mode, tail in tails.items():
                state = f" {statuses[mode].status}" if mode in statuses else ""
                parts.append(f"{mode} {tail.text(current=mode not in statuses)}{state}")
            progress.show(f"stagelint run: {', '.join(parts)} [{time.monotonic() - started:.0f}s]",
                          final=len(statuses) == len(children))
        if len(statuses) < len(children):
            time.sleep(0.1)
    stop_all(children)
    return statuses


def _status(mode: str, child: Child, code: int | None, seconds: float, timed_out: bool = False,
            timeout: float = 0) -> RunStatus:
    record = os.path.join(child.workdir, f"{mode}.jsonl")
    output = child.output_path
    ended = _has_end(record)
    if timed_out:
        status, detail = "timeout", f"stopped after {timeout:g} s"
    elif code is not None and code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        status, detail = "crashed", name
    elif ended and code in (0, 1):
        status, detail = "ok", ""
    elif ended:
        status, detail = "error", f"pytest exit code {code}: {PYTEST_EXIT.get(code, 'error')}"
    else:
        status, detail = "exited", f"the process exited with code {code} before pytest finished"
    return RunStatus(mode, status, code, round(seconds, 2), record, output, detail)


def _has_end(record: str) -> bool:
    try:
        with open(record, "rb") as f:
            f.seek(max(0, os.path.getsize(record) - 200))
            return b'"ev":"end"' in f.read()
    except OSError:
        return False


#: How much of a run's output file `output_tail` reads, and how long a line it shows.
TAIL_BYTES = 64 * 1024
TAIL_LINE = 300


def output_tail(status: RunStatus, lines: int = 15) -> str:
    """The last lines a run wrote, from the end of its output file only (a test may have written
    gigabytes), each clipped to TAIL_LINE characters."""
    try:
        with open(status.output_path, "rb") as f:
            f.seek(0, os.SEEK_END)
            f.seek(max(0, f.tell() - TAIL_BYTES))
            data = f.read(TAIL_BYTES)
    except OSError:
        return ""
    text = data.decode("utf-8", "replace").splitlines()[-lines:]
    return "".join((ln if len(ln) <= TAIL_LINE else ln[:TAIL_LINE - 3] + "...") + "\n" for ln in text)


def error_line(output: str) -> str:
    """The line of a run's output that names why pytest could not start (a usage error, a conftest
    or `-p` plugin that fails to import, a warning the configuration turns into an error), without
    pytest's `E   ` prefix; with the line that says what pytest was loading, when there is one:
    `Error while loading plugin "noisy": DeprecationWarning: noisy is deprecated`."""
    lines = [ln.strip() for ln in output.splitlines() if ln.strip()]
    # pytest's own cause line (`E   ModuleNotFoundError: ...`), else an exception's last line.
    causes = [i for i, ln in enumerate(lines) if re.match(r"^E\s+\S", ln)] or \
        [i for i, ln in enumerate(lines) if re.match(r"^(INTERNALERROR>\s*)?[\w.]*(Error|Exception|Warning)\b", ln)]
    named = [i for i, ln in enumerate(lines) if re.search(r"\berror\b", ln, re.IGNORECASE)]
    if not causes:
        return (lines[named[-1]] if named else lines[-1]) if lines else ""
    at = causes[-1]
    cause = re.sub(r"^(E|INTERNALERROR>)\s+", "", lines[at])
    loading = [i for i in range(at) if " while loading " in lines[i]]
    return f"{lines[loading[-1]].rstrip('.:')}: {cause}" if loading else cause
