"""Framework semantics as data, one module per framework, each entry citing what was observed
(../shared/spec/tf-behaviour.md, jax-behaviour.md, or a test that runs the real framework):

    base        `Framework`: the questions the analysis asks of a framework
    tensorflow  TensorFlow and Keras (`TENSORFLOW`), `tf.data`, TensorFlow ops
    jax         JAX (`JAX`): its transformations by mode, what they rebuild, what runs as Python
    flax        Flax Linen and NNX     equinox   Equinox
    haiku       Haiku                  optax     optax
    python      Python's own: I/O, random draws, the clock, container mutation

The analysis asks these; a rule never spells an API itself. Callers import the names from the
package (`from stagelint.frameworks import JAX_JIT`), which re-exports every module's.
"""

from __future__ import annotations

from stagelint.frameworks.base import *  # noqa: F401,F403
from stagelint.frameworks.base import Framework, combined
from stagelint.frameworks.equinox import *  # noqa: F401,F403
from stagelint.frameworks.flax import *  # noqa: F401,F403
from stagelint.frameworks.flax import FLAX_STRUCT_DATACLASSES
from stagelint.frameworks.haiku import HAIKU_FUNCTION_HOLDERS
from stagelint.frameworks.jax import *  # noqa: F401,F403
from stagelint.frameworks.jax import JAX, JAX_PYTREE_CLASS_DECORATORS
from stagelint.frameworks.optax import (OPTAX_FUNCTION_HOLDERS, OPTAX_PREFIX, OPTAX_UPDATE_TRANSFORMATIONS,
                                        OPTAX_USERS_JIT, optax_update_argument)
from stagelint.frameworks.python import *  # noqa: F401,F403
from stagelint.frameworks.tensorflow import *  # noqa: F401,F403
from stagelint.frameworks.tensorflow import TENSORFLOW

#: Factories whose result is a NamedTuple of plain functions (Haiku's `Transformed`, optax's
#: `GradientTransformation`): qualified name (or, ending in ".", prefix) -> those attributes.
FUNCTION_HOLDERS = {**HAIKU_FUNCTION_HOLDERS, **OPTAX_FUNCTION_HOLDERS}

#: The packages whose calls the per-file walk hands to JAX's own records (`jaxstaging.record_call`:
#: the staging APIs, `lax` control flow, NNX Variables, optax's transformations; `pytrees.
#: record_registration`), as prefixes of qualified names: JAX's roots, and optax. optax is not a
#: JAX root, which would make its every name JAX's (`Framework.owns`: `optax.adam(1e-3)`, which
#: builds an optimizer, taken as returning a tracer; `names_framework`: JAX's rules brought to a
#: file that imports only optax); but `optax.GradientTransformation(init, update)` names an
#: `update` its users jit (`OPTAX_UPDATE_TRANSFORMATIONS`), which the walk reads from the call.
JAX_RECORDED_CALL_PREFIXES = (*(f"{root}." for root in JAX.roots), OPTAX_PREFIX)

#: Flax NNX's own staging APIs (`nnx.jit`, `nnx.vmap`, `nnx.grad`, `nnx.cond`, `nnx.scan`, ...: those of
#: `JAX_JIT`, `JAX_TRACE`, `JAX_GRAD` and `JAX_FUNCTION_ARGUMENTS` in `flax.nnx`). A function reached
#: only through them is taken as `nnx.jit`'s: the updates of the NNX Variables of the modules passed
#: in are carried out of the trace, which a plain `jax.jit` loses (jax-behaviour.md row 41).
NNX_TRANSFORMS = frozenset(api for api in (*JAX_JIT, *JAX_TRACE, *JAX_GRAD, *JAX_FUNCTION_ARGUMENTS)
                           if api.startswith(NNX_PREFIX))

#: APIs that call the function they take once per element of their input, in the call itself
#: (a pytree map): qualified name -> (position, keyword) of that function.
PER_ELEMENT_CALLS = {**JAX_PER_ELEMENT_CALLS, **TF_PER_ELEMENT_CALLS}

#: How each staging API's trace cache treats the function when the wrapper is made again, by
#: qualified name (each module's entry cites what was observed):
#:   "per wrap"            each wrapper keeps its own traces: every new wrapper traces again;
#:   "equal"               traces are shared by functions that compare equal (the same object, or
#:                         bound methods of one object and one function);
#:   "equal while alive"   the same, but only while one such function is alive: a bound method,
#:                         made anew on each access, dies with its wrapper and its traces with it.
#: An API not listed is known to trace again only for a new function that compares unequal (a
#: lambda, a `functools.partial`, a nested def made anew).
TRACE_CACHE = {**TF_TRACE_CACHE, **JAX_TRACE_CACHE, **EQUINOX_TRACE_CACHE, **FLAX_TRACE_CACHE}

#: Bases (prefixes of qualified names) that make a class a pytree: its object may be passed as
#: a traced `self` (Equinox modules, Flax struct nodes, Linen and NNX modules).
PYTREE_BASE_PREFIXES = ("equinox.Module", "flax.struct.PyTreeNode", "flax.nnx.Module", "flax.linen.Module",
                        "flax.nnx.Pytree")
#: Class decorators that register the class as a pytree (`flax.struct.dataclass`: its fields are
#: leaves or static; a jitted method's `self` is flattened, JAX 0.10.2,
#: tests/runtime/test_jax_certain_steps_facts.py).
PYTREE_CLASS_DECORATORS = JAX_PYTREE_CLASS_DECORATORS | FLAX_STRUCT_DATACLASSES | {"chex.dataclass"}

#: The framework(s) stagelint knows. Rules take the framework from the analysis context.
FRAMEWORKS = (TENSORFLOW, JAX)
#: Those whose rules and facts a file is spared where they cannot stage anything: the screen
#: (`screen.framework_reach`) finds, for each, the files that import it or are in one of its
#: packages (`names_framework`), and leaves it out of every file no chain of imports links to one.
OPTIONAL_FRAMEWORKS = tuple(fw for fw in FRAMEWORKS if fw.optional)


def pruned_when_unused(qualified_name: str) -> bool:
    """A call of an op that a staged program leaves out when its result is unused, losing the error
    it raises at run time (`Framework.prunes_unused_ops`): a TensorFlow op, never a JAX call."""
    return any(fw.prunes_unused_ops and fw.returns_tensor(qualified_name) for fw in FRAMEWORKS)


def names_framework(fw: Framework, imported, module: str) -> bool:
    """A file can name something of the framework: it imports one of its root packages (among
    `imported`, the dotted names it imports: `jax.numpy`, `flax.linen.Module`), or it is in one
    of them (its own names, and what its relative imports name, are under the root). A qualified
    name under the roots comes into a file only through one of these (a word in a comment does
    not: tf-models-official mentions flax once, in a comment of a module most others import)."""
    roots = fw.roots
    return module.split(".")[0] in roots or any(name.split(".")[0] in roots for name in imported)



#: What the per-file walk asks: every framework at once (TensorFlow's data where they differ).
STAGING = combined(TENSORFLOW, JAX)
