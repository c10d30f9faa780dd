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


def test_a_global_rebound_inside_a_function_or_a_closure_a_lambda_reads_is_a_preview_guess_under_jax():
    """llama-2-jax's `main()` binds the global `optimize` before the first `train_step` call and
    never again (a configure-once global); neural-tangents' tests rebind `kernel_fn` after a
    jitted lambda has run and then jit a new lambda: no call reuses a trace made before the
    change. "A later call of the same Function reuses a trace made before the rebinding" is the
    step that makes the value stale, and the code does not show it for a function's `global`
    rebinding, nor for a lambda, whose calls are not tracked."""
    assert_tiers("""
        from typing import Callable

        import jax

        optimize: Callable

        @jax.jit
        def train_step(params, x):
            return optimize(params, x)  # preview STG301

        def main():
            global optimize
            optimize = lambda p, x: p - x
            params = 1.0
            for x in range(3):
                params = train_step(params, x)
            return params

        def make(n):
            return lambda x: x * n

        def check_kernel(x):
            kernel_fn = make(1)
            k_jit = jax.jit(lambda y: kernel_fn(y))  # preview STG301
            a = k_jit(x)
            kernel_fn = make(2)
            k_jit = jax.jit(lambda y: 2 * y)
            return a, k_jit(x)
    """)


def test_a_rebinding_between_two_calls_of_the_same_jitted_function_is_reported():
    """The negative twin, JAX's sharp bit: a module-level rebinding between two calls of the
    jitted function, and an enclosing variable the time loop rebinds before each call of a
    nested jitted def (jax-fem's dendrite `phase_field`): the later calls reuse the first trace
    and its baked-in value (tests/runtime/test_jax_fresh_facts.py). Under JAX an order only
    module-level statements show (a notebook's cells) is held back: on held-back code such
    rebindings were mostly set-up or an equal object (2 of 6 right); a loop that rebinds and
    calls, or one function's body, shows it."""
    assert_tiers("""
        import jax

        SCALE = 2

        @jax.jit
        def f(x):
            return x * SCALE  # preview STG301

        f(1.0)
        SCALE = 3
        f(1.0)

        def simulate(x, steps):
            eps = x * 2

            @jax.jit
            def phase(y):
                return y * eps  # STG301

            for _ in range(steps):
                eps = eps + 1
                x = phase(x)
            return x
    """)


def test_an_iterator_argument_a_jax_helper_is_given_is_a_preview_guess():
    """jaxls's `VarValues.make(variables)`, run inside a jitted solve, lists its argument; an
    example builds a new generator per call (eagerly), which that call consumes. That one iterator
    outlives two calls reusing a trace is not shown: the preview tier under JAX."""
    assert_tiers("""
        import jax

        def make(variables):
            out = []
            for v in variables:  # preview STG103
                out.append(v)
            return out

        @jax.jit
        def solve(variables):
            return make(variables)

        def example(xs):
            return make(x * 2 for x in xs)
    """)


def test_a_global_iterator_advanced_in_a_jitted_function_is_reported():
    """The negative twin, JAX's row 24 (tests/data/jax_table/r24_iterator.py, observed): `next()`
    on a module-level iterator runs once, at trace time; every later call reuses that element."""
    assert_tiers("""
        import itertools

        import jax

        schedule = itertools.cycle([0.1, 0.01, 0.001])

        @jax.jit
        def step(w, g):
            lr = next(schedule)  # STG103
            return w - lr * g
    """)


def test_a_global_rebound_to_the_same_literal_call_is_a_preview_guess_under_jax():
    """serket's notebook: every cell binds `optim = optax.adam(1e-4)` again between calls of the
    jitted `train_step` that reads it. A new object, but the same optimizer with the same settings:
    the reused trace computes what the new one would. That the new value differs is not shown."""
    assert_tiers("""
        import jax
        import optax

        optim = optax.adam(1e-4)

        @jax.jit
        def train_step(params, grads, state):
            return optim.update(grads, state, params)  # preview STG301

        state = train_step(1.0, 1.0, None)
        optim = optax.adam(1e-4)
        state = train_step(1.0, 1.0, state)
    """)


def test_a_global_rebound_to_another_value_between_calls_is_reported():
    """The negative twin: another learning rate between the two calls, which the reused trace
    ignores (JAX bakes the first optimizer's closures in)."""
    assert_tiers("""
        import jax
        import optax

        optim = optax.adam(1e-4)

        @jax.jit
        def train_step(params, grads, state):
            return optim.update(grads, state, params)  # preview STG301

        state = train_step(1.0, 1.0, None)
        optim = optax.adam(1e-3)
        state = train_step(1.0, 1.0, state)
    """)
    # Under JAX the module-level order above is held back (notebook cells); a loop that rebinds
    # the global and calls the jitted function shows the reuse (README's `label_smoothing`).
    assert_tiers("""
        import jax
        import optax

        optim = optax.adam(1e-4)

        @jax.jit
        def train_step(params, grads, state):
            return optim.update(grads, state, params)  # STG301

        state = None
        for lr in (1e-3, 1e-4):
            state = train_step(1.0, 1.0, state)
            optim = optax.adam(lr)
    """)
