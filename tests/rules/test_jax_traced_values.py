"""Per-step certainty of "this value is a tracer" under JAX (issue 23): `jax.grad` and `jax.vmap`
alone make tracers only of what is computed from the arguments they transform, so a JAX
operation's result there is known traced only when the code shows it computed from such an
argument; one of closures or constants is the preview tier (`analysis.dependence.op_result_fact`). Where the
whole body is traced (`jax.jit`, a `lax` body) every operation's result is. Each case runs with
the real JAX in tests/runtime/test_jax_traced_values.py."""

from __future__ import annotations

from rulecases import found

from stagelint.config import Settings

PREVIEW = Settings(preview=True)


def assert_tiers(source: str, stable: set, preview: set = frozenset()):
    """Exactly the (line, code) findings `stable` by default, and those and `preview` with --preview."""
    got = found(source)
    assert got == set(stable), f"default tier: {sorted(got)}, expected {sorted(stable)}"
    got = found(source, settings=PREVIEW)
    assert got == set(stable) | set(preview), f"with --preview: {sorted(got)}"


def test_under_grad_alone_an_array_of_constants_is_concrete_one_of_the_argument_a_tracer():
    """`float(jnp.sum(grid))`, `LOG["grid"] = grid` of a `jnp.linspace` work under `jax.grad`
    without jit; the same of `w`, the differentiated argument, raise or leak a tracer."""
    assert_tiers("""
        import jax
        import jax.numpy as jnp

        LOG = {}

        def loss(w):
            grid = jnp.linspace(0.0, 1.0, 5)
            LOG["grid"] = grid
            scaled = w * 2
            LOG["w"] = jnp.tanh(scaled)
            scale = float(jnp.sum(grid))
            return jnp.sum(w * grid) * scale + float(jnp.sum(scaled))

        jax.grad(loss)(jnp.ones(5))
    """, stable={(10, "STG201"), (12, "STG601")}, preview={(8, "STG201"), (11, "STG601")})


def test_under_jit_or_a_lax_body_an_array_of_constants_is_a_tracer_too():
    """The negative twin: the same code traced whole (`jax.jit`, a `lax.scan` body, a jit around
    the grad) makes every operation's result a tracer."""
    assert_tiers("""
        import jax
        import jax.numpy as jnp

        LOG = {}
        TRACE = {}

        def loss(w):
            grid = jnp.linspace(0.0, 1.0, 5)
            LOG["grid"] = grid
            return jnp.sum(w * grid) * float(jnp.sum(grid))

        def body(carry, x):
            grid = jnp.linspace(0.0, 1.0, 5)
            TRACE["body"] = grid
            return carry, x

        jax.jit(jax.grad(loss))(jnp.ones(5))
        jax.lax.scan(body, 0.0, jnp.ones(3))
    """, stable={(9, "STG201"), (10, "STG601"), (14, "STG201")})


def test_under_vmap_alone_nonzero_of_constants_works_of_the_mapped_row_raises():
    assert_tiers("""
        import jax
        import jax.numpy as jnp

        def per_row(row):
            fixed = jnp.nonzero(jnp.arange(3.0) > 1)
            picked = jnp.nonzero(row > 0)
            return row, fixed, picked

        jax.vmap(per_row)(jnp.ones((2, 3)))

        @jax.jit
        def whole(row):
            return jnp.nonzero(jnp.arange(3.0) > 1)

        whole(jnp.ones(3))
    """, stable={(6, "STG604"), (13, "STG604")}, preview={(5, "STG604")})


def test_a_branch_on_a_flag_no_traced_call_passes_is_a_guess_and_one_a_traced_call_turns_on_is_not():
    """PGMax's `compute_energy(..., debug_mode=False)`: `if debug_mode: return _debug(...)`, staged
    by `jax.vmap(compute_energy, in_axes=(None, 0))(state, x)`, which leaves `debug_mode` False: the
    NumPy call under it is a preview finding. A jitted caller passing `verbose=True` traces the
    branch: reported by default. (tests/runtime/test_jax_traced_values.py runs both.)"""
    assert_tiers("""
        import jax
        import jax.numpy as jnp
        import numpy as np

        def _debug_energy(state, x):
            return np.array(x) * 2

        def compute_energy(state, x, debug_mode=False):
            if debug_mode:
                return _debug_energy(state, x)
            return jnp.sum(x)

        def _debug_loss(x):
            return np.array(x)

        def loss(x, verbose=False):
            if verbose:
                return _debug_loss(x)
            return jnp.sum(x)

        def outer(x):
            return loss(x, verbose=True)

        jax.vmap(compute_energy, in_axes=(None, 0))(1, jnp.ones((2, 3)))
        jax.jit(outer)(jnp.ones(3))
        compute_energy(1, jnp.ones(3), debug_mode=True)
    """, stable={(14, "STG601")}, preview={(6, "STG601")})


def test_a_call_of_a_jitted_def_passing_the_flag_traces_the_branch():
    """`@jax.jit def f(x, debug=False)` called `f(x, debug=True)`: that call is traced (as a
    static or traced argument), so the branch's NumPy call is reported by default; the same
    call of a function only `jax.vmap(f)` stages runs eagerly and turns nothing on."""
    assert_tiers("""
        import functools
        import jax
        import jax.numpy as jnp
        import numpy as np

        def _show(x):
            return np.array(x)

        @functools.partial(jax.jit, static_argnames="debug")
        def f(x, debug=False):
            if debug:
                return _show(x)
            return jnp.sum(x)

        f(jnp.ones(3), debug=True)
    """, stable={(7, "STG601")})


def test_what_functools_partial_binds_for_a_lax_body_is_a_python_value_the_operands_are_traced():
    """jaxpruner's `lax.cond(sparsity == 0, ones, functools.partial(_internal, n=n, m=m,
    axis=axis), scores)`: `m` is the Python int partial bound, so `int(shape / m)` and `if shape % m`
    work; the twin passes `m` as an operand, traced: `int(m)` raises (JAX 0.10.2,
    tests/runtime/test_jax_traced_values.py)."""
    assert_tiers("""
        import functools
        import jax
        import jax.numpy as jnp

        def _internal(scores, n, m, axis):
            length = scores.shape[axis]
            if length % m != 0:
                raise ValueError("not divisible")
            return scores.reshape(int(length / m), m)[:, :n]

        def _operand(pair):
            scores, m = pair
            return scores * int(m)

        def mask(scores, sparsity, n, m, axis):
            a = jax.lax.cond(sparsity == 0, jnp.ones_like, functools.partial(_internal, n=n, m=m, axis=axis), scores)
            b = jax.lax.cond(sparsity == 0, lambda p: p[0], _operand, (scores, m))
            return a, b
    """, stable={(13, "STG601")})
