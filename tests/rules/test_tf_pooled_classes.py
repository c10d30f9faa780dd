"""Issue 23, the TensorFlow false classes left standing in the held-back halves pooled
(`bench/fresh_audit.py pool`): each as the framework fact it follows, with its negative twin.
Behaviour checked with TensorFlow 2.21 in this venv (tests/runtime/test_tf_pooled_facts.py)."""

from __future__ import annotations

from rulecases import assert_marked, assert_tiers


def test_a_loop_over_the_tf1_variable_collections_is_a_python_loop():
    """horovod's `broadcast_variables(variables)` fills a dict in `for var in variables:`, and a
    traced caller passes `tf.compat.v1.global_variables()`: a Python list of variables, so the
    loop runs in Python and the dict fills normally. The same helper given a tensor by a traced
    call loops in the graph."""
    assert_marked("""
        import tensorflow as tf

        def by_device(variables):
            groups = {}
            for var in variables:
                groups.setdefault(var.device, []).append(var)
            return groups

        def by_value(values):
            groups = {}
            for v in values:
                groups.setdefault(v.ref(), []).append(v)  # STG202
            return groups

        @tf.function
        def step(x):
            by_device(tf.compat.v1.global_variables())
            by_device(tf.compat.v1.trainable_variables())
            by_value(tf.constant([1.0, 2.0]))
            return x
    """)


def test_a_function_made_per_call_over_a_python_value_of_that_call_is_a_guess():
    """first-order-model's `animate` makes `@tf.function slice_driving` returning `x[0:end]`,
    `end` computed from the video's length in that call: TensorFlow bakes it into the graph, so
    each call with another length needs its own graph and a Function made once outside would
    keep the first `end`; whether the lengths repeat is not shown: the preview tier. A Function
    made per call that reads only module-level names, or the call's model (an object whose
    variables it reads live), stays in the default tier."""
    assert_tiers("""
        import numpy as np
        import tensorflow as tf

        model = tf.keras.Sequential([tf.keras.layers.Dense(2)])

        def animate(video, batch_size=4):
            end = batch_size * (len(video) // batch_size)
            @tf.function(input_signature=[tf.TensorSpec(shape=None, dtype=tf.float32)])  # preview STG502
            def slice_driving(x):
                return x[0:end]
            start, end = np.array(0), np.array(batch_size * (len(video) // batch_size))
            return slice_driving(tf.constant(video))

        def forward(x):
            @tf.function  # STG502
            def run(x):
                return model(x)
            return run(x)

        def predict(net, x):
            @tf.function  # STG502
            def run(x):
                return net(x)
            return run(x)

        for v in ([1.0] * 5, [1.0] * 9):
            animate(v)
            forward(tf.ones([1, 2]))
            predict(model, tf.ones([1, 2]))
    """)


def test_a_function_called_only_after_a_numpy_call_is_traced_only_if_its_receiver_is_no_tensor():
    """Monodepth2's debug block: `dispmap = outputs[...][0].numpy()`, then `dilate_box(box)`,
    whose `print` would run at trace time. Under a trace `.numpy()` raises on a tensor or a
    variable, so the call after it is traced only if the receiver is neither: with the receiver
    a parameter's item (not known a tensor) a guess, the preview tier; with it known a tensor, in
    no trace at all. A function also called before the `.numpy()` is traced."""
    assert_tiers("""
        import tensorflow as tf

        def dilate_box(box):
            print(box.shape)  # preview STG101
            return box * 2

        def shrink_box(box):
            print(box.shape)
            return box / 2

        def scale_box(box):
            print(box.shape)  # STG101
            return box * 3

        def losses(outputs, box, debug):
            total = tf.reduce_sum(box)
            if debug:
                dispmap = outputs["disp"][0].numpy()
                box = dilate_box(box)
            return total + tf.reduce_sum(scale_box(box))

        def report(box):
            total = tf.reduce_sum(box)
            doubled = (total * 2).numpy()  # STG601
            return shrink_box(box)

        @tf.function
        def step(outputs, box):
            report(box)
            return losses(outputs, box, True)
    """)
