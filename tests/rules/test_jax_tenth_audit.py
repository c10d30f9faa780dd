"""The false classes of the tenth fresh JAX audit's read halves (AI, AJ: bench/fresh_audit_notes.md,
"Tenth JAX audit"), each a fact checked with JAX 0.10.2 (tests/runtime/test_jax_guard_facts.py)
or Python's own semantics, with its negative twin: code under a Tracer test runs only eagerly
(`context.truth_while_tracing`, asked through `FileContext.in_staged_context`), a host callback's
function runs as Python on every call (`frameworks.JAX_EAGER_ESCAPES`), a jit nothing calls or a
branch a constant never takes stages nothing, a draw after a constant reseed is the same on
every call, and a clock read only by the trace-time print never reaches a call."""

from __future__ import annotations

from rulecases import assert_tiers


def test_code_under_a_tracer_test_runs_only_eagerly():
    """jax_utils' KKT solver (AJ1): its self-adjointness checks and their report prints run only
    under `if DEBUG and not (isinstance(rhs_x, getattr(jax, "core").Tracer) or ...)`. Inside
    jit and the `lax` loops every value derived from the arguments is a Tracer, so the branch
    never runs while tracing, whatever `DEBUG` is. The same through an alias, a helper whose
    whole body is the test, what follows `if isinstance(x, Tracer): return`, and TensorFlow's
    `if tf.executing_eagerly():` in a `tf.function`."""
    assert_tiers("""
        import jax
        import jax.numpy as jnp
        import tensorflow as tf
        from jax.core import Tracer as CoreTracer

        DEBUG = True
        Tracer = jax.core.Tracer

        def is_tracer(x):
            return isinstance(x, jax.core.Tracer)

        def check_self_adjoint(mv, n):
            for i in range(n):
                print("trial", i)

        def kkt_solver(rhs_x, rhs_lam):
            if DEBUG and not (
                isinstance(rhs_x, getattr(jax, "core").Tracer)
                or isinstance(rhs_lam, getattr(jax, "core").Tracer)
            ):
                check_self_adjoint(rhs_x, 64)
            if not isinstance(rhs_x, Tracer):
                print("alias", rhs_x)
            if not isinstance(rhs_x, CoreTracer):
                print("imported", rhs_x)
            if not is_tracer(rhs_lam):
                print("helper", rhs_lam)
            return rhs_x + rhs_lam

        def report(x):
            if isinstance(x, jax.core.Tracer):
                return x
            print("report", x)
            for row in x:
                print(row)
            return x

        @jax.jit
        def step(x, lam):
            x = jax.lax.while_loop(lambda c: c.sum() < 3, lambda c: kkt_solver(c, lam), x)
            return report(x)

        @tf.function
        def tf_step(x):
            if tf.executing_eagerly():
                print("eager", x)
            return x + 1
    """)


def test_code_under_a_test_true_while_tracing_or_undecided_runs_while_tracing():
    """The negative twin: the traced branch of the same tests (`if isinstance(x, Tracer):`,
    `if is_tracer(x):`), a test the Tracer test does not decide (`DEBUG or not isinstance(...)`),
    and a test of another type (`jax.Array`, which a traced value also is)."""
    assert_tiers("""
        import jax

        DEBUG = True

        def is_tracer(x):
            return isinstance(x, jax.core.Tracer)

        @jax.jit
        def step(x):
            if isinstance(x, jax.core.Tracer):
                print("traced", x)  # STG101
            if is_tracer(x):
                print("helper", x)  # STG101
            if DEBUG or not isinstance(x, jax.core.Tracer):
                print("debug", x)  # STG101
            if isinstance(x, jax.Array):
                print("array", x)  # STG101
            return x + 1
    """)


def test_a_function_handed_to_buffer_callback_runs_on_every_call():
    """fea-in-jax's solver bridges (AJ2): `buffer_callback(__amgx_solve_impl, result_info)(...)`
    in a jitted function. Like `pure_callback` and `io_callback`, the function runs at execution
    time on the concrete buffers at every call, not while tracing: its prints are per call. The
    twin: the same function called directly by the jitted one is traced."""
    assert_tiers("""
        import jax
        import numpy as np
        from jax.experimental.buffer_callback import buffer_callback

        def solve_impl(ctx, out, b):
            print("x", np.asarray(b))
            np.asarray(out)[...] = np.asarray(b)

        def traced_impl(b):
            print("traced", b)  # STG101
            return b

        @jax.jit
        def solve(b):
            info = jax.ShapeDtypeStruct(b.shape, b.dtype)
            b = traced_impl(b)
            return buffer_callback(solve_impl, info)(b)
    """)


def test_a_jit_under_a_local_bound_only_to_false_never_applies():
    """fea-in-jax's `solve_nonlinear_step` (AJ3): `is_homogeneous = False` on the line before
    `if is_homogeneous: inner_solve = jax.jit(solve_nonlinear_step, ...)` (the homogeneity
    checks are commented out). A local name its function binds only to the literal False is
    False when the test reads it: the block never runs, the function runs eagerly every call.
    The twin: the flag set True later in the loop (a later turn jits), or a parameter."""
    assert_tiers("""
        import jax

        def solve_nonlinear_step(x):
            print("Global dimensionality", x.shape)
            return x * 2

        def solve_linear_step(x):
            print("linear", x.shape)  # STG101
            return x * 2

        def solve_other_step(x):
            print("other", x.shape)  # STG101
            return x * 2

        def solve(x):
            inner_solve = solve_nonlinear_step
            is_homogeneous = False
            if is_homogeneous:
                inner_solve = jax.jit(solve_nonlinear_step)
            return inner_solve(x)

        def solve_many(xs):
            use_jit = False
            for x in xs:
                run = solve_linear_step
                if use_jit:
                    run = jax.jit(solve_linear_step)
                run(x)
                use_jit = True

        def solve_flag(x, use_jit):
            run = solve_other_step
            if use_jit:
                run = jax.jit(solve_other_step)
            return run(x)
    """)


def test_a_draw_after_a_constant_reseed_in_the_same_function_is_the_same_every_call():
    """rl_with_jax's `jax_rollout` (AJ5): `np.random.seed(seed)` (with `seed = 0` at module
    level) at its top, then `np.random.choice(...)` in the rollout loop below: every eager call
    draws the same sequence, so the trace's constants are what each call would compute. The
    twin: a seed whose value changes (two bindings), a reseed under a branch (not on every path
    to the draw), or after the draw."""
    assert_tiers("""
        import jax
        import numpy as np

        seed = 0
        other = 1
        other = 2

        @jax.jit
        def rollout(x):
            np.random.seed(seed)
            for _ in range(3):
                x = x + np.random.choice(4)
            return x

        @jax.jit
        def moving(x):
            np.random.seed(other)
            return x + np.random.rand()  # STG104

        @jax.jit
        def later(x):
            for _ in range(3):
                x = x + np.random.rand()  # STG104
                np.random.seed(0)
            return x

        @jax.jit
        def branch(x):
            for i in range(3):
                if i == 0:
                    np.random.seed(0)
            return x + np.random.rand()  # STG104
    """)


def test_a_clock_read_only_by_the_trace_time_print_never_reaches_a_call():
    """jax-spectral-dns's `print_verb` (AJ6): `pref = "[" + time.ctime() + "]  " + ...` is read
    only by Python prints of the same function, which run while tracing: the value is used up by
    that output, no call or computation ever sees it, so the finding's claim (every call that
    reuses the trace gets the same value) does not hold; the print is the trace-time effect. The
    twin: the value read by a lambda `jax.debug.callback` runs on every call (frozen there), or
    returned."""
    assert_tiers("""
        import time
        import jax

        def print_verb(*msg, verbosity_level=1):
            pref = "[" + time.ctime() + "]  " + "  " * verbosity_level
            print(pref, *msg)  # STG101

        def log_later(x):
            pref = "[" + time.ctime() + "]"  # STG104
            jax.debug.callback(lambda v: print(pref, v), x)

        def stamp(x):
            t = str(time.time())  # STG104
            print(t)  # STG101
            return t

        @jax.jit
        def step(x):
            print_verb("step")
            log_later(x)
            stamp(x)
            return x + 1
    """)
