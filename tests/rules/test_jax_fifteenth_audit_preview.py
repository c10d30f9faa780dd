"""The fifteenth JAX audit's preview classes (halves BC and BD, bench/fresh_audit_notes.md, "JAX
preview classes of the fifteenth audit"), each the framework fact it missed, with its negative twin.

Pallas Refs: `pallas_call(kernel, ...)` calls the kernel with a Ref per positional parameter, and a
store into one (in the kernel or a `lax.fori_loop` body inside it) is state the kernel's lowering
keeps, not a tracer kept past its trace (tests/runtime/test_jax_pallas_ref_facts.py;
aryatschand/JAXBench's copies of JAX's flash-attention kernels)."""

from __future__ import annotations

from pathlib import Path

from rulecases import assert_tiers, check_project


def test_a_store_into_a_pallas_kernels_ref_is_kept_state():
    assert_tiers("""
        import functools

        import jax
        import jax.numpy as jnp
        from jax.experimental import pallas as pl

        partial = functools.partial


        def kernel(x_ref, o_ref, acc_ref, m_ref, *, steps):
            acc_ref[...] = jnp.zeros_like(acc_ref)

            def body(i, carry):
                acc_ref[...] = acc_ref[...] + x_ref[...] * i
                m_ref[...], acc_ref[...] = acc_ref[...] * i, acc_ref[...] + i
                return carry

            jax.lax.fori_loop(0, steps, body, 0)
            o_ref[...] = acc_ref[...]


        @jax.jit
        def f(x):
            k = partial(kernel, steps=4)
            return pl.pallas_call(k, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), interpret=True)(x)
    """)


def test_the_negative_twin_the_same_stores_into_python_lists_a_caller_passes():
    """The same body storing into lists a jitted caller passes (no `pallas_call` hands them over):
    a list keeps the body's tracer, reported as before."""
    assert_tiers("""
        import jax
        import jax.numpy as jnp
        from jax.experimental import pallas as pl


        def accumulate(x_ref, o_ref, acc_ref, *, steps):
            acc_ref[0] = jnp.zeros_like(x_ref)

            def body(i, carry):
                acc_ref[0] = acc_ref[0] + x_ref * i  # STG201
                return carry

            jax.lax.fori_loop(0, steps, body, 0)
            o_ref[0] = acc_ref[0]


        @jax.jit
        def g(x):
            out, acc = [None], [None]
            accumulate(x, out, acc, steps=4)
            return out[0]
    """)


# A module-level `jax.vmap(f, ...)` wrapper nothing calls (jaxhps-scattering's
# `vmapped_propogate_down_quad`): a wrapper traces only when called
# (tests/runtime/test_jax_unused_wrapper_facts.py), and a private module's name none of the
# project's imports of that module names is called nowhere, so `f`, run directly with Python
# ints, is traced by it nowhere.

INIT = """
    from ._down import down_pass
"""

DOWN = """
    import jax
    import jax.numpy as jnp


    def _propagate(data, g, n_a):
        return data[:n_a] + g[:n_a]


    def down_pass(nodes, data, g):
        out = []
        for node in nodes:
            out.append(_propagate(data, g, node.n))
        return jnp.concatenate(out)


    vmapped_propagate = jax.vmap(_propagate, in_axes=(0, 0, 0))
"""

SOLVE = """
    import jax

    from ._down import vmapped_propagate


    @jax.jit
    def solve(data, g, n):
        return vmapped_propagate(data, g, n)
"""


def _slices(findings):
    return sorted((Path(f.path).name, f.line, f.code) for f in findings if f.code == "STG604")


def test_a_private_modules_vmap_wrapper_no_import_names_traces_nothing(tmp_path):
    found = check_project(tmp_path, {"pkg/__init__.py": INIT, "pkg/_down.py": DOWN}, preview=True)
    assert _slices(found) == []


def test_the_negative_twin_the_wrapper_imported_and_called_under_jit(tmp_path):
    files = {"pkg/__init__.py": INIT + "    from .solve import solve\n", "pkg/_down.py": DOWN,
             "pkg/solve.py": SOLVE}
    assert _slices(check_project(tmp_path, files, preview=True)) == [("_down.py", 6, "STG604")] * 2


def test_the_negative_twin_a_public_module_may_be_imported_from_outside(tmp_path):
    files = {"pkg/__init__.py": "from .down import down_pass\n", "pkg/down.py": DOWN}
    assert _slices(check_project(tmp_path, files, preview=True)) == [("down.py", 6, "STG604")] * 2


# STG302, order: attributes set only by set-up methods the project runs from `__init__` (public
# ones too, when nothing calls them on an object), and an attribute rebound by a method that then
# makes the reading wrapper anew (tests/runtime/test_jax_setup_order_facts.py).

SOLVER = """
    import functools

    import jax
    import jax.numpy as jnp


    class Solver:
        def __init__(self, energies, setup=True):
            self.energies = jnp.array(energies)
            if setup:
                self.setup()

        def setup(self):
            self.setup_propagator()

        def setup_propagator(self):
            self.k = jnp.sqrt(self.energies)
            self.n_poles = self.k.shape[0]
{extra}
        @functools.partial(jax.jit, static_argnames=("self",))
        def t(self, v):
            return v[: self.n_poles] * self.k{marks}
"""

RETUNE = """
        def retune(self, energies):
            self.energies = jnp.array(energies)
            self.setup_propagator()
"""


def test_attributes_set_up_only_from_init_are_not_stale():
    assert_tiers(SOLVER.format(extra="", marks=""))


def test_the_negative_twin_a_public_method_that_runs_the_set_up_again():
    """`retune()`, which no code of the project calls, may run between two calls: unknown, so the
    preview finding stays."""
    assert_tiers(SOLVER.format(extra=RETUNE, marks="  # preview STG302"))


def test_the_negative_twin_the_set_up_method_called_on_an_object(tmp_path):
    """A script calling `s.setup_propagator()` on an object: the method is not the object's set-up
    alone, so the reads stay reported (preview: the script's order is not followed here)."""
    script = """
        import jax.numpy as jnp

        from solver import Solver

        s = Solver([1.0, 4.0])
        s.t(jnp.ones(3))
        s.setup_propagator()
        s.t(jnp.ones(3))
    """
    found = check_project(tmp_path, {"solver.py": SOLVER.format(extra="", marks=""), "run.py": script},
                          preview=True)
    assert sorted((f.path, f.code) for f in found if f.code == "STG302") == [("solver.py", "STG302")] * 2


IMAGE = """
    import jax
    import jax.numpy as jnp


    class ImageData:
        def __init__(self, data):
            self.data = data
            self.log_likelihood = jax.jit(self._log_likelihood)

        def update_data(self, data):
            self.data = data
{remake}
        def _log_likelihood(self, model):
            return -jnp.sum((model - self.data) ** 2){marks}
"""


def test_an_attribute_rebound_then_the_wrapper_made_anew_is_not_stale():
    assert_tiers(IMAGE.format(remake="            self.log_likelihood = jax.jit(self._log_likelihood)\n", marks=""))


def test_the_negative_twin_the_rebinding_without_a_new_wrapper():
    assert_tiers(IMAGE.format(remake="", marks="  # preview STG302"))


# STG504: a module-level call runs the `def` above it, not a later `def` of the same name (the
# tutorial's `f(x2, y2)` under `@jit def f(x, y)`, before `@partial(jit, static_argnums=(1,))
# def f(x, neg)`): module code binds the name when each `def` runs.

REDEFINED = """
    from functools import partial

    import numpy as np
    from jax import jit


    @jit
    def f(x, y):
        return x + y


    x2, y2 = np.ones(3), np.ones(3)
    print(f(x2, y2))


    @partial(jit, static_argnums=(1,))
    def f(x, neg):
        return -x if neg else x


    print(f(x2, {last}
"""


def test_a_call_runs_the_def_above_it_not_a_later_one():
    assert_tiers(REDEFINED.format(last="True))"))


def test_the_negative_twin_a_call_below_the_later_def_reaches_its_static_argument():
    """The call below the second `def` passes an array for its static `neg`: reported as before
    (preview: which binding a call reaches is still read as a guess where the name is bound twice)."""
    assert_tiers(REDEFINED.format(last="y2))  # preview STG504"))
