"""The on-disk result cache of `stagelint check` (and the flake8 plugin).

What is cached, per file: the outcome of the per-file phase (its `ModuleFacts`: candidates,
functions, call sites...) and the screen's reading of the file (`screen.FileSummary`: staging
words, referenced names, whether Python parses it). Per check: the plan of the project phase's
rounds (`pipeline.plans`: which deferred files they analyse, given again after an edit that
cannot change it) and the whole result (`stagelint.pipeline.checkcache`: given again while no input
changed). The project phase itself is not cached: it joins every file and is cheap next to a
parse.

An entry's key is a SHA-256 of everything its value depends on:

* the file's bytes (their SHA-256), its path relative to the project root (so the project
  checked from any folder finds the same entries), its dotted module name;
* stagelint itself: `__version__` plus a hash of every `.py` file of the installed package, so
  a release, a local edit or a different checkout each start afresh; the versions of Python and
  libcst, which parse the file;
* the settings that change what a file's analysis records (`analysis_settings`: everything
  but which codes are reported and which files are excluded), and those of the top-level
  packages being checked that the file spells (calls into them are recorded as call sites:
  `pipeline.perfile.spelled_roots`), so that checks of sibling test modules share the files
  they both reach.

Entries live in `.stagelint_cache/` in the project root (`pipeline.paths.project_root`: the
folder of the nearest pyproject.toml, setup.cfg or .git above the checked paths, whatever the
working directory), or in the folder `--cache-dir` or `$STAGELINT_CACHE_DIR` names; one file each,
under a folder per stagelint fingerprint (the four most recent are kept), except the screen's
summaries, which are many and small: those of a project share one file, a bundle (`BUNDLED`), in
which each is checked on its own when read. Each file is written to a temporary file and moved
into place, so a reader sees a whole entry or none.

The cache folder sits in the project, where anyone who can commit to it can put files: an
entry is data, never code. It is a header line (format, kind, the whole key, and an
HMAC-SHA256 of the body under this user's key, kept outside every project: `user_key`) and
JSON, read back through a decoder that checks every value against the type the caller expects
(`stagelint.pipeline.datacodec`); nothing in it is evaluated, imported or unpickled. An entry someone
else wrote (committed to a repository, copied from another machine) fails the signature.
Entries are read only if they are regular files (no symlink is followed), and written by
renaming a new file over the name, in folders checked not to be symlinks. A cache must never
cause an error or a wrong answer: an entry that cannot be read, has another header, or is not
JSON of the expected shape is a miss (and is rebuilt); a value the format cannot carry or a
cache that cannot be written is silently not written; `--no-cache` (`enabled=False`) neither
reads nor writes.
"""

from __future__ import annotations

import gc
import hashlib
import hmac
import os
import shutil
import stat
import sys
import tempfile
from dataclasses import fields, is_dataclass
from pathlib import Path

from stagelint import __version__

from stagelint.pipeline import datacodec
from stagelint.fix import Edit, Fix
from stagelint.pipeline.paths import project_root

# Candidates keep their autofix in an untyped `fields` dict.
datacodec.allow(Fix, Edit)

CACHE_DIR = ".stagelint_cache"
#: Bumped when the layout of entries changes.
FORMAT = 2
#: An entry larger than this is not read (what stagelint writes stays far below it).
MAX_ENTRY = 64 * 1024 * 1024
#: Settings that only filter or place findings after the analysis: not part of a key.
_REPORT_ONLY = frozenset({"select", "preview", "framework_tiers", "ignore", "per_file_ignores", "exclude", "extend_exclude", "source",
                          "root", "unsafe_fixes", "shadowed",  # which fixes --fix applies (every fix is recorded); a warning
                          # budgets decide whether a file is analysed, not what its facts say
                          "max_file_size", "file_timeout"})
#: Fingerprint folders kept side by side (switching branches or versions back and forth).
KEEP = 4

_fingerprint: str | None = None


def code_fingerprint() -> str:
    """stagelint's version, the hash of its own sources, and the versions of Python and libcst."""
    global _fingerprint
    if _fingerprint is None:
        h = hashlib.sha256()
        libcst_version = _libcst_version()
        h.update(f"{FORMAT}|{__version__}|{sys.version}|{libcst_version}".encode())
        h.update(source_fingerprint(package_root()).encode())
        _fingerprint = h.hexdigest()
    return _fingerprint


def package_root() -> Path:
    """The folder of the `stagelint` package, whatever subpackage this module sits in."""
    import stagelint

    return Path(stagelint.__file__).resolve().parent


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


def _libcst_version() -> str:
    """libcst's version, from its `_version.py`, without importing libcst (a third of a warm
    run's time, which a run answered from the cache does not otherwise need)."""
    try:
        import importlib.util

        spec = importlib.util.find_spec("libcst")
        if spec is not None and spec.origin:
            return Path(spec.origin).with_name("_version.py").read_text()
    except Exception:
        pass
    return _dist_version("libcst")


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


#: The environment variable that moves the cache folder (as `--cache-dir` does).
ENV_DIR = "STAGELINT_CACHE_DIR"


def cache_root(settings=None, paths=()) -> Path:
    """The project root of the first checked path (the working directory when none is given):
    `stagelint.pipeline.paths.project_root`, falling back to the folder above the outermost
    package holding it."""
    first = next((str(p) for p in paths if str(p) != "-"), ".")
    return project_root(first, fallback=True)


def open_cache(paths=(), enabled: bool = True, directory: str | os.PathLike | None = None) -> Cache:
    """The cache of the project the checked `paths` belong to: `.stagelint_cache/` in its root,
    or `directory` (`--cache-dir`), else `$STAGELINT_CACHE_DIR`, when given."""
    directory = directory or os.environ.get(ENV_DIR) or None
    return Cache(cache_root(paths=paths), enabled=enabled, directory=directory)


def user_key_path() -> Path:
    """Where this user's cache-signing key lives: outside every project, in the user's cache
    folder (`$XDG_CACHE_HOME/stagelint/cache-key`, else `~/.cache/stagelint/cache-key`)."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "stagelint" / "cache-key"


_user_key: bytes | None = None


def user_key() -> bytes:
    """The secret that signs this user's entries, made on first use. Entries written with
    another key (another user's, another machine's, a repository's) are misses. When it cannot
    be read nor made, a key for this process alone: the cache then serves only this run."""
    global _user_key
    if _user_key is None:
        path = user_key_path()
        key = b""
        try:
            key = _read_regular(path, 4096)
        except OSError:
            pass
        if len(key) < 32:
            fresh = os.urandom(32).hex().encode()
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
                _create_new(path, fresh, mode=0o600)
                key = fresh
            except OSError:
                try:  # made meanwhile by another process
                    key = _read_regular(path, 4096)
                except OSError:
                    key = b""
                if len(key) < 32:
                    key = fresh
        _user_key = key
    return _user_key


def _read_regular(path, limit: int) -> bytes:
    """The bytes of a regular file, at most `limit` + 1 of them. Neither a symlink (a committed
    entry pointing at /dev/zero or at a secret) nor a device or a FIFO is read: OSError."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(f"{path}: not a regular file")
        with os.fdopen(fd, "rb", closefd=False) as fh:
            return fh.read(limit + 1)
    finally:
        os.close(fd)


def _create_new(path, data: bytes, mode: int = 0o644) -> None:
    """Create a file that does not exist (never through a symlink: O_EXCL), or raise OSError."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), mode)
    with os.fdopen(fd, "wb") as fh:
        fh.write(data)


def _header(kind: str, key: str) -> bytes:
    """The start of an entry's first line: the format, its kind and its whole key (the file
    name holds only part of it), checked before anything else is read."""
    return f"stagelint-cache {FORMAT} {kind} {key} ".encode()


def _signature(header: bytes, body: bytes) -> bytes:
    return hmac.new(user_key(), header + body, hashlib.sha256).hexdigest().encode()


#: Kinds whose entries are many and small (the screen's reading of every file of a project):
#: kept in one file per project, a "bundle", rather than one file each: creating a file costs
#: the system more than writing a few hundred bytes into one.
BUNDLED = frozenset({"screen"})
#: Entries a bundle keeps beyond twice those a run used, before the unused ones are dropped.
BUNDLE_SLACK = 1000

_MISS = object()


def _hint(value, hint):
    if hint is not None:
        return hint
    return type(value) if is_dataclass(value) else object


def _decoded(body, expect):
    """`body` read as `expect`, or _MISS."""
    enabled = gc.isenabled()
    gc.disable()  # building many small objects under the collector costs several times more
    try:
        return datacodec.loads(body, expect)
    except Exception:  # datacodec.Invalid, or anything else a damaged entry provokes
        return _MISS
    finally:
        if enabled:
            gc.enable()


class Cache:
    """Get and put values by key, as checked data (`stagelint.pipeline.datacodec`), never code. Every
    failure is a miss or a skipped write."""

    def __init__(self, root: str | os.PathLike | None = None, enabled: bool = True,
                 directory: str | os.PathLike | None = None):
        """`root`: the project root (keys hold paths relative to it); the entries live in
        `directory`, by default `root/.stagelint_cache`."""
        self.enabled = enabled
        self.root = os.path.abspath(root if root is not None else os.getcwd())
        self.base = Path(os.path.abspath(directory)) if directory else Path(self.root) / CACHE_DIR
        self.dir = self.base / code_fingerprint()[:20]
        self.hits = 0
        self.misses = 0
        self.writes = 0
        self._prepared = False
        self._sound_dirs: set[Path] = set()
        #: kind in BUNDLED -> (its bundle: key -> JSON, the keys this process used)
        self._bundles: dict[str, tuple[dict[str, str], set[str]]] = {}

    @staticmethod
    def key(*parts) -> str:
        h = hashlib.sha256()
        for part in parts:
            h.update(repr(part).encode("utf-8", "surrogatepass"))
            h.update(b"\0")
        return h.hexdigest()

    def relative(self, path: str) -> str:
        """`path` relative to the project root: the same file has the same key from any
        working directory."""
        absolute = os.path.abspath(path)
        try:
            return Path(os.path.relpath(absolute, self.root)).as_posix()
        except ValueError:  # another drive
            return Path(absolute).as_posix()

    def _path(self, kind: str, key: str) -> Path:
        return Path(self._file(kind, key))

    def _file(self, kind: str, key: str) -> str:
        return os.path.join(self.dir, kind, key[:2], key[2:])

    def get(self, kind: str, key: str, expect=object):
        """The value stored under `key`, read as type `expect` (a dataclass or a type hint such
        as `list[str]`: `stagelint.pipeline.datacodec`), or None (a miss) for anything short of a sound
        entry of this user's: another key or kind, another signature, a truncated, oversized or
        special file, a value of another shape."""
        if not self.enabled:
            return None
        if kind in BUNDLED:
            return self._get_bundled(kind, key, expect)
        value = self._read(kind, key, expect)
        if value is _MISS:
            self.misses += 1
            return None
        self.hits += 1
        return value

    def _read(self, kind: str, key: str, expect):
        """The value of the entry file of `key`, or _MISS."""
        try:
            data = _read_regular(self._file(kind, key), MAX_ENTRY)
        except OSError:
            return _MISS
        header = _header(kind, key)
        end = data.find(b"\n", len(header), len(header) + 80)
        if len(data) > MAX_ENTRY or not data.startswith(header) or end < 0:
            return _MISS
        body = data[end + 1:]
        if not hmac.compare_digest(data[len(header):end], _signature(header, body)):
            return _MISS
        return _decoded(body, expect)

    def put(self, kind: str, key: str, value, hint=None) -> None:
        """Keep `value` (of type `hint`: by default its own dataclass, else plain data)."""
        if not self.enabled:
            return
        if kind in BUNDLED:
            self.put_many(kind, {key: value}, hint)
            return
        try:
            body = datacodec.dumps(value, _hint(value, hint))
        except Exception:
            return  # a value the format cannot carry: not kept
        self._write(kind, key, body)

    # Bundles: the many small entries of a kind in `BUNDLED`, one file for them all. --------

    def put_many(self, kind: str, items: dict, hint=None) -> None:
        """Keep several values at once (each of type `hint`, by default its own dataclass). The
        entries of a kind in `BUNDLED` are written together, in one file, once per call."""
        if not self.enabled or not items:
            return
        if kind not in BUNDLED:
            for key, value in items.items():
                self.put(kind, key, value, hint)
            return
        bundle, used = self._bundle(kind)
        for key, value in items.items():
            try:
                bundle[key] = datacodec.dumps(value, _hint(value, hint)).decode("utf-8", "surrogatepass")
            except Exception:
                continue  # a value the format cannot carry: not kept
            used.add(key)
        if len(bundle) > 2 * len(used) + BUNDLE_SLACK:
            # Mostly entries of bytes long edited away (or of files no longer checked): only those
            # this process read or wrote are kept.
            for key in [k for k in bundle if k not in used]:
                del bundle[key]
        try:
            body = datacodec.dumps(bundle, dict[str, str])
        except Exception:
            return
        self._write(kind, self._bundle_key(kind), body)

    def _bundle_key(self, kind: str) -> str:
        # One per project root: projects sharing a cache folder (`--cache-dir`) keep apart.
        return self.key("bundle", kind, self.root)

    def _bundle(self, kind: str) -> tuple[dict[str, str], set[str]]:
        """The entries of `kind` (key -> the JSON of the value), read from the cache once per
        Cache; and the keys this process read or wrote."""
        if kind not in self._bundles:
            stored = self._read(kind, self._bundle_key(kind), dict[str, str])
            self._bundles[kind] = ({} if stored is _MISS else stored), set()
        return self._bundles[kind]

    def _get_bundled(self, kind: str, key: str, expect):
        bundle, used = self._bundle(kind)
        text = bundle.get(key)
        value = _MISS if text is None else _decoded(text, expect)
        if value is _MISS:
            bundle.pop(key, None)
            self.misses += 1
            return None
        used.add(key)
        self.hits += 1
        return value

    # Files. -------------------------------------------------------------------------------

    def _write(self, kind: str, key: str, body: bytes) -> None:
        """Write one entry file (silently not, when the cache cannot be written)."""
        try:
            self._prepare()
            path = self._path(kind, key)
            self._sound_dir(path.parent.parent)
            self._sound_dir(path.parent)
            header = _header(kind, key)
            data = header + _signature(header, body) + b"\n" + body
            # Into a temporary file beside it, then renamed over the entry's name: a symlink
            # there is replaced, never followed.
            fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=path.parent)
            try:
                with os.fdopen(fd, "wb") as fh:
                    fh.write(data)
                os.replace(tmp, path)
            except BaseException:
                try:
                    os.unlink(tmp)
                except OSError:
                    pass
                raise
            self.writes += 1
        except Exception:
            return  # a read-only or full disk: run uncached

    def _sound_dir(self, folder: Path) -> None:
        """Make `folder` (inside the cache) a real folder, or raise OSError: a symlink in the
        cache (a committed one) must not lead writes elsewhere."""
        if folder in self._sound_dirs:
            return
        try:
            folder.mkdir()
        except FileExistsError:
            pass
        if folder.is_symlink() or not folder.is_dir():
            raise OSError(f"{folder}: not a folder of the cache")
        self._sound_dirs.add(folder)

    def _prepare(self) -> None:
        """Create the cache folder (ignored by git, tagged for backup tools) and drop the
        folders of old stagelint fingerprints."""
        if self._prepared:
            return
        self._prepared = True
        self.base.parent.mkdir(parents=True, exist_ok=True)
        self._sound_dir(self.base)
        new = not self.dir.exists()
        self._sound_dir(self.dir)
        for name, text in ((".gitignore", "# Created by stagelint\n*\n"),
                           ("CACHEDIR.TAG", "Signature: 8a477f597d28d172789f06886806bc55\n"
                                            "# stagelint's result cache; see stagelint/pipeline/cache.py\n")):
            try:
                _create_new(self.base / name, text.encode())
            except OSError:
                pass  # there already (or a symlink: left alone)
        if new:
            try:
                others = sorted((p for p in self.base.iterdir()
                                 if not p.is_symlink() and p.is_dir() and p != self.dir),
                                key=lambda p: p.stat().st_mtime, reverse=True)
            except OSError:
                return
            for old in others[KEEP - 1:]:
                shutil.rmtree(old, ignore_errors=True)
