"""The language server's incremental project phase: after a file is analysed again
(`stages.reanalyse`), the project built over the facts in memory, reusing the last project's
resolutions where they hold (`pipeline.incremental`), gives every file the findings a fresh
check of the same texts gives, and the same staged call graph."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent / "integrations"))
from integration_support import PROJECT  # noqa: E402

from stagelint.config import load_settings  # noqa: E402
from stagelint.pipeline import incremental, stages  # noqa: E402
from stagelint.pipeline.state import Options, ProjectState  # noqa: E402


def _analysed(sources: dict[str, bytes] | None = None) -> ProjectState:
    """The project in the working directory, as the server analyses it (every file reported)."""
    state = ProjectState(settings=load_settings(Path(".")), paths=["."], options=Options(jobs=0),
                         sources={str(Path(p).resolve()): b for p, b in (sources or {}).items()})
    stages.discover(state)
    stages.screen(state)
    stages.plan_rounds(state)
    stages.analyse(state)
    stages.project_phase(state)
    state.reported = {m.path for m in state.modules.values()}
    return state


def _all_findings(state: ProjectState) -> list[tuple]:
    paths = {m.path for m in state.project_modules}
    return sorted((f.path, f.line, f.column, f.code, f.message) for f in stages.findings_for(state, paths))


def _graph(state: ProjectState) -> tuple:
    p = state.project
    return (dict(p.entries), dict(p.reached), sorted(p.unguarded),
            {k: sorted((m, repr(s)) for m, s in v) for k, v in p.call_sites.items()},
            {k: sorted((m, repr(s), via) for m, s, via in v) for k, v in p.function_calls.items()})


MODEL = "pkg/model.py"
UTILS = "pkg/utils.py"

#: Edits, one after the other (file, old, new), and whether the last project's resolutions are
#: reused (True), not (False), or the screen's view of the project moved (None: from the screen on).
EDITS = [
    # inside a staged body: a new print, every line below it moved
    (MODEL, "    log_metrics(loss)\n", "    log_metrics(loss)\n    print('typed')\n", True),
    # a new staged caller of a helper elsewhere (an import: what the screen reads changes)
    (MODEL, "from pkg.utils import log_metrics\n", "from pkg.utils import log_metrics, unused\n", None),
    (MODEL, "    print('typed')\n", "    unused(x)\n", True),
    # the helper's own body
    (UTILS, '    print("never staged", x)\n', '    print("staged now", x)\n    history.append(x)\n', True),
    # a new function: the resolution surface changes
    (UTILS, "def unused(x):\n", "def added(y):\n    return y\n\n\ndef unused(x):\n", False),
    # the staged caller goes
    (MODEL, "    unused(x)\n", "", True),
    # a helper in a file the screen ruled out: a call into pkg/plain.py
    (MODEL, "from pkg.utils import log_metrics, unused\n",
     "from pkg.plain import add\nfrom pkg.utils import log_metrics\n", None),
    (MODEL, "    log_metrics(loss)\n", "    log_metrics(loss)\n    add(x, x)\n", True),
    # and away again
    (MODEL, "    add(x, x)\n", "", True),
    # a wrapper binding in one file, called from another, unmade and made again: the caller's
    # sites are read again (what a site resolves to is kept from the last project only while
    # every wrapper binding is the same)
    (UTILS, "history = []\n",
     "import tensorflow as tf\n\nhistory = []\n\n\ndef helper(n):\n    return n\n\n\nfast = tf.function(helper)\nslow = tf.function(helper)\n", None),
    (MODEL, "from pkg.utils import log_metrics\n", "from pkg.utils import fast, log_metrics\n", None),
    (MODEL, "    log_metrics(loss)\n", "    log_metrics(loss)\n    fast(3)\n", True),
    (UTILS, "fast = tf.function(helper)\n", "fast = helper\n", True),
    (UTILS, "fast = helper\n", "fast = tf.function(helper)\n", True),
]


def test_each_edit_gives_what_a_fresh_check_of_the_same_texts_gives(tmp_path, monkeypatch):
    """The server's `Project.update`, edit after edit, against a fresh check of the same texts:
    the same findings in every file and the same staged call graph."""
    from stagelint.server import Project

    root = tmp_path / "p"
    shutil.copytree(PROJECT, root)
    monkeypatch.chdir(root)
    reused: list[bool] = []
    real_reusable = incremental.reusable

    def spy(*args):
        reused.append(real_reusable(*args))
        return reused[-1]

    monkeypatch.setattr(stages, "reusable", spy)
    project = Project(root, Options(jobs=0))
    project.load_settings()
    project.analyse_all()
    assert "pkg/plain.py" not in {m.path for m in project.state.modules.values()}  # screened out
    texts = {MODEL: (root / MODEL).read_text(), UTILS: (root / UTILS).read_text()}
    plain = []
    for path, old, new, holds in EDITS:
        assert old in texts[path], (path, old)
        texts[path] = texts[path].replace(old, new, 1)
        del reused[:]
        project.update(path, texts[path])
        plain.append(len(project.findings_for(["pkg/plain.py"])["pkg/plain.py"]))
        # `holds`: the last project's resolutions reused; None: the screen's view moved, a
        # fresh start from the screen on
        assert (reused[0] if reused else None) is holds, (path, new)

        fresh = _analysed({p: t.encode() for p, t in texts.items()})
        assert _all_findings(project.state) == _all_findings(fresh), (path, new)
        assert _graph(project.state) == _graph(fresh), (path, new)
    # two edits staged pkg/plain.py's `add` (screened out at first): its print counted, then not
    assert plain[7:9] == [1, 0] and not any(plain[:7] + plain[9:])


@pytest.mark.parametrize("change", [
    lambda m: m.imports.update({"extra": "pkg.extra"}),
    lambda m: m.functions.pop(next(iter(m.functions))),
    lambda m: next(iter(m.functions.values())).decorators.append("tf.function"),
])
def test_a_changed_surface_is_not_reused(tmp_path, monkeypatch, change):
    import copy

    root = tmp_path / "p"
    shutil.copytree(PROJECT, root)
    monkeypatch.chdir(root)
    state = _analysed()
    old = state.project_modules
    new = list(old)
    i = next(i for i, m in enumerate(new) if m.path == MODEL)
    new[i] = copy.deepcopy(new[i])
    real = state.realpath(MODEL)
    assert incremental.reusable(old, new, {real}, state.realpath)
    change(new[i])
    assert not incremental.reusable(old, new, {real}, state.realpath)
    # a module replaced without being reported as changed is never trusted
    assert not incremental.reusable(old, [copy.deepcopy(m) for m in old], set(), state.realpath)


def _server_project(tmp_path, monkeypatch):
    """The server's `Project` over a copy of the project, analysed, and a count of its joins."""
    from stagelint.server import Project

    root = tmp_path / "p"
    shutil.copytree(PROJECT, root)
    monkeypatch.chdir(root)
    project = Project(root, Options(jobs=0))
    project.load_settings()
    project.analyse_all()
    joins = []
    real_phase = stages.project_phase
    monkeypatch.setattr(stages, "project_phase", lambda state: joins.append(1) or real_phase(state))
    return project, joins, (root / MODEL).read_text()


def test_an_overtaken_analysis_is_joined_when_its_text_comes_again(tmp_path, monkeypatch):
    """An analysis overtaken by a newer change (`superseded`) leaves the file's facts unjoined.
    When the newer text is the same (the change came as the analysis took the text), the facts
    come out equal to those: the project phase runs all the same, and the findings are those of
    a fresh check of the text, not of the project's text before (it had no print)."""
    project, joins, text = _server_project(tmp_path, monkeypatch)
    text = text.replace("    log_metrics(loss)\n", "    log_metrics(loss)\n    print('typed')\n", 1)
    assert project.update(MODEL, text, superseded=lambda: True) is False
    assert not joins
    assert project.update(MODEL, text) is True
    assert joins
    mine = _all_findings(project.state)
    assert mine == _all_findings(_analysed({MODEL: text.encode()}))
    assert any(f[0] == MODEL and f[3] == "STG101" for f in mine), mine


def test_facts_the_project_joined_are_not_joined_again(tmp_path, monkeypatch):
    """The twin: the same text analysed again after an analysis the project joined gives the
    facts it joined, and no project phase runs; the findings are still those of a fresh check."""
    project, joins, text = _server_project(tmp_path, monkeypatch)
    text = text.replace("    log_metrics(loss)\n", "    log_metrics(loss)\n    print('typed')\n", 1)
    assert project.update(MODEL, text) is True
    assert joins
    del joins[:]
    assert project.update(MODEL, text) is True
    assert not joins and not project.state.changed
    mine = _all_findings(project.state)
    assert mine == _all_findings(_analysed({MODEL: text.encode()}))
    assert any(f[0] == MODEL and f[3] == "STG101" for f in mine), mine
