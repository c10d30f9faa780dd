"""STG403 shared-function-stateful-object."""

from __future__ import annotations

from rulecases import assert_marked, assert_project_marked, findings

SETUP = """
    import tensorflow as tf

    opt1 = tf.keras.optimizers.Adam(learning_rate=1e-2)
    opt2 = tf.keras.optimizers.Adam(learning_rate=1e-3)
    w = tf.Variable(2.)
    x = tf.constant([-1.])
    y = tf.constant([2.])

    def train_step_impl(w, x, y, optimizer):
        with tf.GradientTape() as tape:
            L = tf.reduce_sum(tf.square(w*x - y))
        gradients = tape.gradient(L, [w])
        optimizer.apply_gradients(zip(gradients, [w]))
"""


def test_t48_second_optimizer_on_one_function():
    assert_marked(SETUP + """
    train_step = tf.function(train_step_impl)
    train_step(w, x, y, opt1)
    print("Calling `train_step` with different optimizer...")
    train_step(w, x, y, opt2)  # STG403
    """)
    (f,) = findings(SETUP + """
    train_step = tf.function(train_step_impl)
    train_step(w, x, y, opt1)
    train_step(w, x, y, opt2)
    """, "STG403")
    assert f.entry_point == "train_step_impl" and f.function is None
    assert "the optimizer `opt2`" in f.message and "already traced with `opt1` (line 16)" in f.message


def test_t49_one_concrete_function_per_optimizer():
    assert_marked(SETUP + """
    train_step_1 = tf.function(train_step_impl).get_concrete_function(w, x, y, opt1)
    train_step_2 = tf.function(train_step_impl).get_concrete_function(w, x, y, opt2)
    for i in range(10):
        if i % 2 == 0:
            train_step_1(w, x, y)
        else:
            train_step_2(w, x, y)
    """)


def test_t50_a_module_per_optimizer():
    assert_marked(SETUP + """
    class TrainStep(tf.Module):
        def __init__(self, optimizer):
            self.optimizer = optimizer

        @tf.function
        def __call__(self, w, x, y):
            train_step_impl(w, x, y, self.optimizer)

    train_o1 = TrainStep(opt1)
    train_o2 = TrainStep(opt2)
    train_o1(w, x, y)
    train_o2(w, x, y)
    """)


def test_t51_one_function_object_per_optimizer():
    assert_marked(SETUP + """
    train_step_1 = tf.function(train_step_impl)
    train_step_2 = tf.function(train_step_impl)
    for i in range(10):
        if i % 2 == 0:
            train_step_1(w, x, y, opt1)
        else:
            train_step_2(w, x, y, opt2)
    """)


def test_same_optimizer_again_or_built_first_is_fine():
    assert_marked(SETUP + """
    train_step = tf.function(train_step_impl)
    train_step(w, x, y, opt1)
    train_step(w, x, y, opt1)
    opt2.build([w])
    train_step(w, x, y, opt2)
    """)


def test_loops_over_optimizers_and_optimizers_made_in_the_call():
    assert_marked(SETUP + """
    train_step = tf.function(train_step_impl)
    for opt in [opt1, opt2]:
        train_step(w, x, y, opt)  # STG403
    for _ in range(3):
        train_step(w, x, y, tf.keras.optimizers.SGD(0.1))  # STG403
    """)


def test_unbuilt_models_on_one_function():
    assert_marked("""
        import tensorflow as tf

        class Head(tf.keras.Model):
            def __init__(self):
                super().__init__()
                self.dense = tf.keras.layers.Dense(2)

            def call(self, x):
                return self.dense(x)

        @tf.function
        def forward(model, x):
            return model(x)

        x = tf.ones([1, 3])
        m1 = Head()
        m2 = Head()
        m3 = Head()
        m3(x)
        forward(m1, x)
        forward(m2, x)  # STG403
        forward(m3, x)
    """)


def test_calls_while_tracing_another_function_are_not_counted():
    assert_marked(SETUP + """
    @tf.function
    def inner(w, x, y, optimizer):
        train_step_impl(w, x, y, optimizer)

    @tf.function
    def outer(w, x, y):
        inner(w, x, y, opt1)
        inner(w, x, y, opt2)
    """)


def test_stg403_interprocedural_across_modules(tmp_path):
    got = assert_project_marked(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/steps.py": """
            import tensorflow as tf

            def apply(optimizer, grads, variables):
                optimizer.apply_gradients(zip(grads, variables))

            @tf.function
            def train_step(w, optimizer):
                with tf.GradientTape() as tape:
                    loss = w * w
                apply(optimizer, tape.gradient(loss, [w]), [w])
        """,
        "pkg/main.py": """
            import tensorflow as tf
            from pkg.steps import train_step

            w = tf.Variable(1.0)
            fast = tf.keras.optimizers.Adam(0.1)
            slow = tf.keras.optimizers.Adam(0.01)
            train_step(w, fast)
            train_step(w, slow)  # STG403
        """,
    })
    assert got[0].entry_point == "pkg.steps.train_step"
    assert "to `train_step`, which was already traced with `fast` (line 7)" in got[0].message


def test_stg403_a_new_model_and_optimizer_bound_on_each_iteration():
    # Issue 11 point 8: a hyper-parameter sweep that builds a model and an optimizer per
    # iteration and trains them with one Function.
    assert_marked("""
        import tensorflow as tf

        @tf.function
        def train_step(model, opt, x):
            with tf.GradientTape() as tape:
                loss = tf.reduce_sum(model(x))
            grads = tape.gradient(loss, model.trainable_variables)
            opt.apply_gradients(zip(grads, model.trainable_variables))
            return loss

        for lr in [0.1, 0.01]:
            model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
            opt = tf.keras.optimizers.SGD(lr)
            train_step(model, opt, tf.ones([2, 2]))  # STG403
    """)


def test_stg403_objects_built_first_or_made_once_are_fine():
    assert_marked("""
        import tensorflow as tf

        @tf.function
        def train_step(model, opt, x):
            with tf.GradientTape() as tape:
                loss = tf.reduce_sum(model(x))
            grads = tape.gradient(loss, model.trainable_variables)
            opt.apply_gradients(zip(grads, model.trainable_variables))
            return loss

        for lr in [0.1, 0.01]:
            model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
            model.build((None, 2))
            opt = tf.keras.optimizers.SGD(lr)
            opt.build(model.trainable_variables)
            train_step(model, opt, tf.ones([2, 2]))

        model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
        opt = tf.keras.optimizers.SGD(0.1)
        for epoch in range(3):
            train_step(model, opt, tf.ones([2, 2]))
    """)


def test_stg403_new_objects_per_iteration_across_modules(tmp_path):
    assert_project_marked(tmp_path, {
        "sweep/__init__.py": "",
        "sweep/steps.py": """
            import tensorflow as tf

            @tf.function
            def fit_batch(model, x):
                return model(x)
        """,
        "sweep/run.py": """
            import tensorflow as tf
            from sweep.steps import fit_batch

            for width in (4, 8):
                model = tf.keras.Sequential([tf.keras.layers.Dense(width)])
                fit_batch(model, tf.ones([1, 3]))  # STG403
        """,
    })


def test_stg401_recursion_in_a_loop_over_a_python_structure_ends_with_it():
    """optax's `_tree_get_all_with_path`: `for path, child in children: recurse(child)` with no
    `if`: the loop over the Python children is the base case, and it ends while tracing, as in
    eager mode. A loop over a tensor is a `tf.while_loop` under AutoGraph, traced once: the
    recursion in its body is traced again and again."""
    assert_marked("""
        import jax
        import tensorflow as tf

        def leaves(tree):
            found = [tree] if not isinstance(tree, (list, tuple)) else []
            for child in (tree if isinstance(tree, (list, tuple)) else ()):
                found += leaves(child)
            return found

        def sizes(tree):
            return [sizes(c) for c in tree] if isinstance(tree, list) else 1

        @jax.jit
        def total(tree):
            return sum(leaves(tree)) + len(sizes(tree))

        def countdown(n):
            for i in tf.range(n):
                countdown(n - 1)  # STG401
            return n

        @tf.function
        def run(n):
            return countdown(n)
    """)


def test_recursion_bounded_by_a_python_depth_is_fine_whatever_else_its_call_tests():
    """tensorflow/gnn's `ones_like_leading_dims`: `if rank == 0: return ...` ends a helper's
    recursion on a Python depth while tracing, though the recursive call also sits under a test
    of the (tensor) value (checked with TensorFlow 2.21: one trace, the depth-3 result). The
    twin's every condition is a tensor: AutoGraph traces both branches forever."""
    assert_marked("""
        import tensorflow as tf

        def iterate(value, rank):
            if rank == 0:
                return tf.ones_like(value)
            if tf.reduce_sum(value) > 0:
                return iterate(value * 2, rank - 1)
            return iterate(value, rank - 1)

        def countdown(value, n):
            if tf.reduce_max(value) > 0:
                if tf.reduce_sum(value) > 0:
                    return countdown(value - 1, n - 1)  # STG401
            return value

        @tf.function
        def step(x, n):
            return iterate(x, 3) + countdown(x, n)

        step(tf.ones(2), tf.constant(3))
    """)


def test_a_new_functional_model_per_iteration_is_built_where_it_is_made():
    """`tf.keras.Model(inputs=..., outputs=...)` over layers called on a Keras input is built as
    it is made (tests/runtime/test_tf_retracing_facts.py): passing a new one per iteration to the
    same Function creates no variable. Its twin: a new unbuilt Sequential per iteration does."""
    assert_marked("""
        import tensorflow as tf

        @tf.function
        def gradients(model, x):
            with tf.GradientTape() as tape:
                tape.watch(x)
                y = tf.reduce_sum(model(x))
            return tape.gradient(y, x)

        @tf.function
        def forward(model, x):
            return model(x)

        def per_head(base, x, heads):
            out = []
            for h in range(heads):
                inputs = tf.keras.Input(shape=(3,))
                head_model = tf.keras.Model(inputs=inputs, outputs=base(inputs)[:, h])
                out.append(gradients(head_model, x))
            return out

        def per_width(x, widths):
            out = []
            for w in widths:
                fresh = tf.keras.Sequential([tf.keras.layers.Dense(w)])
                out.append(forward(fresh, x))  # STG403
            return out
    """)


# One process per program (AL-s25a, ilya1245/Python_code_samples' keraz scripts): a module-level
# Function's trace state lives in one process; two scripts nothing imports, each running its own
# training loop, never meet one Function object (`Project.programs`, `Project.may_meet`).
_SHARED_STEP = """
    import tensorflow as tf

    @tf.function
    def train_step(w, optimizer):
        with tf.GradientTape() as tape:
            loss = w * w
        optimizer.apply_gradients(zip(tape.gradient(loss, [w]), [w]))
"""
_SCRIPT = """
    import tensorflow as tf
    from keraz.common import train_step

    w = tf.Variable(1.0)
    {opt} = tf.keras.optimizers.Adam({lr})
    for i in range(3):
        train_step(w, {opt}){mark}
"""

_PACKAGES = {"keraz/__init__.py": "", "keraz/layers/__init__.py": "", "keraz/activations/__init__.py": "", "tests/__init__.py": ""}


def test_stg403_two_scripts_sharing_one_function_run_in_two_processes(tmp_path):
    assert_project_marked(tmp_path, {
        **_PACKAGES,
        "keraz/common.py": _SHARED_STEP,
        "keraz/layers/lin_reg_1.py": _SCRIPT.format(lr=0.1, opt="fast", mark=""),
        "keraz/layers/lin_reg_3.py": _SCRIPT.format(lr=0.01, opt="slow", mark=""),
        "keraz/activations/neural_network_1.py": _SCRIPT.format(lr=0.05, opt="adam", mark=""),
    })


def test_stg403_two_models_in_one_script_still_meet(tmp_path):
    assert_project_marked(tmp_path, {
        **_PACKAGES,
        "keraz/common.py": _SHARED_STEP,
        "keraz/layers/lin_reg_1.py": _SCRIPT.format(lr=0.1, opt="fast", mark="") + """
    other = tf.keras.optimizers.Adam(0.5)
    train_step(w, other)  # STG403
""",
        "keraz/layers/lin_reg_3.py": _SCRIPT.format(lr=0.01, opt="slow", mark=""),
    })


def test_stg403_modules_one_program_imports_meet(tmp_path):
    # a third module importing both: neither is a program, both run in its process
    assert_project_marked(tmp_path, {
        **_PACKAGES,
        "keraz/common.py": _SHARED_STEP,
        "keraz/layers/lin_reg_1.py": _SCRIPT.format(lr=0.1, opt="fast", mark=""),
        "keraz/layers/lin_reg_3.py": _SCRIPT.format(lr=0.01, opt="slow", mark="  # STG403"),
        "run_all.py": """
            import keraz.layers.lin_reg_1
            import keraz.layers.lin_reg_3
        """,
    })


def test_stg403_test_modules_run_in_one_process(tmp_path):
    # pytest imports every test module into one process: no test module is a program
    assert_project_marked(tmp_path, {
        **_PACKAGES,
        "keraz/common.py": _SHARED_STEP,
        "tests/test_a.py": _SCRIPT.format(lr=0.1, opt="fast", mark=""),
        "tests/test_b.py": _SCRIPT.format(lr=0.01, opt="slow", mark="  # STG403"),
    })
