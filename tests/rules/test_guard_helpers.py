"""Guards through project helpers (issue 23's class 4): a project function that is itself the
framework's graph or tracer test guards like the test (`analysis.context.tracing_test`).

keras-hub's `in_tf_function()` (`if tf is None: return False; return not tf.executing_eagerly()`)
returns True in every trace TensorFlow makes, so the `else:` of `if in_tf_function():` in a Keras 3
`call` runs on eager calls only, also where the predicate is imported from another module of the
project (TF 2.21: tests/runtime/test_tf_guard_helper_facts.py). jaxnu-osc's `_is_concrete(x)`
(`return not isinstance(x, jax.core.Tracer)`) is False in every JAX trace, so `if _is_concrete(x)
and np.any(np.asarray(x) < 0):` never evaluates its right operand there, and `if _is_concrete(x):`
never runs its body (JAX 0.10.2: tests/runtime/test_jax_guard_helper_facts.py). Twins: a helper
returning a parameter, testing something else, or returning False on a condition of its own is no
guard."""

from __future__ import annotations

from rulecases import assert_marked, assert_project_marked

_TENSOR_UTILS = """
    def try_import_tensorflow():
        try:
            import tensorflow as _tf
        except ImportError:
            return None
        return _tf


    tf = try_import_tensorflow()


    def in_tf_function():
        if tf is None:
            return False
        return not tf.executing_eagerly()


    def true_when_absent():
        if tf is None:
            return True
        return not tf.executing_eagerly()


    def in_graph(flag=False):
        if tf is None:
            return False
        return flag


    def runs_eagerly():
        if tf is None:
            return False
        return tf.config.functions_run_eagerly()


    def early_false(quick):
        if quick:
            return False
        return not tf.executing_eagerly()


    def raising_when_absent():
        # in a graph
        if tf is None:
            raise ImportError("TensorFlow is needed")
        return tf.inside_function()


    def noted_false(quick):
        if quick:
            quick = not quick
            return False
        return not tf.executing_eagerly()
"""

_LAYER = """
    import keras
    from keras import ops


    class Resize(keras.layers.Layer):
        def call(self, inputs):
            from pkg.tensor_utils import {helper}

            if {helper}():
                import tensorflow as tf

                return tf.image.resize(inputs, (tf.shape(inputs)[1] * 2, 4))
            else:
                height = ops.shape(inputs)[1] * ops.cast(2, "int32")
                return ops.image.resize(inputs, size=(int(height), 4)){marker}


    model = keras.Sequential([keras.Input((4, 4, 3)), Resize()])
    model.compile(optimizer="sgd", loss="mse")
"""


def _files(helper: str, marker: str) -> dict[str, str]:
    return {"pkg/__init__.py": "", "pkg/tensor_utils.py": _TENSOR_UTILS,
            "pkg/layer.py": _LAYER.replace("{helper}", helper).replace("{marker}", marker)}


def test_the_else_of_a_project_graph_test_imported_from_another_module_is_never_traced(tmp_path):
    """`true_when_absent` too: its early `return True` is taken only where TensorFlow cannot be
    imported, and then it says True as the graph test does in every trace: the `else:` runs
    only where TensorFlow is present and executing eagerly, as with `in_tf_function`."""
    for helper in ("in_tf_function", "true_when_absent", "raising_when_absent"):
        assert_project_marked(tmp_path / helper, _files(helper, ""), preview=True)


def test_helpers_that_are_not_the_graph_test_guard_nothing(tmp_path):
    """Returning a parameter, testing the eager switch, returning False on another condition."""
    for helper in ("in_graph", "runs_eagerly", "early_false", "noted_false"):
        assert_project_marked(tmp_path / helper, _files(helper, "  # STG602"), preview=True)


def test_a_tracer_test_helper_guards_its_and_operand_and_its_block():
    assert_marked("""
        import jax
        import jax.numpy as jnp
        import numpy as np


        def _is_concrete(x):
            \"\"\"True unless `x` is a tracer.\"\"\"
            return not isinstance(x, jax.core.Tracer)


        def _checked(x, check=True):
            return check


        def _is_array(x):
            return isinstance(x, jax.Array)


        def check(x):
            if _is_concrete(x) and np.any(np.asarray(x) < 0):
                raise ValueError("negative")
            if _is_concrete(x):
                if np.any(np.asarray(x) > 9):
                    raise ValueError("large")


        def check_param(x):
            if _checked(x) and np.any(np.asarray(x) < 0):  # STG601
                raise ValueError("negative")


        def check_other(x):
            if _is_array(x):
                if np.any(np.asarray(x) < 0):  # STG601
                    raise ValueError("negative")


        @jax.jit
        def f(x):
            check(x)
            check_param(x)
            check_other(x)
            return jnp.sin(x)
    """)


def test_an_eager_test_helper_and_the_or_operand_after_a_tracer_test():
    assert_marked("""
        import jax
        import jax.numpy as jnp
        import numpy as np


        def is_tracer(x):
            return isinstance(x, jax.core.Tracer)


        def check(x):
            if is_tracer(x) or np.any(np.asarray(x) < 0):
                return x
            return -x


        def check_not(x):
            if not is_tracer(x) or np.any(np.asarray(x) > 9):  # STG601
                return x
            return -x


        @jax.jit
        def f(x):
            return jnp.sin(check(x)) + check_not(x)
    """)
