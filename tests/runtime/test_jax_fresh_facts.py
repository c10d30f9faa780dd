"""The facts behind issue 23's second fresh JAX audit (tests/rules/test_jax_fresh_audit.py),
observed with the real JAX and optax."""

from __future__ import annotations

import dataclasses
import functools
import types

import pytest

jax = pytest.importorskip("jax")
optax = pytest.importorskip("optax")
jnp = jax.numpy


def test_container_methods_return_none_and_optax_update_returns_the_new_state():
    """`frameworks.NONE_RETURNING_MUTATORS`: the in-place methods return None, so a call whose
    result is unpacked is another object's method, like optax's update, which changes nothing."""
    assert [].append(1) is None and {}.update(a=1) is None and set().add(1) is None
    opt = optax.sgd(0.1)
    params = {"w": jnp.ones(2)}
    state = opt.init(params)
    before = jax.tree.leaves(state)
    updates, new_state = opt.update({"w": jnp.ones(2)}, state, params)
    assert float(updates["w"][0]) == pytest.approx(-0.1)
    assert jax.tree.leaves(state) == before


def test_a_module_attribute_set_and_put_back_in_a_jitted_function_is_as_before_after_every_call():
    """`stores._restored`: the layers see the new value while tracing; after each call, traced
    or reusing the trace, the attribute holds the old one, so skipping the writes loses nothing."""
    nn = types.SimpleNamespace(CALLBACK="default")
    seen = []

    @jax.jit
    def f(x):
        old = nn.CALLBACK
        nn.CALLBACK = "sharded"
        seen.append(nn.CALLBACK)
        nn.CALLBACK = old
        return x * 2

    f(1.0)
    assert nn.CALLBACK == "default"
    f(2.0)  # reuses the trace: the writes do not run, and nothing is missing
    assert nn.CALLBACK == "default" and seen == ["sharded"]


def _call(qualified: str):
    obj = __import__("jax")
    for part in qualified.split(".")[1:]:
        obj = getattr(obj, part)
    return obj


def test_the_multi_output_calls_return_a_python_list_or_tuple_of_fixed_length_under_jit():
    """`frameworks.JAX_MULTI_OUTPUT_OPS`: under jit, each returns a Python list or (named) tuple
    whose length the call fixes, so a `for` over it runs that many times, whatever the rows; and
    a `for` over an array itself runs once per row of its first axis (the unrolling STG503 is
    about). `jax.random.split` is not one: it returns one array."""
    from stagelint.frameworks import JAX_MULTI_OUTPUT_OPS

    x = jnp.arange(12.0).reshape(3, 4)
    square = x[:, :3]
    args = {
        "jax.numpy.split": (x, 2, 1), "jax.numpy.array_split": (x, 3, 1), "jax.numpy.hsplit": (x, 2),
        "jax.numpy.vsplit": (x, 3), "jax.numpy.dsplit": (x.reshape(3, 2, 2), 2),
        "jax.numpy.meshgrid": (x[0], x[1]), "jax.numpy.broadcast_arrays": (x, x[0]),
        "jax.numpy.unstack": (x,), "jax.numpy.linalg.svd": (x,), "jax.numpy.linalg.qr": (x,),
        "jax.numpy.linalg.slogdet": (square,), "jax.numpy.linalg.eigh": (square,),
        "jax.lax.top_k": (x, 2), "jax.tree.leaves": ({"a": x, "b": x},),
        "jax.tree_util.tree_leaves": ({"a": x},),
    }
    assert set(args) == JAX_MULTI_OUTPUT_OPS
    kinds = {}

    @jax.jit
    def probe(x):
        for name, a in args.items():
            r = _call(name)(*a)
            kinds[name] = (isinstance(r, (list, tuple)), sum(1 for _ in r))
        rows = sum(1 for _ in x)
        kinds["jax.random.split"] = isinstance(jax.random.split(jax.random.key(0), 3), (list, tuple))
        return rows

    assert int(probe(x)) == 3
    assert kinds.pop("jax.random.split") is False
    assert all(is_seq for is_seq, _ in kinds.values()), kinds
    assert kinds["jax.numpy.split"][1] == 2 and kinds["jax.numpy.array_split"][1] == 3


def test_a_flax_module_field_passed_to_a_submodule_method_is_a_python_int_under_a_jitted_apply():
    """`tracers.module_argument_guess`: Flax runs a module's method with what its caller passes;
    `Head()(x, self.keep)` hands it the int field, so `jnp.arange(keep)` has a static length
    under `jax.jit(model.apply)`."""
    nn = pytest.importorskip("flax.linen")
    seen = []

    class Head(nn.Module):
        @nn.compact
        def __call__(self, x, keep):
            seen.append(type(keep))
            return nn.Dense(4)(x[jnp.arange(keep)])

    class Model(nn.Module):
        keep: int = 3

        @nn.compact
        def __call__(self, x):
            return Head()(x, self.keep)

    x = jnp.ones((5, 2))
    model = Model()
    variables = model.init(jax.random.key(0), x)
    assert jax.jit(model.apply)(variables, x).shape == (3, 4)
    assert set(seen) == {int}


def test_a_name_bound_to_two_wrappers_calls_the_one_bound_above_each_call():
    """`walk._record_wrapper_binding`: `run = jax.vmap(scale)` then `run = jax.vmap(shift)` in one
    module: the call between the two bindings traces `scale` alone, the call after them `shift`
    alone; a model that keeps one binding per name would give both calls to the last one, so
    a name bound twice is not resolved to either."""
    traced = []

    @jax.jit
    def scale(x):
        traced.append("scale")
        return x * 2

    @jax.jit
    def shift(x):
        traced.append("shift")
        return x + 2

    run = jax.vmap(scale)
    first = run(jnp.ones(2))
    run = jax.vmap(shift)
    second = run(jnp.ones(2))
    assert traced == ["scale", "shift"]
    assert float(first[0]) == 2.0 and float(second[0]) == 3.0


def test_the_function_builders_emit_no_operation_until_what_they_build_is_called():
    """`frameworks.JAX_FUNCTION_BUILDERS`: each, called inside a traced function, returns a
    callable (a function or a Flax Linen module class) and adds no equation to the program; the
    call of what it built adds the operations (nerfies' `vmap_module` wraps a module class in
    `nn.vmap` once per batch dimension, unrolling nothing)."""
    import equinox as eqx
    import flax.linen as nn
    from flax import nnx

    from stagelint.frameworks import JAX_FUNCTION_BUILDERS

    def f(x):
        return jnp.sum(x * 2)

    libraries = {"jax": jax, "flax.nnx": nnx, "equinox": eqx, "flax.linen": nn}
    linen_options = {"flax.linen.vmap": {"variable_axes": {"params": None}, "split_rngs": {"params": False}},
                     "flax.linen.scan": {"variable_broadcast": "params", "split_rngs": {"params": False},
                                         "length": 3}}
    for name in sorted(JAX_FUNCTION_BUILDERS):
        library, _, attr = name.rpartition(".")
        builder = getattr(libraries[library], attr)
        given = nn.Dense if library == "flax.linen" else f

        def build(x, builder=builder, given=given, name=name):
            assert callable(builder(given, **linen_options.get(name, {})))
            return x

        assert jax.make_jaxpr(build)(jnp.ones(3)).eqns == [], name

    def called(x):
        return jax.vmap(f)(x[None])

    assert len(jax.make_jaxpr(called)(jnp.ones(3)).eqns) > 0


def test_a_jitted_parameter_is_iterated_over_its_keys_items_or_rows_and_only_an_array_has_shape():
    """`jaxrules._loop_unrolled`: under jit a dict parameter is iterated over its keys and a list
    over its items (a count its structure fixes, whatever the arrays' rows), an array over its
    rows; only the array has the attributes of `frameworks.JAX_ARRAY_ONLY_ATTRIBUTES`; and a
    dict's key given to a JAX operation raises TypeError (so a row given to one is an array)."""
    from stagelint.frameworks import JAX_ARRAY_ONLY_ATTRIBUTES

    seen = {}

    @jax.jit
    def walk(tree, rows):
        seen["dict"] = [k for k in tree["d"]]
        seen["list"] = len([x for x in tree["l"]])
        seen["rows"] = len([r for r in rows])
        seen["attributes"] = {
            kind: {a for a in JAX_ARRAY_ONLY_ATTRIBUTES if hasattr(value, a)}
            for kind, value in (("dict", tree["d"]), ("list", tree["l"]), ("array", rows))}
        return rows

    walk({"d": {"mlp": jnp.ones((7, 2)), "emb": jnp.ones((7, 2))}, "l": [jnp.ones((9, 2))] * 3}, jnp.ones((5, 2)))
    assert seen["dict"] == ["emb", "mlp"] and seen["list"] == 3 and seen["rows"] == 5
    assert seen["attributes"] == {"dict": set(), "list": set(), "array": set(JAX_ARRAY_ONLY_ATTRIBUTES)}

    @jax.jit
    def keys_as_operands(tree):
        best = -jnp.inf
        for k in tree:  # a dict's key, a string, given to a JAX operation
            best = jnp.maximum(best, k)
        return best

    with pytest.raises(TypeError):
        keys_as_operands({"mlp": jnp.ones(2)})


def test_len_is_a_python_int_under_jit_so_a_method_returning_it_sizes_an_arange():
    """`pytrees._python_int_methods`: `len()` returns a Python int of any object, of a tracer too
    (its static leading dimension), and so does integer arithmetic on it; a pytree's method
    returning one (jaxsim's `model.number_of_links()`, through `self.kin_dyn_parameters`) sizes
    `jnp.arange` under jit, whatever field it counts, a traced one included."""
    from jax.tree_util import register_dataclass

    @functools.partial(register_dataclass, data_fields=["mask"], meta_fields=["names"])
    @dataclasses.dataclass
    class Params:
        names: tuple
        mask: jax.Array

        def number_of_links(self):
            return len(self.names)

        def number_of_masks(self):
            return len(self.mask) - 1

    @functools.partial(register_dataclass, data_fields=["params"], meta_fields=[])
    @dataclasses.dataclass
    class Model:
        params: Params

        def number_of_links(self):
            return self.params.number_of_links()

    seen = {}

    @jax.jit
    def links(model: Model, x):
        seen["types"] = (type(model.number_of_links()), type(model.params.number_of_masks()), type(len(x)))
        return jnp.arange(model.number_of_links()) + jnp.arange(model.params.number_of_masks()).sum() + x[0]

    out = links(Model(Params(("base", "arm", "hand"), jnp.ones(4))), jnp.ones(5))
    assert out.shape == (3,) and seen["types"] == (int, int, int)


def test_a_helper_called_eagerly_and_under_jit_prints_on_every_eager_call_and_once_per_trace(capsys):
    """`Project.eager_call_site`, STG101's preview step: aqt's `get_datasets` prints on each of its
    eager calls (train, calibrate) and, under the jitted `serve`, once per trace, with the rest of
    its Python work; only that traced path is what STG101 describes."""
    def get_datasets():
        print("get_datasets started")
        return jnp.ones(2)

    @jax.jit
    def serve(x):
        return get_datasets() * x

    get_datasets()
    get_datasets()
    serve(1.0)
    serve(2.0)
    assert capsys.readouterr().out.count("get_datasets started") == 3


def test_a_jitted_function_reading_a_global_bound_only_from_its_own_result_raises_name_error():
    """`analysis.order.bindings_made`: `params, loss = train_step(params, x)` with `loss` bound
    nowhere before: the first call traces the body, whose read of `loss` raises NameError, so
    the call never returns and the statement never binds `loss`; the next call traces again
    (nothing was cached) and raises again. Bound before (or by another statement), it is read."""
    scope = {"jax": jax, "jnp": jnp}
    exec(
        "@jax.jit\n"
        "def train_step(params, x):\n"
        "    return params + x, loss\n",
        scope,
    )
    train_step = scope["train_step"]
    params = jnp.zeros(2)
    for _ in range(2):
        with pytest.raises(NameError):
            params, scope["loss"] = train_step(params, jnp.ones(2))
    assert "loss" not in scope
    scope["loss"] = 3.0
    _, got = train_step(params, jnp.ones(2))
    assert float(got) == 3.0


def test_a_jax_wrapper_traces_nothing_until_called_and_the_at_once_apis_run_in_the_call():
    """`frameworks.JAX_RUNS_AT_ONCE` and `jaxstaging.mark_uncalled`: `jax.jit(f)`, `vmap`, `pmap`,
    `grad`, `value_and_grad`, `jacfwd`, `checkpoint`, `make_jaxpr` return a wrapper and run
    nothing (a wrapper nobody calls traces nothing); `eval_shape`, `jvp`, `vjp`, `linearize`
    run the function in the call itself."""
    runs = []

    def f(x):
        runs.append(1)
        return jnp.sum(x * x)

    x = jnp.ones(3)
    for make in (jax.jit, jax.vmap, jax.pmap, jax.grad, jax.value_and_grad, jax.jacfwd, jax.jacrev,
                 jax.hessian, jax.checkpoint, jax.make_jaxpr):
        make(f)
    assert runs == []
    jax.jit(f)(x)
    assert runs == [1]
    for call in (lambda g: jax.eval_shape(g, x), lambda g: jax.jvp(g, (x,), (x,)), lambda g: jax.vjp(g, x),
                 lambda g: jax.linearize(g, x)):
        def g(y):  # a new function each time: eval_shape keeps a cache per function
            runs.append(2)
            return jnp.sum(y * y)

        call(g)
        assert runs.count(2) == 1
        runs.clear()


def test_a_named_axis_collective_raises_where_no_transformation_binds_the_axis():
    """`frameworks.JAX_NAMED_AXIS_COLLECTIVES`: `psum`, `all_gather`, `axis_index` ... over a
    literal axis name raise where nothing binds that name, in plain Python and under `jax.jit`
    alone; under `vmap(axis_name=...)` or `pmap(axis_name=...)` they run. A function whose body
    always calls one is never run as plain Python (scenic's `contrastive_loss`)."""
    x = jnp.ones(1)
    calls = {
        "jax.lax.psum": lambda: jax.lax.psum(x, "batch"), "jax.lax.pmean": lambda: jax.lax.pmean(x, "batch"),
        "jax.lax.pmax": lambda: jax.lax.pmax(x, "batch"), "jax.lax.pmin": lambda: jax.lax.pmin(x, "batch"),
        "jax.lax.all_gather": lambda: jax.lax.all_gather(x, "batch"),
        "jax.lax.ppermute": lambda: jax.lax.ppermute(x, "batch", [(0, 0)]),
        "jax.lax.psum_scatter": lambda: jax.lax.psum_scatter(x, "batch"),
        "jax.lax.all_to_all": lambda: jax.lax.all_to_all(x, "batch", 0, 0),
        "jax.lax.axis_index": lambda: jax.lax.axis_index(axis_name="batch"),
        "jax.lax.axis_size": lambda: jax.lax.axis_size("batch"),
    }
    from stagelint.frameworks import JAX_NAMED_AXIS_COLLECTIVES

    assert set(calls) == set(JAX_NAMED_AXIS_COLLECTIVES)
    for name, call in calls.items():
        with pytest.raises((NameError, NotImplementedError)):
            call()
        with pytest.raises((NameError, NotImplementedError)):
            jax.jit(lambda v, call=call: call())(x)

    def loss(v):
        return v + jax.lax.axis_index("batch") + jax.lax.psum(v, "batch")

    assert jax.vmap(loss, axis_name="batch")(jnp.ones(2)).shape == (2,)
    assert jax.pmap(loss, axis_name="batch")(jnp.ones((1, 2))).shape == (1, 2)
