"""Haiku, as data: what `hk.transform` returns.

Observed with dm-haiku 0.0.17 and jax 0.10.2 (commit a426cd6: tests/rules/test_jax_families.py
runs `jax.jit(net.apply)` in a loop and counts one trace).
"""

from __future__ import annotations

#: Factories whose result is a NamedTuple of plain functions (`Transformed(init, apply)`):
#: `net.apply` is the same object on every access, so `jax.jit(net.apply)` traces once, where a
#: bound method is a new object on every access. Qualified name -> the attributes that are such
#: functions (empty: any).
HAIKU_FUNCTION_HOLDERS = {
    "haiku.transform": (), "haiku.transform_with_state": (), "haiku.without_apply_rng": (),
    "haiku.without_state": (), "haiku.multi_transform": (), "haiku.multi_transform_with_state": (),
}
