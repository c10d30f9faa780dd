"""Issue 14, the JAX audit's false-positive classes (bench/audit_verdicts_jax.csv): each negative
with its positive twin. Behaviour checked with JAX 0.10.2 / Flax 0.12.8 in this venv."""

from __future__ import annotations

from rulecases import assert_marked


def test_linen_module_run_by_init_outside_jit_is_python_while_the_jitted_model_is_staged():
    """rng_guide.ipynb: `RNGModule().init(...)` at top level runs `__call__` as Python (the
    print shows concrete keys on every call); only the model whose `.apply` runs inside the
    jitted `forward` (and the submodule it builds) is staged, though the page jits something."""
    assert_marked("""
        import jax
        import flax.linen as nn

        class Sub(nn.Module):
            @nn.compact
            def __call__(self):
                print(self.make_rng("rng_stream"))

        class RNGModule(nn.Module):
            @nn.compact
            def __call__(self):
                print(self.make_rng("rng_stream"))
                Sub()()

        rng_module = RNGModule()
        variables = rng_module.init({"rng_stream": jax.random.key(0)})

        class Inner(nn.Module):
            @nn.compact
            def __call__(self, x):
                print("inner", x)  # STG101
                return nn.Dense(2)(x)

        class Model(nn.Module):
            @nn.compact
            def __call__(self, x):
                print("model", x)  # STG101
                return Inner()(x)

        module = Model()

        def forward(variables, x):
            return module.apply(variables, x)

        jit_forward = jax.jit(forward)
    """)


def test_linen_module_of_unknown_receiver_under_jit_stages_the_file_s_modules():
    """`state.apply_fn(...)` in a jitted step: the file does not say which module runs, so its
    module classes stay staged."""
    assert_marked("""
        import jax
        import flax.linen as nn

        class CNN(nn.Module):
            @nn.compact
            def __call__(self, x):
                print("tracing", x)  # STG101
                return nn.Dense(2)(x)

        @jax.jit
        def step(state, x):
            return state.apply_fn({"params": state.params}, x)
    """)


def test_linen_module_run_outside_jit_still_raises_on_attribute_stores():
    """A bound Linen module is frozen whether or not jit runs it (row 40: `Counter().init(...)`
    raises SetAttributeFrozenModuleError eagerly); other stores there run as Python."""
    assert_marked("""
        import jax
        import flax.linen as nn

        seen = []

        class Counter(nn.Module):
            @nn.compact
            def __call__(self, x):
                self.calls = 1  # STG102
                seen.append(1)
                print("calls", x)
                return nn.Dense(2)(x)

        variables = Counter().init(jax.random.key(0), jax.numpy.ones((1, 2)))
    """)


def test_stg602_partition_specs_of_a_traced_variable_tree_are_python_values():
    """bridge_guide.ipynb: `nn.get_partition_spec(variables)` under jit returns PartitionSpecs
    (checked: `jax.P` inside the trace); comparing a traced value still fails."""
    assert_marked("""
        import jax
        import flax.linen as nn

        @jax.jit
        def create(variables, x):
            specs = nn.get_partition_spec(variables)
            assert specs["params"]["w"] == jax.sharding.PartitionSpec("in", "out")
            assert variables["params"]["w"].sum() > 0  # STG602
            return x
    """)


def test_stg101_under_transforms_that_trace_every_call_outside_jit():
    """A print in a function `jax.shard_map` / `jax.vmap` / `nnx.vmap` runs outside jit: traced
    on every call, so the print runs on every call (checked with JAX 0.10.2); under jit it runs
    once per trace."""
    assert_marked("""
        import jax
        from flax import nnx

        def per_shard(x):
            print("shard", x)
            return x * 2

        def per_example(x):
            print("example", x)
            return x + 1

        def per_row(x):
            print("row", x)
            return x - 1

        def jitted_rows(x):
            print("traced once", x)  # STG101
            return x

        def run(mesh, x):
            y = jax.shard_map(per_shard, mesh=mesh, in_specs=jax.P("i"), out_specs=jax.P("i"))(x)
            y = jax.vmap(per_example)(y)
            y = nnx.vmap(per_row)(y)
            return jax.jit(jax.vmap(jitted_rows))(y)
    """)


def test_stg502_jitted_function_made_on_a_line_that_runs_once_vs_in_a_loop():
    """Custom_derivative_rules.ipynb: `print(jit(grad(f))(3.))` at top level runs once (one
    trace, nothing re-created); the same made inside a loop traces on every iteration."""
    assert_marked("""
        import jax
        from jax import grad, jit

        def f(x):
            return x ** 2

        print(jit(grad(f))(3.))
        g = jax.jit(lambda x: f(x) + 1)
        print(g(2.0))

        def train(batches, w):
            for x in batches:
                w = w - jax.jit(lambda p: f(p * x))(w)  # STG502
            return w
    """)


def test_stg502_nn_jit_made_in_a_linen_loop_counts_even_when_the_module_runs_as_python():
    """linen_intro.ipynb: `nn.jit(nn.Dense)(...)` inside `__call__`'s loop makes a new jitted module
    per layer and call (flax 0.12.8: 3 applies x 2 layers traced 6 times), though `init`/`apply`
    run outside jit; a print there runs as Python."""
    assert_marked("""
        import jax
        import flax.linen as nn

        class MLP(nn.Module):
            features: tuple

            @nn.compact
            def __call__(self, x):
                print("applying", x.shape)
                for i, feat in enumerate(self.features):
                    x = nn.jit(nn.Dense)(feat, name=f"layers_{i}")(x)  # STG502
                return x

        model = MLP(features=(3, 4))
        variables = model.init(jax.random.key(0), jax.numpy.ones((4, 4)))
        y = model.apply(variables, jax.numpy.ones((4, 4)))
    """)


def test_stg601_stg602_not_where_a_handler_catches_the_tracer_error():
    """Haiku's `dropout_impl`: `try: if rate < 0 ...: raise ... except
    jax.errors.ConcretizationTypeError: pass` validates a Python rate and lets a traced one
    through (TracerBoolConversionError is a ConcretizationTypeError; checked with JAX 0.10.2):
    code that names the tracer error expects the traced case. Every tracer error is a
    `TypeError`, so `except TypeError`, `except Exception` and a bare `except:` catch it too: the
    trace does not fail there (gyaradax's `_static_float`, the eighteenth audit's BO-P2; JAX
    0.10.2, tests/runtime/test_jax_eighteenth_audit_bo_facts.py). A handler for another error
    (`except ValueError`) catches nothing, code in the handler is not covered, and `range()` on a
    tracer raises TracerIntegerConversionError, which `except ConcretizationTypeError` misses."""
    assert_marked("""
        import jax
        import jax.numpy as jnp
        from jax.errors import ConcretizationTypeError, TracerArrayConversionError

        @jax.jit
        def dropout(rate, x):
            try:
                if rate < 0 or rate >= 1:
                    raise ValueError("rate must be in [0, 1)")
                if rate == 0.0:
                    return x
            except jax.errors.ConcretizationTypeError:
                pass
            try:
                scale = float(1 - rate)
            except (ValueError, ConcretizationTypeError):
                scale = 1 - rate
            return x * scale

        @jax.jit
        def clip(x, limit):
            try:
                if limit > 0:
                    x = jnp.minimum(x, limit)
            except TypeError:
                pass
            try:
                scale = float(limit)
            except Exception:
                scale = 1.0
            try:
                key = {limit: 1}
                scale = int(limit)
            except:
                key = {}
            try:
                if limit > 0:  # STG602
                    x = jnp.minimum(x, limit)
            except ValueError:
                pass
            try:
                scale = float(limit)  # STG601
            except (ValueError, KeyError):
                scale = 1.0
            try:
                for _ in range(limit):  # STG602
                    x = x * scale
            except ConcretizationTypeError:
                if limit > 1:  # STG602
                    x = x * 3
            return x
    """)


def test_stg602_a_tuple_of_literals_left_as_the_default_is_a_python_value():
    """Haiku's `dropout(rng, rate, x, broadcast_dims=())` under `jax.jit(basic.dropout)`: a
    caller that leaves `broadcast_dims` out gets the Python tuple (defaults are not jit's
    arguments), so `for dim in broadcast_dims: if dim > len(shape):` is Python, like a number
    default; a parameter without a default is traced."""
    assert_marked("""
        import jax
        import jax.numpy as jnp

        def dropout(rng, rate, x, broadcast_dims=(), axes=[0, 1]):
            shape = list(x.shape)
            for dim in broadcast_dims:
                if dim > len(shape):
                    raise ValueError(dim)
            for axis in axes:
                if axis >= x.ndim:
                    raise ValueError(axis)
            return x * (1 - rate)

        def scale(x, dims):
            for dim in dims:
                if dim > 0:  # STG602
                    x = x * 2
            return x

        drop = jax.jit(dropout)(jax.random.key(0), 0.5, jnp.ones(3))
        scaled = jax.jit(scale)(jnp.ones(3), jnp.ones(2))
    """)


def test_stg602_a_pytree_map_keeps_the_tree_it_maps():
    """Diffrax's `diffeqsolve`: `saveat = jtu.tree_map(fn, saveat, is_leaf=...)` returns the
    `SaveAt` it was given (its leaves mapped), so `saveat.dense` stays the Python bool it was
    (checked with JAX 0.10.2: `tree_map` of an object with a bool field under jit keeps the bool
    when `fn` returns it). The result is an array where the tree's leaves are traced, or where
    the function makes arrays (`jnp.zeros_like`, a lambda's `jnp` call, a function of the file)."""
    assert_marked("""
        import jax
        import jax.numpy as jnp
        import jax.tree_util as jtu

        class Options:
            def __init__(self, dense=False):
                self.dense = dense

        def keep(x):
            return x

        def zeros(shape):
            return jnp.zeros(shape)

        @jax.jit
        def solve(y0, shapes):
            options = jtu.tree_map(keep, Options(dense=True))
            if options.dense:
                y0 = y0 * 2
            scaled = jax.tree.map(lambda y: y * 2, y0)
            if scaled.sum() > 0:  # STG602
                y0 = -y0
            made = jax.tree.map(lambda s: jnp.ones(s), (3,))
            if made[0].sum() > 0:  # STG602
                y0 = y0 + 1
            filled = jax.tree.map(zeros, (2,))
            if filled[0].sum() > 0:  # STG602
                y0 = y0 + 2
            return y0

        out = solve(jnp.ones(3), (2,))
    """)


def test_stg601_numpy_on_a_tracer_is_caught_as_a_tracer_array_conversion_error():
    """NumPy converting a tracer raises TracerArrayConversionError, which is no
    ConcretizationTypeError: which error a call raises is read from its qualified name
    (`import numpy as onp` too), not from how it is spelled."""
    assert_marked("""
        import jax
        import numpy as onp
        from jax.errors import ConcretizationTypeError, TracerArrayConversionError

        @jax.jit
        def mean(x):
            try:
                m = onp.asarray(x).mean()
            except TracerArrayConversionError:
                m = x.mean()
            try:
                s = onp.asarray(x).sum()  # STG601
            except ConcretizationTypeError:
                s = x.sum()
            return m + s
    """)
