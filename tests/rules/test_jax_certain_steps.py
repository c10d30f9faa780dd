"""Per-step certainty of the JAX rules below 0.80 on repositories nobody here had read
(bench/fresh_audit_notes.md, "Per-step certainty of STG604, STG504, STG502 under JAX"): the part
of each rule whose whole chain is a known fact stays in the default tier, the step that is a guess
moves to `--preview`. Each fact is checked with JAX 0.10.2 (and equinox) in
tests/runtime/test_jax_certain_steps_facts.py."""

from __future__ import annotations

from rulecases import assert_tiers


def test_a_slice_bound_from_a_vmapped_helpers_parameter_is_a_preview_guess():
    """serket's `horizontal_translate_2d(image, shift)`: `shift` is a helper's parameter,
    passed unbatched by `jax.vmap(translate, in_axes=(0, None))` and reached through
    `jax.vmap(random_translate, in_axes=(None, 0))(key, image)`, which computes it
    with `jr.randint(key, ...)` of the unbatched key. vmap hands an `in_axes=None` argument over as
    it is, so that draw is a concrete array and the slice works; under a caller's `jax.jit` it
    would be a tracer. Which of the two the calls are is a guess: the preview tier."""
    assert_tiers("""
        import jax
        import jax.numpy as jnp
        import jax.random as jr

        def translate(image, shift):
            return jnp.zeros_like(image).at[:, shift:].set(image[:, :-shift])  # preview STG604

        def random_translate(key, image):
            shift = jr.randint(key, shape=(), minval=1, maxval=3)
            return translate(image, shift)

        def apply(key, images):
            return jax.vmap(random_translate, in_axes=(None, 0))(key, images)

        def fixed(images, shift):
            return jax.vmap(translate, in_axes=(0, None))(images, shift)
    """)


def test_a_slice_bound_the_jitted_function_is_given_is_reported():
    """The negative twin: `jax.jit` hands every non-static parameter a tracer (a Python int
    included), so `x[:n]` in the jitted function itself raises IndexError on the first call: known,
    the default tier. A vmapped function's mapped parameter is a batch tracer the same way, and a
    helper's parameter is known to hold one where a call passes a JAX operation's result in a body
    `jax.jit` traces whole (or a parameter known to hold one)."""
    assert_tiers("""
        import jax
        import jax.numpy as jnp

        @jax.jit
        def prefix(x, n):
            return jnp.sum(x[:n])  # STG604

        def row_prefix(rows, n):
            return jax.vmap(lambda r, k: r[:k], in_axes=(0, 0))(rows, n)  # STG604

        def head(x, k):
            return x[:k]  # STG604

        @jax.jit
        def step(key, x):
            return head(x, jax.random.randint(key, (), 1, 3))
    """)
