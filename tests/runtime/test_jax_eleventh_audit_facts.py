"""The facts behind the eleventh fresh JAX audit's read half (tests/rules/test_jax_eleventh_audit.py),
observed with the real JAX."""

from __future__ import annotations

import pytest

jax = pytest.importorskip("jax")
jnp = jax.numpy


@pytest.mark.parametrize("api", ["grad", "value_and_grad", "jacfwd", "jacrev", "hessian", "vjp", "jvp", "vmap"])
def test_transformations_without_jit_trace_again_on_every_call(api):
    """`jaxstaging.CODES_OUT_OF_MODE["grad"]` / `["trace"]`: without a jit around them these keep
    no trace cache, so the function's Python (a print) runs on every call, as eager code's does,
    whether the wrapper is made anew or made once and called three times."""
    from stagelint.analysis.jaxstaging import CODES_OUT_OF_MODE, api_mode

    runs = []

    def f(x):
        runs.append(1)
        return jnp.sum(x ** 2)

    x = jnp.ones(3)
    once = getattr(jax, api)(f) if api not in ("vjp", "jvp") else None
    for _ in range(3):
        if api == "vjp":
            jax.vjp(f, x)
        elif api == "jvp":
            jax.jvp(f, (x,), (x,))
        elif api == "vmap":
            once(jnp.ones((2, 3)))
        else:
            once(x)
    assert len(runs) == 3
    assert "STG101" in CODES_OUT_OF_MODE[api_mode(f"jax.{api}")]


def test_under_jit_the_same_transformation_traces_once_and_a_jitted_function_is_not_traced_again_by_grad():
    """The negative twin: `jax.jit(jax.grad(f))` traces `f` once for three calls, and a jitted
    function called eagerly and then differentiated twice is traced once (its cached trace)."""
    runs = []

    def f(x):
        runs.append(1)
        return jnp.sum(x ** 2)

    x = jnp.ones(3)
    g = jax.jit(jax.grad(f))
    for _ in range(3):
        g(x)
    assert len(runs) == 1
    runs.clear()
    h = jax.jit(f)
    h(x)
    jax.grad(h)(x)
    jax.grad(h)(x)
    assert len(runs) == 1


def test_a_python_if_on_a_flag_every_traced_caller_leaves_off_is_in_no_trace():
    """`flags.untraced_branch`: under `jax.jit` and `tf.function` a Python `if` on a Python value
    is decided while tracing. With `verbose` left False (or passed a literal False) the branch's
    print and wall-clock read never run, in the trace or in any call reusing it; passed True, the
    branch runs once, while tracing, and not on the calls that reuse the trace."""
    import time

    runs = []

    def build(x, *, verbose=False):
        t0 = time.perf_counter()
        y = x * 2
        if verbose:
            runs.append(("took", time.perf_counter() - t0))
        return y

    @jax.jit
    def quiet(x):
        return build(x) + build(x, verbose=False)

    @jax.jit
    def loud(x):
        return build(x, verbose=True)

    for _ in range(3):
        quiet(jnp.ones(3))
    assert runs == []
    for _ in range(3):
        loud(jnp.ones(3))
    assert len(runs) == 1

    tf = pytest.importorskip("tensorflow")
    runs.clear()

    @tf.function
    def tf_quiet(x):
        return build(x)

    @tf.function
    def tf_loud(x):
        return build(x, verbose=True)

    for _ in range(3):
        tf_quiet(tf.ones(3))
    assert runs == []
    for _ in range(3):
        tf_loud(tf.ones(3))
    assert len(runs) == 1
