"""The fourteenth JAX audit's fix-from half (AY): a loop over what `jax.vmap(disc)(y)` returns where
`disc` is a parameter (a multi-period / multi-scale discriminator whose `__call__` returns a Python
list of one prediction per sub-discriminator, handed to the loss function by its caller). What a
wrapped transformation's call returns is the pytree its function returns
(`frameworks.JAX_WRAPPED_OUTPUT_STRUCTURE`, tests/runtime/test_jax_output_structure.py): where that
function's returns are not shown, that the loop runs over an array's rows is a guess (preview);
where they are shown, they decide (a list: silent; an array: reported)."""

from __future__ import annotations

from rulecases import assert_tiers


def test_a_loop_over_what_a_vmapped_parameter_returns_is_a_guess():
    """XTTS-for-JAX's and HiFiGAN-for-JAX's GAN losses: `fake_pred, _ = jax.vmap(disc)(y)` then
    `for fake in fake_pred:`. `disc` is a parameter: whether `fake_pred` is an array or the list its
    `__call__` builds is not shown, so the finding (default at db298d8) is preview only."""
    assert_tiers("""
        import equinox as eqx
        import jax
        import jax.numpy as jnp


        @eqx.filter_jit
        def calculate_losses(disc, y):
            fake_pred, _ = jax.vmap(disc)(y)
            loss = 0
            for fake in fake_pred:  # preview STG503
                loss += jnp.mean((fake - 1) ** 2)
            whole = jax.jit(disc)(y)
            for part in whole:  # preview STG503
                loss += jnp.mean(part)
            return loss
    """)


def test_a_loop_over_what_a_vmapped_function_shown_here_returns_is_decided_by_it():
    """The negative twin: where the mapped function's returns are shown, they decide, by default: a
    function of this file returning two arrays gives two arrays, whose rows the loop unrolls; a
    callable object of this file returning a list of predictions gives that list (silent)."""
    assert_tiers("""
        import equinox as eqx
        import jax
        import jax.numpy as jnp


        def pair(x):
            return x * 2, x + 1


        class Multi(eqx.Module):
            def __call__(self, x):
                preds = []
                for k in (1, 2):
                    preds.append(x[:k])
                return preds, x


        @eqx.filter_jit
        def losses(y):
            rows, _ = jax.vmap(pair)(y)
            loss = 0
            for row in rows:  # STG503
                loss += jnp.mean(row)
            preds, _ = jax.vmap(Multi())(y)
            for fake in preds:
                loss += jnp.mean(fake)
            return loss
    """)
