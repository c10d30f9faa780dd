"""The progress line `stagelint run` writes on stderr while the two runs go."""

from __future__ import annotations

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


class RecordTail:
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
