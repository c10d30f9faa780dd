"""A module-level `jax.vmap(f, ...)` wrapper nothing calls traces nothing, observed with the real
JAX (0.10.2): the fifteenth JAX audit's jaxhps-scattering (`vmapped_propogate_down_quad =
jax.vmap(_propogate_down_quad, in_axes=(0, 0, 0))`, never called; the down pass calls
`_propogate_down_quad` itself with the tree nodes' Python ints, bench/fresh_audit_notes.md).

* making the wrapper runs nothing of `f`;
* `f` called directly with a Python int slices by it: no tracer anywhere;
* the negative twin: the wrapper called, the mapped bound is a tracer, and the slice fails.
"""

from __future__ import annotations

import pytest

jax = pytest.importorskip("jax")
jnp = jax.numpy


def test_an_uncalled_vmap_wrapper_traces_nothing_and_the_function_runs_eagerly():
    seen = []

    def propagate(data, n):
        seen.append(type(n).__name__)
        return data[:n] * 2

    vmapped = jax.vmap(propagate, in_axes=(0, 0))  # made, never called
    assert seen == [] and callable(vmapped)
    out = propagate(jnp.arange(6.0), 3)
    assert out.shape == (3,) and seen == ["int"]


def test_the_negative_twin_the_wrapper_called_traces_the_bound():
    def propagate(data, n):
        return data[:n] * 2

    vmapped = jax.vmap(propagate, in_axes=(0, 0))
    with pytest.raises(IndexError, match="Slice entries must be static integers"):
        vmapped(jnp.ones((2, 6)), jnp.array([3, 4]))
