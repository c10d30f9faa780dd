"""What `analysis.eagerswitch` rests on, observed with the real TensorFlow 2.21 (Keras 3): the
process-wide switch `tf.config.run_functions_eagerly(True)` (and its older name
`tf.config.experimental_run_functions_eagerly`) makes every `tf.function` run its Python body on
each call, tracing nothing, while `tf.data` functions stay traced unless
`tf.data.experimental.enable_debug_mode()` is called too. Each case runs in its own process:
the switch is global."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

pytest.importorskip("tensorflow")


def _run(code: str) -> str:
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout.split("---\n", 1)[1]


_BODY = """
    calls = []

    @tf.function
    def step(x):
        calls.append(x)                 # a Python list: values when eager, symbolic when traced
        print("body", type(x).__name__)
        v = tf.Variable(1.0)            # made on every call: ValueError on a traced call
        return x + v

    @tf.function(jit_compile=True)
    def xla(x):
        print("xla body")
        return x * 2

    try:
        for i in range(3):
            step(tf.constant(float(i)))
        print("no error")
    except ValueError as e:
        print("ValueError")
    for i in range(2):
        xla(tf.constant(float(i)))
    print("eager list" if calls and all(hasattr(c, "numpy") for c in calls) else "symbolic list")
    print("traces", step.experimental_get_tracing_count())
"""


@pytest.mark.parametrize("name", ["run_functions_eagerly", "experimental_run_functions_eagerly"])
def test_the_switch_on_runs_every_function_body_on_every_call(name):
    out = _run(f"import tensorflow as tf\ntf.config.{name}(True)\nprint('---')\n" + textwrap.dedent(_BODY))
    assert out.count("body EagerTensor") == 3  # the print runs on every call, with values
    assert out.count("xla body") == 2  # jit_compile=True too
    assert "no error" in out and "eager list" in out and "traces 0" in out


def test_without_the_switch_or_with_it_set_false_the_body_is_traced():
    for prelude in ("", "tf.config.run_functions_eagerly(True)\ntf.config.run_functions_eagerly(False)\n"):
        out = _run("import tensorflow as tf\n" + prelude + "print('---')\n" + textwrap.dedent(_BODY))
        assert "body SymbolicTensor" in out and "body EagerTensor" not in out  # traced, never run eagerly
        assert "ValueError" in out  # the per-call tf.Variable raises on the first traced call
        assert out.count("xla body") == 1


def test_the_switch_set_in_an_imported_module_holds_for_the_importer(tmp_path):
    """Set at import of a module the program imports (a models module), it holds for Functions
    defined in the importer after that import: the switch is one for the process."""
    (tmp_path / "models.py").write_text("import tensorflow as tf\ntf.config.run_functions_eagerly(True)\n")
    out = _run(f"""
        import sys
        sys.path.insert(0, {str(tmp_path)!r})
        import tensorflow as tf
        import models
        print("---")
        @tf.function
        def f(x):
            print("body", type(x).__name__)
            return x
        f(tf.constant(1)); f(tf.constant(2))
    """)
    assert out.count("body EagerTensor") == 2


def test_dataset_functions_stay_traced_unless_debug_mode_is_on_too():
    code = """
        import tensorflow as tf
        tf.config.run_functions_eagerly(True)
        {debug}
        print("---")
        seen = []
        def f(x):
            seen.append(type(x).__name__)
            return x + 1
        list(tf.data.Dataset.range(3).map(f))
        print(seen)
    """
    traced = _run(code.format(debug=""))
    assert traced.strip() == "['SymbolicTensor']"  # once, at trace: the map function is a graph
    debug = _run(code.format(debug="tf.data.experimental.enable_debug_mode()"))
    assert debug.count("EagerTensor") == 3  # debug mode: the Python body runs per element, with values


def test_get_concrete_function_traces_under_the_switch():
    """`get_concrete_function` traces the body whatever the switch says (a SavedModel export
    does the same): a function whose trace is taken this way is still staged."""
    out = _run("""
        import tensorflow as tf
        tf.config.run_functions_eagerly(True)
        print("---")
        @tf.function
        def f(x):
            print("body", type(x).__name__)
            return x
        f.get_concrete_function(tf.TensorSpec([], tf.float32))
    """)
    assert "body SymbolicTensor" in out
