"""A function made per iteration that holds the iteration's own horizon (a default argument, a
closure cell) which the program needs as a Python value (`lax.scan`'s `length`), observed with the
real JAX by counting traces: every horizon is another program, so the new function per iteration
costs no trace that one jitted function would not (`analysis.functions.held_uses` reads a nested
def named by the jit: bench/fresh_audit_notes.md, "Eleventh JAX audit", AN3)."""

from __future__ import annotations

import pytest

jax = pytest.importorskip("jax")
jnp = jax.numpy


def _rollout(traces):
    def rollout(x, n_steps):
        traces.append(n_steps)
        final, _ = jax.lax.scan(lambda c, _: (c * 0.5, None), x, None, length=n_steps)
        return final.sum()

    return rollout


def test_a_new_def_per_horizon_holding_it_as_a_default_traces_as_often_as_one_static_jit():
    traces = []
    rollout = _rollout(traces)
    x = jnp.ones(3)
    for n_steps in (25, 50, 100, 200):
        def loss(rest, n_steps: int = n_steps):
            return rollout(rest, n_steps)

        jax.jit(loss)(x)
        jax.jit(jax.value_and_grad(loss))(x)
    anew = len(traces)
    traces.clear()
    once = jax.jit(rollout, static_argnums=1)
    grad_once = jax.jit(jax.value_and_grad(rollout), static_argnums=1)
    for n_steps in (25, 50, 100, 200):
        once(x, n_steps)
        grad_once(x, n_steps)
    assert anew == len(traces) == 8


def test_the_horizon_cannot_be_a_traced_argument_instead():
    """Hoisting the jit and passing the horizon as an ordinary argument fails: the scan's length
    must be a Python value."""
    rollout = _rollout([])
    with pytest.raises(jax.errors.ConcretizationTypeError):
        jax.jit(rollout)(jnp.ones(3), 25)


def test_a_new_def_per_iteration_holding_an_operand_traces_where_one_function_would_not():
    """The negative twin: a per-iteration value used only as an operand is a constant of one
    program, 4 traces against 1 for one jitted function taking it as an argument."""
    traces = []
    x = jnp.ones(3)
    for scale in (0.5, 1.0, 2.0, 4.0):
        def loss(rest, scale: float = scale):
            traces.append(scale)
            return (rest * scale).sum()

        jax.jit(loss)(x)
    anew = len(traces)
    traces.clear()

    def loss(rest, scale):
        traces.append(scale)
        return (rest * scale).sum()

    once = jax.jit(loss)
    for scale in (0.5, 1.0, 2.0, 4.0):
        once(x, scale)
    assert (anew, len(traces)) == (4, 1)


def test_a_new_lambda_per_range_value_in_a_shape_traces_as_often_as_one_static_jit():
    """vmc_jax's benchmark: `lambda key: jax.random.bernoulli(key, shape=(n // (d + 1), 8))` per
    `d` in `range(4)`: 4 traces, and one jit with `d` static traces 4 times too; `d` as a traced
    argument cannot give the shape."""
    traces = []
    key = jax.random.PRNGKey(0)
    for d in range(4):
        def draw(k, d=d):
            traces.append(d)
            return jax.random.bernoulli(k, shape=(16 // (d + 1), 8))

        jax.jit(draw)(key)
    anew = len(traces)
    traces.clear()

    def draw(k, d):
        traces.append(d)
        return jax.random.bernoulli(k, shape=(16 // (d + 1), 8))

    once = jax.jit(draw, static_argnums=1)
    for d in range(4):
        once(key, d)
    assert anew == len(traces) == 4
    with pytest.raises(TypeError):
        jax.jit(draw)(key, 1)



def _branch(traces):
    def step(y, flag):
        traces.append(flag)
        if flag:
            return y * 2
        return y + 1

    return step


def _traces_anew_and_once(flags) -> tuple[int, int]:
    """The traces of a def made per iteration of `for flag in flags` whose Python `if` reads the
    flag, and of one jitted function taking the flag as a static argument."""
    traces = []
    x = jnp.ones(3)
    for flag in flags:
        def step(y):
            traces.append(flag)
            if flag:
                return y * 2
            return y + 1

        jax.jit(step)(x)
    anew = len(traces)
    traces.clear()
    once = jax.jit(_branch(traces), static_argnames="flag")
    for flag in flags:
        once(x, flag=flag)
    return anew, len(traces)


def test_a_new_def_per_flag_read_by_a_python_if_traces_as_often_as_one_static_jit():
    """`for flag in (True, False)`, a def per iteration whose Python `if` reads the flag: 2 traces,
    and one jitted function with the flag static traces twice too (another value, another key);
    the flag as a traced argument cannot decide the `if`."""
    assert _traces_anew_and_once((True, False)) == (2, 2)
    with pytest.raises(jax.errors.TracerBoolConversionError):
        jax.jit(_branch([]))(jnp.ones(3), True)


def test_a_new_def_per_repeated_flag_traces_where_one_static_jit_would_not():
    """The negative twin: `for flag in (True, True)`, 2 traces against 1 for one jitted function with
    the flag static (the repeat is a cache hit)."""
    assert _traces_anew_and_once((True, True)) == (2, 1)
