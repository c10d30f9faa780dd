"""Flax (Linen and NNX), as data: which methods run staged, what a module attribute is.

Observed with flax 0.12.8 and jax 0.10.2 (../shared/spec/jax-behaviour.md rows 40-42).
"""

from __future__ import annotations

#: Flax Linen modules: `__call__`, `setup` and `@nn.compact` methods run under `init`/`apply`,
#: which JAX programs jit (row 40).
LINEN_MODULE_BASES = frozenset({"flax.linen.Module", "flax.linen.module.Module"})
LINEN_STAGED_METHODS = frozenset({"__call__", "setup"})
LINEN_COMPACT = frozenset({"flax.linen.compact", "flax.linen.module.compact", "flax.linen.nowrap"})

#: Flax NNX's package, as the prefix of its qualified names.
NNX_PREFIX = "flax.nnx."
#: Flax NNX (`stagelint.analysis.nnx`, flax 0.12): what a module attribute is, by the call that made it.
#: `nnx.Variable` and its library subclasses: state (traced; nnx transforms carry updates out).
NNX_VARIABLES = frozenset(f"flax.nnx.{n}" for n in (
    "Variable", "Param", "BatchStat", "Cache", "Intermediate", "Perturbation", "RngState", "RngKey",
    "RngCount", "OptState", "OptArray", "OptVariable", "LoRAParam",
)) | frozenset({"flax.nnx.variablelib.Variable", "flax.nnx.training.optimizer.OptState"})
#: Library graph nodes (`nnx.Module` and `nnx.Pytree` subclasses): data; their attributes are
#: the library's business (a project class deriving from one is modelled from its `__init__`).
NNX_NODES = frozenset(f"flax.nnx.{n}" for n in (
    "Pytree", "Object", "Module", "Dict", "List", "Sequential", "PReLU", "MultiHeadAttention",
    "RNNCellBase", "LSTMCell", "GRUCell", "OptimizedLSTMCell", "SimpleCell", "RNN", "Bidirectional",
    "Conv", "ConvTranspose", "Embed", "Linear", "LinearGeneral", "Einsum", "LoRA", "LoRALinear",
    "BatchNorm", "LayerNorm", "RMSNorm", "GroupNorm", "InstanceNorm", "SpectralNorm", "WeightNorm",
    "Dropout", "Rngs", "RngStream", "Metric", "MultiMetric", "Optimizer", "ModelAndOptimizer", "EMA",
))
#: Subpackages whose classes are graph nodes (`nnx.metrics.Average`, `nnx.nn.linear.Linear`).
NNX_NODE_PACKAGES = ("flax.nnx.metrics.", "flax.nnx.nn.", "flax.nnx.training.")
#: The bases that make a project class an NNX graph node.
NNX_NODE_BASES = NNX_NODES | frozenset({"flax.nnx.module.Module", "flax.nnx.pytreelib.Pytree",
                                        "flax.nnx.object.Object"})
#: Explicit markers on assignment: `self.x = nnx.data(x)` / `nnx.static(x)`.
NNX_DATA = frozenset({"flax.nnx.data", "flax.nnx.pytreelib.data"})
NNX_STATIC = frozenset({"flax.nnx.static", "flax.nnx.pytreelib.static"})
#: ... and as class-level annotations (`x: nnx.Static[int]`; `nnx.Data[...]` is deprecated but read).
NNX_STATIC_ANNOTATIONS = frozenset({"flax.nnx.Static", "flax.nnx.pytreelib.Static"})
NNX_DATA_ANNOTATIONS = frozenset({"flax.nnx.Data", "flax.nnx.pytreelib.Data"})
#: Calls that make Variables hijax: those built after them (`nnx.var_defaults(hijax=True)`), or
#: those of the object given (`nnx.with_vars(model, hijax=True)` / `ref=True`).
NNX_VAR_DEFAULTS = frozenset({"flax.nnx.var_defaults", "flax.nnx.variablelib.var_defaults", "flax.nnx.with_vars"})
#: The calls that may make a hijax Variable, given `hijax=True` or `ref=True` (the walk hands each to
#: `nnx.record_call`).
NNX_HIJAX_CALLS = NNX_VAR_DEFAULTS | NNX_VARIABLES
#: Attributes of an NNX Variable that hold its value (`v.value += 1` updates the Variable).
NNX_VARIABLE_VALUES = frozenset({"value", "raw_value"})

#: Flax's jits keep their traces in the wrapper they return: each `nnx.jit(f)` made anew traces
#: again, even for the same module-level `f` (5 traces in 5 wraps), as `tf.function` does; and
#: `nn.jit(nn.Dense)` in a Linen loop makes a new jitted module class per call (3 applies x 2
#: layers: 6 traces). Observed with flax 0.12.8: tests/runtime/test_function_identity.py and
#: tests/rules/test_jax_precision.py (linen_intro). (How `frameworks.JAX_TRACE_CACHE` names it.)
FLAX_TRACE_CACHE = {"flax.nnx.jit": "per wrap", "flax.linen.jit": "per wrap"}

#: `flax.struct.dataclass` / `flax.struct.PyTreeNode`: a pytree whose fields are children (traced
#: under jit) except those declared `struct.field(pytree_node=False)`: aux data, Python values
#: under any transformation (observed with flax 0.12.8: tests/runtime/test_jax_pytree_fields.py).
FLAX_STRUCT_DATACLASSES = frozenset({"flax.struct.dataclass"})
FLAX_STRUCT_BASES = frozenset({"flax.struct.PyTreeNode"})
#: The field constructor, and the keyword and value that make a field static.
FLAX_STRUCT_FIELDS = frozenset({"flax.struct.field"})
FLAX_STATIC_FIELD = ("pytree_node", "False")
