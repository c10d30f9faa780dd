"""The framework gate: the rules of an optional framework (JAX) are left out of the files it cannot
stage anything in (`screen.framework_reach`, `Rule.framework`), and every finding stays as it was.

The boundary cases are files that never spell `jax` yet have JAX findings: a helper a jitted
function calls, a function passed to `jax.jit` in another file, a caller of a jitted function
imported from a JAX file (STG504 reports at the call). Each project is checked with the screen
(gated) and without it (`screen=False`: every rule on every file), through `check .`, one file,
the result cache and the language server.
"""

from __future__ import annotations

import os
import textwrap
from pathlib import Path

import pytest

from stagelint.pipeline import screen
from stagelint.pipeline.cache import Cache
from stagelint.config import Settings
from stagelint.engine import check_paths
from stagelint.pipeline import perfile, stages
from stagelint.pipeline.state import Options, ProjectState
from stagelint.rules import all_rules

HELPERS = """
def positive(x):
    return x[x > 0]


def shift(x):
    return x + 1
"""
PASSED = """
def body(x):
    return x[x > 0]
"""
TRAIN = """
import functools

import jax

from pkg.helpers import positive
from pkg.passed import body


@jax.jit
def step(x):
    return positive(x)


@functools.partial(jax.jit, static_argnums=1)
def scale(x, factors):
    return x * len(factors)


fast = jax.jit(body)


def run_fast(x):
    return fast(x)
"""
CALLER = """
from pkg.train import scale


def run(x):
    return scale(x, [1, 2])
"""
#: TensorFlow only, linked to no JAX file: gated. STG605 is no JAX-only rule (it reports in code
#: any framework stages), so it stays.
TFONLY = """
import tensorflow as tf


@tf.function
def f(x):
    print(x)
    x.at[0].set(1)
    return x
"""
#: A TensorFlow file that calls a helper of a file JAX reaches (and is linked to JAX only so).
TFUSER = """
import tensorflow as tf

from pkg.helpers import shift


@tf.function
def g(x):
    print(x)
    return shift(x)
"""

TF_FINDINGS = {("pkg/tfonly.py", "STG101"), ("pkg/tfonly.py", "STG605"), ("pkg/tfuser.py", "STG101")}
JAX_FINDINGS = {("pkg/caller.py", "STG504"), ("pkg/helpers.py", "STG604"), ("pkg/passed.py", "STG604")}


def _write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"))


@pytest.fixture
def project(tmp_path, monkeypatch):
    root = tmp_path / "proj"
    _write(root, {"setup.cfg": "", "pkg/__init__.py": "", "pkg/helpers.py": HELPERS, "pkg/passed.py": PASSED,
                  "pkg/train.py": TRAIN, "pkg/caller.py": CALLER, "pkg/tfonly.py": TFONLY, "pkg/tfuser.py": TFUSER})
    monkeypatch.chdir(root)
    return root


def _shown(result) -> list[tuple]:
    return [(f.path, f.line, f.column, f.code, f.message) for f in result.findings]


def _codes(result) -> set[tuple[str, str]]:
    return {(f.path, f.code) for f in result.findings}


def _absent(paths=(".",), **options) -> dict[str, list[str]]:
    state = ProjectState(settings=Settings(), paths=list(paths), options=Options(jobs=0, **options))
    stages.discover(state)
    stages.screen(state)
    return {os.path.relpath(r): sorted(a) for r, a in state.absent.items()}


def test_the_jax_rules_declare_their_framework():
    by_code = {r.code: r.framework for r in all_rules()}
    assert {c for c, fw in by_code.items() if fw == "jax"} == {"STG203", "STG504", "STG505", "STG604"}
    assert by_code["STG605"] is None and by_code["STG101"] is None
    assert {r.code for r in perfile.rules_for(frozenset({"jax"}))} == \
        {r.code for r in all_rules() if not r.runtime_only} - {"STG203", "STG504", "STG505", "STG604"}


def test_jax_is_left_out_only_of_files_no_import_links_to_a_jax_file(project):
    # (tfonly names flax in a comment: no import, no qualified name of JAX's)
    (project / "pkg/tfonly.py").write_text(textwrap.dedent(TFONLY).lstrip("\n") + "# as flax.linen.jit would\n")
    # helpers and passed are imported by train (JAX), caller imports it: in JAX's reach. tfuser
    # calls into helpers, but nothing JAX does can reach tfuser's own code (train does not
    # import it, nor does it import a file that imports train); tfonly is linked to nothing.
    assert _absent() == {"pkg/tfonly.py": ["jax"], "pkg/tfuser.py": ["jax"]}


def test_a_file_in_a_jax_package_is_in_reach_without_spelling_it(tmp_path, monkeypatch):
    # `from . import linen` in flax/ names flax.linen without spelling it
    _write(tmp_path, {"flax/__init__.py": "", "flax/core.py": "from . import linen\nimport tensorflow as tf\n",
                      "flax/linen.py": "import tensorflow as tf\n", "other/__init__.py": "",
                      "other/tfonly.py": "import tensorflow as tf\n"})
    monkeypatch.chdir(tmp_path)
    assert _absent(["flax", "other"]) == {"other/__init__.py": ["jax"], "other/tfonly.py": ["jax"]}


def test_the_boundary_findings_are_those_of_a_check_without_the_gate(project):
    gated = check_paths(["."], jobs=0)
    assert _shown(gated) == _shown(check_paths(["."], jobs=0, screen=False))
    assert JAX_FINDINGS | TF_FINDINGS == _codes(gated)


def test_a_gate_closed_on_the_boundary_files_would_lose_their_findings(project, monkeypatch):
    """(So the test above compares findings a wrong gate gets wrong.)"""
    monkeypatch.setattr(screen, "framework_reach",
                        lambda summaries, *a: {r: frozenset({"jax"}) for r in summaries
                                               if not r.endswith("train.py")})
    assert not _codes(check_paths(["."], jobs=0)) & JAX_FINDINGS


def test_a_project_without_jax_gets_the_findings_it_got_before(project):
    for name in ("train.py", "caller.py", "helpers.py", "passed.py"):
        (project / "pkg" / name).unlink()
    absent = _absent()
    assert len(absent) == 3 and all(a == ["jax"] for a in absent.values())  # pkg/__init__.py too
    gated = check_paths(["."], jobs=0)
    assert _shown(gated) == _shown(check_paths(["."], jobs=0, screen=False))
    assert _codes(gated) == TF_FINDINGS


@pytest.mark.parametrize("jobs", [0, 2])
@pytest.mark.parametrize("whole_project", [True, False])
def test_one_file_given_alone_gets_what_check_of_the_project_gives_it(project, jobs, whole_project):
    for name in ("pkg/helpers.py", "pkg/caller.py", "pkg/tfonly.py", "pkg/tfuser.py"):
        alone = check_paths([name], jobs=jobs, whole_project=whole_project)
        assert _shown(alone) == _shown(check_paths([name], jobs=jobs, whole_project=whole_project, screen=False))
        if whole_project:  # as the flake8 plugin checks a file (from its standard input too)
            buffer = {str(project / name): (project / name).read_bytes()}
            assert _shown(check_paths([name], jobs=0, whole_project=True, sources=buffer)) == _shown(alone)
            full = [f for f in _shown(check_paths(["."], jobs=0)) if f[0] == name]
            assert _shown(alone) == full
    # caller.py alone still reaches train.py through its import, and so its STG504
    assert ("pkg/caller.py", "STG504") in _codes(check_paths(["pkg/caller.py"], jobs=0))


def test_the_cache_never_serves_facts_made_with_the_gate_the_other_way(project):
    """A TensorFlow helper first analysed with JAX left out (no file links it to JAX), then jitted
    from a new file: its facts are made again with the JAX rules, not served from the cache."""
    (project / "pkg/train.py").unlink()
    (project / "pkg/caller.py").unlink()
    cache = Cache(project)
    first = check_paths(["."], jobs=0, cache=cache)
    assert not _codes(first) & JAX_FINDINGS
    _write(project, {"pkg/train.py": TRAIN})
    again = check_paths(["."], jobs=0, cache=Cache(project))
    assert _shown(again) == _shown(check_paths(["."], jobs=0))
    assert {("pkg/helpers.py", "STG604"), ("pkg/passed.py", "STG604")} <= _codes(again)
    (project / "pkg/train.py").unlink()  # and back: the gate's facts of the first check serve again
    cache = Cache(project)
    assert _shown(check_paths(["."], jobs=0, cache=cache)) == _shown(first) and cache.hits


def test_the_facts_key_holds_the_frameworks_left_out(tmp_path):
    cache = Cache(tmp_path)
    keys = {perfile.facts_key(cache, ((), ()), "m.py", "m", False, "d" * 64, (), absent)
            for absent in (frozenset(), frozenset({"jax"}))}
    assert len(keys) == 2


def test_an_edit_that_imports_jax_turns_the_gate_on_in_the_language_server(project):
    """`Project.update` after an edit that jits a helper from a file that spelled no JAX: the
    helper's findings (and every other file's) are those of a fresh check of the same texts."""
    from stagelint.server import Project

    (project / "pkg/train.py").write_text("from pkg.helpers import positive\n\n\ndef step(x):\n    return positive(x)\n")
    server = Project(project, Options(jobs=0))
    server.load_settings()
    server.analyse_all()
    assert server.state.absent_for("pkg/helpers.py") == {"jax"}
    assert not server.findings_for(["pkg/helpers.py"])["pkg/helpers.py"]
    text = textwrap.dedent(TRAIN).lstrip("\n")
    server.update("pkg/train.py", text)
    assert server.state.absent_for("pkg/helpers.py") == frozenset()
    fresh = check_paths(["."], jobs=0, sources={str(project / "pkg/train.py"): text.encode()})
    for path in ("pkg/helpers.py", "pkg/passed.py", "pkg/caller.py", "pkg/tfonly.py", "pkg/tfuser.py"):
        got = [(f.path, f.line, f.column, f.code, f.message) for f in server.findings_for([path])[path]]
        assert got == [f for f in _shown(fresh) if f[0] == path], path
    assert [f.code for f in server.findings_for(["pkg/helpers.py"])["pkg/helpers.py"]] == ["STG604"]
    # edits inside the helper's body (the second spliced: the facts kept are the gate's) keep it
    # (padded with functions the splice leaves as they were: a splice must save enough)
    text = textwrap.dedent(HELPERS).lstrip("\n") + "".join(
        f"\n\ndef unrelated_{i}(a, b):\n    c = a + b\n    d = c * 2\n    return d - a\n" for i in range(12))
    for old, new in (("    return x[x > 0]", "    x = x * 2\n    return x[x > 0]"), ("x * 2", "x * 3")):
        text = text.replace(old, new)
        server.update("pkg/helpers.py", text)
        assert [f.code for f in server.findings_for(["pkg/helpers.py"])["pkg/helpers.py"]] == ["STG604"]
    assert server.counts == {"whole": 1, "spliced": 1}


def test_the_project_phase_framework_holds_every_jax_staging_api():
    """The project phase asks `STAGING.staging_decorators` (`Project.staging_decorators`,
    `analysis.flags`) for "decorated with a staging API", JAX's transformations included."""
    from stagelint.frameworks import JAX_GRAD, JAX_JIT, JAX_TRACE, STAGING

    assert JAX_JIT | JAX_TRACE | JAX_GRAD <= STAGING.staging_decorators
