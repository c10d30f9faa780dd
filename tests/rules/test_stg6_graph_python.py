"""STG601 eager-only-call, STG602 tensor-as-python-value, STG603 discarded-op."""

from __future__ import annotations

from rulecases import assert_marked, assert_project_marked, assert_tiers

# STG601 ------------------------------------------------------------------------------------------


def test_numpy_and_numpy_method_on_tensors_in_staged_code():
    assert_marked("""
        import numpy as np
        import tensorflow as tf

        v = tf.Variable(1.0)

        @tf.function
        def f(x):
            y = tf.square(x)
            a = y.numpy()  # STG601
            b = np.mean(y)  # STG601
            c = np.asarray(y + 1)  # STG601
            d = x.numpy()  # STG601
            e = v.numpy()  # STG601
            return y, a, b, c, d, e
    """)


def test_numpy_on_python_constants_and_static_shapes_is_fine():
    assert_marked("""
        import numpy as np
        import tensorflow as tf

        table = np.arange(4).tolist()
        eager_constant = tf.constant(3.0)

        @tf.function
        def f(x):
            size = np.prod(x.shape)
            scale = np.sqrt(2.0) * np.pi
            offset = eager_constant.numpy()
            weights = np.ones(3).tolist()
            return tf.cast(x, np.float32) * scale + size + offset + sum(weights) + table[0]
    """)


def test_leaked_tensor_numpy_outside_staged_code_is_not_eager_only():
    # T37: the `.numpy()` call on the leaked tensor runs eagerly; the leak is STG201's.
    assert_marked("""
        import tensorflow as tf

        x = None

        @tf.function
        def leaky_function(a):
            global x
            x = a + 1  # STG201
            return a + 2

        correct_a = leaky_function(tf.constant(1))
        print(correct_a.numpy())
        try:
            x.numpy()
        except AttributeError as expected:
            print(expected)
    """)


def test_item_and_tolist_need_a_tensor_numpy_function_is_eager():
    assert_marked("""
        import numpy as np
        import tensorflow as tf

        def np_sum(a):
            return np.sum(a).item()

        @tf.function
        def f(x, values):
            total = tf.reduce_sum(x)
            first = total.item()  # STG601
            rows = values.tolist()
            return tf.numpy_function(np_sum, [x], tf.float32) + first + len(rows)

        f(tf.ones([2]), np.ones(3))
    """)


def test_stg601_interprocedural_across_modules(tmp_path):
    got = assert_project_marked(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/metrics.py": """
            import numpy as np

            def summarize(t):
                return float(np.median(t))  # STG601
        """,
        "pkg/train.py": """
            import tensorflow as tf
            from pkg.metrics import summarize

            @tf.function
            def step(x):
                loss = tf.reduce_sum(x)
                return summarize(loss)

            step(tf.ones([2]))
        """,
    })
    assert got[0].entry_point == "pkg.train.step" and "NotImplementedError" in got[0].message


# STG602 ------------------------------------------------------------------------------------------


def test_assert_bool_membership_on_tensors():
    assert_marked("""
        import tensorflow as tf

        @tf.function
        def f(x):
            assert tf.reduce_all(x > 0)  # STG602
            assert x.shape[0] == 2
            assert isinstance(x, tf.Tensor)
            positive = bool(tf.reduce_sum(x) > 0)  # STG602
            small = tf.reduce_max(x) in [1.0, 2.0]  # STG602
            return positive, small
    """)


def test_iterating_a_tensor_outside_a_for_statement():
    assert_marked("""
        import tensorflow as tf

        def g(*args):
            return args

        @tf.function
        def f(x):
            x = tf.reshape(x, [-1])
            doubled = [r * 2 for r in x]  # STG602
            total = sum(x)  # STG602
            pairs = list(zip(x, x))  # STG602
            first, second = x  # STG602
            args = g(*x)  # STG602
            for i, r in enumerate(x):  # STG602
                pass
            return doubled, total, pairs, first, second, args
    """)


def test_what_autograph_converts_and_python_sequences_of_tensors():
    assert_marked("""
        import tensorflow as tf

        @tf.function
        def f(x):
            x = tf.reshape(x, [-1])
            while tf.reduce_sum(x) > 1:
                x = tf.tanh(x)
            if x[0] > 0:
                x = -x
            y = x if x[1] > 0 else -x
            total = 0.0
            for r in x:
                total += r
            a, b = tf.unstack(x[:2])
            parts = tf.split(x, 2)
            halves = [p * 2 for p in parts]
            return total, y, a + b, halves, int(x[0]), float(x[1]), len(x)
    """)


def test_a_branch_for_other_kinds_than_a_tensor_is_not_a_tensor_iterated():
    # While traced, a symbolic tensor is an instance of tf.Tensor (TF 2.21): a branch its type test
    # keeps for lists and Python shapes is not run with one (tensorflow-mri's central_crop, a
    # capsule network's Mask layer); the same iteration and unpacking outside such a branch are.
    assert_marked("""
        import tensorflow as tf

        @tf.function
        def crop(x, shape):
            shape = tf.reshape(shape, [-1])
            if not isinstance(shape, tf.Tensor):
                shape = [-1] + list(shape)
            return x

        @tf.function
        def mask(inputs):
            inputs = tf.identity(inputs)
            if type(inputs) is list:
                inputs, m = inputs
            else:
                m = tf.ones_like(inputs)
            return inputs * m

        @tf.function
        def crop_anyway(x, shape):
            shape = tf.reshape(shape, [-1])
            dims = [-1] + list(shape)  # STG602
            head, tail = tf.abs(x)  # STG602
            return x
    """)


def test_identity_n_returns_a_python_list_of_tensors():
    # tf.identity_n([a, b]) is a Python list of two tensors (TF 2.21): unpacking it is plain Python;
    # unpacking tf.identity's one tensor is not.
    assert_marked("""
        import tensorflow as tf

        @tf.function
        def f(a, b):
            a, b = tf.identity_n([tf.abs(a), tf.abs(b)])
            c, d = tf.identity(tf.abs(a))  # STG602
            return a + b + c + d
    """)


def test_while_true_with_a_tensor_break():
    assert_marked("""
        import tensorflow as tf

        @tf.function
        def countdown(s):
            s = tf.convert_to_tensor(s)
            while True:  # STG602
                s = s - 1
                if s < 0:
                    break
            for _ in range(3):
                if s < 0:
                    break
            while True:
                if s.shape.rank == 0:
                    break
            return s
    """)


def test_int_float_len_raise_only_without_autograph():
    assert_marked("""
        import tensorflow as tf

        @tf.function(autograph=False)
        def plain(x):
            n = tf.size(x)
            return tf.ones([int(n)]), float(tf.reduce_sum(x)), len(tf.reshape(x, [-1]))  # STG602

        @tf.function
        def converted(x):
            n = tf.size(x)
            return tf.ones([int(n)]), float(tf.reduce_sum(x))
    """)


def test_an_input_signature_makes_each_tensorspec_parameter_a_tensor():
    # Nothing calls these: the signature alone says what they receive. A nested structure of
    # specs is a tuple of tensors, which Python may unpack.
    assert_marked("""
        import tensorflow as tf

        @tf.function(input_signature=[tf.TensorSpec([], tf.float32), tf.TensorSpec([], tf.int32)])
        def f(x, n):
            y = x * 2
            assert y > 0  # STG602
            return y, n in (1, 2)  # STG602

        @tf.function(input_signature=[(tf.TensorSpec([], tf.float32), tf.TensorSpec([], tf.float32))])
        def g(pair):
            a, b = pair
            return a + b

        class M(tf.Module):
            @tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])
            def __call__(self, x):
                return [r for r in x]  # STG602
    """)


def test_t04_t52_module_level_assert_and_tensor_if_are_fine():
    assert_marked("""
        import tensorflow as tf

        def simple_relu(x):
            if tf.greater(x, 0):
                return x
            else:
                return 0

        tf_simple_relu = tf.function(simple_relu)
        first = tf_simple_relu(tf.constant(1)).numpy()
        assert first == tf.constant(1)
    """)


def test_keras_inputs_that_may_be_lists_are_not_iteration_errors():
    assert_marked("""
        import tensorflow as tf

        class Concat(tf.keras.layers.Layer):
            def call(self, inputs, states):
                expanded = [tf.expand_dims(t, 1) for t in inputs]
                first, *rest = states
                return tf.concat(expanded, axis=1), first
    """)


def test_stg602_interprocedural_across_modules(tmp_path):
    got = assert_project_marked(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/checks.py": """
            import tensorflow as tf

            def check_positive(x):
                assert tf.reduce_min(x) > 0  # STG602
                return x
        """,
        "pkg/train.py": """
            import tensorflow as tf
            from pkg.checks import check_positive

            @tf.function
            def step(x):
                return check_positive(x) * 2
        """,
    })
    assert got[0].entry_point == "pkg.train.step" and "OperatorNotAllowedInGraphError" in got[0].message


# STG603 ------------------------------------------------------------------------------------------


def test_t61_t62_unused_gather_is_pruned_in_graph_only():
    assert_marked("""
        import tensorflow as tf

        def unused_return_eager(x):
            tf.gather(x, [1])
            return x

        @tf.function
        def unused_return_graph(x):
            tf.gather(x, [1])  # STG603
            return x

        print(unused_return_eager(tf.constant([0.0])))
        print(unused_return_graph(tf.constant([0.0])))
    """)


def test_broadcast_static_shape_is_python_on_shapes_not_a_pruned_op():
    # tf.broadcast_static_shape works on TensorShapes in Python and raises ValueError while traced
    # (TF 2.21): a check kept as a statement, nothing for the graph to prune; the op
    # tf.broadcast_dynamic_shape on shape tensors is pruned when unused.
    assert_marked("""
        import tensorflow as tf

        @tf.function
        def f(a, b):
            tf.broadcast_static_shape(a.shape, b.shape)
            tf.broadcast_dynamic_shape(tf.shape(a), tf.shape(b))  # STG603
            return a + b
    """)


def test_stateful_ops_and_used_results_are_not_discarded():
    assert_marked("""
        import tensorflow as tf

        v = tf.Variable(0.0)
        ta = tf.TensorArray(tf.float32, size=2)

        @tf.function
        def f(x):
            tf.print("x:", x)
            tf.debugging.assert_positive(x)
            tf.debugging.check_numerics(x, "x")
            tf.summary.scalar("x", tf.reduce_sum(x), step=1)
            tf.random.uniform([2])
            v.assign_add(tf.reduce_sum(x))
            tf.cond(x[0] > 0, lambda: tf.print("pos"), lambda: tf.print("neg"))
            tf.py_function(lambda: None, [], [])
            y = tf.gather(x, [0])
            return y
    """)


def test_checks_and_functional_updates_whose_result_is_dropped():
    assert_marked("""
        import tensorflow as tf

        @tf.function
        def f(x, indices, updates):
            tf.ensure_shape(x, [None, 3])  # STG603
            tf.tensor_scatter_nd_update(x, indices, updates)  # STG603
            tf.strings.to_number("abc")  # STG603
            return x
    """)


def test_stg603_an_indexed_update_whose_spelled_shapes_do_not_fit_raises_at_trace():
    # the nineteenth TF audit's BU-t3 (TashaSkyUp/SpaceGan): index depth 2 over the rank-1
    # variable every call passes; the shape function raises ValueError at trace, used or not
    assert_marked("""
        import tensorflow as tf

        @tf.function
        def test(a):
            tf.tensor_scatter_nd_update(a, [0, 1], [10])
            tf.tensor_scatter_nd_add(tf.constant([1, 2]), [[0, 0]], [1])
            return a

        test(tf.Variable([1, 2]))[0]
    """)
    # the notebook cell rebuilds the Function from its Python function first (re-run safe)
    assert_marked("""
        import tensorflow as tf

        try:
            test = tf.function(test.python_function)
        except:
            pass

        @tf.function
        def test(a):
            tf.tensor_scatter_nd_update(a, [0, 1], [10])
            return a

        test(tf.Variable([1, 2]))[0]
    """)


def test_stg603_an_indexed_update_whose_shapes_fit_or_are_not_shown_is_pruned():
    # shapes that fit: an index out of range is a run-time value, pruned with the op (TF 2.21)
    assert_marked("""
        import tensorflow as tf

        @tf.function
        def test(a):
            tf.tensor_scatter_nd_update(a, [[5]], [10])  # STG603
            tf.tensor_scatter_nd_update(tf.constant([1, 2]), [[0], [1]], [10, 20])  # STG603
            return a

        test(tf.Variable([1, 2]))
    """)
    # one call passes a shape that fits, or the function is handed on: not every trace raises
    assert_marked("""
        import tensorflow as tf

        @tf.function
        def test(a):
            tf.tensor_scatter_nd_update(a, [0, 1], [10])  # STG603
            return a

        test(tf.Variable([1, 2]))
        test(tf.Variable([[[1], [2]], [[3], [4]]]))
    """)
    assert_marked("""
        import tensorflow as tf

        @tf.function
        def test(a):
            tf.tensor_scatter_nd_update(a, [0, 1], [10])  # STG603
            return a

        test(tf.Variable([1, 2]))
        run = test
    """)
    # a concrete function of other shapes traces it too
    assert_marked("""
        import tensorflow as tf

        @tf.function
        def test(a):
            tf.tensor_scatter_nd_update(a, [0, 1], [10])  # STG603
            return a

        test(tf.Variable([1, 2]))
        test.get_concrete_function(tf.TensorSpec([2, 2, 1], tf.int32))
    """)


def test_stg603_interprocedural_across_modules(tmp_path):
    got = assert_project_marked(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/validate.py": """
            import tensorflow as tf

            def validate(x):
                tf.ensure_shape(x, [None, 3])  # STG603
        """,
        "pkg/train.py": """
            import tensorflow as tf
            from pkg.validate import validate

            @tf.function
            def step(x):
                validate(x)
                return x * 2
        """,
    })
    assert got[0].entry_point == "pkg.train.step" and "`tf.ensure_shape(...)`" in got[0].message


def test_compat_spellings_of_stateful_ops_are_not_discarded():
    assert_marked("""
        import tensorflow as tf
        from tensorflow.compat import v1 as tf1

        @tf.function
        def f(x):
            tf.compat.v1.print("x", x)
            tf1.debugging.assert_positive(x)
            tf.compat.v1.gather(x, [1])  # STG603
            return x
    """)


def test_an_unused_smart_cond_keeps_its_branch_updates_an_unused_op_does_not():
    # smart_cond is tf.cond for a tensor predicate and calls the branch for a Python bool: the
    # branch's variable updates run either way (TF 2.21); a pure op's dropped result is pruned.
    assert_marked("""
        import tensorflow as tf
        from tensorflow.python.framework import smart_cond as tf_utils

        v = tf.Variable(0.0)

        @tf.function
        def f(x, training):
            tf_utils.smart_cond(training, lambda: v.assign_add(1.0), lambda: v.assign_add(0.0))
            tf.__internal__.smart_cond.smart_cond(training, lambda: v.assign(x), lambda: v)
            tf.reduce_sum(x)  # STG603
            return x
    """)


def test_unpacking_control_flow_outputs_is_fine():
    assert_marked("""
        import tensorflow as tf

        @tf.function
        def f(x):
            i, total = tf.while_loop(lambda i, t: i < 3, lambda i, t: (i + 1, t + x), [0, x])
            a, b = tf.cond(x[0] > 0, lambda: (x, -x), lambda: (-x, x))
            return i, total, a, b
    """)


def test_a_parameter_tested_as_a_structure_is_not_iterated_as_a_tensor():
    assert_marked("""
        import tensorflow as tf

        @tf.function
        def f(states, x):
            y = tf.reduce_sum(states) + tf.reduce_sum(x)
            if tf.nest.is_nested(states):
                states = list(states)
            first = [s * 2 for s in x]  # STG602
            return y, states, first
    """)


# STG602 in Keras 3 methods (issue 11 point 7; tests/test_keras3_autograph.py runs the facts) ----


def test_keras3_call_and_its_helpers_are_not_converted_by_autograph():
    assert_marked("""
        import keras
        import tensorflow as tf

        class Gate(keras.layers.Layer):
            def call(self, x, training=False):
                if training:
                    x = x * 0.5
                if tf.reduce_sum(x) > 0:  # STG602
                    x = x * 2
                for i in tf.range(3):  # STG602
                    x = x + 1.0
                return self.scale(x) * float(tf.reduce_max(x))  # STG602

            def scale(self, x):
                return x * 2 if tf.reduce_mean(x) > 0 else x  # STG602

        class Trainer(keras.Model):
            def train_step(self, data):
                x, y = data
                while tf.reduce_sum(x) > 10:  # STG602
                    x = x / 2
                return {"loss": tf.reduce_sum(x - y)}

        gated = keras.Sequential([Gate()])
        Trainer().fit(data)
    """)


def test_the_same_code_where_autograph_converts_it_is_fine():
    # A tf.function body, Keras 2 (`tf_keras`), a Keras 3 `call` that is itself a tf.function,
    # and the graph ops Keras 3 asks for (`tf.cond`, `tf.while_loop`, `tf.cast`).
    assert_marked("""
        import keras
        import tensorflow as tf
        import tf_keras

        @tf.function
        def body(x):
            if tf.reduce_sum(x) > 0:
                x = x * 2
            for i in tf.range(3):
                x = x + 1.0
            return x * float(tf.reduce_max(x))

        class Legacy(tf_keras.layers.Layer):
            def call(self, x):
                if tf.reduce_sum(x) > 0:
                    x = x * 2
                return x

        class Compiled(keras.layers.Layer):
            @tf.function
            def call(self, x):
                if tf.reduce_sum(x) > 0:
                    x = x * 2
                return x

        class Graph(keras.layers.Layer):
            def call(self, x):
                x = tf.cond(tf.reduce_sum(x) > 0, lambda: x * 2, lambda: x)
                x = tf.while_loop(lambda v: tf.reduce_sum(v) > 10, lambda v: v / 2, [x])[0]
                return x * tf.cast(tf.reduce_max(x), x.dtype)
    """)


def test_keras3_base_class_and_helper_across_modules(tmp_path):
    assert_project_marked(tmp_path, {
        "net/__init__.py": "",
        "net/base.py": """
            import keras

            class Block(keras.layers.Layer):
                pass
        """,
        "net/ops.py": """
            import tensorflow as tf

            def clip(x):
                if tf.reduce_max(x) > 1.0:  # STG602
                    return x / tf.reduce_max(x)
                return x

            def shared(x):
                if tf.reduce_min(x) < 0:
                    return -x
                return x
        """,
        "net/layers.py": """
            import tensorflow as tf
            from net.base import Block
            from net.ops import clip, shared

            class Clip(Block):
                def call(self, x):
                    return shared(clip(x))

            model = tf.keras.Sequential([Clip()])

            @tf.function
            def step(x):
                return shared(x)
        """,
    })


def test_keras3_and_autograph_off_python_tests_of_optional_inputs_are_fine():
    # tfp (autograph=False everywhere) and keras-hub preprocessors: `if rate is None:` is a
    # Python bool; a parameter's truth value needs evidence that it is a tensor.
    assert_marked("""
        import keras
        import tensorflow as tf

        @tf.function(autograph=False)
        def sample(shape, rate=None, log_rate=None):
            if rate is None and log_rate is not None:
                rate = tf.exp(log_rate)
            return tf.random.gamma(shape, 1.0) / (rate if rate is not None else 1.0)

        class Pre(keras.layers.Layer):
            def call(self, x, mask=None, training=False):
                if mask is not None:
                    x = x * mask
                if not training:
                    return x
                return x * 2
    """)


def test_autograph_off_branch_on_an_optional_static_value_is_fine():
    # tfp prefer_static.cond: `pred_value = static_value(pred)` is a NumPy value or None.
    assert_marked("""
        import tensorflow as tf

        def static_value(pred):
            value = tf.get_static_value(pred)
            return value if value is not None else pred

        @tf.function(autograph=False)
        def cond(pred, a, b):
            pred_value = static_value(pred)
            if pred_value is not None:
                if pred_value:
                    return a
                return b
            return tf.where(pred, a, b)
    """)


def test_python_values_around_tensors_in_library_code_are_not_tensors():
    """tensorflow/gnn: a parameter annotated as a dtype (`dtype.min`, `dtype in (...)`), a slice
    of `tf.unstack`'s list, `tf.linalg.normalize`'s (tensor, norm) pair, a RaggedTensor's
    `nested_row_splits` tuple, a composite's `rank` (a Python int) and `tf.get_logger()`, a
    Python logger: all plain Python under tf.function (checked with TensorFlow 2.21). The twins
    iterate, unpack and test tensors, and discard an op's result."""
    assert_marked("""
        from typing import Optional

        import tensorflow as tf

        @tf.function
        def typed_random_values(size, dtype: tf.dtypes.DType, name: Optional[str] = None):
            if dtype in (tf.int64, tf.uint64):
                return tf.cast(tf.random.uniform([size], 100, 999, tf.int64), dtype)
            low = tf.constant(max(10, dtype.min), tf.int32)
            return tf.cast(tf.random.uniform([size], low, 100, tf.int32), dtype)

        @tf.function
        def restore(value, shape, index_0, index_1, graph):
            assert graph.rank == 1
            for dim in reversed(tf.unstack(shape)[1:]):
                value = tf.RaggedTensor.from_uniform_row_length(value, dim)
            checks = [tf.debugging.assert_equal(a, b)
                      for a, b in zip(index_0.nested_row_splits, index_1.nested_row_splits)]
            normalized, _ = tf.linalg.normalize(tf.cast(shape, tf.float32))
            if shape.shape[1:].num_elements() == 0:
                tf.get_logger().warning("empty shape")
            return value, checks, normalized

        @tf.function
        def twins(x):
            for dim in reversed(tf.shape(x)[1:]):  # STG602
                x = x + tf.cast(dim, x.dtype)
            total, count = tf.reduce_sum(x)  # STG602
            tf.gather(x, [0])  # STG603
            return total + count
    """)


def test_a_parameter_annotated_as_a_list_of_python_scalars_is_python_where_callers_pass_it():
    # deeplab2's `_generate_mask_slot_semantic_one_hot(..., thing_stuff_class_ids: List[int])`:
    # `max(ids)` on the list a layer keeps; the same helper without the annotation is judged by its
    # use as an op operand (`tf.cast(ids)`), which makes it a tensor parameter
    assert_marked("""
        from typing import List, Sequence

        import tensorflow as tf

        def slots(x, class_ids: List[int], sizes: Sequence[int]):
            t = tf.cast(class_ids, tf.float32) + tf.cast(sizes, tf.float32)
            return tf.zeros([max(class_ids) + 2, max(sizes)]) + x + t[0]

        def slots_untyped(x, class_ids):
            t = tf.cast(class_ids, tf.float32)
            return tf.zeros([max(class_ids) + 2]) + x + t[0]  # STG602

        class Loss(tf.keras.layers.Layer):
            def build(self, input_shape):
                self._class_ids = list(range(int(input_shape[-1])))

            def call(self, x):
                return slots(x, self._class_ids, self._class_ids) + slots_untyped(x, self._class_ids)

        model = tf.keras.Sequential([Loss()])
    """)


def test_a_jitted_functions_own_list_parameter_is_traced_whatever_its_annotation():
    # jax.jit flattens a list argument into its leaves: each is a tracer
    assert_marked("""
        from typing import List

        import jax

        @jax.jit
        def pick(x, ids: List[int]):
            if ids[0] > 0:  # STG602
                return x
            return -x
    """)


def test_an_argument_grad_does_not_differentiate_is_the_callers_python_value():
    # ott's Arccos._j: `jax.grad(f)(t, i - 1)` recursing on a Python int under a jit
    # (frameworks.JAX_DIFFERENTIATES_ARGNUMS, tests/runtime/test_jax_grad_argnums.py); the
    # argument grad differentiates (`argnums=1`) is a tracer under the jit around it
    assert_marked("""
        import jax
        import jax.numpy as jnp

        def nth(t, i):
            if i == 0:
                return jnp.sin(t)
            return jax.grad(nth)(t, i - 1)

        @jax.jit
        def third(t):
            return nth(t, 3)

        def scaled(x, w):
            if w > 0:  # STG602
                return x * w
            return x

        @jax.jit
        def outer(x, w):
            return jax.grad(scaled, argnums=1)(x, w)
    """)


def test_stg603_tensorflow_1_python_helpers_are_no_ops_to_prune():
    """`tf.logging.info` (TensorFlow 1's name of Python logging) and `tf.add_to_collection` (a
    Python list of the graph, returning None) make no op whose unused result a graph prunes (the
    logging runs while tracing: STG101, once per function). The twin: an unused `tf.gather`."""
    assert_marked("""
        import tensorflow as tf

        @tf.function
        def f(x):
            tf.logging.info("step")  # STG101
            tf.compat.v1.logging.info("step")
            tf.add_to_collection("updates", x)
            tf.compat.v1.add_to_collection("updates", x)
            tf.gather(x, [1])  # STG603
            return x
    """)


def test_stg601_a_parameter_only_an_op_operand_shows_is_a_guess():
    """TensorFlow ops take Python numbers (`tf.range(1, size + 1)`), and a static dimension is a
    Python int while traced (tests/runtime/test_tf_retracing_facts.py): a parameter whose only
    evidence is an op it is given to may be a Python value (the preview tier). Its twin: a
    caller passing a tensor shows it (the default tier)."""
    assert_tiers("""
        import numpy as np
        import tensorflow as tf

        def central_mask(positions, feature_size, seq_length):
            pow_rate = np.exp(np.log(seq_length + 1) / feature_size)  # preview STG601
            return tf.pow(pow_rate, tf.range(1, feature_size + 1, dtype=tf.float32)) + positions

        def scale(x, width):
            return np.exp(width) * x  # STG601

        class Attention(tf.keras.layers.Layer):
            def call(self, inputs):
                seq_len = inputs.shape[1]
                distances = tf.range(-seq_len + 1, seq_len, dtype=tf.float32)
                return central_mask(distances, 8, seq_len) + scale(inputs, tf.reduce_max(inputs))

        model = tf.keras.Sequential([Attention()])
    """)


def test_get_weights_of_a_keras_layer_in_staged_code_is_reported_in_the_rules_tier():
    """`Layer.get_weights()` in a `tf.function` raises (Keras 3 NotImplementedError, tf_keras
    RuntimeError: tests/runtime/test_tf_fresh_facts.py): the receiver shown to be a Keras layer
    (a `keras.layers` constructor, or a sub-layer `self.dense` of a layer) is reported (in the tier
    STG601 has under TensorFlow: `preview_under`); the `call` of a layer no code shows traced adds
    its own preview step."""
    assert_tiers("""
        import tensorflow as tf

        class Scaled(tf.keras.layers.Layer):
            def __init__(self):
                super().__init__()
                self.dense = tf.keras.layers.Dense(2)

            def call(self, x):
                return x * self.dense.get_weights()[0]  # preview STG601

        dense = tf.keras.layers.Dense(2)

        @tf.function
        def step(x):
            return x + dense.get_weights()[0]  # STG601
    """)


def test_get_weights_in_eager_code_or_of_an_object_not_shown_a_keras_layer_is_not_reported():
    """The negative twin: the same call in eager code returns NumPy arrays; a project class's own
    `get_weights` (returning tensors), or a Keras layer subclass overriding it, is not Keras's."""
    assert_tiers("""
        import tensorflow as tf

        dense = tf.keras.layers.Dense(2)

        def eager(x):
            return x + dense.get_weights()[0]

        class Holder:
            def get_weights(self):
                return [tf.ones(2)]

        class Own(tf.keras.layers.Layer):
            def get_weights(self):
                return [self.kernel]

        holder = Holder()
        own = Own()

        @tf.function
        def step(x):
            return x + holder.get_weights()[0] + own.get_weights()[0]
    """)
