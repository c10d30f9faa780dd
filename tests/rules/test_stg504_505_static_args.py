"""STG504 unhashable-static-argument and STG505 identity-hashed-static-argument."""

from __future__ import annotations

from rulecases import assert_marked, findings

# STG504 ------------------------------------------------------------------------------------------


def test_unhashable_values_for_static_positions_and_hashable_twins():
    assert_marked("""
        import functools
        import jax
        import jax.numpy as jnp
        import numpy as np

        @functools.partial(jax.jit, static_argnums=(1,), static_argnames=("mode",))
        def apply(x, sizes, mode="a"):
            return x

        def run(x):
            apply(x, [1, 2])  # STG504
            apply(x, {"a": 1})  # STG504
            apply(x, {1, 2})  # STG504
            apply(x, np.array([1, 2]))  # STG504
            apply(x, jnp.zeros(2))  # STG504
            apply(x, list(range(3)))  # STG504
            apply(x, (1, 2), mode=["a"])  # STG504
            apply(x, sizes=[3])  # STG504
            apply(x, (1, 2))
            apply(x, "abc", mode="b")
            apply(x, 3, mode=("a", "b"))
            apply([x], (1,))
    """)


def test_names_bound_to_unhashable_values():
    assert_marked("""
        import functools
        import jax

        @functools.partial(jax.jit, static_argnames="widths")
        def pad(x, widths):
            return x

        def run(x):
            widths = [(1, 1)]
            pad(x, widths=widths)  # STG504
            widths_t = ((1, 1),)
            pad(x, widths=widths_t)
    """)


def test_class_hashing_decides():
    assert_marked("""
        import dataclasses
        import functools
        from typing import NamedTuple

        import jax

        @dataclasses.dataclass
        class Mutable:
            k: int

        @dataclasses.dataclass(frozen=True)
        class Frozen:
            k: int

        @dataclasses.dataclass(eq=False)
        class NoEq:
            k: int

        class EqOnly:
            def __eq__(self, other):
                return True

        class Hashed:
            def __eq__(self, other):
                return True

            def __hash__(self):
                return 0

        class Spec(NamedTuple):
            k: int

        @functools.partial(jax.jit, static_argnums=1)
        def f(x, cfg):
            return x

        CFG = NoEq(1)

        def run(x):
            f(x, Mutable(1))  # STG504
            f(x, EqOnly())  # STG504
            f(x, Frozen(1))
            f(x, Hashed())
            f(x, Spec(1))
            f(x, CFG)
    """)


def test_bad_specs_at_the_definition():
    got = findings("""
        import functools
        import jax

        def f(x, y):
            return x

        a = jax.jit(f, static_argnums=2)
        b = jax.jit(f, static_argnames=("z",))
        c = jax.jit(f, static_argnums=-1)
        d = jax.jit(f, static_argnames="y", donate_argnums=(0,))

        @functools.partial(jax.jit, static_argnums=(0, 1))
        def g(*args):
            return args

        @functools.partial(jax.jit, static_argnames="anything")
        def h(x, **kwargs):
            return x
    """, "STG504")
    assert [f.line for f in got] == [7, 8]
    assert "names no parameter of a function of 2 positional parameters" in got[0].message
    assert "`static_argnames` names `z`, which is not a parameter" in got[1].message
    assert all(f.function is None for f in got)


def test_methods_jitted_with_a_traced_self():
    assert_marked("""
        import functools
        import equinox as eqx
        import jax
        from flax import nnx

        class Plain:
            @jax.jit  # STG504
            def f(self, x):
                return x

            @functools.partial(jax.jit, static_argnums=0)
            def g(self, x):
                return x

            @functools.partial(jax.jit, static_argnums=1)  # STG504
            def h(self, n, x):
                return x

            @staticmethod
            @jax.jit
            def s(x):
                return x

        class Tree(eqx.Module):
            w: float

            @jax.jit
            def __call__(self, x):
                return self.w * x

        class Other(nnx.Module):
            @jax.jit
            def __call__(self, x):
                return x

        @jax.tree_util.register_pytree_node_class
        class Registered:
            @jax.jit
            def f(self, x):
                return x

        class Later:
            @jax.jit
            def f(self, x):
                return x

        jax.tree_util.register_pytree_node(Later, lambda t: ((), None), lambda a, c: Later())
    """)


def test_message_names_the_error_and_the_fix():
    (f,) = findings("""
        import functools
        import jax

        @functools.partial(jax.jit, static_argnums=1)
        def pad_to(x, widths):
            return x

        pad_to(1, [(1, 1)])
    """, "STG504")
    assert f.message.startswith("`[(1, 1)]` is a list, passed for the static parameter `widths` of `pad_to`: under jax.jit")
    assert "ValueError: Non-hashable static arguments are not supported" in f.message
    assert "pass a tuple" in f.message


# STG505 ------------------------------------------------------------------------------------------


def test_identity_hashed_objects_new_per_call_and_reused_twins():
    assert_marked("""
        import functools
        import jax

        class Config:
            def __init__(self, k):
                self.k = k

        class Derived(Config):
            pass

        @functools.partial(jax.jit, static_argnums=1)
        def step(x, cfg):
            return x * cfg.k

        GLOBAL = Config(1)
        step(1.0, Config(1))

        def per_call(x):
            return step(x, Config(2))  # STG505

        def per_call_name(x):
            cfg = Derived(2)
            return step(x, cfg)  # STG505

        def loop(xs):
            for x in xs:
                step(x, Config(3))  # STG505
                cfg = Config(4)
                step(x, cfg)  # STG505

        def reused(xs):
            cfg = Config(5)
            for x in xs:
                step(x, cfg)
                step(x, GLOBAL)
    """)


def test_not_static_or_not_identity_stays_silent():
    assert_marked("""
        import dataclasses
        import functools
        import jax

        class Config:
            def __init__(self, k):
                self.k = k

        @dataclasses.dataclass(frozen=True)
        class Frozen:
            k: int

        class WithHash(Config):
            def __hash__(self):
                return hash(self.k)

            def __eq__(self, other):
                return self.k == other.k

        @functools.partial(jax.jit, static_argnums=2)
        def step(x, traced, cfg):
            return x

        def run(xs):
            for x in xs:
                step(x, Config(1), Frozen(1))
                step(x, x, WithHash(1))
    """)


def test_stg505_message():
    (f,) = findings("""
        import functools
        import jax

        class Config:
            pass

        @functools.partial(jax.jit, static_argnames="cfg")
        def step(x, cfg):
            return x

        def run(xs):
            for x in xs:
                step(x, cfg=Config())
    """, "STG505")
    assert f.message.startswith("`Config()` makes a new `Config` for the static parameter `cfg` of `step` on every iteration of the loop")
    assert "each call given a new one traces and compiles again" in f.message and "@dataclass(frozen=True)" in f.message


def test_equinox_module_with_a_function_field_under_plain_jit():
    assert_marked("""
        from typing import Callable

        import equinox as eqx
        import jax
        import jax.numpy as jnp

        class Scaled(eqx.Module):
            weight: jax.Array
            activation: Callable

            def __call__(self, x):
                return self.activation(self.weight * x)

        class StaticAct(eqx.Module):
            weight: jax.Array
            activation: Callable = eqx.field(static=True)

        class Holder(eqx.Module):
            inner: callable

        def relu(x):
            return x

        @jax.jit
        def apply(m, x):
            return m(x)

        def run(x, layer):
            a = jax.jit(lambda m, x: m(x))(Scaled(jnp.ones(2), jax.nn.relu), x)  # STG504
            b = apply(Scaled(jnp.ones(2), activation=relu), x)  # STG504
            c = eqx.filter_jit(lambda m, x: m(x))(Scaled(jnp.ones(2), jax.nn.relu), x)
            d = apply(StaticAct(jnp.ones(2), jax.nn.relu), x)
            e = apply(Holder(layer), x)
            return a, b, c, d, e
    """)


def test_jit_applied_in_the_call_is_decided_in_the_file():
    got = findings("""
        import jax

        def f(x, sizes):
            return x

        def run(x):
            jax.jit(f, static_argnums=1)(x, [1, 2])
            jax.jit(f, static_argnums=1)(x, (1, 2))
            jax.jit(f)(x, [1, 2])
    """, "STG504")
    assert [f.line for f in got] == [7]
    assert "`[1, 2]` is a list, passed for the static parameter `sizes` of `jax.jit(f, static_argnums=1)`" in got[0].message


def test_tests_of_the_error_itself_are_left_alone():
    assert_marked("""
        import functools
        import unittest

        import jax
        import numpy as np
        import pytest

        @functools.partial(jax.jit, static_argnums=1)
        def f(x, y):
            return x

        class T(unittest.TestCase):
            def test_unhashable(self):
                with self.assertRaisesRegex(ValueError, "Non-hashable static arguments"):
                    f(1, np.asarray(1))
                with pytest.raises(ValueError):
                    f(1, [1])
                f(1, [2])  # STG504
    """)


def test_methods_called_through_an_instance_bind_self():
    got = findings("""
        import functools
        import jax
        import jax.numpy as jnp

        class A:
            def __hash__(self):
                return 0

            def __eq__(self, other):
                return True

            @functools.partial(jax.pmap, static_broadcasted_argnums=(0, 2))
            def f(self, x, sizes):
                return x + 2

        def run(x):
            A().f(jnp.ones(2), [1])
            A().f(jnp.asarray([3]), (1,))
    """, "STG504")
    assert [(f.line, f.message.split(":")[0]) for f in got] == [
        (17, "`[1]` is a list, passed for the static parameter `sizes` of `A().f`")]


def test_a_class_redefined_then_registered_keeps_the_first_flagged():
    assert_marked("""
        from jax import jit, tree_util

        class CustomClass:
            @jit  # STG504
            def calc(self, y):
                return y

        class CustomClass:
            @jit
            def calc(self, y):
                return y

            def _tree_flatten(self):
                return (), None

            @classmethod
            def _tree_unflatten(cls, aux, children):
                return cls()

        tree_util.register_pytree_node(CustomClass, CustomClass._tree_flatten, CustomClass._tree_unflatten)
    """)
