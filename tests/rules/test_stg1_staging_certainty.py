"""STG101 / STG104 (and STG402) per step: a function passed as an argument is traced with its
caller only when the callee is known to call it while tracing (a framework API that takes
functions); handed to anything else (`multiprocessing.Process(target=f)`, a project function,
a callee not resolved) that hop is a guess and the finding is in the preview tier. A draw after
a literal seed of its generator is the same on every call, traced or not: not reported."""

from __future__ import annotations

from rulecases import assert_tiers


def test_a_function_handed_to_a_process_is_a_guess_one_handed_to_tf_map_fn_is_traced():
    assert_tiers("""
        import multiprocessing
        import random
        import tensorflow as tf

        def probe():
            def target(queue):
                print("probing")  # preview STG101
                queue.put(random.random())  # preview STG104
            ctx = multiprocessing.get_context("fork")
            queue = ctx.Queue()
            ctx.Process(target=target, args=(queue,)).start()
            return queue.get()

        def branch(x):
            print("branch")  # STG101
            return x + random.random()  # STG104

        @tf.function
        def step(x):
            probe()
            y = tf.cond(x > 0, lambda: branch(x), lambda: x)
            return tf.map_fn(branch, y)

        for x in tf.data.Dataset.range(3):
            step(x)
    """)


def test_a_variable_made_in_a_function_handed_to_a_project_helper_is_a_guess():
    assert_tiers("""
        import tensorflow as tf

        def make():
            return tf.Variable(1.0)  # preview STG402

        def made():
            return tf.Variable(2.0)  # STG402

        def register(factory):
            return factory

        @tf.function
        def step(x):
            register(make)
            return made() + x
    """)


def test_a_draw_after_a_literal_seed_in_its_block_is_what_every_call_draws():
    assert_tiers("""
        import random
        import numpy as np
        import tensorflow as tf

        @tf.function
        def seeded(x):
            np.random.seed(1234)
            a = np.random.uniform()
            random.seed(0)
            return x * a * random.random()

        @tf.function
        def unseeded(x, seed):
            np.random.seed(seed)
            a = np.random.uniform()  # STG104
            random.seed(0)
            b = np.random.normal()  # STG104
            if x is not None:
                np.random.seed(3)
            return x * a * b * np.random.rand()  # STG104

        for x in tf.data.Dataset.range(3):
            seeded(x)
            unseeded(x, 7)
    """)


def test_a_draw_a_helper_returns_is_a_guess_one_a_function_uses_or_its_entry_returns_is_not():
    # edward2's `gen_int_seed` (first audit, B): `return random.randrange(2**63 - 1)` hands the
    # draw to callers that seed stateful random ops with it (which draw anew on every call:
    # tests/runtime/test_tf_store_facts.py); the twins use the draw, or return it from the Function
    assert_tiers("""
        import random
        import time
        import tensorflow as tf

        def gen_int_seed():
            return random.randrange(2**63 - 1)  # preview STG104

        def jitter(x):
            return x + random.random()  # STG104

        @tf.function
        def step(x):
            noise = tf.random.normal(tf.shape(x), seed=gen_int_seed())
            return jitter(x) + noise

        @tf.function
        def stamp():
            return time.time()  # STG104

        for x in tf.data.Dataset.range(3):
            step(x)
            stamp()
    """)


def test_a_log_under_an_in_test_is_pythons_one_under_a_tensor_comparison_is_traced_both_ways():
    # scenic's flexio (third audit, L): `if SEED_KEY in features:` is a Python bool (AutoGraph
    # cannot stage it): the warning logs once per trace when the key is there, as the author means
    assert_tiers("""
        import logging
        import tensorflow as tf

        SEED_KEY = "seed"

        def populate():
            ds = tf.data.Dataset.from_tensor_slices({"x": [1.0]})

            def _fn(features):
                if SEED_KEY in features:
                    logging.warning("Seed key (%s) already exists: *not* overwriting", SEED_KEY)
                if not ("rng" in features):
                    logging.warning("no rng")
                if tf.reduce_sum(features["x"]) > 0:
                    logging.warning("positive")  # STG101
                return features
            return ds.map(_fn)
    """)


def test_a_log_under_a_parameter_taken_for_a_tensor_only_from_its_own_ops_is_a_guess():
    # uncertainty-baselines' toxic_comments (first audit, B): `label_threshold` is compared with a
    # tensor (`labels > label_threshold`) but every call passes a Python float flag; the twin's
    # caller passes a tensor
    assert_tiers("""
        import logging
        import tensorflow as tf
        from absl import flags

        FLAGS = flags.FLAGS

        @tf.function
        def sample_weight(labels, class_weight, label_threshold=0.7):
            if label_threshold != 0.7:
                logging.warning("class weights assume 0.7, got %s", label_threshold)  # preview STG101
            return tf.gather(class_weight, tf.cast(labels > label_threshold, tf.int32))

        @tf.function
        def tensor_weight(labels, class_weight, label_threshold):
            if label_threshold != 0.7:
                logging.warning("class weights assume 0.7, got %s", label_threshold)  # STG101
            return tf.gather(class_weight, tf.cast(labels > label_threshold, tf.int32))

        def main(labels, weights):
            sample_weight(labels, weights, FLAGS.ece_label_threshold)
            tensor_weight(labels, weights, tf.constant(0.5))
    """)


def test_a_log_that_formats_a_tensor_with_str_and_plus_is_traced_text():
    # YosefLab/epitome before its fix: `tf.compat.v1.logging.info(str(step) + " " +
    # str(tf.reduce_mean(loss[0])))` in a @tf.function loop logs once, the symbolic
    # `Tensor("Mean:0", ...)` (TF 2.21: one message over three calls); the twin formats only
    # Python values of the trace (a parameter's default, a shape, a dtype) and is the trace's own log
    assert_tiers("""
        import logging
        import tensorflow as tf

        @tf.function
        def loop(ds):
            for step, loss in enumerate(ds):
                tf.compat.v1.logging.info(str(step) + " " + str(tf.reduce_mean(loss)))  # STG101
                logging.info("mean: " + repr(tf.reduce_mean(loss)))  # STG101

        @tf.function
        def build(x, n_layers=3):
            logging.info("building " + str(n_layers) + " layers, input shape " + str(x.shape))
            logging.info("dtype: " + repr(x.dtype))
            return x
    """)
