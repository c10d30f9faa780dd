"""Per-step certainty of STG604, STG501 and STG504 under JAX: the part of each rule whose whole
chain is a known fact stays in the default tier, a step that is a guess moves to `--preview`,
a step known false silences it. Each fact is checked with JAX 0.10.2 in
tests/runtime/test_jax_shape_static_facts.py."""

from __future__ import annotations

from rulecases import assert_tiers, findings


def test_a_length_read_through_an_attribute_of_a_parameter_is_a_preview_guess():
    """e3nn's `scalars.irreps.dim - vectors.irreps.num_irreps` and jaxls's running sum of a
    `jdc.Static` field: Python ints of pytree metadata under jit, as far as anyone can tell from
    the code (the class is not one the project shows): whether the bound is a tracer is a guess."""
    assert_tiers("""
        import jax
        import jax.numpy as jnp

        @jax.jit
        def gate(inputs, costs):
            scalars = inputs.filter(keep=["0e"])
            extra = scalars.array[: scalars.irreps.dim - 1]  # preview STG604
            total = 0
            for cost in costs:
                total += cost.residual_dim * 2
            return extra, jnp.arange(total + 1)  # preview STG604
    """)


def test_a_range_loops_variable_is_a_python_int_whatever_its_bound_is_made_of():
    """e3nn's `for l in range(lmax + 1): coeffs.array[l**2 : (l + 1) ** 2]`: `range` only
    iterates a concrete bound, and its variable is a Python int: the slice and `jnp.arange(-l,
    l + 1)` are static (known false: silent in both tiers; the bound itself is STG602's). So is
    dalle-mini's `i * block_size` with `block_size = block_rows[0].shape[-2]`: an item of a shape."""
    source = """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def per_l(coeffs, lmax):
            out = []
            for l in range(3):
                out.append(jnp.arange(-l, l + 1) * coeffs[l ** 2 : (l + 1) ** 2].sum())
            return out

        @jax.jit
        def blocks(block_rows):
            block_size = block_rows[0].shape[-2]
            out = []
            for k, block_row in enumerate(block_rows[1:]):
                for i in range(k + 1):
                    out.append(block_row[..., i * block_size : (i + 1) * block_size])
            return out
    """
    assert_tiers(source)
    assert not findings(source, "STG604", preview=True)


def test_a_length_from_a_jitted_argument_or_a_jax_op_is_reported_with_its_proof():
    """The negative twin: a non-static argument of the jitted function (a Python int included)
    and a JAX op's result are tracers (JAX's behaviour table, row 19): known, the default tier,
    the proof naming the parameter."""
    source = """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def prefix(x, n):
            return x[:n], jnp.arange(n), x[x > 0], jnp.arange(jnp.sum(x > 0))  # STG604
    """
    assert_tiers(source)
    notes = [n.message for f in findings(source, "STG604") for n in f.because]
    assert any("comes from parameter `n` of `prefix`, a non-static argument" in m for m in notes), notes
    assert any("comes from parameter `x` of `prefix`" in m for m in notes), notes


def test_a_static_count_handed_to_a_jax_function_over_a_fixed_set_of_values_is_a_preview_guess():
    """deepqmc's `split_on_devices = pmap(..., static_broadcasted_argnums=1)` over
    `jax.random.split(rng, num)`, called with 1, 2 and 3: a static argument does trace once per
    value (known), but the values are a fixed set, each trace reused afterwards, and `num` is a
    count `jax.random.split` needs as a Python value (traced, it fails): both are guesses of
    whether anything is to be gained, the preview tier."""
    assert_tiers("""
        import functools
        import jax

        @functools.partial(jax.pmap, static_broadcasted_argnums=1)
        def split_on_devices(rng, num):
            return tuple(jax.random.split(rng, num))

        def fit(rng):
            a, b = split_on_devices(rng, 2)  # preview STG501
            c, d, e = split_on_devices(rng, 3)  # preview STG501
            return a, b, c, d, e

        @functools.partial(jax.jit, static_argnums=1)
        def draw(key, n):
            return jax.random.normal(key, (n,))

        def loop(key, total):
            for n in range(total):
                draw(key, n)  # preview STG501
    """)


def test_a_static_operand_that_changes_on_every_call_is_reported_with_its_proof():
    """The negative twin (JAX's behaviour table, row 29): a static argument traces once per value,
    the loop passes a new value on every call, and the parameter is only an operand of array
    arithmetic, where a traced value computes the same with one trace: known, the default tier."""
    source = """
        import functools
        import jax

        @functools.partial(jax.jit, static_argnames="rate")
        def dropout(x, rate):
            return x * (1 - rate)

        def train():
            for step in range(10):
                dropout(1.0, rate=step / 10)  # STG501
    """
    assert_tiers(source)
    notes = [n.message for f in findings(source, "STG501") for n in f.because]
    assert any("`rate` is a static argument of `dropout`" in m for m in notes), notes
    assert any("only where a traced value computes the same" in m for m in notes), notes


def test_a_call_of_a_name_the_file_binds_twice_is_a_preview_guess():
    """get-started-with-JAX's notebook: `@jit def f(x, y)` called in one cell, `f` redefined in a
    later cell with `static_argnames="y"`. The call above the redefinition runs the `def` above it
    (module code binds the name as each `def` runs: `functions.module_def_reached`), which has no
    static argument: silent. A call below the second `def` reaches its static `y`; where the name
    is bound twice that step is still read as a guess (the preview tier)."""
    assert_tiers("""
        import functools
        import jax
        import numpy as np

        @jax.jit
        def f(x, y):
            return x + y

        print(f(np.ones(2), np.ones(2)))

        @functools.partial(jax.jit, static_argnames="y")
        def f(x, y):
            return x + y

        print(f(np.ones(2), np.ones(2)))  # preview STG504
    """)


def test_an_element_unpacked_from_a_set_is_not_the_set():
    """jax-cfd's `tile_layout, = {tuple(l) for l in layouts}`: the name holds the set's one
    element (a tuple, hashable), not the set: known false, silent in both tiers."""
    source = """
        import functools
        import jax

        @functools.partial(jax.jit, static_argnums=1)
        def space_to_batch(x, layout):
            return x.reshape(layout)

        def run(x, layouts):
            tile_layout, = {tuple(l) for l in layouts}
            return space_to_batch(x, tile_layout)
    """
    assert_tiers(source)
    assert not findings(source, "STG504", preview=True)


def test_an_unhashable_static_argument_of_a_name_bound_once_is_reported_with_its_proof():
    """The negative twin (JAX's behaviour table, row 31): the set itself, a NumPy array, passed
    for a static parameter of a function the file binds once: ValueError at the call, known."""
    source = """
        import functools
        import jax
        import numpy as np

        @functools.partial(jax.jit, static_argnums=1)
        def space_to_batch(x, layout):
            return x.reshape(layout)

        def run(x, layouts):
            tile_layouts = {tuple(l) for l in layouts}
            space_to_batch(x, np.ones(2))  # STG504
            return space_to_batch(x, tile_layouts)  # STG504
    """
    assert_tiers(source)
    notes = [n.message for f in findings(source, "STG504") for n in f.because]
    assert any("is a NumPy array, which has no hash by value" in m for m in notes), notes


def test_a_registered_pytree_self_and_a_function_called_through_its_class_are_not_reported():
    """JAX-GalSim's `CelestialCoord` (`@register_pytree_node_class`): its jitted methods take a
    pytree `self`, and `_precess_kern` (no `self`) is called through the class with arrays: valid
    traced arguments (JAX 0.10.2), silent; a plain class's jitted method stays reported."""
    assert_tiers("""
        import jax
        from jax.tree_util import register_pytree_node_class

        @register_pytree_node_class
        class Coord:
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
            def _kern(a, b):
                return a * b

            def use(self, b):
                return Coord._kern(self.ra, b)

        class Plain:
            def __init__(self, ra):
                self.ra = ra

            @jax.jit  # STG504
            def shifted(self, d):
                return self.ra + d
    """)


def test_a_python_int_through_eqx_filter_vmap_is_not_a_tracer():
    """flowjax's `_get_idxs(keys, idx, batch_size, n)` under `@eqx.filter_vmap`, called with
    `batch_size = x.shape[0]`: filter_vmap maps only arrays (`in_axes=eqx.if_array(0)`) and hands a
    Python int over as it is, so `jnp.arange(batch_size)` works (equinox 0.13.8): not reported. A
    parameter a jitted caller passes a tracer for is one (the twin: the default tier)."""
    assert_tiers("""
        import equinox as eqx
        import jax
        import jax.numpy as jnp

        def contrastive(key, batch_size):
            @eqx.filter_vmap
            def _get_idxs(key, idx, batch_size):
                return jnp.delete(jnp.arange(batch_size), idx, assume_unique_indices=True)

            return _get_idxs(jax.random.split(key, batch_size), jnp.arange(batch_size), batch_size)

        @eqx.filter_vmap
        def rows(x, n):
            return jnp.arange(n) * x  # STG604

        @jax.jit
        def use(xs, ns):
            return rows(xs, ns)
    """)
