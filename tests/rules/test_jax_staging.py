"""Issue 14: which code JAX stages (static), and that each function is judged by the framework
that stages it. The behaviour each case relies on is in ../shared/spec/jax-behaviour.md."""

from __future__ import annotations

from rulecases import assert_marked, assert_project_marked, findings


def test_jit_decorator_call_and_partial_stage_the_function():
    assert_marked("""
        import functools
        from functools import partial
        import jax
        import jax.numpy as jnp

        @jax.jit
        def a(x):
            print(x)  # STG101
            return x

        def b(x):
            print(x)  # STG101
            return x

        b_jit = jax.jit(b)

        def run(x):
            return b_jit(x)

        @functools.partial(jax.jit, static_argnums=(1,))
        def c(x, n):
            print(n)  # STG101
            return x * n

        @partial(jax.pmap, axis_name="i")
        def d(x):
            print(x)  # STG101
            return x

        def eager(x):
            print(x)
            return jnp.sum(x)
    """)


def test_jax_aliases_resolve_by_meaning_not_spelling():
    assert_marked("""
        from jax import jit as compile_it
        import equinox as eqx
        from flax import nnx

        @compile_it
        def a(x):
            print(x)  # STG101
            return x

        @eqx.filter_jit
        def b(x):
            print(x)  # STG101
            return x

        @nnx.jit
        def c(model, x):
            print(x)  # STG101
            return model(x)
    """)


def test_lax_control_flow_bodies_are_staged_without_jit():
    assert_marked("""
        import jax
        from jax import lax

        def body(i, carry):
            print("iteration", i)  # STG101
            return carry + i

        def true_branch(x):
            print("true")  # STG101
            return x

        def false_branch(x):
            return -x

        def step(carry, x):
            print(x)  # STG101
            return carry + x, x

        def run(x, xs, p):
            y = lax.fori_loop(0, 10, body, x)
            z = lax.cond(p, true_branch, false_branch, y)
            return lax.scan(step, z, xs)
    """)


def test_debug_print_and_callbacks_are_not_side_effects():
    assert_marked("""
        import jax

        def log_host(x):
            print("host", x)  # runs on every call, with a concrete value
            return x

        @jax.jit
        def f(x):
            jax.debug.print("x {}", x)
            jax.debug.callback(log_host, x)
            return x
    """)


def test_linen_call_setup_and_compact_methods_are_staged():
    assert_marked("""
        import jax
        import flax.linen as nn

        class Base(nn.Module):
            pass

        class MLP(Base):
            features: int = 4

            def setup(self):
                print("setup")  # STG101
                self.dense = nn.Dense(self.features)

            def __call__(self, x):
                print("call", x)  # STG101
                return self.dense(x)

            def describe(self):
                print("not traced")

        class Compact(nn.Module):
            @nn.compact
            def encode(self, x):
                print(x)  # STG101
                return nn.Dense(3)(x)

        @jax.jit
        def apply(variables, x):
            return MLP().apply(variables, x)

        encode = jax.jit(Compact().apply)
    """)


def test_linen_modules_where_nothing_is_jitted_run_as_python(tmp_path):
    """`MLP().init(key, x)` in a design script: `setup` runs once per call, as Python. A module
    whose class a jitting module imports is staged (the usual models.py + train.py)."""
    assert_project_marked(tmp_path, {
        "proj/__init__.py": "",
        "proj/design.py": """
            import flax.linen as nn

            class Lazy(nn.Module):
                def setup(self):
                    print("setting up")
                    self.dense = nn.Dense(2)
        """,
        "proj/models.py": """
            import flax.linen as nn

            class CNN(nn.Module):
                @nn.compact
                def __call__(self, x):
                    print("calling")  # STG101
                    return nn.Dense(2)(x)
        """,
        "proj/train.py": """
            import jax
            from proj.models import CNN

            @jax.jit
            def step(variables, x):
                return CNN().apply(variables, x)
        """,
    })


def test_helpers_across_modules(tmp_path):
    assert_project_marked(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/helpers.py": """
            def normalise(x):
                print("normalising")  # STG101
                if x.sum() > 0:  # STG602
                    return x / x.sum()
                return x
        """,
        "pkg/train.py": """
            import jax
            from pkg.helpers import normalise

            @jax.jit
            def step(x):
                return normalise(x) * 2
        """,
    })


def test_mixed_file_each_function_judged_by_its_framework():
    got = findings("""
        import jax
        import jax.numpy as jnp
        import tensorflow as tf

        @tf.function
        def tf_step(x):
            print(x)
            if tf.reduce_sum(x) > 0:
                x = -x
            return x

        @jax.jit
        def jax_step(x):
            print(x)
            if jnp.sum(x) > 0:
                x = -x
            return x
    """)
    by_line = {(f.line, f.code): f.message for f in got}
    assert set(by_line) == {(7, "STG101"), (14, "STG101"), (15, "STG602")}, sorted(by_line)
    assert "tf.print" in by_line[(7, "STG101")]
    assert "jax.debug.print" in by_line[(14, "STG101")]
    assert "jax.lax.cond" in by_line[(15, "STG602")]
    assert all("\n" not in m for m in by_line.values())
