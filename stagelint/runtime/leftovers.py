"""The processes the tests leave running: `stagelint run` ends them once its runs have ended.

A test may start a process that outlives it: a server it never stops, a child that calls
`os.setsid()`, a daemon that forks twice. Killing a run's process group misses those that left
the group, and once their parent exits they are re-parented to init and run on after stagelint.
On Linux, `stagelint run` makes its own process a child subreaper (`PR_SET_CHILD_SUBREAPER`)
before it starts anything: an orphan of any process it started is then re-parented to it instead
of to init, so once the runs (and the fork server) have ended and been reaped, every process
still below it is one the tests left. `Leftovers.end` finds them in /proc, ends them (SIGTERM, a
short grace, SIGKILL), reaps them and says which they were.

Elsewhere, or where the kernel refuses the flag, each run's process group is killed when the run
ends (`executor.Child`); what left the group is not found, and the report says nothing of it.
"""

from __future__ import annotations

import os
import signal
import sys
import time
from dataclasses import dataclass

PR_SET_CHILD_SUBREAPER = 36
PR_GET_CHILD_SUBREAPER = 37
#: Seconds the processes get to exit after SIGTERM, then SIGKILL.
GRACE = 1.0
#: Seconds of SIGKILL rounds at most (a process forking as fast as it is killed).
KILL_ROUNDS = 5.0
#: Characters of a process's command line kept for the report.
COMMAND_CHARS = 80


@dataclass(frozen=True)
class Proc:
    pid: int
    ppid: int
    #: Clock ticks after boot: with the pid, it names one process, whatever reuses the pid later.
    start: int
    state: str


def _stat(pid: int) -> Proc | None:
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            data = f.read().decode("ascii", "replace")
    except OSError:
        return None
    # The command name (field 2) is in parentheses and may hold anything: split after the last one.
    fields = data.rsplit(")", 1)[1].split()
    try:
        return Proc(pid, int(fields[1]), int(fields[19]), fields[0])
    except (IndexError, ValueError):
        return None


def _below(root: int, exclude: frozenset[tuple[int, int]] = frozenset()) -> list[Proc]:
    """Every process below `root` in the process tree, without the subtrees of `exclude`."""
    by_parent: dict[int, list[Proc]] = {}
    for name in os.listdir("/proc"):
        if name.isdigit() and (p := _stat(int(name))) is not None:
            by_parent.setdefault(p.ppid, []).append(p)
    out, todo = [], [root]
    while todo:
        for p in by_parent.get(todo.pop(), ()):
            if (p.pid, p.start) not in exclude:
                out.append(p)
                todo.append(p.pid)
    return out


def _command(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            text = " ".join(f.read().decode("utf-8", "replace").replace("\0", " ").split())  # one line
    except OSError:
        text = ""
    if not text:  # a kernel thread or a process already exiting: its name
        text = f"[{(_comm(pid) or '?')}]"
    return text if len(text) <= COMMAND_CHARS else text[:COMMAND_CHARS - 3] + "..."


def _comm(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/comm") as f:
            return f.read().strip()
    except OSError:
        return ""


def _signal(p: Proc, sig: int) -> None:
    """Send `sig` to `p` only if its pid still names that process (a pidfd pins it first)."""
    fd = None
    try:
        fd = os.pidfd_open(p.pid)
    except (AttributeError, OSError):
        pass
    try:
        now = _stat(p.pid)
        if now is None or now.start != p.start:
            return  # gone; the pid may name another process by now
        if fd is not None:
            signal.pidfd_send_signal(fd, sig)
        else:
            os.kill(p.pid, sig)
    except (ProcessLookupError, PermissionError):
        pass
    finally:
        if fd is not None:
            os.close(fd)


def _prctl():
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl.restype = ctypes.c_int
    return libc.prctl, ctypes


class Leftovers:
    """The processes below this one that were not there when it started watching."""

    def __init__(self) -> None:
        self.watching = False
        self._before: frozenset[tuple[int, int]] = frozenset()
        self._was_subreaper = 0

    @classmethod
    def watch(cls) -> Leftovers:
        """Make this process a child subreaper (Linux), remembering what already runs below it:
        when `stagelint run` runs inside another program (a test), that program's own children
        are not the tests'."""
        self = cls()
        if not sys.platform.startswith("linux") or not os.path.isdir("/proc/self"):
            return self
        try:
            prctl, ctypes = _prctl()
            was = ctypes.c_int(0)
            if prctl(PR_GET_CHILD_SUBREAPER, ctypes.byref(was), 0, 0, 0) != 0:
                return self
            if prctl(PR_SET_CHILD_SUBREAPER, ctypes.c_ulong(1), 0, 0, 0) != 0:
                return self
        except (OSError, AttributeError):  # no C library to load, or no prctl in it
            return self
        self._was_subreaper = was.value
        self._before = frozenset((p.pid, p.start) for p in _below(os.getpid()))
        self.watching = True
        return self

    def end(self) -> list[dict]:
        """End every process below this one that was not there at `watch`, and reap it. Call it
        once the runs have ended and been reaped. Returns those that were running, in the order
        they were found: [{"pid": 1234, "command": "python -c ...", "ended": True}]; `ended` is
        false for one still running after the SIGKILL rounds (another user's, or stuck in the kernel)."""
        if not self.watching:
            return []
        me = os.getpid()
        found: dict[tuple[int, int], dict] = {}

        def running() -> list[Proc]:
            self._reap(me)
            procs = [p for p in _below(me, self._before) if p.state not in "ZX"]
            for p in procs:
                found.setdefault((p.pid, p.start), {"pid": p.pid, "command": _command(p.pid), "ended": True})
            return procs

        procs = running()
        if not procs:
            return []
        for p in procs:
            _signal(p, signal.SIGTERM)
        deadline = time.monotonic() + GRACE
        while (procs := running()) and time.monotonic() < deadline:
            time.sleep(0.02)
        deadline = time.monotonic() + KILL_ROUNDS
        while procs and time.monotonic() < deadline:
            for p in procs:
                _signal(p, signal.SIGKILL)
            time.sleep(0.02)
            procs = running()
        for p in procs:
            found[(p.pid, p.start)]["ended"] = False
        # The last ones killed may still be on their way to being zombies: reap them too.
        deadline = time.monotonic() + GRACE
        while any(p.state in "ZX" for p in _below(me, self._before)) and time.monotonic() < deadline:
            self._reap(me)
            time.sleep(0.01)
        return list(found.values())

    def _reap(self, me: int) -> None:
        """Reap the children that exited (the orphans re-parented here), never one that was here
        before `watch` (its owner waits for it)."""
        for p in _below(me, self._before):
            if p.ppid == me and p.state in "ZX":
                try:
                    os.waitpid(p.pid, os.WNOHANG)
                except ChildProcessError:
                    pass

    def close(self) -> None:
        """End what is left and give the process back its subreaper setting."""
        if self.watching:
            self.end()
            if not self._was_subreaper:
                try:
                    prctl, ctypes = _prctl()
                    prctl(PR_SET_CHILD_SUBREAPER, ctypes.c_ulong(0), 0, 0, 0)
                except (OSError, AttributeError):
                    pass
            self.watching = False
