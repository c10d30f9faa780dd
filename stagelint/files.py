"""Reading a file's identity and writing one whole: what the fixer and the result cache share."""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile


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
