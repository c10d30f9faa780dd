"""Facts from the held-back halves' pooled readings still false at session 21's main (fresh JAX
code: bench/fresh_audit_notes.md, "The pooled JAX readings re-checked (session 21, jaxpool)"),
each with its negative twin. Runtime facts: tests/runtime/test_jax_pooled_readings_facts.py."""

from __future__ import annotations

from rulecases import assert_tiers


def test_stg502_a_wrapper_made_per_run_and_called_in_a_comprehension_traces_once_per_run():
    """A comprehension's element runs once per item, as a loop body does: a wrapper made once per
    run of its function and called in a comprehension there (`[float(step(m, x)) for x in xs]`)
    traces once per run, and the comprehension's later calls reuse that trace (JAX 0.10.2 / Flax
    0.12: 2 traces in 2 runs of 3 calls, `nnx.jit` and `jax.jit` alike), the same as a `for` loop
    of the run. Whether the runs stage one program again, or each another (a comparison over
    neuron models: one trace per model either way), is not shown: the preview tier. Twin: made
    and called once per run, with no loop or comprehension of its own, it traces on every run:
    the default tier."""
    assert_tiers("""
        import jax.numpy as jnp
        from flax import nnx

        def compare(make_layer, xs):
            model = make_layer()

            @nnx.jit  # preview STG502
            def step(m, x):
                return m(x).sum()

            return [float(step(model, x)) for x in xs]

        def score(make_layer, x):
            model = make_layer()

            @nnx.jit  # STG502
            def step(m, v):
                return m(v).sum()

            return float(step(model, x))

        def main(factories, xs):
            for make_layer in factories:
                compare(make_layer, xs)
                score(make_layer, xs[0])
    """)


def test_stg502_a_jit_in_a_comprehension_of_a_loop_iteration_traces_once_per_iteration():
    """A wrapper made per iteration of a loop and called in a comprehension inside it traces once
    per iteration (the comprehension's calls reuse it): still the default tier, with the message
    saying so."""
    from rulecases import findings

    got = findings("""
        import jax

        def mse(w, x):
            return ((x * w) ** 2).mean()

        def train(w, epochs, batches):
            for _ in range(epochs):
                step = jax.jit(lambda v: mse(v, 2.0))
                w = sum([step(x) for x in batches])
            return w

        train(1.0, 3, [1.0, 2.0])
    """, "STG502")
    assert len(got) == 1
    assert "the calls in the comprehension on line" in got[0].message


def test_stg502_a_configuration_the_loop_changes_item_by_item_may_be_another_program_each_iteration():
    """`for k, v in overrides.items(): config[k] = v` changes the configuration on each iteration
    as rebinding it would, so `jax.jit(jax.vmap(make_train(config)))` made there may be another
    program each time (a sweep run's overrides): the preview tier, as for a name the loop binds.
    Twins: the loop assigning an item the iteration does not give (`config["ran"] = True`: the
    same configuration each time), and a loop that changes nothing, stay default."""
    assert_tiers("""
        import jax

        def make_train(config):
            def train(key):
                return jax.random.normal(key, (config["N"],)) * config["LR"]
            return train

        def sweep(config, overrides, keys):
            for k, v in overrides.items():
                config[k] = v
                train = jax.jit(jax.vmap(make_train(config)))  # preview STG502
                train(keys)

        def repeat(config, overrides, keys):
            for k in overrides:
                config["ran"] = True
                train = jax.jit(jax.vmap(make_train(config)))  # STG502
                train(keys)

        def again(config, keys):
            for _ in range(3):
                train = jax.jit(jax.vmap(make_train(config)))  # STG502
                train(keys)
    """)
