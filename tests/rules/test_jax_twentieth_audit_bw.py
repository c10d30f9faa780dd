"""The twentieth JAX audit's BW classes as facts, each with its positive test and its negative
twin (issue 23). Behaviour checked with JAX 0.10.2 in tests/runtime/test_jax_concretizing_facts.py."""

from __future__ import annotations

from rulecases import assert_tiers

CONFIDENCE = """
    import jax
    import jax.numpy as jnp
    import numpy as np


    def ptms(logits, feats, pair):
        asym_id = jnp.repeat(feats["asym_id"], 2, axis=0)
        out = {}
        if pair:
            ids = jnp.unique(asym_id).tolist()  # STG601 STG604
            for i in ids:LOOP
                out[i] = jnp.sum(logits * (asym_id == i))  # STG602
        return jnp.sum(logits), out


    def conf(x, feats):
        return ptms(x, feats, pair=True)


    def predict(x, feats, seq):
        if seq:
            return jax.lax.map(lambda c: conf(c, feats), x)
        return conf(x, feats)


    run = jax.jit(predict, static_argnums=2)
"""


def test_a_loop_after_a_concrete_only_call_reached_by_jit_and_a_lax_map_body_is_never_traced():
    """BW2 (FoldJAX's boltz2 confidence head, `_compute_ptms`): the loop runs over
    `jnp.unique(asym_id).tolist()`, `asym_id` a JAX op's result. The function is reached by the
    jitted `predict` and by a `lax.map` body in it; a `lax` body traces its whole body as `jax.jit`
    does (`frameworks.JAX_OPS_ALWAYS_TRACED`), so the op's result is a tracer in every trace,
    `.tolist()` raises there, and the loop after it is never traced: no STG503. The concretizing
    call itself is reported (STG601, the error), as before."""
    assert_tiers(CONFIDENCE.replace("LOOP", ""))


def test_the_negative_twin_a_vmap_of_the_same_function_unrolls_the_loop():
    """`jax.vmap` alone traces only what comes from the arguments it maps: `asym_id`, computed from
    the unmapped `feats`, is a concrete array there, `.tolist()` works and the loop runs in the
    trace (unrolled): STG503 stands."""
    source = CONFIDENCE.replace("LOOP", "  # STG503") + """
    batched = jax.vmap(conf, in_axes=(0, None))
    batched(jnp.ones((2, 3)), {"asym_id": np.array([0, 1, 1])})
"""
    assert_tiers(source)
