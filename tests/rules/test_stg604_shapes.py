"""STG604 data-dependent-shape: what JAX stages, with traced values only."""

from __future__ import annotations

from rulecases import assert_marked, assert_project_marked, findings


def test_every_size_less_function_and_its_sized_twin():
    assert_marked("""
        import jax
        import jax.numpy as jnp

        @jax.jit
        def bad(x, m):
            a = jnp.flatnonzero(x)  # STG604
            b = jnp.argwhere(x)  # STG604
            c = jnp.unique_values(x)  # STG604
            d = jnp.compress(m, x)  # STG604
            e = jnp.extract(m, x)  # STG604
            f = jnp.setdiff1d(x, m)  # STG604
            g = jnp.bincount(x)  # STG604
            h = jnp.repeat(x, m)  # STG604
            i = jnp.linspace(0.0, 1.0, m)  # STG604
            j = jnp.zeros(jnp.sum(m))  # STG604
            k = x.nonzero()  # STG604
            return a, b, c, d, e, f, g, h, i, j, k

        @jax.jit
        def good(x, m):
            a = jnp.flatnonzero(x, size=3)
            b = jnp.argwhere(x, size=3, fill_value=0)
            c = jnp.unique_values(x, size=3)
            d = jnp.compress(m, x, size=3)
            g = jnp.bincount(x, length=4)
            h = jnp.repeat(x, m, total_repeat_length=6)
            h2 = jnp.repeat(x, 2)
            i = jnp.linspace(0.0, 1.0, 5)
            j = jnp.zeros(x.shape) + jnp.ones((x.shape[0], 2)).sum() + jnp.zeros((m, 2)).sum()
            w = jnp.where(m, x, 0.0) + jnp.where(m, size=2)[0]
            return a, b, c, d, g, h, h2, i, j, w
    """)


def test_boolean_masks_are_recognised_through_names_and_operators():
    assert_marked("""
        import jax
        import jax.numpy as jnp

        @jax.jit
        def bad(x, y):
            mask = (x > 0) & ~jnp.isnan(y)
            a = x[mask]  # STG604
            b = y[jnp.isfinite(y)]  # STG604
            c = x.at[x < 0].set(0.0)  # STG604
            return a, b, c

        @jax.jit
        def good(x, i, idx):
            return x[i], x[idx], x[0], x[..., 1], x[None], x[:, 0]
    """)


def test_static_and_python_values_are_not_traced():
    assert_marked("""
        import functools
        import jax
        import jax.numpy as jnp
        import numpy as np

        TABLE = np.arange(10)

        @functools.partial(jax.jit, static_argnames=("n",))
        def static_bound(x, n):
            return x[:n] + jnp.arange(n)

        @jax.jit
        def default_bound(x, n=3):
            return x[:n]

        @jax.jit
        def numpy_constant(x):
            idx = TABLE[TABLE > 4]
            return x[idx]

        @jax.jit
        def traced_bound(x, n):
            return x[:n]  # STG604
    """)


def test_grad_alone_sees_concrete_values_and_vmap_does_not():
    assert_marked("""
        import jax
        import jax.numpy as jnp

        def positive_sum(x):
            return jnp.sum(x[x > 0])

        def masked(x):
            return jnp.sum(x[x > 0])  # STG604

        g = jax.grad(positive_sum)
        v = jax.vmap(masked)

        def run(x):
            return g(x), v(x)
    """)


def test_a_helper_reached_with_traced_arguments(tmp_path):
    got = assert_project_marked(tmp_path, {
        "app/__init__.py": "",
        "app/util.py": """
            import jax.numpy as jnp

            def head(x, n):
                return x[:n]  # STG604

            def positives(x):
                return x[x > 0]
        """,
        "app/model.py": """
            import functools
            import jax
            from app.util import head, positives

            @jax.jit
            def step(x, n):
                return head(x, n)

            @functools.partial(jax.jit, static_argnums=1)
            def fixed(x, n):
                return head(x, n)

            def eager(x):
                return positives(x)
        """,
    })
    assert [(f.path.replace("\\", "/"), f.function) for f in got] == [("app/util.py", "head")]


def test_tensorflow_code_is_left_alone():
    assert not findings("""
        import tensorflow as tf

        @tf.function
        def f(x, n):
            return x[x > 0], x[:n], tf.boolean_mask(x, x > 0)
    """, "STG604")


def test_message():
    (f,) = findings("""
        import jax

        @jax.jit
        def prefix_sum(x, n):
            return x[:n].sum()
    """, "STG604")
    assert f.message.startswith("the slice `x[:n]` with a traced bound in `prefix_sum`: under jax.jit the result's shape")
    assert "IndexError: Slice entries must be static integers" in f.message
    assert "jax.lax.dynamic_slice" in f.message


def test_tests_of_the_error_itself_are_left_alone():
    assert_marked("""
        import unittest

        import jax
        import jax.numpy as jnp

        class T(unittest.TestCase):
            def test_slice(self):
                x = jnp.arange(5)
                with self.assertRaises(IndexError):
                    jax.jit(lambda x, i: x[i:i + 2])(x, 2)
                with self.assertRaisesRegex(TypeError, "concrete"):
                    jax.jit(lambda n: jnp.arange(n))(3)
                jax.jit(lambda x, i: x[i:i + 2])(x, 2)  # STG604
    """)


def test_shapes_from_helpers_and_pallas_modules_are_left_alone():
    assert_marked("""
        import jax
        import jax.numpy as jnp

        def output_shape(b):
            return (b + b, jax.lax.max(b, 1))

        @jax.jit
        def f(x):
            b = x.shape[0]
            return jnp.ones(output_shape(b)), jnp.zeros(jnp.sum(x > 0))  # STG604
    """)
    assert not findings("""
        import jax
        import jax.numpy as jnp
        import jax.experimental.pallas as pl

        @jax.jit
        def f(x, n):
            return x[:n]
    """, "STG604")
