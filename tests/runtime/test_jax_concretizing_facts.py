"""The facts behind `tracers.raises_while_traced` (`frameworks.JAX_CONCRETIZING_FUNCTIONS`),
observed with the real JAX: a Python conversion of a tracer raises while tracing, so the code
after it never runs traced; the code before it runs at every call (no trace is ever kept)."""

from __future__ import annotations

from functools import partial

import pytest

jax = pytest.importorskip("jax")
jnp = jax.numpy
np = pytest.importorskip("numpy")

CONVERSIONS = {
    "builtins.float": float,
    "builtins.int": int,
    "builtins.complex": complex,
    "builtins.bool": bool,
    # (an integer of the value: `range` takes no float, traced or not)
    "builtins.range": lambda v: range(v.astype("int32") if hasattr(v, "astype") else v),
    "list.__getitem__": lambda v: [0, 1, 2][v.astype("int32") if hasattr(v, "astype") else v],
    "numpy.asarray": np.asarray,
    "numpy.array": np.array,
    "item": lambda v: v.item(),
    "tolist": lambda v: v.tolist(),
}


def test_the_table_names_each_conversion_observed():
    from stagelint.frameworks import (JAX_CONCRETIZING_ANY_LEAF, JAX_CONCRETIZING_FUNCTIONS,
                                      JAX_CONCRETIZING_METHODS, JAX_SEQUENCE_INDEX, JAX_VALUE_SHAPED_FUNCTIONS)

    assert set(CONVERSIONS) == JAX_CONCRETIZING_FUNCTIONS | JAX_CONCRETIZING_METHODS | {JAX_SEQUENCE_INDEX}
    # (the value-shaped calls without `size=`: tests/runtime/test_jax_thirteenth_audit_au_facts.py)
    assert JAX_CONCRETIZING_ANY_LEAF <= set(CONVERSIONS) | JAX_VALUE_SHAPED_FUNCTIONS


@pytest.mark.parametrize("name", sorted(CONVERSIONS))
@pytest.mark.parametrize("value", ["argument", "python scalar argument", "op on constants", "op of argument"])
def test_a_conversion_of_a_tracer_raises_while_tracing_and_what_follows_never_runs(name, value):
    convert = CONVERSIONS[name]
    ran = []

    def f(x):
        ran.append("before")
        v = {"argument": x, "python scalar argument": x, "op on constants": jnp.sin(jnp.float32(1.0)),
             "op of argument": jnp.sum(x)}[value]
        convert(v)
        ran.append("after")
        return x

    arg = 2.0 if value == "python scalar argument" else jnp.float32(2.0)
    g = jax.jit(f)
    for _ in range(3):
        with pytest.raises(TypeError) as caught:
            g(arg)
        assert isinstance(caught.value, (jax.errors.ConcretizationTypeError, jax.errors.TracerArrayConversionError,
                                         jax.errors.TracerIntegerConversionError))
    # each call traces anew (no trace was kept): the code before runs every time, never the code after
    assert ran == ["before"] * 3


@pytest.mark.parametrize("api", ["pmap", "pjit"])
def test_pmap_and_pjit_hand_tracers_too(api):
    """`JAX_TRACES_EVERY_ARGUMENT`: `pmap` (each device's slice) and `pjit` trace their arguments as `jit` does."""
    if api == "pmap":
        stage, arg = jax.pmap, jnp.ones(1)
    else:
        stage, arg = pytest.importorskip("jax.experimental.pjit").pjit, jnp.float32(1.0)

    def f(x):
        return float(x)

    with pytest.raises(jax.errors.ConcretizationTypeError):
        stage(f)(arg)


@pytest.mark.parametrize("name", sorted(CONVERSIONS))
def test_the_negative_twins_a_static_argument_and_a_closed_over_numpy_array_convert(name):
    convert = CONVERSIONS[name]
    table = np.ones(()) if name not in ("tolist",) else np.ones(2)
    static = np.float32(2.0) if name in ("item", "tolist") else 2 if name in ("builtins.range", "list.__getitem__") else 2.0

    @partial(jax.jit, static_argnums=1)
    def f(x, n):
        convert(table)
        if name not in ("item", "tolist"):
            convert(n)
        return x

    f(jnp.ones(2), static)


@pytest.mark.parametrize("name", ["builtins.float", "builtins.int", "builtins.complex", "builtins.range", "list.__getitem__",
                                  "item", "tolist"])
def test_those_that_raise_on_a_rebuilt_container_too(name):
    """`JAX_CONCRETIZING_ANY_LEAF`: a parameter alone may be a rebuilt tuple or None, and these
    raise on it as well; `bool` and `np.asarray` of a tuple work."""
    convert = CONVERSIONS[name]

    @jax.jit
    def f(batch, nothing):
        for v in (batch, nothing):
            with pytest.raises((TypeError, AttributeError)):
                convert(v)
        bool(batch)
        np.asarray(nothing)
        return 0

    f((), None)


def test_range_of_a_jnp_value_computed_from_static_arguments_raises():
    """The twelfth audit's AQ1 (jax_metric_CalabiYau's `sample_weight`): `range()` of an element
    of `jnp.array(static tuple)` inside a jit raises TracerIntegerConversionError, under a jit
    that reaches the function through calls too; so does indexing a Python list with it, and
    `range(0, n)` with the stop traced. The twin: `range()` of the static tuple's own element."""
    ran = []

    def sample(factors, x):
        omgs = jnp.array(factors) - 1
        for i in range(len(factors)):
            for _ in range(omgs[i]):
                x = x + 1
        ran.append("after")
        return x

    def measure(factors, x):
        return sample(factors, x)

    for stage in (jax.jit(sample, static_argnums=0), jax.jit(measure, static_argnums=0)):
        with pytest.raises(jax.errors.TracerIntegerConversionError):
            stage((2, 3), jnp.float32(0.0))
    with pytest.raises(jax.errors.TracerIntegerConversionError):
        jax.jit(lambda x: [1, 2, 3][jnp.int32(1)] + x)(1.0)
    with pytest.raises(jax.errors.TracerIntegerConversionError):
        jax.jit(lambda x, i: (1, 2, 3)[i] + x)(1.0, 1)
    with pytest.raises(jax.errors.TracerIntegerConversionError):
        jax.jit(lambda x: sum(1 for _ in range(0, jnp.int32(2))) + x)(1.0)
    assert ran == []

    @partial(jax.jit, static_argnums=0)
    def static_sizes(factors, x):
        for i in range(len(factors)):
            for _ in range(factors[i]):
                x = x + 1
        return x

    assert static_sizes((2, 3), jnp.float32(0.0)) == 5.0


def test_an_if_or_while_on_a_jnp_value_raises_and_its_body_is_never_traced():
    """The twelfth audit's AQ3 (bqskit-qfactor-jax's debug branch): the test of a Python `while`
    (or `if`) is a `bool` of its value, so on a JAX op's result (a local def's, even on
    constants) it raises TracerBoolConversionError under jit, before its body runs once; the
    same code runs eagerly. The twin: a test on a static argument."""
    ran = []

    def loop(x):
        def should_continue(v):
            return jnp.logical_not(v > 3)

        while should_continue(x):
            x = x + 1
            ran.append("body")
        return x

    with pytest.raises(jax.errors.TracerBoolConversionError):
        jax.jit(loop)(jnp.float32(1.0))
    assert ran == []
    assert loop(jnp.float32(1.0)) == 4.0 and ran == ["body"] * 3

    @partial(jax.jit, static_argnums=0)
    def static_test(n, x):
        while n > 0:
            x, n = x + 1, n - 1
        return x

    assert static_test(2, jnp.float32(0.0)) == 2.0


def test_code_after_an_unconditional_raise_is_never_traced():
    """The twelfth audit's AQ2 (tune-jax's demo: `raise ValueError("Refusing to compile")` first
    in a jitted function): the trace stops at the raise, each call traces again, and the loop
    after it never runs. The twin: a raise under a static condition not met."""
    ran = []

    @partial(jax.jit, static_argnames="steps")
    def refuses(x, steps=3):
        ran.append("trace")
        raise ValueError("Refusing to compile")
        for _ in range(steps):  # (as the demo writes it)
            ran.append("loop")
            x = x + 1
        return x

    for _ in range(2):
        with pytest.raises(ValueError):
            refuses(jnp.float32(0.0))
    assert ran == ["trace", "trace"]

    @partial(jax.jit, static_argnames="steps")
    def refuses_sometimes(x, steps=3):
        if steps > 10:
            raise ValueError("Refusing to compile")
        for _ in range(steps):
            x = x + 1
        return x

    assert refuses_sometimes(jnp.float32(0.0)) == 3.0


# `frameworks.JAX_OPS_ALWAYS_TRACED`: the staging APIs under which a JAX op's result is a tracer
# whatever its operands, called with no jit around (the twentieth JAX audit's BW2, FoldJAX's
# confidence head reached by a `lax.map` body).
_TABLE = np.array([1, 2, 2])


def _concrete_only():
    """`jnp.unique(...).tolist()` of an op on a closed-over NumPy array: raises where ops are traced."""
    jnp.unique(jnp.repeat(_TABLE, 2)).tolist()


def _run_under(api):
    xs = jnp.ones(3)

    def body(*args):
        _concrete_only()
        return args[-1]

    run = {
        "jax.lax.map": lambda: jax.lax.map(body, xs),
        "jax.lax.scan": lambda: jax.lax.scan(lambda c, x: (c, body(x)), 0.0, xs),
        "jax.lax.fori_loop": lambda: jax.lax.fori_loop(0, 2, body, 0.0),
        "jax.lax.while_loop": lambda: jax.lax.while_loop(lambda v: body(v) < 1, lambda v: v + 1, 0.0),
        "jax.lax.cond": lambda: jax.lax.cond(True, body, lambda v: v, 1.0),
        "jax.lax.switch": lambda: jax.lax.switch(0, [body, lambda v: v], 1.0),
        "jax.checkpoint": lambda: jax.checkpoint(body)(1.0),
        "jax.remat": lambda: jax.remat(body)(1.0),
        "jax.jit": lambda: jax.jit(body)(1.0),
        "jax.pmap": lambda: jax.pmap(body)(jnp.ones(1)),
        "jax.vmap": lambda: jax.vmap(body)(xs),
        "jax.grad": lambda: jax.grad(body)(1.0),
        "jax.lax.associative_scan": lambda: jax.lax.associative_scan(lambda a, b: body(a + b), xs),
    }[api]
    run()


@pytest.mark.parametrize("api", sorted({"jax.lax.map", "jax.lax.scan", "jax.lax.fori_loop", "jax.lax.while_loop",
                                        "jax.lax.cond", "jax.lax.switch", "jax.checkpoint", "jax.remat", "jax.jit",
                                        "jax.pmap"}))
def test_ops_on_constants_are_tracers_in_whole_body_traces(api):
    from stagelint.frameworks import JAX_OPS_ALWAYS_TRACED

    assert api in JAX_OPS_ALWAYS_TRACED
    with pytest.raises(jax.errors.ConcretizationTypeError):
        _run_under(api)


@pytest.mark.parametrize("api", ["jax.vmap", "jax.grad", "jax.lax.associative_scan"])
def test_the_negative_twins_vmap_grad_and_associative_scan_leave_them_concrete(api):
    from stagelint.frameworks import JAX_OPS_ALWAYS_TRACED

    assert api not in JAX_OPS_ALWAYS_TRACED
    _run_under(api)


def test_a_string_in_a_dict_of_tracers_is_a_python_bool_and_in_an_array_a_type_error():
    """`tensors.python_string` (BW-P2): under jit a dict argument stays a dict, so `key in d` for a
    string key hashes the string (a Python bool); an array holds no string (TypeError, no tracer).
    The negative twin: a number `in` an array of tracers is a tracer (its bool raises)."""
    seen = []

    @jax.jit
    def f(d, x):
        for key in ("a", "z"):
            seen.append(type(key in d))
        with pytest.raises(TypeError, match="unsupported operand"):
            "a" in x  # noqa: B015
        with pytest.raises(jax.errors.TracerBoolConversionError):
            bool(1.0 in x)
        return d["a"]

    f({"a": jnp.ones(2)}, jnp.ones(2))
    assert seen == [bool, bool]
