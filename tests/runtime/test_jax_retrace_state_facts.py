"""The facts behind the per-step certainty of STG503 under JAX (tests/rules/test_jax_retrace_state.py),
observed with the real JAX 0.10.2 and flax 0.12.8."""

from __future__ import annotations

import pytest

jax = pytest.importorskip("jax")
nnx = pytest.importorskip("flax.nnx")
jnp = jax.numpy


def test_a_modules_object_graph_is_python_under_jit_one_iteration_per_node():
    """`nnx.iter_graph(m)` is a generator of (path, node) pairs and `nnx.to_flat_state(state)` a
    FlatState of (path, Variable) pairs, under `jax.jit` too: a loop over them runs once per node
    the module holds (its structure), never once per row of an array (maxtext's
    `_fix_for_qwix_quantization`). `frameworks.jax`'s non-tensor calls."""
    model = nnx.Linear(3, 4, rngs=nnx.Rngs(0))
    nodes = len(list(nnx.iter_graph(model)))
    leaves = len(nnx.to_flat_state(nnx.state(model)))
    seen = []

    @jax.jit
    def count(x):
        graph = nnx.iter_graph(model)
        flat = nnx.to_flat_state(nnx.state(model))
        seen.append((type(graph).__name__, type(flat).__name__))
        n = sum(1 for _ in graph)
        k = sum(1 for _ in flat)
        return x + n + 10 * k

    assert float(count(jnp.zeros(()))) == nodes + 10 * leaves
    assert seen == [("generator", "FlatState")] and leaves == 2  # kernel and bias


def test_a_loop_over_a_jax_operations_result_runs_once_per_row_of_the_array():
    """The negative twin: a JAX operation's result is an array, and a Python `for` over it inside
    `jax.jit` runs once per row of its first axis, each iteration a copy of the body in the program."""

    def unrolled(x):
        for row in jnp.ones((5, 2)):
            x = x + row.sum()
        return x

    jaxpr = jax.make_jaxpr(unrolled)(jnp.zeros(()))
    assert sum(1 for e in jaxpr.eqns if e.primitive.name == "add") == 5
