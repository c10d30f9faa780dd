"""Split bench/fresh_repos.txt into half A (read, fix from) and half B (held back, measured).

    python bench/fresh_split.py          # prints "A|B framework repo commit" per repository

Deterministic: each framework's repositories, in the file's order, are shuffled with one fixed
seed and the first half of each (rounded down) is A, the rest B, so both halves hold TensorFlow
and JAX code. The seed was fixed before any finding on these repositories was read (issue 23).
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

SEED = 20261128
LIST = Path(__file__).resolve().parent / "fresh_repos.txt"


def repos(path: Path = LIST) -> list[tuple[str, str, str]]:
    """(repo, commit, framework) per line of the pinned list."""
    rows = []
    for line in path.read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            repo, commit, framework = line.split()[:3]
            rows.append((repo, commit, framework))
    return rows


def split(rows: list[tuple[str, str, str]], seed: int = SEED) -> dict[str, list[tuple[str, str, str]]]:
    """{"A": [...], "B": [...]}: per framework, a seeded shuffle cut in two."""
    rng = random.Random(seed)
    halves: dict[str, list[tuple[str, str, str]]] = {"A": [], "B": []}
    for framework in sorted({f for _, _, f in rows}):
        group = [r for r in rows if r[2] == framework]
        rng.shuffle(group)
        halves["A"] += group[: len(group) // 2]
        halves["B"] += group[len(group) // 2:]
    return halves


if __name__ == "__main__":
    for half, rows in split(repos()).items():
        for repo, commit, framework in rows:
            sys.stdout.write(f"{half} {framework} {repo} {commit}\n")
