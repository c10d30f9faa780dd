"""The whole check's result in the cache (`stagelint.pipeline.checkcache`): given again only while every
input of the check is the same, and then exactly what a fresh check gives."""

from __future__ import annotations

import textwrap

import pytest

from stagelint.pipeline import checkcache
from stagelint.pipeline.cache import Cache
from stagelint.config import Settings
from stagelint.engine import check_paths
from stagelint.pipeline import stages

FILES = {
    "pyproject.toml": "[project]\nname = 'pkg'\n",
    "pkg/__init__.py": "",
    "pkg/model.py": """
        import tensorflow as tf
        from pkg import utils


        @tf.function
        def step(x):
            print(x)  # a fixable finding: its fix goes through the cache too
            utils.log(x)
            return x + 1
    """,
    "pkg/utils.py": """
        def log(x):
            print("value", x)
    """,
    "pkg/plain.py": """
        def add(a, b):
            return a + b
    """,
}


pytestmark = pytest.mark.usefixtures("own_signing_key")


@pytest.fixture
def tree(tmp_path, monkeypatch):
    root = tmp_path / "proj"
    for name, text in FILES.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"))
    monkeypatch.chdir(root)
    return root


class Counting:
    """Counts the checks that ran the analysis (not answered from the result cache)."""

    def __init__(self, monkeypatch):
        self.analysed = 0
        real = stages.analyse

        def analyse(state):
            self.analysed += 1
            return real(state)

        monkeypatch.setattr(stages, "analyse", analyse)


def _check(root, paths=(".",), cached=True, **kw):
    cache = Cache(root, enabled=cached)
    return check_paths(list(paths), kw.pop("settings", None), jobs=0, cache=cache, **kw)


def _same(a, b):
    assert a.findings == b.findings
    assert [f.fix for f in a.findings] == [f.fix for f in b.findings]  # not compared by ==
    assert (a.skipped, a.errors, a.files_checked) == (b.skipped, b.errors, b.files_checked)


def test_an_unchanged_project_is_answered_from_the_kept_result(tree, monkeypatch):
    cold = _check(tree)
    counting = Counting(monkeypatch)
    warm = _check(tree)
    assert counting.analysed == 0
    _same(warm, cold)
    assert [f.code for f in warm.findings] == ["STG101", "STG101"] and any(f.fix for f in warm.findings)


def _edit_imported(root):
    (root / "pkg/utils.py").write_text("def log(x):\n    return x\n")


def _add_file(root):
    (root / "pkg/extra.py").write_text("import tensorflow as tf\n\n\n@tf.function\ndef g(x):\n    print(x)\n")


def _remove_file(root):
    (root / "pkg/utils.py").unlink()


def _noqa_comment(root):
    path = root / "pkg/utils.py"
    path.write_text(path.read_text().replace('print("value", x)', 'print("value", x)  # noqa: STG101'))


def _config(root):
    (root / "pyproject.toml").write_text("[project]\nname = 'pkg'\n\n[tool.stagelint]\nignore = ['STG101']\n")


CHANGES = {
    "an imported file edited": (_edit_imported, {}),
    "a file added": (_add_file, {}),
    "a file removed": (_remove_file, {}),
    "a noqa comment": (_noqa_comment, {}),
    "the configuration file": (_config, {}),
    "a report setting": (None, {"settings": Settings(ignore=("STG101",))}),
    "another path given": (None, {"paths": ["pkg/model.py"], "whole_project": True}),
    "a folder given": (None, {"paths": ["pkg"]}),
    "inline noqa left to the host": (None, {"noqa": False}),
    "imported files reported": (None, {"report_imported": True}),
}


@pytest.mark.parametrize("change", list(CHANGES))
def test_any_change_of_an_input_is_checked_afresh(tree, monkeypatch, change):
    edit, options = CHANGES[change]
    _check(tree)
    if edit is not None:
        edit(tree)
    counting = Counting(monkeypatch)
    options = dict(options)
    if change == "the configuration file":
        from stagelint.config import load_settings

        options["settings"] = load_settings(".")
    warm = _check(tree, **options)
    assert counting.analysed == 1
    fresh = _check(tree, cached=False, **options)
    _same(warm, fresh)
    again = _check(tree, **options)
    assert counting.analysed == 2  # the fresh one ran uncached; the third is answered from the cache
    _same(again, fresh)


def test_a_buffer_is_its_own_input(tree, monkeypatch):
    _check(tree, paths=["pkg/model.py"], whole_project=True)
    model = tree / "pkg/model.py"
    buffer = model.read_bytes().replace(b"    print(x)", b"    x = x * 2")
    counting = Counting(monkeypatch)
    edited = _check(tree, paths=["pkg/model.py"], whole_project=True, sources={str(model): buffer})
    assert counting.analysed == 1 and [f.path for f in edited.findings] == []
    again = _check(tree, paths=["pkg/model.py"], whole_project=True, sources={str(model): buffer})
    assert counting.analysed == 1 and again.findings == edited.findings
    disk = _check(tree, paths=["pkg/model.py"], whole_project=True)
    assert counting.analysed == 1 and [f.line for f in disk.findings] == [7]


def test_an_unclean_check_is_not_kept(tree, monkeypatch):
    real = stages.findings

    def with_an_error(state):
        real(state)
        state.result.errors.append(("pkg/model.py", "STG101", "Traceback: boom"))

    monkeypatch.setattr(stages, "findings", with_an_error)
    _check(tree)
    monkeypatch.setattr(stages, "findings", real)
    counting = Counting(monkeypatch)
    result = _check(tree)
    assert counting.analysed == 1 and not result.errors


def test_a_check_that_does_not_know_all_its_inputs_is_not_kept(tree, monkeypatch):
    counting = Counting(monkeypatch)
    for _ in range(2):
        check_paths(["."], None, jobs=0, cache=Cache(tree), screen=False)
    assert counting.analysed == 2


def test_the_key_holds_the_digest_of_every_file_read(tree):
    seen = {}
    real = checkcache.result_key

    def spy(state):
        key = real(state)
        seen["known"] = set(state.selection.known)
        seen["digests"] = dict(state.selection.digests)
        return key

    checkcache.result_key, saved = spy, checkcache.result_key
    try:
        _check(tree)
    finally:
        checkcache.result_key = saved
    files = {str(p.resolve()) for p in (tree / "pkg").glob("*.py")}
    assert files <= seen["known"] and files <= seen["digests"].keys()
