"""STG501 python-scalar-argument, STG502 function-recreated, STG503 python-loop-unrolled."""

from __future__ import annotations

from rulecases import assert_marked, assert_project_marked, assert_tiers, findings

# STG501 ------------------------------------------------------------------------------------------


def test_t12_t13_python_ints_retrace_tensors_do_not():
    assert_marked("""
        import tensorflow as tf

        def train_one_step():
            pass

        @tf.function
        def train(num_steps):
            print("Tracing with num_steps = ", num_steps)  # STG101
            tf.print("Executing with num_steps = ", num_steps)
            for _ in tf.range(num_steps):
                train_one_step()

        print("Retracing occurs for different Python arguments.")
        train(num_steps=10)  # STG501
        train(num_steps=20)  # STG501
        print()
        print("Traces are reused for Tensor arguments.")
        train(num_steps=tf.constant(10))
        train(num_steps=tf.constant(20))
    """)


def test_t14_t15_tensor_arguments_trace_once_python_ints_per_value():
    assert_marked("""
        import tensorflow as tf

        @tf.function
        def a_function_with_python_side_effect(x):
            print("Tracing!")  # STG101
            return x * x + tf.constant(2)

        print(a_function_with_python_side_effect(tf.constant(2)))
        print(a_function_with_python_side_effect(tf.constant(3)))
        print(a_function_with_python_side_effect(2))  # STG501
        print(a_function_with_python_side_effect(3))  # STG501
    """)


def test_tx4_strings_are_a_mode_not_flagged():
    assert_marked("""
        import tensorflow as tf

        @tf.function(autograph=True)
        def myadd(a, b):
            for i in tf.range(3):
                tf.print(i)
            c = a + b
            print("tracing")  # STG101
            return c

        myadd(tf.constant("hello"), tf.constant("world"))
        myadd("hello", "world")
        myadd("good", "morning")
    """)


def test_t16_t17_input_signature_and_t24_concrete_function():
    assert_marked("""
        import tensorflow as tf

        @tf.function(input_signature=(tf.TensorSpec(shape=[None], dtype=tf.int32),))
        def next_collatz(x):
            return tf.where(x % 2 == 0, x // 2, 3 * x + 1)

        @tf.function
        def pow(a, b):
            return a ** b

        for n in range(3):
            next_collatz(n)
        square = pow.get_concrete_function(a=tf.TensorSpec(None, tf.float32), b=2)
        cube = pow.get_concrete_function(a=tf.TensorSpec(None, tf.float32), b=3)
    """)


def test_loop_variables_counters_and_enumerate_indexes():
    assert_marked("""
        import tensorflow as tf

        @tf.function
        def step(x, lr, epoch):
            tf.summary.scalar("lr", lr, step=epoch)
            return x * lr

        x = tf.ones([2])
        lr = 0.1
        for epoch in range(3):
            step(x, 0.1, epoch)  # STG501
            step(x, lr, 0)  # STG501
            lr *= 0.5
        for i, batch in enumerate([x, x]):
            step(batch, 0.1, i)  # STG501
    """)
    messages = sorted(f.message for f in findings("""
        import tensorflow as tf

        @tf.function
        def step(x, epoch):
            return x * epoch

        for epoch in range(3):
            step(tf.ones([2]), epoch)
    """, "STG501"))
    assert len(messages) == 1 and "`epoch` for `epoch` of `step` (loop variable `epoch`)" in messages[0]


def test_graph_structure_choices_are_not_flagged():
    assert_marked("""
        import tensorflow as tf

        @tf.function
        def block(x, depth, training, mode, scale=1.0):
            if depth > 2:
                x = tf.nn.relu(x)
            if training:
                x = tf.nn.dropout(x, 0.5)
            if mode == "train":
                x = x * 2
            return x * scale

        x = tf.ones([2, 2])
        for epoch in range(3):
            block(x, 2, training=True, mode="train")
            block(x, 3, training=False, mode="eval")
            block(x, 2, True, "eval", scale=2.0)
    """)


def test_same_value_everywhere_and_calls_from_staged_code():
    assert_marked("""
        import tensorflow as tf

        @tf.function
        def scaled(x, factor):
            return x * factor

        @tf.function
        def outer(x):
            return scaled(x, 2.0) + scaled(x, 3.0)

        scaled(tf.ones([2]), 0.5)
        scaled(tf.zeros([2]), 0.5)
    """)


def test_parameter_used_as_a_python_value_is_not_flagged():
    assert_marked("""
        import tensorflow as tf

        @tf.function
        def pick(x, index, layers):
            return layers[index](x) + helper(index)

        def helper(i):
            return i

        dense = [tf.keras.layers.Dense(1), tf.keras.layers.Dense(1)]
        for i in range(2):
            pick(tf.ones([1, 2]), i, dense)
    """)


def test_stg501_interprocedural_across_modules(tmp_path):
    got = assert_project_marked(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/model.py": """
            import tensorflow as tf

            @tf.function
            def train_step(x, step):
                return x * tf.cast(step, tf.float32)
        """,
        "pkg/loop.py": """
            import tensorflow as tf
            from pkg.model import train_step

            def fit(batches):
                step = 0
                for x in batches:
                    train_step(x, step)  # STG501
                    step += 1
        """,
    })
    assert got[0].function == "fit" and got[0].entry_point == "pkg.model.train_step"
    assert "(counter `step`)" in got[0].message


def test_stg501_literals_differ_within_one_program_not_across_scripts_notebooks_or_tests(tmp_path):
    """A literal that differs between call sites retraces where both calls run in one program:
    one module. Two scripts (or notebooks) each passing their own constant run apart. In a test
    module nothing of the retracing family is reported (issue 23): a test runs once, so its
    retraces cost nothing, whether tests each call once with the value under test (diffrax's
    suite, `eqx.filter_jit`: 96 findings, one per test) or one test calls twice or in a loop."""
    assert_project_marked(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/model.py": """
            import tensorflow as tf

            @tf.function
            def train(x, steps):
                for _ in tf.range(steps):
                    x = x + 1.0
                return x
        """,
        "pkg/script_a.py": "from pkg.model import train\n\ntrain(1.0, 10)\ntrain(2.0, 10)\n",
        "pkg/script_b.py": "from pkg.model import train\n\ntrain(1.0, 20)\n",
        "pkg/script_c.py": """
            from pkg.model import train

            train(1.0, 10)  # STG501
            train(1.0, 30)  # STG501
        """,
        "pkg/model_test.py": """
            from pkg.model import train

            def test_short():
                assert train(0.0, 1) == 1.0

            def test_long():
                assert train(0.0, 5) == 5.0

            def test_both():
                assert train(0.0, 2) < train(0.0, 3)

            def test_loop():
                for n in range(3):
                    train(0.0, n)
        """,
    })

# STG502 ------------------------------------------------------------------------------------------


def test_t18_separate_function_objects_never_share_traces():
    assert_marked("""
        import tensorflow as tf

        def f():
            print("Tracing!")  # STG101
            tf.print("Executing")

        tf.function(f)()  # STG502
        tf.function(f)()  # STG502
    """)


def test_function_made_in_a_loop_and_called_there():
    assert_marked("""
        import tensorflow as tf

        def double(x):
            return x * 2

        functions = {}
        for i in range(3):
            y = tf.function(double)(tf.constant(i))  # STG502
            g = tf.function(double)  # STG502
            g(tf.constant(i))
            functions[i] = tf.function(double)
        kept = tf.function(double)
        for i in range(3):
            kept(tf.constant(i))
    """)


def test_a_lambda_wrapped_in_a_loop_is_a_new_function_each_time():
    # A lambda has no def to reach: the wrapping alone stages it.
    assert_marked("""
        import tensorflow as tf

        def run(xs):
            return [tf.function(lambda v: v * 2)(x) for x in xs]  # STG502

        def run_loop(xs):
            for x in xs:
                f = tf.function(lambda v: v + 1)  # STG502
                f(x)
                tf.function(lambda v: v - 1)(x)  # STG502

        kept = {}
        for k in ("a", "b"):
            kept[k] = tf.function(lambda v: v - 1)
        once = tf.function(lambda v: v)(tf.constant(1))
        square = tf.function(lambda v: v * v)
        for i in range(3):
            square(tf.constant(i))
    """)


def test_nested_tf_function_in_a_repeatedly_called_function():
    assert_marked("""
        import tensorflow as tf

        def train_step(model, x):
            @tf.function  # STG502
            def forward(x):
                return model(x)
            return forward(x)

        def make_forward(model):
            @tf.function
            def forward(x):
                return model(x)
            return forward

        def evaluate_once(model, x):
            return tf.function(lambda v: model(v))(x)

        model = tf.keras.layers.Dense(2)
        for x in [tf.ones([1, 2]), tf.zeros([1, 2])]:
            train_step(model, x)
        forward = make_forward(model)
        evaluate_once(model, tf.ones([1, 2]))
    """)


def test_wrapper_made_per_call_of_a_function_called_twice():
    """Two calls outside any loop make two Functions, but that either runs per step is a guess
    under TensorFlow: the preview tier (a site in a loop: the default, below)."""
    assert_tiers("""
        import tensorflow as tf

        def loss(x):
            return tf.reduce_sum(x * x)

        def report(x):
            return tf.function(loss)(x)  # preview STG502

        def test_graph_mode():
            assert tf.function(loss)(tf.ones([2])) == 2.0

        report(tf.ones([2]))
        report(tf.zeros([2]))
    """)


def test_stg502_interprocedural_across_modules(tmp_path):
    got = assert_project_marked(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/core.py": """
            import tensorflow as tf

            def loss(x):
                return tf.reduce_sum(x * x)

            def compiled_loss(x):
                return tf.function(loss)(x)  # STG502
        """,
        "pkg/train.py": """
            import tensorflow as tf
            from pkg.core import compiled_loss

            for i in range(10):
                compiled_loss(tf.ones([i]))
        """,
    })
    assert got[0].function == "compiled_loss" and "each time `compiled_loss` runs" in got[0].message


# STG503 ------------------------------------------------------------------------------------------


def test_t64_range_over_a_python_argument_unrolls():
    assert_marked("""
        import tensorflow as tf

        x = tf.random.uniform(shape=[10, 10], minval=-1, maxval=2, dtype=tf.dtypes.int32)

        def power(x, y):
            result = tf.eye(10, dtype=tf.dtypes.int32)
            for _ in range(y):  # STG503
                result = tf.matmul(x, result)
            return result

        power_as_graph = tf.function(power)
        power_as_graph(x, 100)
    """)


def test_t58_python_data_unrolls_a_dataset_does_not():
    assert_marked("""
        import tensorflow as tf

        @tf.function
        def train(dataset):
            loss = tf.constant(0)
            for x, y in dataset:  # STG503
                loss += tf.abs(y - x)
            return loss

        small_data = [(1, 1)] * 3
        big_data = [(1, 1)] * 10
        train(small_data)
        train(big_data)
        train(tf.data.Dataset.from_generator(lambda: small_data, (tf.int32, tf.int32)))
    """)


def test_t12_t55_graph_loops_and_model_structure_are_fine():
    assert_marked("""
        import tensorflow as tf

        @tf.function
        def fizzbuzz(n):
            for i in tf.range(1, n + 1):
                if i % 15 == 0:
                    tf.print("fizzbuzz")
                else:
                    tf.print(i)

        class Stack(tf.keras.Model):
            def __init__(self):
                super().__init__()
                self.blocks = [tf.keras.layers.Dense(4) for _ in range(3)]

            def call(self, x):
                for layer in self.blocks:
                    x = layer(x)
                for scale in (1.0, 0.5):
                    x = x * scale
                for _ in range(2):
                    x = tf.nn.relu(x)
                return x

        @tf.function
        def repeat(x, n):
            for _ in range(n):
                x = x + 1
            return x

        fizzbuzz(tf.constant(5))
        repeat(tf.ones([2]), tf.constant(3))
    """)


def test_range_of_len_and_numpy_data():
    assert_marked("""
        import numpy as np
        import tensorflow as tf

        @tf.function
        def total(xs, table):
            acc = tf.constant(0.0)
            for i in range(len(xs)):  # STG503
                acc += xs[i]
            for row in table:  # STG503
                acc += tf.reduce_sum(row)
            return acc

        total([1.0, 2.0], np.ones((4, 2)))
    """)


def test_stg503_interprocedural_helper_forwarding_the_parameter(tmp_path):
    got = assert_project_marked(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/ops.py": """
            import tensorflow as tf

            def repeat(x, times):
                for _ in range(times):  # STG503
                    x = tf.sqrt(x)
                return x
        """,
        "pkg/main.py": """
            import tensorflow as tf
            from pkg.ops import repeat

            @tf.function
            def step(x, times):
                return repeat(x, times)

            step(tf.ones([2]), 50)
        """,
    })
    assert got[0].entry_point == "pkg.main.step" and "Python number `50`" in got[0].message


def test_stg503_different_small_bounds_from_staged_call_sites_unroll_once_each():
    # tf-models' Mosaic: `self._patch(samples, 2, 2)` and `self._patch(samples, 3, 3)` from two
    # traced methods: two fixed unrolls, no growth. The same two numbers from eager calls of a
    # Function trace it twice, each time unrolling a different length.
    assert_marked("""
        import tensorflow as tf

        def tile(x, n):
            parts = []
            for _ in range(n):
                parts.append(tf.identity(x))
            return tf.concat(parts, 0)

        @tf.function
        def mosaic(x):
            return tile(x, 2) + tile(x, 3)[:2]
    """)
    assert_marked("""
        import tensorflow as tf

        @tf.function
        def tile(x, n):
            parts = []
            for _ in range(n):  # STG503
                parts.append(tf.identity(x))
            return tf.concat(parts, 0)

        a = tile(tf.ones([1]), 2)
        b = tile(tf.ones([1]), 3)
    """)


def test_stg503_different_small_bounds_through_a_helper_called_eagerly_unroll_once_each(tmp_path):
    # tf-models' spatial_transform_ops: `multilevel_crop_and_resize(f, rois, output_size=7)` and
    # `(..., output_size=14)` from a model's build code forward `output_size` to a helper a
    # traced layer also reaches: eager calls of a plain helper run eagerly, traced ones unroll
    # at their own fixed size. A Function called eagerly with 7 then 14 traces twice.
    assert_project_marked(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/ops.py": """
            import tensorflow as tf

            def grid(b, n):
                out = []
                for i in range(n):
                    out.append(tf.identity(b) * i)
                return tf.stack(out)

            def crop(b, output_size=7):
                return grid(b, output_size)

            class Sampler(tf.keras.layers.Layer):
                def call(self, b):
                    return crop(b, 7)
        """,
        "pkg/model.py": """
            import tensorflow as tf
            from pkg.ops import crop

            def build_outputs(b):
                return crop(b, output_size=7), crop(b, output_size=14)

            class Head(tf.keras.layers.Layer):
                def call(self, x):
                    return tf.nn.relu(x)
        """,
        "pkg/step.py": """
            import tensorflow as tf

            @tf.function
            def crop_fn(b, output_size):
                out = []
                for i in range(output_size):  # STG503
                    out.append(tf.identity(b) * i)
                return tf.stack(out)

            crop_fn(tf.ones([2]), 7)
            crop_fn(tf.ones([2]), 14)
        """,
    })


def test_stg502_factory_result_called_at_once_in_a_loop_and_request_handlers():
    assert_marked("""
        import tensorflow as tf
        from flask import Flask

        app = Flask(__name__)

        def make_step(scale):
            @tf.function  # STG502
            def step(x):
                return x * scale
            return step

        for s in range(10):
            make_step(s)(tf.constant(1.0))

        @app.route("/predict")
        def predict(request):
            f = tf.function(lambda x: x + 1)  # STG502
            return f(request)
    """)


def test_stg502_factories_whose_functions_are_kept_and_handlers_using_a_kept_function_are_fine():
    assert_marked("""
        import tensorflow as tf
        from flask import Flask

        app = Flask(__name__)

        def make_step(scale):
            @tf.function
            def step(x):
                return x * scale
            return step

        kept = make_step(2.0)
        for s in range(10):
            kept(tf.constant(1.0))
        steps = {k: make_step(k) for k in range(3)}

        serve = tf.function(lambda x: x + 1)

        @app.route("/predict")
        def predict(request):
            return serve(request)
    """)


def test_retracing_family_is_left_out_of_test_modules_and_kept_in_the_code_they_test(tmp_path):
    """A test that jits a fresh closure per parametrization (ott, neural-tangents) or re-creates
    a Function in a loop runs once: the STG5xx cost needs repetition that matters, which a test
    module does not have. The same code in a library module is reported."""
    loop = """
        import jax

        def check(xs):
            for x in xs:
                f = jax.jit(lambda v: v * 2)  # STG502
                f(x)
    """
    assert_project_marked(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/lib.py": loop,
        "pkg/lib_test.py": loop.replace("  # STG502", ""),
        "tests/test_lib.py": loop.replace("  # STG502", ""),
    })


def test_stg502_a_decorator_with_options_applied_makes_a_function_it_does_not_call():
    """`tf.function(input_signature=s)(f)` makes one Function from `f` (the decorator applied:
    tests/runtime/test_tf_retracing_facts.py); a setup helper returning it makes each Function
    once. Its negative twin: the same decorator applied and its Function called in a loop."""
    assert_tiers("""
        import tensorflow as tf

        class Model(tf.keras.Model):
            def __init__(self, debug=False):
                super().__init__()
                self.signature = [tf.TensorSpec(shape=(None,), dtype=tf.float32)]
                self.debug = debug
                self._apply_all_signatures()

            def _forward(self, x):
                return x * 2

            def _train_step(self, x):
                return x + 1

            def _apply_signature(self, function, signature):
                if self.debug:
                    return function
                return tf.function(input_signature=signature)(function)

            def _apply_all_signatures(self):
                self.forward = self._apply_signature(self._forward, self.signature)
                self.train_step = self._apply_signature(self._train_step, self.signature)

        def double(x):
            return x * 2

        signature = [tf.TensorSpec(shape=(None,), dtype=tf.float32)]
        model = Model()
        for n in range(3):
            model.forward(tf.ones([2]) * n)
            tf.function(input_signature=signature)(double)(tf.ones([2]) * n)  # STG502
            step = tf.function(input_signature=signature)(double)  # STG502
            step(tf.ones([2]) * n)
    """)


def test_stg502_a_function_made_per_run_and_reused_in_its_loop_traces_once_per_run():
    """A method that makes a Function and calls it in its own loop traces once per run (the loop's
    calls reuse that trace; TF 2.21: 1 trace per call of the method, 5 over 5 calls). When a
    caller, up to three callers up and through `self` too, runs it in a loop (epitome's
    `score_matrix` loops over `self.eval_vector(...)`, which calls `self.run_predictions(...)`),
    each iteration traces again; whether each run stages the same program or sets up another (a
    sweep's arm) is not shown: the preview tier. Made and called at once in a method that a loop
    of this module calls, the default tier. A later `.numpy()` in the method does not hide a
    finding on its decorator line (the decorated def holds that line)."""
    assert_tiers("""
        import tensorflow as tf

        class Model:
            def run_predictions(self, xs):
                @tf.function  # preview STG502
                def step(x):
                    return x * 2
                out = []
                for x in xs:
                    out.append(step(x))
                return tf.stack(out).numpy()

            def evaluate(self, xs):
                @tf.function  # preview STG502
                def step(x):
                    return x * 3
                total = 0.0
                for x in xs:
                    total += step(x)
                return total

            def score(self, x):
                @tf.function  # STG502
                def step(v):
                    return v * 4
                return step(x).numpy()

            def eval_one(self, x):
                return self.score(x)

            def eval_vector(self, xs):
                return self.run_predictions(xs)

            def score_matrix(self, rows):
                return [self.eval_vector(xs) for xs in rows]

            def fit(self, epochs, xs):
                for _ in range(epochs):
                    self.evaluate(xs)
                    self.eval_one(xs[0])
    """)


def test_stg502_a_driver_that_makes_a_function_and_reuses_it_in_its_loop_run_once_is_fine():
    """The twin: a driver that makes the Function and reuses it in its loop, called once, or from
    several places none in a loop (a script's each: tf-models' `run_customized_training_loop`,
    one trace per run, and each run may be another set-up), is not shown to trace one program
    again: nothing in either tier."""
    assert_tiers("""
        import tensorflow as tf

        class Model:
            def run_predictions(self, xs):
                @tf.function
                def step(x):
                    return x * 2
                out = []
                for x in xs:
                    out.append(step(x))
                return out

            def test(self, xs):
                return self.run_predictions(xs)

            def test_from_generator(self, xs):
                return self.run_predictions(xs)

        def train(batches):
            step = tf.function(lambda x: x + 1)
            for x in batches:
                step(x)

        def main():
            train([tf.constant(1.0)])
    """)


def test_stg502_under_tensorflow_several_call_sites_outside_loops_are_a_guess():
    """A function making a Function, called from two places of which none is in a loop, makes it
    twice: that either runs per step is not shown (the preview tier). Its twin: one of the sites
    in a loop shows the repetition (the default tier)."""
    assert_tiers("""
        import tensorflow as tf

        def predict(x):
            @tf.function  # preview STG502
            def forward(y):
                return y * 2
            return forward(x)

        def evaluate(x):
            @tf.function  # STG502
            def forward(y):
                return y * 3
            return forward(x)

        predict(tf.constant(1.0))
        predict(tf.constant(2.0))
        evaluate(tf.constant(1.0))
        for i in range(3):
            evaluate(tf.constant(2.0))
    """)


def test_stg502_a_function_made_in_a_function_tf_nest_map_structure_calls_is_made_per_element():
    """`tf.nest.map_structure(func, s)` calls `func` once per element of `s`, in the call
    (`frameworks.PER_ELEMENT_CALLS`, TF 2.21: tests/runtime/test_per_element_call_facts.py): a
    `@tf.function` nested def `func` makes is a new Function, traced anew, per element."""
    assert_tiers("""
        import tensorflow as tf

        def per_element(x):
            @tf.function  # STG502
            def double(v):
                return v * 2
            return double(x)

        def double_all(structure):
            return tf.nest.map_structure(per_element, structure)
    """)


def test_stg502_a_function_made_in_a_function_called_once_per_structure_is_not_shown_repeated():
    """The twin: the same function called once on the whole structure, by a function the project
    never calls: no repetition shown, nothing in either tier."""
    assert_tiers("""
        import tensorflow as tf

        def per_structure(x):
            @tf.function
            def double(v):
                return tf.nest.map_structure(lambda t: t * 2, v)
            return double(x)

        def double_all(structure):
            return per_structure(structure)
    """)


def test_stg502_a_function_made_in_what_a_tf_data_map_in_a_loop_traces_is_made_per_map_call():
    """m3tl's `reshape_tensors_in_dataset` (fixed in 63c44c3, "Improve performance"): `ds.map(f)`
    traces `f` anew on every call (TF 2.21, tests/runtime/test_per_element_call_facts.py), so a
    helper that a map function in a loop calls runs once per iteration, and a `@tf.function` it
    makes is a new Function traced each time (`repetition.dataset_traces`). Made and called once
    in the helper, the default tier; reused in the helper's own loop (m3tl's), one trace per run,
    the preview tier as for any driver."""
    assert_tiers("""
        import tensorflow as tf

        def reshape(example):
            @tf.function  # STG502
            def inner(v):
                return v + 1
            return inner(example)

        def reshape_all(example):
            @tf.function  # preview STG502
            def inner(v):
                return v * 2
            for key in example:
                example[key] = inner(example[key])
            return example

        def read(paths):
            out = []
            for path in paths:
                ds = tf.data.TFRecordDataset([path])
                ds = ds.map(lambda x: reshape(x)).map(lambda x: reshape_all(x))
                out.append(ds)
            return out
    """)


def test_stg502_a_function_made_in_what_one_tf_data_map_traces_is_made_once():
    """The twin: the same helpers traced by transformations called once (no loop, and a
    function that makes the dataset called once): made once per trace, nothing in either tier."""
    assert_tiers("""
        import tensorflow as tf

        def reshape(example):
            @tf.function
            def inner(v):
                return v + 1
            return inner(example)

        def reshape_all(example):
            @tf.function
            def inner(v):
                return v * 2
            for key in example:
                example[key] = inner(example[key])
            return example

        def read(paths):
            ds = tf.data.TFRecordDataset(paths)
            return ds.map(lambda x: reshape(x)).map(reshape_all)
    """)
