"""Facts behind the eighteenth JAX audit's BO preview classes, observed with the real JAX 0.10.2
(`frameworks.JAX_TRACER_ERROR_CATCHERS`, `analysis.pytrees`'s filtered flatten, `frameworks.jax`'s
shape comparisons, `lax.stop_gradient` of a Python int)."""

from __future__ import annotations

import dataclasses

import pytest

jax = pytest.importorskip("jax")
jnp = jax.numpy
Tracer = jax.core.Tracer


def test_stop_gradient_of_a_python_int_is_a_tracer_under_jit_and_range_of_it_raises():
    """neuroevolution_volleyball's `range(n_inputs, lax.stop_gradient(matrix.shape[0]))` under
    `jax.jit(jax.vmap(...))`: `stop_gradient` binds a primitive, so even of a Python int its result
    is a tracer, and `range` of it raises TracerIntegerConversionError; the shape item itself is a
    Python int (the negative twin: `range(matrix.shape[0])` works)."""
    seen = {}

    def forward(m):
        n = jax.lax.stop_gradient(m.shape[0])
        seen["n"] = n
        return jnp.sum(m[:, : len(list(range(m.shape[0])))])

    jax.jit(jax.vmap(forward))(jnp.ones((2, 5, 5)))
    assert isinstance(seen["n"], Tracer)

    @jax.jit
    def raising(m):
        return [i for i in range(jax.lax.stop_gradient(m.shape[0]))]

    with pytest.raises(jax.errors.TracerIntegerConversionError):
        raising(jnp.ones((5, 5)))


def test_every_tracer_error_is_a_type_error_so_except_exception_or_type_error_catches_it():
    """gyaradax's `_static_float`: `try: return float(jnp.asarray(v)) except Exception: return v`
    under jit: the ConcretizationTypeError is caught and the trace goes on. Each tracer error is a
    `TypeError` (so `except TypeError`, `except Exception`, `except BaseException` and a bare
    `except:` catch it), not a `ValueError` (which lets it through)."""
    for name in ("ConcretizationTypeError", "TracerBoolConversionError", "TracerIntegerConversionError",
                 "TracerArrayConversionError"):
        error = getattr(jax.errors, name)
        assert issubclass(error, TypeError) and not issubclass(error, ValueError), name

    @jax.jit
    def caught(v):
        try:
            return float(jnp.asarray(v))
        except Exception:
            return v * 2

    assert float(caught(1.5)) == 3.0

    @jax.jit
    def not_caught(v):
        try:
            return float(v)
        except ValueError:
            return v

    with pytest.raises(jax.errors.ConcretizationTypeError):
        not_caught(1.5)


@jax.tree_util.register_pytree_node_class
@dataclasses.dataclass(frozen=True)
class Params:
    """gyaradax's GKParams: `tree_flatten` walks `vars(self)` and puts the fields its class names
    in `_STATIC_FIELDS` in the aux dict (arrays excepted), the others in the children."""

    dt: float = 0.1
    mode: int = 0
    _STATIC_FIELDS = ("mode",)

    def tree_flatten(self):
        aux, leaves, keys = {}, [], []
        for k, v in vars(self).items():
            if k in self._STATIC_FIELDS and not hasattr(v, "shape"):
                aux[k] = v
            else:
                leaves.append(v)
                keys.append(k)
        aux["_keys"] = tuple(keys)
        return leaves, aux

    @classmethod
    def tree_unflatten(cls, aux, leaves):
        kwargs = {k: v for k, v in aux.items() if k != "_keys"}
        kwargs.update(zip(aux["_keys"], leaves))
        return cls(**kwargs)


def test_fields_a_filtered_flatten_puts_in_its_aux_dict_are_python_values_under_jit():
    seen = {}

    @jax.jit
    def f(p):
        seen["mode"], seen["dt"] = p.mode, p.dt
        return p.dt * int(p.mode)

    assert float(f(Params(0.5, 3))) == 1.5
    assert type(seen["mode"]) is int
    assert isinstance(seen["dt"], Tracer)  # the twin: a child is a tracer
    with pytest.raises(jax.errors.ConcretizationTypeError):
        jax.jit(lambda p: float(p.dt))(Params(0.5, 3))
    # an array stored in a field the class names static goes to the children: a tracer
    jax.jit(lambda p: seen.__setitem__("array", p.mode) or p.dt)(Params(0.5, jnp.ones(2)))
    assert isinstance(seen["array"], Tracer)


def test_comparing_shapes_of_traced_leaves_is_a_python_bool_under_jit():
    """fea-in-jax-msg's `_isolve`: `if _shapes(x0) != _shapes(b):` with `_shapes` the tuple of the
    leaves' `.shape`: tuples of Python ints, compared in Python while tracing."""
    seen = {}

    def shapes(tree):
        return tuple(x.shape for x in jax.tree_util.tree_leaves(tree))

    @jax.jit
    def f(a, b):
        test = shapes(a) != shapes(b)
        seen["test"] = test
        if a.shape == b.shape:
            return a + b
        return a

    f(jnp.ones(2), jnp.ones(2))
    assert type(seen["test"]) is bool


def test_jax_s_own_shapes_helper_returns_python_shapes_under_jit():
    """`jax._src.scipy.sparse.linalg._shapes`, which fea-in-jax-msg's copy of `_isolve` imports:
    `map(np.shape, tree_leaves(tree))`, a list of tuples of Python ints while tracing."""
    from jax._src.scipy.sparse.linalg import _shapes

    seen = {}

    @jax.jit
    def f(a):
        seen["shapes"] = _shapes({"x": a, "y": a[0]})
        seen["test"] = _shapes(a) != _shapes(a[0])
        return a

    f(jnp.ones(3))
    assert seen["shapes"] == [(3,), ()] and type(seen["test"]) is bool


def test_hashing_a_tracer_raises_a_plain_type_error():
    """A dict key or `set(...)` of a tracer: `TypeError` (unhashable), caught by `except TypeError`
    and `except Exception`."""
    caught = {}

    @jax.jit
    def f(x):
        try:
            {x: 1}
        except TypeError as e:
            caught["error"] = type(e)
        return x

    f(1.0)
    assert caught["error"] is TypeError


def test_stop_gradient_is_the_concrete_primal_under_differentiation_alone():
    """gyaradax's `np.asarray(jax.lax.stop_gradient(kxrh))` under `jax.grad`: the primal value,
    concrete, under every differentiating transformation alone; under `jax.vmap` (and under jit) a
    tracer, TracerArrayConversionError."""
    np = pytest.importorskip("numpy")

    def loss(x):
        return jnp.sum(x * np.asarray(jax.lax.stop_gradient(x)))

    x = jnp.ones(3)
    for run in (lambda: jax.grad(loss)(x), lambda: jax.value_and_grad(loss)(x), lambda: jax.jacrev(loss)(x),
                lambda: jax.jacfwd(loss)(x), lambda: jax.hessian(loss)(x), lambda: jax.jvp(loss, (x,), (x,)),
                lambda: jax.vjp(loss, x), lambda: jax.linearize(loss, x)):
        run()
    with pytest.raises(jax.errors.TracerArrayConversionError):
        jax.vmap(loss)(jnp.ones((2, 3)))
    with pytest.raises(jax.errors.TracerArrayConversionError):
        jax.jit(jax.grad(loss))(x)
