"""Issue 14: the existing families with JAX's semantics, a positive and its negative twin each
(jax-behaviour.md rows in brackets; behaviour checked with JAX 0.10.2 in this venv)."""

from __future__ import annotations

from rulecases import assert_marked, assert_project_marked, assert_tiers, findings

from stagelint.config import Settings
from stagelint.engine import check_source
from stagelint.rules.base import example_source


# STG101 (rows 1, 2, 25, 26) ---------------------------------------------------------------------


def test_stg101_print_and_logging_under_jit_but_not_debug_print():
    assert_marked("""
        import logging
        import jax

        log = logging.getLogger(__name__)

        @jax.jit
        def step(x):
            print("x", x)  # STG101
            log.info("x %s", x)  # STG101
            log.info("compiling step for shape %s", x.shape)
            jax.debug.print("x {}", x)
            return x * 2
    """)


def test_stg101_in_cond_branches_and_while_bodies_without_jit():
    assert_marked("""
        from jax import lax

        def cond_fun(c):
            return c < 10

        def body_fun(c):
            print("iteration", c)  # STG101
            return c + 1

        def loop(x):
            return lax.while_loop(cond_fun, body_fun, x)

        def branches(p, x):
            return lax.cond(p, lambda v: v * 2, lambda v: -v, x)
    """)


# STG102 / STG201 (rows 3, 4, 10, 11, 40, 41, 43) ------------------------------------------------------


def test_stg102_nonlocal_counter_and_stg201_tracer_into_outer_list():
    assert_marked("""
        import jax
        import jax.numpy as jnp

        losses = []
        calls = 0

        @jax.jit
        def step(w, x):
            global calls
            calls += 1  # STG102
            loss = jnp.sum((w * x) ** 2)
            losses.append(loss)  # STG201
            return w - 0.1 * x, loss

        def fit(w, x):
            history = []
            for _ in range(3):
                w, loss = step(w, x)
                history.append(loss)
            return history
    """)


def test_stg201_leaks_out_of_grad_vmap_and_scan_without_jit():
    assert_marked("""
        import jax
        import jax.numpy as jnp
        from jax import lax

        seen = {}
        activations = []

        def loss(w):
            seen["w"] = w  # STG201
            return jnp.sum(w ** 2)

        def body(carry, x):
            activations.append(x)  # STG201
            return carry + x, x

        def run(w, xs):
            g = jax.grad(loss)(w)
            return g, lax.scan(body, 0.0, xs)

        def returned(w):
            return jax.grad(lambda v: jnp.sum(v ** 2))(w)
    """)


def test_flax_nnx_mutation_lost_under_plain_jit_kept_under_nnx_jit():
    assert_marked("""
        import jax
        import jax.numpy as jnp
        from flax import nnx

        class Counter(nnx.Module):
            def __init__(self):
                self.count = nnx.Variable(jnp.array(0))

        @jax.jit
        def bump(counter, x):
            counter.count.value += 1  # STG102
            return x

        @nnx.jit
        def bump_ok(counter, x):
            counter.count.value += 1
            return x
    """)


def test_linen_setattr_in_call_and_equinox_field_assignment():
    assert_marked("""
        import jax
        import equinox as eqx
        import flax.linen as nn

        class Block(nn.Module):
            def setup(self):
                self.dense = nn.Dense(3)

            def __call__(self, x):
                self.last = x  # STG102
                return self.dense(x)

        class Scaled(eqx.Module):
            weight: jax.Array

            def __call__(self, x):
                self.weight = x  # STG102
                return self.weight * x

        @eqx.filter_jit
        def run(model, x):
            return model(x)

        @jax.jit
        def apply(variables, x):
            return Block().apply(variables, x)
    """)


# STG103, STG104 (rows 9, 24) ---------------------------------------------------------------------


def test_stg103_outer_iterator_and_stg104_python_random_but_not_jax_random_keys():
    assert_marked("""
        import random
        import time
        import numpy as np
        import jax

        schedule = iter([0.1, 0.01])

        @jax.jit
        def noisy(x):
            lr = next(schedule)  # STG103
            return x * lr + np.random.normal() + random.random() + time.time()  # STG104 STG104 STG104

        @jax.jit
        def noisy_ok(x, key, lr):
            return x * lr + jax.random.normal(key, x.shape)

        def train(x):
            key = jax.random.key(0)
            for lr in (0.1, 0.01):
                key, sub = jax.random.split(key)
                x = noisy_ok(x, sub, lr)
            return x
    """)


# STG301, STG302, STG303 (rows 5, 6, 7, 8) -----------------------------------------------------------


def test_stg301_stale_global_but_not_a_constant_or_an_argument():
    assert_marked("""
        import jax
        import jax.numpy as jnp

        EPS = 1e-6
        temperature = 1.0

        @jax.jit
        def softmax(logits):
            return jax.nn.softmax(logits / temperature)  # STG301

        @jax.jit
        def safe_log(x, t):
            return jnp.log(x + EPS) / t

        def anneal(logits):
            global temperature
            for t in (1.0, 100.0):
                temperature = t
                softmax(logits)
                safe_log(logits, t)
    """)


def test_stg302_static_self_and_stg303_rebound_ref():
    assert_marked("""
        import functools
        import jax
        import jax.numpy as jnp

        class Scaler:
            def __init__(self):
                self.scale = 2.0

            @functools.partial(jax.jit, static_argnums=0)
            def apply(self, x):
                return x * self.scale  # STG302

            def __hash__(self):
                return 0

            def __eq__(self, other):
                return True

        total = jax.new_ref(jnp.zeros(()))

        @jax.jit
        def accumulate(x):
            total[...] += x
            return x

        def reset():
            global total
            total = jax.new_ref(jnp.zeros(()))  # STG303

        s = Scaler()
        s.apply(1.0)
        s.scale = 3.0
        s.apply(1.0)  # (a change after the last call would change nothing: program order)
    """)


# STG401 (row 21) -------------------------------------------------------------------------------------


def test_stg401_recursion_on_a_traced_base_case_not_over_a_python_pytree():
    got = {(f.line, f.code) for f in findings("""
        import jax

        def power(x, n):
            if n == 0:
                return 1.0
            return x * power(x, n - 1)

        @jax.jit
        def cube(x, n):
            return power(x, n)
    """)}
    assert (6, "STG401") in got


def test_stg401_a_jitted_function_calling_itself_is_judged_by_its_base_case_alone():
    """A tf.function in a recursion traces once per depth; a function JAX stages that calls
    itself while traced is traced inline (jit within jit: two traces, then done, checked with
    JAX 0.10.2), so only a base case tested on a traced value is a pitfall (diffrax's
    `LinearInterpolation.evaluate` under `eqx.filter_jit`, `if t1 is not None:`)."""
    assert_marked("""
        import jax
        import equinox as eqx

        class Linear(eqx.Module):
            ys: jax.Array

            @eqx.filter_jit
            def evaluate(self, t0, t1=None):
                if t1 is not None:
                    return self.evaluate(t1) - self.evaluate(t0)
                return self.ys * t0

        @jax.jit
        def countdown(n):
            if n > 0:  # STG602
                return countdown(n - 1)  # STG401
            return n

        @jax.jit
        def no_base_case(x):
            return no_base_case(x - 1)  # STG401
    """)


def test_stg401_a_recursion_only_from_a_handler_around_numerics_that_raise_on_no_value():
    """The nineteenth audit's BT1 (ot-algorithm-comparison's jitter loop under `lax.scan`): the
    call of itself is in the `except` handler of a `try` whose body is `cholesky` (through a
    local helper), which raises on no value (a non-PD matrix gives NaNs, eagerly and under jit:
    tests/runtime/test_jax_value_errors_facts.py), so no traced value runs the handler: silent,
    in preview too."""
    assert_tiers("""
        import jax
        import jax.numpy as jnp
        from jax.scipy.linalg import cholesky

        def covariance(key, mat, dim):
            def try_chol(A, jit_count):
                def _chol(a): return cholesky(a, lower=True)
                try:
                    return _chol(A), A
                except Exception:
                    A2 = A + jnp.eye(dim) * (1e-6 * 10 ** jit_count)
                    return try_chol(A2, jit_count + 1)
            L, A_pd = try_chol(mat, 0)
            return key, A_pd

        def gen_cov(carry, _):
            return covariance(carry, jnp.eye(2), 2)

        def sample(key):
            return jax.lax.scan(gen_cov, key, None, length=4)

        @jax.jit
        def solve_or_shrink(a, b, n):
            try:
                x = jnp.linalg.solve(a, b) / jnp.sqrt(n)
            except (ValueError, TypeError):
                return solve_or_shrink(a[1:, 1:], b[1:], n)  # (a shape error, decided while tracing)
            return x
    """)


def test_stg401_a_recursion_from_a_handler_whose_body_converts_a_tracer_or_calls_the_unknown():
    """The twins: a body converting a tracer (`int(x)`) raises on every trace (ConcretizationTypeError),
    so the handler's call recurses without end under jit (RecursionError; eagerly the first call
    returns); a call of itself after the `try`, outside the handler, is unconditional as before;
    a body calling something not known to raise or not on values (another library's function)
    may run the handler in a trace or not: preview."""
    assert_tiers("""
        import jax
        import jax.numpy as jnp
        from factorizations import factor

        @jax.jit
        def to_int(x, n):
            try:
                return int(x)
            except Exception:
                return to_int(x, n + 1)  # STG401

        @jax.jit
        def after(a, n):
            try:
                b = jnp.linalg.cholesky(a)
            except Exception:
                b = a
            return after(b, n - 1)  # STG401

        @jax.jit
        def unknown(a, n):
            try:
                return factor(a)
            except Exception:
                return unknown(a + 1e-6, n + 1)  # preview STG401
    """)


# STG501 (rows 27, 29, 30) ---------------------------------------------------------------------------


def test_stg501_static_and_filter_jit_scalars_but_not_python_numbers_to_plain_jit():
    assert_marked("""
        import functools
        import jax
        import equinox as eqx

        @jax.jit
        def scale(x, factor):
            return x * factor

        @functools.partial(jax.jit, static_argnames=("rate",))
        def dropout(x, rate):
            return x * (1 - rate)

        @eqx.filter_jit
        def shrink(x, alpha):
            return x * alpha

        def train(x):
            for step in range(10):
                x = scale(x, step)
                x = dropout(x, rate=step / 10)  # STG501
                x = shrink(x, 1.0 / (step + 1))  # STG501
            return x
    """)


# STG502 (rows 35, 36) ---------------------------------------------------------------------------------


def test_stg502_jit_of_lambda_partial_and_bound_method_in_a_loop_not_the_same_function():
    assert_marked("""
        import functools
        import jax
        import jax.numpy as jnp

        def mse(w, x):
            return jnp.mean((x @ w) ** 2)

        class Model:
            def loss(self, w, x):
                return jnp.sum(x @ w)

        def train(w, batches):
            model = Model()
            for x in batches:
                w = w - jax.jit(lambda v: mse(v, x))(w)  # STG502
                w = w - jax.jit(functools.partial(mse, x=x))(w)  # STG502
                w = w + jax.jit(model.loss)(w, x)  # STG502
                w = w - jax.jit(mse)(w, x)
                w = w - jax.vmap(lambda v: v * 2)(w)
            return w
    """)


# STG503 (rows 22, 23) --------------------------------------------------------------------------------


def test_stg503_static_bound_and_traced_rows_not_fori_loop_or_a_list_of_layers():
    assert_marked("""
        import functools
        import jax
        import jax.numpy as jnp
        from jax import lax

        @functools.partial(jax.jit, static_argnums=1)
        def smooth(x, num_steps):
            for _ in range(num_steps):  # STG503
                x = jnp.tanh(x)
            return x

        @jax.jit
        def running_max(xs):
            best = -jnp.inf
            for x in xs:  # STG503
                best = jnp.maximum(best, x)
            return best

        @jax.jit
        def smooth_ok(x, num_steps):
            return lax.fori_loop(0, num_steps, lambda i, v: jnp.tanh(v), x)

        @jax.jit
        def mlp(params, x):
            for w, b in params:
                x = jnp.tanh(x @ w + b)
            return x
    """)


def test_stg503_a_python_container_of_arrays_is_iterated_as_python_not_unrolled_per_row():
    """A dict, a list display or `jnp.split`'s list (a Python list under jit: JAX 0.10.2,
    tests/runtime/test_jax_fresh_facts.py) is iterated once per element the code made; only an
    array is unrolled per row. The twin: the same loop over the array itself."""
    assert_marked("""
        import jax
        import jax.numpy as jnp

        @jax.jit
        def stats(x, y):
            out = {"mean": jnp.mean(x), "max": jnp.max(x)}
            for k in out:
                out[k] = out[k] * 2.0
            for a, b in [(x, y), (y, x)]:
                x = x + a * b
            for part in jnp.split(x, 4):
                y = y + jnp.sum(part)
            return out, x, y

        @jax.jit
        def rows(x):
            total = 0.0
            for row in jnp.tanh(x):  # STG503
                total = total + row
            return total
    """)


def test_stg503_a_body_of_python_work_only_is_not_known_to_grow_the_program():
    """Unrolled Python work (axis arithmetic, asserts on ints) adds no JAX operation; a body whose
    only possible op is a project function's call is a guess, the preview tier; a body with a JAX
    op is reported."""
    assert_tiers("""
        import functools
        import jax
        import jax.numpy as jnp

        def check_axis(dim, rank):
            assert 0 <= dim < rank

        @functools.partial(jax.jit, static_argnums=1)
        def moments(x, axes):
            size = 1
            for a in axes:
                size *= x.shape[a]
            for a in axes:  # preview STG503
                check_axis(a, x.ndim)
            for a in axes:  # STG503
                x = x - jnp.mean(x, axis=a, keepdims=True)
            return x / size

        moments(jnp.ones((2, 3)), (0, 1))
        moments(jnp.ones((2, 3, 4)), (0, 1, 2))
    """)


# STG601 (rows 16, 17) --------------------------------------------------------------------------------


def test_stg601_host_conversions_but_not_shape_metadata():
    assert_marked("""
        import numpy as np
        import jax
        import jax.numpy as jnp

        @jax.jit
        def accuracy(logits, labels):
            correct = jnp.sum(jnp.argmax(logits, -1) == labels)
            a = float(correct)  # STG601
            b = correct.item()  # STG601
            c = np.log(correct)  # STG601
            n = np.prod(logits.shape) + logits.ndim + len(labels) + labels.shape[0]
            return correct / n, a, b, c

        @jax.jit
        def static_ok(x):
            return x * float(x.shape[0]) * int(np.prod(x.shape))
    """)


# STG602 (rows 13, 14, 15, 18, 20, 36) ---------------------------------------------------------------------


def test_stg602_python_control_flow_on_tracers_everywhere_jax_has_no_autograph():
    assert_marked("""
        import jax
        import jax.numpy as jnp

        WEIGHTS = {0: 1.0, 1: 5.0}

        @jax.jit
        def step(x, y, n, label):
            if x > 0:  # STG602
                x = -x
            while jnp.abs(y) > 1:  # STG602
                y = y / 2
            assert jnp.all(x >= 0)  # STG602
            for _ in range(n):  # STG602
                x = x + 1
            w = WEIGHTS[label]  # STG602
            return (x > 0) and (y > 0), w  # STG602
    """)


def test_stg602_negatives_static_values_shapes_grad_only_and_lax_cond():
    assert_marked("""
        import functools
        import jax
        import jax.numpy as jnp
        from jax import lax

        @functools.partial(jax.jit, static_argnames=("training",))
        def layer(x, training, mask=None):
            if training:
                x = x * 0.5
            if mask is not None:
                x = x * mask
            if x.shape[0] > 2 and x.ndim == 2:
                x = x[:2]
            return lax.cond(jnp.sum(x) > 0, lambda v: v, lambda v: -v, x)

        def smooth_abs(x):
            if x > 0:
                return x ** 2
            return -x

        grad_abs = jax.grad(smooth_abs)
        print(grad_abs(2.0))
    """)


def test_stg602_under_vmap_and_in_helpers_the_jitted_function_calls():
    assert_marked("""
        import jax
        import jax.numpy as jnp

        def relu(x):
            if x > 0:  # STG602
                return x
            return 0.0

        def clip(v, limit):
            if v.sum() > limit:  # STG602
                return v / v.sum()
            return v

        @jax.jit
        def step(v):
            return clip(v, 1.0)

        batched = jax.vmap(relu)(jnp.arange(3.0))
    """)


# Across modules and frameworks --------------------------------------------------------------------------


def test_cross_module_helper_reached_from_a_jitted_function_in_another_module(tmp_path):
    got = assert_project_marked(tmp_path, {
        "app/__init__.py": "",
        "app/ops.py": """
            import numpy as np

            def normalise(x):
                return x / np.linalg.norm(x)  # STG601

            def unused(x):
                return x / np.linalg.norm(x)
        """,
        "app/train.py": """
            import jax
            from app import ops

            @jax.jit
            def step(x):
                return ops.normalise(x) * 2
        """,
    })
    assert "JAX tracer" in got[0].message and "traced by `app.train.step`" in got[0].message


def test_tensorflow_messages_unchanged_in_a_tensorflow_file():
    (f,) = findings("""
        import tensorflow as tf

        @tf.function
        def f(x):
            print(x)
            return x
    """)
    assert "tf.print" in f.message and "JAX" not in f.message


def test_stg302_not_for_pytree_arguments_or_modules_under_nnx_jit():
    """An argument object is a pytree under JAX: a static attribute that changes retraces (row 42),
    it is not read stale (checked with flax 0.12.8: the new value is used)."""
    assert_marked("""
        import jax
        from flax import nnx

        class Model(nnx.Module):
            def __init__(self):
                self.scale = 1.0

        @nnx.jit
        def apply(model, x):
            return x * model.scale

        m = Model()
        apply(m, 1.0)
        m.scale = 2.0
        apply(m, 1.0)
    """)


def test_stg102_not_for_container_methods_on_arguments_jit_rebuilds():
    """`jax.jit` passes pytrees rebuilt from their leaves: `state.pop("params")` on an argument (a
    Flax FrozenDict's functional `pop`, tensorflow/docs guide/jax2tf) changes nothing outside."""
    assert_marked("""
        import jax

        @jax.jit
        def train_step(state, grads):
            other, params = state.pop("params")
            return other, jax.tree_util.tree_map(lambda p, g: p - g, params, grads)
    """)


def test_stores_into_arguments_of_jax_transforms_change_jax_s_copy_not_the_caller_s():
    """`jax.jit`, `vmap`, `grad` and the bodies of `lax` control flow rebuild every non-static
    argument's containers around its leaves (checked with JAX 0.10.2: the caller's dict and list
    stay as they were, the copy is what the function returns), so a store into one is neither
    a leaked tracer (STG201) nor a mutation of outside state (STG102): rlax's `params_["online"]
    = ...` in a jitted update that returns `params_`. Also through a helper the jitted function
    hands its argument to."""
    assert_marked("""
        import jax
        import jax.numpy as jnp
        from jax import lax

        def normalise(batch):
            batch["image"] = batch["image"] / 255.0

        @jax.jit
        def update(params, batch, lr):
            normalise(batch)
            params["online"] = params["online"] - lr * jnp.mean(batch["image"])
            params["steps"] += 1
            params["history"].append(lr)
            return params

        def loss(params, x):
            params["w"] = params["w"] * 2.0
            return jnp.sum(params["w"] * x)

        grads = jax.grad(loss)({"w": jnp.ones(3)}, jnp.ones(3))
        batched = jax.vmap(loss, in_axes=(None, 0))({"w": jnp.ones(3)}, jnp.ones((2, 3)))

        def body(carry, x):
            carry["total"] = carry["total"] + x
            return carry, x

        final, _ = lax.scan(body, {"total": jnp.zeros(())}, jnp.arange(3.0))
    """)


def test_stores_that_reach_the_caller_s_objects_under_jax_are_still_flagged():
    """The twins: a store into JAX's copy that the function never reads again was meant for the
    caller, who never sees it (hijax.ipynb's `has_shared.a[...] = 5`: "updates don't
    propagate"); a static argument is the caller's own object (stored into only while tracing);
    a global or an enclosing list outlives the call; `eqx.filter_jit` passes a non-array leaf as
    the caller's object (its attribute set at trace time stays set: every call would set the same
    `True` again, so only the preview tier reports it); and `tf.function` refuses to let its
    function modify a Python argument."""
    assert_tiers("""
        import functools
        import equinox as eqx
        import jax
        import tensorflow as tf

        seen = []

        class Options:
            calls = 0

        @jax.jit
        def set_rate(state, rate):
            state["rate"] = rate * 0.5  # STG102

        @functools.partial(jax.jit, static_argnames="options")
        def step(x, options):
            options.calls += 1  # STG102
            seen.append(x)  # STG201
            return x * 2

        def run(xs):
            totals = []

            def body(carry, x):
                totals.append(x)  # STG201
                return carry + x, x

            return jax.lax.scan(body, 0.0, xs)

        @eqx.filter_jit
        def filtered(x, state):
            state["handle"].opened = True  # preview STG102
            return x + 1

        @tf.function
        def tf_step(state, x):
            state["total"] = state["total"] + x  # STG102
            return state
    """)


def test_a_string_key_tested_against_a_traced_argument_is_a_python_bool():
    """`if "labels" in batch:` in a jitted step (big_vision's trainers): a membership test of a
    string asks a dict of arrays for a key, a Python bool (checked with JAX 0.10.2; on an array
    JAX raises TypeError, no tracer error). The twin tests a traced number against an array."""
    assert_marked("""
        import jax
        import jax.numpy as jnp

        @jax.jit
        def loss_fn(params, batch):
            logits = batch["image"] @ params
            if "labels" in batch:
                return jnp.mean((logits - batch["labels"]) ** 2)
            masks = [batch[k] for k in ("a", "b") if f"{k}_mask" not in batch]
            return jnp.mean(logits) + len(masks)

        @jax.jit
        def has_value(x, values):
            if x in values:  # STG602
                return x
            return -x
    """)


def test_a_loop_over_a_pytree_s_leaves_is_structure_and_a_module_s_function_jits_once():
    """big_vision: `for y in jax.tree_leaves(metrics):` in a pmapped function goes once per leaf
    (the tree's structure, the same on every call), not over an array's rows (STG503); and
    `jax.jit(jnp.sum)` in a function run again and again wraps the same module function each
    time, which JAX traces once (row 35: checked with JAX 0.10.2, one trace for two wrappers).
    The twins: a loop over a traced array's rows, and `jax.jit` of a bound method in a loop."""
    assert_marked("""
        import jax
        import jax.numpy as jnp

        @jax.jit
        def check(metrics, mask, rows):
            total = 0.0
            for y in jax.tree_leaves(metrics):
                total = total + jnp.sum(y * mask)
            for i, (a, b) in enumerate(zip(jax.tree.leaves(metrics), jax.tree.leaves(rows))):
                total = total + jnp.sum(a * b) * i
            for row in jnp.stack([mask, mask]):  # STG503
                total = total + jnp.sum(row)
            return total

        def sync(x):
            return jax.jit(jnp.sum)(x)

        class Model:
            def loss(self, x):
                return jnp.sum(x)

        def run(xs):
            model = Model()
            for x in xs:
                sync(x)
                jax.jit(model.loss)(x)  # STG502
    """)


def test_jit_of_a_parameter_s_attribute_in_a_loop_is_a_bound_method_only_in_preview():
    """`jax.jit(model.loss)` with `model` a parameter: a bound method, most likely (a new object
    per access, a retrace per iteration), but `model.loss` may be a field holding a function, the
    same object every time (tests/runtime/test_function_identity.py): a heuristic step, in the
    preview tier."""
    source = """
        import jax

        def run(model, xs):
            for x in xs:
                jax.jit(model.loss)(x)
    """
    assert not findings(source, "STG502")
    (finding,) = [f for f in check_source(example_source(source), settings=Settings(preview=True)) if f.code == "STG502"]
    assert finding.line == 5 and "bound method" in finding.message
    assert any("most likely" in note.message for note in finding.because)


def test_linen_variable_updated_in_a_helper_method_the_call_reaches():
    """big_vision's VQ-VAE: `__call__` runs `self.encode(x)`, which updates the module's own
    `self.variable("state", ...)` with `.value = ...` (a mutable collection under
    `apply(..., mutable=["state"])`, no leak). A helper method of a Linen module is as frozen
    as `__call__`: a plain attribute stored there still raises."""
    assert_marked("""
        import jax
        import jax.numpy as jnp
        import flax.linen as nn

        class VQ(nn.Module):
            def setup(self):
                self.counts = self.variable("state", "counts", jnp.ones, (4,))

            def encode(self, x):
                self.counts.value = self.counts.value * 0.9 + jnp.sum(x)
                self.last = x  # STG102
                return x * 2

            def __call__(self, x):
                return self.encode(x)

        @jax.jit
        def step(variables, x):
            return VQ().apply(variables, x, mutable=["state"])
    """)


def test_jit_in_a_loop_of_a_function_bound_before_the_loop_traces_once():
    """jraph's `for name, graphs in cases: jax.jit(network_fn)(graphs)` with `network_fn` a
    parameter: every iteration wraps the same function object, and JAX keeps its traces
    (checked with JAX 0.10.2: one trace in three iterations, also for a lambda bound before the
    loop; three for a lambda made in it, the twin)."""
    assert_marked("""
        import jax
        import jax.numpy as jnp

        def check(network_fn, cases):
            scale = lambda x: x * 2
            for graphs in cases:
                jax.jit(network_fn)(graphs)
                jax.jit(scale)(graphs)
                jax.jit(lambda x: x * 3)(graphs)  # STG502
    """)


def test_jit_of_a_haiku_transformed_apply_in_a_loop_traces_once():
    """jraph's Game of Life: `jax.jit(net.apply)(params, g)` each step, `net` from
    `hk.without_apply_rng(hk.transform(net_fn))`: Haiku's `Transformed` holds plain functions,
    `net.apply is net.apply`, and JAX traces once (checked with dm-haiku 0.0.17 and JAX 0.10.2:
    one trace in three iterations); so does optax's `GradientTransformation` (`opt.update`,
    optax's `_adding_test`; optax 0.2.8: one trace). The twin jits a bound method, new on every
    access."""
    assert_marked("""
        import haiku as hk
        import jax
        import optax

        def net_fn(x):
            return hk.Linear(2)(x)

        class Model:
            def apply(self, params, x):
                return x

        def run(params, graphs):
            net = hk.without_apply_rng(hk.transform(net_fn))
            model = Model()
            opt = optax.add_noise(0.01, 0.55, 0)
            state = opt.init(params)
            for g in graphs:
                g = jax.jit(net.apply)(params, g)
                g, state = jax.jit(opt.update)(g, state)
                g = jax.jit(model.apply)(params, g)  # STG502
            return g
    """)
