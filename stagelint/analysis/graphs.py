"""Reachability over the project's module graphs (imports, importers): one walk, used where the
analysis asks which modules a program runs or which programs run a module."""

from __future__ import annotations

from collections.abc import Iterable, Mapping


def reachable(start: str, edges: Mapping[str, Iterable[str]]) -> set[str]:
    """`start` and every node `edges` leads to from it, through any number of edges."""
    seen, queue = {start}, [start]
    for at in queue:
        for other in edges.get(at, ()):
            if other not in seen:
                seen.add(other)
                queue.append(other)
    return seen
