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


SAMPLER = """
    from functools import partial

    import jax
    import jax.numpy as jnp


    def sample_forward(x, key, *, steps: int = 200, use_scan=False):
        if use_scan:
            return x
        for step in range(steps):  LOOP
            x = jnp.sin(x) * 2.0 + step
        return x


    def model_predict(params, x, key, *, recycling=3, steps: int = 200, **sample_kwargs):
        multiplicity = int(sample_kwargs.pop("multiplicity", 1))
        sample_kwargs["backend"] = "xla"

        def sample(key):
            return sample_forward(x, key, steps=steps, **sample_kwargs)

        return sample(key) * multiplicity


    def predict(params, x, steering, n):
        predict_kwargs = {"recycling": 3, "steps": n, "use_scan": True, "multiplicity": 2}
        affinity_kwargs = {**predict_kwargs, "recycling": 5}
        CHANGE

        def run_model(p, y, key):
            return model_predict(p, y, key, **predict_kwargs)

        def run_affinity(p, y, key):
            return model_predict(p, y, key, **affinity_kwargs)

        runner = run_model if steering else jax.jit(run_model)
        out = runner(params, x, jax.random.PRNGKey(0))
        return out, jax.jit(run_affinity)(params, x, jax.random.PRNGKey(1)), predict_kwargs["recycling"]


    def profile(x, n):
        sampler = jax.jit(partial(sample_forward, steps=n, use_scan=True))
        return sampler(x, jax.random.PRNGKey(0))
"""


def _sampler(loop: str = "", change: str = "pass") -> str:
    return SAMPLER.replace("  LOOP", loop).replace("CHANGE", change)


def test_a_loop_after_if_flag_return_is_in_no_trace_when_every_traced_call_passes_the_flag_through_dicts():
    """BW2 (FoldJAX's boltz2 sampler): the Python sampling loop follows `if use_scan: return ...`,
    and every traced call gives `use_scan=True`: the jitted `run_model` / `run_affinity` spread
    `predict_kwargs` (a dict display bound once and never changed; `affinity_kwargs` spreads it in
    turn), `model_predict` hands its `**sample_kwargs` on from a nested `sample` (changing other
    keys only), and `jax.jit(partial(sample_forward, use_scan=True))` binds it (`analysis.spreads`,
    `flags.param_values`; Python's own semantics, tests/test_spreads.py). The loop's STG503
    candidate keeps the conditions it runs under (it is reported once the file is walked)."""
    assert_tiers(_sampler())


def test_the_negative_twin_a_changed_dict_leaves_the_flag_unknown_and_the_loop_reported():
    """`predict_kwargs["use_scan"] = steering`: the dict is not its display any more (any value)."""
    assert_tiers(_sampler(loop="  # STG503", change='predict_kwargs["use_scan"] = steering'))


def test_the_negative_twin_a_local_jit_whose_call_leaves_the_flag_to_its_false_default():
    """A local `compiled = jax.jit(sample_forward)` called without `use_scan`: that trace holds the
    default, False, so the loop is traced there (`JaxStaged.calls_shown`: each call of it shows)."""
    source = _sampler(loop="  # STG503") + """
    def check(x):
        compiled = jax.jit(sample_forward, static_argnames=("steps",))
        return compiled(x, jax.random.PRNGKey(0), steps=4)
"""
    assert_tiers(source)


def test_a_local_jit_whose_call_passes_the_flag_keeps_the_loop_untraced():
    source = _sampler() + """
    def check(x):
        compiled = jax.jit(sample_forward, static_argnames=("steps",))
        return compiled(x, jax.random.PRNGKey(0), steps=4, use_scan=True)
"""
    assert_tiers(source)


def test_the_negative_twin_a_literal_false_flag_from_the_jitted_caller():
    """The plain case the conditions now reach: `use_scan=False` from the jitted caller, traced loop."""
    source = """
        import jax
        import jax.numpy as jnp


        def sample_forward(x, *, steps: int = 200, use_scan=False):
            if use_scan:
                return x
            for step in range(steps):  # STG503
                x = jnp.sin(x) * 2.0 + step
            return x


        def run(x):
            return sample_forward(x, steps=200, use_scan=False)


        f = jax.jit(run)
    """
    assert_tiers(source)
    assert_tiers(source.replace("  # STG503", "").replace("use_scan=False)", "use_scan=True)"))


KEYS = """
    import jax
    import jax.numpy as jnp


    def pick(features, structural, ids):
        candidates = ("a_mask", "b_mask") if structural else ("b_mask", "a_mask")
        for key in candidates:
            if key not in features:
                continue
            return features[key]
        for name in ("x", "y"):
            if name in features:
                return features[name]
        for i in ids:
            if i in features["x"]:  # STG602
                return features["x"]
        return None


    @jax.jit
    def run(features, ids):
        return jnp.sum(pick(features, True, ids))
"""


def test_a_python_string_in_a_mapping_is_a_python_bool_and_its_twin_a_traced_element():
    """BW-P2 (FoldJAX's opendde `if key not in features: continue`): the key is a loop variable over
    a tuple of string literals (through a name bound to an `if`-expression of two): a string `in`
    a dict of arrays is a Python bool under jit, and in an array a TypeError, never a tracer
    (`tensors.python_string`; JAX 0.10.2, tests/runtime/test_jax_concretizing_facts.py): no
    STG602. The twin: an element of a traced array `in` an array is a tracer: still reported."""
    assert_tiers(KEYS)


PALLAS = """
    import jax
    import jax.numpy as jnp
    from jax import lax
    from jax.experimental import pallas as pl


    def _make_kernel(cs):
        def kernel(x_ref, y_ref):
            bh = pl.program_id(0)
            seen = []

            def body(t, w):
                y_t = x_ref[bh, t] * w
                y_ref[bh, t] = y_t.astype(y_ref.dtype)
                seen.append(y_t)  # STG201
                return w + 1.0

            lax.fori_loop(0, cs, body, 1.0)

        return kernel


    def run(x):
        kernel = _make_kernel(4)
        return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), grid=(x.shape[0],))(x)
"""


def test_a_pallas_kernel_made_by_a_factory_writes_its_output_ref_and_its_twin_a_dict_leaks():
    """BW-P4 (atlas-jax's fused Pallas kernel): `pallas_call(kernel, ...)` with `kernel =
    _make_kernel(...)`, a factory whose every `return` gives back its nested def `kernel`: that def
    is the kernel, its positional parameters the Refs (`jaxrules._returned_defs`), and a store into
    one in the kernel's `fori_loop` body is the kernel writing its output, not a leaked tracer. The
    twin: the same tracer appended to a list of the kernel's own leaks (STG201 stands)."""
    assert_tiers(PALLAS)
