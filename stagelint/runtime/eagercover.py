"""Which tests the eager run runs again: it follows the graph run's record as both runs go.

A test whose graph run made no staged call, read no trace count, raised no staging error and
passed (or was skipped) has nothing the eager run could compare: the two runs hold their modes per
staged call, so the same test runs the same code in both. Running it again eagerly only repeats
plain pytest's work (on the bench's JAX and Keras suites, 10 of 31 modules stage nothing at all,
and most tests of the others stage nothing). The eager run waits, before each test, until the
graph run has finished that test, and skips it when the graph run says it staged nothing; every
other test runs as before. Running the same process, it is behind the graph run most of the time
(the eager JAX run is op by op), so it seldom waits.

A test is run again when it recorded anything a verdict reads (a staged call, a project function
`lax.cond` staged, a trace count read, an error of staging, trouble of the recorder's own), or
failed, or when the graph run is no guide: it stopped (crashed, killed) before finishing the test.

The graph run's record is read as it grows (only complete lines); the lines that matter are told by
their start, as the recorder writes them (`{"ev":"call","t":3,...`), so a large call record is not
parsed.
"""

from __future__ import annotations

import json
import os
import re
import time
from collections.abc import Callable

from stagelint.runtime.pids import alive
from stagelint.runtime.progress import complete_lines

#: The graph run's record and process id, for the eager run's plugin (`stagelint run` sets them).
RECORD_ENV = "STAGELINT_GRAPH_RECORD"
PID_ENV = "STAGELINT_GRAPH_PID"
#: Why the eager run skips a test: pytest's skip reason in the eager run's own output.
REASON = "stagelint: not run again eagerly: it made no staged call in the graph run"

#: The graph run's records about a test that the verdicts read in both runs: its staged calls, the
#: project functions a control-flow primitive staged outside them (`lax.cond` in the test's own
#: code), the trace counts it read, the errors staging raised.
_NEEDS = re.compile(rb'^\{"ev":"(call|staged|reads|staging-error)","t":(-?\d+)')
_INTERNAL = b'{"ev":"internal",'
#: Seconds between the checks of the graph run's record while the eager run waits.
POLL = 0.02
#: While it waits, the eager run writes a line this often, so that `stagelint run` does not take
#: the wait for a hang (the graph run's own progress decides that).
HEARTBEAT = 60.0


class GraphFollower:
    """The graph run's record, read as it grows: which tests it has finished, and which of those
    the eager run must run again."""

    def __init__(self, record: str, pid: int | None):
        self.record, self.pid = record, pid
        self._offset = 0
        self._nodeids: dict[int, str] = {}
        self._current: int | None = None
        #: Tests the graph run has finished (another test or the end of the session came after).
        self.finished: set[str] = set()
        #: Tests the eager run must run again.
        self.needed: set[str] = set()
        self.ended = False

    def needs(self, nodeid: str, waiting: Callable[[], None] | None = None) -> bool:
        """Whether the eager run must run `nodeid`: waits until the graph run has finished it, ended
        or stopped. `waiting()` is called when the wait begins and every HEARTBEAT seconds."""
        last_note = None
        while True:
            self._read()
            if nodeid in self.finished:
                return nodeid in self.needed
            if self.ended or (self.pid is not None and not alive(self.pid)):
                self._read()  # what it wrote before it stopped
                return nodeid not in self.finished or nodeid in self.needed
            now = time.monotonic()
            if waiting is not None and (last_note is None or now - last_note >= HEARTBEAT):
                waiting()
                last_note = now
            time.sleep(POLL)

    def _read(self) -> None:
        lines, self._offset = complete_lines(self.record, self._offset)
        for line in lines:
            self._line(line)

    def _line(self, line: bytes) -> None:
        found = _NEEDS.match(line)
        if found:
            nodeid = self._nodeids.get(int(found.group(2)))
            if nodeid is not None:
                self.needed.add(nodeid)
        elif line.startswith(_INTERNAL):
            self._need_current()
        elif line.startswith(b'{"ev":"test",'):
            self._finish_current()
            try:
                rec = json.loads(line)
            except ValueError:
                return
            self._current = rec["i"]
            self._nodeids[rec["i"]] = rec["nodeid"]
        elif line.startswith(b'{"ev":"outcome",'):
            try:
                rec = json.loads(line)
            except ValueError:
                return
            if rec.get("outcome") == "failed":
                self.needed.add(rec.get("nodeid", ""))
        elif line.startswith(b'{"ev":"end",'):
            self._finish_current()
            self.ended = True

    def _need_current(self) -> None:
        if self._current is not None:
            self.needed.add(self._nodeids[self._current])

    def _finish_current(self) -> None:
        if self._current is not None:
            self.finished.add(self._nodeids[self._current])
            self._current = None


def from_env(environ: dict[str, str] | None = None) -> GraphFollower | None:
    """The follower of the graph run `stagelint run` named, or None: the eager run then runs every
    test (the plugin used on its own)."""
    environ = os.environ if environ is None else environ
    record = environ.get(RECORD_ENV)
    if not record:
        return None
    pid = environ.get(PID_ENV)
    return GraphFollower(record, int(pid) if pid and pid.isdigit() else None)


__all__ = ["GraphFollower", "from_env", "RECORD_ENV", "PID_ENV", "REASON"]
