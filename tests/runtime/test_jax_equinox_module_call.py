"""Equinox stages no method of a Module (BS1, the nineteenth JAX audit): observed with equinox
0.13.8 and JAX 0.10.2. What `analysis.jaxstaging.JaxView._equinox_calls` relies on."""

from __future__ import annotations

import pytest

jax = pytest.importorskip("jax")
eqx = pytest.importorskip("equinox")
jnp = jax.numpy


def _module_class(seen):
    class Trainer(eqx.Module):
        lr: float = 0.1

        @jax.named_scope("fbx.TaskTrainer")  # a context manager used as a decorator: no staging
        def __call__(self, x):
            seen.append(type(x).__name__)
            return x * self.lr

    return Trainer


def test_a_module_called_eagerly_runs_its_call_as_python_on_every_call():
    """feedbax's `TaskTrainer(...)(task, model, ...)` from a plain training loop: the body runs on
    each call, with concrete arrays (`.item()`, logging, files work there)."""
    seen = []
    t = _module_class(seen)()
    t(jnp.ones(2))
    t(jnp.ones(2))
    assert seen == ["ArrayImpl", "ArrayImpl"]


def test_a_module_called_in_jitted_code_is_traced_once():
    """The negative twin: a call made inside `eqx.filter_jit` (or `jax.jit`) traces `__call__`,
    once for calls that reuse the trace."""
    seen = []
    t = _module_class(seen)()
    f = eqx.filter_jit(lambda m, x: m(x))
    f(t, jnp.ones(2))
    f(t, jnp.ones(2))
    assert len(seen) == 1 and "Tracer" in seen[0]


def test_a_module_called_under_an_eager_vmap_is_traced_on_every_call():
    """A call under `jax.vmap` outside jit traces `__call__` anew on each call: Python effects there
    run every time (the mode of its caller, not jit's)."""
    seen = []
    t = _module_class(seen)()
    g = jax.vmap(lambda x: t(x))
    g(jnp.ones((3, 2)))
    g(jnp.ones((3, 2)))
    assert len(seen) == 2 and all("Tracer" in s for s in seen)
