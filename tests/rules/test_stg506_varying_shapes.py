"""STG506 varying-input-shape: a staged function called in a loop with a tensor whose shape the
code changes between iterations (issue 25). The trace counts behind each case are measured with
real TensorFlow / JAX in tests/test_varying_shape_traces.py."""

from __future__ import annotations

from rulecases import findings, found

from stagelint.config import Settings
from stagelint.engine import check_source
from stagelint.rules.base import example_source, expected_findings

PREVIEW = Settings(preview=True)


def assert_tiers(source: str, stable: set[int], preview: set[int] = frozenset(), path: str = "example.py"):
    """STG506 on exactly the `stable` lines by default, and on those and `preview` with --preview."""
    got = {line for line, code in found(source, path=path) if code == "STG506"}
    assert got == stable, f"default tier: {sorted(got)}, expected {sorted(stable)}"
    got = {line for line, code in found(source, path=path, settings=PREVIEW) if code == "STG506"}
    assert got == set(stable) | set(preview), f"with --preview: {sorted(got)}"


def test_padded_batch_over_a_parameter_dataset_in_a_training_function():
    assert_tiers("""
        import tensorflow as tf

        @tf.function
        def step(x):
            return tf.reduce_sum(x)

        def train(ds):
            for x in ds.padded_batch(16):
                step(x)
            for x in ds:
                step(x)                       # what `ds` holds is not shown: silent
    """, {9})


def test_every_part_of_a_padded_element_passed_is_known_one_part_is_preview():
    source = """
        import tensorflow as tf

        @tf.function
        def step(x, y):
            return tf.reduce_sum(x) + tf.reduce_sum(y)

        @tf.function
        def encode(x):
            return tf.reduce_sum(x)

        ds = tf.data.TFRecordDataset("f").map(parse)
        ds = ds.shuffle(100).padded_batch(32).prefetch(2)
        for epoch in range(3):
            for i, (x, y) in enumerate(ds):
                step(x, y)
                encode(x)
    """
    assert_tiers(source, {15}, {16})


def test_declared_none_dimensions_name_the_part_that_may_vary_in_the_preview_tier():
    """A `None` in a generator's declared shapes leaves the size open; the Function is keyed on
    what the generator yields (BQ1-u: MelGAN's generator crops every example to one length, 1
    trace), so the part is named in the preview tier only."""
    assert_tiers("""
        import tensorflow as tf

        @tf.function
        def step(x):
            return tf.reduce_sum(x)

        signature = (tf.TensorSpec([None], tf.int32), tf.TensorSpec([], tf.int32))
        ds = tf.data.Dataset.from_generator(gen, output_signature=(tf.TensorSpec([None], tf.int32),
                                                                   tf.TensorSpec([], tf.int32)))
        for tokens, label in ds:
            step(tokens)
            step(label)                       # declared as a scalar
        for tokens, label in ds.padded_batch(8, padded_shapes=([64], []), drop_remainder=True):
            step(tokens)
    """, set(), {11})


def test_a_generator_of_open_sizes_padded_per_batch_varies():
    """BQ1-u's twin: the same declared `None` dimensions, padded per batch (`padded_batch` without
    `padded_shapes`): each batch's length is its own longest element, known to vary (default);
    batched as they come (`batch(8)`) or as in MelGAN (`output_shapes=[B, None, D]`, the
    elements used as they are), only the preview tier."""
    assert_tiers("""
        import tensorflow as tf

        @tf.function
        def step(x):
            return tf.reduce_sum(x)

        ds = tf.data.Dataset.from_generator(gen, output_types=tf.float32, output_shapes=[4, None, 80])
        for mel in ds.padded_batch(8):
            step(mel)
        for mel in ds.batch(8, drop_remainder=True):
            step(mel)
        for mel in ds:
            step(mel)
    """, {9}, {11, 13})


def test_bucketing_varies_unless_padded_to_the_boundaries():
    assert_tiers("""
        import tensorflow as tf

        @tf.function
        def step(x):
            return tf.reduce_sum(x)

        ds = tf.data.TFRecordDataset("f").map(parse)
        for x in ds.bucket_by_sequence_length(length, [5, 10], [2, 2, 2]):
            step(x)
        for x in ds.apply(tf.data.experimental.bucket_by_sequence_length(length, [5, 10], [2, 2, 2])):
            step(x)
        for x in ds.bucket_by_sequence_length(length, [5, 10], [2, 2, 2], pad_to_bucket_boundary=True):
            step(x)
    """, {9, 11})


def test_the_last_smaller_batch_is_one_extra_trace_in_the_preview_tier():
    source = """
        import numpy as np
        import tensorflow as tf

        @tf.function
        def step(x):
            return tf.reduce_sum(x)

        rows = tf.data.Dataset.from_tensor_slices(np.ones([100, 4], np.float32))
        for x in rows.batch(32):
            step(x)
        for x in rows.batch(32, drop_remainder=True):
            step(x)
        for x in rows.padded_batch(32, padded_shapes=[4]):
            step(x)
        for x in rows.batch(32).take(2):
            step(x)                           # two full batches: the last one never comes
        data = np.ones([100, 4])
        for i in range(0, 100, 32):
            step(data[i:i + 32])
    """
    assert_tiers(source, set(), {10, 14, 19})
    shown = {f.line: f.message for f in check_source(example_source(source), settings=PREVIEW) if f.code == "STG506"}
    assert "one extra trace, not one per step" in shown[10] and "`drop_remainder=True`" in shown[10]
    assert "skip or pad the last window" in shown[19]


def test_ragged_to_dense_and_converted_sequences():
    assert_tiers("""
        import numpy as np
        import tensorflow as tf

        @tf.function
        def step(x):
            return tf.reduce_sum(x)

        for n in range(2, 8):
            rt = tf.ragged.constant([[1.0] * n, [2.0]])
            step(rt.to_tensor())
            step(rt.to_tensor(shape=[2, 8]))
            step(np.array(list(range(n))))
            step(tf.constant([0.0] * 4))
        for batch in batches:
            step(batch.to_tensor())           # not shown to be ragged: preview
    """, {10, 12}, {15})


def test_the_options_that_generalise_shapes_silence_it():
    assert_tiers("""
        import tensorflow as tf

        class Trainer:
            def __init__(self, **options):
                self.step = tf.function(self._step)
                self.relaxed = tf.function(self._step, reduce_retracing=True)
                self.legacy = tf.function(self._step, experimental_relax_shapes=True)
                self.signed = tf.function(self._step, input_signature=[tf.TensorSpec([None, None])])
                self.unknown = tf.function(self._step, **options)

            def _step(self, x):
                return tf.reduce_sum(x)

            def fit(self, ds):
                for x in ds.padded_batch(8):
                    self.step(x)
                    self.relaxed(x)
                    self.legacy(x)
                    self.signed(x)
                    self.unknown(x)
    """, {16})


def test_calls_traced_with_their_caller_and_test_modules_are_silent():
    source = """
        import tensorflow as tf

        @tf.function
        def step(x):
            return tf.reduce_sum(x)

        @tf.function
        def epoch(data):
            for n in range(1, 5):
                step(data[:n])                # traced with `epoch`, once

        def test_step():
            data = tf.ones([10])
            for n in range(1, 5):
                step(data[:n])
    """
    assert_tiers(source, {15})                # a script's function that loops
    assert_tiers(source, set(), path="test_shapes.py")


def test_jax_jit_names_padding_to_buckets_and_vmap_is_left_alone():
    source = """
        import jax
        import jax.numpy as jnp
        import tensorflow_datasets as tfds

        @jax.jit
        def update(params, batch):
            return params

        def mapped(x):
            return x * 2

        ds = tfds.load("imdb", split="train").padded_batch(32)
        params = {}
        for batch in tfds.as_numpy(ds):
            params = update(params, batch)  # STG506
            jax.vmap(mapped)(batch)
    """
    assert {(line, code) for line, code in found(source)} == expected_findings(source)
    (finding,) = findings(source, "STG506")
    assert "pad it to one of a few fixed sizes (buckets)" in finding.message
    assert "`jax.jit` has no `reduce_retracing`" in finding.message
    assert any("pads each batch to the longest element" in note.message for note in finding.because)


def test_a_slice_whose_bound_is_not_a_loop_number_is_silent():
    """`logits[:features["ids"].shape[0]]` (tf-models' triviaqa evaluation) is as long as a batch,
    which changes at most for the last one; `data[:n]` over numbers the code does not show may
    repeat. Only a bound counted by a `range` loop is known to change."""
    assert_tiers("""
        import tensorflow as tf

        @tf.function
        def step(x):
            return tf.reduce_sum(x)

        data = tf.ones([10, 4])
        for features in batches:
            step(data[:features["ids"].shape[0]])
        for n in lengths:
            step(data[:n])
        for n in range(1, 5):
            step(data[:, :n + 1])
    """, {13})


def test_constructors_whose_shape_holds_a_counted_number():
    assert_tiers("""
        import jax
        import jax.numpy as jnp
        import tensorflow as tf

        @tf.function
        def encode(x):
            return tf.reduce_sum(x)

        @jax.jit
        def pooled(x):
            return x.sum(axis=1)

        for length in (5, 9, 12, 17, 23, 31):
            encode(tf.ones([4, length], tf.int32))
            pooled(jnp.ones((2, length)))
        for i in range(3):
            n = i * 8 + 1
            encode(tf.zeros([n]))
            encode(tf.zeros([4, 4]))          # one shape
        for k in (2, 2):
            encode(tf.zeros([k]))             # the same number twice
    """, {14, 15, 18})
