"""File-descriptor-level capture of what one staged call writes.

`tf.print` writes from C++ straight to fd 2 (or fd 1), bypassing `sys.stdout`/`sys.stderr`, and
pytest's own capture swaps those objects without touching fds for Python writes, so both levels
are redirected: fds 1/2 to temp files and `sys.stdout`/`sys.stderr` to spill files of their own.
After the call everything captured is written back where it was going, so pytest and the user
still see it.

Output goes to files, never to memory: a staged call that prints megabytes costs disk, and the
replay copies it in chunks. Only the first `MAX_KEEP` characters are kept for the record.

This runs around every staged call, so it sticks to raw fds and reuses its files: about ten
system calls a call, and reads only when something was written.
"""

from __future__ import annotations

import codecs
import io
import os
import sys
import tempfile

#: Keep records small: output is evidence, not a log.
MAX_KEEP = 2000
#: Replay and encode in pieces of this size, so memory does not grow with the output.
CHUNK = 1 << 20
_FDS = (1, 2)
#: Lone surrogates (from surrogateescape'd bytes) survive the round trip through the file.
_ERRORS = "surrogatepass"


def _write_all(fd: int, data: bytes) -> None:
    while data:
        try:
            written = os.write(fd, data)
        except OSError:
            return
        data = data[written:]


def _temp_fd() -> int:
    handle, path = tempfile.mkstemp(prefix="stagelint-out-")
    os.unlink(path)
    return handle


class _Spill(io.TextIOBase):
    """`sys.stdout`/`sys.stderr` during a staged call: text goes to an unlinked temp file."""

    encoding = "utf-8"
    errors = _ERRORS

    def __init__(self) -> None:
        super().__init__()
        self.fd = _temp_fd()
        self.size = 0

    def writable(self) -> bool:
        return True

    def isatty(self) -> bool:
        return False

    def write(self, text: str) -> int:
        if not isinstance(text, str):
            raise TypeError(f"write() argument must be str, not {type(text).__name__}")
        for start in range(0, len(text), CHUNK):
            data = text[start:start + CHUNK].encode("utf-8", _ERRORS)
            _write_all(self.fd, data)
            self.size += len(data)
        return len(text)

    def reset(self) -> None:
        if self.size:
            os.ftruncate(self.fd, 0)
            os.lseek(self.fd, 0, os.SEEK_SET)
            self.size = 0


def _replay(fd: int, size: int, target) -> str:
    """Copy `size` bytes of `fd`, from its start, to `target` (a text stream, or an fd) in chunks.
    Returns the first MAX_KEEP+1 characters, for the record."""
    decoder = None if isinstance(target, int) else codecs.getincrementaldecoder("utf-8")(_ERRORS)
    head = bytearray()  # enough bytes for MAX_KEEP+1 characters of up to 4 bytes
    offset = 0
    while offset < size:
        data = os.pread(fd, min(CHUNK, size - offset), offset)
        if not data:
            break
        offset += len(data)
        if decoder is None:
            _write_all(target, data)
        else:
            _write_text(target, decoder.decode(data))
        if len(head) < 4 * (MAX_KEEP + 1):
            head += data[:4 * (MAX_KEEP + 1) - len(head)]
    if decoder is not None:
        try:
            _write_text(target, decoder.decode(b"", final=True))
        except UnicodeDecodeError:  # only our own encoding is in there, but never fail the call
            pass
    return head.decode("utf-8", "replace")[:MAX_KEEP + 1]


def _write_text(stream, text: str) -> None:
    if not text:
        return
    try:
        stream.write(text)
        stream.flush()
    except (OSError, ValueError, AttributeError):
        pass


class OutputCapture:
    def __init__(self) -> None:
        self._tmp = {fd: _temp_fd() for fd in _FDS}
        self._saved_fds: dict[int, int] = {}
        self._saved_streams: tuple | None = None
        self._spills = (_Spill(), _Spill())

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
        for spill in self._spills:
            spill.reset()
        sys.stdout, sys.stderr = self._spills

    def stop(self) -> str:
        """Restore fds and streams, replay the output to them, and return its head (Python writes first)."""
        streams, self._saved_streams = self._saved_streams, None
        if streams is not None:
            sys.stdout, sys.stderr = streams
        # The fds first: a stream may write to fd 1 itself (pytest -s), and its replay must not
        # land in our temp file again.
        sizes = {}
        for fd, saved in self._saved_fds.items():
            os.dup2(saved, fd)
            os.close(saved)
            # The redirected fd shared the temp file's offset: it is the number of bytes written.
            sizes[fd] = os.lseek(self._tmp[fd], 0, os.SEEK_CUR)
        self._saved_fds = {}
        texts = []
        if streams is not None:
            for stream, spill in zip(streams, self._spills):
                if spill.size:
                    texts.append(_replay(spill.fd, spill.size, stream))
                    spill.reset()
        for fd, size in sizes.items():
            if size:
                tmp = self._tmp[fd]
                texts.append(_replay(tmp, size, fd))
                os.ftruncate(tmp, 0)
                os.lseek(tmp, 0, os.SEEK_SET)
        text = "".join(texts)
        return text if len(text) <= MAX_KEEP else text[:MAX_KEEP] + "..."
