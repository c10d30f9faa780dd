"""The facts behind the recall facts on fixed bugs (tests/rules/test_jax_recall_facts.py),
observed with the real JAX 0.10.2 (and equinox 0.13.8 where installed)."""

from __future__ import annotations

import pytest

jax = pytest.importorskip("jax")
jnp = jax.numpy


def test_a_comprehension_over_a_traced_array_binds_tracers_as_a_for_statement_does():
    """`[v.item() for v in jnp.linspace(...)]` in jitted code (jax-models' ConvNeXt): each `v` is a
    tracer, in a list comprehension and a generator expression alike, so `.item()` raises."""
    kinds = []

    @jax.jit
    def listed(x):
        kinds.extend(type(v).__name__ for v in [v for v in x])
        return x

    listed(jnp.ones(2))
    assert kinds and all("Tracer" in k for k in kinds)

    @jax.jit
    def comp(x):
        return x * sum([v.item() for v in jnp.linspace(0.0, 0.1, 4)])

    @jax.jit
    def gen(x):
        return x * sum(v.item() for v in jnp.linspace(0.0, 0.1, 4))

    for f in (comp, gen):
        with pytest.raises(jax.errors.ConcretizationTypeError):
            f(1.0)


def test_a_comprehensions_range_and_enumerate_index_are_python_ints_and_a_dict_gives_its_keys():
    """The negative twins: a comprehension's `range(n)` and `enumerate`'s index are Python ints under
    jit, and iterating a dict of arrays gives its (string) keys: an array is unhashable, never a key."""
    seen = []

    @jax.jit
    def f(x):
        batch = {"a": jnp.sin(x), "b": jnp.cos(x)}
        seen.extend(type(k).__name__ for k in batch)
        seen.extend(type(i).__name__ for i in range(2))
        seen.extend(type(i).__name__ for i, _ in enumerate(x))
        return sum(batch[k] for k in batch if k != "a")

    f(jnp.ones(2))
    assert set(seen) == {"str", "int"}
    with pytest.raises(TypeError):
        {jnp.ones(()): 1}  # noqa: B018


def test_a_local_bound_to_a_traced_comparison_fails_as_a_truth_test():
    """diffrax's `direction = t0 > t1` ... `if direction:`: the local is the comparison's tracer."""

    @jax.jit
    def f(t0, t1, y):
        d = t0 > t1
        if d:
            return y
        return -y

    with pytest.raises(jax.errors.TracerBoolConversionError):
        f(0.0, 1.0, 2.0)

    @jax.jit
    def g(y, flag=True):  # the negative twin: a local bound to a Python value
        d = flag
        if d:
            return y
        return -y

    assert float(g(2.0)) == 2.0


def test_a_range_over_the_first_dimension_unrolls_as_a_loop_over_the_rows():
    """rlax's `for i in reversed(range(v_t.shape[0]))`: the same program as `for row in v_t`, one
    copy of the body per row, growing with the array's length."""

    def by_index(v):
        acc = 0.0
        for i in reversed(range(v.shape[0])):
            acc = acc + v[i]
        return acc

    def by_row(v):
        acc = 0.0
        for row in v:
            acc = acc + row
        return acc

    sizes = {}
    for n in (3, 7):
        a = len(jax.make_jaxpr(by_index)(jnp.ones(n)).jaxpr.eqns)
        b = len(jax.make_jaxpr(by_row)(jnp.ones(n)).jaxpr.eqns)
        assert a == b
        sizes[n] = a
    assert sizes[7] > sizes[3]


def test_equinox_runs_check_init_under_the_trace_of_the_function_that_builds_the_module():
    """galax's `__check_init__`: a Module built inside a jitted function runs its (and its bases')
    `__check_init__` there, on tracer fields, once per trace; a Python test of them raises, and the
    module is frozen there. Built outside jit, the fields are concrete."""
    eqx = pytest.importorskip("equinox")
    seen = []

    class Base(eqx.Module):
        a: jax.Array

        def __check_init__(self):
            seen.append(("base", type(self.a).__name__))

    class Checked(Base):
        b: jax.Array

        def __check_init__(self):
            seen.append(("checked", type(self.a).__name__))

    @jax.jit
    def build(x):
        Checked(x, x - 1.0)
        return x

    build(1.0)
    build(2.0)
    assert sorted(w for w, _ in seen) == ["base", "checked"] and all("Tracer" in k for _, k in seen)

    class Failing(eqx.Module):
        a: jax.Array

        def __check_init__(self):
            if jnp.any(self.a < 0):
                raise ValueError("negative")

    with pytest.raises(jax.errors.TracerBoolConversionError):
        jax.jit(lambda x: Failing(x).a)(jnp.ones(2))
    assert Failing(jnp.ones(2)).a.shape == (2,)  # outside jit: concrete, no error

    class Storing(eqx.Module):
        a: jax.Array

        def __check_init__(self):
            self.a = self.a * 2

    with pytest.raises(Exception, match="cannot assign"):
        Storing(jnp.ones(1))


def test_a_list_handed_on_through_a_wrapper_into_a_static_argument_raises_at_the_call():
    """jax's `jnp.pad` (`return _pad(array, pad_width, ...)` with `pad_width` static in `_pad`): a
    wrapper's parameter forwarded as it is gives the jitted function what the wrapper's caller
    passed; a list is unhashable (ValueError), a tuple works."""
    import functools

    @functools.partial(jax.jit, static_argnums=1)
    def _pad(a, w):
        return jnp.pad(a, w)

    def pad(a, w):
        return _pad(a, w)

    with pytest.raises(ValueError, match="Non-hashable static arguments"):
        pad(jnp.ones(3), [(1, 1)])
    assert pad(jnp.ones(3), ((1, 1),)).shape == (5,)


def test_an_optax_update_runs_eagerly_or_traced_as_its_users_choose():
    """optax's Adan (`if state.count != 0:` in its `update_fn`, fixed with `lax.cond`): a
    `GradientTransformation`'s `update` is a plain function of arrays; optax stages nothing of it.
    Called eagerly the test is on a concrete count and works; under the user's `jax.jit(opt.update)`
    (or a jitted step calling it) the state's fields are tracers and the truth test raises.
    Whether it is jitted is its users' choice, which a library's code does not show
    (`frameworks.OPTAX_UPDATE_TRANSFORMATIONS`: the preview tier)."""
    optax = pytest.importorskip("optax")

    def scale_by_demo():
        def init_fn(params):
            del params
            return optax.ScaleByScheduleState(count=jnp.zeros([], jnp.int32))

        def update_fn(updates, state, params=None):
            del params
            if state.count != 0:
                updates = updates * 2.0
            return updates, optax.ScaleByScheduleState(count=state.count + 1)

        return optax.GradientTransformation(init_fn, update_fn)

    opt = scale_by_demo()
    g = jnp.ones(2)
    state = opt.init(g)
    out, state = opt.update(g, state)  # eager: a concrete count, the Python `if` works
    out, state = opt.update(g, state)
    assert float(out[0]) == 2.0
    with pytest.raises(jax.errors.TracerBoolConversionError):
        jax.jit(opt.update)(g, state)
    # the same object on every access: what `opt.update` holds is the `update_fn` above
    assert opt.update is opt.update and opt.update.__name__ == "update_fn"


@pytest.mark.parametrize("name", ["split", "array_split", "hsplit", "vsplit", "dsplit"])
def test_a_split_at_traced_indices_raises_and_at_python_or_numpy_ones_works(name):
    """flax's OptimizedLSTMCell (`jnp.split(y, jnp.cumsum(jnp.array([...])))`, fixed by computing
    the indices with NumPy): under jit the pieces' count and sizes are the indices' values, so a
    JAX op's result there (a tracer even on constants) or a traced argument raises
    ConcretizationTypeError; NumPy indices, a Python list or a Python number of sections work."""
    np = pytest.importorskip("numpy")
    split = getattr(jnp, name)
    y = jnp.ones((8, 8, 8))

    @jax.jit
    def at_ops(y):
        return split(y, jnp.cumsum(jnp.array([2, 2])))

    @jax.jit
    def at_argument(y, n):
        return split(y, n)

    for call in (lambda: at_ops(y), lambda: at_argument(y, 2)):
        with pytest.raises(jax.errors.ConcretizationTypeError):
            call()

    @jax.jit
    def at_python(y):
        return split(y, np.cumsum([2, 2])), split(y, [2, 4]), split(y, 2)

    assert len(at_python(y)[0]) == 3
