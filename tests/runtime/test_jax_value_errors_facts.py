"""Which JAX calls raise on bad values, and so when an `except` handler runs while tracing
(STG401's handler step, `caught.try_body_raises`; the nineteenth audit's BT1). Observed with the
real JAX 0.10.2: the numerics of `frameworks.JAX_RAISE_ON_NO_VALUE` give NaN / inf for values no
eager NumPy would take (a non-positive-definite matrix to `cholesky`, a singular one to `inv`),
eagerly and under `jax.jit` alike; what raises is static in a trace (a shape), the same for
every trace, or a conversion of a tracer (`int(x)`), raised on every trace."""

from __future__ import annotations

import importlib

import pytest

jax = pytest.importorskip("jax")
jnp = jax.numpy

from stagelint.frameworks import JAX_RAISE_ON_NO_VALUE  # noqa: E402

#: a symmetric matrix that is not positive definite, and one with NaNs
_NOT_PD = [[1.0, 2.0], [2.0, 1.0]]
_NAN = [[float("nan"), 1.0], [1.0, float("nan")]]


def _resolve(name: str):
    module, _, attr = name.rpartition(".")
    return getattr(importlib.import_module(module), attr)


def _bad_arguments(name: str, arity: int):
    """Arguments of the shapes the call takes, of values no eager NumPy would take: a non-PD or
    singular matrix, NaNs, zeros, negatives."""
    if name.endswith(".cho_solve"):
        return ((jnp.zeros((2, 2)), True), jnp.ones(2))
    if name.endswith(".lu_solve"):
        return (jax.scipy.linalg.lu_factor(jnp.zeros((2, 2))), jnp.ones(2))
    if name.endswith((".cholesky", ".cho_factor")):
        return (jnp.array(_NOT_PD),)
    if name.startswith(("jax.scipy.linalg.", "jax.numpy.linalg.")):
        return (jnp.zeros((2, 2)),) if arity == 1 else (jnp.zeros((2, 2)), jnp.ones(2))
    if name.endswith((".floor_divide", ".mod")):
        return (jnp.ones(2, jnp.int32), jnp.zeros(2, jnp.int32))
    if name.endswith((".matmul", ".dot")):
        return (jnp.array(_NAN), jnp.full((2,), jnp.inf))
    return (-2.0 * jnp.ones(2), jnp.zeros(2))[:arity]


@pytest.mark.parametrize("name", sorted(JAX_RAISE_ON_NO_VALUE))
def test_the_numerics_raise_on_no_value_eagerly_nor_under_jit(name):
    """Each listed call given bad values returns (NaN, inf or a meaningless number) and raises
    nothing, eagerly and under `jax.jit`: a `try` around it never sees an error of the values."""
    fn = _resolve(name)
    args = _bad_arguments(name, JAX_RAISE_ON_NO_VALUE[name])
    eager = fn(*args)
    if name.endswith(".cho_solve"):  # (its `lower` flag is an option: kept out of the jit's arguments)
        traced = jax.jit(lambda c, b: fn((c, True), b))(args[0][0], args[1])
    else:
        traced = jax.jit(lambda *a: fn(*a))(*args)
    assert jax.tree.structure(eager) == jax.tree.structure(traced)
    leaves = jax.tree.leaves(eager)
    assert any(hasattr(leaf, "shape") for leaf in leaves)  # (`cho_factor` returns `(c, lower)`)


def test_a_non_positive_definite_matrix_gives_nans_not_an_error():
    """BT1's shape: the jitter loop `try: cholesky(A) except: return try_chol(A + jitter, n + 1)`
    returns on its first call, with NaNs, eagerly and under `lax.scan`: the handler never runs."""
    from jax.scipy.linalg import cholesky

    calls = []

    def try_chol(a, n):
        calls.append(n)
        try:
            return cholesky(a, lower=True)
        except Exception:
            return try_chol(a + jnp.eye(2) * 1e-6 * 10 ** n, n + 1)

    bad = jnp.array(_NOT_PD)
    assert bool(jnp.isnan(try_chol(bad, 0)).any()) and calls == [0]
    calls.clear()
    _, out = jax.lax.scan(lambda c, _: (c, try_chol(bad + c, 0)), jnp.zeros((2, 2)), None, length=3)
    assert bool(jnp.isnan(out).any()) and calls == [0]


def test_what_raises_there_is_static_in_a_trace_or_a_tracer_conversion():
    """A shape error raises at trace time as it does eagerly (decided by the shapes, the same on
    every trace of them); `int()` of a tracer raises ConcretizationTypeError on every trace, so
    a handler around it runs on every trace and a call of itself there recurses without end."""
    from jax.scipy.linalg import cholesky

    with pytest.raises(ValueError):
        cholesky(jnp.ones((2, 3)))
    with pytest.raises(ValueError):
        jax.jit(cholesky)(jnp.ones((2, 3)))

    caught = []

    @jax.jit
    def f(x):
        try:
            int(x)
        except Exception as e:  # noqa: BLE001
            caught.append(type(e).__name__)
        return x

    f(1.0)
    f(2.0)  # the same trace: nothing new
    f(jnp.ones((), jnp.int32))  # a new dtype: a new trace, raised again
    assert caught == ["ConcretizationTypeError", "ConcretizationTypeError"]

    depth = []

    def again(x, n):
        depth.append(n)
        try:
            return int(x)
        except Exception:  # noqa: BLE001
            return again(x, n + 1)

    with pytest.raises(RecursionError):
        jax.jit(lambda x: again(x, 0))(1.0)
    assert again(1.0, 0) == 1  # eagerly the first call returns
