"""The facts behind issue 23's second fresh JAX audit (tests/rules/test_jax_fresh_audit.py),
observed with the real JAX and optax."""

from __future__ import annotations

import types

import pytest

jax = pytest.importorskip("jax")
optax = pytest.importorskip("optax")
jnp = jax.numpy


def test_container_methods_return_none_and_optax_update_returns_the_new_state():
    """`frameworks.NONE_RETURNING_MUTATORS`: the in-place methods return None, so a call whose
    result is unpacked is another object's method, like optax's update, which changes nothing."""
    assert [].append(1) is None and {}.update(a=1) is None and set().add(1) is None
    opt = optax.sgd(0.1)
    params = {"w": jnp.ones(2)}
    state = opt.init(params)
    before = jax.tree.leaves(state)
    updates, new_state = opt.update({"w": jnp.ones(2)}, state, params)
    assert float(updates["w"][0]) == pytest.approx(-0.1)
    assert jax.tree.leaves(state) == before


def test_a_module_attribute_set_and_put_back_in_a_jitted_function_is_as_before_after_every_call():
    """`stores._restored`: the layers see the new value while tracing; after each call, traced
    or reusing the trace, the attribute holds the old one, so skipping the writes loses nothing."""
    nn = types.SimpleNamespace(CALLBACK="default")
    seen = []

    @jax.jit
    def f(x):
        old = nn.CALLBACK
        nn.CALLBACK = "sharded"
        seen.append(nn.CALLBACK)
        nn.CALLBACK = old
        return x * 2

    f(1.0)
    assert nn.CALLBACK == "default"
    f(2.0)  # reuses the trace: the writes do not run, and nothing is missing
    assert nn.CALLBACK == "default" and seen == ["sharded"]
