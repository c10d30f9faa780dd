"""Which files `stagelint check PATH ...` looks at.

* A folder walk checks `.py` files and Jupyter notebooks (`.ipynb`).

* A file named on the command line is checked, whatever its name, unless `exclude` matches it
  (as flake8 does, and as ruff's `--force-exclude` does; pre-commit passes files one by one, and
  `exclude` must hold there too).
* A folder is walked. Below it, these are skipped: hidden files and folders (`.git`, `.venv`,
  `.tox`), well-known build, cache and dependency folders (`SKIP_DIRS`), virtual environments
  by any name (a folder with a `pyvenv.cfg`), `*.egg-info`, whatever `exclude` matches, and,
  inside a git work tree, whatever git ignores (`.gitignore` at any level,
  `.git/info/exclude`, the global excludes file). Git itself answers that, once per folder
  given, with `git ls-files --others --ignored --exclude-standard --directory`, so its own
  rules (negation, anchoring, `**`, nested files) apply exactly, and an ignored folder is
  reported as one entry and never walked. Outside a work tree, or without git, `.gitignore`
  files are not read. A folder that git ignores as a whole is still walked when it is the
  folder named on the command line.
* Symbolic links are followed inside the project root, each real folder is walked once (no
  symlink loops), and a file reached twice (through a link) is checked once.
* Nothing outside the project root is read (`root_of`: the folder of the nearest
  pyproject.toml, setup.cfg or .git at or above the path given, as given; without one, the
  folder given, or the folder of the file given). A symbolic link that leads out of it, met in
  a walk or named on the command line, is not followed: it is one "not read" line, like a path
  that does not exist, and the rest is checked. A link to `/` or to a folder above the project
  is therefore never walked. To check the file a link points to, name that file.
* A path that is not a regular file or folder (a FIFO, a device, a socket) is one "not read"
  line too: reading it would block, or never end.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from stagelint.pipeline.files import is_within, kind, not_regular, outside
from stagelint.pipeline.paths import project_root

#: Folders never walked into unless named on the command line.
SKIP_DIRS = frozenset({
    "__pycache__", "node_modules", "site-packages", "venv", ".venv", "env", ".env", "build", "dist",
    ".git", ".hg", ".svn", ".tox", ".nox", ".mypy_cache", ".pytest_cache", ".ruff_cache",
    ".stagelint_cache", ".eggs",
})


#: What a folder walk checks: Python files and Jupyter notebooks (`stagelint.notebooks`).
SUFFIXES = (".py", ".ipynb")


def git_ignored(directory: str) -> set[str] | None:
    """Paths below `directory` that git ignores, relative to it (folders end in `/`); None when
    `directory` is not in a git work tree (or git is missing), or is itself ignored."""
    try:
        proc = subprocess.run(
            ["git", "-C", directory, "ls-files", "--others", "--ignored", "--exclude-standard", "--directory", "-z"],
            capture_output=True, timeout=60, check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    if proc.returncode != 0:
        return None
    entries = {e.decode("utf-8", "surrogateescape") for e in proc.stdout.split(b"\0") if e}
    if "./" in entries:  # the folder itself is ignored, and it was named on purpose
        return None
    return entries


def _is_virtualenv(path: str) -> bool:
    return os.path.isfile(os.path.join(path, "pyvenv.cfg"))


def root_of(given: str) -> str:
    """The project root a path given on the command line is read within (real path): the folder
    of the nearest pyproject.toml, setup.cfg or .git at or above it, as given (a link named on the
    command line is inside the project it is named in); without one, the folder given, or the
    folder of the file given."""
    root = project_root(given)
    if root is None:
        root = given if os.path.isdir(given) else os.path.dirname(os.path.abspath(given))
    return os.path.realpath(root)


def discover(paths: list[str], settings) -> tuple[list[str], list[tuple[str, str]]]:
    """Python files and notebooks under `paths`, in a stable order; (path, reason) for the paths
    that do not exist or are not read (out of the project root, not a regular file)."""
    files: list[str] = []
    missing: list[tuple[str, str]] = []
    seen: set[str] = set()

    def add(path: str, real: str) -> None:
        if real not in seen:
            seen.add(real)
            files.append(path)

    for given in paths:
        p = Path(given)
        if not p.exists():
            missing.append((given, "no such file or directory"))
            continue
        root = root_of(given)
        within = (root,)
        real = os.path.realpath(given)
        if not is_within(real, within):
            missing.append((given, outside(root)))
            continue
        if not p.is_dir():
            if settings.is_excluded(p):
                continue
            what = kind(os.stat(real).st_mode)
            if what is not None:
                missing.append((given, not_regular(what)))
            else:
                add(given, real)
            continue
        ignored = git_ignored(given) if _in_work_tree_maybe(given) else None
        visited_dirs: set[str] = set()
        for top, dirs, names in os.walk(given, followlinks=True):
            real = os.path.realpath(top)
            if real in visited_dirs:  # a symlink loop, or a second way into the same folder
                dirs[:] = []
                continue
            visited_dirs.add(real)
            rel_root = os.path.relpath(top, given)
            rel_root = "" if rel_root == "." else rel_root.replace(os.sep, "/") + "/"
            kept = []
            for d in sorted(dirs):
                full = os.path.join(top, d)
                if (
                    d.startswith(".") or d in SKIP_DIRS or d.endswith(".egg-info")
                    or (ignored is not None and rel_root + d + "/" in ignored)
                    or settings.is_excluded(full) or _is_virtualenv(full)
                ):
                    continue
                if os.path.islink(full) and not is_within(os.path.realpath(full), within):
                    missing.append((os.path.normpath(full), outside(root)))  # never walked (a link to `/`)
                    continue
                kept.append(d)
            dirs[:] = kept
            for name in sorted(names):
                if not name.endswith(SUFFIXES) or name.startswith("."):
                    continue
                if ignored is not None and rel_root + name in ignored:
                    continue
                full = os.path.normpath(os.path.join(top, name))
                if settings.is_excluded(full):
                    continue
                try:
                    info = os.stat(full)
                except OSError:  # a dangling link, a link loop
                    continue
                real = os.path.realpath(full)
                if not is_within(real, within):
                    missing.append((full, outside(root)))
                    continue
                what = kind(info.st_mode)
                if what is not None:  # a FIFO or a device named `x.py`
                    missing.append((full, not_regular(what)))
                    continue
                add(full, real)
    return files, missing


def _in_work_tree_maybe(directory: str) -> bool:
    """Cheap pre-check before starting git: a `.git` somewhere above (or at) the folder."""
    here = Path(directory).resolve()
    return any((d / ".git").exists() for d in (here, *here.parents))
