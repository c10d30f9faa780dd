"""Whether a process id still names a running process (the runs, watched by `stagelint run` and by
the eager run, which follows the graph run)."""

from __future__ import annotations

import os


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    # A process that exited but is not reaped yet (a run of the fork server's) is a zombie: not alive.
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return True
