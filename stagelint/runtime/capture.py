"""File-descriptor-level capture of what one staged call writes.

`tf.print` writes from C++ straight to fd 2 (or fd 1), bypassing `sys.stdout`/`sys.stderr`, and
pytest's own capture swaps those objects without touching fds for Python writes, so both levels
are redirected: fds 1/2 to temp files and `sys.stdout`/`sys.stderr` to string buffers. After the
call everything captured is written back where it was going, so pytest and the user still see it.

This runs around every staged call, so it sticks to raw fds and reuses its buffers: about ten
system calls a call, and reads only when something was written.
"""

from __future__ import annotations

import io
import os
import sys
import tempfile

#: Keep records small: output is evidence, not a log.
MAX_KEEP = 2000
_FDS = (1, 2)


def _write_all(fd: int, data: bytes) -> None:
    while data:
        try:
            written = os.write(fd, data)
        except OSError:
            return
        data = data[written:]


class OutputCapture:
    def __init__(self) -> None:
        self._tmp = {}
        for fd in _FDS:
            handle, path = tempfile.mkstemp(prefix="stagelint-out-")
            os.unlink(path)
            self._tmp[fd] = handle
        self._saved_fds: dict[int, int] = {}
        self._saved_streams: tuple | None = None
        self._bufs = (io.StringIO(), io.StringIO())

    def start(self) -> None:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (AttributeError, OSError, ValueError):
                pass
        for fd in _FDS:
            try:
                self._saved_fds[fd] = os.dup(fd)
            except OSError:  # fd closed by the test: nothing to capture there
                continue
            os.dup2(self._tmp[fd], fd)
        self._saved_streams = (sys.stdout, sys.stderr)
        for buf in self._bufs:
            buf.seek(0)
            buf.truncate()
        sys.stdout, sys.stderr = self._bufs

    def stop(self) -> str:
        """Restore fds and streams, replay the output to them, and return it (Python writes first)."""
        texts = []
        if self._saved_streams is not None:
            sys.stdout, sys.stderr = self._saved_streams
            for stream, buf in zip(self._saved_streams, self._bufs):
                text = buf.getvalue()
                if text:
                    texts.append(text)
                    try:
                        stream.write(text)
                        stream.flush()
                    except (OSError, ValueError):
                        pass
            self._saved_streams = None
        for fd, saved in self._saved_fds.items():
            os.dup2(saved, fd)
            os.close(saved)
            tmp = self._tmp[fd]
            # The redirected fd shared the temp file's offset: it is the number of bytes written.
            size = os.lseek(tmp, 0, os.SEEK_CUR)
            if size:
                data = os.pread(tmp, size, 0)
                os.ftruncate(tmp, 0)
                os.lseek(tmp, 0, os.SEEK_SET)
                _write_all(fd, data)
                texts.append(data.decode("utf-8", "replace"))
        self._saved_fds = {}
        text = "".join(texts)
        return text if len(text) <= MAX_KEEP else text[:MAX_KEEP] + "..."
