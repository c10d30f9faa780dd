"""Run the test module twice, graph and eager, in two fresh pytest processes at the same time.

Each child gets its own process group, so a timeout kills the child and anything it started.
Output goes to files, never pipes, so a chatty test cannot block on a full pipe. The records
are JSON lines flushed per event, so whatever a child wrote before it hung or crashed is kept.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass

import stagelint

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

    def describe(self) -> str:
        return self.status + (f" ({self.detail})" if self.detail else "")


def child_command(test_module: str, pytest_args: list[str], record: str, mode: str) -> list[str]:
    return [sys.executable, "-m", "pytest", "-p", PLUGIN, "-p", "no:cacheprovider",
            "--stagelint-record", record, "--stagelint-mode", mode, test_module, *pytest_args]


def child_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_XDIST", "PYTEST_CURRENT_TEST"))}
    env.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    env["PYTHONUNBUFFERED"] = "1"
    # The children must import this stagelint, installed or not.
    root = os.path.dirname(os.path.dirname(os.path.abspath(stagelint.__file__)))
    env["PYTHONPATH"] = root + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    return env


class Progress:
    """One status line on stderr, rewritten in place on a terminal, printed sparingly otherwise."""

    def __init__(self, stream=None) -> None:
        self.stream = stream or sys.stderr
        self.tty = hasattr(self.stream, "isatty") and self.stream.isatty()
        self.last = ""
        self.last_time = 0.0

    def show(self, text: str, final: bool = False) -> None:
        now = time.monotonic()
        if self.tty:
            self.stream.write("\r\033[K" + text + ("\n" if final else ""))
            self.stream.flush()
        elif final or (text != self.last and now - self.last_time >= 5):
            self.stream.write(text + "\n")
            self.stream.flush()
            self.last_time = now
        self.last = text


class _Tail:
    """Counts tests started and collected in a growing record file without parsing it all."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.offset = 0
        self.started = 0
        self.collected: int | None = None

    def poll(self) -> None:
        try:
            with open(self.path, "rb") as f:
                f.seek(self.offset)
                data = f.read()
        except OSError:
            return
        cut = data.rfind(b"\n") + 1
        self.offset += cut
        chunk = data[:cut]
        self.started += chunk.count(b'{"ev":"test",')
        if self.collected is None and b'"ev":"collected"' in chunk:
            start = chunk.index(b'"ev":"collected","n":') + len(b'"ev":"collected","n":')
            self.collected = int(chunk[start:chunk.index(b"}", start)])

    def text(self) -> str:
        return f"{self.started}/{self.collected}" if self.collected is not None else f"{self.started}/?"


def start_runs(test_module: str, pytest_args: list[str], workdir: str) -> dict[str, tuple[subprocess.Popen, float]]:
    env = child_env()
    procs = {}
    for mode in MODES:
        record = os.path.join(workdir, f"{mode}.jsonl")
        output = open(os.path.join(workdir, f"{mode}.out"), "wb")
        proc = subprocess.Popen(child_command(test_module, pytest_args, record, mode), stdout=output,
                                stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=env, start_new_session=True)
        output.close()
        procs[mode] = (proc, time.monotonic())
    return procs


def wait_runs(procs: dict, workdir: str, timeout: float, progress: Progress | None = None) -> dict[str, RunStatus]:
    tails = {mode: _Tail(os.path.join(workdir, f"{mode}.jsonl")) for mode in procs}
    statuses: dict[str, RunStatus] = {}
    while len(statuses) < len(procs):
        for mode, (proc, started) in procs.items():
            if mode in statuses:
                continue
            elapsed = time.monotonic() - started
            code = proc.poll()
            if code is None and elapsed > timeout:
                kill_group(proc)
                statuses[mode] = _status(mode, workdir, None, elapsed, timed_out=True, timeout=timeout)
            elif code is not None:
                statuses[mode] = _status(mode, workdir, code, elapsed)
        if progress is not None:
            parts = []
            for mode, tail in tails.items():
                tail.poll()
                state = f" {statuses[mode].status}" if mode in statuses else ""
                parts.append(f"{mode} {tail.text()} tests{state}")
            elapsed = time.monotonic() - min(s for _, s in procs.values())
            progress.show(f"stagelint run: {', '.join(parts)} [{elapsed:.0f}s]", final=len(statuses) == len(procs))
        if len(statuses) < len(procs):
            time.sleep(0.1)
    return statuses


def kill_group(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    proc.wait()


def _status(mode: str, workdir: str, code: int | None, seconds: float, timed_out: bool = False,
            timeout: float = 0) -> RunStatus:
    record = os.path.join(workdir, f"{mode}.jsonl")
    output = os.path.join(workdir, f"{mode}.out")
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


def output_tail(status: RunStatus, lines: int = 15) -> str:
    try:
        with open(status.output_path, encoding="utf-8", errors="replace") as f:
            return "".join(f.readlines()[-lines:])
    except OSError:
        return ""
