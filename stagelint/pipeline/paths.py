"""Paths and module names: how a file is shown, what it is called, which project it is in."""

from __future__ import annotations

import os
from pathlib import Path

#: What marks the root of a project: the folder of the nearest one of these, from a file upwards.
PROJECT_MARKERS = ("pyproject.toml", "setup.cfg", ".git")


def module_name(path: Path) -> tuple[str, bool]:
    """Dotted module name from the package folders (those with `__init__.py`) above a file."""
    path = path.resolve()
    is_package = path.name == "__init__.py"
    parts = [] if is_package else [path.stem]
    directory = path.parent
    while (directory / "__init__.py").is_file() and directory.parent != directory:
        parts.insert(0, directory.name)
        directory = directory.parent
    return ".".join(parts), is_package


def display_path(path: Path) -> str:
    """Relative to the working directory when below it, as paths given on the command line are."""
    rel = os.path.relpath(path)
    return path.as_posix() if rel.startswith("..") else Path(rel).as_posix()


def package_root(path: Path) -> Path:
    directory = path.resolve().parent
    while (directory / "__init__.py").is_file() and directory.parent != directory:
        directory = directory.parent
    return directory


def project_root(path: str | os.PathLike = ".", fallback: bool = False) -> Path | None:
    """The folder of the nearest pyproject.toml, setup.cfg or .git at or above `path` (as
    given, symlinks not followed), whatever the working directory is. Without one: None, or
    with `fallback` (where the cache goes) the folder above the outermost package holding
    `path`, never a package folder. The one definition of a project's root: the cache, and a
    file checked as part of its project, use it."""
    here = Path(os.path.abspath(path))
    if not here.is_dir():
        here = here.parent
    for directory in (here, *here.parents):
        if any(os.path.lexists(directory / marker) for marker in PROJECT_MARKERS):
            return directory
    if not fallback:
        return None
    directory = here
    while (directory / "__init__.py").is_file() and directory.parent != directory:
        directory = directory.parent
    return directory


class RealPaths:
    """`os.path.realpath`, resolving each folder once: a tree of a thousand files in a few
    hundred folders costs a few hundred resolutions, not a thousand times the path's depth."""

    def __init__(self):
        self._dirs: dict[str, str] = {}
        self._paths: dict[str, str] = {}

    def __call__(self, path: str) -> str:
        real = self._paths.get(path)
        if real is None:
            directory, name = os.path.split(os.path.abspath(path))
            real_dir = self._dirs.get(directory)
            if real_dir is None:
                real_dir = self._dirs[directory] = os.path.realpath(directory)
            full = os.path.join(real_dir, name)
            real = self._paths[path] = os.path.realpath(full) if os.path.islink(full) else full
        return real


class ModuleNames:
    """`module_name` and `package_root` for one run, each folder looked at once (a tree of a
    thousand files costs a few hundred `__init__.py` checks, not one per file and level)."""

    def __init__(self, realpath=None):
        self.realpath = realpath or RealPaths()
        self._packages: dict[str, tuple[str, ...]] = {}

    def _package(self, directory: str) -> tuple[str, ...]:
        got = self._packages.get(directory)
        if got is None:
            parent = os.path.dirname(directory)
            if parent != directory and os.path.isfile(os.path.join(directory, "__init__.py")):
                got = (*self._package(parent), os.path.basename(directory))
            else:
                got = ()
            self._packages[directory] = got
        return got

    def __call__(self, path) -> tuple[str, bool]:
        directory, name = os.path.split(self.realpath(os.fspath(path)))
        is_package = name == "__init__.py"
        parts = list(self._package(directory))
        if not is_package:
            i = name.rfind(".")
            parts.append(name[:i] if 0 < i < len(name) - 1 else name)  # Path.stem
        return ".".join(parts), is_package

    def package_root(self, path) -> Path:
        directory = os.path.dirname(self.realpath(os.fspath(path)))
        for _ in self._package(directory):
            directory = os.path.dirname(directory)
        return Path(directory)
