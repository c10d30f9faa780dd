"""STG103 python-iterator, STG104 frozen-python-value, STG105 python-state-guard."""

from __future__ import annotations

from rulecases import assert_marked, assert_project_marked, findings, assert_tiers

# STG103 ------------------------------------------------------------------------------------------


def test_t32_python_iterator_argument_is_frozen():
    assert_marked("""
        import tensorflow as tf

        @tf.function
        def buggy_consume_next(iterator):
            tf.print("Value:", next(iterator))  # STG103

        iterator = iter([1, 2, 3])
        buggy_consume_next(iterator)
        buggy_consume_next(iterator)
        buggy_consume_next(iterator)
    """)


def test_t33_tf_data_iterator_advances():
    assert_marked("""
        import tensorflow as tf

        @tf.function
        def good_consume_next(iterator):
            tf.print("Value:", next(iterator))

        ds = tf.data.Dataset.from_tensor_slices([1, 2, 3])
        iterator = iter(ds)
        good_consume_next(iterator)
        good_consume_next(iter(ds.batch(2)))
    """)


def test_iterator_created_in_the_call_and_unknown_callers_are_not_flagged():
    assert_marked("""
        import tensorflow as tf

        @tf.function
        def fresh(x):
            it = iter([1, 2])
            return x * next(it)

        @tf.function
        def library_step(iterator):
            return next(iterator)
    """)


def test_global_generator_and_self_iterator_are_flagged_tf_data_global_is_not():
    assert_marked("""
        import tensorflow as tf

        def numbers():
            yield 1
            yield 2

        gen = numbers()
        data_it = iter(tf.data.Dataset.range(3))

        class Reader(tf.Module):
            def __init__(self):
                self.it = iter([1.0, 2.0])

            @tf.function
            def __call__(self, x):
                return x * next(self.it) + next(gen) + tf.cast(next(data_it), tf.float32)  # STG103
    """)
    messages = [f.message for f in findings("""
        import tensorflow as tf

        def numbers():
            yield 1

        gen = numbers()

        @tf.function
        def f(x):
            return x + next(gen)
    """, "STG103")]
    assert len(messages) == 1 and "`gen` is a generator" in messages[0]


def test_generator_passed_and_looped_over_is_flagged():
    assert_marked("""
        import tensorflow as tf

        @tf.function
        def total(values):
            acc = tf.constant(0)
            for v in values:  # STG103
                acc += v
            return acc

        total(v * 2 for v in range(3))
    """)


def test_yield_in_a_tf_function_is_flagged_in_a_helper_it_is_not():
    assert_marked("""
        import tensorflow as tf

        def pairs(x):
            yield x
            yield x * 2

        @tf.function
        def ok(x):
            return tf.add_n(list(pairs(x)))

        @tf.function
        def gen(x):
            for i in range(3):
                yield x + i  # STG103
    """)


def test_stg103_interprocedural_across_modules(tmp_path):
    got = assert_project_marked(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/helpers.py": """
            def consume(iterator):
                return next(iterator)  # STG103
        """,
        "pkg/train.py": """
            import tensorflow as tf
            from pkg.helpers import consume

            @tf.function
            def step(iterator):
                return consume(iterator)

            step(iter([1, 2, 3]))
        """,
    })
    (finding,) = got
    assert finding.entry_point == "pkg.train.step" and "traced by `pkg.train.step`" in finding.message


# STG104 ------------------------------------------------------------------------------------------


def test_tx1_numpy_random_is_frozen_tf_random_is_not():
    assert_marked("""
        import numpy as np
        import tensorflow as tf

        @tf.function
        def np_random():
            a = np.random.randn(3, 3)  # STG104
            tf.print(a)

        @tf.function
        def tf_random():
            a = tf.random.normal((3, 3))
            tf.print(a)

        np_random(); np_random()
        tf_random(); tf_random()
    """)


def test_numpy_on_constants_and_seeding_are_not_frozen_values():
    assert_marked("""
        import random
        import numpy as np
        import tensorflow as tf

        g = tf.random.Generator.from_seed(1)

        @tf.function
        def f(x):
            random.seed(0)
            np.random.seed(0)
            scale = np.sqrt(2.0) * np.pi
            return tf.cast(x, np.float32) * scale + g.normal([])
    """)


def test_clocks_uuids_and_generator_objects_are_frozen():
    assert_marked("""
        import datetime
        import os
        import random
        import time
        import uuid
        import numpy as np
        import tensorflow as tf

        rng = np.random.default_rng(0)
        py_rng = random.Random(1)

        class Augment(tf.Module):
            def __init__(self):
                self.rs = np.random.RandomState(0)

            @tf.function
            def __call__(self, x):
                t0 = time.time()  # STG104
                stamp = datetime.datetime.now()  # STG104
                key = uuid.uuid4()  # STG104
                salt = os.urandom(4)  # STG104
                noise = rng.normal(size=3) + self.rs.rand()  # STG104
                coin = py_rng.random()  # STG104
                rng.bit_generator
                tf.print(t0, str(stamp), str(key), salt)
                return x + noise + coin

        augment = Augment()
        for x in tf.data.Dataset.range(3):
            augment(x)
    """)


def test_py_function_and_init_scope_run_python_on_purpose():
    assert_marked("""
        import time
        import numpy as np
        import tensorflow as tf

        class Clock(tf.Module):
            def __init__(self):
                self.started = None

            @tf.function
            def __call__(self, x):
                with tf.init_scope():
                    self.started = time.time()
                noise = tf.py_function(lambda: np.random.rand(), [], tf.float64)
                return x + tf.cast(noise, x.dtype)
    """)


def test_project_decorator_handing_the_function_to_py_function_keeps_it_eager():
    # tensorflow/docs guide/data_performance: what `ds.map(naive_map)` traces is `wrapper`;
    # `naive_map` itself runs in `tf.py_function`, eagerly, once per element
    assert_marked("""
        import time
        import tensorflow as tf

        def map_decorator(func):
            def wrapper(steps, times, values):
                return tf.py_function(func, inp=(steps, times, values), Tout=(tf.int64, tf.float32, tf.int32))
            return wrapper

        @map_decorator
        def naive_map(steps, times, values):
            start = time.perf_counter()
            time.sleep(0.001)
            return steps, times, values

        ds = tf.data.Dataset.range(3).map(lambda s: (s, 0.0, 1)).map(naive_map)
    """)


def test_project_decorator_that_calls_the_function_in_the_graph_keeps_it_staged():
    # the twin: a wrapper calling `func` directly traces it
    assert_marked("""
        import time
        import tensorflow as tf

        def map_decorator(func):
            def wrapper(steps, times, values):
                return func(steps, times, values)
            return wrapper

        @map_decorator
        def naive_map(steps, times, values):
            start = time.perf_counter()  # STG104
            return steps, times + start, values

        ds = tf.data.Dataset.range(3).map(lambda s: (s, 0.0, 1)).map(naive_map)
    """)


def test_stg104_interprocedural_across_modules(tmp_path):
    got = assert_project_marked(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/aug.py": """
            import random

            def jitter(x):
                return x * random.uniform(0.9, 1.1)  # STG104
        """,
        "pkg/train.py": """
            import tensorflow as tf
            from pkg import aug

            @tf.function
            def step(x):
                return aug.jitter(x)

            def train(dataset):
                for x in dataset:
                    step(x)
        """,
    })
    assert got[0].entry_point == "pkg.train.step"
    assert "`random.uniform(...)`" in got[0].message and "tf.random" in got[0].message


# STG105 ------------------------------------------------------------------------------------------


def test_t30_counter_guard_is_flagged():
    assert_marked("""
        import tensorflow as tf

        class Model(tf.Module):
            def __init__(self):
                self.v = tf.Variable(0)
                self.counter = 0

            @tf.function
            def __call__(self):
                if self.counter == 0:  # STG105
                    self.counter += 1  # STG102
                    self.v.assign_add(1)
                return self.v

        m = Model()
        for n in range(3):
            print(m().numpy())
    """)


def test_t31_init_scope_fix_is_recognised():
    assert_marked("""
        import tensorflow as tf

        class Model(tf.Module):
            def __init__(self):
                self.v = tf.Variable(0)
                self.counter = 0

            @tf.function
            def __call__(self):
                if self.counter == 0:
                    with tf.init_scope():
                        self.counter += 1
                        self.v.assign_add(1)
                return self.v
    """)


def test_guards_that_are_not_the_counter_pattern():
    assert_marked("""
        import tensorflow as tf

        class Model(tf.Module):
            def __init__(self, use_bias):
                self.use_bias = use_bias
                self.b = tf.Variable(0.0)
                self.count = None
                self.step = tf.Variable(0)

            @tf.function
            def __call__(self, x):
                if self.count is None:
                    self.count = tf.Variable(0)
                if self.use_bias:
                    self.b.assign_add(1.0)
                if self.step == 0:
                    self.step.assign_add(1)
                return x + self.b
    """)


def test_flipped_global_flag_in_a_helper_is_flagged():
    found = findings("""
        import tensorflow as tf

        warned = False

        def warn_once():
            global warned
            if not warned:
                tf.print("warning")
                warned = True

        @tf.function
        def step(x):
            warn_once()
            return x
    """, "STG105")
    assert [(f.line, f.entry_point) for f in found] == [(7, "step")]
    assert "`warned`" in found[0].message and "`tf.print(...)`" in found[0].message


def test_flag_flipped_by_a_method_the_guarded_block_calls_is_flagged():
    # tensorflow/addons' WeightNormalization before its fix: `_initialize_weights` assigns the
    # kernel norm and sets `self._initialized = True`; under tf.function the flag changes only
    # while tracing and the assigns run on every call (TF 2.21: a variable assigned in the block
    # holds 1, 2, 3 after three calls; eagerly, 1)
    found = findings("""
        import tensorflow as tf

        class WeightNorm(tf.keras.layers.Layer):
            def __init__(self):
                super().__init__()
                self._initialized = False

            def build(self, shape):
                self.g = self.add_weight(name="g", shape=(3,))

            @tf.function
            def call(self, inputs):
                if not self._initialized:
                    self._initialize_weights(inputs)
                return inputs * self.g

            def _initialize_weights(self, inputs):
                self._init_norm()
                self._initialized = True

            def _init_norm(self):
                self.g.assign(tf.ones(3))
    """, "STG105")
    assert [f.line for f in found] == [13]
    assert "`self._initialized`" in found[0].message
    assert any("`self._initialize_weights(...)` sets `self._initialized`" in b.message and b.line == 14
               for b in found[0].because)


def test_a_helper_that_flips_another_flag_is_not_the_counter_pattern():
    # the twin: the helper runs the op but sets `self._seen`, not the guard's `self._initialized`
    assert findings("""
        import tensorflow as tf

        class WeightNorm(tf.keras.layers.Layer):
            def __init__(self):
                super().__init__()
                self._initialized = False
                self._seen = False

            def build(self, shape):
                self.g = self.add_weight(name="g", shape=(3,))

            @tf.function
            def call(self, inputs):
                if not self._initialized:
                    self._note(inputs)
                return inputs * self.g

            def _note(self, inputs):
                self.g.assign(tf.ones(3))
                self._seen = True
    """, "STG105") == []


def test_a_helper_creating_the_guarded_variable_is_stg402s_guard_not_a_flip():
    assert findings("""
        import tensorflow as tf

        class Counter(tf.Module):
            def __init__(self):
                self.count = None

            @tf.function
            def __call__(self, x):
                if self.count is None:
                    self._make()
                self.count.assign_add(1)
                return x

            def _make(self):
                self.count = tf.Variable(0)
                tf.print("made")
    """, "STG105") == []


# STG104 under TensorFlow: default only where a later run reuses the trace ---------------------


def test_stg104_a_draw_in_a_function_called_again_is_known_one_called_once_is_preview():
    # tests/runtime/test_tf_capture_order_facts.py: a second call reuses the trace, and a
    # `tf.data` function is traced once and run for every element
    assert_tiers("""
        import numpy as np
        import tensorflow as tf

        @tf.function
        def once(x):
            return x + np.random.normal()  # preview STG104

        @tf.function
        def twice(x):
            return x + np.random.normal()  # STG104

        @tf.function
        def step(x):
            return x + np.random.normal()  # STG104

        def train(dataset):
            step(dataset)

        once(tf.constant(1.0))
        twice(tf.constant(1.0))
        twice(tf.constant(2.0))
        for epoch in range(3):
            train(tf.constant(1.0))
        ds = tf.data.Dataset.range(3).map(lambda x: tf.cast(x, tf.float32) + np.random.normal())  # STG104
    """)


def test_stg104_a_function_called_in_a_comprehension_is_called_again():
    """A comprehension (a generator expression too) runs its element once per item, as a `for`
    loop runs its body: a Function called there reuses its trace. Its first iterable, like a
    `for` loop's, is evaluated once: a Function called only there is called once (preview); an
    inner clause's iterable runs once per outer item."""
    assert_tiers("""
        import numpy as np
        import tensorflow as tf

        @tf.function
        def listed(x):
            return x + np.random.normal()  # STG104

        @tf.function
        def summed(x):
            return x + np.random.normal()  # STG104

        @tf.function
        def iterated(x):
            return x + np.random.normal()  # preview STG104

        @tf.function
        def looped_over(x):
            return x + np.random.normal()  # preview STG104

        @tf.function
        def inner(x):
            return x + np.random.normal()  # STG104

        xs = [tf.constant(1.0), tf.constant(2.0)]
        ys = [listed(x) for x in xs]
        total = sum(summed(x) for x in xs)
        zs = [y for y in iterated(tf.constant([1.0, 2.0]))]
        for w in looped_over(tf.constant([1.0, 2.0])):
            print(w)
        pairs = [(x, z) for x in xs for z in inner(x)]
    """)


def test_stg104_a_factory_s_function_called_again_through_one_binding():
    """`step = make_step()`, `make_step` returning its local `@tf.function def step`: the call
    runs that Function (`FunctionFacts.returns_function`). Each factory call makes a new
    Function with traces of its own, so a call repeats one only through one binding made outside
    the loop (tests/runtime/test_tf_fresh_facts.py: a new Function traces afresh): a binding
    made in the loop, or two bindings each called once, show no reuse (preview)."""
    assert_tiers("""
        import numpy as np
        import tensorflow as tf

        def make_step():
            @tf.function
            def step(x):
                return x + np.random.normal()  # STG104
            return step

        def make_twice():
            @tf.function
            def twice(x):
                return x + np.random.normal()  # STG104
            return twice

        def make_fresh():
            @tf.function
            def fresh(x):
                return x + np.random.normal()  # preview STG104
            return fresh

        def make_rebound():
            @tf.function
            def rebound(x):
                return x + np.random.normal()  # preview STG104
            return rebound

        def train(xs):
            step = make_step()
            for x in xs:
                step(x)

        def each(xs):
            for x in xs:
                fresh = make_fresh()
                fresh(x)

        run = make_twice()
        run(tf.constant(1.0))
        run(tf.constant(2.0))
        other = make_rebound()
        other(tf.constant(1.0))
        other = make_rebound()
        other(tf.constant(2.0))
    """)


def test_stg501_numbers_passed_to_two_objects_of_a_factory_are_two_traces_not_retraces():
    """Python numbers passed to the calls of one factory binding retrace that Function (known);
    passed once each to two bindings, they trace two new Functions once each: nothing retraces."""
    assert_tiers("""
        import tensorflow as tf

        def make_scale():
            @tf.function
            def scale(x, factor):
                return x * factor
            return scale

        one = make_scale()
        one(tf.constant(1.0), 2.0)  # STG501
        one(tf.constant(1.0), 3.0)  # STG501
        first = make_scale()
        first(tf.constant(1.0), 4.0)
        first = make_scale()
        first(tf.constant(1.0), 5.0)
    """)


def test_stg104_a_keras_layer_the_code_trains_is_known_one_it_never_trains_is_preview():
    # tfts' scheduled-sampling coin flip (seventh audit, Y) is true under `fit`; a layer no code
    # trains may run eagerly (alibi-detect's kernels)
    layer = """
        import numpy as np
        import tensorflow as tf

        class Decoder(tf.keras.Model):
            def call(self, x):
                if np.random.uniform() < 0.5:  # {marker}STG104
                    return x
                return -x
    """
    assert_tiers(layer.format(marker="preview "))
    assert_tiers(layer.format(marker="") + """
        model = Decoder()
        model.compile(loss="mse")
        model.fit(tf.zeros([4, 2]), tf.zeros([4, 2]))
    """)


def test_stg104_a_draw_seeding_a_stateful_op_is_silent_one_seeding_a_helper_is_preview():
    # neurite (seventh audit, Y): the NumPy draw is only an op-level seed; a stateful op still
    # draws anew on every call of the trace (tests/runtime/test_tf_capture_order_facts.py)
    assert_tiers("""
        import numpy as np
        import tensorflow as tf

        def draw_noise(shape, seed=None):
            return tf.random.normal(shape, seed=seed)

        @tf.function
        def augment(x):
            noise = tf.random.uniform(tf.shape(x), seed=np.random.randint(2**31 - 1))
            blur = draw_noise(tf.shape(x), seed=np.random.randint(2**31 - 1))  # preview STG104
            fixed = tf.random.stateless_uniform([2], seed=np.random.randint(9, size=2))  # STG104
            return x + noise + blur + fixed

        for x in tf.data.Dataset.range(3):
            augment(tf.cast(x, tf.float32))
    """)
