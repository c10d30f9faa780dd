"""Once a file's facts are taken, `fastmeta.release` leaves no reference cycle holding its tree:
reference counting frees the tree, and the collection a worker runs after each file has next to
nothing to walk (libcst's scope model, the rules' state and the analysis' closures are cycles)."""

from __future__ import annotations

import gc
from pathlib import Path

import libcst as cst
import pytest

from stagelint.analysis import fastmeta
from stagelint.config import Settings
from stagelint.pipeline.perfile import analyze_source

ROOT = Path(__file__).resolve().parents[1]
SOURCES = ["examples/jax_pitfalls.py", "examples/train_pitfalls.py", "stagelint/analysis/walk.py"]


def _garbage_after(build) -> list:
    """What a collection finds unreachable (in cycles) once `build()` has run and returned."""
    enabled = gc.isenabled()
    gc.disable()
    gc.collect()
    try:
        build()
        gc.set_debug(gc.DEBUG_SAVEALL)
        gc.collect()
        found = list(gc.garbage)
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        if enabled:
            gc.enable()
    return found


@pytest.mark.parametrize("path", SOURCES)
def test_an_analysed_file_s_tree_is_freed_without_the_collector(path):
    source = (ROOT / path).read_bytes()
    analyze_source(path, source, Settings())  # the node classes' first use builds tables
    garbage = _garbage_after(lambda: analyze_source(path, source, Settings()))
    assert not [o for o in garbage if isinstance(o, cst.CSTNode)]


def test_release_empties_every_scope_of_the_model():
    module = cst.parse_module((ROOT / "stagelint/analysis/walk.py").read_bytes())
    meta = fastmeta.Metadata(module)
    scopes = fastmeta._distinct_scopes(meta.scopes.values())
    assert len(scopes) > 10
    assert {id(s) for s in scopes} <= {id(s) for s in meta._made}  # the visit's list has them all
    meta.release()
    assert not any(vars(s) for s in scopes)
