"""STG605 discarded-functional-update, and its fix."""

from __future__ import annotations

from rulecases import assert_marked, findings

from stagelint.fix import apply_fixes


def test_every_update_method_discarded_and_used_twins():
    assert_marked("""
        import jax
        import jax.numpy as jnp

        def helper(x, i, v):
            x.at[i].set(v)  # STG605
            x.at[i].add(v)  # STG605
            x.at[i].subtract(v)  # STG605
            x.at[i].multiply(v)  # STG605
            x.at[i].mul(v)  # STG605
            x.at[i].divide(v)  # STG605
            x.at[i].power(v)  # STG605
            x.at[i].min(v)  # STG605
            x.at[i].max(v)  # STG605
            x.at[i].apply(jnp.sin)  # STG605
            x.at[i].get()
            x = x.at[i].set(v)
            y = x.at[i].add(v)
            return x.at[0].mul(2), jnp.sum(x.at[1].set(y[0]))

        @jax.jit
        def staged(x):
            x.at[0].set(1.0)  # STG605
            return helper(x, 0, 1.0)

        def eager(x):
            x.at[0].set(1.0)
            return x
    """)


def test_statements_expected_to_raise_are_left_alone():
    assert_marked("""
        import unittest

        import jax
        import pytest

        @jax.jit
        def check_bad_index(x):
            with pytest.raises(IndexError):
                x.at[10].set(1.0)
            x.at[0].set(1.0)  # STG605
            return x

        class T(unittest.TestCase):
            @jax.jit
            def check(self, x):
                with self.assertRaisesRegex(TypeError, "bad"):
                    x.at["a"].add(1)
    """)


def test_message():
    (f,) = findings("""
        import jax

        @jax.jit
        def reset(x, i):
            x.at[i].set(0.0)
            return x
    """)
    assert f.code == "STG605" and f.fixable
    assert f.message == ("`x.at[i].set(0.0)` in `reset` returns an updated copy that is dropped: JAX arrays are immutable, so `x` "
                         "stays unchanged (with or without jax.jit); assign it: `x = x.at[...].set(...)`")


def _fixed(source: str) -> str:
    from stagelint.engine import check_source
    from stagelint.rules.base import example_source

    text = example_source(source)
    fs = check_source(text)
    new, applied, deferred = apply_fixes(text.encode("utf-8"), [f.fix for f in fs if f.fix is not None])
    assert not deferred
    return new.decode("utf-8")


def test_fix_rebinds_locals_and_params_only():
    out = _fixed("""
        import jax
        import jax.numpy as jnp

        G = jnp.zeros(3)

        @jax.jit
        def f(x, i):
            y = jnp.ones(3)
            x.at[i].set(0.0)
            y.at[i].add(1.0)
            G.at[i].set(1.0)
            return x, y, g(), outer(x)

        def g():
            global G
            G.at[0].set(2.0)

        def outer(z):
            def inner():
                z.at[0].set(1.0)
            inner()
            return z
    """)
    assert "    x = x.at[i].set(0.0)\n" in out
    assert "    y = y.at[i].add(1.0)\n" in out
    assert "    G.at[i].set(1.0)\n" in out  # a global read in a function: rebinding would make it local
    assert "    G.at[0].set(2.0)\n" in out  # declared global: left to the author
    assert "        z.at[0].set(1.0)\n" in out  # a closure variable
    again = _fixed(out)
    assert again == out  # idempotent: the fixed code has no fixable finding left


def test_pallas_refs_store_with_at_set():
    assert_marked("""
        import jax
        from jax.experimental import pallas as pl

        def kernel(x_ref, y_ref):
            y_ref.at[0].set(x_ref.at[0].get())

        @jax.jit
        def f(x):
            return pl.pallas_call(kernel, out_shape=x)(x)
    """)
