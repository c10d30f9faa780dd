"""The TensorFlow facts the rules' messages state (issue 23, class 8: a message states only facts
that hold), observed with the real TensorFlow: when tf.function refuses a variable (STG402),
what a pruned op still raises (STG603). Each message test is in tests/rules/test_messages.py."""

from __future__ import annotations

import pytest

tf = pytest.importorskip("tensorflow")

SINGLETON = "tf.function only supports singleton tf.Variables created on the first call"


def test_an_unconditional_variable_fails_on_the_first_call():
    """STG402: not 'allowed on the first call': the first trace creates it, tf.function traces
    again on the same call, and the second creation raises."""

    @tf.function
    def f(x):
        v = tf.Variable(1.0)
        return v + x

    with pytest.raises(ValueError, match=SINGLETON):
        f(tf.constant(1.0))

    @tf.function
    def g(x):
        return tf.keras.layers.Dense(3)(x)  # a Keras layer built inside: the same

    with pytest.raises(ValueError, match=SINGLETON):
        g(tf.ones([2, 2]))


def test_a_guarded_variable_is_traced_twice_on_the_first_call_and_works():
    """Why `if self.v is None:` works: the second trace of the first call finds it set."""

    class Scale(tf.Module):
        def __init__(self):
            self.v = None
            self.traces = 0

        @tf.function
        def __call__(self, x):
            self.traces += 1
            if self.v is None:
                self.v = tf.Variable(2.0)
            return self.v * x

    m = Scale()
    assert float(m(tf.constant(1.0))) == 2.0 and m.traces == 2
    assert float(m(tf.constant(3.0))) == 6.0 and m.traces == 2


def test_a_variable_under_a_python_if_fails_on_the_first_call_that_takes_the_branch():
    @tf.function
    def f(x, make):
        if make:
            return tf.Variable(1.0) * x
        return x

    assert float(f(tf.constant(1.0), False)) == 1.0
    with pytest.raises(ValueError, match="Creating variables on a non-first call"):
        f(tf.constant(1.0), True)


def test_a_pruned_op_loses_its_run_time_errors_not_its_trace_time_ones():
    """STG603: the unused op never runs, so a check of run-time values never fails; what it checks
    while it is built (a static shape that cannot match) raises at trace time all the same."""

    @tf.function(input_signature=[tf.TensorSpec([None, None])])
    def dynamic(x):
        tf.ensure_shape(x, [None, 3])
        tf.gather(x, [5])
        return x * 2

    assert dynamic(tf.ones([2, 2])).shape == (2, 2)  # eager mode would raise on both lines

    @tf.function
    def static(x):
        tf.ensure_shape(x, [None, 3])
        return x * 2

    with pytest.raises(ValueError, match="must be equal"):
        static(tf.ones([2, 2]))


def test_an_indexed_update_whose_static_shapes_do_not_fit_raises_at_trace_though_unused():
    """The nineteenth TF audit's BU-t3 (TashaSkyUp/SpaceGan): `tf.tensor_scatter_nd_update(a,
    [0, 1], [10])` on a rank-1 `a`, its result dropped, raises ValueError while traced (index
    depth 2 over a rank-1 tensor, updates [1] for a scalar slot): the error is not pruned with the
    op. An index out of range in shapes that fit is a run-time value: pruned, silent in the graph."""

    @tf.function
    def bad_shapes(a):
        tf.tensor_scatter_nd_update(a, [0, 1], [10])
        return a

    with pytest.raises(ValueError):
        bad_shapes(tf.constant([1, 2]))

    @tf.function
    def bad_index(a):
        tf.tensor_scatter_nd_update(a, [[5]], [10])
        return a

    assert bad_index(tf.constant([1, 2])).numpy().tolist() == [1, 2]
    with pytest.raises(tf.errors.InvalidArgumentError):
        bad_index.python_function(tf.constant([1, 2]))

    # `frameworks.indexed_update_fits`: the same [0, 1] / [10] fit a (2, 2, 1) tensor (depth 2,
    # updates indices.shape[:-1] + tensor.shape[2:] = (1,)), and not a (2, 2) one
    from stagelint.frameworks import indexed_update_fits

    for shape, fits in (((2, 2, 1), True), ((2, 2), False), ((2,), False)):
        assert indexed_update_fits(shape, (2,), (1,)) is fits
        try:
            tf.function(lambda a: tf.tensor_scatter_nd_update(a, [0, 1], [10])).get_concrete_function(
                tf.TensorSpec(shape, tf.int32))  # traced (the shape function runs), not run
            built = True
        except ValueError:
            built = False
        assert built is fits, shape


def test_numpy_raises_typeerror_for_a_tensor_in_a_shape_and_notimplementederror_for_data():
    """STG601's errors (`frameworks.NUMPY_SHAPE_CONSTRUCTORS`): a symbolic tensor in the shape
    np.zeros, np.ones, np.empty or np.full read as Python integers raises TypeError while traced;
    a symbolic tensor given to NumPy as data raises NotImplementedError."""
    import numpy as np

    for make in (lambda x: np.zeros((tf.shape(x)[0], 3)), lambda x: np.ones([tf.shape(x)[0]]),
                 lambda x: np.empty(tf.shape(x)[0]), lambda x: np.full(shape=(tf.shape(x)[0],), fill_value=1.0)):
        with pytest.raises(TypeError):
            tf.function(make)(tf.ones([2]))
    for use in (lambda x: np.mean(x), lambda x: np.zeros_like(x), lambda x: np.asarray(x)):
        with pytest.raises(NotImplementedError, match="Cannot convert a symbolic tf.Tensor"):
            tf.function(use)(tf.ones([2]))


def test_tf_print_shows_python_values_like_print_and_other_objects_by_repr(capfd):
    """docs/fixes.md (STG101's print -> tf.print): strings, numbers, True/None and containers
    of them print as `print` shows them; other Python objects by their repr."""
    import sys

    import numpy as np

    class Named:
        def __str__(self):
            return "str-of-Named"

    tf.print("s", 0.1, 3, True, None, (1, "a"), {"k": 2.5}, output_stream=sys.stdout)
    tf.print(np.float32(0.5), np.array([0.5, 1.0]), Named(), output_stream=sys.stdout)
    first, second = capfd.readouterr().out.splitlines()[-2:]
    assert first == "s 0.1 3 True None (1, 'a') {'k': 2.5}"
    assert second.startswith("np.float32(0.5) array([0.5, 1. ]) <") and "str-of-Named" not in second
