"""What a pytree's flattening makes traced and what it makes static (`stagelint.analysis.pytrees`,
`JaxView.traced_self`), each fact with its positive test and its negative twin. Issue 23, from
half C's jwave STG604 (`TimeAxis.tree_flatten` puts `dt`, `t_end` in the aux data). Behaviour
checked with JAX 0.10.2, Flax 0.12.8 and Equinox 0.13.8 in tests/runtime/test_jax_pytree_fields.py."""

from __future__ import annotations

from rulecases import assert_marked, assert_project_marked, findings


def test_aux_data_of_tree_flatten_is_a_python_value_children_are_traced():
    """jwave: `jnp.arange(0, time_axis.Nt, 1)` with `Nt = np.ceil(self.t_end / self.dt)` and both
    in the aux data works under jit; the same numbers as children make it a traced length."""
    assert_marked("""
        import jax
        import jax.numpy as jnp
        import numpy as np
        from jax.tree_util import register_pytree_node_class

        @register_pytree_node_class
        class TimeAxis:
            def __init__(self, dt, t_end):
                self.dt = dt
                self.t_end = t_end

            def tree_flatten(self):
                children = (None,)
                aux = (self.dt, self.t_end)
                return (children, aux)

            @classmethod
            def tree_unflatten(cls, aux, children):
                return cls(*aux)

            @property
            def Nt(self):
                return np.ceil(self.t_end / self.dt)

        @register_pytree_node_class
        class Signal:
            def __init__(self, dt, t_end):
                self.dt = dt
                self.t_end = t_end

            def tree_flatten(self):
                return (self.dt, self.t_end), None

            @classmethod
            def tree_unflatten(cls, aux, children):
                return cls(*children)

            @property
            def Nt(self):
                return np.ceil(self.t_end / self.dt)

        @jax.jit
        def steps(time_axis: TimeAxis):
            return jnp.arange(0, time_axis.Nt, 1) * time_axis.dt

        @jax.jit
        def signal_steps(signal: Signal):
            return jnp.arange(0, signal.Nt, 1)  # STG604
    """)


def test_a_property_computed_with_jax_numpy_is_traced_even_from_aux_data():
    """`jnp.ceil(self.t_end / self.dt)` runs under the trace: its result is a tracer whatever
    its operands (only NumPy, `math` and builtins compute a Python value)."""
    assert_marked("""
        import jax
        import jax.numpy as jnp
        from jax.tree_util import register_pytree_node_class

        @register_pytree_node_class
        class TimeAxis:
            def __init__(self, dt, t_end):
                self.dt = dt
                self.t_end = t_end

            def tree_flatten(self):
                return (), (self.dt, self.t_end)

            @classmethod
            def tree_unflatten(cls, aux, children):
                return cls(*aux)

            @property
            def Nt(self):
                return jnp.ceil(self.t_end / self.dt)

        @jax.jit
        def steps(time_axis: TimeAxis):
            return jnp.arange(0, time_axis.Nt, 1)  # STG604
    """)


def test_the_class_of_a_parameter_comes_from_another_module(tmp_path):
    """jwave: the helper annotates `time_axis: TimeAxis`, defined and registered in another
    module; a jitted test passes its own parameter through. The twin reads a child."""
    assert_project_marked(tmp_path, {
        "sim/__init__.py": "",
        "sim/geometry.py": """
            from jax.tree_util import register_pytree_node_class

            @register_pytree_node_class
            class TimeAxis:
                def __init__(self, dt, t_end, signal):
                    self.dt = dt
                    self.t_end = t_end
                    self.signal = signal

                def tree_flatten(self):
                    return (self.signal,), (self.dt, self.t_end)

                @classmethod
                def tree_unflatten(cls, aux, children):
                    return cls(*aux, *children)

                @property
                def Nt(self):
                    return int(self.t_end / self.dt)
        """,
        "sim/run.py": """
            import jax
            import jax.numpy as jnp

            from sim.geometry import TimeAxis

            def simulate(time_axis: TimeAxis):
                steps = jnp.arange(0, time_axis.Nt, 1)
                return steps * time_axis.dt, jnp.arange(time_axis.signal)  # STG604

            @jax.jit
            def run(time_axis):
                return simulate(time_axis)
        """,
    })


def test_register_pytree_node_flatten_function_and_register_dataclass_meta_fields():
    assert_marked("""
        import dataclasses
        import functools
        import jax
        import jax.numpy as jnp
        from jax.tree_util import register_dataclass, register_pytree_node

        class Grid:
            def __init__(self, values, n):
                self.values = values
                self.n = n

        register_pytree_node(Grid, lambda g: ((g.values,), g.n), lambda n, c: Grid(c[0], n))

        @functools.partial(register_dataclass, data_fields=["a", "m"], meta_fields=["k"])
        @dataclasses.dataclass
        class Explicit:
            a: float
            m: int
            k: int

        @register_dataclass
        @dataclasses.dataclass
        class Declared:
            a: float
            m: int
            k: int = dataclasses.field(metadata=dict(static=True))

        @jax.jit
        def grid(g: Grid, e: Explicit, d: Declared):
            return jnp.zeros(g.n) + g.values, jnp.arange(e.k) * e.a, jnp.arange(d.k)

        @jax.jit
        def traced(g: Grid, e: Explicit, d: Declared):
            return jnp.arange(g.values), jnp.arange(e.m), jnp.arange(d.m)  # STG604
    """)


def test_flax_struct_and_equinox_static_fields_under_a_python_test():
    """STG602: `if cfg.n > 2:` on a `struct.field(pytree_node=False)` / `eqx.field(static=True)`
    field is a Python test under jit; on a plain field it is a tracer's truth value."""
    assert_marked("""
        import equinox as eqx
        import jax
        import jax.numpy as jnp
        from flax import struct

        @struct.dataclass
        class Config:
            scale: float
            n: int = struct.field(pytree_node=False)

        class Model(eqx.Module):
            scale: float
            n: int = eqx.field(static=True)

        @jax.jit
        def static_tests(cfg: Config, model: Model, x):
            if cfg.n > 2:
                x = x * 2
            if model.n > 2:
                x = x + 1
            return x

        @jax.jit
        def traced_tests(cfg: Config, model: Model, x):
            if cfg.scale > 2:  # STG602
                x = x * 2
            if model.scale > 2:  # STG602
                x = x + 1
            return x
    """)


def test_a_jitted_method_flattens_self_so_a_reassigned_attribute_is_not_stale():
    """`@jax.jit` on a method passes `self` as an argument (a pytree, or TypeError at the call):
    each call flattens it afresh, so `self.J += other.J` is seen by the next call, through a
    helper method too. With `static_argnums=0` / `static_argnames="self"` it is hashed, and the
    reassigned attribute is stale."""
    assert_marked("""
        import functools
        import jax
        from jax.tree_util import register_pytree_node_class

        @register_pytree_node_class
        class Operator:
            def __init__(self, J, n):
                self.J = J
                self.n = n

            def tree_flatten(self):
                return (self.J,), (self.n,)

            @classmethod
            def tree_unflatten(cls, aux, children):
                return cls(children[0], aux[0])

            def coupling(self):
                return self.J

            @jax.jit
            def apply(self, x):
                return x * self.coupling() + self.n

            def add(self, other):
                self.J += other.J

        class Hashed:
            def __init__(self):
                self.J = 2.0
                self.K = 1.0

            @functools.partial(jax.jit, static_argnums=0)
            def apply(self, x):
                return x * self.J  # STG302

            @functools.partial(jax.jit, static_argnames="self")
            def shift(self, x):
                return x + self.K  # STG302

            def add(self, other):
                self.J += other
                self.K += other

        def main():
            op, h = Operator(1.0, 2), Hashed()
            op.apply(1.0)
            h.apply(1.0)
            h.shift(1.0)
            op.add(op)
            h.add(1.0)
            op.apply(1.0)
            h.apply(1.0)
            h.shift(1.0)
    """)


def test_a_bound_method_keeps_its_object_as_a_constant():
    """`jax.jit(self.step)`: the bound method is the function, `self` is not an argument: its
    attributes are baked in, as before."""
    found = findings("""
        import jax

        class Stepper:
            def __init__(self):
                self.rate = 0.1
                self.run = jax.jit(self.step)

            def step(self, x):
                return x * self.rate

            def slow_down(self):
                self.rate = self.rate / 2

        def main():
            s = Stepper()
            s.run(1.0)
            s.slow_down()
            s.run(1.0)
    """, "STG302", preview=True)
    assert [f.line for f in found] == [9]


def test_a_finding_on_a_child_says_which_pytree_traces_it(tmp_path):
    """The proof names the class whose flattening makes the attribute a child, where it is."""
    files = {
        "sim/__init__.py": "",
        "sim/geometry.py": """
            from jax.tree_util import register_pytree_node_class

            @register_pytree_node_class
            class TimeAxis:
                def __init__(self, dt, signal):
                    self.dt = dt
                    self.signal = signal

                def tree_flatten(self):
                    return (self.signal,), (self.dt,)

                @classmethod
                def tree_unflatten(cls, aux, children):
                    return cls(*aux, *children)
        """,
        "sim/run.py": """
            import jax
            import jax.numpy as jnp

            from sim.geometry import TimeAxis

            @jax.jit
            def run(time_axis: TimeAxis):
                return jnp.arange(time_axis.signal), jnp.arange(time_axis.dt)  # STG604
        """,
    }
    (finding,) = assert_project_marked(tmp_path, files)
    assert finding.because[-1].message == (
        "`time_axis.signal` is traced: a child of the pytree `TimeAxis`, not aux data or a static field "
        "(sim/geometry.py:9)")
