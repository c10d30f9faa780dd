"""Equinox, as data: its filtered transformations and its modules.

Observed with equinox 0.13.8 and jax 0.10.2 (../shared/spec/jax-behaviour.md rows 30 and 43).
"""

from __future__ import annotations

#: Staging APIs whose Python scalars are static (a new value traces again, row 30).
JAX_FILTERING_JIT = frozenset({"equinox.filter_jit", "equinox.filter_pmap"})

#: Equinox modules: `__call__` runs under `eqx.filter_jit` in practice, and a module is a frozen
#: dataclass (assigning a field outside `__init__` raises, row 43).
EQUINOX_MODULE_BASES = frozenset({"equinox.Module", "equinox._module.Module"})
EQUINOX_STAGED_METHODS = frozenset({"__call__"})
