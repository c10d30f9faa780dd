"""The result cache: it serves what did not change, never what did, and never breaks a run."""

from __future__ import annotations

import os
import pickle
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from stagelint import cache as cache_module
from stagelint.cache import Cache, analysis_settings, code_fingerprint
from stagelint.config import Settings
from stagelint.engine import check_paths

MODEL = """
import tensorflow as tf
from pkg import utils


@tf.function
def step(x):
    print(x)
    utils.log(x)
    return x + 1
"""
UTILS = """
def log(x):
    print("value", x)
"""
PLAIN = """
def add(a, b):
    return a + b
"""


def _tree(root: Path) -> Path:
    files = {"pkg/__init__.py": "", "pkg/model.py": MODEL, "pkg/utils.py": UTILS, "pkg/plain.py": PLAIN}
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"))
    return root


def _keys(result):
    return [(f.path, f.line, f.column, f.code, f.message) for f in result.findings]


@pytest.fixture
def tree(tmp_path, monkeypatch):
    root = _tree(tmp_path / "proj")
    monkeypatch.chdir(root)
    return root


def _run(root, settings=None, jobs=0, **kw):
    cache = Cache(root, **kw)
    return check_paths(["."], settings, jobs=jobs, cache=cache), cache


def test_second_run_is_served_from_the_cache(tree):
    cold, c1 = _run(tree)
    assert c1.writes and not c1.hits
    warm, c2 = _run(tree)
    assert c2.hits and not c2.misses and not c2.writes
    assert _keys(warm) == _keys(cold) and [f.code for f in cold.findings] == ["STG101", "STG101"]
    assert warm.files_checked == cold.files_checked == 4


def test_workers_write_entries_and_a_served_run_starts_none(tree, monkeypatch):
    cold, c1 = _run(tree, jobs=2)
    from stagelint import workers

    def no_workers(*args, **kwargs):
        raise AssertionError("a worker was started")

    monkeypatch.setattr(workers, "_Worker", no_workers)
    warm, c2 = _run(tree, jobs=2)
    assert c2.hits and not c2.misses
    assert _keys(warm) == _keys(cold)


def test_an_edited_file_is_analysed_again_and_only_it(tree):
    _run(tree)
    (tree / "pkg/utils.py").write_text("def log(x):\n    return x\n")
    result, c = _run(tree)
    assert [f.path for f in result.findings] == ["pkg/model.py"]
    # utils.py misses twice (screen summary, facts), and so does the plan of the rounds (the
    # project's contents changed); the other files hit
    assert c.misses == 3 and c.hits >= 5
    again, c3 = _run(tree)
    assert not c3.misses and _keys(again) == _keys(result)


def test_the_same_bytes_at_another_path_are_another_entry(tree):
    _run(tree)
    shutil.copy(tree / "pkg/model.py", tree / "pkg/model2.py")
    result, _ = _run(tree)
    assert sorted({f.path for f in result.findings}) == ["pkg/model.py", "pkg/model2.py", "pkg/utils.py"]


def test_analysis_settings_are_part_of_the_key_and_report_settings_are_not(tree):
    _run(tree)
    _, c = _run(tree, Settings(staging_decorators=("mylib.compiled",)))
    assert c.misses and not c.hits
    selected, c2 = _run(tree, Settings(ignore=("STG101",)))
    assert c2.hits and not c2.misses
    assert selected.findings == []
    assert analysis_settings(Settings(select=("STG1",))) == analysis_settings(Settings())
    assert analysis_settings(Settings(keras_methods=False)) != analysis_settings(Settings())


def test_another_stagelint_version_or_source_starts_afresh(tree, monkeypatch, tmp_path):
    _run(tree)
    old = code_fingerprint()
    monkeypatch.setattr(cache_module, "_fingerprint", None)
    monkeypatch.setattr(cache_module, "__version__", "999.0")
    new = code_fingerprint()
    assert new != old
    _, c = _run(tree)
    assert c.misses and not c.hits
    # An edit of any of stagelint's own sources changes the fingerprint too.
    package = Path(cache_module.__file__).parent
    copy = tmp_path / "copy"
    shutil.copytree(package, copy, ignore=shutil.ignore_patterns("__pycache__"))
    before = cache_module.source_fingerprint(copy)
    assert before == cache_module.source_fingerprint(package)
    with open(copy / "staging.py", "a") as fh:
        fh.write("\n# an edit\n")
    assert cache_module.source_fingerprint(copy) != before


def _entries(root: Path):
    return [p for p in (root / ".stagelint_cache").rglob("*") if p.is_file() and p.parent.parent.name in ("facts", "screen", "plan")]


@pytest.mark.parametrize("damage", ["garbage", "truncated", "wrong key", "wrong type", "empty"])
def test_damaged_entries_are_misses_not_errors(tree, damage):
    cold, _ = _run(tree)
    entries = _entries(tree)
    assert entries
    for path in entries:
        data = path.read_bytes()
        if damage == "garbage":
            path.write_bytes(b"\x80\x05not a pickle at all")
        elif damage == "truncated":
            path.write_bytes(data[: len(data) // 2])
        elif damage == "wrong key":
            key, value = pickle.loads(data)
            path.write_bytes(pickle.dumps(("0" * 64, value)))
        elif damage == "wrong type":
            key, _ = pickle.loads(data)
            path.write_bytes(pickle.dumps((key, 42)))
        else:
            path.write_bytes(b"")
    result, c = _run(tree)
    assert _keys(result) == _keys(cold)
    assert c.misses and not c.hits and c.writes  # and the entries are written afresh
    warm, c2 = _run(tree)
    assert c2.hits and not c2.misses and _keys(warm) == _keys(cold)


def test_a_cache_that_cannot_be_written_is_not_written(tree, tmp_path):
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the cache folder would go")
    result, c = _run(blocker)  # the cache's root is a file: nothing can be created below it
    assert c.writes == 0 and not c.hits
    assert [f.code for f in result.findings] == ["STG101", "STG101"]


def test_disabled_cache_neither_reads_nor_writes(tree):
    _run(tree)
    before = sorted(map(str, _entries(tree)))
    result, c = _run(tree, enabled=False)
    assert (c.hits, c.misses, c.writes) == (0, 0, 0)
    assert sorted(map(str, _entries(tree))) == before
    assert [f.code for f in result.findings] == ["STG101", "STG101"]


def _cli(*args, cwd):
    return subprocess.run([sys.executable, "-m", "stagelint", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=300)


def test_cli_writes_the_cache_in_the_project_root_unless_told_not_to(tree):
    sub = tree / "pkg"
    (tree / "pyproject.toml").write_text("[tool.stagelint]\nselect = ['STG']\n")
    no_cache = _cli("check", "--no-cache", "--output-format", "concise", ".", cwd=sub)
    assert no_cache.returncode == 1, no_cache.stderr
    assert not (tree / ".stagelint_cache").exists() and not (sub / ".stagelint_cache").exists()
    first = _cli("check", "--output-format", "concise", ".", cwd=sub)
    assert (tree / ".stagelint_cache" / ".gitignore").read_text().splitlines()[-1] == "*"
    assert not (sub / ".stagelint_cache").exists()
    second = _cli("check", "--output-format", "concise", ".", cwd=sub)
    assert first.stdout == second.stdout == no_cache.stdout
    assert "STG101" in first.stdout


def test_old_fingerprint_folders_are_pruned(tree, monkeypatch):
    base = tree / ".stagelint_cache"
    for i in range(6):
        (base / f"old{i}").mkdir(parents=True)
        os.utime(base / f"old{i}", (i, i))
    _run(tree)
    kept = sorted(p.name for p in base.iterdir() if p.is_dir())
    assert len(kept) == cache_module.KEEP
    assert "old5" in kept and "old0" not in kept


def _flake8(*args, cwd):
    return subprocess.run([sys.executable, "-m", "flake8", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=300)


def test_flake8_plugin_does_nothing_when_no_stg_code_is_selected(tree):
    out = _flake8("--select", "E,F,W,C90", ".", cwd=tree)
    assert "STG" not in out.stdout
    assert not (tree / ".stagelint_cache").exists()  # the engine never ran
    out = _flake8("--extend-ignore", "STG", ".", cwd=tree)
    assert "STG" not in out.stdout and not (tree / ".stagelint_cache").exists()
    out = _flake8("--select", "STG", ".", cwd=tree)
    assert out.stdout.count("STG101") == 2
    assert (tree / ".stagelint_cache").exists()
    again = _flake8("--select", "STG", ".", cwd=tree)
    assert again.stdout == out.stdout
    shutil.rmtree(tree / ".stagelint_cache")
    uncached = _flake8("--select", "STG", "--stagelint-no-cache", ".", cwd=tree)
    assert uncached.stdout == out.stdout and not (tree / ".stagelint_cache").exists()
