"""Point 6 of issue 11: functions `tf.data` transformations trace are staged code.

Observed with TF 2.21 (`tf-behaviour.md`, and run for this test's cases): the Python body of a
function given to `Dataset.map`, `filter`, `flat_map`, `interleave`, `reduce`, `scan` or
`tf.data.experimental.scan` runs once for any number of elements; `np.random` in it is one
constant; `tf.config.run_functions_eagerly(True)` does not change that.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent / "rules"))

from rulecases import assert_marked, assert_project_marked, assert_tiers, findings  # noqa: E402


def test_named_functions_methods_and_partials_given_to_dataset_transformations_are_staged():
    assert_marked("""
        import functools
        import numpy as np
        import tensorflow as tf

        def parse(x):
            print("parsing", x)  # STG101
            return x + np.random.rand()  # STG104

        def keep(x):
            print(x)  # STG101
            return x > 1

        def scale(x, k):
            print("scale", k, x)  # STG101
            return x * k

        def add(state, x):
            print(state)  # STG101
            return state + x

        class Loader:
            def _parse(self, x):
                print("loader")  # STG101
                return x * 2

            def dataset(self):
                return tf.data.Dataset.range(10).map(self._parse)

        ds = tf.data.Dataset.range(10).map(parse).filter(keep)
        ds = ds.map(functools.partial(scale, k=2))
        total = ds.reduce(np.int64(0), add)
    """)


def test_lambdas_and_experimental_transformations_are_staged():
    assert_marked("""
        import numpy as np
        import tensorflow as tf

        def flip(x):
            print("flip")  # STG101
            return x

        ds = tf.data.Dataset.range(10)
        ds = ds.map(lambda x: x + np.random.rand())  # STG104
        ds = ds.filter(lambda x: print(x) or True)  # STG101
        ds = ds.apply(tf.data.experimental.scan(0, lambda s, x: (s + np.random.rand(), x)))  # STG104
        ds = ds.flat_map(lambda x: tf.data.Dataset.from_tensors(flip(x)))
    """)


def test_correct_dataset_functions_and_eager_uses_are_not_flagged():
    # The idioms: tf.print / tf.random in the function, py_function for Python code, and
    # from_generator (its generator runs eagerly, in Python, for every element).
    assert_marked("""
        import numpy as np
        import tensorflow as tf

        def parse(x):
            tf.print("parsing", x)
            return x + tf.random.uniform(())

        def slow(x):
            print("eager", x)
            return x + np.random.rand()

        def gen():
            for i in range(3):
                print("generating", i)
                yield np.random.rand()

        ds = tf.data.Dataset.range(10).map(parse)
        ds = ds.map(lambda x: tf.py_function(slow, [x], tf.float32))
        ds = tf.data.Dataset.from_generator(gen, output_signature=tf.TensorSpec([], tf.float64))
        for x in ds:
            print(x)
    """)


def test_map_of_objects_that_are_not_datasets_is_not_staged():
    # pandas, multiprocessing and the builtins have `map`, `filter` and `reduce` too.
    assert_marked("""
        import functools
        import multiprocessing
        import pandas as pd
        import tensorflow as tf

        def show(x):
            print(x)
            return x

        frame = pd.DataFrame({"a": [1, 2]})
        frame["a"].map(show)
        with multiprocessing.Pool(2) as pool:
            pool.map(show, [1, 2])
        list(map(show, [1, 2]))
        list(filter(show, [1, 2]))
        functools.reduce(lambda a, b: show(a + b), [1, 2])

        def pipeline(items):
            return items.map(show)
    """)


def test_a_dataset_parameter_is_known_by_its_other_methods_or_keywords():
    assert_marked("""
        import tensorflow as tf

        def parse(x):
            print(x)  # STG101
            return x

        def augment(x):
            print(x)  # STG101
            return x

        def prepare(ds):
            ds = ds.map(parse)
            return ds.batch(32).prefetch(1)

        def prepare_parallel(ds):
            return ds.map(augment, num_parallel_calls=tf.data.AUTOTUNE)
    """)


def test_lambda_in_a_method_calls_a_method_across_modules(tmp_path):
    assert_project_marked(tmp_path, {
        "pipe/__init__.py": "",
        "pipe/decode.py": """
            def decode(record):
                print("decoding")  # STG101
                return record
        """,
        "pipe/loader.py": """
            import tensorflow as tf
            from pipe.decode import decode

            class Loader:
                def _parse(self, record, training):
                    print("parse", record, training)  # STG101
                    return decode(record)

                def _describe(self):
                    print("eager only")
                    return "loader"

                def make(self, files):
                    name = self._describe()
                    ds = tf.data.TFRecordDataset(files)
                    return ds.map(lambda r: self._parse(r, True))
        """,
    })


def test_a_dataset_lambda_reads_its_enclosing_function_as_it_is_when_the_dataset_is_built():
    # tf-models' input_reader: the lambda is traced by `map` right there; a binding of the same
    # name in the other branch (or later) is no stale closure. A global counter is still state.
    assert_marked("""
        import tensorflow as tf

        calls = 0

        def count(x):
            global calls
            calls += 1  # STG102
            return x

        def build(service, replicas):
            if replicas > 1:
                kwargs = {"service": service}
                ds = tf.data.Dataset.range(replicas)
                ds = ds.map(lambda i: tf.strings.as_string(i) + kwargs["service"])
            else:
                kwargs = {"service": service, "job": "one"}
                ds = tf.data.Dataset.range(1).map(count)
            return ds
    """)


# The sources of `tf.data` (the sixteenth JAX audit's BH1; tests/runtime/test_tf_data_sources_facts.py)


def test_a_hugging_face_datasets_chain_is_no_tf_data_dataset():
    # acutkosky/learnedlr's c4_loader: `load_dataset(..., streaming=True)` is an IterableDataset,
    # whose `shuffle(buffer_size=)` / `map(fn)` look like tf.data's; its `map` calls the lambda
    # as Python on each example: `random.randint` draws per example, as meant. A split of a
    # `DatasetDict`, a `Dataset.from_dict`, grain and torch pipelines neither.
    assert_tiers("""
        import random
        import datasets
        import grain
        import tensorflow as tf
        from datasets import load_dataset

        def loader(split, shuffle_buffer_size):
            c4 = load_dataset("c4", "en", streaming=True, split=split)
            c4 = c4.filter(lambda x: len(x["text"]) > 1)
            if shuffle_buffer_size > 0:
                c4 = c4.shuffle(buffer_size=shuffle_buffer_size)
            c4 = c4.map(lambda ex: {"text": ex["text"][random.randint(0, len(ex["text"])):]})
            return c4

        def glue():
            raw = load_dataset("glue", "mrpc")
            train = raw["train"]
            train = train.shuffle(seed=42)
            return train.batch(8).map(lambda ex: {"n": random.random()})

        def small():
            ds = datasets.Dataset.from_dict({"a": [1, 2]})
            ds = ds.shuffle(seed=0)
            return ds.map(lambda ex: {"a": random.random()})

        def grained(records):
            ds = grain.MapDataset.source(records)
            ds = ds.shuffle(seed=0)
            return ds.batch(8).map(lambda ex: ex + random.random())
    """)


def test_a_parameter_shown_a_dataset_only_by_methods_other_pipelines_share_is_a_guess():
    # acutkosky/trainit's lm_loader: `hf_dataset` is a parameter (a `datasets` IterableDataset
    # its callers load); `.shuffle(buffer_size=...)` is a tf.data method and a `datasets` one:
    # the lambda is a `tf.data` function only as a guess, the preview tier. A method only
    # datasets have (`padded_batch`, `prefetch` after `batch`) or `num_parallel_calls=` shows it.
    assert_tiers("""
        import random
        import tensorflow as tf

        def from_param(hf_dataset, shuffle_buffer_size):
            if shuffle_buffer_size > 0:
                hf_dataset = hf_dataset.shuffle(buffer_size=shuffle_buffer_size)
            return hf_dataset.map(lambda ex: {"text": ex["text"][random.randint(0, 5):]})  # preview STG104

        def batched(ds):
            return ds.batch(8).map(lambda x: x + random.random())  # preview STG104

        def shown_by_prefetch(ds):
            ds = ds.map(lambda x: x + random.random())  # STG104
            return ds.batch(32).prefetch(1)

        def shown_by_padded_batch(ds):
            return ds.padded_batch(8).map(lambda x: x + random.random())  # STG104

        def shown_by_keyword(ds):
            ds = ds.shuffle(100)
            return ds.map(lambda x: x + random.random(), num_parallel_calls=tf.data.AUTOTUNE)  # STG104
    """)
    found = findings("""
        import random

        def from_param(hf_dataset):
            hf_dataset = hf_dataset.shuffle(buffer_size=100)
            return hf_dataset.map(lambda ex: random.randint(0, 5))
    """, "STG104", preview=True)
    assert len(found) == 1
    first = found[0].because[0].message
    assert "only as a guess" in first and "`.shuffle(...)`" in first and first.endswith(": preview")


def test_the_sources_of_tf_data_still_make_datasets():
    # the negative twins: a tf.data chain, `tfds.load`, `tfds.builder(...).as_dataset`, Hugging
    # Face's `to_tf_dataset` and transformers' `prepare_tf_dataset`, a Keras directory dataset.
    assert_tiers("""
        import random
        import keras
        import tensorflow as tf
        import tensorflow_datasets as tfds
        from datasets import load_dataset

        def tf_chain(n):
            ds = tf.data.Dataset.range(n).shuffle(buffer_size=n)
            return ds.map(lambda x: x + random.randint(0, 5))  # STG104

        def from_tfds():
            return tfds.load("mnist", split="train").map(lambda ex: random.random())  # STG104

        def from_builder():
            builder = tfds.builder("mnist")
            ds = builder.as_dataset(split="train").shuffle(100)
            return ds.map(lambda ex: random.random())  # STG104

        def from_hf(model, tokenizer):
            hf = load_dataset("imdb", split="train")
            ds = hf.to_tf_dataset(columns=["text"], batch_size=8)
            ds = ds.map(lambda x: x + random.random())  # STG104
            prepared = model.prepare_tf_dataset(hf, batch_size=8, shuffle=True)
            return ds, prepared.map(lambda x: x + random.random())  # STG104

        def from_directory(path):
            ds = keras.utils.image_dataset_from_directory(path)
            return ds.map(lambda x, y: (x + random.random(), y))  # STG104
    """)
