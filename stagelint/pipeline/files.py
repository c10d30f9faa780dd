"""Reading a source file, its identity, and writing one whole: the one way every part of
stagelint (the walk, the screen, the workers, the reports, the flake8 plugin, the language
server, the fixer) reads a file it checks, and what the fixer and the result cache share.

A repository is untrusted input (stagelint runs in CI on strangers' pull requests, in editors,
in pre-commit), so `read_source` reads only what a check may read:

* a regular file: a FIFO would block the run forever, a device (`/dev/zero`) never ends, a
  socket cannot be read; each is refused with one line that says what it is;
* inside the project root it was found from (`within`): a symbolic link out of the project
  (`pkg/creds.py -> ~/.git-credentials`) is refused, so no line of a file outside it can reach
  an output (a syntax error quotes the failing line);
* at most `limit` bytes (`max-file-size`): the size is decided from the file's own size before
  anything is read, and the read itself stops one byte past the budget (a file that grows, or a
  file that reports no size, cannot make it read more).
"""

from __future__ import annotations

import hashlib
import os
import shutil
import stat
import tempfile


class NotRead(OSError):
    """A file `read_source` refuses; `str()` is the one-line reason, said where the file's
    findings would be ("not read: a named pipe (FIFO), not a regular file")."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason

    def __str__(self) -> str:
        return self.reason


_KINDS = ((stat.S_ISFIFO, "a named pipe (FIFO)"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"), (stat.S_ISDIR, "a directory"))


def why_not_read(error: OSError) -> str:
    """The one-line reason of an error of `read_source` ("cannot read: Permission denied")."""
    return str(error) if isinstance(error, NotRead) else f"cannot read: {error.strerror or error}"


def kind(mode: int) -> str | None:
    """What a file that is not a regular file is ("a named pipe (FIFO)"), or None for a regular file."""
    if stat.S_ISREG(mode):
        return None
    return next((name for test, name in _KINDS if test(mode)), "not a regular file")


def not_regular(kind_name: str) -> str:
    return f"not read: {kind_name}, not a regular file"


def outside(root: str) -> str:
    return f"not read: a symbolic link out of the project root {root} (name its target to check it)"


def over_size(size: int | None, limit: int) -> str:
    """The reason a file over `max-file-size` is skipped; `size` None: more than the budget was there."""
    shown = f"more than {limit:,} bytes" if size is None else f"{size:,} bytes"
    return f"skipped: {shown}, over the size budget ({limit:,} bytes; max-file-size)"


def is_within(real: str, roots) -> bool:
    """Whether the real path `real` is one of the real folders `roots` or below one."""
    return any(real == root or real.startswith(root.rstrip(os.sep) + os.sep) for root in roots)


def read_source(path: str | os.PathLike, limit: int | None = None, within=None) -> bytes:
    """The bytes of the source file `path`, read as the module doc says; `NotRead` (an OSError)
    when it is not a regular file, leads out of every folder of `within` (real paths; None: no
    such check), or is over `limit` bytes; other OSErrors as `open` raises them."""
    real = os.path.realpath(path)
    if within is not None and not is_within(real, within):
        raise NotRead(outside(" or ".join(sorted(within)) or "(none)"))
    # O_NONBLOCK: opening a FIFO with no writer returns at once (fstat then refuses it);
    # O_NOFOLLOW: the real path holds no link, so one appearing there is not followed.
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    fd = os.open(real, flags)
    try:
        info = os.fstat(fd)
        what = kind(info.st_mode)
        if what is not None:
            raise NotRead(not_regular(what))
        if limit and info.st_size > limit:
            raise NotRead(over_size(info.st_size, limit))
        with os.fdopen(fd, "rb", closefd=False) as fh:
            data = read_capped(fh, limit, info.st_size)
    finally:
        os.close(fd)
    if limit and len(data) > limit:
        raise NotRead(over_size(None, limit))
    return data


def read_capped(fh, limit: int | None, expected: int = 0) -> bytes:
    """What `fh` holds, but at most `limit` + 1 bytes (None: all of it): a longer stream is
    told by its length. Read in pieces, so a large budget allocates only what is there;
    `expected` (the file's size) is read in one."""
    if not limit:
        return fh.read()
    parts, got = [], 0
    size = min(limit + 1, expected + 1)
    while got <= limit:
        part = fh.read(size)
        if not part:
            break
        parts.append(part)
        got += len(part)
        size = min(limit + 1 - got, 1 << 20)
    return b"".join(parts)


def digest(data: bytes) -> str:
    """The SHA-256 of a file's bytes: the key of its cache entries, and what a fix must find."""
    return hashlib.sha256(data).hexdigest()


def write_atomically(path: str | os.PathLike, data: bytes, prefix: str) -> None:
    """Write `data` to a temporary file beside `path` and move it into place, so a reader sees
    the old file or the new one, never part of either. Through a symlink, the file itself is
    replaced; a file that exists keeps its permissions."""
    real = os.path.realpath(path)
    directory = os.path.dirname(real) or "."
    fd, tmp = tempfile.mkstemp(prefix=prefix, dir=directory)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        if os.path.exists(real):
            shutil.copymode(real, tmp)
        os.replace(tmp, real)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
