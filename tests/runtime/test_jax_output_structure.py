"""What `frameworks.JAX_GRAD_SHAPED_LIKE_ARGUMENT` states, observed with the real JAX: `jax.grad`'s
result has the pytree structure of the argument it differentiates (a list of per-layer tuples
gives a list of tuples, a dict a dict, an array an array), and a jitted function returns the
structure its Python returns (a list stays a list), so a `for` over such a result iterates a
Python container, not an array's rows."""

from __future__ import annotations

import pytest

jax = pytest.importorskip("jax")
jnp = jax.numpy


def _total(params):
    return sum(jnp.sum(w) for layer in params for w in layer)


def test_grad_of_a_list_of_layers_is_a_list_of_layers():
    params = [(), [jnp.ones((2, 2)), jnp.zeros(2)]]
    grads = jax.grad(_total)(params)
    assert type(grads) is list and type(grads[0]) is tuple and type(grads[1]) is list
    assert type(jax.grad(lambda p: jnp.sum(p["w"]))({"w": jnp.ones(2)})) is dict
    assert isinstance(jax.grad(lambda x: jnp.sum(x * x))(jnp.ones(3)), jax.Array)


def test_a_jitted_function_returns_the_structure_its_python_returns():
    @jax.jit
    def init(x):
        out = []
        for _ in range(2):
            out.append([x, x + 1])
        out.append(())
        return out

    got = init(jnp.ones(2))
    assert type(got) is list and type(got[0]) is list and type(got[2]) is tuple
    # and so under jit too: the loop over the grad of it runs once per layer
    @jax.jit
    def layers(x):
        grads = jax.grad(_total)(init(x))
        return len(grads)

    assert layers(jnp.ones(2)) == 3


def test_grad_with_aux_is_a_pair():
    out = jax.grad(lambda x: (jnp.sum(x * x), {"n": 1}), has_aux=True)(jnp.ones(3))
    assert type(out) is tuple and len(out) == 2


def test_scan_loops_and_vmap_return_the_structure_the_code_spells():
    """`frameworks.JAX_OUTPUT_STRUCTURE`: `lax.scan` returns the tuple `(carry, ys)`, ys of the
    structure the body returns second (a list of per-agent values stays a list, each leaf
    stacked); `fori_loop` / `while_loop` the structure of `init`; `lax.map` and a vmapped
    function the structure their function returns. Under jit too: a `for` over such a list runs
    once per element."""
    def body(carry, x):
        return carry, [x, x + 1]

    out = jax.lax.scan(body, jnp.zeros(2), jnp.ones((5, 2)))
    assert type(out) is tuple and len(out) == 2
    _, ys = out
    assert type(ys) is list and len(ys) == 2 and ys[0].shape == (5, 2)
    init = [jnp.zeros(2), jnp.ones(2)]
    assert type(jax.lax.fori_loop(0, 3, lambda i, c: [c[0] + 1, c[1]], init)) is list
    assert type(jax.lax.while_loop(lambda c: c[0][0] < 3, lambda c: [c[0] + 1, c[1]], init)) is list
    assert type(jax.lax.map(lambda x: [x, x * 2], jnp.ones((4, 2)))) is list
    mapped = jax.vmap(lambda x: [x, x * 2])(jnp.ones((4, 2)))
    assert type(mapped) is list and mapped[0].shape == (4, 2)
    # and the stacked arrays' case: ys is an array, iterated over its rows
    _, rows = jax.lax.scan(lambda c, x: (c, c + x), jnp.zeros(2), jnp.ones((5, 2)))
    assert isinstance(rows, jax.Array) and rows.shape == (5, 2)

    @jax.jit
    def count(x):
        _, ys = jax.lax.scan(body, x, jnp.ones((5, 2)))
        return len([y for y in ys])

    assert count(jnp.zeros(2)) == 2


def test_a_wrapped_function_or_callable_object_returns_its_python_structure():
    """`frameworks.JAX_WRAPPED_OUTPUT_STRUCTURE`: `jax.jit`, `vmap`, `pmap`, `checkpoint`, `remat`
    and equinox's `filter_jit` / `filter_vmap` of a function, or of a callable object (its
    `__call__`), returning `(list, dict)` give that list and dict, each of its own arrays (the
    per-head shapes differ: no one array could hold them); a function returning two arrays gives two
    arrays, whose `for` runs over rows."""
    eqx = pytest.importorskip("equinox")

    def heads(x):
        preds = []
        for k in (1, 2):
            preds.append(x[:k])
        return preds, {"x": x}

    class Multi:
        def __call__(self, x):
            return heads(x)

    def pair(x):
        return x * 2, x + 1

    x = jnp.ones((1, 4))
    for transform in (jax.jit, jax.vmap, jax.pmap, jax.checkpoint, jax.remat, eqx.filter_jit, eqx.filter_vmap):
        for f in (heads, Multi()):
            preds, rest = transform(f)(x)
            assert type(preds) is list and len(preds) == 2 and type(rest) is dict
        a, b = transform(pair)(x)
        assert isinstance(a, jax.Array) and isinstance(b, jax.Array)


def test_cond_and_switch_return_the_structure_their_branches_return():
    """`frameworks.JAX_BRANCH_OUTPUT`: a branch returning its operand (`lambda x: x`) makes the
    cond's result the operand's structure (a list of layers stays a list, under jit too, where a
    `for` over it runs once per layer); every branch must return one structure, else TypeError
    while tracing; a scan's carry has the structure of its `init` (the same check)."""
    layers = [{"w": jnp.ones((2, 2))}, {"w": jnp.ones((2, 3))}]
    out = jax.lax.cond(jnp.array(True), lambda x: x, lambda x: jax.lax.stop_gradient(x), layers)
    assert type(out) is list and len(out) == 2

    @jax.jit
    def count(pred, layers):
        chosen = jax.lax.cond(pred, lambda x: x, lambda x: jax.lax.stop_gradient(x), layers)
        return sum(1 for _ in chosen)

    assert count(True, layers) == 2

    def ident(x):
        return x

    assert type(jax.lax.switch(1, [ident, jax.lax.stop_gradient], layers)) is list
    assert type(jax.lax.cond(True, lambda a, b: b, lambda a, b: b, jnp.ones(2), [jnp.ones(1)])) is list
    with pytest.raises(TypeError, match="same pytree structure"):
        jax.lax.cond(True, lambda x: x, lambda x: tuple(x), layers)
    with pytest.raises(TypeError, match="same pytree structure"):
        jax.lax.switch(0, [lambda x: x, lambda x: x[0]], layers)
    carry, _ = jax.lax.scan(lambda c, x: (c, x), [jnp.ones(2), jnp.ones(3)], jnp.arange(3))
    assert type(carry) is list
    with pytest.raises(TypeError, match="same pytree structure"):
        jax.lax.scan(lambda c, x: (tuple(c), x), [jnp.ones(2), jnp.ones(3)], jnp.arange(3))


def test_a_vmapped_multi_discriminator_handed_over_as_a_parameter_returns_its_list():
    """The fourteenth audit's AY1 (XTTS-for-JAX's GAN loss): the discriminator reaches the loss
    function as a parameter, `fake_pred, _ = jax.vmap(disc)(y)` is the list its `__call__` returns
    (one prediction per sub-discriminator, each of its own shape), under `eqx.filter_value_and_grad`
    and jit too, and `for fake in fake_pred` runs once per sub-discriminator, not per row."""
    eqx = pytest.importorskip("equinox")

    class MultiDiscriminator(eqx.Module):
        periods: tuple = eqx.field(static=True, default=(2, 3, 5))

        def __call__(self, x):
            preds, fmaps = [], []
            for p in self.periods:
                pred = x[: x.shape[0] // p * p].reshape(-1, p).sum(axis=1)
                preds.append(pred)
                fmaps.append(pred * 2)
            return preds, fmaps

    steps = []

    @eqx.filter_value_and_grad
    def loss(y, disc):
        fake_pred, _ = jax.vmap(disc)(y)
        assert type(fake_pred) is list
        total = 0.0
        for fake in fake_pred:
            steps.append(fake.shape)
            total += jnp.mean((fake - 1) ** 2)
        return total

    value, _ = eqx.filter_jit(loss)(jnp.ones((4, 30)), MultiDiscriminator())
    assert len(steps) == 3 and steps[0] == (4, 15) and steps[1] == (4, 10)
