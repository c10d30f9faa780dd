"""Python values in Pallas TPU kernels' set-up code and in `shard_map` functions (STG602 under
JAX, the facts jax602 left: maxtext's kernels and attention). Observed with the real JAX 0.10.2
on CPU: `get_tpu_info()` is a dataclass of Python ints built from the device kind (on a CPU it
raises ValueError: its TPU description is read here from `get_tpu_info_for_chip`, the function
it returns through, and under a registered CPU kind); `pl.cdiv` of Python ints is a Python int,
of an array an array; a `None` in `shard_map`'s `in_specs` hands the argument on as given."""

from __future__ import annotations

import dataclasses

import pytest

jax = pytest.importorskip("jax")
jnp = jax.numpy
pl = pytest.importorskip("jax.experimental.pallas")
pltpu = pytest.importorskip("jax.experimental.pallas.tpu")

from stagelint.frameworks import JAX, JAX_ARGUMENT_SPECS, JAX_PYTHON_OF_PYTHON_NUMBERS  # noqa: E402


def _python_leaves(obj) -> list:
    """The field values of a dataclass, its nested dataclasses' fields included."""
    out = []
    for f in dataclasses.fields(obj):
        value = getattr(obj, f.name)
        out.extend(_python_leaves(value) if dataclasses.is_dataclass(value) else [value])
    return out


def test_get_tpu_info_is_a_dataclass_of_python_values_also_inside_a_trace():
    """`pltpu.get_tpu_info()` raises on a CPU (no TPU kind); it answers from the device kind
    alone, through `get_tpu_info_for_chip` (or a kind registered in `tpu_info.registry`), so
    inside a jit it returns the same Python dataclass: `tpu_info.fp8_ops_per_second > 0`,
    `range(tpu_info.num_lanes)` are Python there."""
    from jax._src.pallas.mosaic import tpu_info

    assert pltpu.get_tpu_info.__module__ == "jax._src.pallas.mosaic.tpu_info"
    with pytest.raises(ValueError):
        pltpu.get_tpu_info()
    chip = tpu_info.ChipVersion.TPU_V5P
    seen = {}

    @jax.jit
    def f(x):
        info = tpu_info.get_tpu_info_for_chip(chip, 1)
        seen["info"] = info
        seen["branch"] = info.fp8_ops_per_second > 0 or info.num_lanes > 0  # a Python bool
        return x * info.num_lanes

    f(jnp.ones(2))
    info = seen["info"]
    assert dataclasses.is_dataclass(info) and type(seen["branch"]) is bool
    leaves = _python_leaves(info)
    assert leaves and not any(isinstance(v, jax.Array) for v in leaves)
    assert all(isinstance(getattr(info, n), int) for n in ("num_lanes", "mxu_column_size", "fp8_ops_per_second"))

    # get_tpu_info itself, with the CPU's kind registered as a TPU's: the same, inside a trace
    kind = jax.devices()[0].device_kind
    tpu_info.registry[kind] = lambda: tpu_info.get_tpu_info_for_chip(chip, 1)
    try:
        pltpu.get_tpu_info.cache_clear() if hasattr(pltpu.get_tpu_info, "cache_clear") else None
        jax.jit(lambda x: seen.update(traced=pltpu.get_tpu_info()) or x)(jnp.ones(1))
        assert seen["traced"] == info
    finally:
        del tpu_info.registry[kind]
        pltpu.get_tpu_info.cache_clear() if hasattr(pltpu.get_tpu_info, "cache_clear") else None
    for name in ("jax.experimental.pallas.tpu.get_tpu_info", "jax._src.pallas.mosaic.tpu_info.get_tpu_info"):
        assert not JAX.returns_tensor(name)


def test_pallas_cdiv_of_python_ints_is_a_python_int_of_an_array_an_array():
    """`pl.cdiv(a, b)` is `(a + b - 1) // b` when both are Python ints (a Python int under jit
    too: `range(pl.cdiv(n, block))` works), `lax.div` (a tracer there) when either is an array."""
    assert pl.cdiv.__module__ + ".cdiv" in JAX_PYTHON_OF_PYTHON_NUMBERS
    assert "jax.experimental.pallas.cdiv" in JAX_PYTHON_OF_PYTHON_NUMBERS
    seen = {}

    @jax.jit
    def f(x):
        seen["python"] = pl.cdiv(7, 2)
        seen["traced"] = pl.cdiv(x, 2)
        seen["loop"] = [i for i in range(pl.cdiv(x.shape[0], 2))]
        return x

    f(jnp.ones(3, jnp.int32))
    assert type(seen["python"]) is int and seen["python"] == 4
    assert isinstance(seen["traced"], jax.core.Tracer)
    assert seen["loop"] == [0, 1]


def test_a_none_in_specs_entry_of_shard_map_hands_the_argument_on_as_given():
    """`in_specs=(P("x"), None, ...)`: the `None` arguments reach the function as the caller's
    objects (an int stays an int: `if n > 1:` works; a dict a dict; a concrete array concrete;
    a tracer of an enclosing jit that tracer); `P()` there makes the int a tracer."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # (deprecated since 0.8.0, still there)
        from jax.experimental.shard_map import shard_map as experimental_shard_map
    from jax.sharding import AxisType, PartitionSpec as P

    assert set(JAX_ARGUMENT_SPECS) == {"jax.shard_map", "jax.experimental.shard_map.shard_map"}
    mesh = jax.make_mesh((1,), ("x",), axis_types=(AxisType.Auto,))
    seen = {}

    def f(x, n, cfg, arr):
        seen.update(n=type(n), cfg=type(cfg), arr=isinstance(arr, jax.core.Tracer))
        return x * 2 if n > 1 else x

    g = jax.shard_map(f, mesh=mesh, in_specs=(P("x"), None, None, None), out_specs=P("x"))
    g(jnp.ones(4), 3, {"a": 1}, jnp.ones(2))
    assert seen == {"n": int, "cfg": dict, "arr": False}
    jax.jit(lambda x, a: g(x, 3, {"a": 1}, a))(jnp.ones(4), jnp.ones(2))
    assert seen == {"n": int, "cfg": dict, "arr": True}  # (the jit's own tracer)

    h = experimental_shard_map(f, mesh, in_specs=(P("x"), None, None, None), out_specs=P("x"))
    h(jnp.ones(4), 3, {"a": 1}, jnp.ones(2))
    assert seen["n"] is int

    traced = jax.shard_map(lambda x, n: seen.update(n=type(n)) or x, mesh=mesh, in_specs=(P("x"), P()),
                           out_specs=P("x"))
    traced(jnp.ones(4), 3)
    assert issubclass(seen["n"], jax.core.Tracer)
