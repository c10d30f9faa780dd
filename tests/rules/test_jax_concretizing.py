"""Code after a concretizing call on a tracer is never traced (the eleventh JAX audit's AM1,
bench/fresh_audit_notes.md): `float(x)`, `int(x)`, `bool(x)`, `x.item()`, `np.asarray(x)` of a
jitted function's non-static argument or of a JAX op's result raise while tracing (JAX 0.10.2:
tests/runtime/test_jax_concretizing_facts.py), so a statement that runs only after such a call
never runs while traced, and no rule reports there. Each case with its negative twin: the call
under a branch or a `try`, on a static argument or a closed-over NumPy array, the function also
run inside another trace, and the code before the call, which does run at each trace."""

from __future__ import annotations

from rulecases import assert_tiers


def test_code_after_a_conversion_of_a_traced_argument_is_in_no_trace():
    """A further conversion after the first is still reported (`Rule.trace_error`): the trace
    meets it as soon as the first is fixed."""
    assert_tiers("""
        from functools import partial

        import jax
        import jax.numpy as jnp
        import numpy as np


        @jax.jit
        def after_float(x):
            print("before", x.shape)  # STG101
            v = float(x)  # STG601
            print("after", v)
            w = np.asarray(x)  # STG601
            return x


        @jax.jit
        def after_an_op(x):
            y = jnp.sum(x)
            a = np.asarray(y)  # STG601
            print("after an op", a)
            return x


        @jax.jit
        def after_an_item_in_a_loop(x, rows):
            for r in rows:
                v = r.item()  # STG601
                print("each row", v)
            print("after the loop")  # STG101
            return x


        def helper(x):
            v = int(x.sum())  # STG601
            print("helper", v)
            return x


        helper_jit = jax.jit(helper)
    """)


def test_a_conversion_that_may_not_run_or_may_not_raise_leaves_the_code_after_it_traced():
    """The twins: the conversion under a branch, in a `try` whose handler catches it, inside a
    conditional expression; of a static argument, of a closed-over NumPy array (concrete), of a
    parameter alone where `bool` accepts a container; and a function also called from another jitted function's body, where it
    holds what that caller passes."""
    assert_tiers("""
        from functools import partial

        import jax
        import jax.numpy as jnp
        import numpy as np

        TABLE = np.ones(3)


        @jax.jit
        def under_a_branch(x, flag):
            if flag:
                v = float(x)  # STG601
            print("under a branch")  # STG101
            return x


        @jax.jit
        def in_a_try(x):
            try:
                v = float(x)  # (caught: every tracer error is a TypeError)
            except TypeError:
                v = 0.0
            print("after the try", v)  # STG101
            return x


        @jax.jit
        def in_a_conditional_expression(x, flag):
            v = float(x) if flag else 0.0  # STG601
            print("after it", v)  # STG101
            return x


        @partial(jax.jit, static_argnums=1)
        def from_a_static_argument(x, n):
            k = int(n)
            print("static", k)  # STG101
            return x


        @jax.jit
        def from_a_closed_over_array(x):
            t = np.asarray(TABLE)
            print("closed over", t)  # STG101
            return x


        @jax.jit
        def bool_of_a_parameter_alone(x, batch):
            b = bool(batch)  # preview STG602
            print("bool", b)  # STG101
            return x


        def also_inlined(x):
            v = float(x)  # STG601
            print("also inlined", v)  # STG101
            return x


        also_inlined_jit = jax.jit(also_inlined)


        @jax.jit
        def outer(x):
            return also_inlined(2.0) + x
    """)


def test_a_callee_that_converts_its_argument_before_it_can_return_stops_the_trace_too():
    """`v = to_float(loss)` with `def to_float(x): return float(x)`: the callee runs inside the
    caller's trace, so its conversion of a traced argument (or of a JAX op's result) raises there,
    and the caller's code after the call is never traced. The twins: a callee that may return
    first (`if x is None: return 0.0`), and one given a Python value (`to_float(3.0)`)."""
    assert_tiers("""
        import jax
        import jax.numpy as jnp
        import numpy as np


        def to_float(x):
            return float(x)


        def checks_first(x):
            if x is None:
                return 0.0
            return float(x)  # STG601


        def op_inside(x):
            y = np.asarray(jnp.sum(x))  # STG601
            return y


        @jax.jit
        def converts_in_a_callee(x, n):
            v = to_float(n * 2)
            print("after the callee", v)
            return x


        @jax.jit
        def an_op_in_a_callee(x):
            w = op_inside(x)
            print("after the op", w)
            return x


        @jax.jit
        def may_return_first(x):
            v = checks_first(x)
            print("may return first", v)  # STG101
            return x


        @jax.jit
        def given_a_python_value(x):
            v = to_float(3.0)
            print("a Python value", v)  # STG101
            return x
    """)


def test_range_of_a_jnp_value_stops_the_trace_even_through_calls():
    """The twelfth JAX audit's AQ1 (jax_metric_CalabiYau): `range()` of a JAX op's result
    (`jnp.array(factors)[i]`, even from static arguments) raises TracerIntegerConversionError
    under jit (tests/runtime/test_jax_concretizing_facts.py), as `int()` does: what follows a
    `for _ in range(n):` header on every path is never traced, in a function a jit reaches
    through calls as well, and a loop no iteration of which can complete unrolls nothing
    (STG503). A conversion two calls down a chain of plain functions stops the caller too, and so
    does indexing a Python list with a traced argument. The twins: code after a loop that may not
    run (its range over a static length), a loop whose iteration may end first (`continue`),
    sizes of the static tuple itself, a callee chain given a Python value, an array indexed."""
    assert_tiers("""
        from functools import partial

        import jax
        import jax.numpy as jnp


        def sample_weight(factors, pts):
            omgs = jnp.array(factors) - 1
            n = 0
            for i in range(len(factors)):
                for _ in range(omgs[i]):  # STG602
                    n += 1
            print("after a loop that may not run", n)  # STG101
            return pts * n


        def measure(factors, pts):
            n = jnp.int32(len(factors))
            for _ in range(n):  # STG602
                pts = pts + 1
            print("after the range", pts)
            return jnp.sum(sample_weight(factors, pts))


        measure_jit = jax.jit(measure, static_argnums=(0,))


        @partial(jax.jit, static_argnums=(1,))
        def blocks(x, n):
            sizes = jnp.arange(n) + 1
            for i in range(n):
                for _ in range(sizes[i]):  # STG602
                    x = x * 0.5
            return x


        @partial(jax.jit, static_argnums=(1,))
        def skips_first(x, n):
            sizes = jnp.arange(n) + 1
            for i in range(n):  # STG503
                if i == 0:
                    continue
                for _ in range(sizes[i]):  # STG602
                    x = x * 0.5
            return x


        @partial(jax.jit, static_argnums=(1,))
        def static_sizes(x, n):
            for i in range(n):  # STG503
                for _ in range(i):
                    x = x * 0.5
            print("static sizes", x)  # STG101
            return x


        def to_int(v):
            return int(v)  # STG601


        def count(v):
            k = to_int(v)
            return k


        def deeper(v):
            return count(v)


        @jax.jit
        def two_calls_deep(x):
            n = deeper(jnp.sum(x))
            print("after", n)
            return x


        @jax.jit
        def two_calls_deep_given_a_python_value(x):
            n = deeper(3.0)
            print("a Python value", n)  # STG101
            return x


        @jax.jit
        def picks_from_a_list(x, i):
            sizes = [1, 2, 3]
            k = sizes[i]
            print("after the index", k)
            return x


        @jax.jit
        def picks_from_an_array(x, i):
            sizes = jnp.array([1, 2, 3])
            k = sizes[i]
            print("an array's index", k)  # STG101
            return x
    """)


def test_a_while_or_if_on_a_jnp_value_leaves_its_body_untraced():
    """The twelfth JAX audit's AQ3 (bqskit-qfactor-jax's `while should_continue(loop_var):` in a
    debug branch): an `if` or `while` test is a `bool` of its value, which on a JAX op's result
    (a local def's returning one on every path) raises TracerBoolConversionError under jit, so
    neither the body nor what follows is traced. The twins: a test on a static argument, on
    `jnp.isdtype` (a Python bool under jit: tests/runtime/test_jax_certainty_facts.py), a test
    of a helper that may return a Python value, and the code before the `while`."""
    assert_tiers("""
        import os
        from functools import partial

        import jax
        import jax.numpy as jnp


        @jax.jit
        def sweep(x):
            def should_continue(v):
                return jnp.logical_not(v > 3)

            if "PRINT_LOSS" in os.environ:
                print("debug sweep")  # STG101
                while should_continue(x):  # preview STG602
                    x = x + 1
                    print("loss", x)
                return x
            return jax.lax.while_loop(should_continue, lambda v: v + 1, x)


        @jax.jit
        def tested_by_an_op(x):
            if jnp.any(x > 0):  # STG602
                print("positive", x)
            print("after the if", x)
            return x


        @partial(jax.jit, static_argnums=(1,))
        def tested_statically(x, n):
            while n > 0:
                print("static", n)  # STG101
                n -= 1
            return x


        @jax.jit
        def tested_by_a_dtype_question(x):
            if jnp.isdtype(x.dtype, "real floating"):
                x = x * 2
            print("a dtype question", x)  # STG101
            return x


        def maybe_python(v):
            if v is None:
                return False
            return jnp.any(v > 0)


        @jax.jit
        def tested_by_a_helper_that_may_return_python(x):
            while maybe_python(x):
                print("maybe", x)  # STG101
                x = x - 1
            return x
    """)


def test_code_after_an_unconditional_raise_or_return_is_never_run():
    """The twelfth JAX audit's AQ2 (tune-jax's demo: `raise ValueError("Refusing to compile")` as
    the jitted function's first statement): Python never runs what follows a line that always
    leaves its block, traced or not, so no rule reports there. The twins: a raise under a
    condition, and a `return` then `yield` (an empty generator: the `yield` still makes it one)."""
    assert_tiers("""
        from functools import partial

        import jax
        import jax.numpy as jnp


        @partial(jax.jit, static_argnames=("steps",))
        def refuses(x, w, steps=20):
            raise ValueError("Refusing to compile")
            for i in range(steps):
                x = (x @ w) / jnp.linalg.norm(x, axis=-1, keepdims=True)
            return x


        @partial(jax.jit, static_argnames=("steps",))
        def refuses_sometimes(x, w, steps=20):
            if steps > 10:
                raise ValueError("Refusing to compile")
            for i in range(steps):  # STG503
                x = (x @ w) / jnp.linalg.norm(x, axis=-1, keepdims=True)
            return x


        @jax.jit
        def returns_first(x):
            return x
            print("never", x)


        @jax.jit
        def in_a_loop(xs):
            for x in xs:
                continue
                print("never either", x)
            print("after the loop", xs)  # STG101
            return xs
    """)


def test_a_def_in_a_loop_body_does_not_end_its_iteration():
    """A nested def's `return` leaves the def's calls, not the iteration it is defined in: the
    `range()` of a tracer after it still raises on every iteration, and the loop unrolls nothing
    (no STG503). The twin, a `continue` of the loop body itself before it:
    `test_range_of_a_jnp_value_stops_the_trace_even_through_calls`'s `skips_first`."""
    assert_tiers("""
        from functools import partial

        import jax
        import jax.numpy as jnp


        @partial(jax.jit, static_argnums=(1,))
        def helper_first(x, n):
            sizes = jnp.arange(n) + 1
            for i in range(n):
                def half(v):
                    return v * 0.5
                for _ in range(sizes[i]):  # STG602
                    x = half(x)
            return x
    """)
