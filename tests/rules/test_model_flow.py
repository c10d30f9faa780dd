"""Issue 11, the rest of the model: arguments that reach a Function through helpers, per-function
summaries of what a function stores, mutates and creates, and class attributes in program order.

Each class has a positive case and its negative twin, and an interprocedural or cross-module form.
"""

from __future__ import annotations

from tests.rules.rulecases import assert_marked, assert_project_marked, assert_tiers


# Arguments reaching a Function through a helper ---------------------------------------------------


def test_python_list_reaches_the_function_through_get_concrete_function_in_a_helper():
    # The guide's measure_graph_size (T58): `*args` forwarded to `f.get_concrete_function`.
    assert_marked("""
        import tensorflow as tf

        def measure_graph_size(f, *args):
            g = f.get_concrete_function(*args).graph
            return len(g.as_graph_def().node)

        @tf.function
        def train(dataset):
            loss = tf.constant(0)
            for x, y in dataset:  # STG503
                loss += tf.abs(y - x)
            return loss

        measure_graph_size(train, [(1, 1)] * 3)
        measure_graph_size(train, [(1, 1)] * 10)
    """)


def test_dataset_through_the_same_helper_is_fine():
    assert_marked("""
        import tensorflow as tf

        def measure_graph_size(f, *args):
            g = f.get_concrete_function(*args).graph
            return len(g.as_graph_def().node)

        @tf.function
        def train(dataset):
            loss = tf.constant(0)
            for x, y in dataset:
                loss += tf.abs(y - x)
            return loss

        measure_graph_size(train, tf.data.Dataset.from_tensor_slices(([1] * 3, [1] * 3)))
    """)


def test_named_parameter_forwarded_to_a_function_the_helper_calls():
    # `run(f, n)` calls `f(tf.constant(0), n)` with each Python number its callers pass.
    assert_marked("""
        import tensorflow as tf

        def run(f, n):
            return f(tf.constant(0), n)

        @tf.function
        def unrolled(x, n):
            for _ in range(n):  # STG503
                x = x + 1
            return x

        for n in (2, 4, 8):
            run(unrolled, n)
    """)


def test_named_parameter_forwarded_negative_twin_tensor_bound():
    assert_marked("""
        import tensorflow as tf

        def run(f, n):
            return f(tf.constant(0), n)

        @tf.function
        def unrolled(x, n):
            for _ in range(n):
                x = x + 1
            return x

        for n in (2, 4, 8):
            run(unrolled, tf.constant(n))
    """)


def test_helper_passes_the_function_on_to_another_helper():
    # Two levels: `bench(f, data)` hands `f` and `data` to `measure(f, *args)`.
    assert_marked("""
        import tensorflow as tf

        def measure(f, *args):
            return f.get_concrete_function(*args)

        def bench(f, data):
            return measure(f, data)

        @tf.function
        def train(dataset):
            loss = tf.constant(0)
            for x in dataset:  # STG503
                loss += x
            return loss

        bench(train, [1, 2, 3])
    """)


def test_function_passed_to_a_helper_across_modules(tmp_path):
    assert_project_marked(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/tools.py": """
            def measure_graph_size(f, *args):
                g = f.get_concrete_function(*args).graph
                return len(g.as_graph_def().node)
        """,
        "pkg/main.py": """
            import tensorflow as tf
            from pkg.tools import measure_graph_size

            @tf.function
            def train(dataset):
                loss = tf.constant(0)
                for x, y in dataset:  # STG503
                    loss += tf.abs(y - x)
                return loss

            @tf.function
            def train_ds(dataset):
                loss = tf.constant(0)
                for x, y in dataset:
                    loss += tf.abs(y - x)
                return loss

            measure_graph_size(train, [(1, 1)] * 10)
            measure_graph_size(train_ds, tf.data.Dataset.from_tensor_slices(([1] * 3, [1] * 3)))
        """,
    })


def test_helper_reaches_the_definition_of_the_moment():
    # A later `def train` must not take the earlier one's call through the helper.
    assert_marked("""
        import tensorflow as tf

        def measure(f, *args):
            return f.get_concrete_function(*args)

        @tf.function
        def train(dataset):
            loss = tf.constant(0)
            for x in dataset:  # STG503
                loss += x
            return loss

        measure(train, [1, 2, 3])

        @tf.function
        def train(dataset):
            loss = tf.constant(0)
            for x in dataset:
                loss += x
            return loss

        measure(train, tf.data.Dataset.range(3))
    """)


# Class attributes in program order ----------------------------------------------------------------

_SCALER = """
        import tensorflow as tf

        class Scaler(tf.Module):
            def __init__(self):
                self.scale = 1.0

            def configure(self, scale):
                self.scale = scale

            @tf.function
            def __call__(self, x):
                return x * self.scale{mark}

        m = Scaler()
"""


def test_attribute_set_on_the_object_between_two_calls_is_stale():
    assert_marked(_SCALER.format(mark="  # STG302") + """
        m(tf.constant(1.0))
        m.scale = 2.0
        m(tf.constant(1.0))
    """)


def test_attribute_set_on_the_object_only_before_the_first_call_is_fine():
    assert_marked(_SCALER.format(mark="") + """
        m.scale = 2.0
        m.configure(3.0)
        m(tf.constant(1.0))
        m(tf.constant(2.0))
        m.scale = 4.0
    """)


def test_method_setting_self_attribute_called_between_two_calls_is_stale():
    assert_marked(_SCALER.format(mark="  # STG302") + """
        m(tf.constant(1.0))
        m.configure(3.0)
        m(tf.constant(1.0))
    """)


def test_attribute_set_in_a_module_level_loop_around_the_calls_is_stale():
    assert_marked(_SCALER.format(mark="  # STG302") + """
        for s in (1.0, 2.0):
            m.scale = s
            m(tf.constant(1.0))
    """)


def test_library_class_whose_module_shows_no_calls_keeps_the_write():
    # No module-level calls: the order is unknown, a method that changes the attribute counts.
    assert_marked("""
        import tensorflow as tf

        class Scaler(tf.Module):
            def __init__(self):
                self.scale = 1.0

            def configure(self, scale):
                self.scale = scale

            @tf.function
            def __call__(self, x):
                return x * self.scale  # STG302
    """, preview=True)


def test_attribute_order_across_modules(tmp_path):
    lib = """
        import tensorflow as tf

        class Scaler(tf.Module):
            def __init__(self):
                self.scale = 1.0

            @tf.function
            def __call__(self, x):
                return x * self.scale{mark}
    """
    assert_project_marked(tmp_path / "before", {
        "pkg/__init__.py": "",
        "pkg/lib.py": lib.format(mark=""),
        "pkg/main.py": """
            import tensorflow as tf
            from pkg.lib import Scaler

            m = Scaler()
            m.scale = 2.0
            m(tf.constant(1.0))
            m(tf.constant(2.0))
        """,
    })
    assert_project_marked(tmp_path / "between", {
        "pkg/__init__.py": "",
        "pkg/lib.py": lib.format(mark="  # STG302"),
        "pkg/main.py": """
            import tensorflow as tf
            from pkg.lib import Scaler

            m = Scaler()
            m(tf.constant(1.0))
            m.scale = 2.0
            m(tf.constant(2.0))
        """,
    })


# What a function does: state ops through helpers (analysis.effects) -------------------------------


def test_guard_whose_helper_runs_an_op_and_flips_a_flag():
    # The op is in a method the guard's block calls: baked into every call, the flag flips once.
    assert_tiers("""
        import tensorflow as tf

        class Model(tf.Module):
            def __init__(self):
                self.warmed = False
                self.total = tf.Variable(0.0)

            def _warm(self, x):
                self._bump(x)

            def _bump(self, x):
                self.total.assign_add(tf.reduce_sum(x))

            @tf.function
            def __call__(self, x):
                if not self.warmed:  # STG105
                    self._warm(x)
                    self.warmed = True  # preview STG102
                return x * 2
    """)


def test_guard_whose_helper_only_creates_variables_is_fine():
    assert_marked("""
        import tensorflow as tf

        def make_total():
            return tf.Variable(0.0)

        class Model(tf.Module):
            def __init__(self):
                self.total = None
                self.built = False

            def _build(self):
                self.total = make_total()

            @tf.function
            def __call__(self, x):
                if not self.built:
                    self._build()
                    self.built = True
                return x * self.total
    """)


def test_global_guard_whose_function_helper_prints():
    assert_tiers("""
        import tensorflow as tf

        announced = False

        def say(text):
            tf.print(text)

        def announce():
            global announced
            if not announced:  # STG105
                say("training started")
                announced = True  # preview STG102

        @tf.function
        def train_step(x):
            announce()
            return x
    """)


def test_global_guard_whose_helper_is_lifted_into_init_scope_is_fine():
    assert_marked("""
        import tensorflow as tf

        counter = tf.Variable(0)
        announced = False

        def bump():
            with tf.init_scope():
                counter.assign_add(1)

        @tf.function
        def train_step(x):
            global announced
            if not announced:
                bump()
                announced = True
            return x
    """)


# Parameter summaries: what a helper's parameter is, from what its callers build it from -----------


def test_value_built_from_a_tensor_parameter_stored_by_a_helper_is_a_leak():
    assert_marked("""
        import tensorflow as tf

        history = []

        def note(acc, value):
            acc.append(value)  # STG201

        @tf.function
        def f(x):
            note(history, x * 2)
            return x

        f(tf.constant(1))
    """)


def test_value_built_from_a_python_parameter_stored_by_a_helper_is_a_state_change():
    assert_marked("""
        import tensorflow as tf

        history = []

        def note(acc, value):
            acc.append(value)  # STG102

        @tf.function
        def f(x, n):
            note(history, n * 2)
            return x

        f(tf.constant(1), 3)
    """)


def test_parameter_summary_across_modules(tmp_path):
    assert_project_marked(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/util.py": """
            def note(acc, value):
                acc.append(value)  # STG201
        """,
        "pkg/main.py": """
            import tensorflow as tf
            from pkg.util import note

            history = []

            @tf.function
            def f(x):
                note(history, x * 2)
                return x

            f(tf.constant(1))
        """,
    })


def test_guard_whose_helper_in_another_module_runs_an_op(tmp_path):
    # Across modules the guard's block is judged in the project phase (STG105); the flag's own
    # STG102 is decided with the file, which does not see the helper's body.
    assert_project_marked(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/util.py": """
            import tensorflow as tf

            def warm(counter):
                counter.assign_add(1)

            def lifted(counter):
                with tf.init_scope():
                    counter.assign_add(1)

            def configure(options):
                options["ready"] = True
        """,
        "pkg/main.py": """
            import tensorflow as tf
            from pkg.util import configure, lifted, warm

            counter = tf.Variable(0)
            started = False
            lifted_done = False
            options = {}

            @tf.function
            def step(x):
                global started, lifted_done
                if not started:  # STG105
                    warm(counter)
                    started = True
                if not lifted_done:
                    lifted(counter)
                    configure(options)
                    lifted_done = True
                return x
        """,
    })
