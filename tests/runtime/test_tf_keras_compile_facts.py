"""What `analysis.staging.Project._compiled_only_eagerly` rests on (`frameworks.KERAS_COMPILED_STEPS`),
observed with the real TensorFlow 2.21 / Keras 3: `fit`, `evaluate`, `train_on_batch` and
`test_on_batch` of a model never compiled raise ValueError before any step runs; after
`compile(run_eagerly=True)` they run `train_step` / `test_step` as Python once per batch (after a
plain compile, `fit` traces `train_step`: its Python runs at trace only); a model `load_model`
revives keeps its compile's `run_eagerly`."""

from __future__ import annotations

import numpy as np
import pytest

tf = pytest.importorskip("tensorflow")
keras = pytest.importorskip("keras")

X, Y = np.ones((8, 2), "float32"), np.ones((8, 1), "float32")


class Counting(keras.Model):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.dense = keras.layers.Dense(1)
        self.train_calls = 0
        self.test_calls = 0

    def call(self, x):
        return self.dense(x)

    def train_step(self, data):
        self.train_calls += 1
        return super().train_step(data)

    def test_step(self, data):
        self.test_calls += 1
        return super().test_step(data)


@pytest.mark.parametrize("loop", ["fit", "evaluate", "train_on_batch", "test_on_batch"])
def test_the_step_loops_of_an_uncompiled_model_raise_before_any_step(loop):
    model = Counting()
    with pytest.raises(ValueError, match="compile"):
        getattr(model, loop)(X, Y)
    assert model.train_calls == model.test_calls == 0


def test_compiled_with_run_eagerly_the_steps_run_as_python_every_batch():
    model = Counting()
    model.compile(optimizer="sgd", loss="mse", run_eagerly=True)
    model.fit(X, Y, batch_size=2, epochs=1, verbose=0)
    model.evaluate(X, Y, batch_size=2, verbose=0)
    assert (model.train_calls, model.test_calls) == (4, 4)
    plain = Counting()
    plain.compile(optimizer="sgd", loss="mse")
    plain.fit(X, Y, batch_size=2, epochs=1, verbose=0)
    assert plain.train_calls < 4  # traced: the Python runs while tracing only


def test_a_revived_model_keeps_run_eagerly(tmp_path):
    model = Counting()
    model.compile(optimizer="sgd", loss="mse", run_eagerly=True)
    model.fit(X, Y, batch_size=2, epochs=1, verbose=0)
    path = str(tmp_path / "m.keras")
    model.save(path)
    revived = keras.models.load_model(path, custom_objects={"Counting": Counting})
    assert revived.run_eagerly
    revived.fit(X, Y, batch_size=2, epochs=1, verbose=0)
    assert revived.train_calls == 4
