"""The per-file time budget (`file-timeout`) for an analysis that runs in the calling process.

In `stagelint check` a file is analysed in a worker process, which is killed when it overruns
(`workers.py`). flake8's workers (daemonic: they may not start processes), a buffer read from
standard input and the language server's edits are analysed in the process that asks, often
not on its main thread (the server's analysis thread), so neither a kill nor a signal handler
can stop them. `TimeLimit` raises its own exception in the analysing thread instead, from a
timer thread, through CPython's `PyThreadState_SetAsyncExc`: it lands between two bytecodes
of whatever Python code runs (the rules, libcst's scope analysis), so a file whose analysis
would take minutes ends at the budget. Native code (libcst's parser) finishes its call first;
the size and nesting budgets (`budget.py`) bound that part before the parse.

The exception derives from BaseException: the traversal's `except Exception` around each rule
(one rule's bug costs one rule) must not swallow it. Each limit raises a class of its own, so
nested limits (the server's edit around the per-file phase inside it) each catch only theirs.
"""

from __future__ import annotations

import ctypes
import threading
import time


#: The budget when the settings name none (`file-timeout`; `config.Settings` has the same default).
FILE_TIMEOUT = 120.0


class OverTime(BaseException):
    """The analysis overran its time budget (each `TimeLimit` raises a subclass of its own)."""


def over_time_detail(seconds: float) -> str:
    """The skip reason of a file whose analysis overran `seconds` (in every host the same)."""
    return f"skipped: the analysis took longer than {seconds:g} s (file-timeout)"


def _raise_in(thread_id: int, kind: type) -> bool:
    set_async = getattr(getattr(ctypes, "pythonapi", None), "PyThreadState_SetAsyncExc", None)
    if set_async is None:  # pragma: no cover - not CPython: no in-process budget
        return False
    return set_async(ctypes.c_ulong(thread_id), ctypes.py_object(kind)) == 1


class TimeLimit:
    """`with limit:` raises `limit.Exceeded` in this thread once `seconds` have passed (None or
    0: no limit). Catch it around the `with`: it may surface from the block or from the exit.

        limit = TimeLimit(settings.file_timeout)
        try:
            with limit:
                outcome = analyse(...)
        except limit.Exceeded:
            outcome = skipped(over_time_detail(limit.seconds))
    """

    def __init__(self, seconds: float | None):
        self.seconds = seconds
        self.Exceeded = type("OverTime", (OverTime,), {"__module__": __name__})
        self._lock = threading.Lock()
        self._armed = False
        self._fired = False
        self._timer: threading.Timer | None = None

    def __enter__(self) -> TimeLimit:
        if self.seconds:
            self._target = threading.get_ident()
            self._armed, self._fired = True, False
            self._timer = threading.Timer(self.seconds, self._fire)
            self._timer.daemon = True
            self._timer.start()
        return self

    def _fire(self) -> None:
        with self._lock:
            if self._armed:
                self._fired = _raise_in(self._target, self.Exceeded)

    def __exit__(self, kind, value, tb) -> bool:
        if self._timer is None:
            return False
        with self._lock:
            self._armed = False  # the timer raises nothing from now on
        self._timer.cancel()
        self._timer = None
        if self._fired and not isinstance(value, self.Exceeded):
            # Raised in this thread but not landed yet (the block ended meanwhile): it lands
            # within a few bytecodes. Take it here rather than let it hit the caller's code.
            try:
                for _ in range(10_000):
                    time.sleep(0.0001)
            except self.Exceeded:
                pass
        return False
