"""The sources of `tf.data` (the sixteenth JAX audit's BH1, `frameworks.PYTHON_DATA_SOURCES`,
`frameworks.DATASET_SHARED_METHODS`, `analysis.datasets`), observed with TensorFlow 2.21 and
Keras 3 on the TensorFlow backend.

A `.shuffle(buffer_size=...).map(fn)` chain traces `fn` once only when its root is a
`tf.data.Dataset`: then a Python draw in `fn` is one constant for every element. Hugging Face
`datasets` (not installed here) has the same spelling, `load_dataset(..., streaming=True)
.shuffle(buffer_size=...).map(fn)`, and its `map` calls `fn` as Python on each example as the
loop reads it ("on-the-fly": huggingface.co/docs/datasets/about_mapstyle_vs_iterable, /stream),
so the same draw differs per example: the model calls such a value no dataset.
"""

from __future__ import annotations

import random

import pytest

tf = pytest.importorskip("tensorflow")


def _drawn(ds) -> list[int]:
    return [int(x) for x in ds]


def test_a_python_draw_in_a_tf_data_map_is_one_constant_after_shuffle():
    """`tf.data.Dataset.range(n).shuffle(buffer_size=...).map(lambda x: random.randint(...))`:
    the lambda's Python body runs once, at trace time; every element gets the same draw."""
    random.seed(0)
    runs = []

    def offset(x):
        runs.append(1)
        return x * 0 + random.randint(0, 10**9)

    ds = tf.data.Dataset.range(50).shuffle(buffer_size=10).map(offset)
    values = _drawn(ds)
    assert len(runs) == 1
    assert len(set(values)) == 1
    assert _drawn(ds) == values  # a second pass reuses the trace too


def test_keras_text_dataset_from_directory_is_a_tf_data_source(tmp_path):
    """`keras.utils.text_dataset_from_directory` (`frameworks.DATASET_FACTORIES`) gives a
    `tf.data.Dataset` under the TensorFlow backend: its `map` traces the function once."""
    keras = pytest.importorskip("keras")
    for label in ("a", "b"):
        (tmp_path / label).mkdir()
        for i in range(3):
            (tmp_path / label / f"{i}.txt").write_text(f"text {label} {i}")
    ds = keras.utils.text_dataset_from_directory(str(tmp_path), batch_size=None, shuffle=False)
    assert isinstance(ds, tf.data.Dataset)
    runs = []

    def draw(text, label):
        runs.append(1)
        return tf.cast(label, tf.int64) * 0 + random.randint(0, 10**9)

    values = _drawn(ds.shuffle(buffer_size=4).map(draw))
    assert len(runs) == 1 and len(values) == 6 and len(set(values)) == 1


def test_a_dataset_made_by_a_method_of_a_tf_data_dataset_is_one():
    """`DATASET_ONLY_METHODS` in a chain: the receiver of `.prefetch(...)` / `.padded_batch(...)`
    is a `tf.data.Dataset` (`ds.batch(32).prefetch(1)` shows `ds` one); `batch`, `shuffle` and
    `shard` are methods of `tf.data.Dataset` too, the ones other pipelines share."""
    ds = tf.data.Dataset.range(8)
    for method in ("batch", "shuffle", "shard", "prefetch", "padded_batch"):
        assert hasattr(ds, method)
    assert isinstance(ds.batch(2).prefetch(1), tf.data.Dataset)
