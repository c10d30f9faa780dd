"""The facts the thirteenth JAX audit's classes rest on, observed with the real JAX (0.10.2):
a jit made only when a memo lacks its key is one object per key, and every later call with that
key reuses its trace; a memoized factory (`functools.lru_cache`) returns the same jitted object
for equal arguments, so calling it in a loop traces once, where a plain factory traces per call;
a jit per configuration whose closed-over configuration changes structure traces once per
configuration whether it is made per iteration or once before the loop (taking the
configuration as an argument)."""

from __future__ import annotations

import functools

import pytest

jax = pytest.importorskip("jax")
jnp = jax.numpy


def test_a_jit_built_on_a_memo_miss_traces_once_per_key():
    traces = []
    cache = {}

    def reshard(x, key):
        fn = cache.get(key)
        if fn is None:
            def ident(a):
                traces.append(key)
                return a * key
            fn = jax.jit(ident)
            cache[key] = fn
        return fn(x)

    def reshard_in(x, key):
        if key not in cache:
            cache[key] = jax.jit(lambda a: (traces.append(key), a + key)[1])
        return cache[key](x)

    for key in (1, 2, 1, 2, 1):
        reshard(jnp.ones(3), key)
    assert traces == [1, 2]
    cache.clear()
    traces.clear()
    for key in (3, 3, 4):
        reshard_in(jnp.ones(3), key)
    assert traces == [3, 4]


def test_a_memoized_factory_returns_one_jit_per_key():
    traces = []

    @functools.lru_cache(maxsize=None)
    def make(n):
        @jax.jit
        def step(a):
            traces.append(n)
            return a + n
        return step

    def make_plain(n):
        @jax.jit
        def step(a):
            traces.append(-n)
            return a + n
        return step

    for _ in range(3):
        make(3)(jnp.ones(2))
        make_plain(3)(jnp.ones(2))
    assert traces.count(3) == 1 and traces.count(-3) == 3


class _Model:
    """A plain class (no pytree), as MPS-GD-JAX's TFIModel: `g` a Python float."""

    def __init__(self, g):
        self.g = g

    def energy(self, psi):
        return jnp.sum(psi) * self.g


def test_a_new_model_object_per_configuration_is_a_new_trace_either_way():
    """A jit made per configuration closing over that configuration's model object traces once
    per configuration and its inner loop reuses the trace; one jit made before the loop taking
    the model as a static argument (a plain object hashes by identity) traces once per
    configuration as well: the model's Python values are part of the program."""
    traces = []
    psi = jnp.ones(4)
    for g in (0.5, 1.0, 1.5):
        model = _Model(g)

        @jax.jit
        def loss(p):
            traces.append("per")
            return model.energy(p)

        for _ in range(5):
            loss(psi)
    assert traces.count("per") == 3

    @functools.partial(jax.jit, static_argnums=0)
    def hoisted(model, p):
        traces.append("hoisted")
        return model.energy(p)

    for g in (0.5, 1.0, 1.5):
        model = _Model(g)
        for _ in range(5):
            hoisted(model, psi)
    assert traces.count("hoisted") == 3


def test_a_value_made_of_another_number_of_items_is_another_program_hoisted_too():
    """What the slice step guesses: a pytree built from `items[:M]` (one leaf per item) has another
    structure for every M, so one jitted function taking it as an argument traces once per M, as
    many times as a jit made per iteration closing over it; built so that the structure stays
    (a sum over the items), one hoisted jit would trace once: which one a project function does
    is what the code does not show."""
    items = [jnp.full(3, float(i)) for i in range(10)]
    traces = []

    @jax.jit
    def hoisted(cfg, px):
        traces.append(len(cfg))
        return sum(jnp.sum(c) for c in cfg) * px

    for m in (1, 2, 5):
        cfg = list(items[:m])
        for _ in range(3):
            hoisted(cfg, 1.0)
    assert traces == [1, 2, 5]

    traces.clear()

    @jax.jit
    def kept(total, px):
        traces.append("kept")
        return total * px

    for m in (1, 2, 5):
        total = sum(items[:m])
        kept(total, 1.0)
    assert traces == ["kept"]
