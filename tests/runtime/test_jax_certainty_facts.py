"""The facts behind the per-step certainty of STG602 and STG102 under JAX (issue 23): what is a
tracer where, which Python constructs need a concrete value, which mutations a call that
reuses the trace skips. Observed with the real JAX 0.10.2 (`analysis.tracers`,
`frameworks.JAX_ARRAY_METHODS`, `frameworks.PER_CALL_MUTATORS`, `stores._restored`). Which
transformations make every op's result a tracer is tests/runtime/test_jax_traced_values.py's."""

from __future__ import annotations

import contextlib

import pytest

jax = pytest.importorskip("jax")
jnp = jax.numpy
lax = jax.lax
Tracer = jax.core.Tracer


def test_a_jitted_functions_arguments_leaves_are_tracers_its_containers_python():
    """A non-static argument's leaves are tracers, a Python scalar included; the dicts, lists and
    tuples around them are rebuilt Python containers: their truth, keys and length are Python."""
    seen = {}

    @jax.jit
    def f(n, batch, pair):
        seen.update(n=isinstance(n, Tracer), leaf=isinstance(batch["x"], Tracer), pair=isinstance(pair[0], Tracer),
                    dict_truth=bool(batch), key="x" in batch, length=len(pair))
        return n

    f(3, {"x": jnp.ones(2)}, (jnp.ones(1), jnp.ones(1)))
    assert seen == {"n": True, "leaf": True, "pair": True, "dict_truth": True, "key": True, "length": 2}


def test_type_and_shape_questions_answer_in_python_under_jit():
    """`frameworks.JAX`'s non-tensor calls: inside a jit these return a Python bool, a tuple or
    a dtype, never a tracer, so an `if` on one is decided while tracing (no bool conversion of
    a tracer: `walk._converted`'s truth test does not raise on them)."""
    import warnings

    seen = {}

    @jax.jit
    def f(x):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            seen["jax.core.is_concrete"] = jax.core.is_concrete(x)
        seen["jax.numpy.isdtype"] = jnp.isdtype(x.dtype, "real floating")
        seen["jax.core.is_constant_dim"] = jax.core.is_constant_dim(3)
        seen["jax.core.is_constant_shape"] = jax.core.is_constant_shape((3,))
        seen["jax.lax.dtype"] = lax.dtype(x)
        seen["jax.tree_util.treedef_is_leaf"] = jax.tree_util.treedef_is_leaf(jax.tree_util.tree_structure(x))
        seen["jax.numpy.broadcast_shapes"] = jnp.broadcast_shapes((1, 2), (2,))
        return x

    f(jnp.ones(2))
    from stagelint.frameworks import JAX

    for name, value in seen.items():
        assert not isinstance(value, jax.core.Tracer), name
        assert not JAX.returns_tensor(name), name


def test_broadcast_shapes_returns_python_ints():
    """`frameworks.JAX`'s non-tensor calls: `lax.broadcast_shapes` computes on static shapes."""
    assert lax.broadcast_shapes((2, 1), (1, 3)) == (2, 3)
    assert type(lax.broadcast_shapes((2, 1), (1, 3))) is tuple


def test_array_methods_of_a_tracer_return_tracers():
    """`frameworks.JAX_ARRAY_METHODS`: a traced array's methods compute with JAX ops."""
    from stagelint.frameworks import JAX_ARRAY_METHODS

    args = {"astype": ("float32",), "reshape": (-1,), "dot": (jnp.ones((2, 2)),), "take": (0,), "clip": (0.0, 1.0),
            "swapaxes": (0, 1)}
    results = {}

    @jax.jit
    def f(x):
        for name in sorted(JAX_ARRAY_METHODS):
            results[name] = isinstance(getattr(x, name)(*args.get(name, ())), Tracer)
        return x

    f(jnp.ones((2, 2)))
    assert results == {name: True for name in JAX_ARRAY_METHODS}


def _outcome(fn, arg):
    try:
        jax.jit(fn)(arg)
    except jax.errors.TracerBoolConversionError:
        return "TracerBoolConversionError"
    except jax.errors.TracerIntegerConversionError:
        return "TracerIntegerConversionError"
    except TypeError:
        return "TypeError"
    return "works"


def test_the_constructs_that_need_a_concrete_value_and_those_that_do_not():
    """STG602 under JAX: truth tests, membership in a literal, `max`/`sorted`/`any`/`all` of an
    array (they compare its rows), `set` of one (it hashes them), `range` and dict keys need a
    concrete value; iterating and
    unpacking an array with a static leading dimension, `enumerate`, `zip`, `list`, `tuple`,
    `sum`, `map`, `filter` and `len` work (they unroll over the static shape)."""
    x = jnp.ones(3)

    def assert_positive(v):
        assert v.sum() > 0
        return v

    fails = {
        "bool": lambda v: bool(v.sum()), "if": lambda v: 1 if v.sum() > 0 else 0, "assert": assert_positive,
        "in": lambda v: v.sum() in (1.0, 2.0), "not": lambda v: not v.sum(), "and": lambda v: (v.sum() > 0) and 1,
        "max": lambda v: max(v), "sorted": lambda v: sorted(v), "any": lambda v: any(v), "all": lambda v: all(v),
    }
    for name, fn in fails.items():
        assert _outcome(fn, x) == "TracerBoolConversionError", name
    assert _outcome(lambda v: range(v.sum().astype(int)), x) == "TracerIntegerConversionError"
    assert _outcome(lambda v: {v.sum(): 1}, x) == "TypeError"
    assert _outcome(set, x) == _outcome(frozenset, x) == "TypeError"  # unhashable tracer
    assert _outcome(lambda v: any([v.sum(), v.sum()]), x) == "TracerBoolConversionError"  # a list of tracers too

    def unpack(v):
        a, b, c = v
        return a + b + c

    works = {
        "for": lambda v: [r for r in v], "unpack": unpack, "enumerate": lambda v: [r * i for i, r in enumerate(v)],
        "zip": lambda v: list(zip(v, v)), "list": list, "tuple": tuple, "sum": sum, "len": len,
        "map": lambda v: list(map(jnp.sin, v)), "filter": lambda v: list(filter(lambda r: True, v)),
    }
    for name, fn in works.items():
        assert _outcome(fn, x) == "works", name


def test_enumerates_index_and_a_range_loop_variable_are_python_ints_under_jit():
    """`analysis.tracers`: the index `enumerate` yields and a `range` loop's variable are Python
    ints even over a traced array, so a Python `if` on them works."""
    seen = []

    @jax.jit
    def f(rows):
        out = rows[0]
        for i, row in enumerate(rows):
            seen.append(type(i))
            if i > 0:  # a Python int: fine
                out = out + row
        for k in range(2):
            seen.append(type(k))
            if k == 1:
                out = out * 2
        return out

    assert float(f(jnp.ones(3))) == 6.0
    assert set(seen) == {int}


def test_a_counter_and_a_list_change_only_while_tracing_a_constant_store_leaves_what_eager_leaves():
    """`frameworks.PER_CALL_MUTATORS`: `+= 1` and `append` change the state again on every eager
    call, so a call that reuses the trace leaves it different from eager (the user reads one step
    where there were three); a store of a constant or `dict.update` with the same items leaves
    after every call what eager code leaves."""
    state = {"calls": 0, "log": [], "flags": {}}

    @jax.jit
    def f(x):
        state["calls"] += 1
        state["log"].append("step")
        state["ready"] = True
        state["flags"].update(seen=True)
        return x

    for _ in range(3):
        f(1.0)
    assert state["calls"] == 1 and state["log"] == ["step"]  # eager: 3 and three entries
    assert state["ready"] is True and state["flags"] == {"seen": True}  # the same as eager


def test_a_counter_put_back_in_finally_or_by_a_context_manager_is_as_before_after_every_call():
    """`stores._restored`: a depth counter raised for the length of the call and lowered in
    `finally` (or around a context manager's `yield`) holds after each call what it held before,
    on the call that traces as on those that reuse the trace."""
    nesting = {"depth": 0}

    @contextlib.contextmanager
    def scope():
        nesting["depth"] += 1
        try:
            yield
        finally:
            nesting["depth"] -= 1

    @jax.jit
    def f(x):
        nesting["depth"] += 1
        try:
            with scope():
                return x * nesting["depth"]
        finally:
            nesting["depth"] -= 1

    assert float(f(1.0)) == 2.0
    f(2.0)
    assert nesting["depth"] == 0


def test_a_list_filled_under_its_own_membership_test_ends_as_eager_code_leaves_it():
    """`context._memo_fill`: `if name not in seen: seen.append(name)` adds each name once, eagerly
    as under jit (where the trace runs it once per name): the same list after every call."""
    seen_jit, seen_eager = [], []

    def register(seen, x, name="step"):
        if name not in seen:
            seen.append(name)
        return x * 2

    jitted = jax.jit(lambda x: register(seen_jit, x))
    for _ in range(3):
        jitted(1.0)
        register(seen_eager, 1.0)
    assert seen_jit == seen_eager == ["step"]


def test_psum_of_a_python_number_is_the_axis_size_a_python_int():
    """`frameworks.JAX_COLLECTIVES_OF_CONSTANTS`: `lax.psum(1, axis)` under pmap is a Python int
    (xlstm-jax's `tp_size`); of a traced value it is a tracer."""
    seen = {}

    def f(x):
        seen.update(size=lax.psum(1, "i"), total=isinstance(lax.psum(x, "i"), Tracer))
        return x

    jax.pmap(f, axis_name="i")(jnp.ones(1))
    assert type(seen["size"]) is int and seen["size"] == 1 and seen["total"] is True


def test_an_item_store_on_a_frozen_linen_module_does_not_raise_an_attribute_store_does():
    """`stores.lost_under_jax_fact`: a bound Linen module refuses `self.x = ...` outside `setup`,
    but a dict it holds is still a dict (praxis's `self._weight_hparams[name] = ...`)."""
    nn = pytest.importorskip("flax.linen")

    class Block(nn.Module):
        def setup(self):
            object.__setattr__(self, "book", {})

        def __call__(self, x, attribute=False):
            self.book["seen"] = True
            if attribute:
                self.calls = 1
            return x * 2

    Block().apply({}, jnp.ones(2))
    with pytest.raises(Exception, match="frozen|Frozen"):
        Block().apply({}, jnp.ones(2), attribute=True)


def test_a_dataclass_replace_keeps_the_dict_written_into():
    """`stores._replaced`: in a `lax.cond` branch, `return state.replace(data=d)` of a
    `flax.struct` dataclass carries `state.info`, the dict written into, out of the trace."""
    struct = pytest.importorskip("flax.struct")

    @struct.dataclass
    class State:
        data: jax.Array
        info: dict

    def wait(state):
        state.info["steps"] = state.data * 0
        return state.replace(data=state.data + 1)

    out = jax.jit(lambda s: lax.cond(True, wait, lambda s: s, s))(State(jnp.zeros(()), {"steps": jnp.ones(())}))
    assert float(out.info["steps"]) == 0.0 and float(out.data) == 1.0


def test_set_any_and_all_of_a_dict_argument_read_its_keys_under_jit():
    """`tracers._BARE_IF_ARRAY`: a dict argument stays a dict under jit (its leaves are tracers),
    so `set(d)`, `frozenset(d)`, `any(d)`, `all(d)` and `set(ids).issubset(d)` iterate its keys,
    Python strings, and work; of an array or a list of tracers they fail. `range(d)` and `{d: 1}`
    fail on a dict as well (TypeError)."""
    d = {"a": jnp.ones(2), "b": jnp.zeros(2)}
    for name, construct in {"set": set, "frozenset": frozenset, "any": any, "all": all,
                            "issubset": lambda v: {"a"}.issubset(v)}.items():
        def fn(v, construct=construct):
            construct(v)
            return jnp.zeros(())  # (a jitted function returns arrays only)
        assert _outcome(fn, d) == "works", name
        assert _outcome(fn, jnp.ones(3)) != "works", name
        assert _outcome(fn, [jnp.ones(()), jnp.zeros(())]) != "works", name
    assert _outcome(range, d) == _outcome(lambda v: {v: 1}, d) == "TypeError"


def test_the_backend_queries_of_jax_extend_answer_in_python_under_jit():
    """`frameworks.JAX`'s non-tensor prefixes: `jax.extend.backend.get_backend()` is the XLA
    client, its `platform` a str, `backends()` a dict, inside a jit too: `if
    get_backend().platform == "gpu":` is decided while tracing (galax's mock stream generator)."""
    import jax.extend as jex

    from stagelint.frameworks import JAX

    seen = {}

    @jax.jit
    def f(x):
        seen["platform"] = jex.backend.get_backend().platform == "gpu"
        seen["backends"] = jex.backend.backends()
        return x

    f(jnp.ones(2))
    assert isinstance(seen["platform"], bool) and isinstance(seen["backends"], dict)
    for name in ("jax.extend.backend.get_backend", "jax.extend.backend.backends"):
        assert not JAX.returns_tensor(name), name


def test_python_control_flow_on_values_works_under_grad_alone_not_under_jit_of_grad():
    """`tracers.jax_staging_in_trace`: JAXFluxTubeGK's precompute builder checks `if
    bool(jnp.any(frequencies < 0.0)): raise ...` on the differentiated frequency; under
    `jax.grad` alone the truth test reads the primal value and works, under `jax.jit(jax.grad(...))`
    it raises TracerBoolConversionError."""
    def build(freq):
        frequencies = jnp.broadcast_to(jnp.asarray(freq), (2,))
        if bool(jnp.any(frequencies < 0.0)):
            raise ValueError("negative")
        return jnp.sum(frequencies * frequencies)

    assert float(jax.grad(build)(0.2)) == pytest.approx(0.8)
    with pytest.raises(jax.errors.TracerBoolConversionError):
        jax.jit(jax.grad(build))(0.2)


def test_a_property_returning_int_of_anything_is_a_python_int_or_raises_under_jit():
    """`pytrees._PYTHON_RESULTS`: sfincs_jax's operator pytree has `n_xi = property(lambda self:
    int(self.fblock.n_xi))`; under jit `int(...)` of a static value is a Python int, and of a
    tracer raises ConcretizationTypeError: never a tracer a truth test could meet. A property
    returning a child's `sum()` is a tracer."""
    @jax.tree_util.register_pytree_node_class
    class Op:
        def __init__(self, x, n):
            self.x, self.n = x, n

        def tree_flatten(self):
            return (self.x,), (self.n,)

        @classmethod
        def tree_unflatten(cls, aux, children):
            return cls(children[0], aux[0])

        @property
        def size(self):
            return int(self.x.shape[0] * self.n)

        @property
        def concrete(self):
            return int(self.x.sum())

        @property
        def total(self):
            return self.x.sum()

    seen = {}

    @jax.jit
    def f(op):
        seen["size"] = type(op.size)
        seen["total"] = isinstance(op.total, Tracer)
        with pytest.raises(jax.errors.ConcretizationTypeError):
            op.concrete
        return op.x

    f(Op(jnp.ones(3), 2))
    assert seen == {"size": int, "total": True}
