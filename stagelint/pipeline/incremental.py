"""What a project phase can keep from the one before it when a few files changed (the language
server re-analyses one file per edit).

The costly part of joining the facts of a thousand files (`staging.Project`) is resolving call
targets, decorators and classes: every call site of every module, through imports and
re-exports. A resolution reads, of each module on its way, only its *resolution surface*: its
name, the names of its functions (and their decorators, for properties), its module-level
imports and its classes with their bases. An edit inside a function body leaves the surface
of its file as it was, and then every resolution made for the last project still holds for
the next one; entry points, reachability and call sites are computed again from them, over
the new facts, as a fresh project would.
"""

from __future__ import annotations

from stagelint.analysis import facts as F


def resolution_surface(m: F.ModuleFacts) -> tuple:
    """What `staging.Project`'s resolution (`resolve`, `resolve_class`, `_method`,
    `is_layer_class`) reads of one module's facts."""
    return (
        m.module,
        m.is_package,
        tuple((q, tuple(f.decorators), f.class_qualname) for q, f in m.functions.items()),
        tuple(m.imports.items()),
        tuple((q, c.qualname, tuple(c.bases)) for q, c in m.classes.items()),
    )


def reusable(old: list[F.ModuleFacts], new: list[F.ModuleFacts], changed: set[str], realpath) -> bool:
    """The last project's resolutions hold for the new one: the same files, under the same names
    (after `facts.disambiguate`), and each changed file's surface unchanged. `old` and `new`
    are the projects' modules in the same (path) order; `changed` holds real paths."""
    if len(old) != len(new):
        return False
    for a, b in zip(old, new):
        if a.path != b.path or a.module != b.module:
            return False
        if a is not b and realpath(a.path) in changed and resolution_surface(a) != resolution_surface(b):
            return False
        if a is not b and realpath(a.path) not in changed:
            return False  # replaced without being reported as changed: start over
    return True
