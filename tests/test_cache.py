"""The result cache: it serves what did not change, never what did, and never breaks a run."""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import pickle
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from stagelint.pipeline import cache as cache_module
from stagelint.pipeline import datacodec
from stagelint.analysis import facts as F
from stagelint.pipeline.cache import Cache, analysis_settings, code_fingerprint
from stagelint.config import Settings
from stagelint.engine import check_paths
from stagelint.pipeline.screen import FileSummary

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


pytestmark = pytest.mark.usefixtures("own_signing_key")


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
    from stagelint.pipeline import workers

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
    # utils.py misses twice (screen summary, facts), and so does the whole check's result (the
    # project's contents changed); the other files hit, and so does the kept plan of the rounds,
    # which does not hold (utils.py, which the rounds decide about, changed: `pipeline.plans`)
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
    before = set(_entries(tree))
    selected, c2 = _run(tree, Settings(ignore=("STG101",)))
    # every file's entries serve; only the whole check's result (its findings) is another
    assert c2.hits and c2.misses == 1 and {p.parent.parent.name for p in set(_entries(tree)) - before} == {"result"}
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
    # An edit of any of stagelint's own sources changes the fingerprint too: those of the whole
    # package, wherever the cache module itself sits in it.
    package = cache_module.package_root()
    assert (package / "__init__.py").read_text().find("__version__") >= 0
    assert {p.name for p in package.iterdir()} >= {"rules", "analysis", "pipeline", "frameworks", "cli.py"}
    copy = tmp_path / "copy"
    shutil.copytree(package, copy, ignore=shutil.ignore_patterns("__pycache__"))
    before = cache_module.source_fingerprint(copy)
    assert before == cache_module.source_fingerprint(package)
    for edited in ("analysis/staging.py", "rules/retracing.py", "frameworks/jax.py"):
        with open(copy / edited, "a") as fh:
            fh.write("\n# an edit\n")
        assert cache_module.source_fingerprint(copy) != before
        before = cache_module.source_fingerprint(copy)
    seen = []
    monkeypatch.setattr(cache_module, "_fingerprint", None)
    monkeypatch.setattr(cache_module, "source_fingerprint", lambda folder: seen.append(folder) or "x")
    code_fingerprint()
    assert seen == [package]


def test_the_screens_summaries_are_one_file_per_project(tree):
    """Every file's summary goes into one bundle (`cache.BUNDLED`), written once per batch; a
    summary that does not read back is a miss for its file alone."""
    cold, c = _run(tree)
    bundles = [p for p in _entries(tree) if p.parent.parent.name == "screen"]
    assert len(bundles) == 1 and len(json.loads(_body(bundles[0].read_bytes()))) == 4
    # One summary in the bundle is damaged (signed again, as if its writer were fooled): only its
    # file misses, and its summary is made and kept again.
    bundle = bundles[0]
    entries = json.loads(_body(bundle.read_bytes()))
    damaged = sorted(entries)[0]
    entries[damaged] = json.dumps(json.loads(entries[damaged])[:-1])
    bundle.write_bytes(_signed(bundle, json.dumps(entries).encode()))
    cache = Cache(tree)
    assert cache.get("screen", damaged, FileSummary) is None and cache.misses == 1
    assert all(cache.get("screen", key, FileSummary) is not None for key in entries if key != damaged)
    result, c2 = _run(tree)
    assert _keys(result) == _keys(cold), c2.misses
    assert c2.misses == 1  # the summary (the whole result is served: no file changed)
    assert len(json.loads(_body(bundle.read_bytes()))) == 4


def test_a_bundle_drops_the_entries_no_run_uses_once_they_outnumber_the_used(tree, monkeypatch):
    cache = Cache(tree)
    summary = FileSummary(True, frozenset({"tf"}))
    cache.put_many("screen", {f"old{i}": summary for i in range(5)})
    monkeypatch.setattr(cache_module, "BUNDLE_SLACK", 1)
    again = Cache(tree)
    assert again.get("screen", "old0", FileSummary) == summary
    again.put_many("screen", {"new": summary})  # 6 entries, 2 used: more than 2 * 2 + 1
    assert sorted(Cache(tree)._bundle("screen")[0]) == ["new", "old0"]
    monkeypatch.setattr(cache_module, "BUNDLE_SLACK", 1000)
    third = Cache(tree)
    third.put("screen", "newer", summary)
    assert sorted(Cache(tree)._bundle("screen")[0]) == ["new", "newer", "old0"]


def _entries(root: Path):
    return [p for p in (root / ".stagelint_cache").rglob("*") if p.is_file() and p.parent.parent.name in ("facts", "screen", "plan", "result")]


def _signed(path: Path, body: bytes, key: str | None = None, kind: str | None = None) -> bytes:
    """An entry for `path`'s place in the cache, signed with this user's key (as if the
    attacker knew it: then the decoder alone stands between the bytes and the analysis)."""
    kind = kind or path.parent.parent.name
    key = key or path.parent.name + path.name
    header = cache_module._header(kind, key)
    return header + cache_module._signature(header, body) + b"\n" + body


def _body(data: bytes) -> bytes:
    return data.split(b"\n", 1)[1]


def _damage(path: Path, data: bytes, damage: str) -> None:
    body = _body(data)
    value = json.loads(body)
    if damage == "garbage":
        path.write_bytes(b"\x80\x05not an entry at all")
    elif damage == "truncated":
        path.write_bytes(data[: len(data) // 2])
    elif damage == "empty":
        path.write_bytes(b"")
    elif damage == "wrong key":
        path.write_bytes(_signed(path, body, key="0" * 64))
    elif damage == "unsigned":
        path.write_bytes(data.replace(data.split(b"\n", 1)[0].rsplit(b" ", 1)[1], b"0" * 64, 1))
    elif damage == "another user's key":
        header = data.split(b"\n", 1)[0].rsplit(b" ", 1)[0] + b" "
        mac = hmac.new(b"someone else", header + body, hashlib.sha256).hexdigest().encode()
        path.write_bytes(header + mac + b"\n" + body)
    elif damage == "wrong type":
        path.write_bytes(_signed(path, b"42"))
    elif damage == "wrong shape":  # one item short (facts, summaries), or items of another type (plans)
        plan = isinstance(value, list) and all(isinstance(v, str) for v in value)
        short = [["a list"]] if plan else _inside(value, lambda v: v[:-1])
        path.write_bytes(_signed(path, json.dumps(short).encode()))
    elif damage == "bad types":
        path.write_bytes(_signed(path, json.dumps(_inside(value, _retyped)).encode()))
    elif damage == "deep nesting":
        path.write_bytes(_signed(path, b"[" * 200_000 + b"]" * 200_000))
    elif damage == "huge number":
        path.write_bytes(_signed(path, b"[" + b"9" * 100_000 + b"]"))


def _inside(value, damage):
    """`damage` done to an entry's value; in a bundle (`cache.BUNDLED`: a JSON object of entries
    as JSON text), to every entry inside it, the bundle itself left sound."""
    if isinstance(value, dict):
        return {key: json.dumps(damage(json.loads(text))) for key, text in value.items()}
    return damage(value)


def _retyped(value):
    """`value` with its first number and its first flag strings, and its first string a number."""
    done = set()

    def walk(v):
        if isinstance(v, bool) and "bool" not in done:
            done.add("bool")
            return "yes"
        if isinstance(v, bool) or v is None:
            return v
        if isinstance(v, int) and "int" not in done:
            done.add("int")
            return str(v)
        if isinstance(v, str) and "str" not in done:
            done.add("str")
            return 12
        if isinstance(v, list):
            return [walk(i) for i in v]
        if isinstance(v, dict):
            return {k: walk(i) for k, i in v.items()}
        return v

    return walk(value)


DAMAGES = ["garbage", "truncated", "empty", "wrong key", "unsigned", "another user's key", "wrong type",
           "wrong shape", "bad types", "deep nesting", "huge number"]


@pytest.mark.parametrize("damage", DAMAGES)
def test_damaged_entries_are_misses_not_errors(tree, damage):
    cold, _ = _run(tree)
    entries = _entries(tree)
    assert {p.parent.parent.name for p in entries} == {"facts", "screen", "plan", "result"}
    for path in entries:
        _damage(path, path.read_bytes(), damage)
    result, c = _run(tree)
    assert _keys(result) == _keys(cold)
    assert c.misses and not c.hits and c.writes  # and the entries are written afresh
    warm, c2 = _run(tree)
    assert c2.hits and not c2.misses and _keys(warm) == _keys(cold)


class _TouchOnUnpickle:
    """Unpickled, it creates a file: what a crafted pickle entry in a repository could do."""

    def __init__(self, target):
        self.target = str(target)

    def __reduce__(self):
        return (open, (self.target, "w"))


def test_a_crafted_pickle_entry_runs_nothing(tree, tmp_path):
    cold, _ = _run(tree)
    marker = tmp_path / "pwned"
    payload = pickle.dumps(_TouchOnUnpickle(marker))
    for path in _entries(tree):
        key = path.parent.name + path.name
        crafted = pickle.dumps((key, _TouchOnUnpickle(marker)))  # the layout of the old cache
        path.write_bytes(crafted if path.parent.parent.name == "facts" else _signed(path, payload))
    result, c = _run(tree)
    assert not marker.exists()
    assert _keys(result) == _keys(cold) and c.misses and not c.hits and c.writes
    warm, c2 = _run(tree)
    assert c2.hits and not c2.misses and _keys(warm) == _keys(cold)
    pickle.loads(payload)  # the payload is live: unpickled, it does create the file
    assert marker.exists()


@pytest.mark.parametrize("signed", [True, False])
def test_a_crafted_json_entry_runs_nothing(tree, tmp_path, signed):
    cold, _ = _run(tree)
    marker = tmp_path / "pwned"
    touch = f"touch {marker}"
    bodies = [
        {"c": "os.system", "v": [touch]},  # a "class" to call, if the reader called classes
        {"py/reduce": [{"py/function": "os.system"}, {"py/tuple": [touch]}]},  # jsonpickle's form
        {"__class__": "subprocess.Popen", "args": [["touch", str(marker)]]},
    ]
    for i, path in enumerate(_entries(tree)):
        value = json.loads(_body(path.read_bytes()))
        body = bodies[i % len(bodies)]
        if isinstance(value, list) and path.parent.parent.name == "facts":
            # the right shape around it: the facts with a crafted candidate
            value[-6] = [["STG101", None, [1, 0, 1, 1], {"d": {"fix": body}}]]
            body = value
        elif path.parent.parent.name == "result":
            # a whole check's result whose one finding carries it as its fix
            value[0] = [["STG101", "trace-time-side-effect", "pkg/model.py", 1, 1, 1, 2, "m", None, None, True,
                         body, None]]
            body = value
        data = json.dumps(body).encode()
        path.write_bytes(_signed(path, data) if signed else b"stagelint-cache 2 x y z\n" + data)
    result, c = _run(tree)
    assert not marker.exists()
    assert _keys(result) == _keys(cold) and c.misses and not c.hits and c.writes
    warm, c2 = _run(tree)
    assert c2.hits and not c2.misses and _keys(warm) == _keys(cold)
    assert not marker.exists()


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="no symlinks on this platform")
def test_symlinked_entries_are_neither_read_nor_written_through(tree, tmp_path):
    cold, _ = _run(tree)
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    entries = _entries(tree)
    for i, path in enumerate(entries):
        path.unlink()
        path.symlink_to(victim if i % 2 else "/dev/zero")
    result, c = _run(tree)
    assert _keys(result) == _keys(cold) and c.misses and not c.hits and c.writes
    assert victim.read_text() == "precious\n"
    assert all(p.is_file() and not p.is_symlink() for p in entries)
    # A symlinked folder inside the cache is not written through either.
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    kind = entries[0].parent.parent
    shutil.rmtree(kind)
    kind.symlink_to(elsewhere)
    (tree / "pkg/plain.py").write_text(PLAIN + "\n# edited\n")
    _run(tree)
    assert list(elsewhere.iterdir()) == []


def _round_trip(value, hint=None):
    hint = hint or type(value)
    back = datacodec.loads(datacodec.dumps(value, hint), hint)
    assert back == value and type(back) is type(value)
    return back


def _sample(hint, depth=0):
    """A value of every part of `hint`, none of them a default."""
    kind, args = datacodec._shape(hint)
    if kind == "scalar":
        return {str: "s\u00e9\ud800", int: -7, float: 1.5, bool: True, type(None): None}[args[0]]
    if kind == "dataclass":
        cls = args[0]
        return cls(**{name: _sample(h, depth + 1) for name, h in datacodec._fields(cls)})
    if kind in ("list", "set", "frozenset", "vartuple"):
        container = {"list": list, "set": set, "frozenset": frozenset, "vartuple": tuple}[kind]
        return container([_sample(args[0], depth + 1)])
    if kind == "tuple":
        return tuple(_sample(a, depth + 1) for a in args)
    if kind == "dict":
        return {_sample(args[0], depth + 1): _sample(args[1], depth + 1)}
    if kind == "optional":
        return _sample(args[0], depth + 1)
    return ("name", "pkg.mod.f", [1, 2.5, None, {"a": (True,)}], frozenset({"x"}), {3: "int key"})


CACHED_TYPES = [F.ModuleFacts, FileSummary, list[str]]


@pytest.mark.parametrize("hint", CACHED_TYPES, ids=str)
def test_every_cached_type_round_trips_with_every_field_set(hint):
    """Every field of every dataclass a cache entry holds has a JSON form: a new field of a type
    the codec cannot carry fails here, not silently in a user's cache."""
    _round_trip(_sample(hint), hint)
    for cls in list(datacodec._known.values()):
        _round_trip(_sample(cls))


def test_real_facts_round_trip(tree):
    """The facts of every rule's examples and of the fixture project, summaries and plans, as
    the engine makes them (candidate fields, fixes, call targets...)."""
    from stagelint.rules import all_rules
    from stagelint.rules.base import example_source
    from stagelint.pipeline.workers import analyse_one

    seen = 0
    for rule in all_rules():
        for i, example in enumerate(tuple(rule.invalid) + tuple(rule.valid)):
            (tree / f"ex_{rule.code}_{i}.py").write_text(example_source(example))

    for path in sorted(tree.rglob("*.py")):
        outcome = analyse_one(str(path.relative_to(tree)), Settings(), ())
        assert outcome.status == "ok", outcome.detail
        _round_trip(outcome.facts)
        seen += 1
    assert seen > 100
    _round_trip(["pkg/model.py", "pkg/utils.py"], list[str])


def test_values_the_codec_cannot_carry_are_refused_when_written():
    for value, hint in [(Path("x"), object), ({1, 2}, list[int]), (F.Span(1, 2, 3, 4), F.ModuleFacts),
                        (F.Span(True, 2, 3, 4), F.Span), (object(), object)]:
        with pytest.raises(datacodec.Invalid):
            datacodec.dumps(value, hint)


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


# --- where the cache lives ------------------------------------------------------------------

def _abs_keys(result, cwd: Path):
    return sorted((str((cwd / f.path).resolve()), f.line, f.code) for f in result.findings)


def test_the_project_root_is_found_from_any_folder(tree, monkeypatch):
    (tree / "setup.cfg").write_text("[metadata]\nname = pkg\n")
    assert cache_module.cache_root(paths=["pkg/model.py"]) == tree
    monkeypatch.chdir(tree / "pkg")
    assert cache_module.cache_root(paths=["."]) == tree
    assert cache_module.cache_root(paths=["model.py"]) == tree
    assert cache_module.open_cache(["."]).base == tree / ".stagelint_cache"
    (tree / "setup.cfg").unlink()
    # No marker anywhere above: the folder above the outermost package, never the package.
    assert cache_module.cache_root(paths=["."]) == tree


def test_a_subfolder_and_the_root_use_the_same_entries(tree, monkeypatch):
    (tree / "pyproject.toml").write_text("[project]\nname = 'pkg'\n")
    from_root = cache_module.open_cache(["pkg"])
    first = check_paths(["pkg"], None, jobs=0, cache=from_root)
    assert from_root.writes and not from_root.hits
    monkeypatch.chdir(tree / "pkg")
    from_sub = cache_module.open_cache(["."])
    assert from_sub.dir == from_root.dir
    second = check_paths(["."], None, jobs=0, cache=from_sub)
    # every file's entries serve; the check's result shows other paths (from where it ran)
    assert from_sub.hits >= 5 and from_sub.misses == from_sub.writes == 1
    assert _abs_keys(second, tree / "pkg") == _abs_keys(first, tree)
    assert {f.path for f in second.findings} == {"model.py", "utils.py"}  # shown from where it ran
    assert not (tree / "pkg" / ".stagelint_cache").exists()


def test_cache_dir_option_and_environment_variable_move_the_cache(tree, tmp_path, monkeypatch):
    (tree / "pyproject.toml").write_text("[project]\nname = 'pkg'\n")
    elsewhere = tmp_path / "caches" / "mine"
    out = _cli("check", "--cache-dir", str(elsewhere), "--output-format", "concise", ".", cwd=tree / "pkg")
    assert out.returncode == 1 and out.stdout.count("STG101") == 2, out.stderr
    assert any(elsewhere.rglob("facts/*/*")) and not (tree / ".stagelint_cache").exists()
    from_env = tmp_path / "caches" / "env"
    monkeypatch.setenv("STAGELINT_CACHE_DIR", str(from_env))
    again = _cli("check", "--output-format", "concise", ".", cwd=tree)
    assert any(from_env.rglob("facts/*/*")) and not (tree / ".stagelint_cache").exists()
    assert again.stdout.replace("pkg/", "") == out.stdout
    flake8 = _flake8("--select", "STG", ".", cwd=tree / "pkg")
    assert flake8.stdout.count("STG101") == 2, flake8.stderr
    assert not (tree / ".stagelint_cache").exists() and not (tree / "pkg" / ".stagelint_cache").exists()


def test_flake8_run_inside_a_package_keeps_the_cache_in_the_project_root(tree):
    (tree / ".git").mkdir()
    out = _flake8("--select", "STG", ".", cwd=tree / "pkg")
    assert out.stdout.count("STG101") == 2, out.stderr
    assert not (tree / "pkg" / ".stagelint_cache").exists()
    assert any((tree / ".stagelint_cache").rglob("facts/*/*"))
    from_root = _flake8("--select", "STG", "pkg", cwd=tree)
    assert from_root.stdout.replace("pkg/", "").replace("./", "") == out.stdout.replace("./", "")


# --- the editor's path: flake8 on standard input ---------------------------------------------

def test_a_buffer_is_analysed_alone_with_the_projects_facts_from_the_cache(tree, monkeypatch):
    (tree / "pyproject.toml").write_text("[project]\nname = 'pkg'\n")
    check_paths(["."], None, jobs=0, cache=cache_module.open_cache(["."]))
    from stagelint.pipeline import workers

    analysed = []
    real_analyse = workers.analyse_one

    def only_the_buffer(path, *args, **kwargs):
        analysed.append(path)
        return real_analyse(path, *args, **kwargs)

    monkeypatch.setattr(workers, "analyse_one", only_the_buffer)
    buffer = (tree / "pkg/model.py").read_text() + "\n\n@tf.function\ndef more(x):\n    print(x)\n"
    cache = cache_module.open_cache(["pkg/model.py"])
    result = check_paths(["pkg/model.py"], None, jobs=0, noqa=False, cache=cache,
                         sources={str(tree / "pkg/model.py"): buffer.encode()})
    # utils.py's facts were served, not analysed; only the buffer's summary and the check's
    # result are new (and no plan of the rounds is kept for these files yet, nor made from a
    # buffer that differs from its file: `pipeline.plans`)
    assert analysed == [] and cache.hits >= 2 and cache.misses == 3 and cache.writes == 2
    assert [(f.path, f.line, f.code) for f in result.findings] == [("pkg/model.py", 7, "STG101"),
                                                                   ("pkg/model.py", 14, "STG101")]


def test_flake8_on_standard_input_uses_the_cache(tree):
    (tree / "pyproject.toml").write_text("[project]\nname = 'pkg'\n")
    warm = _flake8("--select", "STG", ".", cwd=tree)
    assert warm.stdout.count("STG101") == 2
    entries = {(p, p.read_bytes()) for p in _entries(tree)}
    buffer = (tree / "pkg/model.py").read_text() + "\n\n@tf.function\ndef more(x):\n    print(x)\n"
    out = subprocess.run([sys.executable, "-m", "flake8", "--select", "STG", "-", "--stdin-display-name",
                          "model.py"], cwd=tree / "pkg", input=buffer, capture_output=True, text=True, timeout=300)
    assert [line.split(" ")[0] for line in out.stdout.splitlines()] == ["model.py:7:5:", "model.py:14:5:"], (
        out.stdout + out.stderr)
    new = {p.parent.parent.name for p, data in {(p, p.read_bytes()) for p in _entries(tree)} - entries}
    # the buffer's summary (into the screen's bundle, `cache.BUNDLED`) and the check's result; its
    # facts are not kept, every other file's were served
    assert new == {"screen", "result"}
    assert not (tree / "pkg" / ".stagelint_cache").exists()


TEST_MODULE = """
from pkg import model


def test_step():
    assert model.step(1) == 2
"""


def _analysed_files(monkeypatch) -> list[str]:
    from stagelint.pipeline import perfile

    analysed, analyse = [], perfile.analyze_source
    monkeypatch.setattr(perfile, "analyze_source",
                        lambda path, *a, **k: analysed.append(Path(path).as_posix()) or analyse(path, *a, **k))
    return analysed


def _check_test_module(name: str, cache: bool = True):
    # As `stagelint run` gives them: the test module and the project files it imports.
    paths = [f"tests/{name}.py", "pkg/__init__.py", "pkg/model.py", "pkg/utils.py"]
    return check_paths(paths, None, jobs=0, cache=Cache(Path.cwd(), enabled=cache))


def test_test_modules_outside_a_package_share_the_packages_facts(tree, monkeypatch):
    """`tests/` without `__init__.py`: each test module is a top-level name of its own check, which
    no file of the package spells, so the package's facts are served to the sibling's check."""
    (tree / "tests").mkdir()
    for name in ("test_a", "test_b"):
        (tree / "tests" / f"{name}.py").write_text(textwrap.dedent(TEST_MODULE))
    analysed = _analysed_files(monkeypatch)
    _check_test_module("test_a")
    assert "pkg/model.py" in analysed  # (the screen spares the files that cannot have findings)
    analysed.clear()
    served = _check_test_module("test_b")
    assert analysed == ["tests/test_b.py"]
    assert _keys(served) == _keys(_check_test_module("test_b", cache=False))


def test_a_package_file_that_spells_a_test_modules_name_is_analysed_for_each(tree, monkeypatch):
    """The negative twin: pkg/model.py imports `test_b` and calls it in its tf.function, a call
    into the project only where test_b is checked: its facts differ, and are not shared."""
    (tree / "tests").mkdir()
    for name in ("test_a", "test_b"):
        (tree / "tests" / f"{name}.py").write_text(textwrap.dedent(TEST_MODULE))
    (tree / "tests" / "test_b.py").write_text(textwrap.dedent(TEST_MODULE) + "\n\ndef record(x):\n    print(x)\n")
    (tree / "pkg" / "model.py").write_text(textwrap.dedent(MODEL).replace(
        "from pkg import utils\n", "from pkg import utils\nimport test_b\n").replace(
        "    utils.log(x)\n", "    utils.log(x)\n    test_b.record(x)\n"))
    analysed = _analysed_files(monkeypatch)
    _check_test_module("test_a")
    analysed.clear()
    served = _check_test_module("test_b")
    assert sorted(analysed) == ["pkg/model.py", "tests/test_b.py"]
    assert _keys(served) == _keys(_check_test_module("test_b", cache=False))
