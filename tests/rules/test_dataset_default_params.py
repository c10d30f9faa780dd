"""A `tf.data` function's parameter the transformation leaves at its default (`analysis.flags`,
`_dataset_value` and `dataset_default_fact`; `analysis.datasets.element_components`): `map`,
`filter`, `flat_map` and `interleave` call their function with the element's top-level tuple
components by position and nothing by keyword, so a keyword-only parameter, or a positional one
past the components of an element the code shows, holds its literal default in the trace, and a
branch on it is decided while tracing. The seventeenth JAX audit's fix-from class BK1
(Efficient-VDVAE: `data_prep(img, use_tf=True)` draws with `tf.random` under `if use_tf:` and with
`np.random` under `else:`, which only the eager calls `data_prep(x_val, use_tf=False)` run),
with its negative twins; the fact is checked with TensorFlow 2.21 in
tests/runtime/test_tf_dataset_default_facts.py."""

from __future__ import annotations

from rulecases import assert_tiers

_PREP = """
import functools
import numpy as np
import tensorflow as tf


def data_prep(img, {params}):
    if use_tf:
        noise = tf.random.uniform(shape=img.shape, dtype=img.dtype)
        return tf.data.Dataset.from_tensor_slices(tf.cast(noise <= img, tf.float32)[tf.newaxis])
    else:
        noise = np.random.uniform(size=img.shape).astype(img.dtype)  {marker}
        return (noise <= img).astype(np.float32)


def val_set(x_val):
    return data_prep(x_val, use_tf=False)

"""


def test_the_default_an_element_of_one_shown_component_leaves_selects_the_traced_branch():
    """An array's, a range's and a tuple-of-one's element: one component, `use_tf` keeps True;
    keyword-only, it keeps True whatever the element; the chain and names between the source and
    the transformation keep the element's structure."""
    for params, source in (
        ("use_tf=True", "tf.data.Dataset.from_tensor_slices(np.zeros((8, 4, 4), np.float32))"),
        ("use_tf=True", "tf.data.Dataset.range(8).batch(2)"),
        ("*, use_tf=True", "tf.data.Dataset.from_tensor_slices((images, images))"),
    ):
        assert_tiers(_PREP.format(params=params, marker="") + f"""
def train_set(images):
    ds = {source}
    ds = ds.shuffle(8).repeat()
    return ds.interleave(data_prep, cycle_length=2).batch(4)
""")


def test_an_element_of_unshown_structure_is_a_guess():
    """The audit's own shape: the dataset's source is a function's result the code does not
    spell, so whether its element is one tensor or a pair is not shown: the branch's finding goes
    to the preview tier (a call passes `use_tf` by name: an option)."""
    assert_tiers(_PREP.format(params="use_tf=True", marker="# preview STG104") + """
def train_set(images):
    ds = tf.data.Dataset.from_tensor_slices(images)
    return ds.interleave(data_prep, cycle_length=2)
""")


def test_an_element_that_fills_the_parameter_or_a_traced_call_passing_it_keeps_the_finding():
    """The negative twins: a pair's second component fills `use_tf` (a tensor: AutoGraph traces
    both branches); a `tf.function` passing `use_tf=False`; `functools.partial` binding it; and
    an element of unshown structure where no call passes `use_tf` by name."""
    frozen = """
@tf.function
def frozen(x):
    return data_prep(x, use_tf=False)
"""
    for prep, extra, source in (
        (_PREP, "", "tf.data.Dataset.from_tensor_slices((images, np.ones(8, bool))).map(data_prep)"),
        (_PREP, frozen, "tf.data.Dataset.from_tensor_slices(np.zeros((8, 4))).map(data_prep).map(frozen)"),
        (_PREP, "", "tf.data.Dataset.range(8).map(functools.partial(data_prep, use_tf=False))"),
        (_PREP.replace("use_tf=False)", "False)"), "", "tf.data.Dataset.from_tensor_slices(images).map(data_prep)"),
    ):
        assert_tiers(prep.format(params="use_tf=True", marker="# STG104") + extra + f"""

def train_set(images):
    return {source}
""")
