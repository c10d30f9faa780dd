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
                v = float(x)  # STG601
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
