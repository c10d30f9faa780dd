"""The eighteenth TF audit's BQ preview classes as TensorFlow facts (tests/runtime/
test_tf_eighteenth_audit_bq_facts.py): each pattern silent, beside a twin that keeps its finding.
(BQ-P1/P5, scratch state within one call: tests/rules/test_corpus_precision.py.)"""

from __future__ import annotations

from rulecases import assert_tiers


def test_a_mapped_helper_s_parameters_no_call_passes_keep_their_python_defaults():
    # BQ-P3, treevae `utils/data_utils.py:709`: `augment_cifar(input, s=0.5, brightness_factor=0.8)`
    # mapped by `Dataset.map(lambda i, s: (augment_cifar((i[0], s)), i[1]))` and by
    # `tf.map_fn(augment_cifar, (X, seed))`: both call it with the element alone, so
    # `max(0, 1 - brightness_factor)` is Python's max of floats (`Project.left_at_default`). The
    # twins: a helper whose caller passes the factor from the element, and one handed to a
    # project function that passes it one, keep their findings.
    assert_tiers("""
        import tensorflow as tf

        def augment(element, s=0.5, brightness=0.8):
            x, seed = element
            low = max(0, 1 - brightness * s)
            return x * tf.random.stateless_uniform((), seed=seed, minval=low, maxval=1.0 + brightness)

        def samplewise(element):
            return tf.map_fn(augment, element, fn_output_signature=tf.float32)

        def passed(element, brightness=0.8):
            x, seed = element
            low = max(0, 1 - brightness)  # STG602
            return x * tf.random.stateless_uniform((), seed=seed, minval=low, maxval=1.0 + brightness)

        def handed(element, brightness=0.8):
            x, seed = element
            low = max(0, 1 - brightness)  # STG602
            return x * tf.random.stateless_uniform((), seed=seed, minval=low, maxval=1.0 + brightness)

        def apply(fn, element):
            return fn(element, element[0][0])

        ds = tf.data.Dataset.from_tensor_slices((tf.ones((4, 3)), tf.zeros((4, 2), tf.int32), tf.ones(4)))
        ds.map(lambda i, s, b: augment((i, s)))
        ds.map(lambda i, s, b: samplewise((i, s)))
        ds.map(lambda i, s, b: passed((i, s), b))
        ds.map(lambda i, s, b: apply(handed, (i, s)))
    """)


def test_the_clipped_list_of_clip_by_global_norm_is_a_python_list():
    # BQ-P3, VariationalDenoisingNetwork `train/train.py:52`: `clipped, norm =
    # tf.clip_by_global_norm(grads, n)` (also returned through a helper) binds a Python list, so
    # `zip(clipped_a + clipped_b, variables)` is Python (`frameworks.LIST_ELEMENTS_OF_RESULT`).
    # The twin: Python's `max` of the global norm, a tensor, keeps its finding.
    assert_tiers("""
        import tensorflow as tf

        def clip(grads, norms):
            a, a_norm = tf.clip_by_global_norm(grads[:2], norms[0])
            b, b_norm = tf.clip_by_global_norm(grads[2:], norms[1])
            return a, a_norm, b, b_norm

        @tf.function
        def step(model, optimizer, x, norms):
            with tf.GradientTape() as tape:
                loss = tf.reduce_sum(model(x))
            grads = tape.gradient(loss, model.trainable_variables)
            a, a_norm, b, b_norm = clip(grads, norms)
            optimizer.apply_gradients(zip(a + b, model.trainable_variables))
            clipped, norm = tf.clip_by_global_norm(grads, 1.0)
            optimizer.apply_gradients(zip(clipped, model.trainable_variables))
            scale = max(0.1, 1 - norm)  # STG602
            return loss * scale
    """)


def test_a_batch_of_the_whole_slice_count_has_no_smaller_last_batch():
    # BQ-P6, PINNs-TF2.x `2D-Conduction/...Randon Distribution of points.py:268`:
    # `from_tensor_slices((xx, yy))` then `.batch(xx.shape[0])`: one batch holds every element
    # (`frameworks.SLICING_DATASETS`, `COUNT_KEEPING_DATASET_METHODS`). The twins: a batch of
    # another size, and a batch of the whole count after a `filter`, keep their findings.
    assert_tiers("""
        import numpy as np
        import tensorflow as tf

        @tf.function
        def step(x, y):
            return tf.reduce_sum(x * y)

        xx, yy = np.ones((100, 2)), np.ones((100, 1))
        whole = tf.data.Dataset.from_tensor_slices((xx, yy))
        batch_size = xx.shape[0]
        whole = whole.shuffle(100).batch(batch_size)
        for x, y in whole:
            step(x, y)
        for x, y in tf.data.Dataset.from_tensor_slices((xx, yy)).map(lambda a, b: (a, b)).batch(len(xx)):
            step(x, y)

        part = tf.data.Dataset.from_tensor_slices((xx, yy)).batch(32)
        for x, y in part:
            step(x, y)  # preview STG506
        kept = tf.data.Dataset.from_tensor_slices((xx, yy)).filter(lambda a, b: a[0] > 0).batch(batch_size)
        for x, y in kept:
            step(x, y)  # preview STG506
    """)
