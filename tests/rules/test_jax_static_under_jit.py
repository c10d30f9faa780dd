"""Values that are Python, not tracers, under `jax.jit`: the fifteenth audit's preview classes as
facts (`stagelint.analysis.pytrees`, `JaxView.traced_params`, STG504's NumPy scalars), each with its
positive test and its negative twin. STG601, STG602 and STG604 are preview rules under JAX, so the
snippets are checked with `--preview`. Behaviour checked with JAX 0.10.2 in
tests/runtime/test_jax_fifteenth_audit_static_facts.py."""

from __future__ import annotations

from rulecases import assert_marked

#: qutip-jax's JaxDia, registered with its own methods; `num_diags` set by the unflatten from the aux data.
DIA = """
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import jit, tree_util

    class Dia:
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
"""


def test_aux_data_of_a_flatten_given_as_a_method_and_what_the_unflatten_computes_are_python_values():
    """BC-P1 (qutip-jax): `set(left.offsets)`, `diag in left.offsets`, `range(left.num_diags)` under
    jit on a parameter annotated with the class; the child `left.data` stays a tracer (the twin)."""
    assert_marked(DIA + """
    @jit
    def add(left: Dia, right: Dia):
        out = []
        for diag in set(left.offsets) | set(right.offsets):
            if diag in left.offsets:
                out.append(left.data[left.offsets.index(diag)])
        for i in range(left.num_diags):
            out.append(left.data[i])
        if left.data.sum() > 0:  # STG602
            out.append(left.data[0])
        return out
    """, preview=True)


def test_an_object_whose_class_is_not_shown_is_guessed_by_the_project_pytrees_that_have_the_attribute():
    """qutip-jax's dispatcher passes the JaxDia: nothing annotates `left`. The project's only class
    with `offsets` keeps it in its aux data, so the preview tier's guess follows it, through locals
    too (`for offset, data in zip(op.offsets, op.data)`); a child (`data`) is still reported, and an
    attribute a class that is no pytree also has is not guessed static."""
    assert_marked(DIA + """
    class Plain:
        def __init__(self, width):
            self.width = width

    @jit
    def expect(op, state, other):
        out = 0
        for offset, data in zip(op.offsets, op.data):
            if offset >= 0:
                out += jnp.sum(data[offset:] * state[: state.shape[0] - offset])
        if op.data[0, 0] > 0:  # STG602
            out = -out
        if other.width > 2:  # STG602
            out = out * 2
        return out
    """, preview=True)


def test_a_keyed_registration_keeps_its_aux_data_static():
    """`register_pytree_with_keys(C, flatten_with_keys, unflatten)`: children as (key, child) pairs,
    `method` in the aux data; the child `x` is traced."""
    assert_marked("""
    import jax
    import jax.numpy as jnp
    from jax import tree_util

    class Bank:
        def __init__(self, x, method):
            self.x = x
            self.method = method

    tree_util.register_pytree_with_keys(
        Bank,
        lambda b: (((tree_util.GetAttrKey("x"), b.x),), (b.method,)),
        lambda aux, children: Bank(children[0], aux[0]),
    )

    @jax.jit
    def apply(bank: Bank):
        if bank.method == "fft":
            return jnp.fft.rfft(bank.x)
        if bank.x.sum() > 0:  # STG602
            return bank.x
        return -bank.x
    """, preview=True)


def test_a_property_returning_a_childs_shape_is_a_python_int():
    """BC-P2 (tree-rake-compress): `num_nodes` returns `self.parents.shape[0]`, `parents` a child:
    its shape is static; a property returning the child's values (`self.parents[0]`) is traced."""
    assert_marked("""
    import jax
    import jax.numpy as jnp
    from jax.tree_util import register_pytree_node_class

    @register_pytree_node_class
    class Plan:
        def __init__(self, parents):
            self.parents = parents

        @property
        def num_nodes(self):
            return self.parents.shape[0]

        @property
        def first(self):
            return self.parents[0]

        def tree_flatten(self):
            return (self.parents,), None

        @classmethod
        def tree_unflatten(cls, aux, children):
            return cls(*children)

    @jax.jit
    def run(plan: Plan):
        if plan.num_nodes == 1:
            return plan.parents
        if plan.first == 1:  # STG602
            return plan.parents * 2
        return plan.parents + 1
    """, preview=True)


def test_under_grad_alone_an_array_closed_over_is_concrete():
    """BD (jaxwt): `jax.grad(lambda x: cwt(x, scales))` with `scales` made outside the lambda: only
    `x` is traced, so `float(scale)` in the helper gets a Python float; the twin differentiates with
    respect to the array the helper iterates, or jits the lambda (an op on the closed-over array is
    a tracer there)."""
    assert_marked("""
    import jax
    import jax.numpy as jnp

    def prepare(scales):
        return [float(scale) for scale in scales]

    def cwt(data, scales):
        return jnp.sum(data) * sum(prepare(scales))

    def prepare2(scales):
        return [float(scale) for scale in scales]  # STG601

    def cwt2(data, scales):
        return jnp.sum(data) * sum(prepare2(scales))

    scales = jnp.array([1.0, 2.0])
    x = jnp.ones(3)
    g = jax.grad(lambda x: cwt(x, scales))(x)
    g2 = jax.grad(lambda s: cwt2(x, s))(scales)
    """, preview=True)


def test_a_numpy_reduction_over_everything_is_a_hashable_static_argument():
    """BC-P4 (qutip-jax): `np.prod([...], dtype=int)` is an `np.int64`, fine for `static_argnums`;
    the twin reduces along an axis, an ndarray."""
    assert_marked("""
    from functools import partial

    import jax
    import numpy as np

    @partial(jax.jit, static_argnums=(1,))
    def core(x, n):
        return x.reshape((n, -1))

    def ptrace(x, dims):
        dkeep = np.prod([dims[i] for i in (0, 1)], dtype=int)
        rows = np.prod(np.array([[2, 3], [1, 1]]), axis=0)
        a = core(x, dkeep)
        b = core(x, np.sum(dims))
        return a, b, core(x, rows)  # STG504
    """, preview=True)


def test_jax_dtype_helpers_and_shape_unpacking_give_python_ints_to_helpers():
    """BD (JAXBench's copy of JAX's ragged paged attention): the head counts unpacked from
    `q.shape` and the packing `32 // dtypes.itemsize_bits(dtype)` (`jax._src.dtypes`, what JAX's
    own kernels import) are Python ints in the helpers they reach, and so are what the helpers
    return; the twin computes the packing with a JAX op on the array."""
    assert_marked("""
    import jax
    import jax.numpy as jnp
    from jax._src import dtypes

    def get_dtype_packing(dtype):
        return 32 // dtypes.itemsize_bits(dtype)

    def get_value_packing(x):
        return 32 // jnp.max(x)

    def min_heads(num_heads, dtype):
        packing = get_dtype_packing(dtype)

        def tiled(n, p):
            if n % p != 0:
                return False
            return n in (1, 2, 4, 8) or n % 8 == 0

        if not tiled(num_heads, packing):
            raise ValueError("not tiled")
        return num_heads // 2, packing

    def value_heads(num_heads, x):
        packing = get_value_packing(x)
        if num_heads % packing != 0:  # STG602
            raise ValueError("not tiled")
        return packing

    @jax.jit
    def attention(q, kv_pages):
        _, num_heads, _ = q.shape
        half, packing = min_heads(num_heads, kv_pages.dtype)
        assert half % 2 == 0
        return q * value_heads(num_heads, kv_pages)
    """, preview=True)


def test_a_value_compared_with_none_is_a_python_bool_under_jax():
    """BD (sac-jax-maniskill): `if visual_encoder != None:` on a jitted function's argument (a pytree
    or None); the twin compares the argument with a number."""
    assert_marked("""
    import jax
    import jax.numpy as jnp

    @jax.jit
    def act(x, visual_encoder):
        if visual_encoder != None:
            x = x + visual_encoder["w"].sum()
        if x == None or x is None:
            return x
        if visual_encoder["w"] != 0:  # STG602
            return -x
        return x
    """, preview=True)


def test_numpy_shape_of_a_tracer_reads_its_static_shape():
    """BD (JAXtronomy): `np.shape(image)` in a jitted helper is `image.shape`; the twin converts the
    tracer to a NumPy array (`np.ravel`)."""
    assert_marked("""
    import jax
    import numpy as np

    @jax.jit
    def re_size(image):
        nx, ny = np.shape(image)
        n = np.size(image) // np.ndim(image)
        flat = np.ravel(image)  # STG601
        return image.reshape(nx // 2, 2, ny // 2, 2), flat, n
    """, preview=True)
