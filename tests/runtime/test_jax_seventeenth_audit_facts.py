"""The seventeenth JAX audit's preview classes (halves BL and BK), observed with the real JAX
(0.10.2) and Flax: what stays a Python value under a transformation. Static twins:
tests/rules/test_jax_seventeenth_audit_preview.py.

* A parameter with a default that the call through `jax.jit` does not pass is bound by Python to
  the default object itself: a module int stays an int (`z[:N]` is a static slice, `range(N)`
  works), also under `jax.grad` inside the jit; passed, it is a tracer
  (`JaxView.unpassed_defaults`; johnviljoen/262b_project's IPOPT costs `def l(z, nx=nx, N=N)`).
* `flax.nnx.value_and_grad(f)` differentiates its `argnums` (the first) and hands the other
  arguments on as given: a closed-over config dict's ints and bools stay Python under `nnx.jit`;
  the same dict passed to the `nnx.jit` function is traced, leaf by leaf
  (`frameworks.JAX_DIFFERENTIATES_ARGNUMS`; saamur/MARL-CER's `ppo_loss(network, ..., config)`).
* A `flax.struct` field declared `struct.field(pytree_node=False)` is aux data: `int(state.n)`
  works under `jax.jit`; an ordinary field is a child, a tracer, and `int()` of it raises
  (perpetua-code's `int(state.num_steps)`).
"""

from __future__ import annotations

import pytest

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")

N = 3


def test_a_default_the_jitted_call_does_not_pass_is_the_python_default():
    seen = {}

    def cost(z, n=N, x0=jnp.ones(2)):
        seen["n"], seen["x0"] = type(n), type(x0)
        for _ in range(n - 1):
            z = z * 1.0
        return z[:n * 2].sum() + x0.sum()

    assert float(jax.jit(cost)(jnp.arange(10.0))) == 17.0
    assert seen["n"] is int and not isinstance(seen["x0"], jax.core.Tracer)
    assert jax.jit(jax.grad(jax.jit(cost)))(jnp.arange(10.0)).shape == (10,)
    assert seen["n"] is int


def test_a_default_the_jitted_call_passes_is_a_tracer():
    seen = {}

    def cost(z, n=N):
        seen["n"] = n
        return z[:n * 2].sum()

    with pytest.raises(IndexError):
        jax.jit(cost)(jnp.arange(10.0), 2)
    assert isinstance(seen["n"], jax.core.Tracer)


nnx = pytest.importorskip("flax.nnx")


class _Model(nnx.Module):
    def __init__(self, rngs):
        self.dense = nnx.Linear(3, 2, rngs=rngs)

    def __call__(self, x):
        return self.dense(x)


def _loss(seen):
    def loss(model, x, config):
        seen["k"], seen["normalize"] = config["K"], config["NORMALIZE"]
        y = model(x)[:config["K"]]
        if config["NORMALIZE"]:
            y = y / 2
        return (y ** 2).sum()
    return loss


def test_nnx_value_and_grad_hands_a_closed_over_config_dict_on_as_python_values():
    seen, config = {}, {"K": 1, "NORMALIZE": True}
    loss = _loss(seen)

    @nnx.jit
    def step(model, x):
        value, _ = nnx.value_and_grad(loss)(model, x, config)
        return value

    step(_Model(nnx.Rngs(0)), jnp.ones((4, 3)))
    assert seen["k"] == 1 and type(seen["k"]) is int and seen["normalize"] is True


def test_a_config_dict_passed_to_nnx_jit_is_traced_leaf_by_leaf():
    seen, config = {}, {"K": 1, "NORMALIZE": True}
    loss = _loss(seen)

    @nnx.jit
    def step(model, x, config):
        return nnx.grad(loss)(model, x, config)

    with pytest.raises(IndexError):
        step(_Model(nnx.Rngs(0)), jnp.ones((4, 3)), config)
    assert isinstance(seen["k"], jax.core.Tracer)


struct = pytest.importorskip("flax.struct")


@struct.dataclass
class _State:
    t: float
    num_steps: int = struct.field(pytree_node=False)


def test_int_of_a_struct_field_declared_not_a_pytree_node_works_under_jit():
    @jax.jit
    def update(state):
        return jnp.linspace(0.0, state.t, int(state.num_steps))

    assert update(_State(t=1.0, num_steps=4)).shape == (4,)


def test_int_of_an_ordinary_struct_field_raises_under_jit():
    @jax.jit
    def update(state):
        return int(state.t)

    with pytest.raises(jax.errors.ConcretizationTypeError):
        update(_State(t=1.0, num_steps=4))
