"""Per-step certainty of STG503 under JAX (bench/fresh_audit_notes.md, "Per-step certainty of the
JAX retracing and state rules"): "the loop runs once per row of a traced array" is known for a
JAX operation's result; a Flax NNX module's object graph (`nnx.iter_graph`, `nnx.to_flat_state`)
is Python, one iteration per node the module holds (tests/runtime/test_jax_retrace_state_facts.py)."""

from __future__ import annotations

from rulecases import assert_tiers


def test_a_loop_over_a_modules_object_graph_is_structure_not_an_arrays_rows():
    """maxtext's `_fix_for_qwix_quantization` and `ToLinen._update_variables`, run while
    `ToLinen.__call__` is traced: `for path, node in nnx.iter_graph(module)` and `for path, var in
    nnx.to_flat_state(state)` walk the module's nodes and variables, a count fixed by its
    structure, like `for layer in self.layers`."""
    assert_tiers("""
        import jax
        import jax.numpy as jnp
        from flax import nnx

        @jax.jit
        def scale(module, x):
            for path, node in nnx.iter_graph(module):
                x = x + jnp.sum(x)
            for path, var in nnx.to_flat_state(nnx.state(module)):
                x = x * jnp.mean(x)
            return x
    """)


def test_a_loop_over_a_jax_operations_result_is_reported():
    """The negative twin: a JAX operation's result is an array, unrolled once per row."""
    assert_tiers("""
        import jax
        import jax.numpy as jnp

        @jax.jit
        def scale(x):
            for row in jnp.ones((5, 2)):  # STG503
                x = x + jnp.sum(row)
            return x
    """)
