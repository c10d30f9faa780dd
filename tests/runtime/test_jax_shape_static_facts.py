"""The facts behind the per-step certainty of STG604, STG501 and STG504 under JAX
(tests/rules/test_jax_shape_static_steps.py), observed with the real JAX 0.10.2."""

from __future__ import annotations

import functools

import pytest

jax = pytest.importorskip("jax")
jnp = jax.numpy


@jax.tree_util.register_pytree_node_class
class _IrrepsArray:
    """e3nn's `IrrepsArray` in small: the array is the child, the irreps (Python ints) the aux data."""

    def __init__(self, dims, array):
        self.dims = dims
        self.array = array

    def tree_flatten(self):
        return (self.array,), self.dims

    @classmethod
    def tree_unflatten(cls, dims, children):
        return cls(dims, children[0])


def test_a_length_read_from_pytree_metadata_is_a_python_int_under_jit():
    """STG604's guess: an attribute of a parameter may be aux data (e3nn's `irreps.dim`), a
    Python int under jit, so a slice or `jnp.arange` by it works; and a `range` loop's variable is
    a Python int whatever the bound is made of."""
    seen = []

    @jax.jit
    def head(x):
        seen.append(type(x.dims))
        out = [x.array[: x.dims[0]]]
        for l in range(x.dims[1] + 1):
            out.append(jnp.arange(-l, l + 1) * x.array[l ** 2: (l + 1) ** 2].sum())
        return out

    out = head(_IrrepsArray((2, 1), jnp.arange(4.0)))
    assert seen == [tuple] and out[0].shape == (2,) and [o.shape for o in out[1:]] == [(1,), (3,)]


def test_a_length_from_a_jitted_argument_or_a_jax_op_is_a_tracer():
    """The negative twin: a non-static argument (a Python int too) and a JAX op's result are
    tracers under jit: a slice, `jnp.arange` or a boolean mask by them fails."""
    with pytest.raises(IndexError):
        jax.jit(lambda x, n: x[:n])(jnp.ones(4), 2)
    with pytest.raises(jax.errors.ConcretizationTypeError):
        jax.jit(lambda x, n: jnp.arange(n))(jnp.ones(4), 2)
    with pytest.raises(jax.errors.ConcretizationTypeError):
        jax.jit(lambda x: jnp.arange(jnp.sum(x > 0)))(jnp.ones(4))
    with pytest.raises(jax.errors.NonConcreteBooleanIndexError):
        jax.jit(lambda x: x[x > 0])(jnp.ones(4))


def _counting(transform, **options):
    traces = []

    def f(x, k):
        traces.append(k)
        return x * k

    return transform(f, **options), traces


def test_a_static_argument_of_jit_or_pmap_traces_once_per_value():
    """STG501's known step: `static_argnums` of `jax.jit` and `static_broadcasted_argnums` of
    `jax.pmap` key the trace cache on the value: each new value traces again, a value seen before
    reuses its trace."""
    for transform, options, x in ((jax.jit, {"static_argnums": 1}, jnp.ones(2)),
                                  (jax.pmap, {"static_broadcasted_argnums": 1}, jnp.ones((1, 2)))):
        f, traces = _counting(transform, **options)
        for k in (1, 2, 3, 1, 2, 3):
            f(x, k)
        assert traces == [1, 2, 3], transform


def test_a_static_count_a_jax_function_needs_cannot_be_traced():
    """STG501's guess: a static parameter handed to a JAX function may be a count, a shape or an
    axis it needs as a Python value (deepqmc's `split_on_devices`: `jax.random.split(rng, num)`
    under `pmap(static_broadcasted_argnums=1)`): traced, it fails, so "pass a traced value" is not
    known to work there."""
    split = jax.pmap(lambda rng, num: jax.random.split(rng, num), static_broadcasted_argnums=1)
    assert split(jax.random.split(jax.random.key(0), 1), 3).shape == (1, 3)
    with pytest.raises((TypeError, jax.errors.ConcretizationTypeError)):
        jax.jit(lambda rng, num: jax.random.split(rng, num))(jax.random.key(0), 3)


def test_a_static_operand_of_arithmetic_can_be_traced_with_the_same_result_and_one_trace():
    """The negative twin: a parameter only used as an operand of operators with arrays computes
    the same traced, with one trace for every value (the textbook STG501: a dropout rate)."""
    static, static_traces = _counting(jax.jit, static_argnums=1)
    traced, traced_traces = _counting(jax.jit)
    for step in range(4):
        assert float(static(jnp.ones(2), step / 10)[0]) == float(traced(jnp.ones(2), jnp.asarray(step / 10))[0])
    assert len(static_traces) == 4 and len(traced_traces) == 1


@jax.tree_util.register_pytree_node_class
class _Coord:
    """JAX-GalSim's `CelestialCoord` in small: jitted methods with `self` traced, and a function
    without `self` in the class body, jitted and called through the class."""

    def __init__(self, ra):
        self.ra = ra

    def tree_flatten(self):
        return (self.ra,), None

    @classmethod
    def tree_unflatten(cls, aux, children):
        return cls(*children)

    @jax.jit
    def shifted(self, d):
        return self.ra + d

    @jax.jit
    def _kern(a, b):  # no `self`: called as `_Coord._kern(a, b)`
        return a * b

    def use(self, b):
        return _Coord._kern(self.ra, b)


class _Plain:
    def __init__(self, ra):
        self.ra = ra

    @jax.jit
    def shifted(self, d):
        return self.ra + d

    @functools.partial(jax.jit, static_argnums=0)
    def static_self(self, d):
        return self.ra + d


def test_a_registered_pytree_self_and_a_function_called_through_its_class_are_valid_traced_arguments():
    """STG504: a jitted method's `self` is a valid argument when its class is a registered pytree,
    and a function in a class body called through the class gets no `self` at all."""
    c = _Coord(jnp.asarray(1.0))
    assert float(c.shifted(2.0)) == 3.0 and float(c.use(3.0)) == 3.0 and float(_Coord._kern(2.0, 3.0)) == 6.0


def test_a_plain_instance_as_a_traced_self_fails_on_the_first_call():
    """The negative twin: a method of a plain class jitted with `self` traced raises TypeError when
    called through an instance; `static_argnums=0` makes it work."""
    p = _Plain(1.0)
    with pytest.raises(TypeError):
        p.shifted(2.0)
    assert float(p.static_self(2.0)) == 3.0


def test_eqx_filter_vmap_hands_a_python_int_over_as_it_is():
    """`frameworks.EQUINOX_ARRAYS_ONLY`: filter_vmap maps the arrays it is given (a batch tracer)
    and passes a Python int unchanged, so a length made from it is static (flowjax)."""
    eqx = pytest.importorskip("equinox")
    seen = []

    @eqx.filter_vmap
    def rows(x, n):
        seen.append(isinstance(n, jax.core.Tracer))
        return jnp.arange(n).sum() + x

    assert rows(jnp.ones(3), 4).tolist() == [7.0, 7.0, 7.0] and seen == [False]
    with pytest.raises(jax.errors.ConcretizationTypeError):
        jax.jit(lambda xs, ns: rows(xs, ns))(jnp.ones(3), jnp.full(3, 4))
