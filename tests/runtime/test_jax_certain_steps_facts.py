"""The facts behind the per-step certainty of STG604, STG504 and STG502 under JAX
(tests/rules/test_jax_certain_steps.py), observed with the real JAX (and equinox)."""

from __future__ import annotations

import functools
import inspect

import pytest

jax = pytest.importorskip("jax")
jnp = jax.numpy


def _translate(image, shift):
    return jnp.zeros_like(image).at[:, shift:].set(image[:, :-shift])


def test_vmap_passes_an_in_axes_none_argument_as_it_is_so_what_is_computed_from_it_is_concrete():
    """`jaxstaging.given_traced_params`: vmap hands only its mapped arguments tracers; an
    unbatched key's draw is a concrete array, so a helper slicing by it works (serket)."""
    seen = []

    def random_translate(key, image):
        shift = jax.random.randint(key, shape=(), minval=1, maxval=3)
        seen.append(isinstance(shift, jax.core.Tracer))
        return _translate(image, shift)

    out = jax.vmap(random_translate, in_axes=(None, 0))(jax.random.key(0), jnp.ones((2, 3, 4)))
    assert out.shape == (2, 3, 4) and seen == [False]
    out = jax.vmap(_translate, in_axes=(0, None))(jnp.ones((2, 3, 4)), 1)
    assert out.shape == (2, 3, 4)


def test_jit_and_a_mapped_vmap_argument_hand_the_function_tracers_so_a_slice_by_them_fails():
    """The negative twin: the parameters a transformation is given are tracers (an int too)."""
    with pytest.raises(IndexError):
        jax.jit(lambda x, n: x[:n])(jnp.ones(4), 2)
    with pytest.raises(IndexError):
        jax.vmap(lambda r, k: r[:k])(jnp.ones((2, 4)), jnp.array([1, 2]))
    with pytest.raises(IndexError):  # the helper of a jitted function gets what jit made
        jax.jit(lambda key, image: _translate(image, jax.random.randint(key, (), 1, 3)))(
            jax.random.key(0), jnp.ones((3, 4)))
