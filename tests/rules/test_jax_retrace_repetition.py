"""Per-step certainty of STG502 under JAX (bench/fresh_audit_notes.md, "Per-step certainty of the
JAX retracing and state rules"): "`jax.jit` of a new function object traces again" is JAX's
behaviour (tests/runtime/test_function_identity.py); "and this happens again and again, tracing
the same program" is known only where the code shows it: the wrap in a loop that makes the same
program on each iteration, or in a function the project calls in a loop. A function merely called
at several places, or a loop whose iterations wrap what they bind themselves (another environment,
another layer's shardings), may stage each program once: the preview tier."""

from __future__ import annotations

from rulecases import assert_tiers


def test_a_jit_in_a_function_called_at_several_places_none_in_a_loop_is_a_preview_guess():
    """spyx's `run_cma(prime)`, deepqmc's `initialize_sampler_state`: the nested jit closes over
    the call's objects, and each call (one per experiment arm, one for pretraining and one for
    training) traces its own program once. Two calls do not show a retrace in vain; nor when the
    decorator is a `functools.partial` of `jax.jit` (scenic's `initialize_model_with_pytree`)."""
    assert_tiers("""
        import functools
        import jax

        def run(prime, data):
            @jax.jit  # preview STG502
            def evolve(x):
                return x * 2 if prime else x
            return evolve(data)

        def initialize(model, data):
            @functools.partial(jax.jit, backend="cpu")  # preview STG502
            def _initialize(x):
                return model * x
            return _initialize(data)

        run(False, 1.0)
        run(True, 1.0)
        initialize(2.0, 1.0)
        initialize(3.0, 1.0)
    """)


def test_a_jit_of_nothing_but_module_level_names_in_a_function_called_in_a_loop_is_reported():
    """The negative twin: the project calls the function on every step of a loop (scenic's
    `all_gather_and_unreplicate` per eval step, JAXFLUIDS's `synchronize_jf` per output step, a
    nested def over nothing of the call): the wrapper is made and traces the same program again
    on each iteration (`analysis.functions.closure_names` empty;
    tests/runtime/test_jax_certain_steps_facts.py)."""
    assert_tiers("""
        import jax
        import jax.numpy as jnp

        def all_gather_and_unreplicate(x):
            return jax.pmap(lambda v: jax.lax.all_gather(v, "batch"), "batch")(x)  # STG502

        def validate(data):
            @jax.jit  # STG502
            def run_validate(x):
                return jnp.sum(x) * 2
            return run_validate(data)

        for step in range(100):
            all_gather_and_unreplicate(1.0)
            validate(1.0)
    """)


def test_a_jit_over_the_calls_own_values_in_a_function_called_in_a_loop_is_a_preview_guess():
    """poppy's `validate` (a pmap over the current `params`, every `validation_freq` steps) and
    jax-fem's `target_value` (a nested def over `self`), also under `@functools.partial(jax.pmap, ...)`: each call traces again, but what the
    wrapper reads of the call (a model, a configuration, the parameters) may make each trace
    another program, one per arm or set-up (axlearn's `_benchmark` per attention configuration,
    rebayes's `eval_runs` per agent, spyx's `run_cma` per arm): whether a cache could have served
    it is not shown. Under JAX that step is in the preview tier, right 11 times in 21 on the
    held-back halves."""
    assert_tiers("""
        import functools
        import jax
        import jax.numpy as jnp

        def validate(params, data):
            @jax.jit  # preview STG502
            def run_validate(x):
                return x * params
            return run_validate(data)

        def validate_pmapped(cfg, params, data):
            @functools.partial(jax.pmap, axis_name="i")  # preview STG502
            def run_validate(x):
                return x * params * cfg.scale
            return run_validate(data)

        class Problem:
            def target_value(self, x):
                def det_fn(v):
                    return jnp.linalg.det(v) * self.dim
                return jax.jit(jax.vmap(det_fn))(x)  # preview STG502

        problem = Problem()
        for step in range(100):
            validate(2.0, 1.0)
            validate_pmapped(None, 2.0, 1.0)
            Problem.target_value(problem, 1.0)
    """)


def test_one_function_object_jitted_at_several_lines_of_one_run_is_one_trace():
    """EasyDeL's `sequential_init`: `jax.jit(_shard, out_shardings=...)` on six lines wraps one
    object; JAX's trace cache, keyed on the function object whatever the jit options, serves the
    later wraps (tests/runtime/test_jax_certain_steps_facts.py). Only the first wrap of a run
    traces, and only a run repeated (a call in a loop) makes that a retrace: one finding, not six,
    and none when nothing runs the function repeatedly. Under tf.function each wrap is its own
    Function (the rule's invalid example)."""
    assert_tiers("""
        import jax

        def sequential_init(x, shardings):
            def _shard(v):
                return v * 1
            a = jax.jit(_shard, out_shardings=shardings["kernel"])(x)
            b = jax.jit(_shard, out_shardings=shardings["bias"])(x)
            return a, b

        sequential_init(1.0, {})
    """)
    assert_tiers("""
        import jax

        def sequential_init(x, shardings):
            def _shard(v):
                return v * 1
            a = jax.jit(_shard, out_shardings=shardings["kernel"])(x)  # STG502
            b = jax.jit(_shard, out_shardings=shardings["bias"])(x)
            return a, b

        for layer in range(4):
            sequential_init(1.0, {})
    """)


def test_a_jit_of_what_each_iteration_binds_is_a_preview_guess():
    """pgx's figure script: `for game in games: env = pgx.make(game); init =
    jax.jit(jax.vmap(env.init))`: each iteration jits another environment's function, a program
    of its own; no trace need repeat another. So for a jit per layer with that layer's
    `out_shardings` (maxtext's `stack_layers`), and a factory called with each element
    (jax-cfd's `[metric(t)(x) for t in thresholds]`)."""
    assert_tiers("""
        import jax

        def make(name):
            return Env(name)

        class Env:
            def __init__(self, name):
                self.name = name

            def init(self, key):
                return key

        def metric(threshold):
            @jax.jit  # preview STG502
            def inner(x):
                return x > threshold
            return inner

        def figures(games, keys):
            for game in games:
                env = make(game)
                init = jax.jit(jax.vmap(env.init))  # preview STG502
                init(keys)

        def restack(params, shardings, names):
            out = {}
            for name in names:
                out[name] = jax.jit(lambda p: p, out_shardings=shardings[name])(params[name])  # preview STG502
            return out

        def evaluate(x, thresholds):
            return [metric(t)(x) for t in thresholds]
    """)


def test_a_jit_made_of_nothing_the_iteration_binds_is_reported():
    """The negative twin: the same program made on every iteration (kvfrans's FID loop,
    `jax.pmap(lambda x: jax.lax.all_gather(x, 'i'), axis_name='i')(acts)` per batch), a vmap of a
    function bound before the loop, options bound before the loop, a factory called with the same
    value, and a lambda over the batch (what a lambda closes over is baked into its trace, and the
    same program again when only the batch's values change): each iteration traces anew in vain."""
    assert_tiers("""
        import jax

        def metric(threshold):
            @jax.jit  # STG502
            def inner(x):
                return x > threshold
            return inner

        def fid(batches):
            out = []
            for acts in batches:
                out.append(jax.pmap(lambda x: jax.lax.all_gather(x, "i"), axis_name="i")(acts))  # STG502
            return out

        def figures(env, keys, steps):
            for _ in range(steps):
                init = jax.jit(jax.vmap(env.init))  # STG502
                init(keys)

        def restack(params, sharding, names):
            out = {}
            for name in names:
                out[name] = jax.jit(lambda p: p, out_shardings=sharding)(params[name])  # STG502
            return out

        def evaluate(x, thresholds):
            return [metric(0.5)(x) for t in thresholds]

        def train(w, batches):
            for x in batches:
                w = w - jax.jit(lambda v: (v * x).sum())(w)  # STG502
            return w
    """)


def test_a_jit_of_a_new_lambda_in_a_function_a_tree_map_calls_runs_once_per_leaf():
    """jax-ml/jax's `process_allgather` (fixed in 752c3ff: "Lift `lambda x: x` to the top level so
    that we don't recompile on every invocation"): `jax.tree_map(_pjit, in_tree)` calls `_pjit` once
    per leaf, in the call, as plain Python (`frameworks.PER_ELEMENT_CALLS`, JAX 0.10.2:
    tests/runtime/test_per_element_call_facts.py), so the jit of a new lambda there, and in the
    helper `_pjit` calls, traces and compiles once per leaf: the default tier, as in a loop over
    the leaves."""
    assert_tiers("""
        import jax

        def _gather(inp):
            return jax.jit(lambda x: x)(inp)  # STG502

        def process_allgather(in_tree):
            def _pjit(inp):
                out = jax.jit(lambda x: x * 2)(inp)  # STG502
                return _gather(out)
            return jax.tree_util.tree_map(_pjit, in_tree)

        def gather_all(in_tree):
            return jax.tree.map(f=_gather, tree=in_tree)
    """)


def test_a_jit_of_a_new_lambda_in_a_function_called_once_or_handed_to_another_api_is_not_shown_repeated():
    """The twin: the same helpers called directly, once, by a function the project never calls,
    or handed to an API that calls them once (`jax.tree_util.Partial`, a callback kept), or to a
    tree map as its tree rather than its function: no repetition shown, nothing in either tier."""
    assert_tiers("""
        import jax

        def _gather(inp):
            return jax.jit(lambda x: x)(inp)

        def process_one(inp):
            def _pjit(v):
                return jax.jit(lambda x: x * 2)(v)
            return _pjit(inp)

        def gather(inp):
            return _gather(inp)

        def keep(inp):
            return jax.tree_util.Partial(_gather, inp)

        def leaves(fns):
            return jax.tree_util.tree_map(lambda f: f, [_gather])
    """)


def test_a_jit_made_in_a_helper_a_trace_reaches_and_a_loop_calls_outside_any_trace_is_reported():
    """interpax's `approx_df` (fixed in c7c5d94: "avoid local function jit"): a helper that a
    jitted function calls runs once per trace there, but a call from code no trace reaches runs
    its body, and the jit of its new nested def, each time (`repetition.eager_calls`): called
    so in a loop, the default tier; at several places none in a loop, reading the call's own
    values, the preview tier as for any function."""
    assert_tiers("""
        import jax

        def helper(x):
            return jax.jit(lambda v: v * 2)(x)  # STG502

        def approx_df(x, method):
            def fun(v):
                return v * 2 if method == "cubic" else v
            return jax.jit(fun)(x)  # preview STG502

        @jax.jit
        def step(x):
            return helper(x) + approx_df(x, "cubic")

        def evaluate(xs):
            return [helper(x) for x in xs]

        class Spline:
            def __init__(self, x):
                self.dx = approx_df(x, "cubic")
                self.dy = approx_df(x, "linear")
    """)


def test_a_jit_made_in_a_helper_only_traces_reach_is_made_once_per_trace():
    """The twin: the same helpers called only by jitted functions (and by tests): made once per
    trace of their callers, whose loops reuse that trace: nothing in either tier."""
    assert_tiers("""
        import jax

        def helper(x):
            return jax.jit(lambda v: v * 2)(x)

        def approx_df(x, method):
            def fun(v):
                return v * 2 if method == "cubic" else v
            return jax.jit(fun)(x)

        @jax.jit
        def step(x):
            return helper(x) + approx_df(x, "cubic") + approx_df(x, "linear")

        def evaluate(xs):
            return [step(x) for x in xs]
    """)
