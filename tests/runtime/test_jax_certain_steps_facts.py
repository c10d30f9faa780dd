"""The facts behind the per-step certainty of STG604, STG504 and STG502 under JAX
(tests/rules/test_jax_certain_steps.py), observed with the real JAX (and equinox)."""

from __future__ import annotations

import functools
import inspect

import numpy as np
import pytest

jax = pytest.importorskip("jax")
jnp = jax.numpy


def _translate(image, shift):
    return jnp.zeros_like(image).at[:, shift:].set(image[:, :-shift])


def test_vmap_passes_an_in_axes_none_argument_as_it_is_so_what_is_computed_from_it_is_concrete():
    """`jaxstaging.given_traced_params`: vmap hands only its mapped arguments tracers; an
    unbatched key's draw is a concrete array, so a helper slicing by it works (serket)."""
    seen = []

    def random_translate(key, image):
        shift = jax.random.randint(key, shape=(), minval=1, maxval=3)
        seen.append(isinstance(shift, jax.core.Tracer))
        return _translate(image, shift)

    out = jax.vmap(random_translate, in_axes=(None, 0))(jax.random.key(0), jnp.ones((2, 3, 4)))
    assert out.shape == (2, 3, 4) and seen == [False]
    out = jax.vmap(_translate, in_axes=(0, None))(jnp.ones((2, 3, 4)), 1)
    assert out.shape == (2, 3, 4)


def test_jit_and_a_mapped_vmap_argument_hand_the_function_tracers_so_a_slice_by_them_fails():
    """The negative twin: the parameters a transformation is given are tracers (an int too)."""
    with pytest.raises(IndexError):
        jax.jit(lambda x, n: x[:n])(jnp.ones(4), 2)
    with pytest.raises(IndexError):
        jax.vmap(lambda r, k: r[:k])(jnp.ones((2, 4)), jnp.array([1, 2]))
    with pytest.raises(IndexError):  # the helper of a jitted function gets what jit made
        jax.jit(lambda key, image: _translate(image, jax.random.randint(key, (), 1, 3)))(
            jax.random.key(0), jnp.ones((3, 4)))


def _with_summary(f):
    """A wrapper that sets `__signature__` (learned_optimization's `add_with_summary`)."""
    def wrapper(*args, with_summary=False, **kwargs):
        return f(*args, **kwargs), with_summary

    sig = inspect.signature(f)
    wrapper.__signature__ = sig.replace(parameters=[*sig.parameters.values(), inspect.Parameter(
        "with_summary", inspect.Parameter.KEYWORD_ONLY, default=False)])
    return wrapper


def test_jit_checks_static_argnames_against_the_signature_of_what_it_is_given():
    """STG504's `_rewrapped`: a wrapper's `__signature__` makes the name valid; the def itself,
    or under `functools.lru_cache` (its signature followed through `__wrapped__`), makes it a
    ValueError where jit wraps it."""
    loss = jax.jit(_with_summary(lambda p: p * 2), static_argnames="with_summary")
    out, flag = loss(1.0, with_summary=True)
    assert float(out) == 2.0 and bool(flag)
    with pytest.raises(ValueError, match="invalid argnames"):
        jax.jit(lambda p: p * 2, static_argnames="with_summary")
    with pytest.raises(ValueError, match="invalid argnames"):
        jax.jit(functools.lru_cache(maxsize=None)(lambda p: p * 2), static_argnames="with_summary")


def test_a_jitted_method_of_a_flax_struct_dataclass_traces_self_as_a_pytree():
    """STG504's `_PYTREE_DECORATORS`: the decorator registers the class, so a traced `self`
    works; a plain class's `self` cannot be traced (the negative twin)."""
    struct = pytest.importorskip("flax.struct")

    @struct.dataclass
    class Scaled:
        params: dict
        name: str = struct.field(pytree_node=False, default="vae")

        @jax.jit
        def encode(self, x):
            return x * self.params["scale"]

    assert float(Scaled({"scale": jnp.float32(3.0)}).encode(2.0)) == 6.0

    class Plain:
        @jax.jit
        def encode(self, x):
            return x * 2

    with pytest.raises(TypeError):
        Plain().encode(2.0)


def test_eqx_filter_jit_reuses_traces_for_an_equinox_transformation_of_an_equal_function():
    """`frameworks.EQUINOX_EQUAL_WRAPPERS`: `eqx.filter_vmap(f)` / `eqx.filter_grad(f)` made anew
    around the same function, or around an equal Module's bound method, are equal, so
    `eqx.filter_jit` traces once; around a lambda made anew, once per wrap."""
    eqx = pytest.importorskip("equinox")
    count = {"vmap": 0, "grad": 0, "method": 0, "lambda": 0}

    def f(x):
        count["vmap"] += 1
        return x * 2

    def loss(x):
        count["grad"] += 1
        return jnp.sum(x ** 2)

    class Model(eqx.Module):
        w: jax.Array

        def setup(self, x):
            count["method"] += 1
            return self.w * x

    def bump(x):
        count["lambda"] += 1
        return x

    for _ in range(4):
        eqx.filter_jit(eqx.filter_vmap(f))(jnp.ones((2, 3)))
        eqx.filter_jit(eqx.filter_grad(loss))(jnp.ones(3))
        eqx.filter_jit(eqx.filter_vmap(Model(jnp.ones(3)).setup))(jnp.ones((2, 3)))
        eqx.filter_jit(eqx.filter_vmap(lambda x: bump(x)))(jnp.ones((2, 3)))

        def step(x):
            return loss(x)

        eqx.filter_jit(eqx.filter_grad(step))(jnp.ones(3))
    assert count == {"vmap": 1, "grad": 5, "method": 1, "lambda": 4}


def test_jit_hands_a_list_argument_over_as_a_list_of_its_leaves():
    """STG503's preview step for a `list[int]` parameter: the loop runs once per element of the
    list jit rebuilds (a count fixed by the structure, one trace per length), not over an array's
    rows; an array argument arrives as one tracer."""
    seen = []

    @jax.jit
    def bulk_insert(cache, slots):
        seen.append(type(slots).__name__)
        for slot in slots:
            cache = jax.lax.dynamic_update_slice_in_dim(cache, cache[:1], slot, axis=0)
        return cache

    bulk_insert(jnp.arange(4.0), [1, 2])
    bulk_insert(jnp.arange(4.0), [3, 0])  # same structure: the trace is reused
    assert seen == ["list"]
    bulk_insert(jnp.arange(4.0), jnp.array([1, 2]))
    assert seen[1] != "list" and len(seen) == 2


def test_donation_deletes_a_pytrees_arrays_and_leaves_their_metadata_and_the_dict():
    """STG203's `frameworks.JAX_DONATED_METADATA` and `_entry_of`: after a donating call the entries are deleted, their
    shape and dtype still answer, `.delete()` again is a no-op, the dict's keys and `del` work;
    reading an entry's data raises (the negative twin)."""
    step = jax.jit(lambda d: {"x": d["x"] + 1, "y": d["y"] * 2}, donate_argnums=0)
    batch = {"x": jnp.ones(3), "y": jnp.ones(3)}
    step(batch)
    assert batch["x"].is_deleted()
    assert batch["x"].shape == (3,) and batch["x"].dtype == jnp.float32 and list(batch.keys()) == ["x", "y"]
    batch["x"].delete()
    del batch["y"]
    assert list(batch) == ["x"]
    with pytest.raises(RuntimeError, match="deleted"):
        batch["x"].reshape(3, 1)


def test_jit_serves_every_wrap_of_one_function_object_from_one_trace_whatever_its_options():
    """STG502 under JAX: `jax.jit(_shard, out_shardings=s)` at several lines of one run wraps one
    object, traced once (EasyDeL's sequential_init); the next run's nested def is a new object,
    traced again. Two lambdas are two objects: each traces."""
    from jax.sharding import Mesh, NamedSharding, PartitionSpec

    traces = []
    mesh = Mesh(np.array(jax.devices()), ("d",))

    def run():
        def _shard(v):
            traces.append("shard")
            return v * 1

        x = jnp.ones(4)
        jax.jit(_shard, out_shardings=NamedSharding(mesh, PartitionSpec()))(x)
        jax.jit(_shard, out_shardings=NamedSharding(mesh, PartitionSpec()))(x)
        jax.jit(_shard)(x)
        jax.jit(lambda v: (traces.append("lambda"), v)[1])(x)
        jax.jit(lambda v: (traces.append("lambda"), v)[1])(x)

    run()
    assert traces == ["shard", "lambda", "lambda"]
    run()
    assert traces.count("shard") == 2


def test_a_wrapper_of_nothing_but_module_level_names_stages_the_same_program_each_time_it_is_made():
    """STG502's known part under JAX (`analysis.functions.closure_names` empty): the lambda made
    on each call of `gather` reads only JAX, so every call traces the same program again: the
    jaxpr is identical, the trace is new. A wrapper over the call's own value (`scale`) stages
    another program per value: nothing a cache could have served."""
    traced = []

    def gather(x):
        return jax.jit(lambda v: (traced.append("gather"), jnp.sum(v))[1])(x)

    def scaled(x, scale):
        return jax.jit(lambda v: (traced.append("scaled"), v * scale)[1])(x)

    for _ in range(3):
        gather(jnp.ones(3))
    assert traced.count("gather") == 3
    programs = {str(jax.make_jaxpr(lambda v: jnp.sum(v))(jnp.ones(3))) for _ in range(3)}
    assert len(programs) == 1
    assert str(jax.make_jaxpr(lambda v: v * 2)(jnp.ones(3))) != str(jax.make_jaxpr(lambda v: v * 3.5)(jnp.ones(3)))
    scaled(jnp.ones(3), 2)
    scaled(jnp.ones(3), 3.5)
    assert traced.count("scaled") == 2


def test_lowering_or_tracing_a_donating_function_donates_nothing_and_calling_it_does():
    """`frameworks.JAX_ABSTRACT_USES`: `f.lower(x)`, `f.trace(x)` and `jax.eval_shape(f, x)` read
    only shapes and dtypes, so a donated `x` stays alive; calling `f(x)` deletes it (the twin)."""
    step = jax.jit(lambda x: x * 2, donate_argnums=0)
    x = jnp.ones(3)
    step.lower(x)
    step.trace(x)
    jax.eval_shape(step, x)
    assert not x.is_deleted()
    step(x)
    assert x.is_deleted()


def test_a_jax_array_is_not_hashable_and_a_tuple_of_ints_is():
    """`frameworks.JAX_ARRAY_CONSTRUCTORS` and `UNHASHABLE_BUILTINS`: as a static argument an
    array or a list fails to hash (jax-behaviour.md row 31); a tuple of ints is hashed by value
    (the twin)."""
    scale = jax.jit(lambda x, k: x * len(k), static_argnums=1)
    for bad in (jnp.zeros(2), jnp.arange(2), [1, 2]):
        with pytest.raises((TypeError, ValueError), match="hash"):
            scale(jnp.ones(2), bad)
    assert scale(jnp.ones(2), (1, 2)).tolist() == [2.0, 2.0]


def test_numpy_arrays_dicts_sets_and_plain_dataclasses_are_not_hashable_static_arguments():
    """`frameworks.UNHASHABLE_KINDS` and `DATACLASS_DECORATORS`: a NumPy array, a dict, a set and
    an instance of a `@dataclass` (which sets `__hash__` to None) fail as a static argument; a
    frozen dataclass's instance is hashed by value (the twin)."""
    import dataclasses

    @dataclasses.dataclass
    class Plain:
        n: int = 2

    @dataclasses.dataclass(frozen=True)
    class Frozen:
        n: int = 2

    scale = jax.jit(lambda x, k: x * 2, static_argnums=1)
    for bad in (np.zeros(2), {"a": 1}, {1, 2}, Plain()):
        with pytest.raises((TypeError, ValueError), match="hash"):
            scale(jnp.ones(2), bad)
    assert scale(jnp.ones(2), Frozen()).tolist() == [2.0, 2.0]


def test_a_donated_numpy_array_or_python_value_stays_readable():
    """`frameworks.JAX_NOT_DONATED_KINDS`: a NumPy array or a Python number handed to a donating
    argument is copied to the device for the call, and the caller's object stays readable; a
    jax.Array is deleted (the twin)."""
    step = jax.jit(lambda x: x * 2, donate_argnums=0)
    host = np.ones(2)
    step(host)
    assert host.tolist() == [1.0, 1.0]
    number = 3.0
    assert float(step(number)) == 6.0 and number == 3.0
    device = jnp.ones(2)
    step(device)
    assert device.is_deleted()
