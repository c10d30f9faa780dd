"""Issue 23, the twelfth TensorFlow audit's fix-from half (bench/fresh_verdicts_AS_before.csv):
each false class as the framework fact it follows, with its negative twin. Behaviour checked with
TensorFlow 2.21 in this venv (tests/runtime/test_tf_twelfth_audit_facts.py runs the same code)."""

from __future__ import annotations

from rulecases import assert_marked


def test_what_a_lambda_handed_to_py_function_calls_runs_as_python():
    """gin's `ds.map(lambda x, y: tf.py_function(lambda x, y: (to_mol(x)[0], y), ...))`: the
    traced outer lambda only builds the py_function op; the inner lambda is py_function's
    callee and runs as Python per element, so what it calls is not traced (as `to_mol` handed
    directly is not). Also under a tf.function. The same call made in the traced lambda
    itself, beside the py_function, is traced."""
    assert_marked("""
        import tensorflow as tf

        made = []

        def to_mol(x):
            v = tf.Variable(tf.zeros([3]))
            made.append(v)
            return v, x

        def load(x):
            w = tf.Variable(tf.zeros([3]))  # STG402
            made.append(w)  # STG102
            return w

        def direct(arr):
            return tf.data.Dataset.from_tensor_slices(arr).map(
                lambda x: tf.py_function(to_mol, [x], [tf.float32, tf.float32]))

        def nested(arr, att):
            ds = tf.data.Dataset.from_tensor_slices((arr, att))
            return ds.map(lambda x, y: tf.py_function(lambda x, y: (to_mol(x)[0], y), [x, y], [tf.float32, tf.float32]))

        def beside(arr):
            ds = tf.data.Dataset.from_tensor_slices(arr)
            return ds.map(lambda x: (load(x), tf.py_function(lambda v: to_mol(v)[0], [x], tf.float32)))

        @tf.function
        def step(x):
            return tf.py_function(lambda v: to_mol(v)[0], [x], tf.float32)
    """)


_VIRGIN = """
    import tensorflow as tf


    class Net(tf.keras.Model):
        def __init__(self, config):
            super().__init__()
            self.config = config
            self.flow = []
            self.is_virgin = True

        def _build(self, n):
            for idx in range(n):
                setattr(self, "D_%s" % idx, tf.keras.layers.Dense(self.config[idx]))  {layer}
                self.flow.append("D_%s" % idx)  {flow}

        @tf.function
        def call(self, x):
            if self.is_virgin:
                self._build(2){between}
                self.is_virgin = False
            for name in self.flow:
                x = getattr(self, name)(x)
            return x
"""


def test_a_block_that_clears_the_instance_flag_it_tests_runs_once():
    """gin's `ConcatenateThenFullyConnect.call`: `if self.is_virgin: self._build(...);
    self.is_virgin = False`. The first trace (or eager call) builds and clears the flag; later
    traces skip the block (TF 2.21: one variable over three traces), so neither a variable per
    trace nor a list changed only while tracing."""
    assert_marked(_VIRGIN.format(layer="", flow="", between=""))


def test_a_flag_set_back_or_cleared_on_some_paths_guards_nothing():
    """The negative twins: a method that sets the flag true again (the next trace builds again:
    TF 2.21 raises ValueError), a clear made only under a test, an early return before the
    clear, a flag that is a tf.Variable (a tensor `if`: both branches traced)."""
    marked = dict(layer="# STG402", flow="# STG102")
    assert_marked(_VIRGIN.format(between="", **marked) + """
        def reset(self):
            self.is_virgin = True
    """)
    assert_marked(_VIRGIN.format(between="\n                if x.shape[0] == 1:\n                    return x", **marked))
    assert_marked(_VIRGIN.format(between="", **marked).replace(
        "                self.is_virgin = False", "                if x.shape[0] > 1:\n                    self.is_virgin = False"))
    assert_marked(_VIRGIN.format(between="", **marked).replace(
        "self.is_virgin = True", "self.is_virgin = tf.Variable(True)"))


def test_a_def_before_the_clear_does_not_leave_the_block():
    """A nested def's `return` leaves that def's calls, not the block it is defined in: the
    block still clears its flag on every path (no finding). A class's body runs when the class
    statement does: a `raise` standing there may end the block before the clear (TF 2.21 runs
    the block like any Python while tracing)."""
    assert_marked(_VIRGIN.format(layer="", flow="", between="\n                def shape_of(v):\n"
                                 "                    return v.shape\n                self._build(len(shape_of(x)))"))
    marked = dict(layer="# STG402", flow="# STG102")
    assert_marked(_VIRGIN.format(between="\n                class Options:\n                    if x.shape[0] == 1:\n"
                                 "                        raise ValueError(x.shape)", **marked))


def test_recursion_down_to_a_static_rank_or_a_python_count_ends_while_tracing():
    """deephedging's `tf_back_flatten`: a tf.function calling itself on `tensor[..., i]` while
    `len(tensor.shape) > dim`: the rank is a Python int that each call lowers, so tracing ends,
    one trace per rank (TF 2.21: 2 traces for a rank-3 input, reused by later calls); the same
    for a parameter with a number default passed less one."""
    assert_marked("""
        import tensorflow as tf

        @tf.function
        def back_flatten(tensor, dim):
            if len(tensor.shape) > dim:
                splits = [back_flatten(tensor[..., i], dim=dim) for i in range(tensor.shape[-1])]
                tensor = tf.concat(splits, axis=-1)
            return tensor

        @tf.function
        def first_rows(tensor, dim=1):
            if tensor.shape.rank <= dim:
                return tensor
            return first_rows(tensor[0], dim)

        @tf.function
        def power(x, n=3):
            if n <= 0:
                return tf.ones_like(x)
            return x * power(x, n - 1)
    """)


def test_recursion_that_does_not_lower_its_measure_toward_the_bound_is_flagged():
    """The negative twins: a number without a Python default (a tensor `n` makes the test a
    tensor: TF 2.21 StagingError), an index that adds an axis as it drops one, a test in the
    wrong direction, a bound the call lowers too, the tested name bound again before the call."""
    assert_marked("""
        import tensorflow as tf

        @tf.function
        def recursive_fn(n):
            if n > 0:
                return recursive_fn(n - 1)  # STG401
            return 1

        @tf.function
        def same_rank(tensor, dim):
            if len(tensor.shape) > dim:
                return same_rank(tensor[..., tf.newaxis, 0], dim=dim)  # STG401
            return tensor

        @tf.function
        def wrong_way(x, n=3):
            if n < 10:
                return x * wrong_way(x, n - 1)  # STG401
            return x

        @tf.function
        def bound_changes(tensor, dim):
            if len(tensor.shape) > dim:
                return bound_changes(tensor[0], dim=dim - 1)  # STG401
            return tensor

        @tf.function
        def rebound(tensor, dim):
            tensor = tf.expand_dims(tensor, 0)
            if tensor.shape.rank > dim:
                return rebound(tensor[0], dim)  # STG401
            return tensor
    """)
