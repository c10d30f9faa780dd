"""The on-disk result cache of `stagelint check` (and the flake8 plugin).

What is cached, per file: the outcome of the per-file phase (its `ModuleFacts`: candidates,
functions, call sites...) and the screen's reading of the file (`screen.FileSummary`: staging
words, referenced names, whether Python parses it). The project phase and the report are not
cached: they join every file and are cheap next to a parse.

An entry's key is a SHA-256 of everything its value depends on:

* the file's bytes (their SHA-256), its path as shown, its dotted module name;
* stagelint itself: `__version__` plus a hash of every `.py` file of the installed package, so
  a release, a local edit or a different checkout each start afresh; the versions of Python and
  libcst, which parse the file;
* the settings that change what a file's analysis records (`analysis_settings`: everything
  but which codes are reported and which files are excluded), and the top-level packages
  being checked (calls into them are recorded as call sites).

Entries live in `.stagelint_cache/` in the project root (the folder of the pyproject.toml the
settings came from, else the working directory), one file each, under a folder per stagelint
fingerprint (the four most recent are kept). Each is written to a temporary file and moved
into place, so a reader sees a whole entry or none. A cache must never cause an error or a
wrong answer: an entry that cannot be read or unpickled, or is of the wrong shape, is a miss;
a cache that cannot be written is silently not written; `--no-cache` (`enabled=False`) neither
reads nor writes.
"""

from __future__ import annotations

import gc
import hashlib
import os
import pickle
import shutil
import sys
from dataclasses import fields
from pathlib import Path

from stagelint import __version__
from stagelint.files import write_atomically

CACHE_DIR = ".stagelint_cache"
#: Bumped when the layout of entries changes.
FORMAT = 1
#: Settings that only filter or place findings after the analysis: not part of a key.
_REPORT_ONLY = frozenset({"select", "ignore", "per_file_ignores", "exclude", "source", "root"})
#: Fingerprint folders kept side by side (switching branches or versions back and forth).
KEEP = 4

_fingerprint: str | None = None


def code_fingerprint() -> str:
    """stagelint's version, the hash of its own sources, and the versions of Python and libcst."""
    global _fingerprint
    if _fingerprint is None:
        h = hashlib.sha256()
        try:
            import libcst

            libcst_version = getattr(libcst, "LIBCST_VERSION", None) or _dist_version("libcst")
        except Exception:  # pragma: no cover - libcst is a dependency
            libcst_version = "?"
        h.update(f"{FORMAT}|{__version__}|{sys.version}|{libcst_version}".encode())
        h.update(source_fingerprint(Path(__file__).resolve().parent).encode())
        _fingerprint = h.hexdigest()
    return _fingerprint


def source_fingerprint(package: Path) -> str:
    """A hash of every `.py` file below `package` (names and contents)."""
    h = hashlib.sha256()
    for path in sorted(package.rglob("*.py")):
        if "__pycache__" in path.parts:
            continue
        try:
            data = path.read_bytes()
        except OSError:
            data = b"?"
        h.update(path.relative_to(package).as_posix().encode() + b"\0" + hashlib.sha256(data).digest())
    return h.hexdigest()


def _dist_version(name: str) -> str:
    try:
        from importlib.metadata import version

        return version(name)
    except Exception:
        return "?"


def analysis_settings(settings) -> tuple:
    """The settings a file's facts depend on: every field except the report-only ones, so a
    setting added later counts until it is shown not to matter."""
    if settings is None:
        return ()
    out = []
    for f in fields(settings):
        if f.name not in _REPORT_ONLY:
            out.append((f.name, repr(getattr(settings, f.name))))
    return tuple(out)


def cache_root(settings) -> Path:
    """The project root: the configuration's folder when there is a configuration file."""
    if settings is not None and getattr(settings, "source", None):
        return Path(settings.root)
    return Path.cwd()


class Cache:
    """Get and put picklable values by key. Every failure is a miss or a skipped write."""

    def __init__(self, root: str | os.PathLike | None = None, enabled: bool = True):
        self.enabled = enabled
        self.base = Path(root if root is not None else Path.cwd()) / CACHE_DIR
        self.dir = self.base / code_fingerprint()[:20]
        self.hits = 0
        self.misses = 0
        self.writes = 0
        self._prepared = False

    @staticmethod
    def key(*parts) -> str:
        h = hashlib.sha256()
        for part in parts:
            h.update(repr(part).encode("utf-8", "surrogatepass"))
            h.update(b"\0")
        return h.hexdigest()

    def _path(self, kind: str, key: str) -> Path:
        return self.dir / kind / key[:2] / key[2:]

    def get(self, kind: str, key: str, expect: type | tuple | None = None):
        """The value stored under `key`, or None (a miss) for anything short of a sound entry."""
        if not self.enabled:
            return None
        try:
            with open(self._path(kind, key), "rb") as fh:
                data = fh.read()
        except OSError:
            self.misses += 1
            return None
        enabled = gc.isenabled()
        gc.disable()  # unpickling many small objects under the collector costs several times more
        try:
            stored_key, value = pickle.loads(data)
            if stored_key != key or (expect is not None and not isinstance(value, expect)):
                raise ValueError("not this entry")
        except Exception:
            self.misses += 1
            return None
        finally:
            if enabled:
                gc.enable()
        self.hits += 1
        return value

    def put(self, kind: str, key: str, value) -> None:
        if not self.enabled:
            return
        try:
            self._prepare()
            path = self._path(kind, key)
            path.parent.mkdir(parents=True, exist_ok=True)
            write_atomically(path, pickle.dumps((key, value), protocol=pickle.HIGHEST_PROTOCOL), prefix=".tmp-")
            self.writes += 1
        except Exception:
            return  # a read-only or full disk: run uncached

    def _prepare(self) -> None:
        """Create the cache folder (ignored by git, tagged for backup tools) and drop the
        folders of old stagelint fingerprints."""
        if self._prepared:
            return
        self._prepared = True
        new = not self.dir.exists()
        self.dir.mkdir(parents=True, exist_ok=True)
        gitignore = self.base / ".gitignore"
        if not gitignore.exists():
            gitignore.write_text("# Created by stagelint\n*\n")
            (self.base / "CACHEDIR.TAG").write_text(
                "Signature: 8a477f597d28d172789f06886806bc55\n# stagelint's result cache; see stagelint/cache.py\n"
            )
        if new:
            try:
                others = sorted((p for p in self.base.iterdir() if p.is_dir() and p != self.dir),
                                key=lambda p: p.stat().st_mtime, reverse=True)
            except OSError:
                return
            for old in others[KEEP - 1:]:
                shutil.rmtree(old, ignore_errors=True)
