"""Which files a folder walk checks: .gitignore (through real git), hidden, build and virtualenv
folders, `exclude`, symlinks."""

from __future__ import annotations

import json
import os
import subprocess

from integration_support import stagelint, write_tree

from stagelint.config import Settings
from stagelint.pipeline.discovery import discover

STAGED = "import tensorflow as tf\n\n\n@tf.function\ndef f(x):\n    print(x)\n"


def _git(cwd, *args):
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True,
                   env={**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"})


def _found(tmp_path, *paths, settings=None):
    old = os.getcwd()
    os.chdir(tmp_path)
    try:
        files, missing = discover(list(paths) or ["."], settings or Settings())
    finally:
        os.chdir(old)
    return sorted(os.path.normpath(f) for f in files), missing


def test_gitignore_is_honoured_inside_a_work_tree(tmp_path):
    write_tree(tmp_path, {
        ".gitignore": "generated/\n*_pb2.py\n!keep_pb2.py\n",
        "src/.gitignore": "scratch.py\n",
        "src/model.py": STAGED,
        "src/scratch.py": STAGED,
        "src/api_pb2.py": STAGED,
        "src/keep_pb2.py": STAGED,
        "generated/out.py": STAGED,
        "tracked_but_ignored/x.py": STAGED,
    })
    _git(tmp_path, "init", "-q")
    (tmp_path / ".git" / "info" / "exclude").write_text("tracked_but_ignored/\nlocal_only.py\n")
    (tmp_path / "local_only.py").write_text(STAGED)
    _git(tmp_path, "add", "-f", "tracked_but_ignored/x.py")
    files, _ = _found(tmp_path)
    # A tracked file is never ignored, whatever the ignore files say (git's own rule).
    assert files == ["src/keep_pb2.py", "src/model.py", "tracked_but_ignored/x.py"]
    # From a subfolder, with the subfolder's own .gitignore.
    assert _found(tmp_path / "src")[0] == ["keep_pb2.py", "model.py"]
    # Named explicitly, an ignored file or folder is checked.
    assert _found(tmp_path, "src/scratch.py")[0] == ["src/scratch.py"]
    assert _found(tmp_path, "generated")[0] == ["generated/out.py"]
    proc = stagelint("check", "--output-format", "json", ".", cwd=tmp_path)
    assert sorted({f["path"] for f in json.loads(proc.stdout)}) == files


def test_outside_git_gitignore_is_not_read(tmp_path):
    write_tree(tmp_path, {".gitignore": "b.py\n", "a.py": STAGED, "b.py": STAGED})
    assert _found(tmp_path)[0] == ["a.py", "b.py"]


def test_hidden_build_and_virtualenv_folders_are_skipped(tmp_path):
    write_tree(tmp_path, {
        "src/m.py": STAGED,
        ".hidden/m.py": STAGED,
        "src/.cache/m.py": STAGED,
        "build/m.py": STAGED,
        "node_modules/x/m.py": STAGED,
        "pkg.egg-info/m.py": STAGED,
        "myenv/pyvenv.cfg": "home = /usr/bin\n",
        "myenv/lib/python3.11/site-packages/tf_thing/m.py": STAGED,
        "src/.dotfile.py": STAGED,
    })
    assert _found(tmp_path)[0] == ["src/m.py"]
    # Named explicitly, they are checked.
    assert _found(tmp_path, "build")[0] == ["build/m.py"]


def test_exclude_patterns(tmp_path):
    write_tree(tmp_path, {"third_party/a/m.py": STAGED, "src/m.py": STAGED, "src/legacy_old.py": STAGED})
    settings = Settings(exclude=("third_party", "src/legacy_*.py"), root=str(tmp_path))
    assert _found(tmp_path, settings=settings)[0] == ["src/m.py"]
    assert _found(tmp_path, "src/legacy_old.py", settings=settings)[0] == []


def test_symlinks_loops_and_duplicates(tmp_path):
    write_tree(tmp_path, {"pkg/m.py": STAGED})
    os.symlink(tmp_path / "pkg", tmp_path / "pkg" / "loop")  # pkg/loop -> pkg
    os.symlink(tmp_path / "pkg", tmp_path / "alias")
    os.symlink(tmp_path / "pkg" / "m.py", tmp_path / "same.py")
    files, missing = _found(tmp_path)
    assert len(files) == 1 and not missing
    proc = stagelint("check", "--output-format", "concise", ".", cwd=tmp_path)
    assert proc.returncode == 1 and proc.stdout.count("STG101") == 1


def test_missing_path(tmp_path):
    files, missing = _found(tmp_path, "nope.py")
    assert files == [] and missing == [("nope.py", "no such file or directory")]
