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
    """)
