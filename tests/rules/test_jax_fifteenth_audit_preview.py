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
