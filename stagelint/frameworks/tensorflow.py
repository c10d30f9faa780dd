"""What is framework-specific, as data: which calls stage code, create variables, produce tensors.

Rules ask questions of a `Framework` ("does this qualified name stage a function?") and never
spell an API themselves, so a second staging framework (jax.jit) is one more instance here.
Names are fully qualified, as libcst's QualifiedNameProvider reports them after import aliases
are undone: `import tensorflow as tf; tf.function` is `tensorflow.function`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property


@dataclass(frozen=True)
class Framework:
    name: str
    #: Root packages: a qualified name under one of these belongs to the framework.
    roots: tuple[str, ...]
    #: Decorators / wrapper calls that stage a Python function into a graph.
    staging_decorators: frozenset[str]
    #: Wrappers whose function runs eagerly on every call, even from staged code.
    eager_escapes: frozenset[str]
    #: Context managers whose body runs outside the graph, once per trace (tf.init_scope).
    lifting_scopes: frozenset[str]
    #: Base classes whose `staged_methods` the framework traces for you (Keras).
    layer_base_prefixes: tuple[str, ...]
    layer_base_names: frozenset[str]
    staged_methods: frozenset[str]
    #: Calls that create variables (first call only under staging).
    variable_constructors: frozenset[str]
    #: Method names that create variables whatever the receiver (`self.add_weight`).
    variable_creating_methods: frozenset[str]
    #: Qualified-name prefixes of classes whose construction creates variables (Keras layers...).
    variable_owner_prefixes: tuple[str, ...]
    #: Calls under the roots that do not return a tensor (configuration, scopes, containers).
    non_tensor_calls: frozenset[str]
    non_tensor_prefixes: tuple[str, ...]
    #: Tensor attributes that are Python values, not tensors.
    non_tensor_attributes: frozenset[str]
    #: The variable type, for "is this global a variable?" checks.
    variable_types: frozenset[str] = field(default_factory=frozenset)
    #: Its rules and facts are left out of files it cannot stage anything in (`absent_from`).
    optional: bool = False

    def owns(self, qualified_name: str) -> bool:
        # Asked tens of thousands of times a file: one C-level test each, not a loop over the roots.
        roots, prefixes = self._root_tests
        return qualified_name in roots or qualified_name.startswith(prefixes)

    @cached_property
    def _root_tests(self) -> tuple[frozenset[str], tuple[str, ...]]:
        return frozenset(self.roots), tuple(r + "." for r in self.roots)

    def is_layer_base(self, qualified_name: str) -> bool:
        if not qualified_name.startswith(self.layer_base_prefixes):
            return False
        last = qualified_name.rsplit(".", 1)[-1]
        return last in self.layer_base_names or ".layers." in qualified_name

    def creates_variables(self, qualified_name: str) -> bool:
        if qualified_name in self.variable_constructors:
            return True
        if qualified_name.startswith(self.variable_owner_prefixes):
            # Classes (CamelCase) under keras.layers/models/metrics/optimizers; not functions
            # such as keras.layers.concatenate or keras.metrics.mean_squared_error.
            last = qualified_name.rsplit(".", 1)[-1]
            return last[:1].isupper()
        return False

    def creates_no_variables(self, qualified_name: str) -> bool:
        """A Keras layer class that owns no variables (`Add`, `Activation`, `Reshape`, pooling):
        constructing one in staged code is harmless. `Dropout` and the other random layers own a
        seed-generator variable in Keras 3, and none in Keras 2 (`tf_keras`)."""
        if not qualified_name.startswith(self.variable_owner_prefixes):
            return False
        last = qualified_name.rsplit(".", 1)[-1]
        if last in WEIGHTLESS_KERAS_LAYERS:
            return True
        return last in KERAS2_WEIGHTLESS_RANDOM_LAYERS and qualified_name.startswith(KERAS2_ROOTS)

    def returns_tensor(self, qualified_name: str) -> bool:
        """A call under the framework's roots returns a tensor unless listed as not doing so."""
        if not self.owns(qualified_name):
            return False
        for name in (qualified_name, canonical_tf_name(qualified_name)):  # `tf.compat.v2.*` too
            if name in self.non_tensor_calls or name.startswith(self.non_tensor_prefixes):
                return False
        last = qualified_name.rsplit(".", 1)[-1]
        # Classes (tf.TensorSpec, tf.GradientTape, tf.keras.layers.Dense) build objects, not tensors.
        return not last[:1].isupper()


#: Base classes of Keras 3 (`import keras`): its `Layer.__call__` and `Model.fit` run `call`,
#: `train_step`, `test_step` and `predict_step` without AutoGraph, also from a `tf.function`
#: (observed with TF 2.21 / Keras 3.15, tf-behaviour.md row m2 and tests/test_keras3_autograph.py:
#: a tensor `if` or a `for` over `tf.range` in `call`, in a helper it calls, or in `train_step`
#: under `fit` raise OperatorNotAllowedInGraphError; `float(t)` raises TypeError). Keras 2
#: (`tf_keras`, `tensorflow.python.keras`) converts them. `tf.keras` is Keras 3 too in TF 2.21,
#: unless TF_USE_LEGACY_KERAS=1 selects `tf_keras`: which one runs depends on the environment and
#: on the TensorFlow version the code targets, so it is left alone.
KERAS3_BASE_PREFIXES = ("keras.",)

#: Keras layer classes that create no variables, in Keras 2 and 3 (checked with TF 2.21 / Keras 3.15:
#: constructing and calling them inside a tf.function twice works).
WEIGHTLESS_KERAS_LAYERS = frozenset({
    "Activation", "ReLU", "LeakyReLU", "ELU", "Softmax", "ThresholdedReLU",
    "Add", "Subtract", "Multiply", "Average", "Maximum", "Minimum", "Concatenate", "Dot",
    "Reshape", "Flatten", "Permute", "RepeatVector", "Identity", "Masking", "Lambda",
    "Cropping1D", "Cropping2D", "Cropping3D", "ZeroPadding1D", "ZeroPadding2D", "ZeroPadding3D",
    "UpSampling1D", "UpSampling2D", "UpSampling3D",
    "MaxPooling1D", "MaxPooling2D", "MaxPooling3D", "AveragePooling1D", "AveragePooling2D",
    "AveragePooling3D", "MaxPool1D", "MaxPool2D", "MaxPool3D", "AvgPool1D", "AvgPool2D", "AvgPool3D",
    "GlobalAveragePooling1D", "GlobalAveragePooling2D", "GlobalAveragePooling3D",
    "GlobalMaxPooling1D", "GlobalMaxPooling2D", "GlobalMaxPooling3D",
    "GlobalAvgPool1D", "GlobalAvgPool2D", "GlobalAvgPool3D", "GlobalMaxPool1D", "GlobalMaxPool2D",
    "GlobalMaxPool3D", "Resizing", "Rescaling", "CenterCrop",
})
#: Random layers that own a seed-generator variable in Keras 3 but none in Keras 2, whose default
#: "legacy stateful" random generator uses plain random ops.
KERAS2_WEIGHTLESS_RANDOM_LAYERS = frozenset({
    "Dropout", "SpatialDropout1D", "SpatialDropout2D", "SpatialDropout3D", "GaussianNoise",
    "GaussianDropout", "AlphaDropout",
})
KERAS2_ROOTS = ("tf_keras.", "tensorflow.python.keras.")


def _keras_prefixes(*subpackages: str) -> tuple[str, ...]:
    roots = ("tensorflow.keras", "keras", "tf_keras", "tensorflow.python.keras", "keras.src")
    return tuple(f"{root}.{sub}." for root in roots for sub in subpackages)


TENSORFLOW = Framework(
    name="tensorflow",
    roots=("tensorflow", "tf_keras", "keras"),
    staging_decorators=frozenset({
        "tensorflow.function",
        "tensorflow.compat.v2.function",
        "tensorflow.compat.v1.function",
        "tensorflow.python.eager.def_function.function",
        "tensorflow.python.eager.polymorphic_function.polymorphic_function.function",
        "tf_agents.utils.common.function",
    }),
    eager_escapes=frozenset({
        "tensorflow.py_function",
        "tensorflow.numpy_function",
        "tensorflow.compat.v1.py_func",
        "tensorflow.compat.v1.py_function",
        "tensorflow.compat.v1.numpy_function",
    }),
    lifting_scopes=frozenset({"tensorflow.init_scope", "tensorflow.compat.v1.init_scope"}),
    layer_base_prefixes=("tensorflow.keras.", "keras.", "tf_keras.", "tensorflow.python.keras."),
    layer_base_names=frozenset({"Layer", "Model", "Sequential"}),
    staged_methods=frozenset({"call", "train_step", "test_step", "predict_step"}),
    variable_constructors=frozenset({
        "tensorflow.Variable",
        "tensorflow.compat.v1.Variable",
        "tensorflow.compat.v1.get_variable",
        "tensorflow.random.Generator",
        "tensorflow.random.Generator.from_seed",
        "tensorflow.random.Generator.from_non_deterministic_state",
        "tensorflow.random.experimental.Generator",
        "tensorflow.random.experimental.Generator.from_seed",
        "keras.Variable",
    }),
    variable_creating_methods=frozenset({"add_weight", "add_variable"}),
    variable_owner_prefixes=_keras_prefixes("layers", "models", "metrics", "optimizers")
    + ("tensorflow.keras.Sequential", "tensorflow.keras.Model", "keras.Sequential", "keras.Model",
       "tf_keras.Sequential", "tf_keras.Model", "tensorflow.Module"),
    non_tensor_calls=frozenset({
        "tensorflow.function", "tensorflow.init_scope", "tensorflow.name_scope", "tensorflow.device",
        "tensorflow.control_dependencies", "tensorflow.print", "tensorflow.executing_eagerly",
        "tensorflow.get_logger", "tensorflow.py_function", "tensorflow.numpy_function",
        "tensorflow.TensorArray", "tensorflow.Variable", "tensorflow.is_tensor",
        "tensorflow.get_static_value", "tensorflow.nest.flatten", "tensorflow.nest.map_structure",
        "tensorflow.nest.pack_sequence_as", "tensorflow.as_dtype", "tensorflow.compat.dimension_value",
    }),
    non_tensor_prefixes=(
        "tensorflow.config.", "tensorflow.data.", "tensorflow.keras.", "keras.", "tf_keras.",
        "tensorflow.distribute.", "tensorflow.summary.", "tensorflow.saved_model.",
        "tensorflow.autograph.", "tensorflow.compat.v1.logging.", "tensorflow.io.gfile.",
        "tensorflow.experimental.", "tensorflow.types.", "tensorflow.dtypes.", "tensorflow.nest.",
        "tensorflow.TensorShape", "tensorflow.debugging.assert_", "tensorflow.random.set_seed",
        "tensorflow.python.util.nest.", "tensorflow.get_logger",  # (a Python `logging.Logger`)
    ),
    non_tensor_attributes=frozenset({
        "shape", "dtype", "name", "device", "graph", "op", "ndim", "get_shape", "numpy",
        "value_index", "trainable", "__class__", "_fields",
        # Python ints of composite tensors and specs (`RaggedTensor.ragged_rank`, a GraphTensor's
        # `rank`); a tf.Tensor has no `rank` attribute (`tf.rank(x)` is the op)
        "rank", "ragged_rank",
    }),
    variable_types=frozenset({"tensorflow.Variable", "tensorflow.compat.v1.Variable", "keras.Variable"}),
)

# JAX (issue 14) -------------------------------------------------------------------------------
#
# Observed with jax 0.10.2, flax 0.12.8, equinox 0.13.8 (../shared/spec/jax-behaviour.md). JAX has
# no AutoGraph: every Python `if` on a traced value fails. How a function is staged decides which
# pitfalls exist, so each staging API has a *mode*:
#   "jit"   compiled and cached: its Python runs once per trace (all families);
#   "trace" traced on every use, not cached (vmap, checkpoint, bodies of lax control flow): Python
#           control flow on tracers fails, tracers leak, a loop body's Python runs once;
#   "grad"  differentiated on concrete values: Python control flow works (row 15), tracers leak.

#: Staging APIs taking the function first, as decorator or call, by mode.
JAX_JIT = frozenset({
    "jax.jit", "jax.pmap", "jax.experimental.pjit.pjit", "jax.pjit", "flax.nnx.jit", "flax.linen.jit",
    "equinox.filter_jit", "equinox.filter_pmap",
})
JAX_TRACE = frozenset({
    "jax.vmap", "jax.checkpoint", "jax.remat", "jax.ad_checkpoint.checkpoint", "jax.eval_shape",
    "jax.make_jaxpr", "jax.experimental.shard_map.shard_map", "jax.shard_map", "flax.nnx.vmap",
    "flax.nnx.remat", "flax.nnx.pmap", "flax.nnx.shard_map", "equinox.filter_vmap",
    "equinox.filter_checkpoint", "equinox.filter_eval_shape", "equinox.filter_make_jaxpr",
})
JAX_GRAD = frozenset({
    "jax.grad", "jax.value_and_grad", "jax.jacfwd", "jax.jacrev", "jax.hessian", "jax.jvp", "jax.vjp",
    "jax.linearize", "flax.nnx.grad", "flax.nnx.value_and_grad", "equinox.filter_grad",
    "equinox.filter_value_and_grad", "equinox.filter_jvp", "equinox.filter_vjp",
})
#: Staging APIs whose Python scalars are static (a new value traces again, row 30).
JAX_FILTERING_JIT = frozenset({"equinox.filter_jit", "equinox.filter_pmap"})
#: `jax.lax` control flow traces the functions it is given, under jit or not (rows 25, 26):
#: API -> the positions and keywords of its function arguments (a list of them for `switch`).
JAX_FUNCTION_ARGUMENTS: dict[str, tuple[tuple[int, str], ...]] = {
    "jax.lax.cond": ((1, "true_fun"), (2, "false_fun")),
    "jax.lax.switch": ((1, "branches"),),
    "jax.lax.while_loop": ((0, "cond_fun"), (1, "body_fun")),
    "jax.lax.fori_loop": ((2, "body_fun"),),
    "jax.lax.scan": ((0, "f"),),
    "jax.lax.map": ((0, "f"),),
    "jax.lax.associative_scan": ((0, "fn"),),
    "flax.nnx.cond": ((1, "true_fun"), (2, "false_fun")),
    "flax.nnx.switch": ((1, "branches"),),
    "flax.nnx.while_loop": ((0, "cond_fun"), (1, "body_fun")),
    "flax.nnx.fori_loop": ((2, "body_fun"),),
    "flax.nnx.scan": ((0, "f"),),
}
#: Staging APIs that hand the function JAX's own copy of each non-static argument: they flatten
#: the caller's pytree to its leaves and rebuild the containers around the tracers, so a store
#: into an argument (`batch["x"] = ...`, `acc.append(t)`) changes that copy, never the caller's
#: object (observed with jax 0.10.2: jit, vmap, grad, checkpoint, eval_shape, scan and fori_loop
#: bodies). Not Flax NNX's transforms (they carry module updates out) nor Equinox's filtered ones
#: (a non-array leaf is passed as the caller's own object).
JAX_REBUILDS_ARGUMENTS = frozenset(
    {a for a in JAX_JIT | JAX_TRACE | JAX_GRAD if a.startswith("jax.")}
    | {a for a in JAX_FUNCTION_ARGUMENTS if a.startswith("jax.")}
)
#: Flax Linen modules: `__call__`, `setup` and `@nn.compact` methods run under `init`/`apply`,
#: which JAX programs jit (row 40).
LINEN_MODULE_BASES = frozenset({"flax.linen.Module", "flax.linen.module.Module"})
LINEN_STAGED_METHODS = frozenset({"__call__", "setup"})
LINEN_COMPACT = frozenset({"flax.linen.compact", "flax.linen.module.compact", "flax.linen.nowrap"})
#: Equinox modules: `__call__` runs under `eqx.filter_jit` in practice, and a module is a frozen
#: dataclass (assigning a field outside `__init__` raises, row 43).
EQUINOX_MODULE_BASES = frozenset({"equinox.Module", "equinox._module.Module"})
EQUINOX_STAGED_METHODS = frozenset({"__call__"})
#: Flax NNX (`stagelint.nnx`, flax 0.12): what a module attribute is, by the call that made it.
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
#: Attributes of an NNX Variable that hold its value (`v.value += 1` updates the Variable).
NNX_VARIABLE_VALUES = frozenset({"value", "raw_value"})
#: Calls whose function runs in Python on every call, with concrete values, even under jit.
JAX_EAGER_ESCAPES = frozenset({
    "jax.pure_callback", "jax.debug.callback", "jax.experimental.io_callback",
    "jax.experimental.host_callback.call", "jax.experimental.host_callback.id_tap",
})
#: Maps over a pytree: the result is the tree given (its containers, objects and Python leaves
#: as they were, the leaves mapped), an array only where the tree or the function's results are.
JAX_TREE_MAPS = frozenset({
    "jax.tree_util.tree_map", "jax.tree.map", "jax.tree_map", "jax.tree_util.tree_map_with_path",
    "jax.tree.map_with_path",
})
#: Factories whose result is a NamedTuple of plain functions: Haiku's `Transformed(init, apply)`
#: and optax's `GradientTransformation(init, update)`. `net.apply` / `opt.update` is then the same
#: object on every access and `jax.jit(net.apply)` traces once (checked with dm-haiku 0.0.17,
#: optax and JAX 0.10.2), where a bound method is new on every access. Qualified name (or, ending
#: in ".", prefix) -> the attributes that are such functions (empty: any).
FUNCTION_HOLDERS = {
    "haiku.transform": (), "haiku.transform_with_state": (), "haiku.without_apply_rng": (),
    "haiku.without_state": (), "haiku.multi_transform": (), "haiku.multi_transform_with_state": (),
    "optax.": ("init", "update"),
}
#: The errors JAX raises on a Python use of a tracer (jax._src.errors, 0.10.2), each with the
#: `except` clauses that name it: itself and its JAX bases. Code that catches the tracer error by
#: name expects the traced case and handles it (Haiku's `dropout`: `try: if rate < 0: raise ...
#: except jax.errors.ConcretizationTypeError: pass`); a catch-all (`except Exception`, `except
#: TypeError`) shows no such intent, and the eager and staged runs may part silently there.
JAX_TRACER_ERROR_CATCHERS = {
    "ConcretizationTypeError": frozenset({"jax.errors.ConcretizationTypeError", "jax.errors.JAXTypeError"}),
    "TracerBoolConversionError": frozenset({"jax.errors.TracerBoolConversionError", "jax.errors.ConcretizationTypeError",
                                            "jax.errors.JAXTypeError"}),
    "TracerIntegerConversionError": frozenset({"jax.errors.TracerIntegerConversionError", "jax.errors.JAXTypeError"}),
    "TracerArrayConversionError": frozenset({"jax.errors.TracerArrayConversionError", "jax.errors.JAXTypeError"}),
}

JAX = Framework(
    name="jax",
    optional=True,
    roots=("jax", "flax", "equinox"),
    staging_decorators=JAX_JIT | JAX_TRACE | JAX_GRAD,
    eager_escapes=JAX_EAGER_ESCAPES,
    lifting_scopes=frozenset({"jax.ensure_compile_time_eval", "jax.core.ensure_compile_time_eval"}),
    layer_base_prefixes=(),
    layer_base_names=frozenset(),
    staged_methods=frozenset(),
    # a `jax.Ref` global rebound instead of updated in place is STG303's (row 8)
    variable_constructors=frozenset({"jax.new_ref", "jax.empty_ref", "jax.ref.new_ref", "jax.ref.empty_ref"}),
    variable_creating_methods=frozenset(),
    variable_owner_prefixes=(),
    non_tensor_calls=JAX_JIT | JAX_TRACE | JAX_GRAD | JAX_EAGER_ESCAPES | frozenset({
        "jax.devices", "jax.local_devices", "jax.device_count", "jax.local_device_count",
        "jax.process_index", "jax.process_count", "jax.default_backend", "jax.block_until_ready",
        "jax.numpy.shape", "jax.numpy.ndim", "jax.numpy.size", "jax.numpy.dtype", "jax.numpy.iinfo",
        "jax.numpy.finfo", "jax.numpy.result_type", "jax.numpy.issubdtype", "jax.numpy.promote_types",
        "jax.numpy.can_cast", "jax.numpy.isscalar", "jax.numpy.iscomplexobj", "jax.numpy.isrealobj",
        "jax.named_scope", "jax.default_device", "jax.disable_jit", "jax.ensure_compile_time_eval",
        "jax.core.ensure_compile_time_eval", "jax.named_call", "jax.custom_jvp", "jax.custom_vjp",
        "jax.ShapeDtypeStruct", "equinox.filter", "equinox.partition", "equinox.combine",
        "equinox.is_array", "equinox.is_inexact_array", "equinox.is_array_like", "equinox.field",
        "equinox.tree_at", "equinox.tree_pformat", "flax.nnx.split", "flax.nnx.merge", "flax.nnx.state",
        "flax.nnx.graphdef", "flax.nnx.update", "flax.nnx.display", "flax.linen.compact",
        "flax.linen.share_scope", "jax.numpy.ndarray", "jax.Array", "jax.lax.axis_size", "jax.typeof",
        "jax.lax.psum_scatter_size", "jax.sharding.PartitionSpec", "jax.P",
        # sharding metadata of a (traced) variable tree: PartitionSpecs, Python values
        "flax.linen.get_partition_spec", "flax.linen.spmd.get_partition_spec", "flax.nnx.get_partition_spec",
        "flax.linen.logical_to_mesh_axes", "flax.linen.get_sharding", "flax.nnx.get_named_sharding",
    }),
    non_tensor_prefixes=(
        # (`jax.tree.map` / `tree_util.tree_map` return the traced values they map: left out)
        "jax.tree_util.tree_flatten", "jax.tree_util.tree_unflatten", "jax.tree_util.tree_leaves",
        "jax.tree_util.tree_structure", "jax.tree_util.register", "jax.tree_util.tree_all",
        "jax.tree_util.keystr", "jax.tree_util.all_leaves", "jax.tree_util.Partial", "jax.tree.flatten",
        "jax.tree.unflatten", "jax.tree.leaves", "jax.tree.structure", "jax.tree.all", "jax.tree.reduce",
        "jax.tree_util.tree_reduce",
        # their old top-level aliases (gone from JAX 0.10.2, still in code written before: big_vision)
        "jax.tree_leaves", "jax.tree_flatten", "jax.tree_unflatten", "jax.tree_structure", "jax.tree_all",
        "jax.tree_reduce", "jax.config.", "jax.debug.", "jax.sharding.", "jax.experimental.mesh_utils.",
        "jax.dtypes.", "jax.typing.", "jax.errors.", "jax.profiler.", "jax.monitoring.", "jax.nn.initializers.",
        "jax.distributed.", "jax.stages.", "jax.export.", "flax.linen.initializers.", "flax.nnx.initializers.",
        "flax.serialization.", "flax.training.", "flax.struct.", "flax.core.", "flax.traverse_util.",
        "flax.linen.module.", "flax.typing.", "equinox.nn.", "equinox.internal.", "equinox.debug.",
    ),
    non_tensor_attributes=frozenset({
        "shape", "dtype", "ndim", "size", "itemsize", "nbytes", "sharding", "aval", "weak_type",
        "device", "devices", "__class__", "_fields", "name", "metadata", "spec", "vma", "committed",
    }),
)

#: The framework(s) stagelint knows. Rules take the framework from the analysis context.
FRAMEWORKS = (TENSORFLOW, JAX)
#: Those whose rules and facts a file is spared where they cannot stage anything: the screen
#: (`screen.framework_reach`) finds, for each, the files that import it or are in one of its
#: packages (`names_framework`), and leaves it out of every file no chain of imports links to one.
OPTIONAL_FRAMEWORKS = tuple(fw for fw in FRAMEWORKS if fw.optional)


def names_framework(fw: Framework, imported, module: str) -> bool:
    """A file can name something of the framework: it imports one of its root packages (among
    `imported`, the dotted names it imports: `jax.numpy`, `flax.linen.Module`), or it is in one
    of them (its own names, and what its relative imports name, are under the root). A qualified
    name under the roots comes into a file only through one of these (a word in a comment does
    not: tf-models-official mentions flax once, in a comment of a module most others import)."""
    roots = fw.roots
    return module.split(".")[0] in roots or any(name.split(".")[0] in roots for name in imported)


def _combined(*frameworks: Framework) -> Framework:
    """One view of several frameworks, for the per-file walk: a file may import both, and which
    one stages a function is decided per function (`stagelint.jaxstaging`). Layer classes stay
    TensorFlow's (the first)."""
    first = frameworks[0]
    return Framework(
        name="+".join(f.name for f in frameworks),
        roots=tuple(r for f in frameworks for r in f.roots),
        staging_decorators=frozenset().union(*(f.staging_decorators for f in frameworks)),
        eager_escapes=frozenset().union(*(f.eager_escapes for f in frameworks)),
        lifting_scopes=frozenset().union(*(f.lifting_scopes for f in frameworks)),
        layer_base_prefixes=first.layer_base_prefixes,
        layer_base_names=first.layer_base_names,
        staged_methods=first.staged_methods,
        variable_constructors=frozenset().union(*(f.variable_constructors for f in frameworks)),
        variable_creating_methods=first.variable_creating_methods,
        variable_owner_prefixes=first.variable_owner_prefixes,
        non_tensor_calls=frozenset().union(*(f.non_tensor_calls for f in frameworks)),
        non_tensor_prefixes=tuple(p for f in frameworks for p in f.non_tensor_prefixes),
        non_tensor_attributes=frozenset().union(*(f.non_tensor_attributes for f in frameworks)),
        variable_types=first.variable_types,
    )


#: What the per-file walk asks: every framework at once (TensorFlow's data where they differ).
STAGING = _combined(TENSORFLOW, JAX)

#: Python I/O whose effect happens once per trace under staging (STG101).
PYTHON_IO_CALLS = frozenset({
    "builtins.print", "builtins.input", "pprint.pprint", "pprint.pp",
    "warnings.warn", "warnings.warn_explicit",
    "os.system", "os.popen", "os.remove", "os.unlink", "os.makedirs", "os.mkdir", "os.rename",
    "shutil.copy", "shutil.copyfile", "shutil.move", "shutil.rmtree",
    "sys.stdout.write", "sys.stderr.write", "sys.stdout.flush", "sys.stderr.flush",
    "time.sleep", "json.dump", "pickle.dump", "numpy.save", "numpy.savez", "numpy.savetxt",
})
PYTHON_IO_PREFIXES = ("logging.", "absl.logging.", "subprocess.", "socket.", "urllib.request.",
                      "tensorflow.compat.v1.logging.")
#: Module-level factories whose result is a logger: `log = logging.getLogger(__name__)`.
LOGGER_FACTORIES = frozenset({"logging.getLogger", "absl.logging.get_absl_logger", "tensorflow.get_logger"})
LOGGER_METHODS = frozenset({"debug", "info", "warning", "warn", "error", "exception", "critical", "fatal", "log"})
#: Logging functions that configure rather than write.
LOGGING_NON_IO = frozenset({
    "logging.getLogger", "logging.basicConfig", "logging.Formatter", "logging.Handler",
    "logging.StreamHandler", "logging.FileHandler", "logging.getLevelName", "logging.NullHandler",
    "absl.logging.get_verbosity", "absl.logging.set_verbosity", "absl.logging.vlog_is_on",
    "absl.logging.level_debug", "absl.logging.level_info", "absl.logging.get_absl_logger",
    "logging.DEBUG", "logging.INFO", "logging.WARNING", "logging.ERROR",
})

#: Methods that mutate the Python container they are called on (STG102, STG201).
MUTATING_METHODS = frozenset({
    "append", "extend", "insert", "update", "pop", "popitem", "add", "clear", "remove", "discard",
    "setdefault", "sort", "reverse", "appendleft", "extendleft", "popleft", "difference_update",
    "intersection_update", "symmetric_difference_update",
})

# Python values frozen at trace time (STG104) ------------------------------------------------------

#: Calls whose Python result is computed once per trace and baked into the graph as a constant.
#: Qualified names (exact) and prefixes (module-wide), each with what to use instead.
FROZEN_VALUE_CALLS = {
    "time.time": "`tf.timestamp()`",
    "time.time_ns": "`tf.timestamp()`",
    "time.perf_counter": "`tf.timestamp()`",
    "time.perf_counter_ns": "`tf.timestamp()`",
    "time.monotonic": "`tf.timestamp()`",
    "time.monotonic_ns": "`tf.timestamp()`",
    "time.process_time": "`tf.timestamp()`",
    "time.localtime": "`tf.timestamp()`",
    "time.gmtime": "`tf.timestamp()`",
    "time.ctime": "`tf.timestamp()`",
    "datetime.datetime.now": "`tf.timestamp()`",
    "datetime.datetime.utcnow": "`tf.timestamp()`",
    "datetime.datetime.today": "`tf.timestamp()`",
    "datetime.date.today": "`tf.timestamp()`",
    "uuid.uuid1": "a value made outside the tf.function and passed in",
    "uuid.uuid4": "a value made outside the tf.function and passed in",
    "os.urandom": "`tf.random.uniform` / `tf.random.Generator`",
    "os.getrandom": "`tf.random.uniform` / `tf.random.Generator`",
}
FROZEN_VALUE_PREFIXES = {
    "numpy.random.": "`tf.random.*` (or a `tf.random.Generator`)",
    "random.": "`tf.random.*` (or a `tf.random.Generator`)",
    "secrets.": "`tf.random.uniform` / `tf.random.Generator`",
}
#: Under those prefixes: seeding and state handling (trace-time effects, not frozen draws) and
#: the RNG classes themselves (their methods are the draws, see RNG_CONSTRUCTORS).
FROZEN_VALUE_EXCEPTIONS = frozenset({
    "random.seed", "random.getstate", "random.setstate", "random.Random", "random.SystemRandom",
    "numpy.random.seed", "numpy.random.get_state", "numpy.random.set_state",
    "numpy.random.default_rng", "numpy.random.Generator", "numpy.random.RandomState",
    "numpy.random.SeedSequence", "numpy.random.BitGenerator", "numpy.random.PCG64",
    "numpy.random.PCG64DXSM", "numpy.random.MT19937", "numpy.random.Philox", "numpy.random.SFC64",
})
#: Constructors of Python/NumPy random generators: every draw from the object is frozen.
RNG_CONSTRUCTORS = frozenset({
    "numpy.random.default_rng", "numpy.random.Generator", "numpy.random.RandomState",
    "random.Random", "random.SystemRandom",
})
#: Methods of those generators that are not draws.
RNG_NON_DRAW_METHODS = frozenset({
    "seed", "getstate", "setstate", "get_state", "set_state", "spawn", "bit_generator", "jumped",
})

# Stateful TensorFlow ops: kept in the graph even when their result is unused ---------------------

#: Ops a graph runs for their effect (automatic control dependencies keep them): printing, asserts
#: and checks, summaries, variable and table updates, random ops, I/O. An unused call of any other
#: op is pruned (STG603), and these are the "TF state ops" a Python guard may wrongly fix (STG105).
STATEFUL_OPS = frozenset({
    "tensorflow.print", "tensorflow.Assert", "tensorflow.py_function", "tensorflow.numpy_function",
    "tensorflow.group", "tensorflow.no_op", "tensorflow.io.write_file", "tensorflow.compat.v1.Print",
    "tensorflow.compat.v1.assign", "tensorflow.compat.v1.assign_add", "tensorflow.compat.v1.assign_sub",
    "tensorflow.compat.v1.py_func", "tensorflow.control_dependencies", "tensorflow.identity_n",
})
STATEFUL_OP_PREFIXES = (
    "tensorflow.debugging.", "tensorflow.compat.v1.debugging.", "tensorflow.summary.",
    "tensorflow.compat.v1.summary.", "tensorflow.compat.v2.summary.", "tensorflow.raw_ops.",
    "tensorflow.assert_", "tensorflow.compat.v1.assert_", "tensorflow.compat.v1.scatter_",
    "tensorflow.lookup.", "tensorflow.queue.", "tensorflow.random.", "tensorflow.compat.v1.random.",
    "tensorflow.tpu.", "tensorflow.distribute.", "tensorflow.config.", "tensorflow.io.gfile.",
    "tensorflow.experimental.", "tensorflow.autograph.", "tensorflow.data.", "tensorflow.keras.",
)
#: Methods that update TF state in place (variables, metrics, optimizers).
STATEFUL_METHODS = frozenset({
    "assign", "assign_add", "assign_sub", "scatter_add", "scatter_sub", "scatter_update",
    "scatter_max", "scatter_min", "scatter_mul", "scatter_div", "scatter_nd_update", "scatter_nd_add",
    "scatter_nd_sub", "batch_scatter_update", "apply_gradients", "minimize", "update_state",
    "reset_state", "reset_states",
})

# Eager-only conversions (STG601) --------------------------------------------------------------------

#: Tensor methods that need a concrete value: they raise on a symbolic tensor.
EAGER_ONLY_METHODS = frozenset({"numpy", "item", "tolist"})
#: NumPy functions that are fine with a tensor argument at trace time (they read static metadata).
NUMPY_STATIC_FUNCTIONS = frozenset({"numpy.dtype", "numpy.issubdtype", "numpy.result_type"})

# Datasets and iterators (STG103, STG202, STG503) ------------------------------------------------------

#: Factories outside `tf.data` whose result is a `tf.data.Dataset`.
DATASET_FACTORIES = frozenset({
    "tensorflow.keras.utils.image_dataset_from_directory", "tensorflow.keras.utils.text_dataset_from_directory",
    "tensorflow.keras.utils.timeseries_dataset_from_array", "tensorflow.keras.preprocessing.image_dataset_from_directory",
    "keras.utils.image_dataset_from_directory", "keras.utils.text_dataset_from_directory",
    "keras.utils.timeseries_dataset_from_array", "tensorflow_datasets.load",
})
#: Methods that wrap a dataset for a distribution strategy; iterating the result is still converted.
DATASET_WRAPPING_METHODS = frozenset({"experimental_distribute_dataset", "distribute_datasets_from_function"})
#: Dataset methods whose result is not a dataset.
DATASET_NON_DATASET_METHODS = frozenset({
    "reduce", "cardinality", "as_numpy_iterator", "get_single_element", "save", "element_spec",
    "options", "unique_id", "__iter__", "take_while_fn",
})

#: Dataset transformations that trace the functions they are given into a graph, once per
#: dataset (checked with TF 2.21: the Python body of a `map` function runs once for any number of
#: elements, `np.random` in it is one constant, and `tf.config.run_functions_eagerly(True)` does
#: not change that). Method -> the positions and keywords of its function arguments.
DATASET_FUNCTION_METHODS: dict[str, tuple[tuple[int, str], ...]] = {
    "map": ((0, "map_func"),),
    "filter": ((0, "predicate"),),
    "flat_map": ((0, "map_func"),),
    "interleave": ((0, "map_func"),),
    "parallel_interleave": ((0, "map_func"),),
    "reduce": ((1, "reduce_func"),),
    "scan": ((1, "scan_func"),),
    "take_while": ((0, "predicate"),),
    "group_by_window": ((0, "key_func"), (1, "reduce_func"), (3, "window_size_func")),
    "bucket_by_sequence_length": ((0, "element_length_func"),),
    "rejection_resample": ((0, "class_func"),),
    "map_with_legacy_function": ((0, "map_func"),),
    "filter_with_legacy_function": ((0, "predicate"),),
}
#: `tf.data.experimental` transformations (applied with `Dataset.apply`) and their function
#: arguments, by qualified name.
DATASET_FUNCTION_TRANSFORMS: dict[str, tuple[tuple[int, str], ...]] = {
    "tensorflow.data.experimental.map_and_batch": ((0, "map_func"),),
    "tensorflow.data.experimental.scan": ((1, "scan_func"),),
    "tensorflow.data.experimental.group_by_window": ((0, "key_func"), (1, "reduce_func"), (3, "window_size_func")),
    "tensorflow.data.experimental.group_by_reducer": ((0, "key_func"),),
    "tensorflow.data.experimental.parallel_interleave": ((0, "map_func"),),
    "tensorflow.data.experimental.take_while": ((0, "predicate"),),
    "tensorflow.data.experimental.bucket_by_sequence_length": ((0, "element_length_func"),),
    "tensorflow.data.experimental.rejection_resample": ((0, "class_func"),),
    "tensorflow.data.experimental.Reducer": ((0, "init_func"), (1, "reduce_func"), (2, "finalize_func")),
}
#: A `.map(f)` on a receiver the file does not show to be a dataset is still a dataset's when
#: the call passes one of these keywords, or is chained with one of these methods (pandas and
#: multiprocessing have `map`, `filter` and `reduce` too, but none of these).
DATASET_ONLY_KEYWORDS = frozenset({"num_parallel_calls", "deterministic", "cycle_length", "block_length"})
DATASET_ONLY_METHODS = frozenset({
    "batch", "padded_batch", "prefetch", "shuffle", "cache", "unbatch", "flat_map", "interleave",
    "with_options", "ragged_batch", "rebatch", "shard", "map_with_legacy_function", "as_numpy_iterator",
    "bucket_by_sequence_length", "group_by_window", "take_while",
})
#: How a dataset transformation shows in source, for the screen that decides which files to
#: analyse first: a call of one of these methods (`.map(`, `.filter(`...).
DATASET_ENTRY_WORDS = tuple(sorted(set(DATASET_FUNCTION_METHODS) | {
    q.rsplit(".", 1)[-1] for q in DATASET_FUNCTION_TRANSFORMS}))
#: `functools.partial(f, ...)`: calling it calls `f` with the remaining arguments.
PARTIAL_CALLS = frozenset({"functools.partial"})

#: Keras methods `fit` and friends trace (`train_step`, ...), and the calls that run them: a class
#: whose `train_step` the code calls by hand, on objects it never trains, runs it eagerly.
KERAS_STEP_METHODS = frozenset({"train_step", "test_step", "predict_step"})
KERAS_TRAINING_METHODS = frozenset({"fit", "evaluate", "predict", "train_on_batch", "test_on_batch",
                                    "predict_on_batch", "fit_generator", "evaluate_generator",
                                    "predict_generator", "compile"})

#: Keras hooks that set an object up before anything is traced: `fit` calls a callback's
#: `set_model` / `set_params` before the first batch (STG302 takes their writes as set-up).
KERAS_SETUP_HOOKS = frozenset({"set_model", "set_params"})

#: Decorators (last part) that register a function as a web request handler (Flask, FastAPI,
#: Starlette, aiohttp `routes.get`): it runs once per request, so a Function made in it is made
#: anew for every request (STG502).
REQUEST_HANDLER_DECORATORS = frozenset({"route", "get", "post", "put", "patch", "delete", "websocket",
                                        "api_route"})

# Keras objects that create variables on first use (STG403) -----------------------------------------

#: Methods whose call, outside staged code, creates an optimizer's or a model's variables.
BUILDING_METHODS = frozenset({"build", "fit", "predict", "evaluate", "apply_gradients", "minimize",
                              "train_on_batch", "predict_on_batch", "load_weights"})

# Python numbers that select graph structure (STG501) ---------------------------------------------------

#: Parameter names that are conventionally graph-structure switches, never a value to tensorize.
STRUCTURE_PARAMETER_NAMES = frozenset({"training", "is_training", "mode", "train", "mask"})
#: Ops that run user functions (branches, loop bodies, mapped functions): their effects may be
#: anything, so an unused result is not evidence of a pruned op.
CONTROL_FLOW_OPS = frozenset({
    "tensorflow.cond", "tensorflow.case", "tensorflow.switch_case", "tensorflow.while_loop",
    "tensorflow.map_fn", "tensorflow.scan", "tensorflow.foldl", "tensorflow.foldr",
    "tensorflow.vectorized_map", "tensorflow.recompute_grad", "tensorflow.custom_gradient",
    "tensorflow.compat.v1.cond", "tensorflow.compat.v1.while_loop", "tensorflow.compat.v1.map_fn",
    "tensorflow.xla.experimental.compile", "tensorflow.function",
})
#: Ops that return a Python list or tuple of tensors: unpacking or iterating the result is fine.
MULTI_OUTPUT_OPS = frozenset({
    "tensorflow.unstack", "tensorflow.split", "tensorflow.meshgrid", "tensorflow.dynamic_partition",
    "tensorflow.unique", "tensorflow.unique_with_counts", "tensorflow.shape_n", "tensorflow.gradients",
    "tensorflow.nn.moments", "tensorflow.nn.weighted_moments", "tensorflow.math.top_k", "tensorflow.nn.top_k",
    "tensorflow.linalg.eigh", "tensorflow.linalg.eig", "tensorflow.linalg.svd", "tensorflow.linalg.qr",
    "tensorflow.linalg.lu", "tensorflow.math.unique", "tensorflow.raw_ops.Unpack", "tensorflow.nest.flatten",
    "tensorflow.sparse.split", "tensorflow.strings.unicode_decode_with_offsets", "tensorflow.tuple",
    "tensorflow.compat.v1.split", "tensorflow.python.util.nest.flatten", "tensorflow.nest.flatten_up_to",
    "tensorflow.python.util.nest.flatten_up_to", "tensorflow.clip_by_global_norm",
    "tensorflow.image.combined_non_max_suppression", "tensorflow.image.sample_distorted_bounding_box",
    "tensorflow.image.non_max_suppression_padded", "tensorflow.image.non_max_suppression_with_scores",
    "tensorflow.io.parse_single_sequence_example", "tensorflow.io.parse_sequence_example",
    "tensorflow.nn.sufficient_statistics", "tensorflow.nn.fused_batch_norm", "tensorflow.linalg.slogdet",
    "tensorflow.nn.ctc_beam_search_decoder", "tensorflow.nn.ctc_greedy_decoder", "tensorflow.math.top_k",
    "tensorflow.unravel_index", "tensorflow.sparse.fill_empty_rows", "tensorflow.raw_ops.Split",
    "tensorflow.compat.v1.image.sample_distorted_bounding_box", "tensorflow.compat.v1.clip_by_global_norm",
    "tensorflow.compat.v1.nn.moments", "tensorflow.compat.v1.parse_single_sequence_example",
    # (audio, sample_rate), (output, argmax), (values, indices)...: unpacking them is plain Python
    "tensorflow.audio.decode_wav", "tensorflow.nn.max_pool_with_argmax", "tensorflow.math.unique_with_counts",
    "tensorflow.nn.fractional_max_pool", "tensorflow.nn.fractional_avg_pool", "tensorflow.math.approx_max_k",
    "tensorflow.math.approx_min_k", "tensorflow.experimental.numpy.split", "tensorflow.linalg.normalize",
})
#: Annotations that make a parameter a Python option under any staging: a string, a dtype, a
#: static shape (JAX refuses them as traced arguments; TensorFlow keys a trace on them).
PYTHON_OPTION_TYPES = frozenset({
    "builtins.str", "tensorflow.DType", "tensorflow.dtypes.DType", "tensorflow.TensorShape",
    "tensorflow.python.framework.dtypes.DType", "tensorflow.python.framework.tensor_shape.TensorShape",
})


#: Attributes of TensorFlow's composite tensors that hold a Python tuple of tensors
#: (`RaggedTensor.nested_row_splits`): zipping or iterating one is plain Python.
STRUCTURE_ATTRIBUTES = frozenset({"nested_row_splits"})
#: Ops whose first argument is a list of tensors: passing a parameter there does not make it one.
LIST_TAKING_OPS = frozenset({
    "tensorflow.concat", "tensorflow.stack", "tensorflow.add_n", "tensorflow.math.add_n",
    "tensorflow.meshgrid", "tensorflow.dynamic_stitch", "tensorflow.parallel_stack",
    "tensorflow.math.accumulate_n", "tensorflow.group", "tensorflow.tuple", "tensorflow.identity_n",
    "tensorflow.nest.flatten", "tensorflow.nest.map_structure", "tensorflow.ragged.stack",
    "tensorflow.compat.v1.concat", "tensorflow.experimental.numpy.concatenate",
    "tensorflow.experimental.numpy.stack",
})


def canonical_tf_name(qualified_name: str) -> str:
    """`tensorflow.compat.v1.print` / `tensorflow.compat.v2.print` -> `tensorflow.print`, so the
    data above needs one spelling of each op."""
    for prefix in ("tensorflow.compat.v1.", "tensorflow.compat.v2."):
        if qualified_name.startswith(prefix):
            return "tensorflow." + qualified_name[len(prefix):]
    return qualified_name


def is_stateful_op(qualified_name: str) -> bool:
    """Kept in the graph for its effect even when its result is unused (STG603, STG105). Internal
    spellings (`tensorflow.python.ops.check_ops.assert_equal`) are recognised by their name."""
    q = canonical_tf_name(qualified_name)
    if q in STATEFUL_OPS or q in CONTROL_FLOW_OPS or q.startswith(STATEFUL_OP_PREFIXES):
        return True
    if qualified_name in STATEFUL_OPS or qualified_name.startswith(STATEFUL_OP_PREFIXES):
        return True
    last = q.rsplit(".", 1)[-1]
    return last.lower().startswith(("assert", "check_numerics", "print")) or ".summary" in q or ".debugging." in q


#: Calls that are True only outside tracing, and only while tracing.
EAGER_TESTS = frozenset({"tensorflow.executing_eagerly", "tensorflow.compat.v1.executing_eagerly",
                         "tensorflow.compat.v2.executing_eagerly"})
TRACING_TESTS = frozenset({"tensorflow.inside_function", "tensorflow.compat.v1.inside_function"})

#: Calls that turn Python values into tensors: passing a parameter to one does not show that the
#: parameter is a tensor (rather the opposite).
CONVERSION_OPS = frozenset({
    "tensorflow.convert_to_tensor", "tensorflow.constant", "tensorflow.as_dtype",
    "tensorflow.compat.v1.convert_to_tensor", "tensorflow.compat.v1.constant",
    "tensorflow.ragged.constant", "tensorflow.constant_initializer", "tensorflow.TensorShape",
    "keras.ops.convert_to_tensor", "tensorflow.get_static_value",
})
#: Keyword arguments of TensorFlow ops that are Python options, not tensors.
CONFIG_KEYWORDS = frozenset({
    "name", "mode", "dtype", "out_type", "data_format", "padding", "keepdims", "keep_dims",
    "method", "axis", "transpose_a", "transpose_b", "adjoint_a", "adjoint_b", "output_type",
    "validate_args", "allow_nan_stats", "antialias", "preserve_aspect_ratio", "reduction",
    "from_logits", "use_locking", "indexing", "exclusive", "reverse", "batch_dims",
})
#: Size, count and dimension arguments of ops (`tf.nn.top_k(x, k=k)`, `tf.linspace(a, b, num)`,
#: `tf.one_hot(ids, depth)`, XLA's `dimensions_to_reduce=axis`): they take Python ints (and
#: lists of them) as often as tensors, so a parameter passed there is no evidence that it is a
#: tensor (a config int bounding a Python `range(k)` beside it, a tuple of axes tested with `in`).
SIZE_KEYWORDS = frozenset({"k", "num", "depth", "num_or_size_splits", "maxlen", "num_samples",
                           "dimensions_to_reduce", "dimensions", "axes", "dims"})
SIZE_POSITIONS = {
    "tensorflow.linspace": 2, "tensorflow.lin_space": 2, "tensorflow.one_hot": 1,
    "tensorflow.nn.top_k": 1, "tensorflow.math.top_k": 1, "tensorflow.split": 1,
    "tensorflow.sequence_mask": 1, "tensorflow.random.categorical": 1,
}


def size_argument(qualified_names, index: int, keyword: str | None) -> bool:
    """The argument at `index` (or `keyword=`) of the op is a size or count."""
    if keyword is not None:
        return keyword in SIZE_KEYWORDS
    return any(SIZE_POSITIONS.get(canonical_tf_name(q)) == index for q in qualified_names)


#: Classes an `isinstance` test names when a value may be a dict of tensors.
MAPPING_TYPES = frozenset({
    "builtins.dict", "collections.abc.Mapping", "collections.abc.MutableMapping", "typing.Mapping",
    "typing.Dict", "collections.OrderedDict", "collections.Mapping",
})
#: Attributes of Keras models and modules that hold their list of variables.
VARIABLE_LIST_ATTRIBUTES = frozenset({
    "trainable_variables", "variables", "weights", "trainable_weights", "non_trainable_variables",
    "non_trainable_weights",
})
#: Python container methods: a call of one on a dict of tensors is not a tensor.
CONTAINER_METHODS = frozenset({"keys", "values", "items"})

#: Functions that test whether a value is a (nested) structure rather than one tensor.
SEQUENCE_TESTS = frozenset({
    "tensorflow.nest.is_nested", "tensorflow.nest.is_nested_or_composite",
    "tensorflow.python.util.nest.is_nested", "tensorflow.python.util.nest.is_sequence",
    "keras.tree.is_nested", "keras.src.tree.is_nested", "keras.src.tree.tree_api.is_nested",
    "tree.is_nested", "tree.is_sequence", "jax.tree_util.all_leaves",
})


# Get-or-create idioms (STG402) -----------------------------------------------------------------------

#: Calls that run the function they are given once and reuse its result (`get_or_create_layer(
#: "name", self.build_model)`): the factory's variables are made once.
GET_OR_CREATE_CALLS = frozenset({
    "tensorflow.compat.v1.keras.utils.get_or_create_layer",
})
#: Decorators under which `tf.compat.v1.get_variable` gets the variable of the first call again.
GET_OR_CREATE_DECORATORS = frozenset({
    "tensorflow.compat.v1.keras.utils.track_tf1_style_variables",
})
#: Variable constructors that get an existing variable by name when one is tracked.
GET_OR_CREATE_VARIABLES = frozenset({"tensorflow.compat.v1.get_variable"})
