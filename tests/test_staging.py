"""Staged-code discovery (rules.md "Staged code") and interprocedural reach.

Each test puts a `print` (STG101) where staging should or should not reach, so what is
asserted is exactly "this function is (not) traced".
"""

from __future__ import annotations

import textwrap

import pytest

from conftest import findings, pairs
from stagelint.config import Settings
from stagelint.engine import check_paths

SPELLINGS = {
    "decorator": "import tensorflow as tf\n\n@tf.function\ndef f(x):\n    print(x)\n",
    "decorator with arguments": "import tensorflow as tf\n\n@tf.function(jit_compile=True, reduce_retracing=True)\ndef f(x):\n    print(x)\n",
    "from-import": "from tensorflow import function\n\n@function\ndef f(x):\n    print(x)\n",
    "from-import alias": "from tensorflow import function as tff\n\n@tff\ndef f(x):\n    print(x)\n",
    "module name": "import tensorflow\n\n@tensorflow.function\ndef f(x):\n    print(x)\n",
    "module alias": "import tensorflow as tensorflow_lib\n\n@tensorflow_lib.function()\ndef f(x):\n    print(x)\n",
    "compat.v2": "import tensorflow as tf\n\n@tf.compat.v2.function\ndef f(x):\n    print(x)\n",
    "wrapper call": "import tensorflow as tf\n\ndef f(x):\n    print(x)\n\ng = tf.function(f)\n",
    "wrapper call with options": "import tensorflow as tf\n\ndef f(x):\n    print(x)\n\ng = tf.function(f, input_signature=[tf.TensorSpec([], tf.float32)])\n",
    "tf_agents wrapper": "from tf_agents.utils import common\n\n@common.function\ndef f(x):\n    print(x)\n",
}


@pytest.mark.parametrize("spelling", sorted(SPELLINGS))
def test_every_spelling_of_tf_function_stages(spelling):
    source = SPELLINGS[spelling]
    print_line = next(i for i, line in enumerate(source.splitlines(), 1) if "print(" in line)
    assert pairs(source) == {(print_line, "STG101")}


def test_spelling_that_is_not_tensorflow_does_not_stage():
    source = """
        import functools

        @functools.lru_cache
        def f(x):
            print(x)

        def function(fn):
            return fn

        @function
        def g(x):
            print(x)
    """
    assert pairs(source) == set()


def test_method_wrapped_in_init():
    source = """
        import tensorflow as tf

        class Trainer:
            def __init__(self):
                self.step = tf.function(self._step)

            def _step(self, x):
                print("tracing", x)
                return x

            def report(self):
                print("not staged")
    """
    assert pairs(source) == {(8, "STG101")}


@pytest.mark.parametrize("base", [
    "tf.keras.layers.Layer", "tf.keras.Model", "tf.keras.models.Model", "keras.layers.Layer",
    "keras.Model", "tf_keras.layers.Layer", "tf.keras.layers.Dense",
])
def test_keras_methods_are_staged(base):
    root = base.split(".")[0]
    imports = "import tensorflow as tf" if root == "tf" else f"import {root}"
    source = f"""
        {imports}

        class Block({base}):
            def call(self, x):
                print("call")
                return x

            def train_step(self, data):
                print("train_step")
                return data

            def get_config(self):
                print("config")
                return {{}}
    """
    # nothing shows Keras tracing `Block` (`tests/test_keras_traced.py`): the preview tier
    assert pairs(source) == set()
    assert pairs(source, settings=Settings(preview=True)) == {(5, "STG101"), (9, "STG101")}
    trained = source + "\n        block = Block()\n        block.fit(data)\n"
    assert pairs(trained) == {(5, "STG101"), (9, "STG101")}


def test_keras_methods_through_a_project_base_class_and_config_switch():
    source = """
        import tensorflow as tf

        class Base(tf.keras.Model):
            pass

        class Net(Base):
            def call(self, x):
                print("call")
                return x

        Net().predict(data)
    """
    assert pairs(source) == {(8, "STG101")}
    assert pairs(source, settings=Settings(keras_methods=False)) == set()


def test_keras_call_of_a_plain_class_is_not_staged():
    source = """
        import tensorflow as tf

        class NotALayer(tf.Module):
            def call(self, x):
                print("call")
                return x
    """
    assert pairs(source) == set()


def test_configured_staging_decorator():
    source = """
        from mylib.utils import compiled

        @compiled
        def f(x):
            print(x)
    """
    assert pairs(source) == set()
    assert pairs(source, settings=Settings(staging_decorators=("mylib.utils.compiled",))) == {(5, "STG101")}


def test_project_wrapper_that_returns_tf_function_stages_its_argument():
    source = """
        import tensorflow as tf

        def compiled(fn):
            return tf.function(fn, jit_compile=True)

        @compiled
        def f(x):
            print(x)
    """
    assert pairs(source) == {(8, "STG101")}


def test_nested_function_and_function_reference_are_traced():
    source = """
        import tensorflow as tf

        @tf.function
        def f(pred, x):
            def true_fn():
                print("true branch")
                return x

            def unused():
                print("never called")

            return tf.cond(pred, true_fn, lambda: x)
    """
    assert pairs(source) == {(6, "STG101")}


def test_helper_two_calls_deep_names_the_entry_point():
    source = """
        import tensorflow as tf

        def log(x):
            print("value", x)

        def compute(x):
            log(x)
            return x * 2

        @tf.function
        def train_step(x):
            return compute(x)
    """
    (f,) = findings(source)
    assert (f.line, f.code, f.function, f.entry_point) == (4, "STG101", "log", "train_step")
    assert "`log` (traced by `train_step`)" in f.message


def test_a_helper_reached_by_a_kept_function_and_a_one_shot_wrapper_names_the_kept_one():
    # `loss_fn` is traced by `train_step` (kept: its trace is reused after the global changes) and
    # by a lambda jitted anew per batch (traced with the value of the moment): the staleness
    # holds through `train_step`, and the message and the entry point say so.
    source = """
        import jax

        label_smoothing = 0.0

        def loss_fn(x):
            return x * (1.0 - label_smoothing)

        def evaluate(batches):
            return [jax.jit(lambda x: loss_fn(x))(b) for b in batches]

        @jax.jit
        def train_step(x):
            return loss_fn(x)

        def main():
            global label_smoothing
            for epoch in range(3):
                train_step(1.0)
                label_smoothing = 0.1 * epoch
    """
    (f,) = [f for f in findings(source) if f.code == "STG301"]
    assert (f.function, f.entry_point) == ("loss_fn", "train_step")
    assert "`loss_fn` (traced by `train_step`)" in f.message


def test_a_helper_reached_only_by_one_shot_wrappers_is_not_stale():
    # The negative twin: every trace of `loss_fn` is made anew, with the global's value of the moment.
    source = """
        import jax

        label_smoothing = 0.0

        def loss_fn(x):
            return x * (1.0 - label_smoothing)

        def evaluate(batches):
            total = 0.0
            for b in batches:
                total += jax.jit(lambda x: loss_fn(x))(b)
            return total

        def main():
            global label_smoothing
            for epoch in range(3):
                evaluate([1.0])
                label_smoothing = 0.1 * epoch
    """
    assert [f.code for f in findings(source) if f.code == "STG301"] == []


def test_self_method_and_super_calls_are_followed():
    source = """
        import tensorflow as tf

        class Base(tf.Module):
            def _log(self, x):
                print("base log")

        class Model(Base):
            def _prepare(self, x):
                self._log(x)
                return x

            @tf.function
            def __call__(self, x):
                return self._prepare(x)

            def eager_helper(self):
                print("never traced")
    """
    assert pairs(source) == {(5, "STG101")}


def test_py_function_body_is_not_traced():
    source = """
        import tensorflow as tf

        def py_side(x):
            print("eager, every call")
            return x

        @tf.function
        def f(x):
            return tf.py_function(py_side, [x], tf.float32) + tf.numpy_function(lambda y: print(y) or y, [x], tf.float32)
    """
    assert pairs(source) == set()


def test_mutual_recursion_terminates_and_is_reported_once():
    source = """
        import tensorflow as tf

        def a(n):
            return b(n - 1)

        def b(n):
            return c(n) + a(n)

        def c(n):
            return c(n - 1)

        @tf.function
        def entry(n):
            return a(n) + a(n)
    """
    assert pairs(source) == {(7, "STG401"), (10, "STG401")}


def test_unstaged_recursion_is_not_reported():
    source = """
        def fact(n):
            return 1 if n <= 1 else n * fact(n - 1)
    """
    assert pairs(source) == set()


def _package(tmp_path, files: dict[str, str]):
    for rel, text in files.items():
        path = tmp_path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"))
    return tmp_path


def test_helpers_in_other_modules_absolute_and_relative(tmp_path, monkeypatch):
    root = _package(tmp_path, {
        "proj/__init__.py": "",
        "proj/utils/__init__.py": "from .logging_utils import shout\n",
        "proj/utils/logging_utils.py": """
            def shout(x):
                print("shout", x)
        """,
        "proj/utils/state.py": """
            SEEN = []

            def remember(x):
                SEEN.append(x)
        """,
        "proj/model.py": """
            import tensorflow as tf
            from proj.utils import shout
            from .utils import state
            from . import recursion as rec

            @tf.function
            def train_step(x):
                shout(x)
                state.remember(x)
                return rec.down(x)
        """,
        "proj/recursion.py": """
            from proj import model

            def down(x):
                return model.train_step(x - 1)
        """,
    })
    monkeypatch.chdir(root)
    result = check_paths(["proj"])
    got = {(f.path.replace("\\", "/"), f.line, f.code, f.entry_point) for f in result.findings}
    assert got == {
        ("proj/utils/logging_utils.py", 2, "STG101", "proj.model.train_step"),
        ("proj/utils/state.py", 4, "STG102", "proj.model.train_step"),
        ("proj/recursion.py", 4, "STG401", "proj.model.train_step"),
    }


def test_imported_project_module_is_followed_but_only_given_files_are_reported(tmp_path, monkeypatch):
    root = _package(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/helpers.py": """
            def noisy(x):
                print(x)
                return x
        """,
        "pkg/train.py": """
            import tensorflow as tf
            from pkg.helpers import noisy

            @tf.function
            def step(x):
                return noisy(x)
        """,
    })
    monkeypatch.chdir(root)
    assert [f.code for f in check_paths(["pkg/train.py"]).findings] == []
    assert [(f.path, f.line) for f in check_paths(["pkg/train.py"], report_imported=True).findings] == [
        ("pkg/helpers.py", 2)
    ]
    assert [(f.path, f.line) for f in check_paths(["pkg"]).findings] == [("pkg/helpers.py", 2)]


def test_code_in_a_decorators_arguments_is_not_staged_code():
    # `@tf.function(input_signature=make_spec(3))` runs `make_spec` once, where the def is
    # (tensorflow/docs tutorials/distribute/input.py: `input_signature=[ds.element_spec]`); the
    # same helper called from the body is traced.
    source = """
        import tensorflow as tf

        def make_spec(n):
            print("building the signature for", n)
            return [tf.TensorSpec([n], tf.float32)]

        def noisy(x):
            print("tracing")
            return x

        @tf.function(input_signature=make_spec(3))
        def step(x):
            return noisy(x) * 2

        step(tf.ones([3]))
    """
    assert pairs(source) == {(8, "STG101")}


HAND_DRIVEN = """
    import tensorflow as tf

    class SimpleModel(tf.keras.Model):
        def __init__(self):
            super().__init__()
            self.dense = tf.keras.layers.Dense(1)
            self.logs = []

        def call(self, x):
            print("forward")
            return self.dense(x)

        def train_step(self, data):
            x, y = data
            loss = tf.reduce_mean(self(x) - y)
            print("step")
            return {"loss": loss}

    model = SimpleModel()
    for step in range(3):
        model.train_step([tf.ones([2, 2]), tf.ones([2, 1])])
"""


def test_keras_methods_of_a_model_driven_by_hand_and_never_trained_run_eagerly():
    # tensorflow/docs guide/migrate/migration_debugging: `model.train_step(batch)` in a Python
    # loop, no compile/fit: Keras traces nothing.
    assert pairs(HAND_DRIVEN) == set()


def test_keras_methods_of_a_model_that_is_also_trained_are_staged():
    trained = textwrap.dedent(HAND_DRIVEN) + "model.compile(optimizer='sgd', loss='mse')\nmodel.fit(tf.ones([4, 2]), tf.ones([4, 1]))\n"
    assert pairs(trained) == {(10, "STG101"), (16, "STG101")}
    other = textwrap.dedent(HAND_DRIVEN).replace("model = SimpleModel()", "model = SimpleModel()\nfitted = SimpleModel()\nfitted.fit(tf.ones([4, 2]), tf.ones([4, 1]))")
    assert pairs(other) == {(10, "STG101"), (16, "STG101")}


def test_a_model_driven_by_hand_stays_eager_when_other_modules_train_other_models(tmp_path, monkeypatch):
    # The notebooks folder checked as one project: `tf.keras.Model(...).fit(...)` and a `model@N`
    # binding in other files train nothing of this class.
    root = _package(tmp_path, {
        "nb/__init__.py": "",
        "nb/debugging.py": HAND_DRIVEN,
        # `model` bound on the same line number as in debugging.py
        "nb/other.py": "import tensorflow as tf\n" + "\n" * 15 + textwrap.dedent("""
            inputs = tf.keras.Input((2,))
            model = tf.keras.Model(inputs, tf.keras.layers.Dense(1)(inputs))
            model.compile(optimizer="sgd", loss="mse")
            model.fit(tf.ones([4, 2]), tf.ones([4, 1]))
        """),
    })
    line = next(i for i, text in enumerate((root / "nb/debugging.py").read_text().splitlines(), 1) if "model = " in text)
    assert (root / "nb/other.py").read_text().splitlines()[line - 1].startswith("model = ")
    monkeypatch.chdir(root)
    assert [(f.path, f.line, f.code) for f in check_paths(["nb"]).findings] == []


def test_a_module_below_a_namespace_package_is_found_by_its_longer_name(tmp_path, monkeypatch):
    # PEP 420: `proj/third_party` has no `__init__.py`, so the module's own name starts below it
    # (`lib.helpers`), yet `import proj.third_party.lib.helpers` imports it (checked with Python 3)
    files = {
        "proj/__init__.py": "",
        "proj/third_party/lib/__init__.py": "",
        "proj/third_party/lib/helpers.py": """
            def shout(x):
                print("shout", x)
        """,
        "proj/train.py": """
            import tensorflow as tf
            from proj.third_party.lib import helpers

            @tf.function
            def step(x):
                return helpers.shout(x)
        """,
    }
    root = _package(tmp_path / "a", files)
    monkeypatch.chdir(root)
    got = {(f.path.replace("\\", "/"), f.code) for f in check_paths(["."], whole_project=True).findings}
    assert got == {("proj/third_party/lib/helpers.py", "STG101")}
    # a name whose folders are not the module's: no such module
    other = dict(files, **{"proj/train.py": files["proj/train.py"].replace("proj.third_party.lib", "other.third_party.lib")})
    root = _package(tmp_path / "b", other)
    monkeypatch.chdir(root)
    assert not check_paths(["."], whole_project=True).findings
