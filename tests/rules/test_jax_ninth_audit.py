"""The false classes of the ninth fresh JAX audit's read halves (AE, AF: bench/fresh_audit_notes.md,
"Ninth JAX audit"), each a fact checked with JAX 0.10.2 (tests/runtime/test_jax_fresh_facts.py,
tests/runtime/test_jax_output_structure.py, tests/runtime/test_jax_retrace_key_facts.py) or Python's
own semantics, with its negative twin. The retracing classes (AE1, AF2) ask what keys a trace
besides the function object (`frameworks.JAX_TRACE_KEY`)."""

from __future__ import annotations

from rulecases import assert_tiers


def test_a_global_bound_only_from_the_reading_functions_own_call_is_never_bound():
    """M2L's segmentation and DQN exercise stubs (AF1): `train_step`'s body is left blank and
    returns `loss`, a global whose only binding is `params, loss = train_step(params, x)` in
    the training loop. The call's first trace reads `loss` unbound: NameError, the call never
    returns, so the statement never binds it and no trace ever reads a value to keep stale."""
    assert_tiers("""
        import jax
        import jax.numpy as jnp

        @jax.jit
        def train_step(params, x):
            # YOUR CODE HERE
            return params, loss

        class Agent:
            def __init__(self):
                self.learner_step = jax.jit(self.learner_step)

            def learner_step(self, params, x):
                return params, total

        params = jnp.zeros(3)
        agent = Agent()
        for epoch in range(10):
            for x in jnp.ones((4, 3)):
                params, loss = train_step(params, x)
                params, total = agent.learner_step(
                    params, x)
                print(loss, total)
    """)


def test_a_star_import_may_bind_the_global_before_the_first_call():
    """The twin from the other side: with `from settings import *` above, the module may bind
    `loss` before the loop (a star import binds any name the other module has; the walk records
    it, `FileContext.star_import`), so the first trace may read a value and later calls keep it."""
    assert_tiers("""
        import jax
        import jax.numpy as jnp
        from settings import *

        @jax.jit
        def train_step(params, x):
            return params, loss  # STG301

        params = jnp.zeros(3)
        for epoch in range(10):
            for x in jnp.ones((4, 3)):
                params, loss = train_step(params, x)
                print(loss)
    """)


def test_a_star_import_python_never_runs_binds_nothing():
    """Its twin: under `if False:` the star import never runs (`walk.never_runs`: the walk does
    not enter the block), so nothing binds `loss` before the call's first trace reads it."""
    assert_tiers("""
        import jax
        import jax.numpy as jnp
        if False:
            from settings import *

        @jax.jit
        def train_step(params, x):
            return params, loss

        params = jnp.zeros(3)
        for epoch in range(10):
            for x in jnp.ones((4, 3)):
                params, loss = train_step(params, x)
                print(loss)
    """)


def test_a_global_bound_before_the_first_call_or_read_on_some_paths_only_is_stale():
    """The negative twin: the same loop with `loss` bound above it (the first trace reads that
    value and every later call keeps it), a function that reads it only on one branch (a trace
    that takes the other returns, and the statement binds), and a binding from another
    function's call (it returns whatever the reader does)."""
    assert_tiers("""
        import jax
        import jax.numpy as jnp

        @jax.jit
        def train_step(params, x):
            return params, loss  # STG301

        @jax.jit
        def maybe_step(params, x, flag):
            if flag:
                return params, score  # STG301
            return params, 0.0

        def other(params, x):
            return params, 1.0

        @jax.jit
        def eval_step(params, x):
            return params + best  # STG301

        loss = 0.0
        params = jnp.zeros(3)
        for epoch in range(10):
            for x in jnp.ones((4, 3)):
                params, loss = train_step(params, x)
                params, score = maybe_step(params, x, epoch > 5)
                params, best = other(params, x)
                eval_step(params, x)
    """)


def test_a_jax_wrapper_nothing_calls_stages_nothing():
    """MLLM-JAX's deprecated Gemma sampler (AF4): `self._compiled_sample_fn =
    jax.jit(self._sample_fn)` in `__init__`, its calls commented out, and `__call__` runs
    `self._sample_fn(...)` directly, eagerly, with a debug print. `jax.jit(f)` returns a wrapper
    and traces nothing until it is called (tests/runtime/test_jax_fresh_facts.py): a local name
    its function never reads is never called (no finding at all); an attribute nothing in its
    module reads may still be called by another module (preview, with the reason)."""
    assert_tiers("""
        import jax

        class Sampler:
            def __init__(self, params):
                self.params = params
                self._compiled_sample_fn = jax.jit(self._sample_fn)

            def _sample_fn(self, params, state):
                print("debug", state)  # preview STG101
                return state + params

            def __call__(self, state):
                return self._sample_fn(self.params, state)

        def update(params, x):
            print("update", x)
            return params + x

        def run(xs, params):
            step = jax.jit(update)
            for x in xs:
                params = update(params, x)
            return params
    """)


def test_a_jax_wrapper_that_is_called_or_runs_at_once_stages_its_function():
    """The negative twin: the same wrappers called (`self._compiled_sample_fn(...)`, `step(...)`)
    trace their functions; so does a wrapper bound at module level (other modules import it),
    and an API that runs the function in the call itself (`jax.eval_shape(f, x)`: its entry
    stays, whatever is done with the result)."""
    assert_tiers("""
        import jax

        class Sampler:
            def __init__(self, params):
                self.params = params
                self._compiled_sample_fn = jax.jit(self._sample_fn)

            def _sample_fn(self, params, state):
                print("debug", state)  # STG101
                return state + params

            def __call__(self, state):
                return self._compiled_sample_fn(self.params, state)

        def update(params, x):
            print("update", x)  # STG101
            return params + x

        def run(xs, params):
            step = jax.jit(update)
            for x in xs:
                params = step(params, x)
            return params

        def exported(x):
            print("exported", x)  # STG101

        exported_jit = jax.jit(exported)

        def shape_of(params, x):
            if x > 0:  # STG602
                return params
            return params + x

        def shapes(xs, params):
            out = jax.eval_shape(shape_of, params, xs[0])
            unused = jax.jit(shape_of)
            return params
    """)


def test_a_loop_over_the_list_a_scan_body_returns_runs_over_the_list():
    """pax's weight-sharing runner (AF3): `_inner_rollout`, the `lax.scan` body, returns a list
    of per-agent trajectories as its per-step output, and `for traj in trajectories` runs over
    the agents: scan's ys has the structure the body returns (a list stays a list, each leaf
    stacked), as `fori_loop`/`while_loop` return their init's and `lax.map`/`jax.vmap` their
    function's (tests/runtime/test_jax_output_structure.py)."""
    assert_tiers("""
        import jax
        import jax.numpy as jnp
        from jax import lax

        def agent_step(state, k):
            return state * k

        @jax.jit
        def rollout(params, xs):
            def inner(carry, x):
                trajectories = [agent_step(carry + x, k) for k in range(3)]
                return carry, trajectories

            _, trajectories = lax.scan(inner, params, xs)
            total = 0.0
            for traj in trajectories:
                total = total + jnp.sum(traj)
            both = lax.fori_loop(0, 3, lambda i, c: [c[0] + 1, c[1]], [params, params])
            for p in both:
                total = total + jnp.sum(p)
            for m in jax.vmap(lambda x: [x, x * 2])(xs):
                total = total + jnp.sum(m)
            layers, last = lax.fori_loop(0, 3, lambda i, c: c, ([params, params], params))
            for layer in layers:
                total = total + jnp.sum(layer)
            return total
    """)


def test_a_loop_over_what_a_scan_or_vmap_stacks_into_one_array_runs_over_its_rows():
    """The negative twin: a body that returns an array as its per-step output gives ys stacked
    into one array, and a loop over it unrolls once per step (per row); the same for a vmapped
    function that returns an array, for the carry unpacked as an array, and for the arrays a
    loop's tuple of arrays or a vmapped pair unpacks into (an element, not the whole tuple)."""
    assert_tiers("""
        import jax
        import jax.numpy as jnp
        from jax import lax

        def double(x):
            return x * 2

        def pair(x):
            return x, x * 2

        def step(i, c):
            return c[0] + 1, c[1]

        @jax.jit
        def rollout(params, xs):
            def arrays(carry, x):
                return carry + x, carry * x

            last, rows = lax.scan(arrays, params, xs)
            total = 0.0
            for row in rows:  # STG503
                total = total + jnp.sum(row)
            for m in jax.vmap(double)(xs):  # STG503
                total = total + jnp.sum(m)
            for v in last:  # STG503
                total = total + jnp.sum(v)
            a, b = lax.fori_loop(0, 3, step, (params, params))
            for row in a:  # STG503
                total = total + jnp.sum(row)
            u, w = jax.vmap(pair)(xs)
            for r in u:  # STG503
                total = total + jnp.sum(r)
            return total
    """)


def _notebook(tmp_path, cells: list[str]):
    import json
    import os

    from stagelint.engine import check_paths

    path = tmp_path / "nb.ipynb"
    path.write_text(json.dumps({
        "cells": [{"cell_type": "code", "metadata": {}, "execution_count": None, "outputs": [],
                   "source": cell.splitlines(keepends=True)} for cell in cells],
        "metadata": {}, "nbformat": 4, "nbformat_minor": 5}), encoding="utf-8")
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        result = check_paths(["nb.ipynb"], jobs=1)
    finally:
        os.chdir(cwd)
    assert not result.errors, result.errors
    return sorted(f.code for f in result.findings)


def test_a_module_name_a_later_notebook_cell_imports_again_is_the_later_module(tmp_path):
    """data_enhanced_simulation's RL introduction (AE2, STG104): cell 1 `import random`, a later
    cell `from jax import random`, and the jitted loss's `random.split(key)` is JAX's: the later
    import rebinds the name for good before the cells below run (the kernel runs the cells top
    to bottom, as the module stagelint reads; the last binding that reaches a use wins). The
    twin: imported the other way round, `random.random()` is the standard library's draw."""
    assert _notebook(tmp_path, [
        "import random\nimport jax\nimport jax.numpy as jnp\n",
        "from jax import random\n",
        "@jax.jit\ndef loss(params, key):\n    key, subkey = random.split(key)\n"
        "    return jnp.sum(params * random.normal(subkey, params.shape))\n",
    ]) == []
    assert _notebook(tmp_path, [
        "from jax import random\nimport jax\nimport jax.numpy as jnp\n",
        "import random\n",
        "@jax.jit\ndef loss(params, key):\n    return params * random.random()\n",
    ]) == ["STG104"]



def test_a_jit_of_a_partial_per_tuner_candidate_is_a_preview_guess():
    """sglang-jax's kernel tuners: `jax.jit(functools.partial(kernel, block_tokens=bt))` for each
    candidate `bt`: each candidate is another program, which one jitted function with `bt` static
    would trace and compile too; whether the values repeat the code does not show."""
    assert_tiers("""
        import functools
        import jax

        def kernel(x, *, block):
            return x.reshape(-1, block).sum(0)

        def candidates(n):
            return sorted({n // 4, n // 2, n})

        def tune(x, n):
            for block in candidates(n):
                fn = jax.jit(functools.partial(kernel, block=block))  # preview STG502
                fn(x)
    """)


def test_a_jit_of_a_partial_of_the_same_value_per_iteration_stays_default():
    """The negative twin: the partial binds what is bound before the loop, the same program on
    every iteration, traced anew each time."""
    assert_tiers("""
        import functools
        import jax

        def kernel(x, *, block):
            return x.reshape(-1, block).sum(0)

        def tune(x, n, tries):
            for _ in range(tries):
                fn = jax.jit(functools.partial(kernel, block=n))  # STG502
                fn(x)
    """)


def test_a_jitted_def_per_benchmark_case_holding_that_case_s_graph_definition_is_a_preview_guess():
    """sglang-jax's `bench_ep_moe`: `@jax.jit def ep_moe_fn` in the loop over cases, holding the
    case's `nnx.split` graph definition (a Python value: another program per case)."""
    assert_tiers("""
        import jax
        from flax import nnx

        def run_all(cases, make_layer, x):
            for case in cases:
                layer = make_layer(case)
                graphdef, state = nnx.split(layer)

                @jax.jit  # preview STG502
                def fn(state, x):
                    return nnx.merge(graphdef, state)(x)

                fn(state, x)
    """)


def test_a_jitted_def_per_epoch_holding_nothing_the_epoch_binds_stays_default():
    """The negative twin (M2L's GAT practical): `@jax.jit def update` inside the epoch loop holds
    only what is bound before the loop (and a def made there too): the same program each epoch."""
    assert_tiers("""
        import jax

        def train(network, params, graph, epochs):
            for epoch in range(epochs):
                def loss(params):
                    return network.apply(params, graph).sum()

                @jax.jit  # STG502
                def update(params):
                    return params - jax.grad(loss)(params)

                params = update(params)
            return params
    """)


def test_a_lambda_over_an_iteration_s_array_or_operand_stays_default_over_a_size_is_a_guess():
    """A lambda over each row of `jnp.split(data, 4)` holds an array, and one over each item of a
    parameter uses it only as an operand (`mse`'s `x`, an operand of array arithmetic): either is
    a constant of the same program, traced anew for nothing. One over each `n` of `sizes`, a
    reshape's size, holds the program's configuration: whether the new function costs a trace
    one jitted function would not is a guess."""
    assert_tiers("""
        import jax
        import jax.numpy as jnp

        def mse(w, x):
            return ((w - x) ** 2).sum()

        def train(w, data):
            for x in jnp.split(data, 4):
                w = w - jax.jit(lambda v: mse(v, x))(w)  # STG502
            return w

        def train_items(w, items):
            for x in items:
                w = w - jax.jit(lambda v: mse(v, x) * x)(w)  # STG502
            return w

        def pooled(w, sizes):
            for n in sizes:
                jax.jit(lambda v: v.reshape(-1, n).sum(0))(w)  # preview STG502
    """)


def test_a_jitted_def_per_call_given_the_caller_s_static_values_is_a_preview_guess():
    """sglang-jax's `bench_update_kv_cache`: `benchmark_backend` makes a jitted wrapper and calls
    it with its own `page_size` and `num_slices_per_block` as static arguments, once per
    configuration of the caller's loop: each call may be another program; with a literal static
    value (the negative twin) the same program is traced on every call."""
    assert_tiers("""
        import functools
        import jax

        def benchmark(x, page_size, blocks):
            @functools.partial(jax.jit, static_argnames=["page_size", "blocks"])  # preview STG502
            def wrap(x, page_size, blocks):
                return x.reshape(blocks, page_size, -1).sum(0)

            return wrap(x, page_size, blocks)

        def benchmark_fixed(x, page_size):
            @functools.partial(jax.jit, static_argnames=["blocks"])  # STG502
            def wrap(x, blocks):
                return x.reshape(blocks, -1).sum(0)

            return wrap(x, 4)

        def full(x):
            for page_size in [64, 128]:
                for blocks in [2, 4, 8]:
                    benchmark(x, page_size, blocks)
                    benchmark_fixed(x, page_size)
    """)


def test_a_static_argument_changing_with_other_static_arguments_is_a_preview_guess():
    """lop-jax's incremental CIFAR: `task` is static beside `examples_per_epoch` and
    `active_classes`, both computed from `task` on each iteration of the loop over tasks: each
    task is a new trace whatever `task` is."""
    assert_tiers("""
        import jax
        import jax.numpy as jnp

        def make_train(data, num_tasks, classes_per_task, class_order):
            def update_task(x, task, examples_per_epoch, active_classes):
                return x[:examples_per_epoch, jnp.array(active_classes)].sum() * task

            update_task = jax.jit(update_task, static_argnums=(1, 2, 3))
            for task in range(num_tasks):
                examples_per_epoch = 100 * (task + 1) * classes_per_task
                active_classes = class_order[: (task + 1) * classes_per_task]
                active_classes = tuple(int(c) for c in active_classes)
                for epoch in range(10):
                    update_task(data, task, examples_per_epoch, active_classes)  # preview STG501
    """)


def test_a_static_argument_changing_alone_stays_default():
    """The negative twin: the other static arguments are bound once before the loop, so each new
    `task` is a trace a traced `task` would save."""
    assert_tiers("""
        import jax
        import jax.numpy as jnp

        def make_train(data, num_tasks, classes_per_task, class_order):
            def update_task(x, task, examples_per_epoch, active_classes):
                return x[:examples_per_epoch, jnp.array(active_classes)].sum() * task

            update_task = jax.jit(update_task, static_argnums=(1, 2, 3))
            examples_per_epoch = 100 * classes_per_task
            active_classes = tuple(class_order)
            for task in range(num_tasks):
                for epoch in range(10):
                    update_task(data, task, examples_per_epoch, active_classes)  # STG501
    """)


def test_a_module_level_loop_s_variable_held_by_a_new_jit_is_a_guess_and_a_constant_is_not():
    """A notebook cell's loop: its variable is a global, bound anew on each iteration all the same
    (`block` per candidate: another program each); a name the body binds from module-level
    constants only (`size = 4 * 2`) is the same on each iteration, the same program traced anew."""
    assert_tiers("""
        import functools
        import jax
        import jax.numpy as jnp

        def kernel(x, *, block):
            return x.reshape(-1, block).sum(0)

        x = jnp.ones(64)
        for block in [2, 4, 8]:
            jax.jit(functools.partial(kernel, block=block))(x)  # preview STG502
        for _ in range(3):
            size = 4 * 2
            jax.jit(lambda v: v.reshape(-1, size).sum(0))(x)  # STG502
    """)
