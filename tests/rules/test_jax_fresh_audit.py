"""Issue 23, the second fresh JAX audit (bench/fresh_repos_jax2.txt, half C's verdicts in
bench/fresh_verdicts_C_before.csv): each false-positive class as the framework fact it follows,
with its positive twin. Behaviour checked with JAX 0.10.2 and optax in this venv
(tests/runtime/test_jax_fresh_facts.py runs the same code)."""

from __future__ import annotations

from rulecases import assert_marked


def test_a_bound_update_result_is_an_optax_update_not_a_dict_mutation():
    """mesh-transformer-jax: `updates, new_opt_state = optimizer.update(grads, state, params)` in
    one jitted function made the optimizer a closure variable "mutated in `train`" for another.
    `dict.update`, `list.append` and the other in-place methods return None, so code that binds
    the result calls another object's method (optax's `GradientTransformation.update` returns the
    updates and a new state and changes nothing); a bare `config.update({...})` statement still
    changes the dict the other Function baked in."""
    assert_marked("""
        import jax

        def make(settings):
            optimizer = settings["optimizer"]
            config = {"scale": 1.0}

            @jax.jit
            def init(params):
                return optimizer.init(params)

            @jax.jit
            def train(grads, state, params):
                updates, new_state = optimizer.update(grads, state, params)
                return updates, new_state

            @jax.jit
            def scale(x):
                return x * config["scale"]  # STG301

            for step in range(3):
                scale(1.0)
                config.update({"scale": step})
            return init, train, scale
    """)


def test_a_global_set_and_put_back_in_the_call_is_no_lost_update():
    """dreamerv3: `old = nn.LAYER_CALLBACK; nn.LAYER_CALLBACK = make(...); ...;
    nn.LAYER_CALLBACK = old` in a jitted function. After any call, traced or not, the module
    attribute holds what it held before (JAX 0.10.2: the layers see the new callback while
    tracing; `nn.LAYER_CALLBACK` is the old one after each call), so no later call misses a
    change. Set without putting back, it is the lost update STG102 reports."""
    assert_marked("""
        import jax
        import nets as nn

        @jax.jit
        def scoped(x):
            old = nn.LAYER_CALLBACK
            nn.LAYER_CALLBACK = lambda y, name: y
            y = nn.layer(x)
            nn.LAYER_CALLBACK = old
            return y

        @jax.jit
        def leaves_it_set(x):
            old = nn.LAYER_CALLBACK
            nn.LAYER_CALLBACK = lambda y, name: y  # STG102
            return nn.layer(x) + len(str(old))
    """)


def test_a_binding_in_one_branch_does_not_reach_a_read_in_the_other():
    """jwave's `simulate_wave_propagation`: `if u0 is None: u0 = pml_u.replace_params(jnp.zeros(shape))
    else: assert u0.dim == len(N)`. The `else` reads the parameter as the caller passed it (here
    never: JAX 0.10.2 runs it under jit), not the array the other branch makes; after the `if`,
    both reach, and `if u0.sum() > 0` on the array made under jit is a tracer
    (TracerBoolConversionError). In a loop, an earlier turn's binding reaches the other branch."""
    assert_marked("""
        import jax
        import jax.numpy as jnp

        def simulate(x, u0=None):
            if u0 is None:
                u0 = jnp.zeros(3)
            else:
                assert u0.dim == 3
            return x + 1

        def simulate2(x, u0=None):
            if u0 is None:
                u0 = jnp.zeros(3)
            if u0.sum() > 0:  # STG602
                return x
            return -x

        def simulate3(x, u0=None):
            for _ in range(2):
                if u0 is None:
                    u0 = jnp.zeros(3)
                else:
                    assert u0.sum() > 0  # STG602
            return x

        @jax.jit
        def run(x):
            return simulate(x) + simulate2(x) + simulate3(x)
    """)
