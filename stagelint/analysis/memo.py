"""Answers built once per project (or per file) and kept on the object they are about."""

from __future__ import annotations

from typing import Callable, TypeVar

T = TypeVar("T")


def once(owner, name: str, build: Callable[[], T]) -> T:
    """`owner`'s answer `name`: built by `build()` the first time it is asked, then kept in the
    owner's `__dict__` (the project of the project phase, or a file's context), so that it goes
    when the owner goes and a new project (after an edit, in the language server) builds its own."""
    found = owner.__dict__.get(name)
    if found is None:
        found = owner.__dict__[name] = build()
    return found
