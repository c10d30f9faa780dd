"""The facts behind `tracers.raises_while_traced` (`frameworks.JAX_CONCRETIZING_FUNCTIONS`),
observed with the real JAX: a Python conversion of a tracer raises while tracing, so the code
after it never runs traced; the code before it runs at every call (no trace is ever kept)."""

from __future__ import annotations

from functools import partial

import pytest

jax = pytest.importorskip("jax")
jnp = jax.numpy
np = pytest.importorskip("numpy")

CONVERSIONS = {
    "builtins.float": float,
    "builtins.int": int,
    "builtins.complex": complex,
    "builtins.bool": bool,
    "numpy.asarray": np.asarray,
    "numpy.array": np.array,
    "item": lambda v: v.item(),
    "tolist": lambda v: v.tolist(),
}


def test_the_table_names_each_conversion_observed():
    from stagelint.frameworks import (JAX_CONCRETIZING_ANY_LEAF, JAX_CONCRETIZING_FUNCTIONS,
                                      JAX_CONCRETIZING_METHODS)

    assert set(CONVERSIONS) == JAX_CONCRETIZING_FUNCTIONS | JAX_CONCRETIZING_METHODS
    assert JAX_CONCRETIZING_ANY_LEAF <= set(CONVERSIONS)


@pytest.mark.parametrize("name", sorted(CONVERSIONS))
@pytest.mark.parametrize("value", ["argument", "python scalar argument", "op on constants", "op of argument"])
def test_a_conversion_of_a_tracer_raises_while_tracing_and_what_follows_never_runs(name, value):
    convert = CONVERSIONS[name]
    ran = []

    def f(x):
        ran.append("before")
        v = {"argument": x, "python scalar argument": x, "op on constants": jnp.sin(jnp.float32(1.0)),
             "op of argument": jnp.sum(x)}[value]
        convert(v)
        ran.append("after")
        return x

    arg = 2.0 if value == "python scalar argument" else jnp.float32(2.0)
    g = jax.jit(f)
    for _ in range(3):
        with pytest.raises(TypeError) as caught:
            g(arg)
        assert isinstance(caught.value, (jax.errors.ConcretizationTypeError, jax.errors.TracerArrayConversionError))
    # each call traces anew (no trace was kept): the code before runs every time, never the code after
    assert ran == ["before"] * 3


@pytest.mark.parametrize("api", ["pmap", "pjit"])
def test_pmap_and_pjit_hand_tracers_too(api):
    """`JAX_TRACES_EVERY_ARGUMENT`: `pmap` (each device's slice) and `pjit` trace their arguments as `jit` does."""
    if api == "pmap":
        stage, arg = jax.pmap, jnp.ones(1)
    else:
        stage, arg = pytest.importorskip("jax.experimental.pjit").pjit, jnp.float32(1.0)

    def f(x):
        return float(x)

    with pytest.raises(jax.errors.ConcretizationTypeError):
        stage(f)(arg)


@pytest.mark.parametrize("name", sorted(CONVERSIONS))
def test_the_negative_twins_a_static_argument_and_a_closed_over_numpy_array_convert(name):
    convert = CONVERSIONS[name]
    table = np.ones(()) if name not in ("tolist",) else np.ones(2)
    static = np.float32(2.0) if name in ("item", "tolist") else 2.0

    @partial(jax.jit, static_argnums=1)
    def f(x, n):
        convert(table)
        if name not in ("item", "tolist"):
            convert(n)
        return x

    f(jnp.ones(2), static)


@pytest.mark.parametrize("name", ["builtins.float", "builtins.int", "builtins.complex", "item", "tolist"])
def test_those_that_raise_on_a_rebuilt_container_too(name):
    """`JAX_CONCRETIZING_ANY_LEAF`: a parameter alone may be a rebuilt tuple or None, and these
    raise on it as well; `bool` and `np.asarray` of a tuple work."""
    convert = CONVERSIONS[name]

    @jax.jit
    def f(batch, nothing):
        for v in (batch, nothing):
            with pytest.raises((TypeError, AttributeError)):
                convert(v)
        bool(batch)
        np.asarray(nothing)
        return 0

    f((), None)
