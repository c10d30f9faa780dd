"""What `analysis.eagerswitch.graph_classes` rests on (`frameworks.GRAPH_MODE_SWITCHES`), observed
with the real TensorFlow 2.21 (Keras 3): with eager execution off, a Keras layer called on graph
tensors runs its `call` once, while the default graph is built, and a tensor it stores on itself
belongs to that graph and is read by every `Session.run`; a `tf.function` still traces its Python
once per input signature; TF 2's top-level module has no TensorFlow 1 spellings
(`tf.disable_v2_behavior`, `tf.py_func`, `tf.assign_add`). Each case runs in its own process: the
switch is global."""

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


def test_a_layer_called_in_graph_mode_runs_once_and_its_stored_tensor_stays_valid():
    out = _run("""
        import tensorflow as tf
        tf.compat.v1.disable_eager_execution()
        import keras

        runs = []

        class Logger(keras.layers.Layer):
            def call(self, x):
                runs.append(1)
                self.kept = x * 2.0
                return x + 1.0

        layer = Logger()
        x = tf.compat.v1.placeholder(tf.float32, [None])
        y = layer(x)
        print("---")
        print("eager", tf.executing_eagerly())
        print("kept in the default graph", layer.kept.graph is tf.compat.v1.get_default_graph())
        with tf.compat.v1.Session() as session:
            print("steps", [session.run([y, layer.kept], {x: [float(i)]})[1].tolist() for i in range(3)])
        print("python runs", len(runs))
    """)
    assert "eager False" in out
    assert "kept in the default graph True" in out
    assert "steps [[0.0], [2.0], [4.0]]" in out  # the stored tensor, evaluated anew at every step
    assert "python runs 1" in out


def test_a_tf_function_still_traces_once_per_signature_in_graph_mode():
    out = _run("""
        import tensorflow as tf
        tf.compat.v1.disable_v2_behavior()

        traces = []

        @tf.function
        def step(x):
            traces.append(1)
            return x * 2

        x = tf.compat.v1.placeholder(tf.float32, [])
        y = step(x)
        step(x)
        print("---")
        with tf.compat.v1.Session() as session:
            print("values", [float(session.run(y, {x: float(i)})) for i in range(3)])
        print("traces", len(traces))
    """)
    assert "values [0.0, 2.0, 4.0]" in out
    assert "traces 1" in out


def test_tensorflow_2_has_no_tensorflow_1_spellings_on_its_top_level_module():
    out = _run("""
        import tensorflow as tf
        print("---")
        print([hasattr(tf, name) for name in ("disable_v2_behavior", "disable_eager_execution", "py_func",
                                                "assign_add", "enable_eager_execution")])
        print(hasattr(tf.compat.v1, "disable_v2_behavior"), hasattr(tf.compat.v1, "disable_eager_execution"))
    """)
    assert "[False, False, False, False, False]" in out
    assert "True True" in out


def test_tensorflow_2_has_no_contrib_so_a_program_importing_it_runs_tensorflow_1():
    # `frameworks.TF1_ONLY_MODULES`: only TensorFlow 1.x can import it (its default: graph mode)
    out = _run("""
        import tensorflow as tf
        print("---")
        try:
            import tensorflow.contrib
            print("imported")
        except ImportError as e:
            print(type(e).__name__)
        print("attribute", hasattr(tf, "contrib"))
    """)
    assert "ModuleNotFoundError" in out
    assert "attribute False" in out


def test_a_graph_switch_in_a_function_or_a_try_only_turns_graph_mode_on():
    # `eagerswitch._graph_events`: such a switch unsettles no module that switches at its import
    out = _run("""
        import tensorflow as tf
        tf.compat.v1.disable_v2_behavior()
        seen = [tf.executing_eagerly()]

        def maybe_tf1():
            tf.compat.v1.disable_eager_execution()

        try:
            tf.compat.v1.disable_v2_behavior()
        except Exception:
            pass
        maybe_tf1()
        seen.append(tf.executing_eagerly())
        print("---")
        print("eager", seen)
    """)
    assert "eager [False, False]" in out
