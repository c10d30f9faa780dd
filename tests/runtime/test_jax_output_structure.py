"""What `frameworks.JAX_GRAD_SHAPED_LIKE_ARGUMENT` states, observed with the real JAX: `jax.grad`'s
result has the pytree structure of the argument it differentiates (a list of per-layer tuples
gives a list of tuples, a dict a dict, an array an array), and a jitted function returns the
structure its Python returns (a list stays a list), so a `for` over such a result iterates a
Python container, not an array's rows."""

from __future__ import annotations

import pytest

jax = pytest.importorskip("jax")
jnp = jax.numpy


def _total(params):
    return sum(jnp.sum(w) for layer in params for w in layer)


def test_grad_of_a_list_of_layers_is_a_list_of_layers():
    params = [(), [jnp.ones((2, 2)), jnp.zeros(2)]]
    grads = jax.grad(_total)(params)
    assert type(grads) is list and type(grads[0]) is tuple and type(grads[1]) is list
    assert type(jax.grad(lambda p: jnp.sum(p["w"]))({"w": jnp.ones(2)})) is dict
    assert isinstance(jax.grad(lambda x: jnp.sum(x * x))(jnp.ones(3)), jax.Array)


def test_a_jitted_function_returns_the_structure_its_python_returns():
    @jax.jit
    def init(x):
        out = []
        for _ in range(2):
            out.append([x, x + 1])
        out.append(())
        return out

    got = init(jnp.ones(2))
    assert type(got) is list and type(got[0]) is list and type(got[2]) is tuple
    # and so under jit too: the loop over the grad of it runs once per layer
    @jax.jit
    def layers(x):
        grads = jax.grad(_total)(init(x))
        return len(grads)

    assert layers(jnp.ones(2)) == 3


def test_grad_with_aux_is_a_pair():
    out = jax.grad(lambda x: (jnp.sum(x * x), {"n": 1}), has_aux=True)(jnp.ones(3))
    assert type(out) is tuple and len(out) == 2
