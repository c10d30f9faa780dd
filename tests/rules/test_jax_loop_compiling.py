"""STG503 under JAX claims that the program and its compile time grow with every iteration: that
holds where the whole body is traced into one program (`jax.jit`, `pmap`, a `lax` body, a jit around
`jax.vmap`), not under `jax.vmap` or `jax.grad` alone, which keep no trace and run the loop op by op
on every call (tests/runtime/test_jax_traced_values.py). Staged only by those, the loop is reported
only with `--preview` (a jit around a caller the analysis does not see would unroll it)."""

from __future__ import annotations

from rulecases import assert_tiers


def test_a_row_loop_under_vmap_alone_is_preview():
    assert_tiers("""
        import jax
        import jax.numpy as jnp

        def f(x):
            out = 0.0
            for i in range(x.shape[0]):  # preview STG503
                out = out + jnp.sin(x[i])
            return out

        def g(x):
            out = 0.0
            for row in x:  # preview STG503
                out = out + jnp.sin(row)
            return out

        def run(xs):
            return jax.vmap(f)(xs), jax.vmap(g)(xs)
    """)


def test_the_same_loop_under_a_jit_around_vmap_is_reported():
    """The negative twin: a jit around the vmap traces the body once into one program, one copy of
    the loop's body per row."""
    assert_tiers("""
        import jax
        import jax.numpy as jnp

        def f(x):
            out = 0.0
            for i in range(x.shape[0]):  # STG503
                out = out + jnp.sin(x[i])
            return out

        @jax.jit
        def g(x):
            out = 0.0
            for row in x:  # STG503
                out = out + jnp.sin(row)
            return out

        batched = jax.jit(jax.vmap(f))

        def run(xs):
            return batched(xs), g(xs[0])
    """)
