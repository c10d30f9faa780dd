"""The facts behind issue 23's third fresh JAX audit (tests/rules/test_jax_third_audit.py),
observed with the real JAX."""

from __future__ import annotations

import numpy as np
import pytest

jax = pytest.importorskip("jax")
jnp = jax.numpy


def test_numpy_functions_that_call_the_arrays_method_work_on_tracers():
    """`frameworks.NUMPY_ARRAY_METHOD_CALLS`: each runs under jit, vmap and a `lax` loop with a
    tracer as its first argument, and gives what JAX's own method gives."""
    from stagelint.frameworks import NUMPY_ARRAY_METHOD_CALLS

    x = jnp.arange(6.0).reshape(2, 3)
    extra = {"numpy.reshape": ((3, 2),), "numpy.swapaxes": (0, 1), "numpy.moveaxis": (0, 1),
             "numpy.repeat": (2,), "numpy.squeeze": (), "numpy.shape": (), "numpy.ndim": ()}
    for name in sorted(NUMPY_ARRAY_METHOD_CALLS):
        f = getattr(np, name.split(".", 1)[1])
        args = extra.get(name, (0,) if name not in ("numpy.round", "numpy.around", "numpy.transpose") else ())
        arg = x[None] if name == "numpy.squeeze" else x
        jitted = jax.jit(lambda a, f=f, args=args: f(a, *args))(arg)
        assert np.allclose(np.asarray(jitted), f(np.asarray(arg), *args)), name
    assert jax.vmap(lambda a: np.min(a, 0))(x[None]).shape == (1, 3)
    out = jax.lax.while_loop(lambda c: c[0] < 1, lambda c: (c[0] + 1, np.reshape(c[1], (2, 3))), (0, x))
    assert out[1].shape == (2, 3)


@pytest.mark.parametrize("convert", [
    lambda a: np.clip(a, 0, 1),
    lambda a: np.expand_dims(a, 0),
    lambda a: np.sum([a, a]),
    lambda a: np.array(a),
])
def test_numpy_functions_that_convert_raise_on_tracers(convert):
    with pytest.raises(jax.errors.TracerArrayConversionError):
        jax.jit(convert)(jnp.ones((2, 2)))


def test_a_scan_body_receives_a_rebuilt_carry_down_to_its_inner_dicts():
    """`stores.rebuilt_owner`: a dict unpacked from the carry is JAX's copy: the body's writes do
    not reach the caller's dict and hold no tracer after the scan; returned, they are the new
    carry."""
    time_state = {"updates": jnp.zeros(())}
    carry = ({"w": jnp.ones(())}, time_state)
    seen = []

    def step(runner_state, x):
        params, state = runner_state
        seen.append(state is time_state)
        state["updates"] = state["updates"] + 1
        return (params, state), x

    (params, out), _ = jax.lax.scan(step, carry, jnp.arange(3.0))
    assert seen == [False] and set(time_state) == {"updates"}
    assert not isinstance(time_state["updates"], jax.core.Tracer) and float(time_state["updates"]) == 0.0
    assert float(out["updates"]) == 3.0


def test_a_jitted_closure_first_called_after_a_rebinding_sees_the_new_value():
    """`StaleGlobal._change`: the closure reads its cell at trace time, the first call; called
    before and after the rebinding, the second call reuses the first trace (the old value)."""
    def first_run_after(scale):
        @jax.jit
        def apply(y):
            return y * scale

        scale = scale * 2
        return apply(1.0)

    def runs_before_and_after(scale):
        @jax.jit
        def apply(y):
            return y * scale

        first = apply(1.0)
        scale = scale * 2
        return first, apply(1.0)

    assert float(first_run_after(3.0)) == 6.0
    assert [float(v) for v in runs_before_and_after(3.0)] == [3.0, 3.0]


def test_a_jit_made_under_a_flag_its_block_clears_traces_only_when_the_loop_sets_it():
    """`guards.resets_its_flag`: 9 steps, the flag set again every 3: 4 traces; set on every
    pass: 9."""
    import functools

    traces = []

    def update(state, x, num_cats):
        traces.append(num_cats)
        return state + x * num_cats

    def fit(every_pass: bool):
        traces.clear()
        state, num_cats, need_compile = jnp.zeros(()), 1, True
        for step in range(9):
            if step % 3 == 2:
                num_cats += 1
                need_compile = True
            if every_pass:
                need_compile = True
            if need_compile:
                update_jit = jax.jit(functools.partial(update, num_cats=num_cats))
                need_compile = False
            state = update_jit(state, 1.0)
        return len(traces)

    assert fit(every_pass=False) == 4  # the first step, then steps 2, 5 and 8
    assert fit(every_pass=True) == 9
