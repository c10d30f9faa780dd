"""STG502 under JAX where each iteration is a new program anyway (the fourteenth audit's AZ2 and
AY2, the thirteenth's AV1), and where the repeated trace compiles nothing (AZ3). JAX keys a trace
on the function object and on the arguments' shapes: when the code shows that an argument (or a
closed-over array) has another shape on every iteration, a jit made once before the loop traces
and compiles as often, and the new jit per iteration costs nothing
(`analysis.varying_shapes.new_shape_each_iteration`). `jax.eval_shape` traces and compiles nothing
(`frameworks.JAX_TRACES_WITHOUT_COMPILING`): a new function per iteration costs one run of its
Python, which matters only for a function costly to trace: a guess, preview.
(tests/runtime/test_jax_new_program_facts.py observes each fact.)"""

from __future__ import annotations

from rulecases import assert_tiers


def test_a_jit_per_iteration_whose_argument_has_a_new_shape_each_time_costs_nothing():
    """jax-ldr's timing sweep: `one_hot_labels` has the shape `(N, K)` the iteration asserts, for
    `K` of `tqdm(Ks)` with `Ks = range(5, 51, 5)`; a one-hot encoding of `K` classes
    (`y.shape + (K,)`, whatever `y`), a `jnp.linspace(0, 1, N)` and a `jnp.arange(N)` for `N` in a
    literal list, `zeros(base.shape + (n + 1,))`: every iteration a new shape, a new program however the jit is made. Each one is
    reported at 4d1aca2."""
    assert_tiers("""
        import jax
        import jax.numpy as jnp
        from tqdm.auto import tqdm

        from lib import make_one_hot


        def f(theta, z, labels):
            return jnp.sum(z * theta) + jnp.sum(labels)


        for name in ["a", "b"]:
            Ks = range(5, 51, 5)
            for K in tqdm(Ks):
                N = 64
                theta = jnp.ones(3)
                labels = make_one_hot(jnp.arange(N) % K, num_classes=K)
                assert labels.shape == (N, K)
                jit_f = jax.jit(jax.grad(f))
                jit_f(theta, theta, labels)

        for K in range(2, 6):
            y = jax.nn.one_hot(jnp.arange(8) % K, K)
            g = jax.jit(lambda a: jnp.sum(a))
            g(y)

        for N in [250, 500, 1000]:
            x = jnp.linspace(0.0, 1.0, N)
            h = jax.jit(lambda a: jnp.sum(a))
            h(x)

        for N in [250, 500, 1000]:
            x = jnp.arange(N)
            h3 = jax.jit(lambda a: jnp.sum(a))
            h3(x)

        for n in range(3):
            base = jnp.ones(3)
            x = jnp.zeros(base.shape + (n + 1,))
            h4 = jax.jit(lambda a: jnp.sum(a))
            h4(x)
    """)


def test_a_jit_per_iteration_whose_arguments_keep_their_shape_is_reported():
    """The negative twins: a shape asserted but the same on every iteration (`(N, 4)`), a one-hot
    encoding of a fixed number of classes, a `linspace` of a fixed length with the loop's `N` closed
    over (a Python number baked into the program: mixtureTheoryFlow's condition sweeps), lengths
    that repeat (`[250, 250, 500]`), a shape of one sum (`zeros(3 + 1)`), and a shape asserted only inside an `if`: still STG502."""
    assert_tiers("""
        import jax
        import jax.numpy as jnp

        from lib import make_one_hot


        def f(theta, labels):
            return jnp.sum(labels) * theta


        for K in range(5, 51, 5):
            N = 64
            labels = make_one_hot(jnp.arange(N) % 4, num_classes=4)
            assert labels.shape == (N, 4)
            jit_f = jax.jit(jax.grad(f))  # STG502
            jit_f(1.0, labels)

        for K in range(2, 6):
            y = jax.nn.one_hot(jnp.arange(8) % K, 6)
            g = jax.jit(lambda a: jnp.sum(a))  # STG502
            g(y)

        for N in [250, 500, 1000]:
            x = jnp.linspace(0.0, 1.0, 100)
            h = jax.jit(lambda a: jnp.sum(a) * N)  # STG502
            h(x)

        for N in [250, 250, 500]:
            x = jnp.linspace(0.0, 1.0, N)
            h2 = jax.jit(lambda a: jnp.sum(a))  # STG502
            h2(x)

        for n in range(3):
            x = jnp.zeros(3 + 1)
            h3 = jax.jit(lambda a: jnp.sum(a))  # STG502
            h3(x)

        for K in range(5, 51, 5):
            labels = make_one_hot(jnp.arange(64) % K, num_classes=K)
            if K > 10:
                assert labels.shape == (64, K)
            jit_g = jax.jit(jax.grad(f))  # STG502
            jit_g(1.0, labels)
    """)


def test_eval_shape_of_a_new_function_per_iteration_is_a_guess():
    """jinns' set-up loop: `jax.eval_shape(lambda _: carry, (None,))` per equation parameter
    traces a new lambda each time and compiles nothing; whether that trace costs enough to matter
    is not shown: preview (default at 4d1aca2)."""
    assert_tiers("""
        import functools

        import jax
        import jax.numpy as jnp


        def shapes_of(carry, fields):
            out = {}
            for name in fields:
                out[name] = jax.eval_shape(lambda _: carry, (None,))  # preview STG502
            return out


        def dot(x, y, dims):
            return jnp.tensordot(x, y, dims)


        def abstract_eval(xs, y):
            return [jax.eval_shape(functools.partial(dot, dims=1), x, y) for x in xs]  # preview STG502
    """)


def test_a_jit_of_a_new_function_per_iteration_stays_default():
    """The negative twin: `jax.jit` of the same new lambda per iteration lowers and compiles it
    each time: still STG502 by default."""
    assert_tiers("""
        import jax
        import jax.numpy as jnp


        def run(carry, fields, x):
            out = {}
            for name in fields:
                out[name] = jax.jit(lambda v: v * carry)(x)  # STG502
            return out
    """)


def test_range_s_arguments_are_read_alike_for_a_loop_and_for_an_arange():
    """`range(...)` and `jnp.arange(...)` take the same one to three integer arguments
    (`varying_shapes._range_of`): a loop over `range(2, 8, 2)` gives 2, 4, 6, and
    `jnp.arange(0, N, 2)` 1, 2, 3 items, a new shape each iteration. The twins: a step given by
    keyword (not read) and an arange whose length repeats (`jnp.arange(N // 4)`: 0, 1, 1) keep
    their findings."""
    assert_tiers("""
        import jax
        import jax.numpy as jnp

        def sweep():
            for N in range(2, 8, 2):
                x = jnp.arange(0, N, 2)
                jax.jit(lambda a: jnp.sum(a))(x)

        def keyword():
            for N in range(2, 8, 2):
                x = jnp.arange(0, N, step=2)
                jax.jit(lambda a: jnp.sum(a))(x)  # STG502

        def repeats():
            for N in range(2, 8, 2):
                x = jnp.arange(N // 4)
                jax.jit(lambda a: jnp.sum(a))(x)  # STG502
    """)
