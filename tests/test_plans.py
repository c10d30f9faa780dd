"""The plan of the rounds kept across edits (`stagelint.pipeline.plans`): given again only when
the edit cannot change which files the rounds analyse, and then the findings are those of a
check without any cache; an edit that changes the staged call graph runs the rounds again."""

from __future__ import annotations

import os
import textwrap
from pathlib import Path

import pytest

from stagelint.analysis import facts as F
from stagelint.pipeline.cache import Cache
from stagelint.config import Settings
from stagelint.engine import check_paths
from stagelint.pipeline import plans, stages
from stagelint.pipeline.state import Options, ProjectState

MODEL = """
import tensorflow as tf
from pkg import helpers


class Head(tf.keras.layers.Layer):
    def __init__(self):
        super().__init__()
        self.temperature = 1.0

    def call(self, x):
        return x * 2


@tf.function
def step(x):
    y = x + 1
    return y
"""
TUNE = """
from pkg.model import Head


def make():
    head = Head()
    head.temperature = 0.5
    return head
"""
HELPERS = """
def log(x):
    print("value", x)
"""

#: edits of pkg/model.py: (name, old, new, whether the kept plan holds after it)
EDITS = [
    ("a comment appended", "return y\n", "return y\n# a note\n", True),
    ("an expression changed in a body", "return x * 2", "return x * 3", True),
    ("a line inserted above everything", "import tensorflow as tf", "\nimport tensorflow as tf", True),
    # the staged code now reads an attribute another (deferred) file assigns: STG302 in the buffer
    ("a staged read of an attribute set elsewhere", "return x * 2", "return x / self.temperature", False),
    # the staged code now calls a helper in a deferred file: its print is found there
    ("a new call to a helper elsewhere", "y = x + 1", "y = x + 1\n    helpers.log(y)", False),
    ("a decorator removed", "@tf.function\ndef step", "def step", False),
    # every file is now linked to a file that imports JAX: their facts are made with its rules
    # (`screen.framework_reach`), and the plan made without them is not given again
    ("jax imported", "import tensorflow as tf\n", "import jax\nimport tensorflow as tf\n", False),
    # a word in a comment is no import: the same facts, the same plan
    ("jax named in a comment", "return y\n", "return y\n# as jax.jit would\n", True),
]


@pytest.fixture
def project(tmp_path, monkeypatch):
    root = tmp_path / "proj"
    for name, text in {"setup.cfg": "", "pkg/__init__.py": "", "pkg/model.py": MODEL, "pkg/tune.py": TUNE,
                       "pkg/helpers.py": HELPERS}.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"))
    monkeypatch.chdir(root)
    return root


def _state(root: Path, paths, sources=None, cache=True) -> ProjectState:
    # the preview tier too: `make()`'s write is a setter no code orders after a call (STG302's
    # heuristic step), the staged-graph edit this file's plans must follow
    return ProjectState(settings=Settings(preview=True), paths=list(paths), options=Options(whole_project=True, jobs=0),
                        sources={os.path.realpath(k): v for k, v in (sources or {}).items()},
                        cache=Cache(root) if cache else None)


def _shown(findings):
    return [(f.path, f.line, f.code, f.message) for f in findings]


def _edited(name_old_new) -> bytes:
    _, old, new, _ = name_old_new
    text = textwrap.dedent(MODEL).lstrip("\n")
    assert old in text
    return text.replace(old, new, 1).encode()


@pytest.mark.parametrize("edit", EDITS, ids=[e[0] for e in EDITS])
@pytest.mark.parametrize("asked", [["."], ["pkg/model.py"]], ids=["check .", "the buffer alone"])
def test_an_edited_buffer_gets_the_findings_of_a_check_without_cache(project, edit, asked):
    stages.run(_state(project, ["."]))  # `stagelint check .` on the disk: keeps the plan
    buffer = {"pkg/model.py": _edited(edit)}
    state = _state(project, asked, buffer)
    result = stages.run(state)
    expected = check_paths(asked, settings=Settings(preview=True), sources=buffer, whole_project=True, jobs=0)
    assert _shown(result.findings) == _shown(expected.findings)
    assert (state.planned is not None) is edit[3], "the kept plan of the rounds used (or not) as expected"


def test_the_edits_that_change_the_staged_call_graph_change_the_findings(project):
    """(So the cases above compare findings that a stale plan would get wrong.)"""
    stages.run(_state(project, ["."]))
    by_edit = {}
    for edit in EDITS:
        buffer = {"pkg/model.py": _edited(edit)}
        by_edit[edit[0]] = {(f.path, f.code) for f in stages.run(_state(project, ["."], buffer)).findings}
    assert ("pkg/model.py", "STG302") in by_edit["a staged read of an attribute set elsewhere"]
    assert ("pkg/helpers.py", "STG101") in by_edit["a new call to a helper elsewhere"]
    assert not by_edit["a comment appended"] & {("pkg/model.py", "STG302"), ("pkg/helpers.py", "STG101")}


def test_a_plan_is_kept_only_from_the_disk_s_files(project):
    edited = {"pkg/model.py": _edited(EDITS[3])}
    stages.run(_state(project, ["pkg/model.py"], edited))  # a buffer that differs: no plan kept
    state = _state(project, ["pkg/model.py"], {"pkg/model.py": (project / "pkg/model.py").read_bytes()})
    stages.run(state)
    assert state.planned is None  # the rounds ran; this buffer is the disk's file: kept now
    again = _state(project, ["pkg/model.py"], edited)
    result = stages.run(again)
    assert again.planned is None and ("pkg/model.py", "STG302") in {(f.path, f.code) for f in result.findings}


def test_a_changed_deferred_file_runs_the_rounds_again(project):
    stages.run(_state(project, ["."]))
    (project / "pkg/helpers.py").write_text("def log(x):\n    print('now', x)\n")
    state = _state(project, ["."])
    stages.run(state)
    assert state.planned is None


def test_the_demand_surface_leaves_out_candidates_and_positions_only():
    span = F.Span(1, 2, 3, 4)
    f = F.FunctionFacts("step", "step", span, calls=[F.CallEdge(("name", "pkg.helpers.log"), span)])
    m = F.ModuleFacts("a.py", "pkg.a", functions={"step": f},
                      candidates=[F.Candidate("STG101", "step", span)])
    moved = F.ModuleFacts("b/a.py", "pkg.a", functions={"step": F.FunctionFacts(
        "step", "step", F.Span(9, 9, 9, 9), calls=[F.CallEdge(("name", "pkg.helpers.log"), F.Span(8, 1, 8, 2))])})
    assert plans.demand_surface(m) == plans.demand_surface(moved)
    other = F.ModuleFacts("a.py", "pkg.a", functions={"step": F.FunctionFacts(
        "step", "step", span, calls=[F.CallEdge(("name", "pkg.helpers.warn"), span)])})
    assert plans.demand_surface(m) != plans.demand_surface(other)
    renamed = F.ModuleFacts("a.py", "pkg.b", functions={"step": f})
    assert plans.demand_surface(m) != plans.demand_surface(renamed)


class _Unread:
    """Stands for what the rounds must not read: any use of it fails."""

    def __getattr__(self, name):
        raise AssertionError(f"the rounds read {name!r} of a part of the facts the demand surface leaves out")

    def __iter__(self):
        raise AssertionError("the rounds read the candidates")

    def __len__(self):
        raise AssertionError("the rounds read the candidates")

    def __eq__(self, other):
        raise AssertionError("the rounds compared a position")

    __hash__ = None


def _unread_positions(v, seen):
    """`v` with every `Span` in it replaced by `_Unread`, in place."""
    if type(v) is _Unread or id(v) in seen:
        return v
    seen.add(id(v))
    if type(v) is F.Span:
        return _Unread()
    if isinstance(v, list):
        v[:] = [_unread_positions(i, seen) for i in v]
    elif isinstance(v, dict):
        for k in list(v):
            v[k] = _unread_positions(v[k], seen)
    elif hasattr(type(v), "__dataclass_fields__"):
        for k, x in list(v.__dict__.items()):
            v.__dict__[k] = _unread_positions(x, seen)
    return v


@pytest.mark.parametrize("edit", EDITS, ids=[e[0] for e in EDITS])
def test_the_rounds_read_nothing_the_demand_surface_leaves_out(project, edit):
    """What `pipeline.plans` relies on: the project phase of the rounds and `demand.demanded` give
    the same files with the candidates and the positions of every analysed file made unreadable."""
    from stagelint.pipeline.demand import Words, demanded
    from stagelint.frameworks import STAGING
    from stagelint.analysis.staging import Project

    state = _state(project, ["."], {"pkg/model.py": _edited(edit)}, cache=False)
    stages.discover(state)
    stages.screen(state)
    deferred = dict(state.deferred)
    assert deferred, "the fixture has deferred files"
    for outcome in stages._outcomes(state, state.first_round):
        stages._take(state, outcome)
    analysed = sorted(state.modules.values(), key=lambda m: m.path)
    words = Words(state.selection.sources, state.selection.names)

    def wanted(modules):
        partial = Project(modules + stages._placeholders(state, deferred.values()), state.settings, STAGING,
                          call_sites=False)
        return demanded(partial, modules, deferred, words)

    expected = wanted(analysed)
    seen: set[int] = set()
    for m in analysed:
        m.__dict__["candidates"] = _Unread()
        _unread_positions(m, seen)
    assert wanted(analysed) == expected
