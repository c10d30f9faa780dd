"""Issue 23, the nineteenth TensorFlow audit's fix-from half (BU), classes BU-t1 (STG301) and BU-t2
(STG502): the framework facts they follow, each with its negative twin. Behaviour checked with
TensorFlow 2.21 in this venv (tests/runtime/test_tf_nineteenth_audit_bu_facts.py)."""

from __future__ import annotations

from rulecases import assert_tiers


def test_a_function_per_iteration_around_that_iterations_optimizer_and_metrics_costs_no_avoidable_trace():
    """BU-t2 (BQ1 again), DendroNet's `bias_experiment.py`: a `@tf.function train_step` defined in
    each iteration of a loop over targets, closing over the optimizer and metrics that iteration
    makes (`tf.optimizers.Adam()`, `tf.keras.metrics.Mean()`). A Function keys a Keras optimizer or
    metric argument by identity (3 new ones, 3 traces), and one made once cannot make a new
    optimizer's variables on a later trace: one trace per iteration is the cost of the new state.
    Not reported. Twins, still reported: the same per-iteration Function over an optimizer made once
    before the loop, and over a loss object made per iteration (no variables: a Function made once
    closing over one computes the same)."""
    assert_tiers("""
        import tensorflow as tf

        model = tf.keras.Sequential([tf.keras.layers.Dense(2)])
        shared_optimizer = tf.keras.optimizers.Adam()
        x = tf.ones((4, 3))

        for target in ["S", "N", "B"]:
            optimizer = tf.optimizers.Adam()
            train_loss = tf.keras.metrics.Mean(name="train_loss")
            accuracy = tf.metrics.Accuracy(name="accuracy")

            @tf.function
            def train_step(x):
                with tf.GradientTape() as tape:
                    loss = tf.reduce_sum(model(x))
                grads = tape.gradient(loss, model.trainable_variables)
                optimizer.apply_gradients(zip(grads, model.trainable_variables))
                train_loss(loss)
                accuracy.update_state([1], [1])

            for step in range(100):
                train_step(x)

        for target in ["S", "N", "B"]:
            @tf.function  # STG502
            def shared_step(x):
                with tf.GradientTape() as tape:
                    loss = tf.reduce_sum(model(x))
                grads = tape.gradient(loss, model.trainable_variables)
                shared_optimizer.apply_gradients(zip(grads, model.trainable_variables))

            for step in range(100):
                shared_step(x)

        for target in ["S", "N", "B"]:
            loss_fn = tf.keras.losses.MeanSquaredError()

            @tf.function  # STG502
            def eval_step(x):
                return loss_fn(x, model(x))

            for step in range(100):
                eval_step(x)
    """)


def test_a_global_rebound_with_the_batch_size_of_the_data_the_function_is_given_is_a_guess():
    """BU-t1, SpaceGan's `run_exp`: a loop rebinds the global `BATCH_SIZE` the Function divides by,
    together with the batch size of the dataset it hands on (`BATCH_SIZE = bs`, `ds = ....batch(bs)`,
    `train(ds)` whose loop calls the Function on each batch). A Function is keyed on its inputs'
    shapes: each new batch size traces anew and reads the new value (batch 128, 64, 128, 32: every
    full batch read its own size). Only a shape traced before under another value (a smaller last
    batch: 300 rows leave 44 under 128 and under 64), or an input_signature serving every size,
    reuses a stale trace, which the code does not show: the preview tier, in a function and at module
    level. Twins, still reported: the same loops rebinding a scale the batches do not carry, and one
    rebinding the batch size while the Function is given a tensor of one shape."""
    assert_tiers("""
        import numpy as np
        import tensorflow as tf

        BATCH_SIZE = 128
        SCALE = 1.0
        X = np.zeros((300, 2), "float32")

        @tf.function
        def train_step(images):
            return tf.reduce_sum(images) / BATCH_SIZE  # preview STG301

        @tf.function
        def scaled_step(images):
            return tf.reduce_sum(images) * SCALE  # STG301

        @tf.function
        def fixed_step(images):
            return tf.reduce_sum(images) / BATCH_SIZE  # STG301

        def train(dataset):
            for image_batch in dataset:
                train_step(image_batch)

        def run_exp(batch_sizes):
            global BATCH_SIZE
            for bs in batch_sizes:
                BATCH_SIZE = bs
                train_dataset = tf.data.Dataset.from_tensor_slices(X).shuffle(300).batch(bs)
                train(train_dataset)

        def run_scales(scales):
            global SCALE
            ds = tf.data.Dataset.from_tensor_slices(X).batch(32)
            for s in scales:
                SCALE = s
                for b in ds:
                    scaled_step(b)  # preview STG506 (a smaller last batch)

        def run_fixed(batch_sizes):
            global BATCH_SIZE
            for bs in batch_sizes:
                BATCH_SIZE = bs
                ds = tf.data.Dataset.from_tensor_slices(X).batch(bs)
                fixed_step(tf.ones((8, 2)))

        run_exp([128, 64])
        run_scales([1.0, 2.0])
        run_fixed([128, 64])
    """)


def test_a_module_level_loop_over_batch_sizes_is_a_guess_too():
    """BU-t1 at module level (the audit's proof p5): `for bs in (128, 64): BATCH_SIZE = bs; ds =
    ....batch(bs); for b in ds: step(b)`. Twin, still reported: the loop also calls the Function
    on a tensor of one shape, which reuses the first iteration's trace with the old value."""
    assert_tiers("""
        import numpy as np
        import tensorflow as tf

        X = np.zeros((300, 2), "float32")
        BATCH_SIZE = 128
        LIMIT = 128

        @tf.function
        def step(images):
            return tf.cast(tf.shape(images)[0], tf.float32) / BATCH_SIZE  # preview STG301

        @tf.function
        def clip(images):
            return tf.minimum(tf.reduce_sum(images), LIMIT)  # STG301

        for bs in (128, 64):
            BATCH_SIZE = bs
            ds = tf.data.Dataset.from_tensor_slices(X).batch(bs)
            for b in ds:
                step(b)  # preview STG506 (a smaller last batch)

        for bs in (128, 64):
            LIMIT = bs
            ds = tf.data.Dataset.from_tensor_slices(X).batch(bs)
            for b in ds:
                clip(b)  # preview STG506 (a smaller last batch)
            clip(tf.ones((4, 2)))
    """)


def test_a_writer_that_first_remakes_the_function_leaves_no_trace_to_reuse():
    """BU-t1's other half, SpaceGan's `run_exp`: `global train_step; train_step =
    train_step.python_function` (or `tf.function(...)` in the `except`), then the global's writes.
    A new Function traces on its first call and reads the globals as they are then (`SCALE = 3.0;
    step = tf.function(step.python_function); step(x)` read 3.0), and the plain function runs
    eagerly: a call after the writer's run reuses no trace made before it. Not reported. Twin,
    still reported: the same writer without the remaking."""
    assert_tiers("""
        import tensorflow as tf

        SCALE = 1.0
        BIAS = 0.0

        @tf.function
        def step(x):
            return x * SCALE

        @tf.function
        def offset(x):
            return x + BIAS  # STG301

        def reconfigure(s):
            global SCALE, step
            try:
                step = step.python_function
            except AttributeError:
                step = tf.function(step)
            SCALE = s

        def rebias(b):
            global BIAS
            BIAS = b

        x = tf.constant(1.0)
        step(x)
        offset(x)
        reconfigure(2.0)
        rebias(1.0)
        step(x)
        offset(x)
    """)
