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
* Symbolic links are followed, each real folder is walked once (no symlink loops), and a file
  reached twice (through a link) is checked once.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

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


def discover(paths: list[str], settings) -> tuple[list[str], list[tuple[str, str]]]:
    """Python files and notebooks under `paths`, in a stable order; (path, reason) for paths that do not exist."""
    files: list[str] = []
    missing: list[tuple[str, str]] = []
    seen: set[str] = set()

    def add(path: str) -> None:
        key = os.path.realpath(path)
        if key not in seen:
            seen.add(key)
            files.append(path)

    for given in paths:
        p = Path(given)
        if not p.exists():
            missing.append((given, "no such file or directory"))
            continue
        if not p.is_dir():
            if not settings.is_excluded(p):
                add(given)
            continue
        ignored = git_ignored(given) if _in_work_tree_maybe(given) else None
        visited_dirs: set[str] = set()
        for root, dirs, names in os.walk(given, followlinks=True):
            real = os.path.realpath(root)
            if real in visited_dirs:  # a symlink loop, or a second way into the same folder
                dirs[:] = []
                continue
            visited_dirs.add(real)
            rel_root = os.path.relpath(root, given)
            rel_root = "" if rel_root == "." else rel_root.replace(os.sep, "/") + "/"
            kept = []
            for d in sorted(dirs):
                full = os.path.join(root, d)
                if (
                    d.startswith(".") or d in SKIP_DIRS or d.endswith(".egg-info")
                    or (ignored is not None and rel_root + d + "/" in ignored)
                    or settings.is_excluded(full) or _is_virtualenv(full)
                ):
                    continue
                kept.append(d)
            dirs[:] = kept
            for name in sorted(names):
                if not name.endswith(SUFFIXES) or name.startswith("."):
                    continue
                if ignored is not None and rel_root + name in ignored:
                    continue
                full = os.path.normpath(os.path.join(root, name))
                if os.path.isfile(full) and not settings.is_excluded(full):
                    add(full)
    return files, missing


def _in_work_tree_maybe(directory: str) -> bool:
    """Cheap pre-check before starting git: a `.git` somewhere above (or at) the folder."""
    here = Path(directory).resolve()
    return any((d / ".git").exists() for d in (here, *here.parents))
