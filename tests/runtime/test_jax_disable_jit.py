"""What `frameworks.JAX_JIT_DISABLING` and `JAX_PYTHON_UNDER_DISABLE_JIT` state, observed with
the real JAX: under `with jax.disable_jit():` the `jax.lax` control flow runs the functions it is
given as Python on concrete arrays (a scan body once per element, a while loop's condition once
per test, the one branch a `cond` takes), and a jitted function called there runs its body on
every call; `vmap` and `grad` still trace, and a `jax.jit` made there traces when called after
the block."""

from __future__ import annotations

import pytest

jax = pytest.importorskip("jax")
jnp = jax.numpy
lax = jax.lax


def _concrete(x) -> bool:
    return not isinstance(x, jax.core.Tracer)


def test_lax_control_flow_runs_python_on_concrete_arrays():
    seen = []

    def record(tag):
        def f(*args):
            seen.append((tag, all(_concrete(a) for a in args)))
            return args[-1]
        return f

    def body(carry, x):
        seen.append(("scan", _concrete(carry) and _concrete(x)))
        return carry + x, carry

    with jax.disable_jit():
        lax.scan(body, jnp.float32(0), jnp.arange(3.0))
        lax.fori_loop(0, 3, lambda i, c: record("fori")(i, c) + 1, jnp.float32(0))
        lax.while_loop(lambda c: record("while")(c) < 2, lambda c: c + 1, jnp.float32(0))
        lax.cond(True, record("true"), record("false"), jnp.float32(0))
        lax.switch(1, [record("s0"), record("s1")], jnp.float32(0))
        lax.map(record("map"), jnp.arange(3.0))
        lax.associative_scan(lambda a, b: record("assoc")(a, b) + a, jnp.arange(4.0))
    counts = {}
    for tag, concrete in seen:
        assert concrete, tag
        counts[tag] = counts.get(tag, 0) + 1
    # once per element or iteration, only the branch taken
    assert counts == {"scan": 3, "fori": 3, "while": 3, "true": 1, "s1": 1, "map": 3, "assoc": counts["assoc"]}
    assert counts["assoc"] >= 3


def test_a_jitted_function_called_there_runs_its_body_each_call():
    runs = []

    @jax.jit
    def f(x):
        runs.append(_concrete(x))
        return x * 2

    with jax.disable_jit():
        f(jnp.ones(2))
        f(jnp.ones(2))
    assert runs == [True, True]


def test_vmap_grad_and_a_jit_called_after_the_block_still_trace():
    seen = []

    def rec(tag):
        def f(x):
            seen.append((tag, _concrete(x)))
            return x * x
        return f

    with jax.disable_jit():
        jax.vmap(rec("vmap"))(jnp.ones(2))
        jax.grad(rec("grad"))(1.0)
        later = jax.jit(rec("jit made in the block"))
    later(jnp.ones(2))
    assert seen == [("vmap", False), ("grad", False), ("jit made in the block", False)]
