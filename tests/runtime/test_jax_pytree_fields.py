"""What a pytree's flattening makes traced and what it makes static, observed with the real JAX,
Flax and Equinox (`stagelint.analysis.pytrees`, `frameworks.JAX_PYTREE_*`, `FLAX_STRUCT_*`,
`EQUINOX_*`, `JaxView.traced_self`; the static twins are in tests/rules/test_jax_pytree_fields.py)."""

from __future__ import annotations

import dataclasses
import functools

import numpy as np
import pytest

jax = pytest.importorskip("jax")
jnp = jax.numpy
from jax.tree_util import register_dataclass, register_pytree_node, register_pytree_node_class  # noqa: E402

Tracer = jax.core.Tracer


@register_pytree_node_class
class TimeAxis:
    """jwave's TimeAxis: `tree_flatten` puts both numbers in the aux data."""

    def __init__(self, dt, t_end):
        self.dt = dt
        self.t_end = t_end

    def tree_flatten(self):
        return (None,), (self.dt, self.t_end)

    @classmethod
    def tree_unflatten(cls, aux, children):
        return cls(*aux)

    @property
    def Nt(self):
        return np.ceil(self.t_end / self.dt)


@register_pytree_node_class
class Signal:
    """The twin: the same numbers as children."""

    def __init__(self, dt, t_end):
        self.dt = dt
        self.t_end = t_end

    def tree_flatten(self):
        return (self.dt, self.t_end), None

    @classmethod
    def tree_unflatten(cls, aux, children):
        return cls(*children)

    @property
    def Nt(self):
        return np.ceil(self.t_end / self.dt)


def test_aux_data_is_a_python_value_and_children_are_tracers_under_jit():
    seen = {}

    @jax.jit
    def steps(ta):
        seen["dt"], seen["Nt"] = ta.dt, ta.Nt
        return jnp.arange(0, ta.Nt, 1)

    assert steps(TimeAxis(0.1, 1.0)).shape == (10,)
    assert type(seen["dt"]) is float and isinstance(seen["Nt"], np.floating)

    @jax.jit
    def child_steps(sig):
        seen["child"] = sig.dt
        return jnp.arange(0, sig.t_end / sig.dt, 1)

    with pytest.raises(jax.errors.ConcretizationTypeError):
        child_steps(Signal(0.1, 1.0))
    assert isinstance(seen["child"], Tracer)


def test_the_same_split_under_vmap_and_in_a_lax_loop_carry():
    out = jax.vmap(lambda ta, x: jnp.arange(0, ta.Nt) * x, in_axes=(None, 0))(TimeAxis(0.1, 1.0), jnp.ones(2))
    assert out.shape == (2, 10)

    def body(i, carry):
        ta, total = carry
        assert not isinstance(ta.t_end, Tracer)
        return ta, total + jnp.arange(0, ta.Nt).sum()

    _, total = jax.lax.fori_loop(0, 2, body, (TimeAxis(0.1, 1.0), 0.0))
    assert float(total) == 90.0


def test_register_pytree_node_flatten_function():
    class Grid:
        def __init__(self, values, n):
            self.values = values
            self.n = n

    register_pytree_node(Grid, lambda g: ((g.values,), g.n), lambda n, c: Grid(c[0], n))
    kinds = {}

    @jax.jit
    def f(g):
        kinds["values"], kinds["n"] = g.values, g.n
        return jnp.zeros(g.n) + g.values

    assert f(Grid(1.0, 3)).shape == (3,)
    assert isinstance(kinds["values"], Tracer) and kinds["n"] == 3


def test_register_dataclass_meta_fields_and_static_metadata():
    @functools.partial(register_dataclass, data_fields=["a"], meta_fields=["k"])
    @dataclasses.dataclass
    class Explicit:
        a: float
        k: int

    @register_dataclass
    @dataclasses.dataclass
    class Declared:
        a: float
        k: int = dataclasses.field(metadata=dict(static=True))

    def traced_kinds(p) -> list:
        # a new jitted function per class: each traces once, whatever the cache makes of the two
        kinds = []

        @jax.jit
        def f(q):
            kinds.append((isinstance(q.a, Tracer), isinstance(q.k, Tracer)))
            return jnp.zeros(q.k) + q.a

        assert f(p).shape == (3,)
        return kinds

    assert traced_kinds(Explicit(1.0, 3)) == [(True, False)]
    assert traced_kinds(Declared(1.0, 3)) == [(True, False)]


def test_flax_struct_and_equinox_static_fields():
    flax_struct = pytest.importorskip("flax.struct")
    eqx = pytest.importorskip("equinox")

    @flax_struct.dataclass
    class Config:
        scale: float
        n: int = flax_struct.field(pytree_node=False)

    class Model(eqx.Module):
        scale: float
        n: int = eqx.field(static=True)

    kinds = []

    @jax.jit
    def f(p):
        kinds.append((isinstance(p.scale, Tracer), isinstance(p.n, Tracer)))
        return jnp.arange(p.n) * p.scale

    assert f(Config(2.0, 3)).shape == (3,) and f(Model(2.0, 3)).shape == (3,)
    # a Python float field of an Equinox module is a child: traced like the Flax one
    assert kinds == [(True, False), (True, False)]


@register_pytree_node_class
class Operator:
    def __init__(self, J, n):
        self.J = J
        self.n = n

    def tree_flatten(self):
        return (self.J,), (self.n,)

    @classmethod
    def tree_unflatten(cls, aux, children):
        return cls(children[0], aux[0])

    @jax.jit
    def apply(self, x):
        return x * self.J + self.n


def test_a_jitted_method_flattens_self_on_every_call_so_no_attribute_is_stale():
    """`JaxView.traced_self`: a reassigned child is read afresh, a reassigned aux value traces again."""
    op = Operator(2.0, 1)
    assert float(op.apply(1.0)) == 3.0
    op.J = 5.0  # a child: a new tracer value, same trace
    assert float(op.apply(1.0)) == 6.0
    op.n = 10  # aux data: a new treedef, a new trace
    assert float(op.apply(1.0)) == 15.0


def test_a_method_jitted_on_a_plain_class_raises_at_the_call():
    class Plain:
        def __init__(self):
            self.J = 2.0

        @jax.jit
        def apply(self, x):
            return x * self.J

    with pytest.raises(TypeError, match="abstract array"):
        Plain().apply(1.0)


@pytest.mark.parametrize("jit", [functools.partial(jax.jit, static_argnums=0),
                                 functools.partial(jax.jit, static_argnames="self")])
def test_a_static_self_is_hashed_and_a_reassigned_attribute_is_stale(jit):
    class Static:
        def __init__(self):
            self.J = 2.0

        @jit
        def apply(self, x):
            return x * self.J

    s = Static()
    assert float(s.apply(1.0)) == 2.0
    s.J = 5.0
    assert float(s.apply(1.0)) == 2.0  # the same hash: the trace of J = 2.0 is reused
