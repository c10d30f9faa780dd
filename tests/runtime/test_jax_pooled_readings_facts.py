"""The facts behind tests/rules/test_jax_pooled_readings.py, observed with the real JAX and Flax by
counting traces (bench/fresh_audit_notes.md, "The pooled JAX readings re-checked (session 21,
jaxpool)")."""

from __future__ import annotations

import pytest

jax = pytest.importorskip("jax")
jnp = jax.numpy


def test_a_wrapper_made_per_run_and_called_in_a_comprehension_traces_once_per_run():
    traces = []

    def run():
        step = jax.jit(lambda x: (traces.append(1), x * 2)[1])
        return [step(jnp.float32(i)) for i in range(3)]

    run()
    run()
    assert len(traces) == 2  # one per run: the comprehension's later calls reuse it


def test_an_nnx_jit_made_per_run_in_a_comprehension_traces_once_per_run_and_per_model_anyway():
    nnx = pytest.importorskip("flax.nnx")
    traces = []

    def run(make):
        model = make()

        @nnx.jit
        def step(m, x):
            traces.append(1)
            return m(x).sum()

        return [float(step(model, jnp.ones((2, 3)))) for _ in range(3)]

    makers = (lambda: nnx.Linear(3, 4, rngs=nnx.Rngs(0)), lambda: nnx.Linear(3, 5, rngs=nnx.Rngs(0)))
    for make in makers:
        run(make)
    assert len(traces) == 2  # one per run

    traces.clear()

    @nnx.jit
    def hoisted(m, x):
        traces.append(1)
        return m(x).sum()

    for make in makers:
        model = make()
        [float(hoisted(model, jnp.ones((2, 3)))) for _ in range(3)]
    assert len(traces) == 2  # one per model with one wrapper too: another program each


def test_a_configuration_changed_item_by_item_is_another_program_each_iteration():
    traces = []

    def make_train(config):
        def train(key):
            traces.append(dict(config))
            return jax.random.normal(key, (config["N"],)) * config["LR"]
        return train

    config = {"N": 2, "LR": 0.1}
    keys = jax.random.split(jax.random.PRNGKey(0), 2)
    for k, v in {"N": 3, "LR": 0.5}.items():
        config[k] = v
        jax.jit(jax.vmap(make_train(config)))(keys)
    assert [t["N"] for t in traces] == [3, 3] and [t["LR"] for t in traces] == [0.1, 0.5]

    traces.clear()
    once = jax.jit(jax.vmap(lambda key, n, lr: make_train({"N": n, "LR": lr})(key), in_axes=(0, None, None)),
                   static_argnums=(1, 2))
    for n, lr in ((3, 0.1), (3, 0.5)):
        once(keys, n, lr)
    assert len(traces) == 2  # one jit with the configuration static traces as often
