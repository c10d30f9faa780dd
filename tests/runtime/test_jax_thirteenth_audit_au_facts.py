"""The thirteenth JAX audit's fix-from half AU, its facts observed with the real JAX (0.10.2): a
host callback's function reached through a partial runs as Python with concrete values on every
execution, and making the partial calls nothing (`frameworks.PARTIAL_CALLS`, `walk._callback_partials`)."""

from __future__ import annotations

import functools

import pytest

jax = pytest.importorskip("jax")
jnp = jax.numpy


def test_a_partial_handed_to_a_host_callback_runs_on_every_call_with_concrete_values():
    from jax.experimental import io_callback
    from jax.tree_util import Partial

    assert issubclass(Partial, functools.partial)
    calls = []

    def save(x, idx, folder="a"):
        calls.append((type(x).__name__, folder))

    def log(x, folder="l"):
        calls.append((type(x).__name__, folder))
        return x

    @jax.jit
    def train(x):
        cb = functools.partial(save, folder="b")
        made = Partial(save, folder="c")
        assert calls == []  # making a partial calls nothing

        def cond_save(x):
            jax.debug.callback(cb, x, 1)
            jax.debug.callback(made, x, 2)

        jax.lax.cond(x.sum() > 0, cond_save, lambda x: None, x)
        return io_callback(functools.partial(log, folder="d"), x, x) + 1

    for i in range(3):
        train(jnp.ones(2) * (i + 1))
    jax.effects_barrier()
    assert len(calls) == 9
    assert {kind for kind, _ in calls} == {"ArrayImpl"}  # concrete arrays, never tracers
    assert sorted(folder for _, folder in calls) == ["b"] * 3 + ["c"] * 3 + ["d"] * 3  # (order: effects)


def test_no_jax_op_raises_at_run_time_and_checkify_check_returns_none():
    """An unused JAX result out of range raises neither eagerly nor under jit (STG603 is
    TensorFlow's: `Framework.prunes_unused_ops`); `checkify.check` returns None, and under
    `checkify.checkify` its failure is the error value returned, raised by `err.throw()`."""
    from jax.experimental import checkify

    x = jnp.arange(3.0)

    def f(x):
        jnp.take(x, 10)
        x[10]
        jax.lax.dynamic_slice(x, (5,), (2,))
        return x

    assert f(x).tolist() == jax.jit(f)(x).tolist() == [0.0, 1.0, 2.0]

    returned = []

    def g(x):
        returned.append(checkify.check(jnp.all(x > 5), "x must be > 5"))
        return x * 2

    err, out = jax.jit(checkify.checkify(g))(x)
    assert returned == [None]
    assert "x must be > 5" in err.get()
    with pytest.raises(Exception, match="x must be > 5"):
        err.throw()


@pytest.mark.parametrize("call", [
    lambda a: jnp.unique(a), lambda a: jnp.unique_values(a), lambda a: jnp.unique_counts(a),
    lambda a: jnp.nonzero(a), lambda a: jnp.argwhere(a), lambda a: jnp.flatnonzero(a), lambda a: jnp.where(a),
])
def test_a_value_shaped_call_without_size_raises_while_tracing(call):
    """`frameworks.JAX_VALUE_SHAPED_FUNCTIONS`: without `size=`, a traced argument raises
    ConcretizationTypeError (a TypeError) while tracing, so nothing after it is traced."""
    traced = []

    def f(a):
        out = call(a)
        traced.append(1)
        return out

    with pytest.raises(jax.errors.ConcretizationTypeError):
        jax.jit(f)(jnp.array([1, 2, 2, 0]))
    assert traced == []
    assert issubclass(jax.errors.ConcretizationTypeError, TypeError)
    # a parameter holding a rebuilt container, or None: TypeError as well (`JAX_CONCRETIZING_ANY_LEAF`)
    with pytest.raises(TypeError):
        jax.jit(f)((jnp.ones(2), jnp.ones(2)))
    for value in ((1, 2), [1, 2], None, {"a": 1}):
        with pytest.raises(TypeError):
            call(value)
    assert traced == []


@pytest.mark.parametrize("call", [
    lambda a: jnp.unique(a, size=3), lambda a: jnp.nonzero(a, size=3), lambda a: jnp.argwhere(a, size=3),
    lambda a: jnp.flatnonzero(a, size=3), lambda a: jnp.where(a, size=3), lambda a: jnp.where(a > 0, a, 0),
])
def test_a_value_shaped_call_with_size_traces(call):
    """The twin: a static `size=` (or `jnp.where` with three arguments) fixes the shape: it traces."""
    jax.jit(call)(jnp.array([1, 2, 2, 0]))
