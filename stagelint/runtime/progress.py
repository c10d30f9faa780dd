"""The progress line `stagelint run` writes on stderr while the two runs go."""

from __future__ import annotations

import json
import sys
import time


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


def complete_lines(path: str, offset: int) -> tuple[list[bytes], int]:
    """The complete lines a growing file holds after `offset`, and the offset after them (a line
    still being written is left for the next call)."""
    try:
        with open(path, "rb") as f:
            f.seek(offset)
            data = f.read()
    except OSError:
        return [], offset
    cut = data.rfind(b"\n") + 1
    return data[:cut].splitlines(), offset + cut


class RecordTail:
    """Follows a growing record file: tests started and collected, the test running now, the
    tests failed so far, and when the run last wrote anything (to tell a hung run)."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.offset = 0
        self.started = 0
        self.collected: int | None = None
        self.current = ""
        self.failed = 0
        self.last_change = time.monotonic()

    def poll(self) -> None:
        lines, self.offset = complete_lines(self.path, self.offset)
        if not lines:
            return
        self.last_change = time.monotonic()
        for line in lines:
            if line.startswith(b'{"ev":"test",'):
                self.started += 1
                try:
                    self.current = json.loads(line).get("nodeid", "")
                except ValueError:
                    pass
            elif line.startswith(b'{"ev":"outcome",') and b'"outcome":"failed"' in line:
                self.failed += 1
            elif self.collected is None and line.startswith(b'{"ev":"collected",'):
                self.collected = int(line.split(b'"n":', 1)[1].rstrip(b"}"))

    def text(self, current: bool = True) -> str:
        """`12/40 tests, 1 failed (test_name)`; the test running now only while the run goes on."""
        done = f"{self.started}/{self.collected}" if self.collected is not None else f"{self.started}/?"
        text = f"{done} tests"
        if self.failed:
            text += f", {self.failed} failed"
        if self.current and current:
            name = self.current.rsplit("::", 1)[-1]
            text += f" ({name if len(name) <= 40 else name[:37] + '...'})"
        return text
