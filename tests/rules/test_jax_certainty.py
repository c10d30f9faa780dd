"""Per-step certainty of STG602 and STG102 under JAX (issue 23): each default-tier finding rests
on facts observed with JAX 0.10.2 (tests/runtime/test_jax_certainty_facts.py); a step that is
only a guess moves the finding to the preview tier (`# preview STGnnn`), a step known false
silences it. Each positive has its negative twin."""

from __future__ import annotations

from rulecases import assert_tiers

from stagelint.config import Settings
from stagelint.engine import check_source
from stagelint.rules.base import example_source


def test_stg602_an_op_under_jit_is_a_tracer_even_on_constants_under_vmap_only_a_guess():
    """`analysis.tracers`: under `jax.jit` every op returns a tracer, so `jnp.zeros(3).sum() > 0`
    fails there; under `jax.vmap` alone an op the mapped argument does not reach is concrete."""
    assert_tiers("""
        import jax
        import jax.numpy as jnp

        @jax.jit
        def jitted(x):
            if jnp.zeros(3).sum() > 0:  # STG602
                return x
            return -x

        def mapped(x):
            if jnp.zeros(3).sum() > 0:  # preview STG602
                return x
            return -x

        def mapped_arg(x):
            if jnp.sin(x) > 0:  # STG602
                return x
            return -x

        a = jax.vmap(mapped)(jnp.ones(3))
        b = jax.vmap(mapped_arg)(jnp.ones(3))
    """)


def test_stg602_a_traced_parameter_with_an_operator_is_known_alone_or_through_an_attribute_a_guess():
    """A jitted function's non-static argument is a tracer (a Python scalar included) where an
    operator or an array method uses it; the parameter alone may be a container or None (its
    truth is Python), and an attribute of it may be static pytree data or a property."""
    assert_tiers("""
        import jax

        @jax.jit
        def step(x, threshold, mask, geom, n):
            if x.sum() > threshold:  # STG602
                x = x * 2
            assert mask  # preview STG602
            assert geom.is_squared_euclidean  # preview STG602
            for _ in range(n):  # STG602
                x = x + 1
            return x
    """)


def test_stg602_enumerates_index_and_a_range_variable_are_python_ints_a_row_is_a_tracer():
    """Over a traced array, `enumerate` yields Python ints beside the traced rows (JAX 0.10.2:
    `if i > 0:` works under jit), and so does a `range` loop; a row of the array is traced."""
    assert_tiers("""
        import jax

        @jax.jit
        def total(rows):
            out = rows[0]
            for i, row in enumerate(rows):
                if i > 0:
                    out = out + row
                if row.sum() > 0:  # STG602
                    out = out * 2
            for k in range(2):
                if k == 1:
                    out = out - 1
            return out
    """)


def test_stg602_a_closed_over_value_and_a_pytree_field_are_guesses():
    """A name bound outside the traced function may hold a concrete NumPy array or a JAX one
    (the model does not follow it there); an item of an attribute of an argument may be static
    aux data (jax_cosmo's `cosmo._flags[...]`): only the preview tier reports them."""
    assert_tiers("""
        import jax
        import jax.numpy as jnp

        def make():
            weights = jnp.ones(3)

            @jax.jit
            def growth(cosmo, a):
                if weights.sum() > 0:  # preview STG602
                    a = a * 2
                if cosmo._flags["gamma_growth"]:  # preview STG602
                    a = a + 1
                return a

            return growth
    """)


def test_stg602_the_proof_states_how_the_tracer_is_known():
    source = example_source("""
        import jax

        @jax.jit
        def clip(loss, threshold):
            if loss > threshold:
                return threshold
            return loss
    """)
    (finding,) = [f for f in check_source(source) if f.code == "STG602"]
    assert any("comes from parameter `loss`" in n.message and "JAX traces every leaf" in n.message
               for n in finding.because), [n.message for n in finding.because]


def test_stg102_a_counter_or_a_list_changed_on_every_call_is_known_a_constant_store_a_guess():
    """`frameworks.PER_CALL_MUTATORS`: `+= 1` and `append` change the state again on every eager
    call, which only the tracing call runs under jit (JAX 0.10.2: 1 and one entry after three
    calls); a store of the same Python value, or `dict.update` with the same items, leaves after
    every call what eager code leaves, unless the value changes between calls that reuse the trace."""
    assert_tiers("""
        import jax

        calls = 0
        log = []
        flags = {}
        ready = False

        @jax.jit
        def step(x):
            global calls, ready
            calls += 1  # STG102
            log.append("step")  # STG102
            flags.update(seen=True)  # preview STG102
            ready = True  # preview STG102
            return x
    """)


def test_stg102_a_counter_put_back_in_finally_or_around_a_yield_is_no_lost_update():
    """`stores._restored`: `depth += 1` then `depth -= 1` in `finally:` (or after a context
    manager's `yield`) leaves the counter as it was after every call, traced or reusing the trace
    (JAX 0.10.2); without the `finally`, the increment is a counter changed only while tracing."""
    assert_tiers("""
        import contextlib
        import jax

        nesting = {"depth": 0}
        scopes = {"depth": 0}
        counts = {"depth": 0}

        @contextlib.contextmanager
        def scope():
            scopes["depth"] += 1
            try:
                yield
            finally:
                scopes["depth"] -= 1

        def layer(x):
            with scope():
                return x * 2

        @jax.jit
        def f(x):
            nesting["depth"] += 1
            try:
                return layer(x)
            finally:
                nesting["depth"] -= 1

        @jax.jit
        def g(x):
            counts["depth"] += 1  # STG102
            y = x * 2
            counts["depth"] -= 1  # STG102
            return y
    """)


def test_stg102_the_proof_states_why_the_loss_is_met():
    source = example_source("""
        import jax

        history = []

        @jax.jit
        def step(x):
            history.append(1)
            return x
    """)
    (finding,) = [f for f in check_source(source, settings=Settings()) if f.code == "STG102"]
    assert any("again on every eager call" in n.message for n in finding.because), [n.message for n in finding.because]


def test_stg102_a_list_filled_under_its_own_membership_test_is_a_memo():
    """`if name not in seen: seen.append(name)` adds each name once, eagerly as under jit (JAX
    0.10.2): a memo fill, not flagged; the same append without the test is a list that grows on
    every eager call."""
    assert_tiers("""
        import jax

        seen = []
        log = []

        @jax.jit
        def step(x, name="step"):
            if name not in seen:
                seen.append(name)
            log.append(name)  # STG102
            return x
    """)


def test_stg602_any_all_and_set_of_a_traced_array_need_its_values_iterating_it_does_not():
    """JAX 0.10.2: `any(x > 0)` and `all(...)` test each row (TracerBoolConversionError), `set(x)`
    hashes them (TypeError); `list(x)`, `sum(x)` and `zip(x, y)` only unroll over the static first
    dimension and work. A parameter alone is known to be an array where the function shows it
    (`ids.shape`); else it may be a dict, whose keys `set` reads (`tracers.param_shows_array`)."""
    assert_tiers("""
        import jax

        @jax.jit
        def check(x, ids, names):
            if any(x > 0):  # STG602
                x = -x
            unique = set(ids)  # STG602
            keys = set(names)  # preview STG602
            rows = list(x)
            return sum(rows) + len(unique) + ids.shape[0] + len(keys)
    """)


def test_stg602_set_of_a_dict_argument_reads_its_keys():
    """latent_diffusion_planning's `assert set(batch.keys()).issubset(obs_normalization)` in a
    helper a jitted function calls with a dict of statistics: under jit a dict argument is a
    dict, and `issubset`, `set`, `all` iterate its keys, Python strings (JAX 0.10.2,
    tests/runtime/test_jax_certainty_facts.py): not known to fail, the preview tier. Twin: the
    same on a parameter the function computes with as an array (`jnp.sum(stats)`) is reported."""
    assert_tiers("""
        import jax
        import jax.numpy as jnp

        def normalize(batch, stats):
            assert set(batch.keys()).issubset(stats)  # preview STG602
            return {k: v / 2 for k, v in batch.items()}

        def count(stats):
            if all(stats):  # STG602
                return jnp.sum(stats)
            return jnp.zeros(())

        @jax.jit
        def step(batch, stats, arr):
            return normalize(batch, stats), count(arr)
    """)


def test_k_classes_psum_of_a_constant_module_method_arguments_item_stores_and_replace():
    """Half K: `lax.psum(1, axis)` is the axis size, a Python int (xlstm-jax); a Linen method's
    argument holds what its callers pass (praxis's `summary_type`: a guess, the preview tier);
    an item store on a module's dict does not raise where `self.x = ...` does (praxis); a store
    into JAX's copy returned through `state.replace(...)` is carried out (mujoco_playground)."""
    assert_tiers("""
        import flax.linen as nn
        import jax

        class Block(nn.Module):
            def setup(self):
                object.__setattr__(self, "book", {})

            def __call__(self, x, kind, name="a"):
                size = jax.lax.psum(1, "i")
                if size == 1:
                    x = x * 2
                if kind == 2:  # preview STG602
                    x = x + 1
                self.book[name] = kind  # preview STG102
                self.calls = 1  # STG102
                return x

        def wait(state):
            state.info["steps"] = 0
            return state.replace(data=1.0)

        def lose(state):
            state.info["steps"] = 0  # STG102
            return 1.0

        @jax.jit
        def step(p, state):
            a = jax.lax.cond(p, wait, lambda s: s, state)
            b = jax.lax.cond(p, lose, lambda s: 0.0, state)
            return a, b

        apply = jax.jit(Block().apply)
    """)


def test_stg602_a_backend_query_is_a_python_value_an_op_beside_it_a_tracer():
    """galax's `MockStreamGenerator.run`: `use_vmap = get_backend().platform == "gpu" if vmapped
    is None else vmapped` with `vmapped` static, then `if use_vmap:`. `jax.extend.backend`'s
    queries answer in Python under jit (JAX 0.10.2, tests/runtime/test_jax_certainty_facts.py):
    not taken for a JAX op. Twin: an op's result in the same place is a tracer."""
    assert_tiers("""
        import functools

        import jax
        import jax.extend as jex
        import jax.numpy as jnp

        @functools.partial(jax.jit, static_argnames=("vmapped",))
        def run(x, *, vmapped=None):
            use_vmap = jex.backend.get_backend().platform == "gpu" if vmapped is None else vmapped
            if use_vmap:
                x = x * 2
            big = jnp.sum(x) > 1 if vmapped is None else vmapped
            if big:  # STG602
                x = -x
            return x
    """)


def test_stg602_a_function_handed_to_a_callee_not_known_to_call_it_is_traced_only_by_guess():
    """The whole chain known (`proof.guessed_hop`): `run_later(body, x)` in a jitted function
    passes `body` to a function the code does not show calling it while tracing (it may keep it,
    or run it elsewhere): the preview tier. Twin: `jax.lax.map(other, x)` traces `other`."""
    assert_tiers("""
        import jax
        import jax.numpy as jnp
        from elsewhere import run_later

        def body(x):
            if jnp.sum(x) > 0:  # preview STG602
                return -x
            return x

        def other(x):
            if jnp.sum(x) > 0:  # STG602
                return -x
            return x

        @jax.jit
        def step(x):
            return run_later(body, x) + jax.lax.map(other, x)
    """)


def test_stg602_a_jit_reaching_a_function_only_through_a_call_no_trace_makes_stages_none_of_it():
    """JAXFluxTubeGK: the jitted objective calls the precompute builder only under `if
    collision_frequency is not None:`, which it leaves at None (`flags.traced_reach`), and a test
    differentiates the builder with `jax.grad` alone, where a truth test on its values reads the
    primal (JAX 0.10.2, tests/runtime/test_jax_certainty_facts.py): no trace fails there. Twin: the
    same test under `jax.jit(jax.grad(...))` is reported."""
    source = '''
        import jax
        import jax.numpy as jnp

        def build_bgk(freq):
            f = jnp.asarray(freq)
            if bool(jnp.any(f < 0.0)):{mark}
                raise ValueError("negative")
            return f

        def build(x, collision_frequency=None):
            collisions = None
            if collision_frequency is not None:
                collisions = build_bgk(collision_frequency)
            return x, collisions

        def objective(x):
            return build(x)[0].sum()

        step = jax.jit(jax.value_and_grad(objective))

        def test_grad():
            def obj(freq):
                return build_bgk(freq).sum()
            return {wrap}(obj)(0.2)
    '''
    assert_tiers(source.format(mark="", wrap="jax.grad"))
    assert_tiers(source.format(mark="  # STG602", wrap="jax.jit(jax.grad)").replace("jax.jit(jax.grad)(obj)",
                                                                                     "jax.jit(jax.grad(obj))"))


def test_stg602_a_pytree_property_returning_int_is_a_python_value_one_returning_an_op_a_tracer():
    """sfincs_jax: `if op.n_xi > 2:` with `n_xi` a property of a registered pytree returning
    `int(self.fblock.n_xi)`: `int(...)` gives a Python int or raises (JAX 0.10.2,
    tests/runtime/test_jax_certainty_facts.py), never a tracer. Twin: a property returning a child's
    `sum()` is one."""
    assert_tiers("""
        import jax
        import jax.tree_util as jtu

        @jtu.register_pytree_node_class
        class Op:
            def __init__(self, x, mode):
                self.x = x
                self.mode = mode

            def tree_flatten(self):
                return (self.x,), (self.mode,)

            @classmethod
            def tree_unflatten(cls, aux, children):
                return cls(children[0], aux[0])

            @property
            def n(self):
                return int(self.x.sum())

            @property
            def total(self):
                return self.x.sum()

        @jax.jit
        def apply(op: Op, v):
            if op.n > 2:
                v = v * 2
            if op.total > 0:  # STG602
                v = -v
            return v
    """)


def test_stg602_the_tpu_description_and_cdiv_of_python_ints_are_python_values():
    """maxtext's Pallas kernels (jax602's left list): `pltpu.get_tpu_info()` is a dataclass of
    Python ints, its nested parts and methods' results Python too, and `pl.cdiv` of Python ints a
    Python int, inside a trace (JAX 0.10.2, tests/runtime/test_jax_pallas_python_facts.py): tests
    on them are decided while tracing. Twins: `pl.cdiv` of a traced argument is an op's result
    (`lax.div`), and an op beside the description is a tracer."""
    assert_tiers("""
        import jax
        import jax.numpy as jnp
        from jax.experimental import pallas as pl
        from jax.experimental.pallas import tpu as pltpu

        @jax.jit
        def configure(x, n):
            tpu_info = pltpu.get_tpu_info()
            num_lanes = tpu_info.sparse_core.num_lanes
            if tpu_info.fp8_ops_per_second > 0:
                x = x * 2
            assert num_lanes % 8 == 0
            assert tpu_info.get_sublane_tiling(x.dtype) > 0
            for _ in range(pl.cdiv(x.shape[0], num_lanes)):
                x = x + 1
            for _ in range(pl.cdiv(n, num_lanes)):  # STG602
                x = x - 1
            if jnp.sum(x) > tpu_info.num_lanes:  # STG602
                x = -x
            return x
    """)


def test_stg602_an_argument_shard_map_takes_with_a_none_spec_is_the_callers_object():
    """maxtext's `wrap_flash_attention` (jax602's left list): `jax.shard_map` with `in_specs=(...,
    None, ...)` hands that argument on as the caller's object (`cp_size` stays the Python int;
    JAX 0.10.2, tests/runtime/test_jax_pallas_python_facts.py), as `vmap`'s `in_axes=None` does:
    a test on it is not known to be on a tracer. Twin: a `P()` spec makes it a tracer."""
    assert_tiers("""
        import functools

        import jax
        from jax.sharding import PartitionSpec as P

        def attention(mesh, q, cp_size):
            @functools.partial(jax.shard_map, mesh=mesh, in_specs=(P("x"), None), out_specs=P("x"))
            def wrap(query, cp_size):
                if cp_size > 1:
                    query = query * 2
                return query

            @functools.partial(jax.shard_map, mesh=mesh, in_specs=(P("x"), P()), out_specs=P("x"))
            def traced(query, cp_size):
                if cp_size > 1:  # STG602
                    query = query * 2
                return query

            return wrap(q, cp_size), traced(q, cp_size)
    """)
