"""Facts the fixed bugs' misses lacked (bench/fresh_audit_notes.md, "Fifteen more fixed bugs"),
each checked with JAX 0.10.2 / equinox 0.13.8 (tests/runtime/test_jax_recall_facts.py), with its
negative twin. STG601 and STG602 are preview rules under JAX as a whole (`Rule.preview_under`, left
out here as in every rule test: tests/test_preview_under.py tests that tier)."""

from __future__ import annotations

import pytest

from rulecases import assert_tiers, findings
from stagelint.frameworks import JAX, JAX_RECORDED_CALL_PREFIXES, optax_update_argument


def test_a_comprehensions_variable_over_a_traced_array_is_a_tracer_as_a_for_statements_is():
    """jax-models' ConvNeXt: `[x.item() for x in jnp.linspace(...)]` in jitted code, in a list
    comprehension and a generator expression, as the `for` statement form. (The statement's loop
    is in preview: its body adds no JAX operation of its own.)"""
    assert_tiers("""
        import jax
        import jax.numpy as jnp

        @jax.jit
        def rates(x):
            a = [v.item() for v in jnp.linspace(0.0, 0.1, 4)]  # STG601
            b = list(v.item() for v in jnp.linspace(0.0, 0.1, 4))  # STG601
            out = []
            for v in jnp.linspace(0.0, 0.1, 4):  # preview STG503
                out.append(v.item())  # STG601
            return x * a[0] * b[0] * out[0]
    """)


def test_a_comprehensions_range_index_and_a_dicts_keys_are_python_values():
    """The negative twin: a comprehension's `range(...)`, `enumerate`'s index and the keys of a
    dict of arrays are Python values under jit; tested, compared or used as keys, nothing fails."""
    assert_tiers("""
        import jax
        import jax.numpy as jnp

        @jax.jit
        def f(x):
            batch = {"a": jnp.sin(x), "b": jnp.cos(x)}
            out = {k: batch[k] * 2 for k in batch if k != "a"}
            for k in batch:
                if k == "b":
                    out[k] = out[k] + 1
            firsts = [i for i, v in enumerate(jnp.ones(3)) if i > 0]
            squares = [i * i for i in range(3) if i > 0]
            return out, firsts, squares
    """)


def test_a_local_bound_to_a_traced_comparison_is_a_tracer_in_a_bare_truth_test():
    """diffrax's `direction = t0 > t1` ... `if direction:`: the test is the comparison's tracer,
    as `if t0 > t1:` is, also under `not`."""
    assert_tiers("""
        import jax
        import jax.numpy as jnp

        @jax.jit
        def solve(t0, t1, y):
            direction = t0 > t1
            if direction:  # STG602
                y = -y
            flipped = jnp.sum(y) > 0
            if not flipped:  # STG602
                y = y * 2
            return y
    """)


def test_a_local_bound_to_a_parameter_or_rebound_on_a_branch_is_not_followed():
    """The negative twins: a local bound to a parameter alone (a Python flag or None under jit as
    well as an array), and a local a branch may rebind to a Python value (two bindings reach the
    test): not known to be a tracer."""
    assert_tiers("""
        import jax

        @jax.jit
        def solve(t0, t1, y, flag=None):
            d = flag
            if d:
                y = -y
            e = t0 > t1
            if flag is None:
                e = True
            if e:
                y = y * 2
            return y
    """)


def test_a_range_over_a_traced_arrays_first_dimension_is_a_loop_over_its_rows():
    """rlax's `lambda_returns`: `for i in reversed(range(v_t.shape[0]))` unrolls once per row of
    `v_t`, as `for row in v_t` does; also over a JAX op's result."""
    assert_tiers("""
        import jax
        import jax.numpy as jnp

        @jax.jit
        def lambda_returns(r_t, v_t):
            g = v_t[-1]
            returns = []
            for i in reversed(range(v_t.shape[0])):  # STG503
                g = r_t[i] + 0.9 * g
                returns.insert(0, g)
            w = jnp.cumsum(v_t)
            for i in range(w.shape[0]):  # STG503
                g = g + w[i]
            return jnp.stack(returns), g
    """)


def test_a_range_over_another_dimension_or_a_python_number_is_not_a_row_loop():
    """The negative twins: `range(x.shape[1])` counts columns (a model's width, not the data's
    length), and `range(len(names))` of a Python list counts its items."""
    assert_tiers("""
        import jax
        import jax.numpy as jnp

        NAMES = ["a", "b"]

        @jax.jit
        def columns(v):
            acc = 0.0
            for i in range(v.shape[1]):
                acc = acc + v[:, i]
            for j in range(len(NAMES)):
                acc = acc + j
            return acc
    """)


def test_equinox_runs_check_init_under_the_trace_of_the_jitted_function_that_builds_the_module():
    """galax's `__check_init__`: a Module built in a jitted function runs its `__check_init__` (and
    its bases') there, on tracer fields."""
    pytest.importorskip("equinox")
    assert_tiers("""
        import equinox as eqx
        import jax
        import jax.numpy as jnp

        class Base(eqx.Module):
            a: jax.Array

            def __check_init__(self):
                if jnp.any(self.a < 0):  # STG602
                    raise ValueError("negative")

        class Checked(Base):
            b: jax.Array

            def __check_init__(self):
                if jnp.any(self.a < self.b):  # STG602
                    raise ValueError("a below b")

        @jax.jit
        def build(x):
            m = Checked(x, x - 1.0)
            return m.a + m.b
    """)


def test_equinox_check_init_of_a_module_built_outside_jit_runs_on_concrete_fields():
    """The negative twin: the same module built only in eager code checks concrete arrays."""
    pytest.importorskip("equinox")
    assert_tiers("""
        import equinox as eqx
        import jax
        import jax.numpy as jnp

        class Checked(eqx.Module):
            a: jax.Array
            b: jax.Array

            def __check_init__(self):
                if jnp.any(self.a < self.b):
                    raise ValueError("a below b")

        @jax.jit
        def step(m, x):
            return m.a * x

        def main():
            m = Checked(jnp.ones(3), jnp.zeros(3))
            return step(m, 2.0)
    """)


def test_a_wrapper_parameter_handed_on_into_a_static_argument_carries_what_its_callers_pass():
    """jax's `jnp.pad`: `return _pad(array, pad_width)` forwards the caller's `pad_width` into a
    static position of the jitted `_pad`; a caller passing a list makes it unhashable there."""
    assert_tiers("""
        import functools

        import jax
        import jax.numpy as jnp

        @functools.partial(jax.jit, static_argnums=1)
        def _pad(a, w):
            return jnp.pad(a, w)

        def pad(a, pad_width):
            return _pad(a, pad_width)  # STG504

        def main():
            return pad(jnp.ones(3), [(1, 1)])
    """)


def test_a_wrapper_whose_callers_pass_tuples_or_that_converts_its_parameter_is_not_reported():
    """The negative twins: callers passing tuples, and a wrapper that rebinds the parameter to a
    tuple before handing it on (the parameter is not the binding that reaches the call)."""
    assert_tiers("""
        import functools

        import jax
        import jax.numpy as jnp

        @functools.partial(jax.jit, static_argnums=1)
        def _pad(a, w):
            return jnp.pad(a, w)

        def pad(a, pad_width):
            return _pad(a, pad_width)

        def pad_any(a, pad_width):
            pad_width = tuple(map(tuple, pad_width))
            return _pad(a, pad_width)

        def main():
            return pad(jnp.ones(3), ((1, 1),)), pad_any(jnp.ones(3), [(1, 1)])
    """)


def test_an_optax_update_is_staged_by_its_users_jit_in_the_preview_tier():
    """optax's Adan, Eve and Momo (`if count == jnp.zeros([], jnp.int32):` in `update_fn`): the
    `update` a `GradientTransformation` bundles is jitted by the transformation's users, whom a
    library does not show (`frameworks.OPTAX_UPDATE_TRANSFORMATIONS`): what holds under that jit is
    reported with `--preview`, and the proof names the guess. The `init` it bundles is not staged."""
    assert_tiers("""
        import jax.numpy as jnp
        import optax

        def scale_by_demo(b1=0.9):
            def init_fn(params):
                print("init", params)
                return optax.ScaleByScheduleState(count=jnp.zeros([], jnp.int32))

            def update_fn(updates, state, params=None):
                del params
                print("update", updates)  # preview STG101
                if jnp.sum(updates) > 0:  # preview STG602
                    updates = updates * b1
                return updates, optax.ScaleByScheduleState(count=state.count + 1)

            return optax.GradientTransformation(init_fn, update=update_fn)
    """)
    [f] = findings("""
        import jax.numpy as jnp
        import optax

        def scale_by_demo():
            def update_fn(updates, state, params=None):
                print("update", updates)
                return updates, state

            return optax.GradientTransformationExtraArgs(lambda p: (), update_fn)
    """, "STG101", preview=True)
    assert "the update of an optax transformation" in f.because[0].message


def test_an_update_jitted_where_shown_or_not_optaxs_is_judged_as_before():
    """The twins: the same update also jitted where the code shows it (`jax.jit(update_fn)`) is in
    the default tier as any jitted function; a project's own `GradientTransformation` (not optax's)
    stages nothing."""
    assert_tiers("""
        import jax
        import jax.numpy as jnp
        import optax

        def scale_by_demo(b1=0.9):
            def update_fn(updates, state, params=None):
                print("update", updates)  # STG101
                if jnp.sum(updates) > 0:  # STG602
                    updates = updates * b1
                return updates, state

            fast = jax.jit(update_fn)
            return optax.GradientTransformation(lambda p: (), fast)
    """)
    assert_tiers("""
        from typing import NamedTuple, Callable
        import jax.numpy as jnp

        class GradientTransformation(NamedTuple):
            init: Callable
            update: Callable

        def scale_by_demo(b1=0.9):
            def update_fn(updates, state, params=None):
                print("update", updates)
                if jnp.sum(updates) > 0:
                    updates = updates * b1
                return updates, state

            return GradientTransformation(lambda p: (), update_fn)
    """)
    # the users' jit flattens `state` and rebuilds it: a store into it changes the trace's own copy,
    # which the update returns (kellian-cottart/jax-bayesian's `state['step'] += 1`)
    assert_tiers("""
        import jax
        import optax

        def sgd(lr=0.001):
            def init(params):
                return {"step": 0}

            def update(params, gradient, state):
                state["step"] += 1
                updates = jax.tree_util.tree_map(lambda p, g: p - lr * g, params, gradient)
                return updates, state

            return optax.GradientTransformation(init, update)
    """)


def test_optax_calls_reach_the_jax_records_though_optax_is_no_jax_root():
    """The walk hands optax's calls (`optax.GradientTransformation(init, update)` above) to JAX's
    records as it does JAX's own (`frameworks.JAX_RECORDED_CALL_PREFIXES`: JAX's roots and optax),
    without making optax's names JAX's: `optax.adam(1e-3)` builds an optimizer, not a tracer."""
    assert set(JAX_RECORDED_CALL_PREFIXES) == {f"{root}." for root in JAX.roots} | {"optax."}
    assert not JAX.owns("optax.adam") and not JAX.returns_tensor("optax.adam")
    assert JAX.owns("flax.nnx.jit") and JAX.owns("equinox.filter_jit")


def test_where_an_optax_constructor_holds_its_update_is_framework_data():
    """`frameworks.optax_update_argument`: the position and keyword of the `update` an optax
    constructor holds, by qualified name (optax's own `_src.base` path too); None elsewhere."""
    assert optax_update_argument("optax.GradientTransformation") == (1, "update")
    assert optax_update_argument("optax._src.base.GradientTransformationExtraArgs") == (1, "update")
    assert optax_update_argument("optax.adam") is None
    assert optax_update_argument("mylib.GradientTransformation") is None


def test_a_split_at_indices_jax_computes_is_a_data_dependent_shape():
    """flax's OptimizedLSTMCell: `jnp.split(y, jnp.cumsum(jnp.array([...])))` under jit raises
    ConcretizationTypeError (the pieces are the indices' values), as does a split into a traced
    argument's number of sections."""
    assert_tiers("""
        import jax
        import jax.numpy as jnp

        @jax.jit
        def gates(y, n):
            split_indices = jnp.cumsum(jnp.array([4, 4, 4]))
            i, f, g, o = jnp.split(y, split_indices, axis=-1)  # STG604
            parts = jnp.array_split(y, n)  # STG604
            return i * f + g * o, parts
    """)


def test_a_split_at_numpy_or_python_indices_is_not():
    """The twin: indices computed with NumPy, a list of ints, a number of sections a static
    argument gives, or a shape: Python values under jit, the split works."""
    assert_tiers("""
        import functools
        import jax
        import jax.numpy as jnp
        import numpy as np

        @functools.partial(jax.jit, static_argnums=1)
        def gates(y, n):
            i, f, g, o = jnp.split(y, np.cumsum([4, 4, 4]), axis=-1)
            halves = jnp.split(y, [y.shape[-1] // 2])
            parts = jnp.array_split(y, n)
            return i * f + g * o, halves, parts
    """)
