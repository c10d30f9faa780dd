"""Issue 23, the third fresh TensorFlow audit (bench/fresh_repos_tf3.txt, half I's verdicts in
bench/fresh_verdicts_I_before.csv): each false-positive class as the fact it follows, with its
positive twin. Behaviour checked with TensorFlow 2.21 in this venv
(tests/runtime/test_tf_fresh_facts.py runs the same code)."""

from __future__ import annotations

from rulecases import assert_marked, assert_tiers


def test_effects_behind_a_memo_guard_run_once_per_key_eagerly_too():
    """stylegan2-tf-2.x's `get_plugin`: `if cuda_file in _plugin_cache: return ...`, then build,
    print and fill `_plugin_cache[cuda_file]`. Eager calls skip the block once the key is filled,
    as calls reusing a trace do, so tracing changes nothing (the same holds in a helper only the
    guarded part calls). A membership test of a container the function never fills guards
    nothing: the print runs on every eager call, once per trace staged."""
    assert_marked("""
        import os
        import tensorflow as tf

        _plugin_cache = dict()
        _seen = set()

        def _compile(path):
            os.makedirs("cache", exist_ok=True)
            return path

        def get_plugin(path):
            if path in _plugin_cache:
                return _plugin_cache[path]
            print("Compiling", path)
            plugin = _compile(path)
            _plugin_cache[path] = plugin
            return plugin

        def get_checked(path):
            if path in _seen:
                return path
            print("Checking", path)  # STG101
            return path

        @tf.function
        def step(x):
            get_plugin("op.cu")
            get_checked("op.cu")
            return x + 1
    """)


def test_a_sub_layer_made_under_a_not_in_guard_is_a_memo_not_a_lost_update():
    """dreamer's `Module.get`: `if name not in self._modules: self._modules[name] = ctor()`. The
    entry outlives the trace and eager calls skip the fill too. A dict filled under a test of
    another container is written on every eager call: only while tracing when staged."""
    assert_tiers("""
        import tensorflow as tf

        class Module(tf.Module):
            def __init__(self):
                self._modules = {}
                self._calls = {}
                self._known = set()

            def get(self, name, ctor, *args):
                if name not in self._modules:
                    self._modules[name] = ctor(*args)
                return self._modules[name]

            def count(self, name):
                if name not in self._known:
                    self._calls[name] = 1  # preview STG102
                return name

            @tf.function
            def __call__(self, x):
                self.count("dense")
                return self.get("dense", tf.keras.layers.Dense, 2)(x)
    """)


def test_a_dict_copied_in_the_call_is_the_calls_own():
    """dreamer's `preprocess`: `obs = obs.copy()` and then `obs["image"] = ...`: `dict.copy()`
    returns a new dict, so the caller's dict keeps what it held. Written without the copy, the
    caller's dict holds a symbolic tensor after the trace."""
    assert_marked("""
        import tensorflow as tf

        def preprocess(obs):
            obs = obs.copy()
            obs["image"] = tf.cast(obs["image"], tf.float32) / 255.0
            return obs

        def preprocess_in_place(obs):
            obs["image"] = tf.cast(obs["image"], tf.float32) / 255.0  # STG201
            return obs

        @tf.function
        def policy(obs):
            return preprocess(obs)["image"], preprocess_in_place(obs)["image"]
    """)


def test_the_local_devices_and_an_op_library_are_python_objects():
    """stylegan2-tf-2.x: `[x for x in device_lib.list_local_devices() if ...]` iterates a Python
    list of `DeviceAttributes` protos, `tf.sysconfig.get_include()` is a str and
    `tf.load_op_library(path)` a Python module: no symbolic tensor. Iterating a tensor in a
    comprehension still fails while tracing."""
    assert_marked("""
        import tensorflow as tf
        from tensorflow.python.client import device_lib

        _plugins = {}

        def gpu_arch():
            gpus = [x for x in device_lib.list_local_devices() if x.device_type == "GPU"]
            return len(gpus), tf.sysconfig.get_include() + "/eigen"

        def load(path):
            if path not in _plugins:
                _plugins[path] = tf.load_op_library(path)
            return _plugins[path]

        @tf.function
        def step(x):
            gpu_arch()
            load("fused.so")
            doubled = [v * 2 for v in tf.range(3)]  # STG602
            return x + doubled[0]
    """)


def test_a_method_writing_a_just_constructed_object_before_its_first_call_sets_it_up():
    """dice_rl's scripts: `estimator = TabularBayesDice(...)`, `estimator.prepare_dataset(...)`
    (which sets `self._initial_weights`), then `estimator.train_step()` in a loop. The object's
    `tf.function` traces at its first call, after the write: every call of the writer the project
    shows is made so. Called after a first call of the object, or on an object made before the
    loop that calls both, it is the stale attribute (tests/runtime/test_tf_fresh_facts.py)."""
    assert_marked("""
        import tensorflow as tf

        class Estimator(tf.Module):
            def __init__(self, n):
                self._weights = tf.zeros([n])

            def prepare(self, data):
                self._weights = tf.constant(data)

            @tf.function
            def train_step(self):
                return tf.reduce_sum(self._weights)

        class Tuned(tf.Module):
            def __init__(self):
                self.scale = 1.0

            def retune(self, scale):
                self.scale = scale

            @tf.function
            def train_step(self, x):
                return x * self.scale  # STG302

        class Looped(tf.Module):
            def __init__(self):
                self.scale = 1.0

            def reset(self, scale):
                self.scale = scale

            @tf.function
            def train_step(self, x):
                return x * self.scale  # STG302

        def main(data, epochs):
            estimator = Estimator(3)
            estimator.prepare(data)
            for _ in range(10):
                estimator.train_step()
            tuned = Tuned()
            tuned.train_step(1.0)
            tuned.retune(2.0)
            tuned.train_step(1.0)
            looped = Looped()
            for epoch in range(epochs):
                looped.reset(epoch)
                looped.train_step(1.0)
    """)


def test_apis_spelled_through_tensorflow_compat_v2_are_tensorflows_own():
    """bigbird's `import tensorflow.compat.v2 as tf`: `tf.compat.v1.py_func(numpy_masking, ...)`
    is TensorFlow's py_func (the same object, TF 2.21), so its callee runs as Python on every
    element and draws anew; and the rest spelled that way is TensorFlow's too: the dataset
    `tf.data.Dataset.from_tensor_slices(...)` makes traces the function it maps, `@tf.function`
    stages."""
    assert_marked("""
        import numpy as np
        import tensorflow.compat.v2 as tf

        def builder(files, vocab_size):
            def do_masking(example):
                return tf.compat.v1.py_func(numpy_masking, [example], tf.int64, stateful=False)

            def numpy_masking(tokens):
                print(tokens)
                return np.random.randint(101, vocab_size, 3)

            def decode(record):
                print(record)  # STG101
                return record

            d = tf.data.Dataset.from_tensor_slices(files).map(decode)
            return d.map(do_masking, num_parallel_calls=tf.data.experimental.AUTOTUNE)

        @tf.function
        def noisy(x):
            return x + np.random.rand()  # STG104

        noisy(tf.constant(1.0))
        noisy(tf.constant(2.0))
    """)


def test_a_closure_slot_filled_under_a_not_guard_is_lazy_creation_not_a_lost_update():
    """sonnet's conformance test: `if not mod[0]: mod[0] = module_fn()` in a tf.function makes the
    module on the first trace; later traces and eager calls find the slot filled (TF 2.21,
    tests/runtime/test_tf_fresh_facts.py), so skipping the store loses nothing. The twin: a
    slot of the function's own parameter is tested per call, and the store into it is lost."""
    assert_tiers("""
        import tensorflow as tf

        def run(module_fn, x):
            mod = [None]

            @tf.function
            def f():
                if not mod[0]:
                    mod[0] = module_fn()
                return mod[0](x)

            return f()

        @tf.function
        def g(holder, module_fn, x):
            if not holder[0]:
                holder[0] = module_fn()  # preview STG102
            return x
    """)


def test_a_generator_given_to_from_generator_is_python_not_traced():
    """init2winit's fastmri loader (fifth audit, half O): `_h5_to_examples` is handed to
    `tf.data.Dataset.from_generator` inside a traced `interleave` function; TF runs it as Python
    on every pass (TF 2.21, tests/runtime/test_tf_fresh_facts.py), so its clock read is fresh
    each time. The twin: the same clock read in the traced interleave function is baked in."""
    assert_marked("""
        import datetime
        import tensorflow as tf

        def examples(path):
            print("reading", path, datetime.datetime.now())
            yield 1.0

        def per_file(path):
            stamp = datetime.datetime.now().timestamp()  # STG104
            ds = tf.data.Dataset.from_generator(
                examples, args=(path,), output_signature=tf.TensorSpec((), tf.float32))
            return ds.map(lambda x: x + stamp)

        def load(files):
            return tf.data.Dataset.from_tensor_slices(files).interleave(per_file)
    """)


def test_an_attrs_instance_evolved_in_the_call_is_the_calls_own():
    """google-research/federated's `server_computation` (fourth audit, fix-from half M):
    `s = attr.evolve(s, counters=collections.OrderedDict(s.counters))` makes a new instance with a
    new dict, so `s.counters[k] += v` and `s.weights = ...` write into the call's own objects, which
    it returns. `attr.evolve` copies shallowly: without the `counters=` copy, `s.counters[k] = ...`
    writes into the caller's dict (TF 2.21 refuses it as a change to the Function's input;
    tests/runtime/test_tf_fresh_facts.py)."""
    assert_tiers("""
        import collections
        import attr
        import tensorflow as tf

        @tf.function
        def server_update(server_state, counts, weights):
            server_state = attr.evolve(server_state, counters=collections.OrderedDict(server_state.counters))
            for k, v in counts.items():
                server_state.counters[k] += v
            server_state.counters["num_rounds"] += 1
            server_state.weights = tf.identity(weights)
            return server_state

        @tf.function
        def shallow_update(server_state, weights):
            server_state = attr.evolve(server_state)
            server_state.weights = tf.identity(weights)
            server_state.counters["num_rounds"] += 1  # STG102
            return server_state
    """)


def test_train_step_of_a_model_compiled_with_run_eagerly_runs_as_python():
    """model-remediation's min_diff_model_test (fourth audit, fix-from half M): a test compiles its
    model with `run_eagerly=True` to count `train_step` calls; `fit` then calls `train_step` as
    Python once per batch (TF 2.21 / Keras 3, tests/runtime/test_tf_fresh_facts.py), so the
    counter is right. The twin: the same class trained without `run_eagerly` traces it."""
    assert_marked("""
        import tensorflow as tf

        def test_counts(dataset):
            class Counting(tf.keras.Model):
                def __init__(self):
                    super().__init__()
                    self.train_step_cnt = 0

                def train_step(self, data):
                    self.train_step_cnt += 1
                    return super().train_step(data)

            model = Counting()
            model.compile(loss="mse", optimizer="adam", run_eagerly=True)
            model.fit(dataset)
            assert model.train_step_cnt == 10

        def test_traced(dataset):
            class Counting(tf.keras.Model):
                def __init__(self):
                    super().__init__()
                    self.train_step_cnt = 0

                def train_step(self, data):
                    self.train_step_cnt += 1  # STG102
                    return super().train_step(data)

            model = Counting()
            model.compile(loss="mse", optimizer="adam")
            model.fit(dataset)
    """)


def test_unpacking_a_list_of_tensors_a_python_op_or_decode_csv_returns():
    """TensorFlow-Examples' load_data notebook and tensorlayer's distributed Inception example
    (fourth audit, fix-from half M): `tf.io.decode_csv(line, defaults)` returns a Python list, one
    tensor per record default, and `tf.numpy_function` / `tf.py_function` / `tf.compat.v1.py_func`
    with a list or tuple `Tout` a list, one tensor per dtype (TF 2.21,
    tests/runtime/test_tf_fresh_facts.py): unpacking them is plain Python. The twin: a single
    `Tout` dtype gives one tensor, and unpacking it iterates a tensor. (STG602 is preview under
    TensorFlow.)"""
    assert_marked("""
        import numpy as np
        import tensorflow as tf

        def parse(line):
            name, count = tf.io.decode_csv(line, [[""], [0]])
            x, n = tf.numpy_function(lambda v: (np.float32(v), np.int32(1)), [count], [tf.float32, tf.int32])
            y, m = tf.compat.v1.py_func(lambda v: (v, v), [x], Tout=(tf.float32, tf.float32))
            return name, x + y, n + m

        def pairs(line):
            a, b = tf.compat.v1.py_func(lambda v: v, [line], tf.float32)  # STG602
            return a + b

        ds = tf.data.TextLineDataset("a.csv").map(parse).map(pairs)
    """, preview=True)
