"""The false classes of the seventh fresh JAX audit's read halves (W, X: bench/fresh_audit_notes.md),
each a fact checked with JAX 0.10.2 (tests/runtime/test_jax_fresh_facts.py), with its negative twin."""

from __future__ import annotations

from rulecases import assert_tiers


def test_a_name_bound_to_wrappers_of_two_functions_is_not_resolved_to_the_last():
    """self-organising-systems' `data_creator = vmap(create_reg_data, ...)` rebound four times in
    one module: each call runs the binding above it, and the model, one binding per name, gave
    every call to the last function (STG501 on ten calls of the others)."""
    assert_tiers("""
        import functools
        import jax
        import jax.numpy as jnp

        @functools.partial(jax.jit, static_argnums=1)
        def scale(x, n):
            return x * n

        @functools.partial(jax.jit, static_argnums=1)
        def shift(x, n):
            return x + n

        run = jax.vmap(scale, in_axes=(0, None))
        for n in range(100):
            run(jnp.ones((2, 2)), n)
        run = jax.vmap(shift, in_axes=(0, None))
        run(jnp.ones((2, 2)), 3)
    """)


def test_a_name_bound_once_to_a_wrapper_is_resolved():
    """The negative twin: bound once, every call runs `scale`, a new static value per step."""
    assert_tiers("""
        import functools
        import jax
        import jax.numpy as jnp

        @functools.partial(jax.jit, static_argnums=1)
        def scale(x, n):
            return x * n

        run = jax.vmap(scale, in_axes=(0, None))
        for n in range(100):
            run(jnp.ones((2, 2)), n)  # STG501
    """)


