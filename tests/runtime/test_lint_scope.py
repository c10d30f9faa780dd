"""Which files `stagelint run` lints: the test module and the project modules it imports."""

from __future__ import annotations

from pathlib import Path

from stagelint.runtime.lint import project_files


def _write(root: Path, rel: str, text: str = "") -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_imports_are_followed_by_path_inside_the_project(tmp_path, monkeypatch):
    _write(tmp_path, "pyproject.toml", "[project]\nname = 'p'\n")
    _write(tmp_path, "src/pkg/__init__.py")
    _write(tmp_path, "src/pkg/model.py", "from . import helpers\nfrom .layers import dense\nimport numpy\n")
    _write(tmp_path, "src/pkg/helpers.py", "import os\n")
    _write(tmp_path, "src/pkg/layers/__init__.py")
    _write(tmp_path, "src/pkg/layers/dense.py", "from ..helpers import x\n")
    _write(tmp_path, "src/pkg/unused.py")
    _write(tmp_path, "tests/conftest_helpers.py")
    test = _write(tmp_path, "tests/test_model.py",
                  "import tensorflow as tf\nfrom pkg.model import train_step\nimport conftest_helpers\n")
    _write(tmp_path, ".venv/lib/site-packages/pkg2.py")
    monkeypatch.chdir(tmp_path)
    files = project_files(str(test))
    assert files[0] == "tests/test_model.py"
    assert set(files) == {"tests/test_model.py", "src/pkg/model.py", "src/pkg/helpers.py", "src/pkg/layers/dense.py",
                          "src/pkg/layers/__init__.py", "tests/conftest_helpers.py"}


def test_a_module_that_does_not_parse_is_still_listed(tmp_path, monkeypatch):
    _write(tmp_path, "pyproject.toml")
    test = _write(tmp_path, "test_broken.py", "def (:\n")
    monkeypatch.chdir(tmp_path)
    assert project_files(str(test)) == ["test_broken.py"]
