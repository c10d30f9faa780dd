"""The facts behind issue 23's third fresh TensorFlow audit (tests/rules/test_tf_fresh_audit.py),
observed with the real TensorFlow 2.21."""

from __future__ import annotations

import pytest

tf = pytest.importorskip("tensorflow")


def test_effects_behind_a_memo_guard_run_once_per_key_traced_or_eager():
    """`context.first_call_guard` (a memo test): `if key in cache: return cache[key]` in a
    function that fills `cache[key]` runs its body once per key, eagerly as under `tf.function`,
    where a later trace (another input signature) finds the entry too."""
    for staged in (False, True):
        cache, built = {}, []

        def get_plugin(path, cache=cache, built=built):
            if path in cache:
                return cache[path]
            built.append(path)  # the compile-once effect (a print, a file written)
            cache[path] = len(path)
            return cache[path]

        def step(x):
            return x + get_plugin("op.cu")

        fn = tf.function(step) if staged else step
        for x in (tf.constant(1), tf.constant(2), tf.constant([1.0, 2.0])):
            fn(x)
        assert built == ["op.cu"], staged


def test_a_copy_made_in_a_traced_function_leaves_the_callers_dict_alone():
    """`analysis.objects._rebound_to_copy`: `obs = obs.copy()` in a traced function makes a new
    dict; the caller's keeps its eager value. Writing into the argument itself is refused by
    TF 2.21 ("should not modify its Python input arguments. Modifying a copy is allowed")."""
    @tf.function
    def preprocess(obs):
        obs = obs.copy()
        obs["image"] = tf.cast(obs["image"], tf.float32) / 255.0
        return obs["image"]

    @tf.function
    def preprocess_in_place(obs):
        obs["image"] = tf.cast(obs["image"], tf.float32) / 255.0
        return obs["image"]

    obs = {"image": tf.constant([255])}
    assert float(preprocess(obs)[0]) == 1.0
    assert obs["image"].dtype == tf.int32 and int(obs["image"][0]) == 255
    with pytest.raises(ValueError, match="should not modify its Python input arguments"):
        preprocess_in_place(obs)


def test_the_local_devices_and_build_paths_are_python_values_in_a_traced_function():
    """`frameworks.tensorflow` non-tensor calls: `device_lib.list_local_devices()` is a Python
    list of `DeviceAttributes` protos and `tf.sysconfig.get_include()` a str, also while tracing
    (a comprehension over them is plain Python)."""
    from tensorflow.python.client import device_lib

    seen = []

    @tf.function
    def step(x):
        cpus = [d for d in device_lib.list_local_devices() if d.device_type == "CPU"]
        seen.append((type(cpus), type(tf.sysconfig.get_include())))
        return x + len(cpus)

    assert int(step(tf.constant(0))) >= 1
    assert seen == [(list, str)]


def test_a_write_before_the_objects_first_call_is_seen_and_one_after_it_is_not():
    """`analysis.order.set_before_first_call`: a method called on a just-constructed object sets
    the attribute before the object's `tf.function` first traces, so the trace reads it; the
    same method called after a call is the stale attribute STG302 reports (the graph keeps the
    old value)."""
    class Estimator(tf.Module):
        def __init__(self):
            self.scale = 1.0

        def prepare(self, scale):
            self.scale = scale

        @tf.function
        def train_step(self, x):
            return x * self.scale

    x = tf.constant(2.0)
    estimator = Estimator()
    estimator.prepare(3.0)
    assert float(estimator.train_step(x)) == 6.0
    estimator.prepare(5.0)
    assert float(estimator.train_step(x)) == 6.0  # reuses the trace: the old scale


def test_a_keras_layer_called_eagerly_sees_a_setter_a_function_does_not():
    """`analysis.order.called_between_calls` (STG302): a setter called between two calls of a
    `tf.function` on the same object is not seen by the second call (the trace is reused); the
    same setter between two eager calls of a Keras layer is seen, as `call` runs as Python each
    time: no Function object exists to hold a trace."""
    import keras

    class Scaler(keras.layers.Layer):
        def __init__(self):
            super().__init__()
            self.factor = 1.0

        def set_factor(self, factor):
            self.factor = factor

        def call(self, x):
            return x * self.factor

    x = tf.constant(2.0)
    layer = Scaler()
    assert float(layer(x)) == 2.0
    layer.set_factor(3.0)
    assert float(layer(x)) == 6.0  # eager: the new factor

    step = tf.function(lambda v: layer(v))
    assert float(step(x)) == 6.0
    layer.set_factor(5.0)
    assert float(step(x)) == 6.0  # the Function reuses its trace: the old factor


def test_tensorflow_compat_v2_is_tensorflow_and_a_py_func_callee_runs_per_element():
    """`frameworks.TF_SAME_MODULE_PREFIXES`: under `import tensorflow.compat.v2 as tf` every API is
    TensorFlow's own (`tf.compat.v1.py_func`, `tf.function`), so the callee of its py_func runs as
    Python for every element of a mapped dataset: a NumPy draw there is new each time."""
    import numpy as np
    import tensorflow.compat.v2 as tf2

    assert tf2.compat.v1.py_func is tf.compat.v1.py_func
    assert tf2.function is tf.function and tf2.data.Dataset is tf.data.Dataset
    calls = []

    def numpy_masking(x):
        calls.append(int(x))
        return np.int64(np.random.randint(1 << 30))

    ds = tf2.data.Dataset.range(6).map(
        lambda x: tf2.compat.v1.py_func(numpy_masking, [x], tf2.int64, stateful=False))
    draws = [int(v) for v in ds]
    assert sorted(calls) == [0, 1, 2, 3, 4, 5]  # once per element (in any order: stateful=False)
    assert len(set(draws)) > 1


def test_a_closure_slot_filled_under_a_not_guard_is_filled_once_traced_or_eager():
    """`context.first_call_guard` on `if not mod[0]: mod[0] = make()` (sonnet's conformance test):
    the first trace fills the slot, later traces (another input signature) and eager calls find
    it filled and skip the store, so the object is made once either way and nothing is lost."""
    for staged in (False, True):
        mod, made = [None], []

        def make():
            made.append(1)
            return lambda x: x * 2

        def f(x):
            if not mod[0]:
                mod[0] = make()
            return mod[0](x)

        fn = tf.function(f) if staged else f
        results = [float(tf.reduce_sum(fn(x))) for x in (tf.constant(1.0), tf.constant([1.0, 2.0]), tf.constant(3.0))]
        assert results == [2.0, 6.0, 6.0]
        assert made == [1], staged


def test_a_generator_given_to_from_generator_runs_as_python_on_every_pass():
    """`tf.data.Dataset.from_generator(gen, ...)` is an eager escape (frameworks `eager_escapes`):
    `gen` runs as Python on each pass over the dataset, also when the dataset is made inside a
    traced `interleave` function (init2winit's fastmri loader), so a draw or a clock read in it
    is new each time, never baked into a trace."""
    import itertools

    counter = itertools.count()

    def examples(path):
        yield float(next(counter))

    def per_file(path):
        return tf.data.Dataset.from_generator(examples, args=(path,),
                                              output_signature=tf.TensorSpec((), tf.float32))

    ds = tf.data.Dataset.from_tensor_slices(["a", "b"]).interleave(per_file, cycle_length=1)
    first, second = [float(v) for v in ds], [float(v) for v in ds]
    assert first == [0.0, 1.0] and second == [2.0, 3.0]


def test_attr_evolve_is_a_new_instance_sharing_what_no_keyword_replaces():
    """`analysis.objects._evolved_owns`: `attr.evolve(s, counters=OrderedDict(s.counters))` in a
    traced function is a new instance with a new dict; writes into either leave the caller's
    state alone. `attr.evolve(s)` alone shares `s.counters`: TF 2.21 refuses the write into it."""
    import collections

    attr = pytest.importorskip("attr")

    @attr.s(eq=False)
    class State:
        counters = attr.ib()
        weights = attr.ib()

    @tf.function
    def update(s):
        s = attr.evolve(s, counters=collections.OrderedDict(s.counters))
        s.counters["n"] += 1
        s.weights = s.weights * 2.0
        return s

    @tf.function
    def shallow(s):
        s = attr.evolve(s)
        s.counters["n"] += 1
        return s

    s = State(counters=collections.OrderedDict(n=tf.constant(0)), weights=tf.constant(1.0))
    out = update(s)
    assert int(out.counters["n"]) == 1 and float(out.weights) == 2.0
    assert int(s.counters["n"]) == 0 and float(s.weights) == 1.0
    with pytest.raises(ValueError, match="should not modify its Python input arguments"):
        shallow(s)


def test_compile_run_eagerly_runs_train_step_as_python_once_per_batch():
    """`frameworks.KERAS_EAGER_COMPILE`: after `compile(..., run_eagerly=True)`, `fit` calls
    `train_step` as Python once per batch (a counter in it reads 10 after 10 batches); compiled
    without it, `fit` traces `train_step` and the counter moves only per trace."""
    import numpy as np

    class Counting(tf.keras.Model):
        def __init__(self):
            super().__init__()
            self.dense = tf.keras.layers.Dense(1)
            self.calls = 0

        def call(self, x):
            return self.dense(x)

        def train_step(self, data):
            self.calls += 1
            return super().train_step(data)

    x, y = np.ones((10, 2), "float32"), np.ones((10, 1), "float32")
    counts = {}
    for eager in (True, False):
        model = Counting()
        model.compile(optimizer="sgd", loss="mse", run_eagerly=eager)
        model.fit(x, y, batch_size=1, epochs=1, verbose=0)
        counts[eager] = model.calls
    assert counts[True] == 10
    assert counts[False] < 10


def test_decode_csv_and_python_ops_with_a_list_tout_return_python_lists():
    """`frameworks.MULTI_OUTPUT_OPS` (decode_csv) and `LIST_TOUT_OPS`: in a traced function
    `tf.io.decode_csv` returns a list, one tensor per record default, and `tf.numpy_function`,
    `tf.py_function`, `tf.compat.v1.py_func` with a list or tuple `Tout` a list; one dtype as
    `Tout` gives one tensor."""
    import numpy as np

    kinds = {}

    @tf.function
    def parse(line):
        kinds["decode_csv"] = type(tf.io.decode_csv(line, [[""], [0]]))
        kinds["numpy_function"] = type(tf.numpy_function(lambda v: (v, np.int32(1)), [1.0], [tf.float32, tf.int32]))
        kinds["py_function"] = type(tf.py_function(lambda v: (v, v), [1.0], (tf.float32, tf.float32)))
        kinds["py_func"] = type(tf.compat.v1.py_func(lambda v: (v, v), [1.0], [tf.float32, tf.float32]))
        kinds["single"] = type(tf.compat.v1.py_func(lambda v: v, [1.0], tf.float32))
        name, count = tf.io.decode_csv(line, [[""], [0]])
        return count

    assert int(parse(tf.constant("a,3"))) == 3
    assert {k: v for k, v in kinds.items() if k != "single"} == dict.fromkeys(
        ("decode_csv", "numpy_function", "py_function", "py_func"), list)
    assert kinds["single"] is not list and issubclass(kinds["single"], tf.Tensor)


def test_the_name_scope_is_a_python_string_while_tracing():
    """`tf.get_current_name_scope()` and `tf.__internal__.get_name_scope()` give a `str` under
    tf.function too: storing one on an object leaks no tensor (STG201 stays silent)."""
    seen = []

    @tf.function
    def f(x):
        with tf.name_scope("block"):
            seen.append((tf.get_current_name_scope(), tf.__internal__.get_name_scope()))
        return x

    f(tf.constant(1.0))
    assert seen == [("block", "block")]


def test_tf1_logging_and_collections_make_no_op_and_a_smart_cond_keeps_its_branch_updates():
    """`frameworks.tensorflow` non-tensor calls and `is_stateful_op` (STG603): in a traced function
    `tf.compat.v1.logging.info` (TF1's `tf.logging`) and the collection adds return None and
    `get_collection` a Python list, so no op exists to prune; an unused `smart_cond` whose branch
    updates a variable still runs the update on every call, for a tensor and a Python predicate."""
    from tensorflow.python.framework import smart_cond

    got = {}
    v = tf.Variable(0.0)

    @tf.function
    def f(x, flag):
        got["log"] = tf.compat.v1.logging.info("x %s", x)
        got["add"] = tf.compat.v1.add_to_collection("k", x)
        got["adds"] = tf.compat.v1.add_to_collections(["k"], x)
        got["get"] = type(tf.compat.v1.get_collection("k"))
        smart_cond.smart_cond(flag, lambda: v.assign_add(1.0), lambda: v.assign_add(0.0))
        tf.__internal__.smart_cond.smart_cond(flag, lambda: v.assign_add(1.0), lambda: v.assign_add(0.0))
        return x

    f(tf.constant(1.0), tf.constant(True))
    assert got == {"log": None, "add": None, "adds": None, "get": list}
    assert v.numpy() == 2.0
    f(tf.constant(1.0), tf.constant(True))
    f(tf.constant(1.0), True)
    assert v.numpy() == 6.0
    assert not hasattr(tf, "logging")  # TF1 code: `tf.logging` there is `tf.compat.v1.logging`


def test_a_factory_makes_a_new_function_per_call_and_a_comprehension_reuses_one():
    """`analysis.repetition` (`FunctionFacts.returns_function`, `CallSite.made_by`): a factory
    returning its local `@tf.function def` makes a new Function on each call, which traces
    afresh; calls through one binding of it, in a comprehension as in a `for` loop, run its one
    trace again, with the draw that trace froze."""
    import numpy as np

    traces = []

    def make_step():
        @tf.function
        def step(x):
            traces.append(1)
            return x + np.random.normal()
        return step

    step = make_step()
    same = [float(step(tf.constant(0.0))) for _ in range(3)]
    assert len(traces) == 1 and len(set(same)) == 1
    traces.clear()
    fresh = [float(make_step()(tf.constant(0.0))) for _ in range(3)]
    assert len(traces) == 3 and len(set(fresh)) == 3


def test_numpy_raises_under_a_trace_on_a_tensor_and_a_variable_so_what_follows_is_not_traced():
    """`frameworks.TRACE_RAISING_METHODS` (the eighth audit's Monodepth2 debug block): under a
    trace `.numpy()` raises on a symbolic tensor and on a variable, before the statements after
    it run; eagerly it returns the value and they run. NumPy arrays have no `.numpy()`."""
    import numpy as np

    v = tf.Variable(1.0)
    for receiver, error in ((lambda x: x[0], AttributeError), (lambda x: v, NotImplementedError)):
        printed = []

        def debug(x, receiver=receiver, printed=printed):
            receiver(x).numpy()
            printed.append("after")
            return x

        debug(tf.constant([1.0]))
        assert printed == ["after"]
        with pytest.raises(error):
            tf.function(debug)(tf.constant([2.0]))
        assert printed == ["after"]
    assert not hasattr(np.zeros(2), "numpy")


def test_get_weights_returns_numpy_eagerly_and_raises_in_a_tf_function():
    """`frameworks.KERAS_EAGER_LAYER_METHODS`: `Layer.get_weights()` reads each variable's value
    as a NumPy array; in a `tf.function` Keras 3 raises NotImplementedError (numpy() is only
    available when eager execution is enabled) and tf_keras RuntimeError (Cannot get value inside
    Tensorflow graph function). A Keras `Loss` subclass's `call` is traced by `fit` (ludwig's
    loss reading `decoder_obj.get_weights()` failed there)."""
    import numpy as np
    import keras

    from stagelint.frameworks import KERAS_EAGER_LAYER_METHODS

    layer = keras.layers.Dense(2)
    layer.build((None, 3))
    assert isinstance(layer.get_weights()[0], np.ndarray)
    with pytest.raises(NotImplementedError, match="only available when eager execution"):
        tf.function(lambda x: x + layer.get_weights()[0][0])(tf.ones(2))
    assert "NotImplementedError" in KERAS_EAGER_LAYER_METHODS["get_weights"][0]
    tf_keras = pytest.importorskip("tf_keras")
    legacy = tf_keras.layers.Dense(2)
    legacy.build((None, 3))
    with pytest.raises(RuntimeError, match="Cannot get value inside Tensorflow graph function"):
        tf.function(lambda x: x + legacy.get_weights()[0][0])(tf.ones(2))
    assert "RuntimeError" in KERAS_EAGER_LAYER_METHODS["get_weights"][1]

    eager = []

    class Loss(keras.losses.Loss):
        def call(self, y_true, y_pred):
            eager.append(tf.executing_eagerly())
            return tf.reduce_mean((y_true - y_pred) ** 2)

    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1)])
    model.compile(optimizer="sgd", loss=Loss())
    model.fit(np.ones((8, 3)), np.ones((8, 1)), epochs=2, batch_size=4, verbose=0)
    assert eager == [False]  # traced once, under fit's tf.function
