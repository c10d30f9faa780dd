"""Per-step certainty of the JAX rules below 0.80 on repositories nobody here had read
(bench/fresh_audit_notes.md, "Per-step certainty of STG604, STG504, STG502 under JAX"): the part
of each rule whose whole chain is a known fact stays in the default tier, the step that is a guess
moves to `--preview`. Each fact is checked with JAX 0.10.2 (and equinox) in
tests/runtime/test_jax_certain_steps_facts.py."""

from __future__ import annotations

from rulecases import assert_tiers


def test_a_slice_bound_from_a_vmapped_helpers_parameter_is_a_preview_guess():
    """serket's `horizontal_translate_2d(image, shift)`: `shift` is a helper's parameter,
    passed unbatched by `jax.vmap(translate, in_axes=(0, None))` and reached through
    `jax.vmap(random_translate, in_axes=(None, 0))(key, image)`, which computes it
    with `jr.randint(key, ...)` of the unbatched key. vmap hands an `in_axes=None` argument over as
    it is, so that draw is a concrete array and the slice works; under a caller's `jax.jit` it
    would be a tracer. Which of the two the calls are is a guess: the preview tier."""
    assert_tiers("""
        import jax
        import jax.numpy as jnp
        import jax.random as jr

        def translate(image, shift):
            return jnp.zeros_like(image).at[:, shift:].set(image[:, :-shift])  # preview STG604

        def random_translate(key, image):
            shift = jr.randint(key, shape=(), minval=1, maxval=3)
            return translate(image, shift)

        def apply(key, images):
            return jax.vmap(random_translate, in_axes=(None, 0))(key, images)

        def fixed(images, shift):
            return jax.vmap(translate, in_axes=(0, None))(images, shift)
    """)


def test_a_slice_bound_the_jitted_function_is_given_is_reported():
    """The negative twin: `jax.jit` hands every non-static parameter a tracer (a Python int
    included), so `x[:n]` in the jitted function itself raises IndexError on the first call: known,
    the default tier. A vmapped function's mapped parameter is a batch tracer the same way, and a
    helper's parameter is known to hold one where a call passes a JAX operation's result in a body
    `jax.jit` traces whole (or a parameter known to hold one)."""
    assert_tiers("""
        import jax
        import jax.numpy as jnp

        @jax.jit
        def prefix(x, n):
            return jnp.sum(x[:n])  # STG604

        def row_prefix(rows, n):
            return jax.vmap(lambda r, k: r[:k], in_axes=(0, 0))(rows, n)  # STG604

        def head(x, k):
            return x[:k]  # STG604

        @jax.jit
        def step(key, x):
            return head(x, jax.random.randint(key, (), 1, 3))
    """)


def test_static_argnames_checked_against_a_def_another_decorator_wraps_is_a_preview_guess():
    """learned_optimization's `@functools.partial(jax.jit, static_argnames="with_summary")` over
    `@summary.add_with_summary def loss(parameters)`: jit checks the names against
    `inspect.signature` of what it is given, and that wrapper sets `__signature__` with a
    keyword-only `with_summary` (JAX 0.10.2 accepts it). A project decorator may change the
    signature, so the def's own parameters are a guess there: the preview tier."""
    assert_tiers("""
        import functools
        import jax
        import summary

        @functools.partial(jax.jit, static_argnames="with_summary")  # preview STG504
        @summary.add_with_summary
        def loss(parameters):
            return parameters * 2
    """)


def test_static_argnames_naming_no_parameter_of_the_jitted_def_is_reported():
    """The negative twin: jit given the def itself, or through a decorator that keeps its
    signature (`functools.lru_cache`, whose wrapper `inspect.signature` follows to the def),
    raises ValueError where it wraps it (JAX 0.10.2)."""
    assert_tiers("""
        import functools
        import jax

        @functools.partial(jax.jit, static_argnames="with_summary")  # STG504
        def loss(parameters):
            return parameters * 2

        @functools.partial(jax.jit, static_argnames="with_summary")  # STG504
        @functools.lru_cache(maxsize=None)
        def cached(parameters):
            return parameters * 2
    """)


def test_a_method_of_a_class_registered_as_a_pytree_by_its_decorator_may_trace_self():
    """jax-diffusion-transformer's `@flax.struct.dataclass class StableVAE` with `@jax.jit def
    encode(self, x)`: the decorator registers the class as a pytree, so jit flattens `self` (its
    parameters traced, `pytree_node=False` fields static) and the call works (JAX 0.10.2), as
    for `@jax.tree_util.register_pytree_node_class`. A plain class's traced `self` raises
    TypeError on the first call: the negative twin, still reported."""
    assert_tiers("""
        import jax
        from flax import struct

        @struct.dataclass
        class StableVAE:
            params: dict

            @jax.jit
            def encode(self, x):
                return x * self.params["scale"]

        @jax.tree_util.register_pytree_node_class
        class Box:
            def __init__(self, w):
                self.w = w

            def tree_flatten(self):
                return (self.w,), None

            @classmethod
            def tree_unflatten(cls, aux, children):
                return cls(*children)

            @jax.jit
            def scale(self, x):
                return x * self.w

        class Plain:
            @jax.jit  # STG504
            def scale(self, x):
                return x * 2
    """)


def test_an_equinox_transformation_of_an_equal_function_rewrapped_by_filter_jit_traces_once():
    """vizier's `eqx.filter_jit(eqx.filter_vmap(model.setup))(keys)` made on every call:
    `eqx.filter_vmap` returns an `eqx.Module` holding the function and its options, equal to the
    last one made from an equal function, and `eqx.filter_jit` keys its traces by equality: one
    trace for every wrapper of a module-level function or of a bound method (equinox 0.13.8).
    The message's "each wrapper keeps its own traces" is false there: silent. The negative twin:
    an Equinox transformation of a nested def made anew is a new, unequal function each time, so
    each wrapper traces again (4 traces in 4 iterations), still reported."""
    assert_tiers("""
        import equinox as eqx
        import jax.numpy as jnp

        import gp

        def setup(key):
            return key * 2

        def train(spec, keys):
            model = gp.CoroutineWithData(spec.coroutine, keys)
            return eqx.filter_jit(eqx.filter_vmap(model.setup))(keys)

        def fit(spec, keys):
            for _ in range(3):
                train(spec, keys)

        class Fit:
            def run(self, model, keys):
                for _ in range(3):
                    eqx.filter_jit(eqx.filter_vmap(setup))(keys)
                    eqx.filter_jit(eqx.filter_grad(setup))(keys)
                return eqx.filter_jit(eqx.filter_vmap(model.setup, in_axes=0))(keys)

        def train(xs):
            for k in xs:
                def step(v):
                    return v * k
                eqx.filter_jit(eqx.filter_grad(step))(k)  # STG502
    """)


def test_a_jit_made_under_an_is_none_test_of_the_name_it_binds_is_made_once_per_loop():
    """algorithmic-efficiency's WMT `jitted_predict_step = None` before the batch loop, then
    `if jitted_predict_step is None: jitted_predict_step = jax.jit(self.predict_step, ...)`:
    the block binds the name it tests, so it runs on the first iteration only and every later
    batch reuses that wrapper's trace (Python's own semantics; `guards.resets_its_flag`). The
    negative twin: the loop sets the name back to None on every pass, so the block runs each
    time and each new bound-method wrapper traces again."""
    assert_tiers("""
        import jax

        class Workload:
            def predict_step(self, x):
                return x * 2

            def translate(self, batches):
                step = None
                for batch in batches:
                    if step is None:
                        step = jax.jit(self.predict_step)
                    step(batch)

            def translate_again(self, batches):
                for batch in batches:
                    step = None
                    if step is None:
                        step = jax.jit(self.predict_step)  # STG502
                    step(batch)
    """)


def test_a_loop_over_a_parameter_annotated_as_a_python_list_is_a_preview_guess():
    """JetStream's jitted `bulk_insert(self, prefix, state, slots: list[int])` with `for slot in
    slots:`: jit hands a list argument over as a Python list of its leaves (JAX 0.10.2), so the
    loop runs once per element, a count the argument's structure fixes, not "per row of a traced
    array"; only callers passing an array would make it one: the preview tier. The negative
    twin: the same loop over a parameter the body uses as an array (`xs.shape`) is reported."""
    assert_tiers("""
        import jax

        @jax.jit
        def bulk_insert(cache, slots: list[int]):
            for slot in slots:  # preview STG503
                cache = jax.lax.dynamic_update_slice_in_dim(cache, cache[:1], slot, axis=0)
            return cache

        @jax.jit
        def rows(cache, xs):
            total = xs.shape[0]
            for x in xs:  # STG503
                cache = cache + jax.numpy.sum(x) / total
            return cache
    """)


def test_metadata_keys_and_deletion_of_a_donated_pytree_read_no_array():
    """scenic's trainers after a donating step: `eval_batch['inputs'].shape`, `for k in
    batch.keys()`, `del train_batch['batch_mask']`, `batch['x'].delete()`. Donation deletes the
    pytree's arrays, not the dict; a deleted array keeps its metadata, and deleting it again is a
    no-op (JAX 0.10.2), so none of these reads data. The negative twin: reading an entry's data
    (`batch['label'].reshape(...)`, polyvit's true finding) raises RuntimeError: reported."""
    assert_tiers("""
        import functools
        import jax

        @functools.partial(jax.jit, donate_argnums=0)
        def step(batch):
            return {"x": batch["x"] + 1}

        def evaluate(batches):
            for batch in batches:
                out = step(batch)
                n = batch["inputs"].shape[0]
                names = [k for k in batch.keys()]
                del batch["batch_mask"]
                batch["x"].delete()

        def evaluate_labels(batches):
            for batch in batches:
                out = step(batch)
                labels = batch["label"].reshape(-1)  # STG203
    """)
