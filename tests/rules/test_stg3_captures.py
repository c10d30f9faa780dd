"""STG302 stale-attribute, STG303 variable-rebinding."""

from __future__ import annotations

from rulecases import assert_marked, assert_project_marked, check_project, findings, assert_tiers

# STG302 ------------------------------------------------------------------------------------------

SIMPLE_MODEL = """
    import tensorflow as tf

    class SimpleModel(tf.Module):
        def __init__(self):
            self.bias = 0.
            self.weight = 2.
"""


def test_t42_mutated_plain_attribute_of_an_argument_is_stale():
    assert_marked(SIMPLE_MODEL + """
    @tf.function
    def evaluate(model, x):
        return model.weight * x + model.bias  # STG302

    simple_model = SimpleModel()
    x = tf.constant(10.)
    print(evaluate(simple_model, x))
    print("Adding bias!")
    simple_model.bias += 5.0
    print(evaluate(simple_model, x))
    """)
    (f,) = findings(SIMPLE_MODEL + """
    @tf.function
    def evaluate(model, x):
        return model.weight * x + model.bias

    simple_model = SimpleModel()
    evaluate(simple_model, tf.constant(10.))
    simple_model.bias += 5.0
    evaluate(simple_model, tf.constant(10.))
    """, "STG302")
    assert "`model.bias`" in f.message and "`simple_model.bias += 5.0`, line 14" in f.message


def test_t43_a_new_concrete_function_per_change_is_the_workaround():
    assert_marked(SIMPLE_MODEL + """
    def evaluate(model, x):
        return model.weight * x + model.bias

    new_model = SimpleModel()
    x = tf.constant(10.)
    evaluate_no_bias = tf.function(evaluate).get_concrete_function(new_model, x)
    print(evaluate_no_bias(x))
    new_model.bias += 5.0
    evaluate_with_bias = tf.function(evaluate).get_concrete_function(new_model, x)
    print(evaluate_with_bias(x))
    """)


def test_t44_variable_attributes_updated_in_place_are_read_at_run_time():
    assert_marked("""
        import tensorflow as tf

        class BetterModel:
            def __init__(self):
                self.bias = tf.Variable(0.)
                self.weight = tf.Variable(2.)

        @tf.function
        def evaluate(model, x):
            return model.weight * x + model.bias

        better_model = BetterModel()
        x = tf.constant(10.)
        print(evaluate(better_model, x))
        better_model.bias.assign_add(5.0)
        print(evaluate(better_model, x))
    """)


def test_self_attribute_changed_by_a_setter_is_stale_set_up_ones_are_not():
    assert_marked("""
        import tensorflow as tf

        class Scaler(tf.keras.layers.Layer):
            def __init__(self, factor, offset):
                super().__init__()
                self.factor = factor
                self.offset = offset
                self.dense = tf.keras.layers.Dense(2)

            def build(self, shape):
                self.size = shape[-1]

            def set_factor(self, factor):
                self.factor = factor

            def swap_dense(self):
                self.dense = tf.keras.layers.Dense(3)

            def call(self, x):
                y = self.dense(x) * self.factor  # STG302
                return y + self.offset + self.size
    """, preview=True)


def test_changes_made_in_staged_code_are_other_rules_business():
    assert_marked("""
        import tensorflow as tf

        class Counter(tf.Module):
            def __init__(self):
                self.calls = 0

            @tf.function
            def __call__(self, x):
                self.calls += 1  # STG102
                return x * self.calls
    """)


def test_argument_of_unknown_class_is_not_guessed():
    assert_marked("""
        import tensorflow as tf

        class A:
            def __init__(self):
                self.scale = 1.0

        class B:
            def __init__(self):
                self.scale = 2.0

            def grow(self):
                self.scale += 1.0

        @tf.function
        def apply(obj, x):
            return x * obj.scale
    """)


def test_stg302_interprocedural_across_modules(tmp_path):
    got = assert_project_marked(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/model.py": """
            class Config:
                def __init__(self):
                    self.temperature = 1.0
        """,
        "pkg/ops.py": """
            def soften(config, logits):
                return logits / config.temperature  # STG302
        """,
        "pkg/train.py": """
            import tensorflow as tf
            from pkg.model import Config
            from pkg.ops import soften

            @tf.function
            def predict(config, logits):
                return soften(config, logits)

            config = Config()
            predict(config, tf.ones([2]))
            config.temperature = 0.5
            predict(config, tf.ones([2]))
        """,
    })
    assert got[0].entry_point == "pkg.train.predict"
    assert "`config.temperature = 0.5`, pkg.train line 11" in got[0].message


# STG303 ------------------------------------------------------------------------------------------


def test_t41_assign_on_a_global_variable_is_seen():
    assert_marked("""
        import tensorflow as tf

        @tf.function
        def variable_add():
            return 1 + foo

        foo = tf.Variable(1)
        print("Variable:", variable_add())
        foo.assign(100)
        print("Variable:", variable_add())
    """)


def test_t45_rebinding_a_captured_variable():
    assert_marked("""
        import tensorflow as tf

        external_var = tf.Variable(3)

        @tf.function
        def f(x):
            return x * external_var

        traced_f = f.get_concrete_function(4)
        print(traced_f(4))
        external_var = tf.Variable(4)  # STG303
        print(traced_f(4))
    """)


def test_t44_companion_augmented_assignment_on_a_variable_attribute():
    (f,) = findings("""
        import tensorflow as tf

        class BetterModel:
            def __init__(self):
                self.bias = tf.Variable(0.)

        @tf.function
        def evaluate(model, x):
            return x + model.bias

        better_model = BetterModel()
        evaluate(better_model, tf.constant(1.))
        better_model.bias += 5
    """)
    assert (f.code, f.line, f.function, f.entry_point) == ("STG303", 13, None, "evaluate")
    assert "RuntimeError" in f.message and "`.assign_add(...)`" in f.message


def test_global_variable_rebound_by_arithmetic_or_in_a_function():
    """Rebound at module level between two calls: known. Rebound in a function (`reset()`) the
    module never calls while it calls the Function at module level: no call runs it between two
    calls of the Function, so nothing is stale (`analysis.order.writes_between` says False)."""
    assert_tiers("""
        import tensorflow as tf

        step = tf.Variable(0)
        scale = tf.Variable(1.0)
        unused = tf.Variable(0)

        def helper(x):
            return x * scale + tf.cast(step, tf.float32)

        @tf.function
        def f(x):
            return helper(x)

        def reset():
            global step
            step = tf.Variable(0)

        f(tf.constant(1.0))
        scale = scale * 2  # STG303
        unused = unused + 1
        f(tf.constant(1.0))
    """)


def test_global_variable_rebound_by_a_function_called_between_two_calls_is_known():
    """`f(x); reset(); f(x)` at module level, `reset()` rebinding the variable `f` reads: the second
    call reuses the first trace, which holds the old variable (the default tier). Its twins: the
    same `reset()` called only after the last call of `f` is silent, and in a library module that
    never calls `f` when `reset()` runs is not shown (preview)."""
    assert_tiers("""
        import tensorflow as tf

        step = tf.Variable(0)

        @tf.function
        def f(x):
            return x + tf.cast(step, tf.float32)

        def reset():
            global step
            step = tf.Variable(0)  # STG303

        f(tf.constant(1.0))
        reset()
        f(tf.constant(1.0))
    """)
    assert_tiers("""
        import tensorflow as tf

        step = tf.Variable(0)

        @tf.function
        def f(x):
            return x + tf.cast(step, tf.float32)

        def reset():
            global step
            step = tf.Variable(0)

        f(tf.constant(1.0))
        f(tf.constant(1.0))
        reset()
    """)
    assert_tiers("""
        import tensorflow as tf

        step = tf.Variable(0)

        @tf.function
        def f(x):
            return x + tf.cast(step, tf.float32)

        def reset():
            global step
            step = tf.Variable(0)  # preview STG303
    """)


def test_global_variable_rebound_in_a_function_between_its_own_calls_is_known():
    """A function that calls the Function, rebinds the captured variable, and calls it again makes
    the second call reuse the first trace (the old variable): known, the default tier. Its twin
    calls the Function only before the rebinding: nothing there shows a later call, preview."""
    assert_tiers("""
        import tensorflow as tf

        external_var = tf.Variable(3)

        @tf.function
        def times_external(x):
            return x * external_var

        def around():
            global external_var
            times_external(tf.constant(4))
            external_var = tf.Variable(4)  # STG303
            times_external(tf.constant(4))

        def before_only():
            global external_var
            times_external(tf.constant(4))
            external_var = tf.Variable(5)  # preview STG303
    """)


def test_a_write_is_between_calls_only_inside_the_loop_that_calls_not_after_it():
    """`analysis.order._calls_readers_in_loop`: a write in the loop around a call (its header to
    the end of its body) runs after one iteration's call and before the next: known. A write
    after the loop, or in its `else:` (run once, after the last iteration), follows every call
    the loop makes: nothing shows a later call, preview. A comprehension is such a loop, and a
    write after it the same."""
    assert_tiers("""
        import tensorflow as tf

        external_var = tf.Variable(3)

        @tf.function
        def times_external(x):
            return x * external_var

        def inside(xs):
            global external_var
            for x in xs:
                times_external(x)
                external_var = tf.Variable(4)  # STG303

        def after(xs):
            global external_var
            for x in xs:
                times_external(x)
            external_var = tf.Variable(5)  # preview STG303

        def in_else(xs):
            global external_var
            for x in xs:
                times_external(x)
            else:
                external_var = tf.Variable(6)  # preview STG303

        def after_comprehension(xs):
            global external_var
            out = [times_external(x) for x in xs]
            external_var = tf.Variable(7)  # preview STG303
            return out
    """)


def test_global_variable_rebound_at_import_before_any_call_is_not_stale():
    # issue 11 point 2: importing the module rebinds `scale` before anything can trace `f`
    assert_marked("""
        import tensorflow as tf

        scale = tf.Variable(1.0)

        @tf.function
        def f(x):
            return x * scale

        scale = scale * 2
    """)


def test_variable_attribute_replaced_outside_set_up_code():
    # `reset` is a method no code of the project calls between two calls of `__call__`: a
    # replacement there is stale only if a user does, which the code does not show (preview).
    assert_tiers("""
        import tensorflow as tf

        class Model(tf.Module):
            def __init__(self):
                self.v = tf.Variable(1.0)
                self.head = None

            def reset(self):
                self.v = tf.Variable(1.0)  # preview STG303

            def rewind(self):
                self.v.assign(1.0)

            @tf.function
            def __call__(self, x):
                return x * self.v
    """)


def test_lazy_creation_and_staged_rebinding_are_other_rules_business():
    assert_marked("""
        import tensorflow as tf

        v = tf.Variable(0)

        class Count(tf.Module):
            def __init__(self):
                self.count = None

            @tf.function
            def __call__(self):
                if self.count is None:
                    self.count = tf.Variable(0)
                return self.count.assign_add(1)

        @tf.function
        def bump():
            global v
            v = v + 1  # STG102
            return v
    """)


def test_stg303_interprocedural_reader_is_a_helper(tmp_path):
    got = assert_project_marked(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/layers.py": """
            import tensorflow as tf

            class Affine:
                def __init__(self):
                    self.w = tf.Variable(2.0)

            def apply(layer, x):
                return layer.w * x
        """,
        "pkg/train.py": """
            import tensorflow as tf
            from pkg.layers import Affine, apply

            @tf.function
            def step(layer, x):
                return apply(layer, x)

            layer = Affine()
            step(layer, tf.constant(1.0))
            layer.w = tf.Variable(3.0)  # STG303
            step(layer, tf.constant(1.0))
        """,
    })
    assert got[0].entry_point == "step" and "that `apply` (traced by `pkg.train.step`) reads" in got[0].message


def test_keras_compile_is_set_up_code():
    # keras.io's Distiller sets its hyperparameters in compile(); compiling again drops the
    # traced train function, so train_step never sees a stale value.
    assert_marked("""
        import tensorflow as tf

        class Distiller(tf.keras.Model):
            def __init__(self, student, teacher):
                super().__init__()
                self.student = student
                self.teacher = teacher

            def compile(self, optimizer, alpha=0.1, temperature=3):
                super().compile(optimizer=optimizer)
                self.alpha = alpha
                self.temperature = temperature

            def train_step(self, data):
                x, y = data
                soft = tf.nn.softmax(self.teacher(x) / self.temperature)
                return {"loss": self.alpha * tf.reduce_sum(soft)}
    """)


def test_stg302_attributes_set_in_keras_set_up_hooks_are_set_up():
    # tensorflow/examples efficientdet COCOCallback: `fit` calls `set_model` before the first
    # batch; a setter the user calls between calls is a change.
    assert_marked("""
        import tensorflow as tf

        def post(config, x):
            return x * config

        class Eval(tf.keras.callbacks.Callback):
            def __init__(self, data):
                super().__init__()
                self.data = data
                self.scale = 1.0

            def set_model(self, model):
                self.model = model
                config = model.config
                self.config = config

            def retune(self, scale):
                self.scale = scale

            @tf.function
            def _detect(self, x):
                y = post(self.config, self.model(x))
                return y * self.scale  # STG302

            def on_epoch_end(self, epoch, logs=None):
                for x in self.data:
                    self._detect(x)
    """, preview=True)


def test_an_attribute_a_test_module_toggles_is_not_stale_for_the_library(tmp_path):
    """A test that flips a layer's flag to exercise both branches (tensorflow/hub's
    `imported.trainable = True` in keras_layer_test) says nothing of how the library is used; the
    same toggle between two calls in the library's own code is reported (issue 23, order)."""
    layer = """
        import tensorflow as tf

        class Scaled(tf.keras.layers.Layer):
            def __init__(self, on=True):
                super().__init__()
                self.on = on

            def call(self, x):
                if self.on:  # STG302
                    return x * 2.0
                return x
    """
    toggle = """
        import tensorflow as tf

        from pkg.layer import Scaled

        def {name}():
            layer = Scaled()
            layer(tf.ones([2]))
            layer.on = False
            layer(tf.ones([2]))
    """
    assert_project_marked(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/layer.py": layer,
        "pkg/layer_test.py": toggle.format(name="test_toggle"),
        "pkg/serve.py": toggle.format(name="serve"),
    }, preview=True)
    assert_project_marked(tmp_path / "only_tests", {
        "pkg/__init__.py": "",
        "pkg/layer.py": layer.replace("  # STG302", ""),
        "pkg/layer_test.py": toggle.format(name="test_toggle"),
    }, preview=True)


def test_a_setter_no_code_calls_between_two_calls_is_preview_one_called_between_them_is_reported():
    """Issue 23, class 5: stale means changed after a Function object has traced and read by a
    later call of that same object (TF 2.21: tests/runtime/test_tf_fresh_facts.py). A public
    setter nobody in the project calls after a call may be called so by a user: a heuristic step,
    the preview tier. Called on the object between two calls of its `tf.function` (here in a
    function body), the chain is known and reported; called only after the last call, or between
    two eager calls of a Keras layer (no Function: `call` runs as Python each time), it is not."""
    module = """
        import tensorflow as tf

        class Scaler(tf.Module):
            def __init__(self):
                self.factor = 1.0

            def set_factor(self, factor):
                self.factor = factor

            @tf.function
            def __call__(self, x):
                return x * self.factor{mark}
    """
    assert_marked(module.format(mark=""))
    assert_marked(module.format(mark="  # STG302"), preview=True)
    between = module.format(mark="  # STG302") + """
        def serve(xs):
            scaler = Scaler()
            scaler(xs[0])
            scaler.set_factor(2.0)
            return scaler(xs[1])
    """
    assert_marked(between)
    (finding,) = findings(between, "STG302")
    assert "calls `set_factor` on an object after a call that runs the reading code" in finding.because[-1].message
    after_last = module.format(mark="") + """
        def serve(xs):
            scaler = Scaler()
            y = scaler(xs[0])
            scaler.set_factor(2.0)
            return y
    """
    assert_marked(after_last)
    eager_layer = """
        import tensorflow as tf

        class Scaler(tf.keras.layers.Layer):
            def __init__(self):
                super().__init__()
                self.factor = 1.0

            def set_factor(self, factor):
                self.factor = factor

            def call(self, x):
                return x * self.factor

        def serve(xs):
            scaler = Scaler()
            scaler(xs[0])
            scaler.set_factor(2.0)
            return scaler(xs[1])
    """
    assert_marked(eager_layer)


def test_an_attribute_changed_between_two_calls_in_a_function_body_is_reported():
    """The guide's `simple_model.bias += 5.0` between two calls, inside a function: a write on the
    object between two calls of its `tf.function`, or between two `fit`s of a Keras model (the
    second reuses the `train_function` the first made: tests/runtime/test_run_state.py). Before
    the first call, after the last, or with `compile` after it (a new train function): nothing."""
    source = """
        import keras
        import tensorflow as tf

        class Affine(tf.Module):
            def __init__(self):
                self.bias = 0.0

            @tf.function
            def apply(self, x):
                return x + self.bias{mark1}

        class Scaled(keras.Model):
            def __init__(self):
                super().__init__()
                self.dense = keras.layers.Dense(1)
                self.scale = 1.0

            def call(self, x):
                return self.dense(x) * self.scale{mark2}

        def run(x, y):
            model = Affine()
            {before1}
            model.bias = 5.0
            model.apply(x)
            net = Scaled()
            net.compile(optimizer="sgd", loss="mse")
            {before2}
            net.scale = 10.0
            {recompile}
            net.fit(x, y)
    """
    known = dict(before1="model.apply(x)", before2="net.fit(x, y)", recompile="pass")
    assert_marked(source.format(mark1="  # STG302", mark2="  # STG302", **known))
    unknown = dict(before1="pass", before2="pass", recompile="pass")
    assert_marked(source.format(mark1="", mark2="", **unknown))
    recompiled = dict(before1="pass", before2="net.fit(x, y)", recompile='net.compile(optimizer="sgd", loss="mse")')
    assert_marked(source.format(mark1="", mark2="", **recompiled))


def test_the_guide_s_bias_change_between_two_calls_in_a_function():
    """`evaluate(model, x); model.bias += 5.0; evaluate(model, x)` inside a function: the object
    handed to the same `tf.function` twice, changed between (tests/runtime/test_run_state.py
    observes the stale second call). Changed before the first call: nothing."""
    source = """
        import tensorflow as tf

        class SimpleModel(tf.Module):
            def __init__(self):
                self.bias = 0.0

        @tf.function
        def evaluate(model, x):
            return x + model.bias{mark}

        def main(x):
            model = SimpleModel()
            {first}
            model.bias += 5.0
            evaluate(model, x)
    """
    assert_marked(source.format(mark="  # STG302", first="evaluate(model, x)"))
    assert_marked(source.format(mark="", first="pass"))


def test_stg301_a_registry_its_decorators_fill_is_only_a_guess_in_a_library():
    """A library's registry filled by a decorator (`@register("add")`) changes at import, before
    anything is traced, as far as the module shows: nothing shows a write between two calls of
    `apply`, so the finding is a guess (preview). The twin: the module's own code adds an op
    between two calls (default tier)."""
    library = """
        import tensorflow as tf

        _OPS = {}

        def register(name):
            def deco(fn):
                _OPS[name] = fn
                return fn
            return deco

        @register("add")
        def add(a, b):
            return a + b

        @tf.function
        def apply(name, a, b):
            return _OPS[name](a, b)  # preview STG301
    """
    assert_tiers(library)
    assert_marked(library.replace("  # preview STG301", "  # STG301") + """
        def add_op(name, fn):
            _OPS[name] = fn

        apply("add", tf.constant(1.0), tf.constant(2.0))
        add_op("sub", lambda a, b: a - b)
        apply("add", tf.constant(1.0), tf.constant(2.0))
    """)


def test_a_variable_attribute_replaced_where_no_code_shows_the_order_is_preview():
    # STG303 for an attribute: the trace keeps the variable it read, so only a replacement after
    # a call and before another is stale. In `reset()`, a method no code of the project calls,
    # the order is not shown: preview. At module level before the first call it replaces
    # nothing a trace holds; between two calls it does.
    assert_tiers("""
        import tensorflow as tf

        class Scaled(tf.Module):
            def __init__(self):
                self.scale = tf.Variable(1.0)

            def reset(self):
                self.scale = tf.Variable(1.0)  # preview STG303

            @tf.function
            def __call__(self, x):
                return x * self.scale
    """)
    assert_tiers("""
        import tensorflow as tf

        class Model(tf.Module):
            def __init__(self):
                self.bias = tf.Variable(0.0)

        @tf.function
        def evaluate(model, x):
            return x + model.bias

        model = Model()
        model.bias = tf.Variable(1.0)
        print(evaluate(model, tf.constant(1.0)))
        model.bias = tf.Variable(2.0)  # STG303
        print(evaluate(model, tf.constant(1.0)))
    """)


def test_stg301_a_function_that_calls_the_function_around_its_own_write():
    """`first = scaled(x); SCALE = 5.0; second = scaled(x)` in one function: the second call reuses
    the first one's trace, whatever calls that function (default tier). The twin writes only before
    its calls: the first call traces with the new value (a library: preview at most)."""
    assert_tiers("""
        import jax
        import jax.numpy as jnp

        SCALE = 2.0

        @jax.jit
        def scaled(x):
            return x * SCALE  # STG301

        def check():
            global SCALE
            first = scaled(jnp.ones(2))
            SCALE = 5.0
            return first, scaled(jnp.ones(2))
    """)
    assert_tiers("""
        import jax
        import jax.numpy as jnp

        SCALE = 2.0

        @jax.jit
        def scaled(x):
            return x * SCALE  # preview STG301

        def configure_then_run():
            global SCALE
            SCALE = 5.0
            return scaled(jnp.ones(2)), scaled(jnp.ones(2))
    """)


STEP_MODEL = """
    import tensorflow as tf

    scale = 1.0

    class Model(tf.Module):
        def __init__(self):
            self.w = tf.Variable(2.0)

        @tf.function
        def train_step(self, x):
            return self.w * x * scale  # {marker}STG301
"""


def test_stg301_a_function_that_calls_a_function_method_around_its_own_write():
    """`model.train_step(x); scale = 2.0; model.train_step(x)` in one function (the bundled
    example's `main`): `train_step` is a `tf.function` method of the object `model` holds, so
    the second call reuses the first one's trace, with the old value (default tier). The twins
    call it only before the write, or only after: no call of the writer's shows a stale read
    (a library's order: preview at most)."""
    assert_tiers(STEP_MODEL.format(marker="") + """
    def main():
        global scale
        model = Model()
        x = tf.constant([1.0, 2.0])
        model.train_step(x)
        scale = 2.0
        model.train_step(x)
    """)
    assert_tiers(STEP_MODEL.format(marker="preview ") + """
    def main():
        global scale
        model = Model()
        x = tf.constant([1.0, 2.0])
        model.train_step(x)
        scale = 2.0
        return x
    """)
    assert_tiers(STEP_MODEL.format(marker="preview ") + """
    def main():
        global scale
        model = Model()
        x = tf.constant([1.0, 2.0])
        scale = 2.0
        model.train_step(x)
        return model.train_step(x)
    """)


def test_stg301_a_function_that_mutates_the_global_between_its_own_calls():
    assert_marked("""
        import jax
        import jax.numpy as jnp

        settings = {"scale": 1.0}

        @jax.jit
        def scaled(x):
            return x * settings["scale"]  # STG301

        def check():
            scaled(jnp.float32(1))
            settings["scale"] = 2.0
            return scaled(jnp.float32(1))
    """)


def test_a_variable_rebound_before_the_closure_that_reads_it_is_defined_is_not_replaced():
    """`if seed: gen = from_seed(seed)` / `else: gen = ...` above `def pick(x):` reading `gen`:
    each run of the function binds `gen`, then makes the reader, whose first trace reads the last
    binding. Its twin: a rebinding below the reader's def may follow a trace (the preview tier)."""
    assert_tiers("""
        import tensorflow as tf

        def mixture(a, b, p, seed=None):
            if seed is not None:
                gen = tf.random.Generator.from_seed(seed)
            else:
                gen = tf.random.Generator.from_non_deterministic_state()

            def pick(x, y):
                if gen.uniform(shape=()) < p:
                    return x
                return y

            return tf.data.Dataset.zip((a, b)).map(pick)

        def counter(xs):
            total = tf.Variable(0)

            @tf.function
            def add(x):
                return x + total

            out = [add(x) for x in xs]
            total = tf.Variable(1)  # preview STG303
            return out, total

        def mixture2(a, b):
            gen = tf.random.Generator.from_seed(1)

            def pick(x, y):
                return x if gen.uniform(shape=()) < 0.5 else y

            return tf.data.Dataset.zip((a, b)).map(pick)
    """)


def test_a_variable_rebound_before_the_function_that_reads_it_is_defined_is_not_replaced():
    """A notebook cell makes `x = tf.Variable(6.0)` and then `@tf.function def add_print` reading
    `x`, called below: the Function closes over the new variable (TF 2.21,
    tests/runtime/test_tf_capture_order_facts.py); the earlier Functions that read the old `x`
    are never called again, and `f()` called eagerly traces nothing. A trace is stale only when
    one Function object is called before the rebinding and again after it: its twins call
    `add_print` (or `g`, through the helper `f`) on both sides."""
    assert_marked("""
        import tensorflow as tf

        x = tf.Variable(1.0)

        @tf.function
        def old_reader(a):
            return a + x

        old_reader(tf.constant(1.0))
        x = tf.Variable(6.0)

        @tf.function
        def add_print(a):
            x.assign_add(a)
            return x

        add_print(tf.constant(3.0))
    """)
    assert_marked("""
        import tensorflow as tf

        x = tf.Variable(0.0)

        def f():
            return x * x

        @tf.function
        def g():
            return f()

        g()
        x = tf.Variable(1.0)

        @tf.function
        def h():
            return f()

        h()
        f()
    """)
    assert_marked("""
        import tensorflow as tf

        x = tf.Variable(6.0)

        @tf.function
        def add_print(a):
            x.assign_add(a)
            return x

        add_print(tf.constant(3.0))
        x = tf.Variable(0.0)  # STG303
        add_print(tf.constant(3.0))
    """)
    assert_marked("""
        import tensorflow as tf

        x = tf.Variable(0.0)

        def f():
            return x * x

        @tf.function
        def g():
            return f()

        def run():
            return g()

        g()
        x = tf.Variable(1.0)  # STG303

        @tf.function
        def h():
            return f()

        h()
        run()
    """)


# STG301 under TensorFlow: only the order the code shows is default -----------------------------


def test_stg301_a_module_level_call_above_the_readers_def_does_not_run_it():
    # a notebook: `step` is first what a factory made, called in an early cell, and only later
    # the module-level `def step` that reads the global; the early call ran the factory's Function
    program = """
    import tensorflow as tf

    def make_step():
        @tf.function
        def inner(x):
            return x

        return inner

    scale = 1.0
    step = make_step()
    step(tf.constant(1.0))
    scale = 2.0

    @tf.function
    def step(x):
        return x * scale

    step(tf.constant(1.0))
    step(tf.constant(2.0))
    """
    assert_marked(program)
    # the twin: the reader is defined above the first call, which traces it before the change
    assert_marked("""
    import tensorflow as tf

    scale = 1.0

    @tf.function
    def step(x):
        return x * scale  # STG301

    step(tf.constant(1.0))
    scale = 2.0
    step(tf.constant(1.0))
    """)


def test_stg301_a_function_defined_afresh_in_a_module_level_loop_is_a_new_function_each_time():
    # a notebook re-making `step` for each configuration (tests/runtime/test_tf_capture_order_facts.py)
    assert_marked("""
    import tensorflow as tf

    for rate in (0.5, 1.0):
        fire_rate = rate

        @tf.function  # STG502
        def step(x):
            return x * fire_rate

        for _ in range(3):
            step(tf.constant(1.0))
    """)
    # the twin: one Function made before the loop, called in it after each rebinding
    assert_marked("""
    import tensorflow as tf

    @tf.function
    def step(x):
        return x * fire_rate  # STG301

    for rate in (0.5, 1.0):
        fire_rate = rate
        for _ in range(3):
            step(tf.constant(1.0))
    """)


def test_stg301_a_closure_whose_function_only_escapes_is_preview_and_one_returned_after_is_silent():
    assert_tiers("""
    import tensorflow as tf

    def called_around(data):
        scale = 1.0

        @tf.function
        def f(x):
            return x * scale  # STG301

        f(data)
        scale = 2.0
        return f(data)

    def stored_before(registry):
        scale = 1.0

        @tf.function
        def g(x):
            return x * scale  # preview STG301

        registry["g"] = g  # stored: called when, the code does not show
        scale = 2.0

    def returned_after():
        scale = 1.0

        @tf.function
        def h(x):
            return x * scale

        scale = 2.0
        return h
    """)


def test_stg301_a_closure_mutated_by_another_function_is_preview():
    assert_tiers("""
    import tensorflow as tf

    def train(data, steps):
        history = []

        @tf.function
        def f(x):
            return x * len(history)  # preview STG301

        def record(v):  # called whenever its caller calls it
            history.append(v)

        for _ in range(steps):
            f(data)
        return record

    def train_in_place(data, steps):
        history = []

        @tf.function
        def f(x):
            return x * len(history)  # STG301

        for v in range(steps):
            f(data)
            history.append(v)
    """)


def test_stg301_a_global_rebound_inside_a_function_with_no_order_shown_is_preview_under_tensorflow():
    assert_tiers("""
    import tensorflow as tf

    @tf.function
    def f(x):
        return x * mode  # preview STG301

    def configure(modes):
        global mode
        for mode in modes:
            pass
    """)


def test_stg301_a_lambda_reading_a_container_its_function_fills_after_it_is_made(tmp_path):
    # A lambda has no name: the guess about when it runs again speaks of "the lambda" (this
    # raised AttributeError inside STG301 and lost the file's findings; ninth TF audit).
    source = """
    import tensorflow as tf

    def build(ds, shape):
        dataset = {}
        ds = ds.map(lambda data: tf.reshape(data, shape) * dataset["num_classes"])
        dataset["test"] = ds.batch(8)
        return dataset
    """
    for preview in (False, True):
        assert [f.code for f in check_project(tmp_path, {"pipeline.py": source}, preview=preview)] == []


def test_a_function_defined_again_after_the_rebinding_is_a_new_function():
    """Python rebinds the name at each `def`: a test that rebinds what its `@tf.function run`
    reads and then defines `run` again calls the new Function after the rebinding, which traces
    with the new value (TF 2.21: 1.0 then 2.0); the first `run` is never called after it. Its
    twins: a redefinition only in one branch of an `if`, or in a `try` body the call is not in,
    may not have run, and a call of the same Function after the rebinding is stale."""
    assert_marked("""
    import tensorflow as tf

    def test_graph_mode(make):
        mapper = make(1)

        @tf.function
        def run(x):
            return mapper(x)

        run(1)
        mapper = make(2)

        @tf.function
        def run(x):
            return mapper(x)

        run(2)
    """)
    assert_marked("""
    import tensorflow as tf

    def test_same_function(make):
        mapper = make(1)

        @tf.function
        def run(x):
            return mapper(x)  # STG301

        run(1)
        mapper = make(2)
        run(2)

    def test_redefined_in_one_branch(make, flag):
        mapper = make(1)

        @tf.function
        def run(x):
            return mapper(x)  # STG301

        run(1)
        mapper = make(2)
        if flag:
            @tf.function
            def run(x):
                return mapper(x)
        run(2)

    def test_redefined_in_a_try(make):
        mapper = make(1)

        @tf.function
        def run(x):
            return mapper(x)  # STG301

        run(1)
        mapper = make(2)
        try:
            @tf.function
            def run(x):
                return mapper(x)
        except ValueError:
            run(2)
    """)


def test_a_name_rebound_to_a_wrapper_of_the_same_def_still_calls_it():
    """`step = tf.function(step)` rebinds the name to a Function of the same def: calls after
    it run the def (lop-jax's `update_task = jax.jit(update_task)`), unlike a second `def`."""
    assert_marked("""
    import tensorflow as tf

    def train(make):
        mapper = make(1)

        def run(x):
            return mapper(x)  # STG301

        run = tf.function(run)
        run(1)
        mapper = make(2)
        run(2)
    """)
