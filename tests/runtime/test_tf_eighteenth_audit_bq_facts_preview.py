"""What TensorFlow 2.21 does in the eighteenth TF audit's BQ preview classes, observed with real
TensorFlow: the facts `staging.Project.left_at_default` (`frameworks.CALLS_ITS_FUNCTION_WITH`)
and `frameworks.LIST_ELEMENTS_OF_RESULT` rest on."""

from __future__ import annotations

import pytest

tf = pytest.importorskip("tensorflow")


def _augment(element, s=0.5, brightness=0.8):
    """treevae's `augment_cifar`: one positional parameter for the element, Python defaults past it."""
    x, seed = element
    seen.append((type(s), type(brightness)))
    low = max(0, 1 - brightness * s)  # Python's max: raises on a symbolic tensor
    return x * tf.random.stateless_uniform((), seed=seed, minval=low, maxval=1.0)


seen: list = []


def test_a_mapped_function_s_parameters_past_the_element_keep_their_python_defaults():
    """`Dataset.map(lambda i, s: f((i, s)))` and `tf.map_fn(f, (xs, seeds))` call `f` with one
    positional argument: `s` and `brightness` are the Python floats of the defaults while traced."""
    seen.clear()
    xs = tf.ones((4, 3))
    seeds = tf.zeros((4, 2), tf.int32)
    ds = tf.data.Dataset.from_tensor_slices((xs, seeds)).map(lambda i, s: _augment((i, s)))
    assert len(list(ds)) == 4
    mapped = tf.function(lambda a, b: tf.map_fn(_augment, (a, b), fn_output_signature=tf.float32))(xs, seeds)
    assert mapped.shape == (4, 3)
    assert seen and all(kinds == (float, float) for kinds in seen)
    vectorized = tf.function(lambda a, b: tf.vectorized_map(_augment, (a, b)))
    assert vectorized(xs, seeds).shape == (4, 3)


def test_a_factor_the_element_carries_is_a_symbolic_tensor_there():
    """The negative twin: a factor passed from the element is a tensor; Python's `max` over it
    raises at trace time."""
    ds = tf.data.Dataset.from_tensor_slices((tf.ones((4, 3)), tf.zeros((4, 2), tf.int32), tf.fill((4,), 0.8)))
    with pytest.raises(Exception, match="bool|symbolic|Tensor"):
        ds.map(lambda i, s, b: _augment((i, s), brightness=b))


def test_clip_by_global_norm_returns_a_python_list_and_a_tensor():
    """`clipped, norm = tf.clip_by_global_norm(grads, n)`: `clipped` is a Python list under
    `tf.function` too, so `clipped + more` and `zip(clipped, vs)` are Python; `norm` is a tensor."""
    kinds = []

    @tf.function
    def step(a, b):
        clipped, norm = tf.clip_by_global_norm([a, b], 1.0)
        more, _ = tf.clip_by_global_norm([b], 1.0)
        kinds.append((type(clipped), type(clipped + more), tf.is_tensor(norm)))
        return [x * y for x, y in zip(clipped + more, [a, b, b])]

    assert len(step(tf.ones(3), tf.ones(3))) == 3
    assert kinds == [(list, list, True)]
    with pytest.raises(Exception, match="iterat|symbolic|Tensor"):
        tf.function(lambda a: [v for v in tf.clip_by_global_norm([a], 1.0)[1]])(tf.ones(3))


def test_a_batch_of_the_slice_count_is_one_batch_of_all():
    """`from_tensor_slices((xx, yy))` has `xx.shape[0]` elements; shuffled or mapped, `.batch(
    xx.shape[0])` gives one batch of them all, so a Function traces once. The twin: a batch
    size that does not divide the count leaves a smaller last batch, a second trace."""
    import numpy as np

    xx, yy = np.ones((100, 2), np.float32), np.ones((100, 1), np.float32)
    step = tf.function(lambda x, y: tf.reduce_sum(x) + tf.reduce_sum(y))
    ds = tf.data.Dataset.from_tensor_slices((xx, yy)).shuffle(100).map(lambda a, b: (a, b)).batch(xx.shape[0])
    for _ in range(2):
        for x, y in ds:
            step(x, y)
    assert [int(x.shape[0]) for x, _ in ds] == [100]
    assert step.experimental_get_tracing_count() == 1
    for x, y in tf.data.Dataset.from_tensor_slices((xx, yy)).batch(32):
        step(x, y)
    assert step.experimental_get_tracing_count() == 3  # 32, then the last 4
