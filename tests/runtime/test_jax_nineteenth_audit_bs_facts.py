"""The facts behind the nineteenth JAX audit's BS preview classes (tests/rules/test_jax_nineteenth_audit_bs.py),
observed with the real JAX 0.10.2."""

from __future__ import annotations

import pytest

jax = pytest.importorskip("jax")
jnp = jax.numpy

L = jnp.ones(2)


def _assemble(scale):
    global L
    L = jnp.ones(2) * scale


def _solve(u, steps):
    @jax.jit
    def update(u):
        return L * u

    for _ in range(steps):
        u = update(u)
    return u


def test_a_jitted_def_made_in_each_run_of_its_enclosing_function_reads_the_current_global():
    """BS-P4, ml4dynamics' `RD_adi`: `@jax.jit def update` is a new function object on every run
    of `RD_adi`, and JAX keeps traces per function object: a run after the global changed traces
    anew and reads the new value (the old trace died with the old object)."""
    _assemble(1.0)
    assert float(_solve(jnp.ones(2), 2)[0]) == 1.0
    _assemble(3.0)
    assert float(_solve(jnp.ones(2), 2)[0]) == 9.0


def test_a_jitted_def_the_enclosing_function_returns_keeps_its_trace_stale():
    """The negative twin: the Function escapes its run (returned, called later): a call after the
    change reuses the trace made before it, with the old value."""
    def make():
        @jax.jit
        def update(u):
            return L * u
        return update

    _assemble(1.0)
    update = make()
    assert float(update(jnp.ones(2))[0]) == 1.0
    _assemble(3.0)
    assert float(update(jnp.ones(2))[0]) == 1.0  # stale: the trace kept L == 1


def test_a_closure_of_an_outer_function_is_read_anew_by_each_run_of_the_middle_one():
    """BS-P4, ml4dynamics' `run_simulation`: `@jax.jit def iter` inside it reads `main`'s
    `train_state`; `main` rebinds it between runs of `run_simulation`, never during one."""
    def main():
        state = 1.0
        out = []

        def run(u):
            @jax.jit
            def step(u):
                return u * state
            return step(step(u))

        for scale in (2.0, 3.0):
            state = scale
            out.append(float(run(jnp.ones(()))))
        return out

    assert main() == [4.0, 9.0]
