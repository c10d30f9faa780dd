"""A new jitted function per iteration whose every iteration holds its own configuration (the
eleventh JAX audit's AN3, bench/fresh_audit_notes.md: jax-spring-sim's per-horizon benchmark; the
ninth's AE1 and the tenth's AJ4/AI1 are the same class). What the function holds is read through
the nested def the jit names (`analysis.functions.held_uses`), so a horizon held as a default
argument and needed as a Python value is the program's configuration, a preview guess, while a
loop-invariant value or a per-iteration operand keeps the default finding
(tests/runtime/test_jax_held_horizon_facts.py)."""

from __future__ import annotations

from rulecases import assert_tiers


def test_a_jitted_def_per_horizon_holding_it_as_a_default_is_a_preview_guess():
    """jax-spring-sim's `bench_gradient`: `def loss(rest, ..., n_steps: int = n_steps)` per
    horizon, then `jax.jit(loss)` and `jax.jit(jax.value_and_grad(loss))`: the horizon reaches a
    project function that hands it on as a rollout's length, each horizon another program whatever the function
    object; whether the horizons repeat the code does not show."""
    assert_tiers("""
        import jax

        def simulate(rest, s, n_steps):
            final, _ = jax.lax.scan(lambda c, _: (c * s, None), rest, None, length=n_steps)
            return final

        def rollout(rest, s, n_steps):
            return simulate(rest, s, n_steps).sum()

        def bench(horizons, s):
            for n_steps in horizons:
                def loss(rest, s=s, n_steps: int = n_steps):
                    return rollout(rest, s, n_steps)

                fwd = jax.jit(loss)  # preview STG502
                fwd_bwd = jax.jit(jax.value_and_grad(loss))  # preview STG502
                fwd(s)
                fwd_bwd(s)
    """)


def test_a_jitted_def_per_iteration_holding_a_loop_invariant_value_stays_default():
    """The negative twin: the def holds only what is bound before the loop (its default reads the
    enclosing parameter), the same program on every iteration, traced anew each time."""
    assert_tiers("""
        import jax

        def rollout(rest, s, n_steps):
            final, _ = jax.lax.scan(lambda c, _: (c * s, None), rest, None, length=n_steps)
            return final.sum()

        def bench(tries, s, n_steps):
            for _ in range(tries):
                def loss(rest, s=s, n_steps: int = n_steps):
                    return rollout(rest, s, n_steps)

                fwd = jax.jit(loss)  # STG502
                fwd(s)
    """)


def test_a_jitted_def_per_iteration_holding_an_operand_as_a_default_stays_default():
    """The other twin: the per-iteration value is used only as an operand of array arithmetic, a
    constant of one program that one jitted function taking it as an argument traces once."""
    assert_tiers("""
        import jax

        def sweep(scales, x):
            for scale in scales:
                def loss(rest, scale=scale):
                    return (rest * scale).sum()

                fwd = jax.jit(loss)  # STG502
                fwd(x)
    """)


def test_a_default_renaming_the_held_value_is_read_where_the_body_uses_it_under_its_name():
    """A default under another name (`def loss(rest, k=n)`) is a use the walk does not follow: a
    guess, as before."""
    assert_tiers("""
        import jax

        def sweep(sizes, x):
            for n in sizes:
                def loss(rest, k=n):
                    return rest.reshape(-1, k).sum()

                fwd = jax.jit(loss)  # preview STG502
                fwd(x)
    """)



def test_a_wrapper_per_iteration_holding_the_range_variable_in_a_shape_is_no_finding():
    """vmc_jax's benchmark (the tenth audit's AJ4): `jax.pmap(lambda key: ... shape=(n // (d + 1),
    L))` for each `d` in `range(device_count)`: each `d` is another program, needed as a Python
    value (a shape), which one jitted function with `d` static traces as often. So is a `range`
    bound or a scan length per horizon of a literal list of different horizons."""
    assert_tiers("""
        import jax

        def bench(n, keys):
            for d in range(4):
                jax.pmap(lambda key: jax.random.bernoulli(key, shape=(n // (d + 1), 8)))(keys[:d + 1])

        def horizons(x):
            for n_steps in (25, 50, 100):
                def loss(rest, n_steps=n_steps):
                    final, _ = jax.lax.scan(lambda c, _: (c * 0.5, None), rest, None, length=n_steps)
                    return final.sum()

                jax.jit(loss)(x)
    """)


def test_the_range_variable_as_an_operand_or_a_repeating_or_unshown_value_keeps_its_tier():
    """The negative twins: the loop's variable only an operand (default: a traced argument would
    do), a literal list that repeats a value (the hoisted jit would reuse the repeat: preview, as
    before), and values of a parameter (whether they repeat is not shown: preview)."""
    assert_tiers("""
        import jax

        def operand(x):
            for d in range(4):
                jax.jit(lambda v: v * d)(x)  # STG502

        def repeated(x):
            for n in (2, 4, 2):
                jax.jit(lambda v: v.reshape(-1, n).sum(0))(x)  # preview STG502

        def given(x, sizes):
            for n in sizes:
                jax.jit(lambda v: v.reshape(-1, n).sum(0))(x)  # preview STG502
    """)


def test_a_wrapper_per_flag_of_true_and_false_read_by_a_python_if_is_no_finding():
    """`for flag in (True, False)`, a def per iteration whose Python `if` reads the flag: each flag
    is another program, which one jitted function with the flag static traces as often (JAX 0.10.2:
    tests/runtime/test_jax_held_horizon_facts.py); the keyword literals are loop values as numbers
    are (`literals.literal_value`). So are `True`/`False` beside a size in a loop item, whose
    size gives each iteration an array of another shape."""
    assert_tiers("""
        import jax
        import jax.numpy as jnp

        def flags(x):
            for flag in (True, False):
                def step(y):
                    if flag:
                        return y * 2
                    return y + 1

                jax.jit(step)(x)

        def sizes(x):
            for n, flag in ((2, True), (3, False)):
                a = jnp.ones((n,))
                jax.jit(lambda y: y + a)(x)
    """)


def test_a_repeated_flag_or_a_repeated_size_beside_flags_keeps_its_finding():
    """The negative twins: `(True, True)` repeats a value (one jitted function with the flag static
    would reuse the repeat: 2 traces against 1; preview, as a repeated number), and items of one
    size with two flags make arrays of one shape: one program, traced anew each iteration."""
    assert_tiers("""
        import jax
        import jax.numpy as jnp

        def flags(x):
            for flag in (True, True):
                def step(y):
                    if flag:
                        return y * 2
                    return y + 1

                jax.jit(step)(x)  # preview STG502

        def sizes(x):
            for n, flag in ((2, True), (2, False)):
                a = jnp.ones((n,))
                jax.jit(lambda y: y + a)(x)  # STG502
    """)
