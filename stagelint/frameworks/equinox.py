"""Equinox, as data: its filtered transformations and its modules.

Observed with equinox 0.13.8 and jax 0.10.2 (../shared/spec/jax-behaviour.md rows 30 and 43).
"""

from __future__ import annotations

#: Staging APIs whose Python scalars are static (a new value traces again, row 30).
JAX_FILTERING_JIT = frozenset({"equinox.filter_jit", "equinox.filter_pmap"})
#: Equinox's filtered transformations trace only the arrays they are given: a Python value is
#: static (`filter_jit`) or handed over as it is (`filter_vmap`'s default `in_axes=eqx.if_array(0)`:
#: a Python int stays an int, so `jnp.arange(n)` works there: flowjax's `_get_idxs(..., batch_size)`;
#: equinox 0.13.8, tests/runtime/test_jax_shape_static_facts.py). Whether a parameter holds a
#: tracer is what its callers pass.
EQUINOX_ARRAYS_ONLY = JAX_FILTERING_JIT | frozenset({"equinox.filter_vmap"})

#: Equinox modules: a module is a frozen dataclass (assigning a field outside `__init__` raises,
#: row 43). Equinox wraps none of its methods in a transformation (nor does `@jax.named_scope`, a
#: context manager used as a decorator): `__call__` runs as Python on every call made eagerly, and
#: is traced only by a call made under jit / filter_jit / vmap / grad (equinox 0.13.8, jax 0.10.2:
#: tests/runtime/test_jax_equinox_module_call.py). Which calls are traced is
#: `analysis.jaxstaging.JaxView._equinox_calls`'s to find.
EQUINOX_MODULE_BASES = frozenset({"equinox.Module", "equinox._module.Module"})
EQUINOX_STAGED_METHODS = frozenset({"__call__"})
#: Methods Equinox runs when a Module is built (`__check_init__` of the class and of each base),
#: with the fields the constructor was given: a Module built inside a jitted function runs them
#: under that trace, on tracer fields, once per trace (`(self.a < self.b) or ...` raises
#: TracerBoolConversionError), and the Module is frozen there (a store raises
#: FrozenInstanceError). Observed with equinox 0.13.8 and jax 0.10.2:
#: tests/runtime/test_jax_recall_facts.py. (`__init__` and `__post_init__` run under the trace
#: too, but they may assign the fields: not counted as a frozen module's methods.)
EQUINOX_CONSTRUCTION_CHECKS = frozenset({"__check_init__"})

#: `eqx.filter_jit` keys its traces on the function by equality and holds it: the same function
#: wrapped anew traces once, and so does a bound method of the same object (`eqx.filter_jit(
#: self.update)` per step: 1 trace in 5 steps), where a lambda, `functools.partial` or nested def
#: made anew traces every time (5 in 5). Observed with equinox 0.13.8 and jax 0.10.2:
#: tests/runtime/test_function_identity.py. (How `frameworks.JAX_TRACE_CACHE` names it.)
EQUINOX_TRACE_CACHE = {"equinox.filter_jit": "equal"}

#: Equinox's own transformations return an `eqx.Module` holding the function and its options, so
#: two made anew from equal functions with equal options compare equal, and `eqx.filter_jit`
#: (keyed by equality) reuses its traces: `eqx.filter_jit(eqx.filter_vmap(model.setup))` or
#: `eqx.filter_jit(eqx.filter_grad(loss))` made on every call traces once; of a lambda made anew, a
#: trace per wrap. Observed with equinox 0.13.8: tests/runtime/test_jax_certain_steps_facts.py.
EQUINOX_EQUAL_WRAPPERS = frozenset({"equinox.filter_vmap", "equinox.filter_grad", "equinox.filter_value_and_grad"})

#: An Equinox module is a pytree of its fields: children (traced under `jax.jit`, a Python float
#: too), except those declared `eqx.field(static=True)` (or the deprecated `eqx.static_field()`):
#: aux data, Python values under any transformation (observed with equinox 0.13.8:
#: tests/runtime/test_jax_pytree_fields.py).
EQUINOX_FIELDS = frozenset({"equinox.field"})
EQUINOX_STATIC_FIELDS = frozenset({"equinox.static_field"})
EQUINOX_STATIC_FIELD = ("static", "True")
