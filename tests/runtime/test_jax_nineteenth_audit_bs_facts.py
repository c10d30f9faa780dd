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


def test_a_mapping_s_keys_are_python_values_and_a_str_test_on_them_a_python_bool():
    """BS-P3, feedbax's `_apply_intervenors`: `for (label, intervenor), k in zip(d.items(), keys)`
    under jit: each `label` is the caller's `str` (a dict argument's keys are treedef data), so
    `label.startswith("FIXED")` is a Python bool; a tracer is unhashable (never a key) and has no
    `startswith` (AttributeError)."""
    seen = []

    @jax.jit
    def apply(stage, x):
        for (label, v), k in zip(stage.items(), jnp.arange(len(stage))):
            seen.append((type(label).__name__, type(label.startswith("FIXED")).__name__))
            if label.startswith("FIXED") or label not in ("a",):
                x = x + v
        return x

    apply({"FIXED_a": jnp.ones(2), "b": jnp.ones(2)}, jnp.zeros(2))
    assert seen == [("str", "bool"), ("str", "bool")]
    assert not any(hasattr(jnp.ones(2), m) for m in ("startswith", "endswith", "isdigit"))

    @jax.jit
    def key_of(x):
        with pytest.raises(TypeError, match="unhashable"):
            {x: 1}
        return x

    key_of(1.0)


def test_enumerate_s_index_and_the_min_of_python_ints_are_python_ints_under_jit():
    """BS-P2, emidm's `expand_R_intervals`: `start = i * days`, `end = min((i + 1) * days, T + 1)`
    with `i` from `enumerate` over a traced array and `days`, `T` module-level ints: static slice
    bounds, the jitted function works. The negative twin: `min` with a traced operand compares it
    (TracerBoolConversionError)."""
    T, days = 30, 14

    def expand(rs, t, days):
        out = jnp.zeros(t + 1)
        for i, r in enumerate(rs):
            start = i * days
            end = min((i + 1) * days, t + 1)
            assert type(start) is int and type(end) is int
            out = out.at[start:end].set(r)
        return out

    out = jax.jit(lambda rs: expand(rs, T, days))(jnp.ones(3))
    assert out.shape == (31,)

    @jax.jit
    def traced_end(rs, n):
        return min(14, n)

    with pytest.raises(jax.errors.TracerBoolConversionError):
        traced_end(jnp.ones(3), 5)
