"""What `pallas_call` hands its kernel, observed with the real JAX (0.10.2, interpret mode on CPU):

* each positional parameter of the kernel is a Ref, one per input, output and scratch operand
  (the keywords `functools.partial` binds stay Python values);
* a store into a Ref (`o_ref[...] = v`), in the kernel or in a `lax.fori_loop` body inside it, is
  a state write the kernel's lowering keeps: the output holds it, later calls of the jitted
  function run again with their own values, and no tracer outlives the trace
  (the fifteenth JAX audit's copies of JAX's flash-attention kernels, bench/fresh_audit_notes.md);
* the negative twin: the same store into a Python object that outlives a `fori_loop` body (a
  list of the caller's) keeps the body's tracer, and using it later raises
  UnexpectedTracerError.
"""

from __future__ import annotations

import functools

import pytest

jax = pytest.importorskip("jax")
jnp = jax.numpy
pl = pytest.importorskip("jax.experimental.pallas")


def _kernel(x_ref, o_ref, *, steps, seen):
    seen.append(type(getattr(x_ref, "aval", x_ref)).__name__)
    o_ref[...] = jnp.zeros_like(o_ref)

    def body(i, carry):
        o_ref[...] = o_ref[...] + x_ref[...] * i
        return carry

    jax.lax.fori_loop(0, steps, body, 0)


def test_a_kernel_gets_refs_and_its_stores_are_kept_state():
    seen = []

    @jax.jit
    def f(x):
        kernel = functools.partial(_kernel, steps=4, seen=seen)
        return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), interpret=True)(x)

    x = jnp.ones((8, 128), jnp.float32)
    first, second = f(x), f(x * 2)
    assert float(first[0, 0]) == 6.0 and float(second[0, 0]) == 12.0  # 0+1+2+3, per call
    assert seen and all("Ref" in name for name in seen)  # a Ref (its abstract value), each positional parameter
    assert not any(isinstance(leaf, jax.core.Tracer) for leaf in (first, second))


def test_the_negative_twin_a_python_list_outliving_the_body_keeps_a_tracer():
    kept = [None]

    def body(i, carry):
        kept[0] = carry + i
        return carry

    @jax.jit
    def g(x):
        return jax.lax.fori_loop(0, 4, body, x)

    g(jnp.ones(3))
    assert isinstance(kept[0], jax.core.Tracer)
    with pytest.raises(jax.errors.UnexpectedTracerError):
        jnp.sum(kept[0])
