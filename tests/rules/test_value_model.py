"""Issue 11, points 1-5: the analysis reads code the way Python runs it.

Each class of misreading has a positive case (a pitfall the model must see) and its negative
twin (the same shape, made harmless), also across functions and modules where the class has
such a form.
"""

from __future__ import annotations

from tests.rules.rulecases import assert_marked, assert_project_marked, assert_tiers


# 1. Definitions by location ---------------------------------------------------------------------


def test_later_redefinition_does_not_hide_the_earlier_function():
    assert_marked("""
        import tensorflow as tf

        @tf.function
        def f(x):
            print("traced", x)  # STG101
            return x

        f(tf.constant(1))

        def f(x):
            print("eager", x)
            return x

        f(2)
    """)


def test_call_binds_to_the_definition_that_reaches_it():
    # `step` calls the first `helper` (the one defined when `step` runs); the second is eager.
    assert_marked("""
        import tensorflow as tf

        def helper(x):
            print("tracing", x)  # STG101
            return x

        @tf.function
        def step(x):
            return helper(x)

        step(tf.constant(1))

        def helper(x):
            print("eager", x)
            return x

        helper(3)
    """)


def test_redefinition_negative_twin_later_plain_def_is_not_staged():
    # The staged one is the later definition: the earlier plain def is not staged.
    assert_marked("""
        import tensorflow as tf

        def f(x):
            print("eager", x)
            return x

        f(1)

        @tf.function
        def f(x):
            tf.print(x)
            return x

        f(tf.constant(1))
    """)


def test_dataset_function_binds_to_the_definition_that_reaches_it():
    # `ds.map(parse)` traces the `parse` defined when `.map()` runs; the later one is eager.
    assert_marked("""
        import tensorflow as tf

        def parse(x):
            print("tracing", x)  # STG101
            return x

        ds = tf.data.Dataset.range(3).map(parse)

        def parse(x):
            print("eager", x)
            return x

        parse(3)
    """)


def test_dataset_function_negative_twin_later_definition_is_mapped():
    assert_marked("""
        import tensorflow as tf

        def parse(x):
            print("eager", x)
            return x

        parse(3)

        def parse(x):
            print("tracing", x)  # STG101
            return x

        ds = tf.data.Dataset.range(3).map(parse)
    """)


def test_redefined_class_keeps_the_earlier_methods():
    assert_marked("""
        import tensorflow as tf

        class Model(tf.Module):
            def __init__(self):
                self.v = tf.Variable(1.0)

            @tf.function
            def __call__(self, x):
                print("traced")  # STG101
                return x * self.v

        class Model(tf.Module):
            def __init__(self):
                self.v = tf.Variable(1.0)

            def __call__(self, x):
                print("eager")
                return x * self.v
    """)


def test_redefinition_across_modules_imports_the_last_definition(tmp_path):
    # `from pkg.lib import f` after the module ran binds the last `f`.
    assert_project_marked(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/lib.py": """
            def f(x):
                print("first")
                return x

            def f(x):
                print("second", x)  # STG101
                return x
        """,
        "pkg/main.py": """
            import tensorflow as tf
            from pkg.lib import f

            @tf.function
            def step(x):
                return f(x)
        """,
    })


# 4. Guards ----------------------------------------------------------------------------------------


def test_not_parameter_is_no_first_call_guard():
    # `if not training:` decides per call: the store under it is not set-once.
    assert_marked("""
        import tensorflow as tf

        class Model(tf.Module):
            def __init__(self):
                self.steps = 0

            @tf.function
            def __call__(self, x, training=False):
                if not training:
                    self.steps += 1  # STG102
                return x
    """)


def test_not_parameter_is_no_first_call_guard_for_helpers():
    # the same through a helper the Function calls
    assert_marked("""
        import tensorflow as tf

        history = []

        def record(x, quiet=False):
            if not quiet:
                history.append(1)  # STG102
            return x

        @tf.function
        def step(x):
            return record(x)
    """)


def test_set_once_guard_that_only_creates_variables_is_fine():
    assert_marked("""
        import tensorflow as tf

        class Model(tf.Module):
            def __init__(self):
                self.v = None
                self.built_once = False

            @tf.function
            def __call__(self, x):
                if self.v is None:
                    self.v = tf.Variable(tf.zeros_like(x))
                if not self.built_once:
                    self.built_once = True
                return x + self.v
    """)


def test_set_once_guard_that_runs_ops_and_flips_a_flag():
    assert_tiers("""
        import tensorflow as tf

        class Model(tf.Module):
            def __init__(self):
                self.v = tf.Variable(0)
                self.started = False

            @tf.function
            def __call__(self, x):
                if not self.started:  # STG105
                    self.v.assign(10)
                    self.started = True  # preview STG102
                return x + self.v
    """)


def test_set_once_guard_with_ops_lifted_by_init_scope_is_fine():
    assert_marked("""
        import tensorflow as tf

        class Model(tf.Module):
            def __init__(self):
                self.v = tf.Variable(0)
                self.started = False

            @tf.function
            def __call__(self, x):
                if not self.started:
                    with tf.init_scope():
                        self.v.assign(10)
                        self.started = True
                return x + self.v
    """)


# 5. Stores ----------------------------------------------------------------------------------------


def test_store_on_self_from_a_closure_nested_in_call():
    assert_marked("""
        import tensorflow as tf

        class Attention(tf.keras.layers.Layer):
            def call(self, q):
                def keep(t):
                    self.last_scores = t  # STG201
                scores = tf.matmul(q, q, transpose_b=True)
                keep(scores)
                return scores

        model = tf.keras.Sequential([Attention()])
    """)


def test_closure_nested_in_call_storing_into_its_own_local_is_fine():
    assert_marked("""
        import tensorflow as tf

        class Attention(tf.keras.layers.Layer):
            def call(self, q):
                kept = {}
                def keep(t):
                    kept["scores"] = t
                scores = tf.matmul(q, q, transpose_b=True)
                keep(scores)
                return scores, kept["scores"]
    """)


def test_tensor_stored_into_a_container_passed_in_from_outside():
    assert_marked("""
        import tensorflow as tf

        cache = []

        def fill(acc, x):
            acc.append(x * 2)  # STG201

        @tf.function
        def step(x):
            fill(cache, tf.reduce_sum(x))
            fill(cache, "a Python value")
            return x
    """)


def test_container_passed_in_from_the_callers_own_local_is_fine():
    assert_marked("""
        import tensorflow as tf

        def fill(acc, x):
            acc.append(x * 2)

        @tf.function
        def step(x):
            parts = []
            fill(parts, x)
            return tf.add_n(parts)
    """)


def test_container_passed_in_across_modules(tmp_path):
    assert_project_marked(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/util.py": """
            def fill(acc, x):
                acc.append(x * 2)  # STG201

            def fill_local(acc, x):
                acc.append(x * 2)
        """,
        "pkg/main.py": """
            import tensorflow as tf
            from pkg.util import fill, fill_local

            seen = []

            @tf.function
            def step(x):
                fill(seen, tf.abs(x))
                parts = []
                fill_local(parts, tf.abs(x))
                return tf.add_n(parts)
        """,
    })


def test_tensor_into_a_nonlocal_is_a_leak():
    assert_marked("""
        import tensorflow as tf

        def make_step():
            last = None
            def body(x):
                nonlocal last
                last = tf.reduce_sum(x)  # STG201
                return x
            return tf.function(body)
    """)


def test_python_value_into_a_nonlocal_is_a_state_change():
    assert_marked("""
        import tensorflow as tf

        def make_step():
            calls = 0
            def body(x):
                nonlocal calls
                calls = calls + 1  # STG102
                return x
            return tf.function(body)
    """)


def test_same_line_same_code_whichever_files_are_checked(tmp_path):
    import os

    from stagelint.engine import check_paths
    from stagelint.rules.base import example_source

    files = {
        "pkg/__init__.py": "",
        "pkg/ops.py": """
            import tensorflow as tf

            history = []

            @tf.function
            def step(x):
                history.append(x)
                return x + 1

            class Scale(tf.keras.layers.Layer):
                def call(self, x):
                    self.seen = x
                    return x * 2

            model = tf.keras.Sequential([Scale()])
        """,
        "pkg/main.py": """
            import tensorflow as tf
            from pkg.ops import step, Scale

            step(tf.constant(1.0))
            Scale()(tf.ones([2]))
        """,
    }
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(example_source(text), encoding="utf-8")
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        alone = {(f.line, f.code) for f in check_paths(["pkg/ops.py"], jobs=1).findings}
        whole = {(f.line, f.code) for f in check_paths(["pkg"], jobs=1).findings if f.path.endswith("ops.py")}
    finally:
        os.chdir(cwd)
    # `step`'s argument: no call in ops.py shows what it is (main.py's tensor does not count for
    # a function its own module stages); `call`'s input is a tensor by Keras' contract.
    assert alone == whole == {(7, "STG102"), (12, "STG201")}


# 2. Ordered bindings ------------------------------------------------------------------------------


def test_global_rebound_before_the_function_is_defined_is_not_stale():
    assert_marked("""
        import tensorflow as tf

        strategy = tf.distribute.get_strategy()
        strategy = tf.distribute.get_strategy()

        @tf.function
        def step(x):
            return strategy.run(tf.abs, args=(x,))

        step(tf.constant(1.0))
        step(tf.constant(2.0))
    """)


def test_global_rebound_after_the_last_call_is_not_stale():
    assert_marked("""
        import tensorflow as tf

        g = tf.random.Generator.from_seed(1)
        items = []

        @tf.function
        def foo(x):
            return x + len(items)

        foo(tf.constant(1))
        items = [1, 2]
        g = None
    """)


def test_global_rebound_between_two_calls_is_stale():
    assert_marked("""
        import tensorflow as tf

        items = []

        @tf.function
        def foo(x):
            return x + len(items)  # STG301

        foo(tf.constant(1))
        items = [1, 2]
        foo(tf.constant(1))
    """)


def test_int_first_and_variable_later_is_judged_where_it_is_read():
    # the guide's buggy_add / variable_add: `foo` is a Python int while buggy_add runs
    assert_marked("""
        import tensorflow as tf

        @tf.function
        def buggy_add():
            return 1 + foo  # STG301

        foo = 1
        print(buggy_add())
        foo = 100
        print(buggy_add())

        foo = tf.Variable(1)

        @tf.function
        def variable_add():
            return 1 + foo

        print(variable_add())
        foo.assign(100)
        print(variable_add())
    """)


def test_variable_rebound_after_the_last_call_is_not_stale():
    assert_marked("""
        import tensorflow as tf

        g = tf.Variable(1.0)

        @tf.function
        def foo():
            return g * 2

        foo()
        g = tf.Variable(2.0)
    """)


def test_rebinding_between_calls_through_a_helper_that_runs_the_function():
    # interprocedural: the module calls `train`, which calls the Function reading `SCALE`
    assert_marked("""
        import tensorflow as tf

        SCALE = 1.0

        @tf.function
        def step(x):
            return x * SCALE  # STG301

        def train():
            return step(tf.constant(1.0))

        train()
        SCALE = 2.0
        train()
    """)


def test_rebinding_in_a_module_level_loop_with_calls_is_stale():
    assert_marked("""
        import tensorflow as tf

        @tf.function
        def f(x):
            return x * scale  # STG301

        for scale in (1.0, 2.0):
            f(tf.constant(1.0))
    """)


def test_concrete_function_traced_but_not_called_after_a_rebinding_is_not_stale():
    assert_marked("""
        import tensorflow as tf

        v = tf.Variable(3)

        @tf.function
        def f(x):
            return x * v

        traced = f.get_concrete_function(4)
        v = tf.Variable(4)
    """)


# 3. One abstract value per expression --------------------------------------------------------------


def test_results_of_calling_keras_objects_are_tensors():
    # a layer in an attribute, a model in a global, a loss object in a local
    assert_marked("""
        import logging
        import tensorflow as tf

        model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
        history = []

        class Block(tf.keras.layers.Layer):
            def __init__(self):
                super().__init__()
                self._bn = tf.keras.layers.BatchNormalization()

            def call(self, x):
                y = self._bn(x)
                self.last = y  # STG201
                return y

        model_of_blocks = tf.keras.Sequential([Block()])

        @tf.function
        def step(x):
            loss_fn = tf.keras.losses.MeanSquaredError()
            loss = loss_fn(x, model(x))
            logging.info("loss %s", loss)  # STG101
            history.append(model(x))  # STG201
            return loss
    """)


def test_python_values_from_keras_objects_negative_twin():
    # what a Keras object holds that is not a call result: configuration, not tensors
    assert_marked("""
        import logging
        import tensorflow as tf

        model = tf.keras.Sequential([tf.keras.layers.Dense(1)])

        @tf.function
        def step(x):
            logging.info("model %s, %d layers", model.name, len(model.layers))
            return model(x)
    """)


def test_project_function_that_returns_a_tensor():
    assert_marked("""
        import tensorflow as tf

        cache = []
        seen = []

        def scaled(x):
            return tf.abs(x) * 2

        def passthrough(x):
            return x

        def describe(x):
            return "shape %s" % (x.shape,)

        @tf.function
        def step(x):
            cache.append(scaled(x))  # STG201
            cache.append(passthrough(tf.ones([2])))  # STG201
            seen.append(describe(x))  # STG102
            return x
    """)


def test_project_function_returning_a_tensor_across_modules(tmp_path):
    assert_project_marked(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/ops.py": """
            import tensorflow as tf

            def scaled(x):
                return tf.abs(x) * 2

            def label(x):
                return "scaled"
        """,
        "pkg/main.py": """
            import logging
            import tensorflow as tf
            from pkg.ops import label, scaled

            @tf.function
            def step(x):
                logging.info("value %s", scaled(x))  # STG101
                logging.info("name %s", label(x))
                return x
        """,
    })


def test_multi_output_ops_unpack_in_python():
    assert_marked("""
        import tensorflow as tf

        @tf.function
        def load(contents, x):
            audio, rate = tf.audio.decode_wav(contents)
            pooled, argmax = tf.nn.max_pool_with_argmax(x, 2, 2, "VALID")
            values, index = tf.unique(tf.reshape(x, [-1]))
            first, second = tf.reduce_sum(x, axis=0)  # STG602
            return audio, rate, pooled, argmax, values, index, first, second
    """)


def test_dataset_elements_may_be_structures():
    assert_marked("""
        import tensorflow as tf

        dataset = tf.data.Dataset.from_tensors(([1.0], [1.0])).repeat(4)

        @tf.function
        def train_step(inputs):
            features, labels = inputs
            return labels - 0.3 * features

        for inputs in dataset:
            train_step(inputs)
    """)


def test_methods_of_open_files_are_python_io():
    assert_marked("""
        import tensorflow as tf

        log = open("log.txt", "a")

        class Writer(tf.Module):
            def __init__(self):
                self.out = open("out.txt", "w")

            @tf.function
            def __call__(self, x):
                self.out.write("called\\n")  # STG101
                return x

        @tf.function
        def step(x):
            log.write("step\\n")  # STG101
            return x
    """)


def test_file_like_methods_of_other_objects_are_not_io():
    assert_marked("""
        import io
        import tensorflow as tf

        class Buffer:
            def write(self, x):
                return x

        buffer = Buffer()

        @tf.function
        def step(x):
            buffer.write(x)
            return x
    """)


def test_python_log_under_a_tensor_if_fires_at_trace_time():
    assert_marked("""
        import logging
        import tensorflow as tf

        @tf.function
        def step(x, verbose=False):
            loss = tf.reduce_sum(x)
            if loss > 10:
                logging.warning("loss is diverging")  # STG101
            if verbose:
                logging.info("verbose mode")
            return loss
    """)


def test_unpacking_what_a_layer_or_a_tuple_returning_helper_gives_is_fine():
    assert_marked("""
        import tensorflow as tf

        def normalize(a, b):
            return a / 127.5 - 1, b / 127.5 - 1

        def total(a):
            return tf.reduce_sum(a)

        class Encoder(tf.keras.Model):
            def __init__(self):
                super().__init__()
                self.gru = tf.keras.layers.GRU(4, return_sequences=True, return_state=True)

            def call(self, x):
                output, state = self.gru(x)
                return output, state

        @tf.function
        def step(a, b):
            a, b = normalize(a, b)
            low, high = total(a)  # STG602
            return a, b, low, high
    """)


def test_global_written_by_a_function_called_between_two_calls_is_stale():
    assert_marked("""
        import tensorflow as tf

        x = None

        def reset():
            global x
            x = 2.0

        @tf.function
        def f(a):
            return a * x  # STG301

        x = 1.0
        f(tf.constant(1.0))
        reset()
        f(tf.constant(1.0))
    """)


def test_global_written_by_a_function_only_before_the_one_call_is_not_stale():
    # the guide's leaky_function / captures_leaked_tensor: written, then read by one call
    assert_marked("""
        import tensorflow as tf

        x = None
        items = []

        def fill():
            global x
            x = 2.0
            items.append(1)

        @tf.function
        def f(a):
            return a * x + len(items)

        fill()
        f(tf.constant(1.0))
    """)


def test_same_file_name_in_two_folders_does_not_collide(tmp_path):
    # a/ and b/ are script folders (no __init__.py): `model` is a different module in each
    assert_project_marked(tmp_path, {
        "a/model.py": """
            import tensorflow as tf

            @tf.function
            def step(x):
                print("a traced", x)  # STG101
                return x
        """,
        "a/train.py": """
            import tensorflow as tf
            from model import step

            for n in range(3):
                step(n)  # STG501
        """,
        "b/model.py": """
            import tensorflow as tf

            def shout(x):
                print("b traced", x)  # STG101

            @tf.function
            def other(x):
                shout(x)
                return x

            def step(x):
                print("eager", x)
                return x
        """,
        "b/train.py": """
            from model import step

            for n in range(3):
                step(n)
        """,
    })


def test_identity_tests_and_mixed_returns_are_python():
    # `x is not None` is Python even on a tensor; a helper that returns a tensor on one path and
    # a static value on another (`tf.get_static_value`) returns no known tensor
    assert_marked("""
        import logging
        import tensorflow as tf

        def static_value(pred):
            if tf.is_tensor(pred):
                return tf.get_static_value(pred)
            return pred

        @tf.function
        def step(x, weight=None):
            if weight is not None:
                logging.warning("weighted")
            value = static_value(x)
            if value in (0, 1):
                value = bool(value)
            return x
    """)


def test_keras_layer_result_rebound_then_unpacked_is_fine():
    assert_marked("""
        import tensorflow as tf

        class Encoder(tf.keras.layers.Layer):
            def __init__(self, layers, scores):
                super().__init__()
                self._dropout = tf.keras.layers.Dropout(0.1)
                self._layers = layers
                self._scores = scores

            def call(self, x):
                x = self._dropout(x)
                for layer in self._layers:
                    x = layer(x)
                    if self._scores:
                        x, scores = x
                return x
    """)


def test_the_binding_that_reaches_a_load_decides_its_value():
    # straight-line code: `x = parts` kills `x = tf.abs(a)` for the unpacking below it
    assert_marked("""
        import tensorflow as tf

        @tf.function
        def step(a, parts):
            x = tf.abs(a)
            y = x * 2
            x = parts
            first, second = x
            z = tf.abs(a)
            low, high = z  # STG602
            return y, first, second, low, high
    """)


def test_reaching_bindings_in_loops():
    # in a loop body, a binding before the load kills the earlier ones
    assert_marked("""
        import tensorflow as tf

        @tf.function
        def step(a, layers):
            x = tf.abs(a)
            for layer in layers:
                x = layer(x)
                first, second = x
            z = tf.abs(a)
            for layer in layers:
                low, high = z  # STG602
            return first, second, low, high
    """)


def test_get_or_create_idioms_create_once():
    # a bare `get_variable` depends on the variable store in effect: preview (test_stg402_certainty)
    assert_tiers("""
        import tensorflow as tf

        class Dense(tf.keras.layers.Layer):
            @tf.compat.v1.keras.utils.track_tf1_style_variables
            def call(self, x):
                w = tf.compat.v1.get_variable("w", shape=[3, 3])
                return tf.matmul(x, w)

        class Wrapped(tf.keras.layers.Layer):
            def call(self, x):
                model = tf.compat.v1.keras.utils.get_or_create_layer("model", self.build_model)
                return model(x)

            def build_model(self):
                return tf.keras.Sequential([tf.keras.layers.Dense(3)])

        class Plain(tf.keras.layers.Layer):
            def call(self, x):
                w = tf.compat.v1.get_variable("w", shape=[3, 3])  # preview STG402
                return tf.matmul(x, w)
    """)


def test_python_numbers_varying_per_call():
    # values computed from a loop variable, comprehension variables
    assert_marked("""
        import tensorflow as tf

        @tf.function
        def f(x, n):
            return x * n

        x = tf.constant(1.0)
        for i in range(3):
            scale = i * 2
            f(x, scale)  # STG501
        results = [f(x, k) for k in range(3)]  # STG501
    """)


def test_python_values_that_do_not_vary_negative_twin():
    assert_marked("""
        import tensorflow as tf

        @tf.function
        def f(x, n):
            return x * n

        x = tf.constant(1.0)
        base = 4
        for i in range(3):
            scale = base * 2
            f(x, scale)
        results = [f(x, 2) for name in ("a", "b")]
    """)


# An enclosing variable changed between its Function's def and the Function's first call is set up,
# not stale: a trace only sees changes made before it, and staleness needs a change after a trace
# that a later call of the same Function reads (issue 23, "order ignored").

def test_enclosing_dict_filled_after_the_def_before_the_first_call_is_not_stale():
    assert_marked("""
        import tensorflow as tf

        def main(steps):
            metrics = {"loss": tf.keras.metrics.Mean()}

            @tf.function
            def train_step(x):
                def step_fn(x):
                    metrics["loss"].update_state(x)
                step_fn(x)

            metrics.update({"time": tf.keras.metrics.Mean()})
            for _ in range(steps):
                train_step(tf.constant(1.0))
    """)


def test_enclosing_dict_changed_between_two_calls_is_stale():
    assert_marked("""
        import tensorflow as tf

        def main(steps):
            scales = {"a": 1.0}

            @tf.function
            def train_step(x):
                return x * scales["a"]  # STG301

            for _ in range(steps):
                train_step(tf.constant(1.0))
                scales.update({"a": 2.0})
    """)


def test_enclosing_dict_changed_after_a_first_call_above_it_is_stale():
    assert_marked("""
        import tensorflow as tf

        def main():
            scales = {"a": 1.0}

            @tf.function
            def train_step(x):
                return x * scales["a"]  # STG301

            train_step(tf.constant(1.0))
            scales["a"] = 2.0
            train_step(tf.constant(1.0))
    """)


# A name unpacked from a call of a def of the file is the element of the tuple the def returns at
# its position (issue 23, "Python values taken for tensors": deeplab2's multi-scale eval logs the
# Python pool size `_scale_images_and_pool_size` returns beside the resized images).

def test_unpacked_python_element_of_a_returned_tuple_is_python_and_the_tensor_element_a_tensor():
    assert_marked("""
        from absl import logging
        import tensorflow as tf

        class Net(tf.keras.Model):
            def _scale(self, images, pool, scale):
                size = [int(p * scale) for p in pool]
                return tf.image.resize(images, size), size

            def call(self, images):
                out = []
                for scale in (1.0, 2.0):
                    scaled, pool = self._scale(images, [8, 8], scale)
                    logging.info("scale %s; pool %s", scale, pool)
                    logging.info("scaled %s", scaled)  # STG101
                    out.append(scaled)
                return out

        Net().predict(images)
    """)


def test_unpacked_element_follows_what_the_call_passes_for_the_callees_parameter():
    assert_marked("""
        from absl import logging
        import tensorflow as tf

        def pair(a, b):
            return a, b

        @tf.function
        def f(x):
            n, t = pair(3, x)
            logging.info("n %s", n)
            logging.info("t %s", t)  # STG101
            return t
    """)


def test_a_function_handed_to_a_project_class_is_kept_not_traced_and_one_handed_to_lax_is_traced():
    # ott's SemidiscreteSolver(callback=print_callback): the object calls it later through
    # jax.debug.callback (Python, every call); a function given to lax.map is traced there
    assert_marked("""
        import dataclasses

        import jax

        @dataclasses.dataclass
        class Solver:
            callback: object = None

            def __call__(self, x):
                if self.callback is not None:
                    jax.debug.callback(self.callback, x)
                return x * 2

        def report(x):
            print(f"x = {x}")

        def traced_helper(x):
            print("tracing", x)  # STG101
            return x

        @jax.jit
        def solve(x):
            solver = Solver(callback=report)
            return jax.lax.map(traced_helper, solver(x))
    """)
