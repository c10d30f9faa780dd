"""The false classes of the eighth fresh JAX audit's read halves (AA, AB: bench/fresh_audit_notes.md),
each a fact checked with JAX 0.10.2 (tests/runtime/test_jax_disable_jit.py) or Python's own
semantics, with its negative twin."""

from __future__ import annotations

from rulecases import assert_tiers


def test_a_later_def_of_the_same_name_in_a_function_is_not_the_one_jitted_before_it():
    """distil-whisper's `run_eval`: `p_eval_step = jax.pmap(partial(eval_step, ...))` takes the
    first nested `def eval_step`; a later `def eval_step(split="eval")` in the same function, the
    Python evaluation driver, rebinds the name after the pmap has its function object, and is
    never traced (its `time.time()` and logging were taken for trace-time code)."""
    assert_tiers("""
        import time
        from functools import partial
        import jax

        def main(model, loader):
            def eval_step(params, batch, smoothing=0.0):
                return jax.lax.psum(model(params, batch), "batch")

            p_eval_step = jax.pmap(partial(eval_step, smoothing=0.1), "batch")

            def eval_step(split="eval"):
                start = time.time()
                for batch in loader:
                    p_eval_step(None, batch)
                print(time.time() - start)

            for _ in range(3):
                eval_step()
    """)


def test_the_def_a_jit_takes_is_the_one_bound_when_it_runs():
    """The negative twin: the jit takes the definition live at its call, the earlier one (its
    print runs at trace time), or the later one when the jit comes after it."""
    assert_tiers("""
        import time
        import jax

        def main(model, loader):
            def eval_step(params, batch):
                print("tracing")  # STG101
                return model(params, batch)

            p_eval_step = jax.jit(eval_step)

            def eval_step(split="eval"):
                start = time.time()
                for batch in loader:
                    p_eval_step(None, batch)
                return start

        def later(model, loader):
            def step(split="eval"):
                return split

            def step(params, batch):
                start = time.time()  # STG104
                return model(params, batch) + start

            p_step = jax.jit(step)
            for batch in loader:
                p_step(None, batch)
    """)


def test_a_closure_of_a_function_jitted_anew_per_iteration_reads_that_iteration_s_globals():
    """lagrangian_nns' seed search: `@jax.jit def update_derivative` is made anew in each
    iteration of the module-level loop, after the optimizer's functions are rebound, and its
    `true_fun` (a `lax.cond` branch defined in its body) reads `opt_update`. The branch is made
    anew at each trace of that iteration's new Function, so it reads that iteration's binding;
    only the Function's own reads were known to be fresh. (Jitting anew per seed compiles once per
    seed: STG502, true.)"""
    assert_tiers("""
        import jax
        import jax.numpy as jnp
        from jax.example_libraries import optimizers

        for seed in range(3):
            opt_init, opt_update, get_params = optimizers.adam(1e-3 * (seed + 1))
            opt_state = opt_init(jnp.zeros(3))

            @jax.jit  # STG502
            def update(i, opt_state, g):
                def apply(x):
                    return opt_update(i, g, opt_state)

                return jax.lax.cond(i > 0, apply, lambda x: opt_state, 0)

            for i in range(10):
                opt_state = update(i, opt_state, jnp.ones(3))
    """)


def test_a_closure_of_a_function_jitted_once_reads_the_globals_of_its_first_trace():
    """The negative twin: one Function, defined before the loop; the loop rebinds `opt_update`
    and calls it again, reusing the trace that baked in the first binding."""
    assert_tiers("""
        import jax
        import jax.numpy as jnp
        from jax.example_libraries import optimizers

        @jax.jit
        def update(i, opt_state, g):
            def apply(x):
                return opt_update(i, g, opt_state)  # STG301

            return jax.lax.cond(i > 0, apply, lambda x: opt_state, 0)

        for seed in range(3):
            opt_init, opt_update, get_params = optimizers.adam(1e-3 * (seed + 1))
            opt_state = opt_init(jnp.zeros(3))
            for i in range(10):
                opt_state = update(i, opt_state, jnp.ones(3))
    """)


def test_lax_control_flow_under_disable_jit_runs_its_body_as_python():
    """BrainPy's `test_disable_jit`: `with jax.disable_jit(): jax.lax.scan(cumsum, ...)` runs the
    body as a Python loop on concrete arrays, so its `print(res)` runs on every element."""
    assert_tiers("""
        import jax
        import jax.numpy as jnp

        def test_disable_jit():
            def cumsum(res, el):
                res = res + el
                print(res)
                return res, res

            with jax.disable_jit():
                final, result = jax.lax.scan(cumsum, 0, jnp.array([1, 2, 3]))
            return final
    """)


def test_lax_control_flow_in_a_def_made_under_disable_jit_traces_when_called_later():
    """The negative twin: the scan is in a def the block only makes; it runs when called, after
    the block, and traces its body there (and a scan outside any such block traces as ever)."""
    assert_tiers("""
        import jax
        import jax.numpy as jnp

        def test_disable_jit():
            def cumsum(res, el):
                res = res + el
                print(res)  # STG101
                return res, res

            with jax.disable_jit():
                def run(a):
                    return jax.lax.scan(cumsum, 0, a)
            final, result = run(jnp.array([1, 2, 3]))
            return final
    """)


def test_a_loop_rebinding_the_same_call_with_the_same_arguments_is_a_preview_guess():
    """lagrangian_nns' auto_trainer and HyperparameterSearch notebook: each seed of the search
    runs `opt_init, opt_update, get_params = opti(lr)` with `lr = args.lr`, the same optimizer
    every time, then calls the one jitted `update_derivative` that reads them. A new triple of
    functions per seed, but computing what the traced one computes: that the value is the same is
    what the code shows of it, not a proof (an attribute could change), so preview."""
    assert_tiers("""
        import types
        import jax
        import jax.numpy as jnp
        from jax.example_libraries import optimizers

        args = types.SimpleNamespace(lr=1e-3)
        opti = optimizers.adam

        @jax.jit
        def update(i, opt_state, g):
            return opt_update(i, g, opt_state)  # preview STG301

        for seed in range(3):
            lr = args.lr
            opt_init, opt_update, get_params = opti(lr)
            opt_state = opt_init(jnp.zeros(3))
            for i in range(10):
                opt_state = update(i, opt_state, jnp.ones(3))
    """)


def test_a_loop_rebinding_with_arguments_that_change_per_iteration_stays_default():
    """The negative twin: the step size changes with the seed (a loop variable), or is drawn anew
    (a call in the arguments): the trace of the first seed keeps its optimizer."""
    assert_tiers("""
        import random
        import types
        import jax
        import jax.numpy as jnp
        from jax.example_libraries import optimizers

        args = types.SimpleNamespace(lr=1e-3)

        @jax.jit
        def update(i, opt_state, g):
            return opt_update(i, g, opt_state)  # STG301

        @jax.jit
        def peek(opt_state):
            return read_params(opt_state)  # STG301

        for seed in range(3):
            lr = args.lr * (seed + 1)
            opt_init, opt_update, get_params = optimizers.adam(lr)
            opt_state = opt_init(jnp.zeros(3))
            for i in range(10):
                opt_state = update(i, opt_state, jnp.ones(3))

        for seed in range(3):
            _, _, read_params = optimizers.adam(random.random())
            peek(opt_state)
    """)


def test_a_loop_over_the_gradient_of_a_list_of_layers_iterates_the_layers():
    """lagrangian_nns' `j_score_init`: `d_params = grad(total_output)(new_params)` with
    `new_params` the Python list of per-layer lists a jitted `custom_init` returns; the gradient
    has that structure, so `for l1 in d_params: for l2 in l1:` runs over the few layers and their
    weights, not over an array's rows (both loops were reported as unrolled arrays)."""
    assert_tiers("""
        import jax
        import jax.numpy as jnp

        @jax.jit
        def custom_init(sizes, key):
            new_params = []
            for n in (3, 4):
                new_params.append([jax.random.normal(key, (n, n)), jnp.zeros(n)])
            return new_params

        @jax.jit
        def score(key):
            new_params = custom_init(None, key)

            def total(p):
                return sum(jnp.sum(w) for layer in p for w in layer)

            d_params = jax.grad(total)(new_params)
            kl = 0.0
            for l1 in d_params:
                for l2 in l1:
                    kl += jnp.std(l2) + jnp.mean(l2)
            return kl
    """)


def test_a_loop_over_the_gradient_of_an_array_unrolls_its_rows():
    """The negative twin: the gradient of an array is an array, and the loop runs once per row."""
    assert_tiers("""
        import jax
        import jax.numpy as jnp

        @jax.jit
        def score(x):
            w = jnp.ones((64, 8)) * x
            g = jax.grad(lambda v: jnp.sum(v * v))(w)
            total = 0.0
            for row in g:  # STG503
                total += jnp.sum(row)
            return total
    """)
