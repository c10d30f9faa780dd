"""The fifteenth JAX audit's preview classes (halves BC and BD, bench/fresh_audit_notes.md, "JAX
preview classes of the fifteenth audit"), each the framework fact it missed, with its negative twin.

Pallas Refs: `pallas_call(kernel, ...)` calls the kernel with a Ref per positional parameter, and a
store into one (in the kernel or a `lax.fori_loop` body inside it) is state the kernel's lowering
keeps, not a tracer kept past its trace (tests/runtime/test_jax_pallas_ref_facts.py;
aryatschand/JAXBench's copies of JAX's flash-attention kernels)."""

from __future__ import annotations

from rulecases import assert_tiers


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
