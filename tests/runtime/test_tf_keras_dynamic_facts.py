"""What `analysis.eagerswitch.keras_dynamic` rests on (`frameworks.KERAS_DYNAMIC_KEYWORD`), observed
with TensorFlow 2.21: a Keras layer or model built with `dynamic=True` has its `call` never
traced by Keras. Under Keras 2 (tf_keras 2.21) a model holding one has `run_eagerly` True and
`fit`, `evaluate`, `predict` run the `call` eagerly on every batch; a functional model built on a
dynamic layer asks `compute_output_shape` and does not call it symbolically. Keras 3 refuses the
keyword (the constructor raises ValueError). A `tf.function` around a call of it still traces it.
`compile(run_eagerly=True)` is not the same under Keras 3: its `fit` runs `train_step` eagerly but
still traces `call` to build the model. Each case runs in its own process."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

pytest.importorskip("tensorflow")

_CODE = """
    import sys
    import numpy as np, tensorflow as tf
    if KERAS2:
        import tf_keras as keras
    else:
        import keras
    seen = []

    class Inner(keras.Model):
        def __init__(self, **kwargs):
            dynamic = kwargs.pop("dynamic", True)
            super().__init__(dynamic=dynamic, **kwargs)
            self.d = keras.layers.Dense(1)

        def call(self, x):
            seen.append(tf.executing_eagerly())
            return self.d(x)

    class Outer(keras.Model):
        def __init__(self):
            super().__init__()
            self.i = Inner()

        def call(self, x):
            return self.i(x)

    print("---")
    try:
        m = Outer()
    except ValueError as e:
        print("constructor raises ValueError")
        sys.exit()
    m.compile("sgd", "mse")
    print("run_eagerly", m.run_eagerly)
    m.fit(np.zeros((8, 2)), np.zeros((8, 1)), batch_size=4, epochs=1, verbose=0)
    m.evaluate(np.zeros((8, 2)), np.zeros((8, 1)), batch_size=4, verbose=0)
    m.predict(np.zeros((8, 2)), batch_size=4, verbose=0)
    print("keras loops", seen)
    seen.clear()

    @tf.function
    def f(x):
        return m(x)

    f(tf.zeros((4, 2)))
    f(tf.zeros((4, 2)))
    print("tf.function", seen)
    seen.clear()

    class D(keras.layers.Layer):
        def __init__(self):
            super().__init__(dynamic=True)

        def call(self, x):
            seen.append(tf.executing_eagerly())
            return x * 2

        def compute_output_shape(self, shape):
            return shape

    inp = keras.Input((2,))
    fm = keras.Model(inp, D()(inp))
    print("functional build", seen)
    fm.compile("sgd", "mse")
    fm.predict(np.zeros((8, 2)), batch_size=4, verbose=0)
    print("functional predict", seen, fm.run_eagerly)
"""


def _run(keras2: bool) -> list[str]:
    code = f"KERAS2 = {keras2}\n" + textwrap.dedent(_CODE)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout.split("---\n", 1)[1].splitlines()


def test_keras2_runs_a_dynamic_layer_and_a_model_holding_it_eagerly():
    pytest.importorskip("tf_keras")
    assert _run(True) == [
        "run_eagerly True",
        "keras loops [True, True, True, True, True, True]",  # fit, evaluate, predict: 2 batches each, eager
        "tf.function [False]",  # a tf.function the user writes around it traces it once
        "functional build []",  # compute_output_shape, no symbolic call
        "functional predict [True, True] True",
    ]


def test_keras3_refuses_the_keyword():
    pytest.importorskip("keras")
    assert _run(False) == ["constructor raises ValueError"]


def test_keras3_run_eagerly_compile_still_traces_call_to_build():
    code = textwrap.dedent("""
        import numpy as np, tensorflow as tf, keras
        seen = []

        class M(keras.Model):
            def __init__(self):
                super().__init__()
                self.d = keras.layers.Dense(1)

            def call(self, x):
                seen.append(("call", tf.executing_eagerly()))
                return self.d(x)

            def train_step(self, data):
                seen.append(("train_step", tf.executing_eagerly()))
                return super().train_step(data)

        m = M()
        m.compile("sgd", "mse", run_eagerly=True)
        m.fit(np.zeros((8, 2)), np.zeros((8, 1)), batch_size=4, epochs=1, verbose=0)
        print("---")
        print(sorted(set(seen)))
    """)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split("---\n", 1)[1].strip() == "[('call', False), ('call', True), ('train_step', True)]"
