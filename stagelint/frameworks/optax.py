"""optax, as data: what its gradient transformations are.

Observed with optax 0.2.8 and jax 0.10.2 (commit a426cd6).
"""

from __future__ import annotations

#: optax's package, as the prefix of its qualified names (optax is not a JAX root: `frameworks.
#: JAX_RECORDED_CALL_PREFIXES` says why).
OPTAX_PREFIX = "optax."

#: optax's factories return a `GradientTransformation(init, update)`, a NamedTuple of plain
#: functions: `opt.update` is the same object on every access and `jax.jit(opt.update)` traces
#: once. Prefix (ending in ".") -> the attributes that are such functions.
OPTAX_FUNCTION_HOLDERS = {OPTAX_PREFIX: ("init", "update")}

#: The optax constructors that bundle a transformation's functions (`GradientTransformation(init_fn,
#: update_fn)`, `GradientTransformationExtraArgs(...)`, also reached inside optax as
#: `optax._src.base.<name>`): the position and keyword of the `update` they hold. optax stages
#: nothing of that function: it is the user's to call, eagerly (a concrete state: a Python `if` on
#: `state.count` works) or inside `jax.jit` (`jax.jit(opt.update)`, a jitted step calling it: the
#: state's fields are tracers and the same `if` raises TracerBoolConversionError). Observed with
#: optax 0.2.8 / JAX 0.10.2 (tests/runtime/test_jax_recall_facts.py). That a library's update is
#: jitted is a fact of its users' code, so such an `update` is staged in the preview tier only
#: (`jaxstaging.JaxView.unshown`); optax's own docs and tests jit every update.
OPTAX_UPDATE_TRANSFORMATIONS = {"GradientTransformation": (1, "update"),
                                "GradientTransformationExtraArgs": (1, "update")}


def optax_update_argument(qualified: str) -> tuple[int, str] | None:
    """The position and keyword of the `update` an optax constructor holds
    (`OPTAX_UPDATE_TRANSFORMATIONS`), by the call's qualified name: `optax.GradientTransformation`,
    or inside optax `optax._src.base.GradientTransformation`; None for any other name."""
    if not qualified.startswith(OPTAX_PREFIX):
        return None
    return OPTAX_UPDATE_TRANSFORMATIONS.get(qualified.rsplit(".", 1)[-1])


#: The API name of the staging record such an `update` gets (jitted by its users: `jax.jit`'s mode).
OPTAX_USERS_JIT = "optax.GradientTransformation.update"
