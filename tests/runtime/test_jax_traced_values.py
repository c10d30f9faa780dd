"""Which values a JAX transformation makes tracers (`frameworks.JAX_TRACES_DEPENDENTS`,
`analysis.dependence.op_result_fact`), observed with the real JAX: under `jax.grad` and `jax.vmap` alone only
what is computed from the transformed arguments; wherever the whole body is traced (jit, pmap,
the `lax` bodies, checkpoint, eval_shape, make_jaxpr, a jit around grad) every operation's result,
constants' included."""

from __future__ import annotations

import functools

import numpy as np
import pytest

jax = pytest.importorskip("jax")
jnp = jax.numpy
lax = jax.lax
Tracer = jax.core.Tracer


def _probe(seen, name):
    def f(x):
        c = jnp.linspace(0.0, 1.0, 3)  # from constants only
        seen[name] = (isinstance(c, Tracer), isinstance(x * 2.0, Tracer))
        return jnp.sum(x * 2.0) + jnp.sum(c)
    return f


def test_which_transformations_trace_an_array_of_constants():
    seen: dict = {}
    x = jnp.ones(3)
    jax.jit(_probe(seen, "jax.jit"))(x)
    jax.pmap(_probe(seen, "jax.pmap"))(jnp.ones((1, 3)))
    jax.checkpoint(_probe(seen, "jax.checkpoint"))(x)
    jax.eval_shape(_probe(seen, "jax.eval_shape"), x)
    jax.make_jaxpr(_probe(seen, "jax.make_jaxpr"))(x)
    lax.scan(lambda c, _: (_probe(seen, "jax.lax.scan")(c) * 0 + c, None), x, None, length=2)
    lax.fori_loop(0, 2, lambda i, c: _probe(seen, "jax.lax.fori_loop")(c) * 0 + c, x)
    lax.cond(True, _probe(seen, "jax.lax.cond"), _probe(seen, "jax.lax.cond"), x)
    jax.jit(jax.grad(_probe(seen, "jit around grad")))(x)
    jax.grad(_probe(seen, "jax.grad"))(x)
    jax.value_and_grad(_probe(seen, "jax.value_and_grad"))(x)
    jax.jacrev(_probe(seen, "jax.jacrev"))(x)
    jax.jvp(_probe(seen, "jax.jvp"), (x,), (x,))
    jax.vmap(_probe(seen, "jax.vmap"))(jnp.ones((2, 3)))
    from stagelint.frameworks import JAX_TRACES_DEPENDENTS

    for name, (constant_traced, argument_traced) in seen.items():
        assert argument_traced, name
        assert constant_traced == (name not in JAX_TRACES_DEPENDENTS), name


def test_under_grad_alone_an_array_of_constants_converts_and_one_of_the_argument_does_not():
    def loss(w):
        grid = jnp.linspace(0.0, 1.0, 3)
        return w * float(jnp.sum(grid)) + np.asarray(grid).sum()

    assert float(jax.grad(loss)(1.0)) == pytest.approx(1.5)
    assert jax.vmap(loss)(jnp.ones(2)).shape == (2,)
    with pytest.raises(jax.errors.ConcretizationTypeError):
        jax.grad(lambda w: w * float(jnp.sum(w)))(1.0)
    with pytest.raises(jax.errors.ConcretizationTypeError):
        jax.jit(loss)(1.0)


def test_under_vmap_alone_nonzero_of_constants_works_and_of_the_mapped_row_raises():
    def per_row(row):
        fixed = jnp.nonzero(jnp.arange(3.0) > 1)[0]
        return row[fixed]

    assert jax.vmap(per_row)(jnp.ones((2, 3))).shape == (2, 1)
    with pytest.raises(jax.errors.ConcretizationTypeError):
        jax.vmap(lambda row: jnp.nonzero(row > 0)[0])(jnp.ones((2, 3)))


def _debug_energy(x):
    return np.array(x) * 2  # NumPy on a tracer: TracerArrayConversionError


def _energy(x, debug_mode=False):
    if debug_mode:
        return _debug_energy(x)
    return jnp.sum(x)


def test_a_branch_on_a_parameter_the_traced_call_leaves_at_its_default_is_not_traced():
    """`analysis.flags`: `jax.vmap(f, ...)(x)` passes what its caller gives; `debug_mode` keeps
    its default False, so the branch that calls NumPy is never traced. Passed True, it is."""
    assert jax.vmap(_energy)(jnp.ones((2, 3))).shape == (2,)
    assert jax.jit(_energy)(jnp.ones(3)) == 3.0
    with pytest.raises(jax.errors.TracerArrayConversionError):
        jax.jit(lambda x: _energy(x, debug_mode=True))(jnp.ones(3))


def _n_by_m(scores, n, m, axis):
    groups = int(scores.shape[axis] / m)  # Python ints bound by functools.partial: concrete
    if scores.shape[axis] % m != 0:
        raise ValueError("not divisible")
    return scores.reshape(groups, m)[:, :n].sum()


def test_lax_bodies_trace_their_operands_and_not_what_functools_partial_binds():
    """jaxpruner's `lax.cond(pred, f, partial(g, n=n, m=m, axis=axis), scores)`: the operands
    are traced, what partial binds stays the Python int it was (also for fori_loop and scan
    bodies); passed as an operand, `int(m)` raises."""
    cond = functools.partial(_n_by_m, n=1, m=2, axis=0)
    out = jax.jit(lambda s: lax.cond(s.sum() > 0, lambda t: t.sum(), cond, s))(jnp.ones(4))
    assert float(out) == 4.0
    assert lax.fori_loop(0, 3, functools.partial(lambda i, c, m: c + int(4 / m), m=2), 0) == 6
    with pytest.raises(jax.errors.ConcretizationTypeError):
        jax.jit(lambda s, m: lax.cond(True, lambda p: p[0].sum() * int(p[1]), lambda p: p[0].sum(), (s, m)))(
            jnp.ones(4), 2)


def test_a_python_loop_under_vmap_or_grad_alone_runs_on_every_call_and_once_under_jit():
    """STG503 under JAX (`jaxrules.confirm_loop_unrolled`): `jax.vmap` and `jax.grad` keep no trace,
    so a Python loop in the function runs again, op by op, on every call: nothing is compiled and
    no program grows with it. Under a jit around them the body runs once, while tracing, and the
    program holds one copy of the body per iteration."""
    runs = {"n": 0}

    def f(x):
        runs["n"] += 1
        out = 0.0
        for i in range(x.shape[0]):
            out = out + jnp.sin(x[i])
        return out

    xs = jnp.ones((4, 8))
    for transform in (jax.vmap(f), jax.grad(lambda x: jnp.sum(jax.vmap(f)(x)))):
        runs["n"] = 0
        for _ in range(3):
            transform(xs)
        assert runs["n"] == 3
    jitted = jax.jit(jax.vmap(f))
    runs["n"] = 0
    for _ in range(3):
        jitted(xs)
    assert runs["n"] == 1
    small = len(jax.make_jaxpr(jax.vmap(f))(jnp.ones((4, 4))).jaxpr.eqns)
    large = len(jax.make_jaxpr(jax.vmap(f))(jnp.ones((4, 8))).jaxpr.eqns)
    assert large == 2 * small  # one copy of the body per row once it is traced whole
