"""`frameworks.RECALLING_DECORATORS` (STG401's step "the call runs the function again"), observed
with the real JAX: under a multiple-dispatch decorator a def's name is bound to the dispatcher, so
a call of that name inside one implementation runs the one the arguments select, and a jitted
call of it traces and ends; under `functools.lru_cache` the call runs the same function again."""

from __future__ import annotations

import functools
import typing

import pytest

jax = pytest.importorskip("jax")
jnp = jax.numpy

_IMPLEMENTATIONS: dict = {}


def dispatch(f):
    """A minimal multiple-dispatch registry, as plum's `@dispatch`: one name, several defs, the
    implementation chosen by the first argument's annotated type."""
    kind = next(iter(typing.get_type_hints(f).values()))
    _IMPLEMENTATIONS[kind] = f

    def dispatcher(x, *rest):
        chosen = next(impl for k, impl in _IMPLEMENTATIONS.items() if isinstance(x, k))
        return chosen(x, *rest)

    return dispatcher


@dispatch
def total(x: jax.Array):
    return jnp.sum(x)


@dispatch  # noqa: F811 (another implementation of the same name, as plum has it)
def total(x: list):
    return total(jnp.stack(x))  # looks recursive: runs the array implementation


def test_a_dispatched_call_of_the_same_name_runs_another_implementation_and_ends_under_jit():
    assert float(jax.jit(lambda v: total([v, v]))(jnp.ones(2))) == 4.0


def test_under_lru_cache_the_name_calls_the_function_itself():
    calls = []

    @functools.lru_cache
    def depth(n):
        calls.append(n)
        return 0 if n == 0 else 1 + depth(n - 1)

    assert depth(3) == 3 and calls == [3, 2, 1, 0]
