"""Values that are Python, not tracers, under `jax.jit`: the fifteenth audit's preview classes
(BC-P1, BC-P2, BC-P4 and BD's), observed with the real JAX (`stagelint.analysis.pytrees`,
`frameworks.JAX_PYTREE_*`; the static twins are in tests/rules/test_jax_static_under_jit.py)."""

from __future__ import annotations

import numpy as np
import pytest

jax = pytest.importorskip("jax")
jnp = jax.numpy
from jax import tree_util  # noqa: E402

Tracer = jax.core.Tracer


class Dia:
    """qutip-jax's JaxDia: `register_pytree_node(C, C._flatten, C._unflatten)` with the flatten and
    unflatten given as the class's own methods; `offsets` in the aux data, `num_diags` set by the
    unflatten from it."""

    def __init__(self, data, offsets):
        self.data = data
        self.offsets = tuple(offsets)
        self.num_diags = len(self.offsets)

    def _flatten(self):
        children = (self.data,)
        aux_data = {"offsets": self.offsets}
        return (children, aux_data)

    @classmethod
    def _unflatten(cls, aux_data, children):
        out = cls.__new__(cls)
        out.data = children[0]
        out.offsets = aux_data["offsets"]
        out.num_diags = len(out.offsets)
        return out


tree_util.register_pytree_node(Dia, Dia._flatten, Dia._unflatten)


class Keyed:
    """`register_pytree_with_keys(C, flatten_with_keys, unflatten)`: the children as (key, value)
    pairs, the aux data as the plain flatten's."""

    def __init__(self, x, method):
        self.x = x
        self.method = method


tree_util.register_pytree_with_keys(
    Keyed,
    lambda k: (((tree_util.GetAttrKey("x"), k.x),), (k.method,)),
    lambda aux, children: Keyed(children[0], aux[0]),
)


def test_aux_data_and_what_the_unflatten_computes_from_it_are_python_values_under_jit():
    seen = {}

    @jax.jit
    def add(left):
        seen["offsets"] = left.offsets
        seen["num_diags"] = left.num_diags
        seen["data"] = left.data
        out = [left.data[left.offsets.index(d)] for d in set(left.offsets)]  # a set, `in`, `index`: Python
        for i in range(left.num_diags):  # range() of the unflatten's `len(aux)`: a Python int
            out.append(left.data[i])
        return sum(out)

    add(Dia(jnp.ones((2, 3)), [0, 1]))
    assert seen["offsets"] == (0, 1) and not isinstance(seen["num_diags"], Tracer) and seen["num_diags"] == 2
    assert isinstance(seen["data"], Tracer)  # the child: a tracer

    @jax.jit
    def branch(left):
        if left.data.sum() > 0:  # the twin: a child's value
            return left.data
        return -left.data

    with pytest.raises(jax.errors.TracerBoolConversionError):
        branch(Dia(jnp.ones((2, 3)), [0, 1]))


def test_keyed_registration_keeps_aux_data_static():
    seen = {}

    @jax.jit
    def f(k):
        seen["method"] = k.method
        seen["x"] = k.x
        return k.x * 2 if k.method == "fft" else k.x

    f(Keyed(jnp.ones(3), "fft"))
    assert seen["method"] == "fft" and isinstance(seen["x"], Tracer)


def test_a_shape_of_a_child_and_the_length_of_a_tuple_of_pytrees_are_python_ints():
    """BC-P2: a property returning `self.parents.shape[0]` of a traced child is a Python int (the
    shape is static), and `bool(t)` of a tuple of pytrees is its length."""

    @tree_util.register_pytree_node_class
    class Plan:
        def __init__(self, parents, rounds):
            self.parents = parents
            self.rounds = rounds

        @property
        def num_nodes(self):
            return self.parents.shape[0]

        def tree_flatten(self):
            return (self.parents, self.rounds), None

        @classmethod
        def tree_unflatten(cls, aux, children):
            return cls(*children)

    seen = {}

    @jax.jit
    def f(plan):
        seen["n"] = plan.num_nodes
        seen["rounds"] = bool(plan.rounds)
        return plan.parents + 1 if plan.num_nodes > 1 and plan.rounds else plan.parents

    f(Plan(jnp.zeros(4), (jnp.ones(2), jnp.ones(2))))
    assert seen == {"n": 4, "rounds": True}


def test_a_numpy_scalar_is_hashable_as_a_static_argument_and_an_array_is_not():
    """BC-P4: `np.prod([...], dtype=int)` is an `np.int64`: hashable, fine for `static_argnums`;
    only an ndarray fails."""
    from functools import partial

    @partial(jax.jit, static_argnums=(1,))
    def f(x, n):
        return x.reshape((n, -1))

    n = np.prod([2, 3], dtype=int)
    assert isinstance(n, np.integer)
    assert f(jnp.ones(6), n).shape == (6, 1)
    with pytest.raises(ValueError, match="Non-hashable static arguments"):
        f(jnp.ones(6), np.array([2, 3]))


def test_under_grad_alone_a_closed_over_array_is_concrete_and_the_differentiated_argument_traced():
    """BD (jaxwt's `test_cwt_grad`): `jax.grad(lambda x: f(x, scales))` with `scales` an array made
    outside: only `x` is traced; `float(scale)` of an element of `scales` in the helper is a Python
    float. Under `jax.jit` the same closure is a constant too, but the differentiated argument's
    `float` fails."""

    def helper(x, scales):
        total = 0.0
        for scale in scales:
            total = total + float(scale) * x
        return jnp.sum(total)

    scales = jnp.array([1.0, 2.0])
    g = jax.grad(lambda x: helper(x, scales))(jnp.ones(3))
    assert g.shape == (3,)
    with pytest.raises(jax.errors.ConcretizationTypeError):
        jax.grad(lambda x: helper(scales, x))(jnp.ones(2))


def test_jax_dtype_helpers_and_unpacked_shapes_are_python_ints_under_jit():
    """BD (JAXBench's ragged paged attention): `jax._src.dtypes.itemsize_bits(x.dtype)` and the
    counts unpacked from `q.shape` are Python ints in a jitted function and the helpers it calls."""
    from jax._src import dtypes

    seen = {}

    def min_heads(num_heads, dtype):
        packing = 32 // dtypes.itemsize_bits(dtype)
        seen["packing"] = packing
        if num_heads % packing != 0:  # a Python bool
            raise ValueError("not tiled")
        return num_heads // 2

    @jax.jit
    def attention(q):
        _, num_heads, _ = q.shape
        half = min_heads(num_heads, q.dtype)
        assert half % 2 == 0
        return q * half

    attention(jnp.ones((2, 4, 3), jnp.bfloat16))
    assert seen["packing"] == 2 and type(seen["packing"]) is int


def test_a_tracer_or_a_pytree_compared_with_none_is_a_python_bool():
    """BD (sac-jax-maniskill): `if visual_encoder != None:` in a jitted function taking a pytree
    or None; `x == None` of a traced array is a Python bool too (JAX gives the comparison back to
    Python, which compares identities). The twin compares with a number: a tracer."""
    seen = {}

    @jax.jit
    def act(x, encoder):
        seen["ne"] = x != None  # noqa: E711
        seen["eq"] = encoder == None  # noqa: E711
        if encoder != None:  # noqa: E711
            return x + encoder["w"].sum()
        return x

    act(jnp.ones(3), {"w": jnp.ones(2)})
    assert seen == {"ne": True, "eq": False}

    @jax.jit
    def twin(x):
        if x != 0:
            return x
        return -x

    with pytest.raises(jax.errors.TracerBoolConversionError):
        twin(jnp.ones(()))


def test_numpy_shape_ndim_size_of_a_tracer_are_python_values_under_jit():
    """BD (JAXtronomy's `re_size`): `np.shape(image)` reads `image.shape`, a tuple of Python ints
    under jit; so do `np.ndim` and `np.size`. The twin converts the tracer (`np.ravel`)."""
    seen = {}

    @jax.jit
    def re_size(image):
        seen["shape"], seen["ndim"], seen["size"] = np.shape(image), np.ndim(image), np.size(image)
        return image

    re_size(jnp.ones((2, 3)))
    assert seen == {"shape": (2, 3), "ndim": 2, "size": 6}

    @jax.jit
    def twin(image):
        return np.ravel(image)

    with pytest.raises(jax.errors.TracerArrayConversionError):
        twin(jnp.ones((2, 3)))
