"""The project files a module imports, found under the search roots: how the analysis follows
imports when the screen has not read them already."""

from __future__ import annotations

import os
from pathlib import Path

from stagelint.analysis import facts as F
from stagelint.pipeline.paths import display_path


def imported_files(facts: F.ModuleFacts, search_roots: list[Path], memo: dict | None = None) -> list[str]:
    """Files of project modules a module imports, found under the search roots. `memo` keeps
    each dotted name's answer, and what each folder holds, for the run (a thousand modules ask
    about the same names, most of them outside the project)."""
    names = set(facts.imports.values())
    for f in facts.functions.values():
        names.update(e.target[1] for e in f.calls if e.target[0] == "name")
    out = []
    if memo is None:
        memo = {}
    probes = memo.setdefault(None, {})
    for name in sorted(names):
        found = memo.get(name)
        if found is None:
            found = memo[name] = _imported_files_of(name, search_roots, probes)
        out.extend(found)
    return out


def _imported_files_of(name: str, search_roots: list[Path], probes: dict) -> list[str]:
    """The file of the longest prefix of `name` that is a module under a search root."""
    parts = name.split(".")
    if all(p and "/" not in p and "\0" not in p for p in parts):
        # The same answer as below (`pathlib` would read each part as one name), with what each
        # folder holds looked up once per run, and nothing probed below a missing folder.
        roots = [str(r) for r in search_roots]
        for i in range(len(parts), 0, -1):
            for root in roots:
                if _probe(probes, root, parts, i - 1)[1]:  # the folder the module would be in
                    found = _probe(probes, root, parts, i)[0]
                    if found:
                        return [found]
        return []
    for i in range(len(parts), 0, -1):
        rel = Path(*parts[:i])
        for root in search_roots:
            for candidate in (root / rel.with_suffix(".py"), root / rel / "__init__.py"):
                if candidate.is_file():
                    return [display_path(candidate)]
    return []


def _probe(probes: dict, root: str, parts: list[str], n: int) -> tuple[str, bool]:
    """(the display path of the module `parts[:n]` under `root` or "", whether it is a folder)."""
    if n == 0:
        return "", True  # the search root itself
    key = (root, *parts[:n])
    got = probes.get(key)
    if got is None:
        if not _probe(probes, root, parts, n - 1)[1]:
            got = ("", False)
        else:
            base = os.path.join(root, *parts[:n])
            found = ""
            for candidate in (base + ".py", os.path.join(base, "__init__.py")):
                if os.path.isfile(candidate):
                    found = display_path(Path(candidate))
                    break
            got = (found, os.path.isdir(base))
        probes[key] = got
    return got
