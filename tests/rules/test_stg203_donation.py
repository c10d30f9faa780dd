"""STG203 use-after-donation: positive and negative twins, in one module and across modules."""

from __future__ import annotations

from rulecases import assert_marked, findings


def test_read_after_donating_call_and_rebinding_twin():
    assert_marked("""
        import functools
        import jax

        @functools.partial(jax.jit, donate_argnums=(0,))
        def update(state, grads):
            return state - grads

        def bad(state, grads):
            new = update(state, grads)
            total = state.sum() + new.sum()  # STG203
            return total

        def good(state, grads):
            state = update(state, grads)
            return state.sum()

        def good_metadata(state, grads):
            new = update(state, grads)
            return new, state.shape, state.dtype, state.is_deleted()

        def not_donated_argument(state, grads):
            new = update(state, grads)
            return new + grads.sum()
    """)


def test_donate_argnames_by_keyword_and_by_position():
    assert_marked("""
        import jax

        def _step(params, batch):
            return params + batch

        step = jax.jit(_step, donate_argnames="params")

        def by_keyword(params, batch):
            out = step(params=params, batch=batch)
            print(params)  # STG203
            return out

        def by_position(params, batch):
            out = step(params, batch)
            return out, params  # STG203
    """)


def test_loop_without_rebinding_passes_a_deleted_array_again():
    assert_marked("""
        import functools
        import jax

        @functools.partial(jax.jit, donate_argnums=0)
        def update(state, x):
            return state + x

        def bad(state, xs):
            for x in xs:
                out = update(state, x)  # STG203
            return out

        def good(state, xs):
            for x in xs:
                state = update(state, x)
            return state

        def good_swap(state, xs):
            for x in xs:
                new_state = update(state, x)
                state = new_state
            return state

        def good_once(state, xs):
            for x in xs:
                return update(state, x)
    """)


def test_numpy_and_python_values_are_copied_not_deleted():
    assert_marked("""
        import functools
        import jax
        import numpy as np

        @functools.partial(jax.jit, donate_argnums=0)
        def update(state):
            return state + 1

        def host(n):
            buf = np.zeros(3)
            out = update(buf)
            return out, buf.sum()
    """)


def test_partial_bound_to_a_name_and_a_later_module_level_read():
    got = findings("""
        import functools
        import jax
        import jax.numpy as jnp

        donating_jit = functools.partial(jax.jit, donate_argnums=0)

        @donating_jit
        def update(state):
            return state * 2

        state = jnp.ones(3)
        doubled = update(state)
        print(state)
    """, "STG203")
    assert [(f.line, f.function) for f in got] == [(13, None)]
    assert "`state` was donated to `update` (its `state` is in" in got[0].message
    assert "RuntimeError: Array has been deleted" in got[0].message


def test_non_literal_spec_and_undecorated_function_stay_silent():
    assert_marked("""
        import functools
        import jax

        ARGS = (0,)

        @functools.partial(jax.jit, donate_argnums=ARGS)
        def update(state):
            return state * 2

        def plain(state):
            return state * 2

        def run(state):
            a = update(state)
            b = plain(state)
            return a, b, state
    """)


def test_jit_applied_in_the_call():
    got = findings("""
        import jax

        def double(x, y):
            return x * 2, y

        def run(x, y):
            out = jax.jit(double, donate_argnums=0)(x, y)
            return out, x.sum(), y.sum()
    """, "STG203")
    assert [(f.line, f.message.split(" was ")[0]) for f in got] == [(8, "`x`")]
    assert "(its `x` is in" in got[0].message


def test_tests_of_donation_itself_are_not_reads():
    assert_marked("""
        import functools
        import unittest

        import jax
        import pytest

        @functools.partial(jax.jit, donate_argnums=0)
        def f(x):
            return x * 2

        class DonationTest(unittest.TestCase):
            def test_deleted(self, x):
                f(x)
                self.assertDeleted(x)
                self.assertTrue(x.is_deleted())
                text = f.lower(x).as_text()

            def test_raises(self, x):
                f(x)
                with self.assertRaises(RuntimeError):
                    jax.device_put(x)
                with pytest.raises(RuntimeError):
                    x + 1
                print(x)  # STG203
    """)
