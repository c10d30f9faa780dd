"""A project helper that is JAX's own tracer test (`analysis.context.tracing_test`), observed with
JAX 0.10.2: jaxnu-osc's `_is_concrete(x)` (`return not isinstance(x, jax.core.Tracer)`) is False
for every value a trace passes (jit, vmap, grad, scan), so `if _is_concrete(x) and
np.any(np.asarray(x) < 0):` never evaluates its right operand while tracing (Python's `and`
stops at a false left operand) and `if _is_concrete(x): np.asarray(x)` never runs its body there:
the NumPy check runs on concrete calls only. Its twins: a helper returning a parameter, or testing
something else (`isinstance(x, jax.Array)`, true of a tracer too), lets the NumPy call run on a
tracer, where it raises."""

from __future__ import annotations

import numpy as np
import pytest

jax = pytest.importorskip("jax")
jnp = jax.numpy


def _is_concrete(x):
    """True unless `x` is a tracer."""
    return not isinstance(x, jax.core.Tracer)


def _checked(x, check=True):
    return check


def _is_array(x):
    return isinstance(x, jax.Array)


def _check_and(x, test):
    if test(x) and np.any(np.asarray(x) < 0):
        raise ValueError("negative")
    return x


def _check_block(x, test):
    if test(x):
        if np.any(np.asarray(x) < 0):
            raise ValueError("negative")
    return x


def _traces(test):
    """Outcome of each check under jit, vmap, grad and scan."""
    out = {}
    for check in (_check_and, _check_block):
        for name, run in (
            ("jit", lambda: jax.jit(lambda x: check(x, test) * 2)(jnp.ones(3))),
            ("vmap", lambda: jax.vmap(lambda x: check(x, test) * 2)(jnp.ones(3))),
            ("grad", lambda: jax.grad(lambda x: check(x, test).sum())(jnp.ones(3))),
            ("scan", lambda: jax.lax.scan(lambda c, x: (check(c, test), x), jnp.ones(3), jnp.arange(2.0))),
        ):
            try:
                run()
                out[(check.__name__, name)] = "ok"
            except Exception as e:  # noqa: BLE001 - the type is what is asserted
                out[(check.__name__, name)] = type(e).__name__
    return out


def test_the_helper_is_false_in_every_trace_and_guards_the_numpy_check():
    assert _is_concrete(jnp.ones(2)) and _is_concrete(np.ones(2)) and _is_concrete(1.0)
    seen = []
    jax.jit(lambda x: seen.append(_is_concrete(x)) or x)(jnp.ones(2))
    jax.vmap(lambda x: seen.append(_is_concrete(x)) or x)(jnp.ones(2))
    jax.grad(lambda x: seen.append(_is_concrete(x)) or x.sum())(jnp.ones(2))
    assert seen == [False, False, False]
    assert set(_traces(_is_concrete).values()) == {"ok"}
    with pytest.raises(ValueError):
        _check_and(-jnp.ones(3), _is_concrete)  # the check runs on concrete calls


def test_a_helper_returning_a_parameter_or_testing_something_else_is_no_guard():
    for test in (_checked, _is_array):
        out = _traces(test)
        assert set(out.values()) == {"TracerArrayConversionError"}, (test.__name__, out)
