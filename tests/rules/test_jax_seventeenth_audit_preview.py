"""Python values under a JAX transformation: the seventeenth audit's preview classes (halves BL
and BK) as facts, each with its positive test and its negative twin. STG601, STG602 and STG604 are
preview rules under JAX, so the snippets are checked with `--preview`. Behaviour checked with JAX
0.10.2 and Flax in tests/runtime/test_jax_seventeenth_audit_facts.py."""

from __future__ import annotations

from rulecases import assert_marked


def test_a_default_no_jitted_call_passes_is_the_python_default():
    """BL (johnviljoen/262b_project): `def l(z, nx=nx, N=N)` under `obj = jit(l)`, called
    `obj(z)`; the eager `l(z, 3, 10)` beside it does not go through the jit. The twins: a
    jitted call that passes the parameter, a decorated function whose call passes it, and a jit
    called in place (`jax.jit(inline)(z, 5)`: no call site shows what it passes)."""
    assert_marked("""
    import jax
    import jax.numpy as jnp

    nx, N = 3, 10

    def l(z, nx=nx, N=N):
        x = z[:N * nx]
        return jnp.sum(x ** 2)

    obj = jax.jit(l)
    l(jnp.ones(30), 3, 10)
    obj(jnp.ones(30))

    def g(z, n=N):
        return jnp.sum(z[:n])  # STG604

    gj = jax.jit(g)
    gj(jnp.ones(30), 5)

    @jax.jit
    def h(z, n=N):
        return jnp.sum(z[:n])  # STG604

    h(jnp.ones(30), 4)

    @jax.jit
    def k(z, n=N):
        return jnp.sum(z[:n])

    k(jnp.ones(30))

    def inline(z, n=N):
        return jnp.sum(z[:n])  # STG604

    jax.jit(inline)(jnp.ones(30), 5)
    """, preview=True)


def test_nnx_value_and_grad_hands_a_closed_over_config_on_as_python():
    """BL (saamur/MARL-CER): `ppo_loss(network, ..., config)` under `nnx.value_and_grad` (argnums
    0) in an `nnx.jit` step that closes over `config`: its ints and bools are Python. The twin:
    an `nnx.jit` step given `config` as an argument traces it. (As under `jax.grad`, an argument
    not differentiated is the caller's value: where a jitted caller passes its own traced
    `config` on, the model does not follow it: silence, not a finding.)"""
    assert_marked("""
    import jax.numpy as jnp
    from flax import nnx

    def loss(model, x, config):
        y = model(x)[:config["K"]]
        if config["NORMALIZE"]:
            y = y / 2
        return (y ** 2).sum()

    def train(model, x, config):
        @nnx.jit
        def step(model, x):
            value, grads = nnx.value_and_grad(loss)(model, x, config)
            return value
        return step(model, x)

    @nnx.jit
    def traced_step(model, x, config):
        y = model(x)[:config["K"]]  # STG604
        return (y ** 2).sum()
    """, preview=True)


def test_int_of_a_struct_field_not_a_pytree_node_is_a_python_int():
    """BL (montrealrobotics/perpetua-code): `int(state.num_steps)` of a `struct.field(pytree_node=
    False)` under `jax.jit`. The twin: `int()` of an ordinary field, a child, a tracer."""
    assert_marked("""
    import jax
    import jax.numpy as jnp
    from flax import struct

    @struct.dataclass
    class State:
        t: float
        num_steps: int = struct.field(pytree_node=False)

    @jax.jit
    def update(state: State):
        times = jnp.linspace(0.0, 1.0, int(state.num_steps))
        return times * int(state.t)  # STG601
    """, preview=True)
