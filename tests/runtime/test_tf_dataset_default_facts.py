"""The fact behind `analysis.flags.param_values` for a `tf.data` function (`datasets.element_components`),
observed with TensorFlow 2.21: `map`, `filter`, `flat_map` and `interleave` call their function with
the element's top-level tuple components as positional arguments and nothing else (a tensor, an
array, a list, which `tf.data` makes one tensor, or a dict: one argument); a parameter past them
keeps its default, a Python value, so an `if` on it is decided while tracing and only the branch
taken is traced. The seventeenth JAX audit's Efficient-VDVAE `data_prep(img, use_tf=True)`:
`interleave(data_prep)` traces the `tf.random` branch alone, drawing anew per element; its
`np.random` branch runs only from the eager calls `data_prep(x_val, use_tf=False)`."""

from __future__ import annotations

import numpy as np
import pytest

tf = pytest.importorskip("tensorflow")


def test_interleave_keeps_a_positional_default_and_traces_only_its_branch():
    branches = []

    def data_prep(img, use_tf=True):
        if use_tf:
            branches.append("tf")
            noise = tf.random.uniform(shape=img.shape, dtype=img.dtype)
            return tf.data.Dataset.from_tensor_slices(tf.cast(noise <= img, tf.float32)[tf.newaxis])
        branches.append("numpy")
        return (np.random.uniform(size=img.shape) <= img).astype(np.float32)

    ds = tf.data.Dataset.from_tensor_slices(np.full((4, 8, 8), 0.5, np.float32)).repeat(3).interleave(data_prep)
    sums = [float(x.numpy().sum()) for x in ds]
    assert branches == ["tf"]  # traced once, the numpy branch never
    assert len(set(sums)) > 1  # drawn per element: nothing frozen
    data_prep(np.full((2, 2), 0.5, np.float32), use_tf=False)  # the eager call runs the numpy branch
    assert branches == ["tf", "numpy"]


@pytest.mark.parametrize("method", ["map", "filter", "flat_map", "interleave"])
def test_the_element_components_are_all_the_arguments(method):
    seen = []

    def f(*args, **kwargs):
        seen.append((len(args), sorted(kwargs)))
        if method == "filter":
            return tf.constant(True)
        if method in ("flat_map", "interleave"):
            return tf.data.Dataset.from_tensors(args[0])
        return args[0]

    sources = {
        "array": np.zeros((3, 2), np.float32),
        "list": [[1, 2], [3, 4]],
        "dict": {"a": np.zeros(3), "b": np.ones(3)},
        "pair": (np.zeros(3), np.ones(3)),
        "triple": (np.zeros(3), np.ones(3), np.arange(3)),
    }
    for source in sources.values():
        list(getattr(tf.data.Dataset.from_tensor_slices(source).batch(2).shuffle(4), method)(f))
    assert seen == [(1, []), (1, []), (1, []), (2, []), (3, [])]
    seen.clear()
    list(getattr(tf.data.Dataset.range(3), method)(f))
    list(getattr(tf.data.Dataset.zip((tf.data.Dataset.range(3), tf.data.Dataset.range(3))), method)(f))
    list(getattr(tf.data.Dataset.from_tensors((np.zeros(2), np.ones(2))), method)(f))
    assert seen == [(1, []), (2, []), (2, [])]


def test_a_parameter_the_element_fills_is_a_tensor_and_both_branches_are_traced():
    """The negative twin: a pair's second component fills `use_tf`; AutoGraph makes the `if` on
    that tensor a `tf.cond`, and both branches are traced."""
    branches = []

    def prep(x, use_tf=True):
        if use_tf:
            branches.append("tf")
            out = x + 1.0
        else:
            branches.append("other")
            out = x - 1.0
        return out

    ds = tf.data.Dataset.from_tensor_slices((np.zeros(3, np.float32), np.array([True, False, True]))).map(prep)
    assert [float(v) for v in ds] == [1.0, -1.0, 1.0]
    assert sorted(branches) == ["other", "tf"]


def test_a_keyword_only_parameter_and_a_partial_binding():
    seen = []

    def f(x, *, flag=False, scale=1):
        seen.append((flag, scale))
        return x

    import functools

    list(tf.data.Dataset.from_tensor_slices((np.zeros(2), np.ones(2))).map(lambda a, b: f(a)))
    list(tf.data.Dataset.range(2).map(functools.partial(f, flag=True)))
    assert seen == [(False, 1), (True, 1)]  # the default, or what partial binds
