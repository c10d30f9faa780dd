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


def test_what_ends_a_loop_and_what_a_later_statement_reads():
    # A loop goes round again unless a `break` or `return` may leave it: one in an inner
    # loop's `return`, under a `with` or an `if` counts; an inner loop's `break`, or a
    # `return` in a nested def or lambda, does not. After the call, a comprehension's own
    # variable, a lambda's body and the array's metadata are not reads; `del` ends the search.
    assert_marked("""
        import functools
        import jax

        @functools.partial(jax.jit, donate_argnums=0)
        def update(state, x):
            return state + x

        def inner_return(state, xs, ys):
            for x in xs:
                out = update(state, x)
                for y in ys:
                    if y:
                        return out
            return out

        def break_under_with(state, xs, lock):
            for x in xs:
                out = update(state, x)
                with lock:
                    if x is None:
                        break
            return out

        def inner_break(state, xs, ys):
            for x in xs:
                out = update(state, x)  # STG203
                for y in ys:
                    break
            return out

        def nested_return(state, xs):
            for x in xs:
                out = update(state, x)  # STG203
                def later():
                    return x
                skip = lambda: (yield)
            return out

        def not_reads(state, states, x):
            out = update(state, x)
            firsts = [state for state in states]
            later = lambda: state
            shape = (state.shape, state.dtype)
            del state
            return out, firsts, later, shape

        def read_in_a_comprehension(state, items, x):
            out = update(state, x)
            return out, [state + i for i in items]  # STG203
    """)


def test_the_names_a_statement_spells_are_those_a_walk_of_its_children_finds():
    # STG203 asks a statement for the names it spells (only those that do are searched) by
    # reading node fields and leaving out whitespace, punctuation, literals and operators: the
    # same names as a walk of libcst's own `children` through every node, for every kind of
    # statement.
    import libcst as cst

    from stagelint.rules.donation import _names_in

    module = cst.parse_module(
        "@deco(a, key=b)\n"
        "async def f(p: T = d, *args: U, q=e, **kw) -> R:\n"
        "    global g\n"
        "    x: Ann[int] = [i async for i in it if i] + {k: v for k, v in m.items()}\n"
        "    y = f'{z!r:>{w}}' + -u ** 2 if not c else lambda s=t: s @ o\n"
        "    async with ctx() as (h1, *h2):\n"
        "        del h1[idx:stop:step], h2.attr\n"
        "    try:\n        raise E from F\n    except (G, H) as err:\n        assert cond, msg\n"
        "    finally:\n        pass\n"
        "    while (n := next(gen)) is not None:\n        yield from n\n    else:\n        continue_ = ...\n"
        "    match point:\n        case Point(x=px, y=0) | [px, *rest] if px > lim:\n            await aw\n"
        "    import pkg.mod as alias\n    from .rel import (one as two, three)\n"
        "    return x[1:2, ::3], {*sset}, (yield)\n"
    )

    def by_children(node):
        if isinstance(node, cst.Name):
            return {node.value}
        return set().union(*(by_children(child) for child in node.children))

    statements = []
    stack = [module]
    while stack:
        node = stack.pop()
        if isinstance(node, (cst.BaseStatement, cst.BaseSmallStatement, cst.BaseExpression)):
            statements.append(node)
        stack.extend(node.children)
    assert len(statements) > 100
    for node in statements:
        assert _names_in(node) == by_children(node) - ({node.value} if isinstance(node, cst.Name) else set())


def test_a_donation_on_a_path_that_returns_does_not_reach_the_code_below():
    """jax-llm-examples' cache update (fifth audit, half O): `if len(kvs) == 0: return
    erase_only(cache, erase)` donates `cache` only on the path that returns; the code below runs
    on the other path, where nothing was donated (JAX deletes a donated array only when the
    donating call runs). The twins: a donating call followed by a read on the same path, also
    when the path returns later."""
    assert_marked("""
        import functools
        import jax

        @functools.partial(jax.jit, donate_argnums=(0,))
        def erase_only(cache, erase):
            return cache * 0 if erase else cache

        def insert(cache, kvs, erase):
            if len(kvs) == 0:
                return erase_only(cache, erase)
            return cache + sum(kvs)

        def insert_then_raise(cache, kvs, erase):
            if not kvs:
                out = erase_only(cache, erase)
                raise ValueError(out)
            return cache + sum(kvs)

        def read_then_return(cache, kvs, erase):
            if len(kvs) == 0:
                out = erase_only(cache, erase)
                return out + cache.sum()  # STG203
            return cache

        def read_below(cache, kvs, erase):
            if len(kvs) == 0:
                out = erase_only(cache, erase)
            return cache + sum(kvs)  # STG203
    """)
