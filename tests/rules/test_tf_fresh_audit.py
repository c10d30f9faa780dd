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


# The tenth TensorFlow audit's read halves (AK, AL; bench/fresh_verdicts_AL_after.csv) ------------


def test_a_loop_whose_body_computes_with_numpy_alone_unrolls_no_op():
    """flowpm's `fftk`: a `for` over the axes of a Python shape list whose body is NumPy only
    (`np.fft.fftfreq`, `kd *= 2 * np.pi`, a slice, `kd.reshape`, `kd.astype`) adds no op to the
    graph however many axes it runs over (tests/runtime/test_tf_loop_facts.py). Its twin
    multiplies by the traced tensor: NumPy's in-place operator defers to it, `kd` is a tensor and
    the body is graph work per axis."""
    assert_marked("""
        import numpy as np
        import tensorflow as tf

        def fftk(shape):
            k = []
            for d in range(len(shape)):
                kd = np.fft.fftfreq(shape[d])
                kd *= 2 * np.pi
                kdshape = np.ones(len(shape), dtype="int")
                kd = kd[: shape[d] // 2 + 1]
                kdshape[d] = len(kd)
                kd = kd.reshape(kdshape)
                k.append(kd.astype(np.float32))
            return k

        def scaled(shape, x):
            k = []
            for d in range(len(shape)):  # STG503
                kd = np.fft.fftfreq(shape[d])
                kd *= x
                k.append(tf.reshape(kd, [-1, 1]))
            return k

        @tf.function
        def step(x):
            ks = fftk([4, 4, 4])
            s = scaled([4, 4, 4], x)
            return x + ks[0][0, 0, 0]

        step(tf.constant(1.0, tf.float64))
    """)


def test_an_array_updated_in_place_by_a_number_stays_an_array_by_a_tensor_it_does_not():
    """The value model reads `a *= 2 * np.pi` of a NumPy array as a NumPy array, and `a *= x` of a
    tensor `x` as a rebinding to what the tensor gives (the load after it sees that binding):
    `a.reshape` is NumPy's after the first, graph work after the second."""
    assert_marked("""
        import numpy as np
        import tensorflow as tf

        def numpy_only(shape):
            out = []
            for n in shape:
                a = np.ones(n)
                a *= 2 * np.pi
                out.append(a.reshape([-1, 1]))
            return out

        def with_tensor(shape, x):
            out = []
            for n in shape:  # STG503
                a = np.ones(n)
                a *= x
                out.append(a.reshape([-1, 1]))
            return out

        @tf.function
        def step(x):
            return numpy_only([2, 3]), with_tensor([2, 3], x)

        step(tf.constant(1.0, tf.float64))
    """)


def test_a_loop_applying_a_container_of_layers_by_index_is_the_network():
    """SSD-Tensorflow2's `indexable_call`: `for l in range(start, end): x = self.layers[l](x)`
    applies one layer of a Python list per iteration, as `for layer in self.layers[start:end]`
    does: the unrolled copies are the network, and no graph loop can pick a Python object by a
    tensor index (TypeError; tests/runtime/test_tf_loop_facts.py). Its twin uses the index as a
    number too (`* l`): per-iteration graph work that changes with `start`."""
    assert_marked("""
        import tensorflow as tf

        class Stack(tf.keras.Model):
            def __init__(self):
                super().__init__()
                self.blocks = [tf.keras.layers.Dense(4) for _ in range(6)]

            def run(self, x, start=0, end=None):
                if end is None:
                    end = len(self.blocks)
                for l in range(start, end):
                    x = self.blocks[l](x)
                return x

            def scale(self, x, start=0, end=6):
                for l in range(start, end):  # STG503
                    x = self.blocks[l](x) * l
                return x

            def call(self, x):
                outs = []
                for i in range(3):
                    outs.append(self.run(x, start=i, end=i + 1))
                    outs.append(self.scale(x, start=i, end=i + 1))
                return outs

        model = Stack()
        model.compile("sgd", "mse")
        model.fit(tf.ones([2, 4]), tf.ones([2, 4]))
    """)


def test_a_frozen_draw_bound_to_a_name_nothing_reads_is_no_finding():
    """The GAN collection's VAE: `batch_z = np.random.uniform(...).astype(np.float32)` in the
    traced `train_one_step`, never read (the encoder samples with `tf.random.normal`): the one
    value the trace keeps reaches no result (tests/runtime/test_tf_loop_facts.py). Its twin
    reads the draw."""
    assert_marked("""
        import numpy as np
        import tensorflow as tf

        class VAE:
            def __init__(self):
                self.batch_size, self.z_dim = 4, 2

            @tf.function
            def train_one_step(self, x):
                batch_z = np.random.uniform(-1, 1, [self.batch_size, self.z_dim]).astype(np.float32)
                eps = tf.random.normal(tf.shape(x))
                return x + eps

            @tf.function
            def sample(self, x):
                batch_z = np.random.uniform(-1, 1, [self.batch_size, self.z_dim]).astype(np.float32)  # STG104
                return x + batch_z

        vae = VAE()
        for _ in range(3):
            vae.train_one_step(tf.ones([4, 2]))
            vae.sample(tf.ones([4, 2]))
    """)


def test_a_class_name_bound_twice_the_functional_build_makes_the_class_bound_then():
    """Keyird's copy of the functional-API guide: two module-level classes named `CustomRNN`;
    the first is made and called once, directly on `tf.zeros` (its `call` runs as Python,
    tests/runtime/test_tf_keras_tracing_facts.py), and the functional model the module builds
    after the second definition makes the second. No module-level build runs while the name is
    bound to the first class: the module's `keras.Input` shows nothing for it, and its print is a
    preview finding (a Keras `call` nothing shows traced). Its twin builds a functional model
    while the first class is bound."""
    assert_tiers("""
        import tensorflow as tf
        from tensorflow import keras
        from tensorflow.keras import layers

        inputs = keras.Input((None, 4))
        model = keras.Model(inputs, layers.Dense(1)(inputs))

        class CustomRNN(layers.Layer):
            def call(self, inputs):
                print(inputs.shape)  # preview STG101
                return inputs

        rnn_model = CustomRNN()
        _ = rnn_model(tf.zeros((1, 10, 5)))

        class CustomRNN(layers.Layer):
            def call(self, inputs):
                return inputs * 2.0

        inputs = keras.Input(batch_shape=(16, 10, 5))
        outputs = CustomRNN()(inputs)
        model = keras.Model(inputs, outputs)
    """)
    assert_tiers("""
        import tensorflow as tf
        from tensorflow import keras
        from tensorflow.keras import layers

        class CustomRNN(layers.Layer):
            def call(self, inputs):
                print(inputs.shape)  # STG101
                return inputs

        inputs = keras.Input((10, 5))
        model = keras.Model(inputs, CustomRNN()(inputs))

        class CustomRNN(layers.Layer):
            def call(self, inputs):
                return inputs * 2.0

        inputs = keras.Input(batch_shape=(16, 10, 5))
        outputs = CustomRNN()(inputs)
        model = keras.Model(inputs, outputs)
    """)
