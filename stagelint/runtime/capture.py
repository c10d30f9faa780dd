"""File-descriptor-level capture of what one staged call writes.

`tf.print` writes from C++ straight to fd 2 (or fd 1), bypassing `sys.stdout`/`sys.stderr`, and
pytest's own capture swaps those objects without touching fds for Python writes, so both levels
are redirected: fds 1/2 to temp files and `sys.stdout`/`sys.stderr` to string buffers. After the
call everything captured is written back where it was going, so pytest and the user still see it.
"""

from __future__ import annotations

import io
import os
import sys
import tempfile

#: Keep records small: output is evidence, not a log.
MAX_KEEP = 2000


class OutputCapture:
    def __init__(self) -> None:
        self._tmp = {fd: tempfile.TemporaryFile(buffering=0) for fd in (1, 2)}
        self._saved_fds: dict[int, int] = {}
        self._saved_streams: tuple | None = None
        self._bufs: tuple[io.StringIO, io.StringIO] | None = None

    def start(self) -> None:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        except (OSError, ValueError):
            pass
        for fd, tmp in self._tmp.items():
            try:
                self._saved_fds[fd] = os.dup(fd)
            except OSError:  # fd closed by the test: nothing to capture there
                continue
            tmp.seek(0)
            tmp.truncate()
            os.dup2(tmp.fileno(), fd)
        self._saved_streams = (sys.stdout, sys.stderr)
        self._bufs = (io.StringIO(), io.StringIO())
        sys.stdout, sys.stderr = self._bufs

    def stop(self) -> str:
        """Restore fds and streams, replay the output to them, and return it (stdout first)."""
        texts = []
        if self._saved_streams is not None:
            sys.stdout, sys.stderr = self._saved_streams
            for stream, buf in zip(self._saved_streams, self._bufs):
                text = buf.getvalue()
                texts.append(text)
                if text:
                    try:
                        stream.write(text)
                        stream.flush()
                    except (OSError, ValueError):
                        pass
            self._saved_streams = self._bufs = None
        for fd, saved in self._saved_fds.items():
            os.dup2(saved, fd)
            os.close(saved)
            tmp = self._tmp[fd]
            tmp.seek(0)
            data = tmp.read()
            if data:
                try:
                    os.write(fd, data)
                except OSError:
                    pass
                texts.append(data.decode("utf-8", "replace"))
        self._saved_fds = {}
        text = "".join(texts)
        return text if len(text) <= MAX_KEEP else text[:MAX_KEEP] + "..."
