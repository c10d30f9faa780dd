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

from rulecases import assert_marked, assert_project_marked  # noqa: E402


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
            print("scale", k)  # STG101
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
                    print("parse", training)  # STG101
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
