"""STG401's step "the call runs the function again" (`frameworks.RECALLING_DECORATORS`): a def
under a decorator that may bind its name elsewhere (a multiple-dispatch registry such as plum's
`@dispatch`) is a recursion only in the preview tier; one without decorators, or under
`functools.lru_cache` / `jax.jit` / `functools.partial(jax.jit, ...)`, is reported by default.
The dispatch and the cache are run in tests/runtime/test_recursion_through_decorators.py."""

from __future__ import annotations

from rulecases import found

from stagelint.config import Settings


def _recursions(source: str, preview: bool) -> set[int]:
    return {line for line, code in found(source, settings=Settings(preview=preview)) if code == "STG401"}


SOURCE = """
    import functools
    import jax
    import jax.numpy as jnp
    from plum import dispatch


    @dispatch
    def random_state(hilb, constraint: None, key):
        return jnp.zeros(3)


    @dispatch
    def random_state(hilb, constraint: int, key):
        if key.sum() > 0:
            return random_state(hilb, None, key)
        return key


    @functools.lru_cache
    @jax.jit
    def countdown(n):
        if n > 0:
            return countdown(n - 1)
        return n


    @functools.partial(jax.jit, static_argnums=1)
    def down(x, k):
        if x.sum() > 0:
            return down(x - 1, k)
        return x


    jax.jit(random_state)(1, 2, jnp.ones(3))
"""


def test_a_dispatched_def_calling_its_name_is_a_recursion_only_in_preview():
    assert 15 not in _recursions(SOURCE, preview=False)
    assert 15 in _recursions(SOURCE, preview=True)


def test_a_def_under_known_decorators_calling_itself_is_reported_by_default():
    assert {23, 30} <= _recursions(SOURCE, preview=False)
