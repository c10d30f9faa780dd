"""The byte-level screen: it must never change a finding, only skip work."""

from __future__ import annotations

import shutil
import time
from pathlib import Path

import pytest
from integration_support import PROJECT, ROOT, write_tree

from stagelint.pipeline import screen
from stagelint.config import Settings
from stagelint.engine import check_paths, discover, module_name
from stagelint.rules import all_rules
from stagelint.rules.base import example_source


def _keys(result):
    return [(f.path, f.line, f.column, f.code, f.message) for f in result.findings]


def _same_either_way(paths, settings=None):
    on = check_paths(paths, settings, jobs=0)
    off = check_paths(paths, settings, jobs=0, screen=False)
    assert _keys(on) == _keys(off)
    assert on.files_checked == off.files_checked
    return on


def _selection(paths, settings=None):
    settings = settings or Settings()
    files, _ = discover(paths, settings)
    return screen.select(files, settings, [Path.cwd()], module_name)


def _check_recording_analysed(monkeypatch):
    """`check .` in this process, and the files it analysed in full, in order."""
    from stagelint.pipeline import workers

    analysed = []
    real = workers.analyse_one
    monkeypatch.setattr(workers, "analyse_one", lambda path, *a, **kw: analysed.append(path) or real(path, *a, **kw))
    return check_paths(["."], jobs=0), analysed


def _live(selection):
    """Analysed now, or when the staged code needs it (`stagelint.pipeline.demand`)."""
    return set(selection.analyse) | set(selection.deferred.values())


def test_fixture_project(monkeypatch):
    monkeypatch.chdir(PROJECT)
    result = _same_either_way(["."])
    assert result.findings
    sel = _selection(["."])
    assert sorted(sel.skip) == ["pkg/plain.py"]
    # Staged without a TensorFlow word of their own: through an importer, a project wrapper,
    # a project base class of a Keras layer.
    for kept in ("pkg/utils.py", "pkg/uses_wrapper.py", "pkg/custom.py"):
        assert kept in _live(sel)
    # Only the files that spell an entry point go first; the rest wait to be needed.
    assert "pkg/custom.py" in sel.analyse and "pkg/utils.py" in sel.deferred.values()


def test_bundled_examples(monkeypatch):
    monkeypatch.chdir(ROOT)
    assert _same_either_way(["examples"]).findings


def test_a_project_that_stages_nothing_is_screened_out_cheaply(tmp_path, monkeypatch):
    files = {f"app/mod{i}.py": f"import os\nfrom app import mod{(i + 1) % 200}\n\n"
             + "def f(x):\n    print(x)\n    return os.path.join(x, 'y')\n" * 20 for i in range(200)}
    files["app/__init__.py"] = ""
    write_tree(tmp_path, files)
    monkeypatch.chdir(tmp_path)
    start = time.perf_counter()
    sel = _selection(["."])
    elapsed = time.perf_counter() - start
    assert _live(sel) == set() and len(sel.skip) == 201
    assert elapsed < 2.0, elapsed  # libcst would take tens of seconds for these
    result = check_paths(["."], jobs=0)
    assert result.files_checked == 201 and not result.findings


def test_configured_decorator_word_keeps_a_file(tmp_path, monkeypatch):
    write_tree(tmp_path, {
        "mylib.py": "def compiled(fn):\n    return fn\n",
        "train.py": """
            from mylib import compiled


            @compiled
            def step(x):
                print(x)
        """,
    })
    monkeypatch.chdir(tmp_path)
    settings = Settings(staging_decorators=("mylib.compiled",))
    assert "train.py" in _selection(["."], settings).analyse  # `@compiled` spells the entry
    assert [f.code for f in _same_either_way(["."], settings).findings] == ["STG101"]
    assert _live(_selection(["."])) == set()  # without the setting nothing can stage


def test_syntax_error_in_a_file_that_stages_nothing_is_still_reported(tmp_path, monkeypatch):
    write_tree(tmp_path, {"broken.py": "def f(:\n    pass\n", "fine.py": "x = 1\n"})
    monkeypatch.chdir(tmp_path)
    result = _same_either_way(["."])
    assert [(f.path, f.code) for f in result.findings] == [("broken.py", "STG000")]


@pytest.mark.parametrize("cached", [False, True])
def test_syntax_error_in_a_deferred_file_no_round_needs_is_reported(tmp_path, monkeypatch, cached):
    """A live file without an entry point is parsed by Python only once the rounds are over and
    no round analysed it; the one that does not parse then gets its STG000, cold or warm."""
    from stagelint.pipeline.cache import open_cache

    write_tree(tmp_path, {
        "model.py": "import tensorflow as tf\n\n\n@tf.function\ndef f(x):\n    return x\n",
        "broken.py": "import tensorflow as tf\n\ndef g(:\n    pass\n",
        "fine.py": "import tensorflow as tf\n\n\ndef h(x):\n    return tf.square(x)\n",
        "pyproject.toml": "",
    })
    monkeypatch.chdir(tmp_path)
    sel = _selection(["."])
    assert set(sel.deferred.values()) == {"broken.py", "fine.py"} and sel.unchecked.keys() == sel.deferred.keys()
    assert sel.unparsed(sel.deferred.keys()) == [str(tmp_path / "broken.py")]
    cache = (lambda: open_cache(["."], directory=str(tmp_path / "cache"))) if cached else (lambda: None)
    for _ in range(2 if cached else 1):  # cached: the second run takes the screen's reading from the cache
        result = check_paths(["."], jobs=0, cache=cache())
        assert [(f.path, f.code) for f in result.findings] == [("broken.py", "STG000")]
        assert result.files_checked == 3
    _same_either_way(["."])


def test_helper_reached_through_an_attribute_chain(tmp_path, monkeypatch):
    write_tree(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/sub/__init__.py": "",
        "pkg/sub/helpers.py": "def log(x):\n    print(x)\n",
        "pkg/sub/unrelated.py": "def g(x):\n    print(x)\n",
        "main.py": """
            import tensorflow as tf
            import pkg


            @tf.function
            def step(x):
                pkg.sub.helpers.log(x)
                return x
        """,
    })
    monkeypatch.chdir(tmp_path)
    sel = _selection(["."])
    assert "pkg/sub/helpers.py" in sel.deferred.values()
    assert "pkg/sub/unrelated.py" in sel.skip
    _same_either_way(["."])


def test_relative_and_star_imports(tmp_path, monkeypatch):
    write_tree(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/deco.py": "import tensorflow as tf\n\ncompiled = tf.function\n",
        "pkg/star.py": "from .deco import *\n\n\n@compiled\ndef f(x):\n    print(x)\n",
        "pkg/rel.py": "from . import deco\n\n\n@deco.compiled\ndef g(x):\n    print(x)\n",
    })
    monkeypatch.chdir(tmp_path)
    sel = _selection(["."])
    assert {"pkg/star.py", "pkg/rel.py", "pkg/deco.py"} <= _live(sel)
    _same_either_way(["."])


def test_referenced_names():
    source = b"""
from . import a, b as c
from ..up.y import (z,
   w as q)  # comment
import os.path, numpy as np
import mylib
from pkg2 import \\
    thing
mylib.utils.helper(x); np.random.rand(); q.f(1)
"""
    names = screen.referenced_names(source, "pkg.sub.mod", False)
    assert {"pkg.sub.a", "pkg.sub.b", "pkg.up.y.z", "pkg.up.y.w", "pkg.up.y.w.f", "os.path", "numpy",
            "numpy.random.rand", "mylib", "mylib.utils.helper", "pkg2.thing"} <= names


@pytest.mark.parametrize("text, stages", [
    (b"import tensorflow as tf\n", True),
    (b"from keras import layers\n", True),
    (b"import tf_keras\n", True),
    (b"from tf_agents.utils import common\n", True),
    (b"import torch\n\ndef f(x):\n    return x\n", False),
])
def test_staging_words(text, stages):
    assert screen.mentions_staging(text, screen.staging_pattern(Settings())) is stages


def test_one_tree_mixing_all_of_the_above(tmp_path, monkeypatch):
    # Many modules, few of them staging, some importing one another across folders.
    shutil.copytree(ROOT / "examples", tmp_path / "examples")
    shutil.copytree(PROJECT, tmp_path / "project")
    (tmp_path / "rules").mkdir()
    for rule in all_rules():  # each rule's examples, flagged and not
        for kind in ("invalid", "valid"):
            for i, example in enumerate(getattr(rule, kind)):
                (tmp_path / "rules" / f"{rule.code.lower()}_{kind}_{i}.py").write_text(example_source(example))
    monkeypatch.chdir(tmp_path)
    assert _same_either_way(["."]).findings
    monkeypatch.chdir(tmp_path / "project")
    assert _same_either_way(["pkg/model.py", "pkg/utils.py"]).findings


def test_too_many_imported_files_turn_the_screen_off(tmp_path, monkeypatch):
    write_tree(tmp_path, {"a.py": "import b\n", "b.py": "import c\n", "c.py": "x = 1\n", "d.py": "y = 2\n"})
    monkeypatch.chdir(tmp_path)
    assert _live(_selection(["a.py", "d.py"])) == set()
    monkeypatch.setattr(screen, "MAX_FILES", 1)
    assert _selection(["a.py", "d.py"]).analyse == ["a.py", "d.py"]


def test_deferred_files_are_analysed_only_when_staged_code_needs_them(tmp_path, monkeypatch):
    write_tree(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/model.py": """
            import tensorflow as tf
            from pkg import helpers


            class Config:
                def __init__(self):
                    self.temperature = 1.0


            @tf.function
            def step(config, x):
                y = tf.square(x)
                helpers.log(y)
                return y / config.temperature
        """,
        # needed forward: staged code calls it
        "pkg/helpers.py": "import tensorflow as tf\n\n\ndef log(x):\n    print(x)  # STG101\n",
        # needed backward: a call site passing Python numbers, a write of an attribute staged code reads
        "pkg/driver.py": """
            import tensorflow as tf
            from pkg.model import Config, step

            config = Config()
            for i in range(3):
                step(config, i)
            config.temperature = 0.5
            step(config, 3)
        """,
        # live (it imports TensorFlow and the package) but nothing staged needs it
        # (not `tf.data`: a tf.data transformation spells an entry point now)
        "pkg/data.py": "import tensorflow as tf\nfrom pkg import helpers\n\n\ndef load():\n    return tf.data.Dataset.range(3)\n",
    })
    monkeypatch.chdir(tmp_path)
    result, analysed = _check_recording_analysed(monkeypatch)
    # The first round: the file that spells an entry point; then what it needs (`pkg.helpers.log`
    # is a function of the module pkg/helpers.py, as the engine resolves it: the package's empty
    # `__init__.py` re-exports nothing), and not data.py.
    assert analysed[0] == "pkg/model.py"
    assert sorted(analysed[1:]) == ["pkg/driver.py", "pkg/helpers.py"]
    assert {(f.path, f.code) for f in result.findings} == {
        ("pkg/helpers.py", "STG101"), ("pkg/driver.py", "STG501"), ("pkg/model.py", "STG302"),
    }
    assert result.files_checked == 5
    _same_either_way(["."])


def test_a_deferred_file_is_a_caller_only_through_the_module_that_stages(tmp_path, monkeypatch):
    """A deferred file is analysed as a caller when one of its dotted names resolves, as the
    engine resolves its calls (near the file, through a package's re-exports), to a staged name
    of the module that defines it: `absltest.main()` is not the `main` of a project module whose
    local function is a Function, nor is an outside library's `lib.step` the project's `step`."""
    write_tree(tmp_path, {
        "app/__init__.py": "",
        "app/train.py": """
            import tensorflow as tf


            def main(argv):
                @tf.function
                def step(x):
                    return x * 2

                for i in range(3):
                    step(i)
        """,
        "app/model.py": "import tensorflow as tf\n\n\n@tf.function\ndef step(x, n):\n    return x * n\n",
        # a sibling script's import (`import train` beside app/train.py, another train.py elsewhere)
        "app/driver.py": "import tensorflow as tf\nimport train\n\ntrain.main([])\n",
        "app/caller.py": """
            import tensorflow as tf
            from app import model as m

            for i in range(3):
                m.step(1.0, i)
        """,
        "tools/__init__.py": "",
        "tools/train.py": "import tensorflow as tf\n\n\ndef main(argv):\n    return tf.constant(argv)\n",
        "pkg/__init__.py": "from pkg.impl import step\n",
        "pkg/impl.py": "import tensorflow as tf\n\n\n@tf.function\ndef step(x):\n    return x + 1\n",
        "pkg_user.py": "import tensorflow as tf\nfrom pkg import step\n\nfor i in range(3):\n    step(i)\n",
        # the same last names, of modules outside the project: nothing staged is called
        "other/run_tests.py": """
            import tensorflow as tf
            from absl.testing import absltest

            if __name__ == "__main__":
                absltest.main()
        """,
        "other/uses_lib.py": "import tensorflow as tf\nimport mylib\n\nfor i in range(3):\n    mylib.step(i)\n",
    })
    monkeypatch.chdir(tmp_path)
    result, analysed = _check_recording_analysed(monkeypatch)
    assert {"app/driver.py", "app/caller.py", "pkg_user.py", "pkg/__init__.py"} <= set(analysed)
    assert not {"other/run_tests.py", "other/uses_lib.py", "tools/train.py"} & set(analysed)
    assert {(f.path, f.code) for f in result.findings} >= {("app/caller.py", "STG501"), ("pkg_user.py", "STG501")}
    _same_either_way(["."])


def test_staged_code_needs_the_module_its_call_resolves_to_not_every_module_so_named(tmp_path, monkeypatch):
    """Forward, a deferred file is analysed when a name staged code uses resolves to it as the
    engine resolves the call (`Project.split_qualified` near the calling module, then through a
    package's re-exports): of two example folders each with a `models.py`, staged code in one
    needs its own folder's, not the other's; a package's `__init__.py` that re-exports is
    followed to the module that defines the name."""
    write_tree(tmp_path, {
        "mnist/train.py": """
            import tensorflow as tf
            import models


            @tf.function
            def step(x):
                return models.head(x)
        """,
        "mnist/models.py": "import tensorflow as tf\n\n\ndef head(x):\n    print(x)  # STG101\n    return x\n",
        "wmt/train.py": "import tensorflow as tf\nimport models\n\n\ndef run(x):\n    return models.head(x)\n",
        "wmt/models.py": "import tensorflow as tf\n\n\ndef head(x):\n    print(x)\n    return x\n",
        "lib/__init__.py": "from lib.impl import scale\n",
        "lib/impl.py": "import tensorflow as tf\n\n\ndef scale(x):\n    print(x)  # STG101\n    return x\n",
        "use_lib.py": "import tensorflow as tf\nimport lib\n\n\n@tf.function\ndef f(x):\n    return lib.scale(x)\n",
    })
    monkeypatch.chdir(tmp_path)
    result, analysed = _check_recording_analysed(monkeypatch)
    assert {"mnist/models.py", "lib/__init__.py", "lib/impl.py"} <= set(analysed)
    assert not {"wmt/models.py", "wmt/train.py"} & set(analysed)
    assert {(f.path, f.code) for f in result.findings} == {("mnist/models.py", "STG101"), ("lib/impl.py", "STG101")}
    _same_either_way(["."])


def test_jax_entry_spellings_count_only_where_jax_is_in_reach(tmp_path, monkeypatch):
    """`def __call__(`, `tf.cond(` (read as `jax.lax.cond(`'s `.cond(`), `.grad` spell JAX entry
    points; a file with no JAX in its import closure cannot have one, so it waits to be needed
    like any other file. Through a project base class or re-export, JAX is in reach."""
    write_tree(tmp_path, {
        "tfpkg/__init__.py": "",
        "tfpkg/schedule.py": """
            import tensorflow as tf


            class Schedule:
                def __call__(self, step):
                    return tf.cond(step > 10, lambda: 0.1, lambda: 1.0)
        """,
        "tfpkg/train.py": """
            import tensorflow as tf
            from tfpkg.schedule import Schedule


            @tf.function
            def step(x):
                print(x)
                return x + 1
        """,
        "jpkg/__init__.py": "",
        "jpkg/base.py": "import flax.linen as nn\n\n\nclass Base(nn.Module):\n    pass\n",
        # no JAX word of its own: its base class is a Linen module
        "jpkg/model.py": """
            from jpkg.base import Base


            class Model(Base):
                def __call__(self, x):
                    print(x)
                    return x
        """,
        "jpkg/plain.py": "from jpkg import base\n\n\ndef cond(p):\n    return base.Base().cond(p)\n",
        "jpkg/run.py": """
            import jax
            from jpkg.model import Model


            @jax.jit
            def run(variables, x):
                return Model().apply(variables, x)
        """,
    })
    monkeypatch.chdir(tmp_path)
    sel = _selection(["."])
    assert "tfpkg/train.py" in sel.analyse
    assert "tfpkg/schedule.py" in sel.deferred.values()  # TensorFlow only: `__call__`, `.cond(` are no entry
    assert "jpkg/model.py" in sel.analyse and "jpkg/plain.py" in sel.analyse  # JAX in reach
    result = _same_either_way(["."])
    assert {(f.path, f.code) for f in result.findings} == {("tfpkg/train.py", "STG101"), ("jpkg/model.py", "STG101")}
