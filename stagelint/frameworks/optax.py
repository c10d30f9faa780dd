"""optax, as data: what its gradient transformations are.

Observed with optax 0.2.8 and jax 0.10.2 (commit a426cd6).
"""

from __future__ import annotations

#: optax's factories return a `GradientTransformation(init, update)`, a NamedTuple of plain
#: functions: `opt.update` is the same object on every access and `jax.jit(opt.update)` traces
#: once. Prefix (ending in ".") -> the attributes that are such functions.
OPTAX_FUNCTION_HOLDERS = {"optax.": ("init", "update")}
