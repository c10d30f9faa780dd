"""Issue 23, the third fresh JAX audit (bench/fresh_repos_jax3.txt, half G's verdicts in
bench/fresh_verdicts_G_before.csv): each false-positive class as the framework fact it follows,
with its positive twin. Behaviour checked with JAX 0.10.2 in this venv
(tests/runtime/test_jax_third_audit_facts.py runs the same code)."""

from __future__ import annotations

from rulecases import assert_marked


def test_numpy_functions_that_call_the_tracers_own_method_work_under_jit():
    """JaxMARL's `np.min(all_bounds, 0)` in a vmapped `get_obs`, tapnet's `np.reshape(v[..., -1, :],
    (3, 3))` in a `lax.while_loop` body: NumPy's reductions and shape functions call the argument's
    own method when it is not an ndarray, and a tracer has `min` and `reshape`. `np.clip` and
    `np.expand_dims` convert it (TracerArrayConversionError), and so does `np.sum` of a list of
    tracers or `np.max(3, x)` (the tracer not first)."""
    assert_marked("""
        import jax
        import jax.numpy as jnp
        import numpy as np

        @jax.jit
        def bounds(pos, step):
            all_bounds = jnp.stack([pos, pos + step])
            low = np.min(all_bounds, 0) + 1
            h = np.reshape(all_bounds, (4,))
            return low, np.transpose(np.sum(all_bounds, axis=0, keepdims=True)), h

        @jax.jit
        def converts(pos, step):
            a = np.clip(pos, 0, 1)  # STG601
            b = np.expand_dims(pos, 0)  # STG601
            c = np.sum([pos, step])  # STG601
            return a, b, c, np.max(3, step)  # STG601
    """)


def test_a_part_unpacked_from_a_scan_carry_is_jaxs_copy_too():
    """JaxMARL's shaq: `(..., time_state, ...) = runner_state` in a `lax.scan` body, then
    `time_state["updates"] = time_state["updates"] + 1` and `runner_state` returned. JAX rebuilds
    every container of the carry around its leaves for the trace (JAX 0.10.2: the caller's dict
    is unchanged, the scan's result has the update), so the write leaks nothing. The same write
    into a part of a global is a leak, and one into the carry that the body neither returns nor
    reads again is lost (STG102)."""
    assert_marked("""
        import jax
        import jax.numpy as jnp

        STATE = ({"w": 1.0}, {"n": 0})

        def step(runner_state, x):
            params, time_state = runner_state
            time_state["updates"] = time_state["updates"] + 1
            time_state["last"] = params["w"] * x
            runner_state = (params, time_state)
            return runner_state, x

        def forgets(runner_state, x):
            params, time_state = runner_state
            time_state["last"] = x * 2  # STG102
            return (params, {"last": x}), x

        @jax.jit
        def uses_global(x):
            params, stats = STATE
            stats["last"] = x * 2  # STG201
            return x

        def run(xs):
            carry = ({"w": jnp.ones(())}, {"updates": jnp.zeros(()), "last": jnp.zeros(())})
            jax.lax.scan(forgets, carry, xs)
            return jax.lax.scan(step, carry, xs)
    """)


def test_a_rebinding_between_the_def_and_the_first_run_is_set_up():
    """xland-minigrid's GRU: `_step_fn` reads `Wi, bi`, which the enclosing function rebinds
    (`xs, Wi, bi = promote_dtype(xs, Wi, bi)`) after the def and before `lax.scan(_step_fn, ...)`
    runs it. A closure reads its cell when it runs (JAX 0.10.2: a jitted closure first called
    after the rebinding returns the new value), so no trace saw the old one. Called once before
    and once after the rebinding, the second call reuses a trace of the old value (STG301)."""
    assert_marked("""
        import jax
        import jax.numpy as jnp

        @jax.jit
        def gru(xs, h):
            Wi = jnp.ones((4, 4))
            bi = jnp.zeros((4,))

            def _step_fn(h, x):
                out = jnp.tanh(Wi @ x + bi + h)
                return out, out

            xs, Wi, bi = jnp.asarray(xs, jnp.float16), Wi.astype(jnp.float16), bi.astype(jnp.float16)
            return jax.lax.scan(_step_fn, h, xs)

        def stale(x):
            scale = 2.0

            @jax.jit
            def apply(y):
                return y * scale  # STG301

            first = apply(x)
            scale = 4.0
            return first, apply(x)
    """)


def test_a_jit_made_under_a_flag_its_block_clears_is_not_made_on_every_iteration():
    """tapnet's `compute_clusters`: `if need_compile: update_jit = jax.jit(partial(update,
    num_cats=num_cats)); need_compile = False`, the flag set again only when the number of
    categories changes (`if step % n == n - 1: ... need_compile = True`). The block runs on those
    iterations alone (JAX 0.10.2: 4 traces over 9 steps with a change every 3). Set again on every
    pass, the block runs on each iteration: a new jit, and a new trace, each time."""
    assert_marked("""
        import functools
        import jax

        def update(state, x, num_cats):
            return state + x * num_cats

        def fit(state, data, num_iters):
            num_cats = 1
            need_compile = True
            for step in range(num_iters):
                if step % 100 == 99:
                    num_cats += 1
                    need_compile = True
                if need_compile:
                    update_jit = jax.jit(functools.partial(update, num_cats=num_cats))
                    need_compile = False
                state = update_jit(state, data)
            return state

        def fit_always(state, data, num_iters):
            for step in range(num_iters):
                need_compile = True
                if need_compile:
                    update_jit = jax.jit(functools.partial(update, num_cats=step))  # STG502
                    need_compile = False
                state = update_jit(state, data)
            return state
    """)
