"""TensorFlow and Keras, as data: which calls stage code, create variables, produce tensors,
keep their effect in the graph, and what `tf.data` traces.

Observed with TensorFlow 2.21 and Keras 3.15 (../shared/spec/tf-behaviour.md: rows a-n, m2 and
"Facts the model must know"; the runtime tests under tests/runtime run the real framework).
Rules ask `TENSORFLOW` (a `Framework`) and never spell an API themselves.
"""

from __future__ import annotations

from stagelint.frameworks.base import Framework, canonical_tf_name

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
    # (TF 2.21 / Keras 3.15, tests/runtime/test_tf_variable_creation_facts.py: no weights, built
    # in a traced call on two traces without error)
    "ActivityRegularization", "UnitNormalization",
    # no weights; constructed in a traced function twice, it makes no variable (TF 2.21 / Keras
    # 3.15, tests/runtime/test_tf_variable_creation_facts.py)
    "InputLayer",
})
#: Keras names spelled like layer classes that are functions making a symbolic placeholder, no
#: variable: `keras.layers.Input` (the same function as `keras.Input`; `tf.keras.layers.Input`,
#: `tf_keras.layers.Input`) returns a KerasTensor, also inside a `tf.function`, on every trace,
#: and no variable creator sees a variable (TF 2.21 / Keras 3.15 and tf_keras 2.21:
#: tests/runtime/test_tf_variable_creation_facts.py).
KERAS_SYMBOLIC_CONSTRUCTORS = frozenset({"Input"})
#: Names under `keras.metrics` spelled like classes that are functions: `tf.keras.metrics.MSE` is
#: `keras.losses.mean_squared_error` (a function: calling it computes the loss and creates no
#: variable, unlike `tf.keras.metrics.MeanSquaredError()`), and so are `MAE`, `MAPE`, `MSLE`,
#: `KLD` under `tf.keras.metrics`, `tf.metrics` and `tf_keras.metrics` (TF 2.21, Keras 3.15,
#: tf_keras 2.21: `inspect.isfunction`, tests/runtime/test_tf_twentieth_audit_by_facts.py).
#: Every other capitalised name under `layers`, `models`, `metrics`, `optimizers` of those roots
#: and of `keras` is a class but `Input` (`KERAS_SYMBOLIC_CONSTRUCTORS`).
KERAS_CLASS_SPELLED_FUNCTIONS = frozenset({"KLD", "MAE", "MAPE", "MSE", "MSLE"})
#: The literals of 0 a keyword may be spelled with (`momentum=0.0`, `dropout=0`).
_ZERO_LITERALS = ("0", "0.0", "0.")
#: Listed classes whose constructor makes its seed generator only for a rate (or, for
#: `GaussianNoise`, a standard deviation) above 0, given first or by this keyword: `Dropout(0.0)`,
#: `Dropout(rate=0.0)`, `Dropout(0)`, `SpatialDropout2D(rate=0.0)`, `GaussianNoise(stddev=0.0)`
#: create no variable, `Dropout(0.1)` and `Dropout(rate=0.1)` a `seed_generator_state` (TF 2.21 /
#: Keras 3.15 under a `tf.variable_creator_scope`, `tf.keras.layers` too, with or without a seed;
#: called in a trace they make no weight either: tests/runtime/test_tf_layer_construction_facts.py).
#: Not `AlphaDropout`: `tf.keras.layers.AlphaDropout` is Keras 3's legacy class, which makes its
#: seed generator whatever the rate (only `keras.layers.AlphaDropout` skips it at 0).
KERAS3_LAYERS_STATE_UNLESS_ZERO = {
    "Dropout": "rate", "SpatialDropout1D": "rate", "SpatialDropout2D": "rate", "SpatialDropout3D": "rate",
    "GaussianDropout": "rate", "GaussianNoise": "stddev",
}
#: Keras layer classes (last part) that own no variables only with some constructor arguments:
#: keyword -> (the literal values with which it makes none, whether leaving it out makes none).
#: Checked with TF 2.21 / Keras 3.15 (tests/runtime/test_tf_variable_creation_facts.py):
#: `Attention()` built in a traced call traces again without error (no weights); `use_scale=True`
#: (a scale weight), `score_mode="concat"` (a concat score weight) and `dropout` above 0 (Keras 3's
#: seed-generator variable) each make one, and the trace raises ValueError. `AdditiveAttention`
#: scales by default. A positional or `**` argument leaves the arguments unknown: a variable then.
WEIGHTLESS_KERAS_LAYERS_WITH = {
    "Attention": {"use_scale": (("False",), True), "score_mode": (('"dot"', "'dot'"), True),
                  "dropout": (("0", "0.0"), True)},
    "AdditiveAttention": {"use_scale": (("False",), False), "dropout": (("0", "0.0"), True)},
    # a zero rate: no seed generator, and no weight when built (`KERAS3_LAYERS_STATE_UNLESS_ZERO`)
    **{name: {rate: (_ZERO_LITERALS, False)} for name, rate in KERAS3_LAYERS_STATE_UNLESS_ZERO.items()},
}
#: Random layers that own a seed-generator variable in Keras 3 but none in Keras 2, whose default
#: "legacy stateful" random generator uses plain random ops.
KERAS2_WEIGHTLESS_RANDOM_LAYERS = frozenset({
    "Dropout", "SpatialDropout1D", "SpatialDropout2D", "SpatialDropout3D", "GaussianNoise",
    "GaussianDropout", "AlphaDropout",
})
KERAS2_ROOTS = ("tf_keras.", "tensorflow.python.keras.")
#: Keras 3's backend-neutral ops (`from keras import ops`; `tf.keras.ops`, which only Keras 3
#: has): under the TensorFlow backend each returns a `tf.Tensor`, an EagerTensor eagerly and a
#: symbolic one while traced, so a Python `if` on one in a Keras 3 `call` (not converted) raises
#: OperatorNotAllowedInGraphError at every trace (TF 2.21 / Keras 3.15:
#: tests/runtime/test_tf_pooled_weak_rules_facts.py) — but for the names below.
KERAS_OPS_PREFIXES = ("keras.ops.", "tensorflow.keras.ops.")
#: keras.ops functions that return a Python value (`shape` a tuple, `ndim` an int, `dtype` a str,
#: `is_tensor` a bool, `convert_to_numpy` an ndarray), a list or tuple of tensors (`split`,
#: `unstack`, `top_k`, `moments`, `svd`, ...), a structure a user function returns (`cond`,
#: `while_loop`, `scan`, `map`, ...) or a function (`vectorize`, `custom_gradient`): not one tensor.
KERAS_OPS_NOT_ONE_TENSOR = frozenset({
    "shape", "ndim", "dtype", "is_tensor", "convert_to_numpy", "custom_gradient", "vectorize",
    "split", "array_split", "dsplit", "hsplit", "vsplit", "unstack", "meshgrid", "nonzero", "where",
    "top_k", "moments", "svd", "qr", "eig", "eigh", "lu_factor", "slogdet", "unravel_index",
    "fft", "fft2", "ifft2", "rfft", "stft", "ctc_decode", "histogram", "jvp",
    "cond", "switch", "while_loop", "fori_loop", "scan", "map", "associative_scan", "vectorized_map",
})


def _keras_prefixes(*subpackages: str) -> tuple[str, ...]:
    roots = ("tensorflow.keras", "keras", "tf_keras", "tensorflow.python.keras", "keras.src")
    return tuple(f"{root}.{sub}." for root in roots for sub in subpackages)


TENSORFLOW = Framework(
    name="tensorflow",
    # an unused `tf.gather` out of range raises eagerly, never in a Function (TF 2.21:
    # tests/runtime/test_message_facts.py)
    prunes_unused_ops=True,
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
        # the generator runs as Python on every pass over the dataset, also when the dataset is
        # built in traced code (TF 2.21: tests/runtime/test_tf_fresh_facts.py)
        "tensorflow.data.Dataset.from_generator",
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
        "tensorflow.get_current_name_scope", "tensorflow.__internal__.get_name_scope",  # a str (test_tf_fresh_facts)
        "tensorflow.TensorArray", "tensorflow.Variable", "tensorflow.is_tensor",
        "tensorflow.get_static_value", "tensorflow.nest.flatten", "tensorflow.nest.map_structure",
        "tensorflow.nest.pack_sequence_as", "tensorflow.as_dtype", "tensorflow.compat.dimension_value",
        # Python on static shapes: returns a TensorShape and raises ValueError while traced (TF 2.21)
        "tensorflow.broadcast_static_shape",
        # a Python module of the library's op wrappers (TF 2.21's docstring)
        "tensorflow.load_op_library",
    }),
    non_tensor_prefixes=(
        "tensorflow.config.", "tensorflow.data.", "tensorflow.keras.", "keras.", "tf_keras.",
        "tensorflow.distribute.", "tensorflow.summary.", "tensorflow.saved_model.",
        "tensorflow.autograph.", "tensorflow.compat.v1.logging.", "tensorflow.io.gfile.",
        "tensorflow.experimental.", "tensorflow.types.", "tensorflow.dtypes.", "tensorflow.nest.",
        "tensorflow.TensorShape", "tensorflow.debugging.assert_", "tensorflow.random.set_seed",
        "tensorflow.python.util.nest.", "tensorflow.get_logger",  # (a Python `logging.Logger`)
        # build paths and flags (str, list of str), and the local devices as a Python list of
        # `DeviceAttributes` protos (tests/runtime/test_tf_fresh_facts.py)
        "tensorflow.sysconfig.", "tensorflow.python.client.device_lib.",
        # TensorFlow 1's names of Python-side helpers, which code run on it spells without
        # `compat.v1`: `tf.logging` is Python's logging, the collections are Python lists of the
        # graph (`add_to_collection` returns None)
        "tensorflow.logging.", "tensorflow.add_to_collection", "tensorflow.get_collection",
        # the variable collections: a Python list of variables, eagerly and while traced, and a
        # `for` over it stays a Python loop (TF 2.21, tests/runtime/test_tf_pooled_facts.py)
        "tensorflow.compat.v1.get_collection", "tensorflow.compat.v1.global_variables",
        "tensorflow.compat.v1.trainable_variables", "tensorflow.compat.v1.local_variables",
        "tensorflow.compat.v1.model_variables", "tensorflow.compat.v1.moving_average_variables",
        "tensorflow.global_variables", "tensorflow.trainable_variables", "tensorflow.local_variables",
        "tensorflow.model_variables", "tensorflow.moving_average_variables",
    ),
    non_tensor_attributes=frozenset({
        "shape", "dtype", "name", "device", "graph", "op", "ndim", "get_shape", "numpy",
        "value_index", "trainable", "__class__", "_fields",
        # Python ints of composite tensors and specs (`RaggedTensor.ragged_rank`, a GraphTensor's
        # `rank`); a tf.Tensor has no `rank` attribute (`tf.rank(x)` is the op)
        "rank", "ragged_rank",
    }),
    variable_types=frozenset({"tensorflow.Variable", "tensorflow.compat.v1.Variable", "keras.Variable"}),
    weightless_layers=WEIGHTLESS_KERAS_LAYERS,
    weightless_with=WEIGHTLESS_KERAS_LAYERS_WITH,
    weightless_only_under=(KERAS2_ROOTS, KERAS2_WEIGHTLESS_RANDOM_LAYERS),
    symbolic_constructors=KERAS_SYMBOLIC_CONSTRUCTORS,
    class_spelled_functions=KERAS_CLASS_SPELLED_FUNCTIONS,
    tensor_prefixes=KERAS_OPS_PREFIXES,
    tensor_prefix_exceptions=KERAS_OPS_NOT_ONE_TENSOR,
)

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
#: Ops that write `updates` into a copy of `tensor` at `indices`, called `op(tensor, indices,
#: updates)`. Their shape function runs while the op is built, so while traced, whether or not its
#: result is used: the index depth K = indices.shape[-1] must not pass the tensor's rank, and
#: updates.shape must be indices.shape[:-1] + tensor.shape[K:] (`indexed_update_fits`). Shapes
#: that do not fit raise ValueError at trace (an unused call is not pruned first); an index out of
#: range, in shapes that fit, is a run-time value, pruned with the op (TF 2.21:
#: tests/runtime/test_message_facts.py).
INDEXED_UPDATE_OPS = frozenset({
    "tensorflow.tensor_scatter_nd_update", "tensorflow.tensor_scatter_nd_add", "tensorflow.tensor_scatter_nd_sub",
    "tensorflow.tensor_scatter_nd_max", "tensorflow.tensor_scatter_nd_min",
})
#: The attribute of a Function that is its undecorated Python function: reading it traces nothing
#: (`tf.function(f.python_function)` makes a new Function of the same body; TF 2.21).
FUNCTION_PYTHON_ATTRIBUTE = "python_function"
#: Constructors of a tensor (or variable) with the shape of the Python display they are given
#: first, when no `shape=` says otherwise: `tf.Variable([1, 2])` has shape (2,).
DISPLAY_SHAPED_CONSTRUCTORS = frozenset({"tensorflow.constant", "tensorflow.convert_to_tensor", "tensorflow.Variable"})


def indexed_update_fits(tensor: tuple, indices: tuple, updates: tuple) -> bool | None:
    """Whether the static shapes of an `INDEXED_UPDATE_OPS` call fit its shape function; None
    when the indices are a scalar (no index depth to read)."""
    if not indices:
        return None
    depth = indices[-1]
    if depth > len(tensor):
        return False
    return tuple(updates) == tuple(indices[:-1]) + tuple(tensor[depth:])


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
#: Of those, the ones only a tensor or a variable has (NumPy arrays and Python numbers have
#: `item`/`tolist`, not `numpy`): under a trace `.numpy()` raises on a symbolic tensor
#: (AttributeError: 'SymbolicTensor' object has no attribute 'numpy') and on a variable
#: (NotImplementedError: numpy() is only available when eager execution is enabled), TF 2.21.
#: Code after such a call runs while tracing only if its receiver is neither.
TRACE_RAISING_METHODS = frozenset({"numpy"})

#: What TensorFlow raises for a symbolic tensor used as Python data (tf-behaviour.md row j;
#: TF 2.21, tests/runtime/test_tf_retracing_facts.py): iterated (`list(x)`, `for v in x` where no
#: AutoGraph converts the loop, unpacking) and tested as a bool (`bool(x)`, `assert x`, an `if`
#: where no AutoGraph converts it). STG602 names them in its message.
TF_ITERATE_ERROR = "OperatorNotAllowedInGraphError (iterating over a symbolic tf.Tensor)"
TF_BOOL_ERROR = "OperatorNotAllowedInGraphError (using a symbolic tf.Tensor as a Python bool)"

#: Keras `Model` methods that run their own loop eagerly (each makes and calls its own
#: tf.function, and returns NumPy or Python values): called in a `tf.function`, they fail at
#: trace time. Method -> the error under Keras 3, or None where Keras 3 runs it (observed with
#: TF 2.21 / Keras 3.15 and tf_keras 2.21, tests/test_keras_loops_and_helpers.py: Keras 3's
#: `predict` and `predict_on_batch` call `.numpy()` on their symbolic outputs, `evaluate` and
#: `fit` test a symbolic tensor in their loop; `train_on_batch` and `test_on_batch` run one
#: step inside the enclosing graph; tf_keras raises its RuntimeError for all six).
KERAS_EAGER_LOOPS: dict[str, str | None] = {
    "predict": "AttributeError ('SymbolicTensor' object has no attribute 'numpy')",
    "predict_on_batch": "AttributeError ('SymbolicTensor' object has no attribute 'numpy')",
    "evaluate": TF_BOOL_ERROR,
    "fit": TF_BOOL_ERROR,
    "train_on_batch": None,
    "test_on_batch": None,
}
KERAS2_EAGER_LOOP_ERROR = "RuntimeError (Detected a call to `Model.{method}` inside a `tf.function`)"
#: Keras layer (and model) methods that read the variables' values into NumPy arrays: called in a
#: `tf.function` (or a traced Keras method) they raise at trace time. Method -> (the error under
#: Keras 3, under Keras 2). Observed with TF 2.21 / Keras 3.15 (`Layer.get_weights()` calls
#: `.numpy()` on each variable) and tf_keras 2.21 (`backend.batch_get_value`):
#: tests/runtime/test_tf_fresh_facts.py. Eager code (and `tf.py_function`) gets NumPy arrays.
KERAS_EAGER_LAYER_METHODS: dict[str, tuple[str, str]] = {
    "get_weights": ("NotImplementedError (numpy() is only available when eager execution is enabled)",
                    "RuntimeError (Cannot get value inside Tensorflow graph function)"),
}


def keras_layer_method_error(method: str, flavour: str) -> str:
    """What the Keras layer method `method` (`KERAS_EAGER_LAYER_METHODS`) raises in staged code
    under `flavour` (`keras_flavour`: "either" for `tf.keras`, whichever Keras the environment runs)."""
    keras3, keras2 = KERAS_EAGER_LAYER_METHODS[method]
    if flavour == "keras2":
        return keras2
    if flavour == "keras3":
        return keras3
    return f"{keras3[:-1]}; Keras 2: {keras2.split(' ', 1)[0]})"
#: Keras model classes by name (`keras.Model`, `tf.keras.Sequential`, `keras.models.Model`).
KERAS_MODEL_NAMES = frozenset({"Model", "Sequential"})


def is_keras_model_class(qualified_name: str) -> bool:
    """A Keras `Model` class itself (`keras.Model`, `tf.keras.Sequential`, `keras.models.Functional`)."""
    if keras_flavour(qualified_name) is None:
        return False
    last = qualified_name.rsplit(".", 1)[-1]
    return last in KERAS_MODEL_NAMES or (".models." in qualified_name and last[:1].isupper())


def keras_flavour(qualified_name: str) -> str | None:
    """Which Keras a Keras class comes from: "keras3" (`keras.`), "keras2" (`tf_keras.`,
    `tensorflow.python.keras.`), "either" for `tensorflow.keras.`, which is Keras 3 in TF 2.21
    unless TF_USE_LEGACY_KERAS=1 selects tf_keras; None for anything else."""
    if qualified_name.startswith(KERAS3_BASE_PREFIXES):
        return "keras3"
    if qualified_name.startswith(KERAS2_ROOTS):
        return "keras2"
    if qualified_name.startswith("tensorflow.keras."):
        return "either"
    return None


def keras_loop_error(method: str, flavour: str) -> str | None:
    """What calling the Keras model method `method` in a tf.function raises under `flavour`
    (`keras_flavour`), or None where it runs (or where which Keras runs decides it)."""
    if method not in KERAS_EAGER_LOOPS:
        return None
    keras3, keras2 = KERAS_EAGER_LOOPS[method], KERAS2_EAGER_LOOP_ERROR.format(method=method)
    if flavour == "keras2":
        return keras2
    if keras3 is None:
        return None
    return keras3 if flavour == "keras3" else f"{keras3[:-1]}; Keras 2: RuntimeError)"
#: NumPy functions that are fine with a tensor argument at trace time (they read static metadata).
NUMPY_STATIC_FUNCTIONS = frozenset({"numpy.dtype", "numpy.issubdtype", "numpy.result_type"})
#: NumPy constructors whose first argument (or `shape=`) is a shape of Python integers: a symbolic
#: tensor there raises `TypeError` ('SymbolicTensor' object cannot be interpreted as an integer),
#: where a symbolic tensor given as data raises `NotImplementedError` (Cannot convert a symbolic
#: tf.Tensor to a numpy array) (TF 2.21, tests/runtime/test_message_facts.py).
NUMPY_SHAPE_CONSTRUCTORS = frozenset({"numpy.zeros", "numpy.ones", "numpy.empty", "numpy.full"})

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
    "padded_batch", "prefetch", "cache", "unbatch", "flat_map", "interleave", "with_options", "ragged_batch",
    "rebatch", "map_with_legacy_function", "as_numpy_iterator", "bucket_by_sequence_length", "group_by_window",
    "take_while",
})
#: Methods a `tf.data.Dataset` has and so do the data pipelines ML code uses beside it
#: (`PYTHON_DATA_SOURCES`): Hugging Face `datasets` (`Dataset` / `IterableDataset.shuffle(seed=,
#: buffer_size=)`, `.shard(num_shards, index)`, `.batch(batch_size)`) and grain
#: (`MapDataset.shuffle(seed=)`, `.batch(batch_size)`). On a receiver whose origin the code does
#: not show (a parameter), and with no method only datasets have before them in its chain
#: (`.batch(32).prefetch(1)`: the batch is a `tf.data` one), they make it a `tf.data` dataset
#: only as a guess: the preview tier (`analysis.datasets`). (torchdata's DataPipes had
#: `.prefetch()` and `.unbatch()` too, and were removed in torchdata 0.10: those stay shown.)
DATASET_SHARED_METHODS = frozenset({"batch", "shuffle", "shard"})
#: Dataset methods whose result is a dataset of the same library (a chain through them keeps its root's).
DATASET_CHAIN_METHODS = frozenset({"take", "skip", "repeat", "apply", "concatenate"})
#: Where a `tf.data.Dataset` comes from, besides `tf.data` itself (`tf.data.Dataset.*`,
#: `tf.data.TFRecordDataset`, ..., and the methods of a dataset) and `DATASET_FACTORIES`:
#: methods whose result is one, whatever their receiver: Hugging Face `datasets`'
#: `Dataset.to_tf_dataset(...)` and `transformers`' `TFPreTrainedModel.prepare_tf_dataset(...)`
#: (both build a `tf.data.Dataset` from a `datasets.Dataset`: huggingface.co/docs/datasets/
#: use_with_tensorflow, huggingface.co/docs/transformers/main_classes/model); and
#: `tensorflow_datasets` builders' `as_dataset(...)` (`tfds.builder(name).as_dataset(split=...)`;
#: a `datasets` builder's `as_dataset` gives a `datasets.Dataset`: the receiver decides).
DATASET_MAKING_METHODS = frozenset({"to_tf_dataset", "prepare_tf_dataset"})
TFDS_BUILDERS = frozenset({"tensorflow_datasets.builder"})
TFDS_BUILDER_DATASET_METHODS = frozenset({"as_dataset"})
#: The known roots of data pipelines that are not `tf.data`, by qualified name or, ending in ".",
#: prefix: their `map` / `filter` call the Python function on each example as it is read, with
#: nothing traced (a `random.randint` in it draws per example). Hugging Face `datasets`
#: (`load_dataset(..., streaming=True)` gives an `IterableDataset`, whose `map` runs "on-the-fly"
#: as the loop iterates; a `Dataset`'s `map` runs the function over the rows, as Python, and
#: caches the result: huggingface.co/docs/datasets/about_mapstyle_vs_iterable, /stream,
#: /process), PyTorch's DataPipes (`torch.utils.data.datapipes`, `.map(fn)`) and torchdata,
#: grain, webdataset, Ray Data, PySpark, and `tfds.data_source(...)` (a random-access source for
#: grain, not a `tf.data.Dataset`). A value made from one (its methods' results, a split `ds["train"]`) is no
#: `tf.data` dataset, but `to_tf_dataset(...)` of it is (`DATASET_MAKING_METHODS`).
PYTHON_DATA_SOURCES = frozenset({
    "datasets.load_dataset", "datasets.load_from_disk", "datasets.concatenate_datasets",
    "datasets.interleave_datasets", "datasets.Dataset.", "datasets.IterableDataset.", "datasets.DatasetDict.",
    "datasets.IterableDatasetDict.", "torch.utils.data.datapipes.", "torchdata.", "grain.", "webdataset.",
    "ray.data.", "pyspark.", "tensorflow_datasets.data_source", "tensorflow_datasets.data_sources.",
})
_PYTHON_DATA_PREFIXES = tuple(q for q in PYTHON_DATA_SOURCES if q.endswith("."))


def python_data_source(qualified: str) -> bool:
    """`qualified` names a maker of a data pipeline that is not `tf.data` (`PYTHON_DATA_SOURCES`)."""
    return qualified in PYTHON_DATA_SOURCES or qualified.startswith(_PYTHON_DATA_PREFIXES)


#: How a dataset transformation shows in source, for the screen that decides which files to
#: analyse first: a call of one of these methods (`.map(`, `.filter(`...).
DATASET_ENTRY_WORDS = tuple(sorted(set(DATASET_FUNCTION_METHODS) | {
    q.rsplit(".", 1)[-1] for q in DATASET_FUNCTION_TRANSFORMS}))

# Shapes that change between calls (STG506) ------------------------------------------------------
#
# Measured with TF 2.21 (tests/rules/test_stg506_varying_shapes.py runs the examples): a Function
# keys its traces on each tensor argument's shape, and never generalises on its own: 30 shapes
# give 30 traces (`reduce_retracing` defaults to False), `reduce_retracing=True` (or its older
# name `experimental_relax_shapes=True`, still accepted) gives 2 (the second trace is for
# `None` dimensions), `input_signature=[tf.TensorSpec([None, None], tf.float32)]` gives 1.

#: `tf.function` options after which a new shape is traced once more at most (shapes generalised).
SHAPE_RELAXING_OPTIONS = frozenset({"reduce_retracing", "experimental_relax_shapes"})
#: Dataset methods whose elements have their input's shapes.
SHAPE_KEEPING_DATASET_METHODS = frozenset({
    "shuffle", "prefetch", "repeat", "cache", "take", "skip", "filter", "with_options", "shard",
    "as_numpy_iterator", "take_while", "ignore_errors", "apply_options",
})
#: What a `tf.data` function is called with (TF 2.21: tests/runtime/test_tf_dataset_default_facts.py):
#: `map`, `filter`, `flat_map` and `interleave` pass the element's top-level tuple components as
#: positional arguments and nothing by keyword; a tensor, an array, a list (which `tf.data` makes
#: one tensor) or a dict is one component. A parameter past them keeps its default, a Python value
#: (`analysis.datasets.element_components`, `analysis.flags.param_values`).
DATASET_ELEMENT_CALLS = frozenset({"map", "filter", "flat_map", "interleave"})
#: Dataset methods whose elements have as many components as their receiver's.
DATASET_COMPONENT_KEEPING_METHODS = SHAPE_KEEPING_DATASET_METHODS | frozenset({
    "batch", "padded_batch", "unbatch", "rebatch", "ragged_batch", "repeat", "cache", "prefetch",
})
#: Datasets whose element is one component, by qualified name.
DATASET_ONE_COMPONENT_SOURCES = frozenset({
    "tensorflow.data.Dataset.range", "tensorflow.data.Dataset.list_files", "tensorflow.data.TFRecordDataset",
    "tensorflow.data.TextLineDataset", "tensorflow.data.FixedLengthRecordDataset",
})
#: Datasets whose element has their first argument's structure (`from_tensor_slices((x, y))`: two
#: components), and `Dataset.zip`, whose element has one component per dataset zipped.
DATASET_STRUCTURE_SOURCES = frozenset({
    "tensorflow.data.Dataset.from_tensor_slices", "tensorflow.data.Dataset.from_tensors",
})
DATASET_ZIP = "tensorflow.data.Dataset.zip"
#: Among them, those that may stop before the last batch (`.batch(64).take(5)`).
TRUNCATING_DATASET_METHODS = frozenset({"take", "take_while", "shard", "filter"})
#: `ds.padded_batch(batch_size, padded_shapes=None, padding_values=None, drop_remainder=False)` pads
#: each batch to the longest element in it: 12 sequences of 2..13 items, `padded_batch(3)`, give 4
#: padded lengths and 4 traces; `padded_shapes=[16]` gives 1 (2 with a smaller last batch).
#: `ds.batch(batch_size, drop_remainder=False)`: 100 rows, `batch(32)`, give batches of 32 and 4,
#: 2 traces (every epoch again the same 2); `drop_remainder=True` (or 25 rows a batch) gives 1.
#: Positions of the arguments, as the methods take them.
BATCHING_ARGUMENTS = {
    "padded_batch": {"padded_shapes": 1, "drop_remainder": 3},
    "batch": {"drop_remainder": 1},
}
#: Datasets made of the slices of their argument along its first axis: as many elements as that
#: axis is long (`from_tensor_slices((x, y))`: `x.shape[0]`, which every component shares). A
#: batch of that size is one batch holding them all, with no smaller last batch (TF 2.21,
#: tests/runtime/test_tf_eighteenth_audit_bq_facts.py: PINNs-TF2.x `batch(xx.shape[0])`).
SLICING_DATASETS = frozenset({"tensorflow.data.Dataset.from_tensor_slices"})
#: Dataset methods that give one element for each element in, in any order: the count stays.
COUNT_KEEPING_DATASET_METHODS = frozenset({"shuffle", "prefetch", "cache", "map", "with_options"})
#: `bucket_by_sequence_length` (a Dataset method, and `tf.data.experimental`'s for `apply`):
#: batches of one bucket padded to their own longest element: 12 sequences gave 7 shapes, 7
#: traces. With `pad_to_bucket_boundary=True` each bucket's batches have one length: the traces
#: are bounded by the buckets, which is the remedy, not the pitfall.
BUCKETING = frozenset({"bucket_by_sequence_length", "tensorflow.data.experimental.bucket_by_sequence_length"})
#: A generator's dataset whose signature has `None` dimensions yields each element at its own
#: size: 12 lengths under `output_signature=tf.TensorSpec([None], tf.float32)` gave 12 traces.
#: The keywords that declare the shapes, and their positions.
GENERATOR_DATASETS = frozenset({"tensorflow.data.Dataset.from_generator"})
GENERATOR_SHAPE_ARGUMENTS = {"output_signature": 4, "output_shapes": 2}
#: A Keras layer or model makes its weights when it is built (its first call, `build()`), not
#: when constructed: constructed in a traced function and not built there, it makes no variable
#: in that trace (a `Sequential` of `Conv2D` and `Dense` and a `Conv2D`, two traces: no weights,
#: unbuilt); constructed and called there, it does (ValueError in a later trace). What builds at
#: construction: a `Sequential` holding an `Input` / `InputLayer`, or a layer given its input
#: shape by one of these keywords (tests/runtime/test_tf_thirteenth_audit_facts.py). Optimizers
#: and metrics make variables when constructed (Keras 3): not these.
KERAS_BUILDING_INPUTS = frozenset({"Input", "InputLayer"})
KERAS_INPUT_SHAPE_KEYWORDS = frozenset({"input_shape", "input_dim", "batch_input_shape", "batch_shape",
                                        "input_length"})
#: Methods of a Python list or string called in a builder: they apply nothing they are given.
LIST_BUILDING_METHODS = frozenset({"append", "extend", "insert", "format", "join"})
#: Keras wrapper layers (last part of the class's name) that own no variables of their own: their
#: weights are the wrapped layer's (`RNN(cell)`, `TimeDistributed(layer)`), made when that layer
#: is first built, once. Made in a traced `call` around a layer the outer layer made once, they
#: make no variable in a later trace (two traces run). `Bidirectional` is not one: it clones its
#: layer into forward and backward copies with weights of their own, so one made per call raises
#: ValueError in a later trace (tests/runtime/test_tf_thirteenth_audit_facts.py).
KERAS_WEIGHTLESS_WRAPPERS = frozenset({"RNN", "TimeDistributed"})
#: Calls that return a new Keras model object, another on every call: `clone_model` (a copy
#: with new layers), and `tfmot.sparsity.keras.strip_pruning`, which returns `clone_model(...)`
#: of its model (tensorflow/model-optimization, prune.py). A
#: tf.function keys a Keras model argument by identity: a new one is a new trace
#: (tests/runtime/test_tf_thirteenth_audit_facts.py).
NEW_KERAS_MODEL_FUNCTIONS = frozenset({
    "keras.models.clone_model", "tensorflow.keras.models.clone_model", "tf_keras.models.clone_model",
    "tensorflow_model_optimization.sparsity.keras.strip_pruning",
    "tensorflow_model_optimization.python.core.sparsity.keras.prune.strip_pruning",
})
#: Calls that make a new `tf.random.Generator`, another object on every call. A tf.function keys
#: a Generator argument by identity, as it does a Keras model (4 new generators, 4 traces; the same
#: one 4 times, 1), where a `tf.Variable` is keyed by its shape and dtype (4 new variables, 1
#: trace): a Function made per call around a generator made in that call traces once per call, as
#: one made once and taking the generator would; one closing over a single generator would share
#: its state across the calls (a seeded call no longer repeats its draws). TF 2.21:
#: tests/runtime/test_tf_eighteenth_audit_bq_facts.py. (`tf.random.get_global_generator()` is one
#: object for the process: not here.)
NEW_IDENTITY_KEYED_CONSTRUCTORS = frozenset(
    f"tensorflow.{ns}Generator{ctor}" for ns in ("random.", "random.experimental.")
    for ctor in ("", ".from_seed", ".from_non_deterministic_state", ".from_key_counter", ".from_state"))
#: Prefixes of the Keras optimizer and metric classes (`tf.optimizers` and `tf.metrics` are
#: Keras 3's under TF 2.21: `tf.optimizers.Adam` is `keras.src.optimizers.adam.Adam`). Such an
#: object owns variables and a tf.function keys it by identity, as it does a Keras model: one
#: Function taking a new optimizer on each of 3 calls traces 3 times, a new metric 3 times (the
#: same ones, once); and a Function made once cannot make a new optimizer's slot variables on a
#: later trace (ValueError: "tf.function only supports singleton tf.Variables created on the first
#: call"). So a Function made per loop iteration around the optimizer or metric that iteration
#: makes costs no trace a Function made once could save (TF 2.21:
#: tests/runtime/test_tf_nineteenth_audit_bu_facts.py).
KERAS_IDENTITY_KEYED_STATE_PREFIXES = _keras_prefixes("optimizers", "metrics") + (
    "tensorflow.optimizers.", "tensorflow.metrics.")


def is_keras_state_class(qualified_name: str) -> bool:
    """A public Keras optimizer or metric class (`keras.optimizers.Adam`, `tf.metrics.Mean`): one
    name, spelled as a class, after a `KERAS_IDENTITY_KEYED_STATE_PREFIXES` entry; not a function
    (`keras.metrics.mean_squared_error`) nor a deeper path (`optimizers.schedules.ExponentialDecay`,
    no variables)."""
    prefix = next((p for p in KERAS_IDENTITY_KEYED_STATE_PREFIXES if qualified_name.startswith(p)), None)
    if prefix is None:
        return False
    last = qualified_name[len(prefix):]
    return "." not in last and last[:1].isupper() and last not in KERAS_CLASS_SPELLED_FUNCTIONS


#: What a function binding a Function's global name anew binds it to, so that later calls of the
#: name run an object with no trace of its own: `tf.function(...)` (a new Function traces on its
#: first call and reads the globals as they are then: `SCALE = 3.0; step =
#: tf.function(step.python_function); step(x)` read 3.0 where the old Function kept 2.0), or the
#: Function's `python_function` attribute (`FUNCTION_PYTHON_ATTRIBUTE`: the plain Python function,
#: every call runs eagerly and reads the global anew). TF 2.21:
#: tests/runtime/test_tf_nineteenth_audit_bu_facts.py.
FUNCTION_REMAKERS = frozenset({"tensorflow.function"})
#: Dataset methods that batch its elements, and where their batch size is passed (position,
#: keyword). A tf.function without an input_signature (and without `reduce_retracing`) is keyed on
#: the concrete shapes of the tensors it is given: a loop that rebinds a global to `bs` and batches
#: the data it hands the Function by the same `bs` gives it batches of a new shape whenever `bs` is
#: new, and that shape's trace reads the new value (batch 128, 64, 128, 32 over 300 rows: every
#: full batch read its own size). Only a shape traced before under another value reuses a trace
#: with the old value: a smaller last batch (300 rows: 44 under 128 and under 64, read as 44/128
#: in both), unless `drop_remainder=True`; an `input_signature` with a `None` batch dimension, or
#: `reduce_retracing=True` after two shapes, serves every size from one trace and reads the first
#: value (TF 2.21: tests/runtime/test_tf_nineteenth_audit_bu_facts.py).
DATASET_BATCHING_METHODS = {"batch": (0, "batch_size"), "padded_batch": (0, "batch_size")}
#: Calls that iterate over a dataset, yielding its elements as they are (`tfds.as_numpy(ds)`,
#: `iter(ds)`, progress bars).
ELEMENT_PRESERVING_WRAPPERS = frozenset({
    "builtins.iter", "tensorflow_datasets.as_numpy", "tqdm.tqdm", "tqdm.auto.tqdm", "tqdm.notebook.tqdm",
})
#: `RaggedTensor.to_tensor(default_value=None, name=None, shape=None)` pads to the longest row
#: unless `shape=` fixes it: 6 widths gave 6 traces, `shape=[2, 8]` 1. Calls whose result is
#: ragged, by qualified name or prefix.
RAGGED_TO_DENSE = "to_tensor"
RAGGED_SHAPE_POSITION = 2
RAGGED_MAKERS = ("tensorflow.ragged.", "tensorflow.RaggedTensor.from_", "tensorflow.strings.split",
                 "tensorflow.strings.unicode_split", "tensorflow.strings.bytes_split", "tensorflow.strings.ngrams")
#: Conversions of a Python sequence to a tensor or an array, whose shape is the sequence's
#: length: `tf.constant(list)` of 6 lengths gave 6 traces (a NumPy array of 6 lengths too; JAX
#: 0.10.2: `jnp.asarray(list)` of 6 lengths, 6 compilations).
SEQUENCE_CONVERSIONS = frozenset({
    "tensorflow.constant", "tensorflow.convert_to_tensor", "numpy.array", "numpy.asarray",
    "jax.numpy.array", "jax.numpy.asarray",
})
#: Constructors whose result has the shape they are given, and where it is (position, keyword):
#: `tf.ones([4, length])` for 6 lengths gave 6 traces (`jnp.ones((2, length))` 6 compilations).
SHAPED_CONSTRUCTORS = {
    **{f"tensorflow.{name}": (0, "shape") for name in ("zeros", "ones", "random.normal", "random.uniform",
                                                     "random.truncated_normal")},
    "tensorflow.fill": (0, "dims"),
    **{f"numpy.{name}": (0, "shape") for name in ("zeros", "ones", "empty", "full")},
    **{f"numpy.random.{name}": (0, "size") for name in ("rand", "randn")},
    **{f"jax.numpy.{name}": (0, "shape") for name in ("zeros", "ones", "empty", "full")},
    **{f"jax.random.{name}": (1, "shape") for name in ("normal", "uniform")},
    "jax.random.bernoulli": (2, "shape"),  # (key, p, shape)
    "jax.random.truncated_normal": (3, "shape"),  # (key, lower, upper, shape)
}

#: Keras methods `fit` and friends trace (`train_step`, ...), and the calls that run them: a class
#: whose `train_step` the code calls by hand, on objects it never trains, runs it eagerly.
KERAS_STEP_METHODS = frozenset({"train_step", "test_step", "predict_step"})
KERAS_TRAINING_METHODS = frozenset({"fit", "evaluate", "predict", "train_on_batch", "test_on_batch",
                                    "predict_on_batch", "fit_generator", "evaluate_generator",
                                    "predict_generator", "compile"})

#: How `stagelint.analysis.walk` records `model.compile(..., run_eagerly=True)` among the Keras
#: drives: `fit`, `evaluate` and `predict` then call `train_step` / `test_step` / `predict_step`
#: as Python, once per batch, tracing nothing (TF 2.21 / Keras 3: a counter in `train_step` reads
#: 10 after 10 batches, 2 without `run_eagerly`; tests/runtime/test_tf_fresh_facts.py).
KERAS_EAGER_COMPILE = "compile(run_eagerly=True)"

#: The step methods whose Keras loops need a compiled model: `fit`, `evaluate`, `train_on_batch`
#: and `test_on_batch` of a model never compiled raise ValueError ("You must call `compile()`
#: before using the model") before any step runs, and run the steps as Python when the model's
#: compile said `run_eagerly=True`; a model `keras.models.load_model` revives keeps its compile's
#: `run_eagerly` (TF 2.21 / Keras 3.15, tests/runtime/test_tf_keras_compile_facts.py). So where
#: every compile the program makes of any object of a class says `run_eagerly=True`, no Keras
#: loop traces its `train_step` / `test_step`, wherever `fit` runs and on whatever name the object
#: travels (`analysis.staging.Project._drop_run_eagerly`). `predict` needs no compile: an
#: uncompiled model's `predict` traces `predict_step`.
KERAS_COMPILED_STEPS = frozenset({"train_step", "test_step"})
#: How `stagelint.analysis.walk` records `super().compile(**kwargs)` in a class's own `compile(self, ...,
#: **kwargs)` that passes its `**kwargs` on untouched: Python hands Keras's `compile` the keywords the
#: override's caller gave, `run_eagerly` among them, so those calls (recorded with the class) say how
#: its objects are compiled, and this one says nothing of its own.
KERAS_FORWARDED_COMPILE = "super().compile(**kwargs)"
#: The attribute that sets the same switch after compile (`model.run_eagerly = flag`).
KERAS_RUN_EAGERLY = "run_eagerly"
#: How a file spells a compile (not after a `#` on its line), read in the bytes of a file no round
#: analysed (`pipeline.stages`): a compile there may be one without `run_eagerly=True`.
KERAS_COMPILE_SPELLING = rb"(?m)^[^#\n]*(?<!\bre)(?<!\bregex)(?<!\btorch)\.compile\s*\("
#: Where Keras's own model classes live: a compiled object of one of them is no project class's.
KERAS_LIBRARY_PREFIXES = ("tensorflow.", "keras.", "tf_keras.")
#: Calls spelled `x.compile(...)` that compile no Keras model (a pattern, a PyTorch module).
NOT_KERAS_COMPILES = frozenset({"re.compile", "regex.compile", "torch.compile"})

#: The keyword of a Keras layer's or model's constructor that makes Keras run its `call` eagerly,
#: never tracing it (`analysis.eagerswitch.keras_dynamic`): under Keras 2 (tf_keras 2.21) a
#: layer built with `dynamic=True` is dynamic, and so is a model holding one, whose
#: `run_eagerly` is then True: `fit`, `evaluate` and `predict` run its `call` (and `train_step`)
#: as Python on every batch, and a functional model built on it asks `compute_output_shape`
#: instead of calling it on symbolic inputs; Keras 3 refuses the keyword (the constructor raises
#: ValueError: nothing of the class runs). A `tf.function` the user writes around a call of it
#: still traces it (tests/runtime/test_tf_keras_dynamic_facts.py). `compile(run_eagerly=True)`
#: is not the same under Keras 3: its `fit` still traces `call` once on symbolic inputs to build
#: the model (`KERAS_EAGER_COMPILE` drops only the step methods).
KERAS_DYNAMIC_KEYWORD = "dynamic"

#: The process-wide switch that makes every `tf.function` run its Python body on each call,
#: tracing nothing (`analysis.eagerswitch`): read at each call of a Function, so it holds for
#: Functions defined or traced before it was set, and it stays on until set False. With it on
#: (TF 2.21, tests/runtime/test_tf_eager_switch_facts.py) a print in the body prints on every
#: call with values, a `tf.Variable` made in the body raises nothing, a list the body appends to
#: holds values, a `jit_compile=True` Function runs eagerly too. It does not reach `tf.data`
#: functions (`map`'s function is still traced once) unless `EAGER_DATASET_SWITCH` is called as
#: well, nor `get_concrete_function` (and a SavedModel export), which trace whatever it says.
EAGER_FUNCTION_SWITCHES = frozenset({
    "tensorflow.config.run_functions_eagerly", "tensorflow.config.experimental_run_functions_eagerly",
})
EAGER_DATASET_SWITCH = "tensorflow.data.experimental.enable_debug_mode"

#: The process-wide switches to TensorFlow 1's graph mode (`analysis.eagerswitch.graph_modules`):
#: with eager execution off (TF 2.21, tests/runtime/test_tf_graph_mode_facts.py) every op called
#: outside a `tf.function` adds a node to the one default graph and returns a graph tensor, which
#: stays valid for every `Session.run` of that graph; a Keras layer called on such tensors runs its
#: `call` as Python once, while the graph is built (a tensor it stores on itself is a tensor of
#: that graph, read by each later step), and no Keras loop makes a Function of it. A `tf.function`
#: still traces its Python once per input signature, into a function graph of its own, and its
#: calls add a call op: what is traced stays traced. The spellings on the top-level module
#: (`tf.disable_v2_behavior()`, `tf.py_func`, `tf.assign_add`) are TensorFlow 1's: TF 2 has them
#: only under `tf.compat.v1` (the top-level attribute is missing: AttributeError), so a program
#: that calls one runs TensorFlow 1.x, whose default is graph mode.
GRAPH_MODE_SWITCHES = frozenset({
    "tensorflow.compat.v1.disable_eager_execution", "tensorflow.compat.v1.disable_v2_behavior",
    "tensorflow.disable_eager_execution", "tensorflow.disable_v2_behavior",
})
#: The TensorFlow 1-only spellings among them (absent from TF 2's top-level module).
GRAPH_MODE_TF1_ONLY = frozenset({"tensorflow.disable_eager_execution", "tensorflow.disable_v2_behavior"})
#: Modules only multi-backend Keras has: the standalone `keras` package before 2.4, which ran on
#: TensorFlow 1, Theano or CNTK (Keras 2.4+ is tf.keras under another name, its `keras.backend` a
#: module with no `tensorflow_backend`; Keras 2.6-2.15's `keras.engine` has no `topology`; Keras 3
#: has neither). That Keras has no eager execution and no `tf.function`: a layer's `__call__` on
#: the backend's symbolic tensors (`keras.engine.topology.Layer`) runs its `call` once, while the
#: model is built into the backend's one graph (`tf.placeholder` inputs), and every step runs that
#: graph in the backend's session (`keras/backend/tensorflow_backend.py`: `get_session`,
#: `tf.Session`, `K.function`; keras-team/keras before 2.4, not installable beside TF 2.21). So a
#: class built on it runs its Keras methods in graph mode, as `GRAPH_MODE_SWITCHES` make a
#: tf.keras class do (`analysis.eagerswitch.graph_classes`); a `tf.function` still traces.
MULTI_BACKEND_KERAS_MODULES = ("keras.engine.topology", "keras.backend.tensorflow_backend",
                               "keras.backend.theano_backend", "keras.backend.cntk_backend")
#: The standalone `keras` package's root: multi-backend Keras's classes are named under it.
STANDALONE_KERAS_PREFIX = "keras."


def _in_modules(qualified_name: str, modules: tuple) -> bool:
    """`qualified_name` is one of `modules` or a name in one of them."""
    return any(qualified_name == m or qualified_name.startswith(m + ".") for m in modules)


def multi_backend_keras(qualified_name: str) -> bool:
    """`qualified_name` is one of `MULTI_BACKEND_KERAS_MODULES` or a name in one of them."""
    return _in_modules(qualified_name, MULTI_BACKEND_KERAS_MODULES)


#: Modules only TensorFlow 1.x has: TF 2 has no `tensorflow.contrib` (importing it raises
#: ModuleNotFoundError, TF 2.21: tests/runtime/test_tf_graph_mode_facts.py), so a program that
#: imports one at module level runs TensorFlow 1.x, whose default is graph mode: the import is a
#: TensorFlow 1 spelling of the switch (`analysis.eagerswitch.module_events`).
TF1_ONLY_MODULES = ("tensorflow.contrib",)


def tf1_only(qualified_name: str) -> bool:
    """`qualified_name` is a module only TensorFlow 1.x has (`TF1_ONLY_MODULES`), or a name in one."""
    return _in_modules(qualified_name, TF1_ONLY_MODULES)


#: What turns eager execution (back) on: a project that calls one is not known to build graphs.
EAGER_MODE_SWITCHES = frozenset({
    "tensorflow.compat.v1.enable_eager_execution", "tensorflow.compat.v1.enable_v2_behavior",
    "tensorflow.enable_eager_execution", "tensorflow.enable_v2_behavior",
})
#: How the switches are spelled in a file's bytes (`pipeline.screen.entry_pattern`: such a file is
#: analysed with the entry points; `pipeline.splice`: analysed whole).
GRAPH_MODE_WORDS = (b"disable_v2_behavior", b"disable_eager_execution", b"enable_eager_execution",
                    b"enable_v2_behavior")
#: The drives that run a model's step methods.
KERAS_RUNNING_METHODS = KERAS_TRAINING_METHODS - {"compile"}

#: When Keras traces a Layer's or Model's own methods (TF 2.21 / Keras 3.15, checked by
#: tests/runtime/test_tf_keras_tracing_facts.py). A layer called directly on eager tensors runs its
#: `call` as Python on those values, every call (a layer with sub-layers and no `build` runs it
#: once more on its first call to build them, still on the eager values). `call` is traced
#: (symbolic tensors, Python once per trace) when a Keras loop runs the model (`fit`, `evaluate`,
#: `predict`, `*_on_batch`, without `run_eagerly=True`), when traced code calls the layer (a
#: `tf.function`, or the traced `call` of the layer that owns it as a sub-layer), when the layer
#: is called on Keras symbolic inputs (`keras.Input`: a functional model is built that way), when
#: it is an entry of a `Sequential` (building it, on its first call or `fit`, runs each entry on
#: symbolic inputs), and when `tf.saved_model.save` / `Model.export` saves the model. A step
#: method runs traced only when Keras's own loop calls it: `train_step` under `fit` /
#: `train_on_batch`, `test_step` under `evaluate` / `test_on_batch` (and `fit` with validation
#: data), `predict_step` under `predict` / `predict_on_batch`; called by the class's own code (an
#: overriding `fit` that calls `self.test_step(batch)`) it runs eagerly. Code that shows none of
#: these leaves "Keras traces this method" unknown (`analysis.staging.Project.keras_unshown`).
KERAS_LOOP_STEPS: dict[str, frozenset[str]] = {
    "fit": frozenset({"call", "train_step"}),
    "train_on_batch": frozenset({"call", "train_step"}),
    "fit_generator": frozenset({"call", "train_step"}),
    "evaluate": frozenset({"call", "test_step"}),
    "test_on_batch": frozenset({"call", "test_step"}),
    "evaluate_generator": frozenset({"call", "test_step"}),
    "predict": frozenset({"call", "predict_step"}),
    "predict_on_batch": frozenset({"call", "predict_step"}),
    "predict_generator": frozenset({"call", "predict_step"}),
}
#: How `stagelint.analysis.walk` records, among the Keras drives, a `fit` given validation data
#: (it runs `test_step` too), a call of `keras.Input` in a scope (the layers that scope makes are
#: called on symbolic inputs), a project layer made as an entry of a `Sequential`, and a model
#: saved with `tf.saved_model.save(model, ...)` or `model.export(...)`. Building a functional
#: model calls only the layers applied to its symbolic tensors: a layer a model's constructor
#: stores on the object (`self.head = Head()`) beside a functional model it cuts out of another
#: model's input (`Model(base.input, base.get_layer(...).output)`), and never reads back or
#: hands to `self(...)` / `self.call(...)` there, runs nothing while the model is built; its `call`
#: runs as its callers run it, eagerly when eager code calls it by hand (TF 2.21 / Keras 3:
#: tests/runtime/test_tf_keras_tracing_facts.py; `analysis.staging.Project._stored_unread`).
KERAS_VALIDATING_FIT = "fit(validation_data)"
KERAS_SYMBOLIC_SCOPE = "keras.Input"
#: A module-level class the module defines again later under the same name, during whose binding
#: the module's own code builds no functional model: the layers the module's statements make of
#: it are not the ones its `keras.Input` builds call (those are made while the name is bound to
#: another class, or before it is bound at all); a layer of it the module calls directly on eager
#: tensors runs `call` as Python (tests/runtime/test_tf_keras_tracing_facts.py).
KERAS_UNBUILT = "keras.Input(not while bound)"
KERAS_SEQUENTIAL_ENTRY = "Sequential([...])"
KERAS_SAVED = "tf.saved_model.save"
#: The drives that run a layer's `call` only on Keras symbolic inputs: a functional build on
#: `keras.Input` and an entry of a `Sequential`. They run `call` once, and make no `tf.function`:
#: a `call` that creates a `tf.Variable` or a new sub-layer on every call builds without error,
#: and runs again without error when eager code calls the built model by hand; only a
#: `tf.function` or a Keras loop (`fit`, `predict`, ...) running it raises the ValueError of
#: variables created on a non-first trace (TF 2.21 / Keras 3:
#: tests/runtime/test_tf_keras_symbolic_build_facts.py; `analysis.staging.Project.keras_built_only_here`).
#: A Keras method runs inside a Function only when a Function runs an object of its class (a Keras
#: loop or save of a model holding it, a `tf.function`, Keras step or traced layer calling or making
#: it); a `tf.function` of the same program that runs none traces nothing of it
#: (`analysis.staging.Project.function_reached`).
KERAS_SYMBOLIC_BUILDS = frozenset({KERAS_SYMBOLIC_SCOPE, KERAS_SEQUENTIAL_ENTRY})
#: How a file spells what may make Keras trace a layer's methods (`KERAS_LOOP_STEPS`: a Keras loop,
#: `keras.Input`, a functional `Model(...)`, `Sequential`, a save or export), read in the bytes of
#: a file no round analysed (`pipeline.stages`); erring towards seeing one (a string counts; not
#: what follows a `#` on its line: a commented-out `# model.fit(x)` runs nothing).
_KERAS_RUN_WORDS = (rb"\.(?:fit|evaluate|predict|train_on_batch|test_on_batch|predict_on_batch|fit_generator|"
                    rb"evaluate_generator|predict_generator|export)\s*\(|\bsaved_model\b")
KERAS_DRIVE_SPELLING = rb"(?m)^[^#\n]*(?:" + _KERAS_RUN_WORDS + rb"|\bInput\s*\(|\bModel\s*\(|\bSequential\b)"
#: Of those, what runs a built model under a Function (a Keras loop, a save or export), not a
#: symbolic build alone (`KERAS_SYMBOLIC_BUILDS`: `keras.Input`, `Model(...)`, `Sequential`), which
#: traces nothing again (`analysis.staging.Project.function_reached`).
KERAS_RUN_SPELLING = rb"(?m)^[^#\n]*(?:" + _KERAS_RUN_WORDS + rb")"
#: How `stagelint.analysis.walk` records, among the Keras drives, a step of training by hand: an
#: optimizer applying gradients (`optimizer.apply_gradients(zip(tape.gradient(...), ...))`) where the
#: code calls it. Outside staged code it runs eagerly, and so does the model whose gradients it
#: applies: its `call` runs as Python on every step, under `tf.function` it is traced once (TF 2.21 /
#: Keras 3, tests/runtime/test_tf_keras_hand_training_facts.py; `analysis.staging.Project.keras_untraced_here`).
KERAS_HAND_TRAINING = "apply_gradients"
#: Its spelling, read in the bytes of a file no round analysed (not after a `#` on its line).
KERAS_HAND_TRAINING_SPELLING = rb"(?m)^[^#\n]*\.apply_gradients\s*\("
KERAS_LOOP_STEPS[KERAS_VALIDATING_FIT] = frozenset({"test_step"})
KERAS_LOOP_STEPS[KERAS_SAVED] = frozenset({"call"})
#: What Keras's own `train_step` / `test_step` / `predict_step` pass a model's `call`: the one
#: input `x` of the batch (`self(x)`), and `training` (and a `mask` it finds) by keyword. A `call`
#: that requires a further positional argument raises TypeError before its body runs, so `fit`,
#: `evaluate` and `predict` trace nothing of it (TF 2.21 / Keras 3:
#: tests/runtime/test_tf_keras_step_inputs_facts.py). A saved model traces `call` with the
#: arguments of its first call instead (`KERAS_SAVED`).
KERAS_STEP_CALL_KEYWORDS = frozenset({"training", "mask"})
#: `fit` keywords that give it validation data.
KERAS_VALIDATION_KEYWORDS = frozenset({"validation_data", "validation_split"})
KERAS_INPUT_CALLS = frozenset(f"{root}.{sub}Input" for root in ("tensorflow.keras", "keras", "tf_keras",
                                                                "tensorflow.python.keras", "keras.src")
                              for sub in ("", "layers.", "layers.core.", "engine.input_layer."))
KERAS_SAVING_CALLS = frozenset({"tensorflow.saved_model.save", "tensorflow.compat.v2.saved_model.save"})

#: Keras methods that keep their Function on the model: the first `fit` makes
#: `model.train_function` (`evaluate`/`predict` their own) and later calls reuse it until
#: `compile` drops it, so an attribute `call` reads, changed between two `fit`s, is stale
#: (observed: tests/runtime/fixtures/fx_state.py, test_keras_attribute_changed_between_fits).
KERAS_KEPT_FUNCTION_METHODS = frozenset({"fit", "evaluate", "predict", "train_on_batch", "test_on_batch",
                                         "predict_on_batch"})

#: Keras builds a layer in `__call__` before its `call` runs, eagerly or in the first trace: it
#: runs the layer's `build`, then sets `built = True` (Keras 3 and tf_keras alike, whatever the
#: override of `build` does), so `self.built` is True in every run of `call` that comes through
#: `layer(x)`: `if not self.built: self.build(...)` there is never taken, in no trace and not
#: eagerly. The base `Layer.build` sets `built` itself, so the same test after `super().build(...)`
#: in the `build` of a direct subclass of `Layer` is never taken either (the Demucs port's
#: `ScaledEmbedding`, which sets `self.built = False` in `__init__`). A `call` invoked directly
#: (`layer.call(x)`) skips `__call__`, and with it the build. Observed with TF 2.21 / Keras 3.15 /
#: tf_keras 2.21: tests/runtime/test_tf_fifteenth_audit_be_facts.py.
KERAS_BUILT_ATTRIBUTE = "built"
#: The layer methods Keras runs only after it has set `built` (through `__call__`).
KERAS_BUILT_BEFORE = frozenset({"call"})
#: The base class method that sets `built` (`super().build(input_shape)`), and the base it is
#: Keras's own in (`Layer`: a built-in layer's or `Model`'s `build` does more).
KERAS_BUILDING_METHOD = "build"
KERAS_BUILDING_BASE = "Layer"


def is_keras_layer_base(qualified_name: str) -> bool:
    """`qualified_name` names Keras's base `Layer` class (`tf.keras.layers.Layer`, `keras.Layer`,
    `tf_keras.layers.Layer`), whose `build` sets `built` (`KERAS_BUILDING_BASE`)."""
    return qualified_name.rsplit(".", 1)[-1] == KERAS_BUILDING_BASE and TENSORFLOW.is_layer_base(qualified_name)


#: Keras hooks that set an object up before anything is traced: `fit` calls a callback's
#: `set_model` / `set_params` before the first batch (STG302 takes their writes as set-up).
KERAS_SETUP_HOOKS = frozenset({"set_model", "set_params"})

# Keras objects that create variables on first use (STG403) -----------------------------------------

#: Methods whose call, outside staged code, creates an optimizer's or a model's variables.
BUILDING_METHODS = frozenset({"build", "fit", "predict", "evaluate", "apply_gradients", "minimize",
                              "train_on_batch", "predict_on_batch", "load_weights"})

#: Keras's functional model classes: `keras.Model(inputs, outputs)` connects layers already
#: called on Keras symbolic inputs, which built them (their variables exist) before the model
#: does; a new functional model over them creates no variable when a Function calls it
#: (tests/runtime/test_tf_retracing_facts.py), nor is one created by constructing it: made in a
#: traced function over built layers on two traces, no variable creator sees a variable (TF 2.21 /
#: Keras 3.15, tests/runtime/test_tf_variable_creation_facts.py). A variable appears only where an
#: unbuilt layer is applied to the inputs, a call of its own (STG402 reports that one).
KERAS_FUNCTIONAL_NAMES = frozenset({"Model", "Functional"})


def builds_at_construction(qualified_name: str, keywords: set[str], positional: int) -> bool:
    """A call of `qualified_name` constructs a functional Keras model, built as it is made:
    `keras.Model(inputs=..., outputs=...)` or `keras.Model(inputs, outputs)`."""
    if not is_keras_model_class(qualified_name) or qualified_name.rsplit(".", 1)[-1] not in KERAS_FUNCTIONAL_NAMES:
        return False
    return positional >= 2 or {"inputs", "outputs"} <= keywords or (positional == 1 and "outputs" in keywords)


#: Keras 3 optimizers that make every variable they own when constructed (`iterations` and the
#: learning rate), none when they first apply gradients, with the constructor keywords that keep
#: it so: keyword -> the literal values allowed (leaving it out is allowed). `SGD` makes its
#: momentum slots only with a momentum other than 0. Checked with TF 2.21 / Keras 3.15.1
#: (tests/runtime/test_tf_pooled_weak_rules_facts.py): a Function that applied one `SGD()` takes a
#: second without error, while `SGD(momentum=0.9)`, `Adam()` and `RMSprop()` raise ValueError
#: there; tf_keras's `SGD()` makes its variables at its first apply and raises too.
KERAS3_OPTIMIZERS_BUILT_AT_CONSTRUCTION = {"SGD": {"momentum": _ZERO_LITERALS}}


def optimizer_built_at_construction(qualified_name: str, keywords: dict[str, str] | None, positional: int) -> str:
    """"keras3" when the call makes a Keras 3 optimizer whose variables all exist once it is made
    (`keras.optimizers.SGD(0.1)`), "tf.keras" when it makes one through `tf.keras`, which is
    Keras 3 in TF 2.21 unless TF_USE_LEGACY_KERAS=1 selects tf_keras (the environment decides),
    "" otherwise (Keras 2, another optimizer, a momentum not shown to be 0, the arguments passed
    positionally past the learning rate or with `*`/`**`: `keywords` None)."""
    root, _, last = qualified_name.rpartition(".optimizers.")
    needs = KERAS3_OPTIMIZERS_BUILT_AT_CONSTRUCTION.get(last)
    if needs is None or keywords is None or positional > 1 or root not in ("keras", "keras.src", "tensorflow.keras"):
        return ""
    if any(keywords[k] not in values for k, values in needs.items() if k in keywords):
        return ""
    return "tf.keras" if root == "tensorflow.keras" else "keras3"


#: Keras 3 layer classes (last part) whose constructor itself creates a variable: the random
#: layers' and the recurrent cells' `SeedGenerator` state (`seed_generator_state`), LSTM / GRU /
#: SimpleRNN even with dropout 0 (their cell makes one), `Bidirectional` (its copies of the layer).
#: Every other Keras 3 layer constructor creates none (`Dense`, `Embedding`, `Conv2D`,
#: `BatchNormalization`, `MultiHeadAttention`...): its weights are made in `build`, at its first
#: call. Checked with TF 2.21 / Keras 3.15 by constructing each `keras.layers` class under a
#: `tf.variable_creator_scope` (tests/runtime/test_tf_layer_construction_facts.py). `Dropout(0.0)`
#: makes none; `Attention` / `AdditiveAttention` make one only with `dropout` above 0
#: (`KERAS3_LAYERS_STATE_AT_CONSTRUCTION_WITH`). In tf_keras (Keras 2) no constructor of these
#: creates a variable (its random layers use plain random ops, `KERAS2_WEIGHTLESS_RANDOM_LAYERS`),
#: so `tf.keras` (Keras 3 in TF 2.21 unless TF_USE_LEGACY_KERAS=1 selects tf_keras) is taken as
#: Keras 3 here: the environment decides, as for `optimizer_built_at_construction`.
KERAS3_LAYERS_STATE_AT_CONSTRUCTION = frozenset({
    "Dropout", "SpatialDropout1D", "SpatialDropout2D", "SpatialDropout3D", "GaussianDropout",
    "GaussianNoise", "AlphaDropout",
    "LSTM", "GRU", "SimpleRNN", "LSTMCell", "GRUCell", "SimpleRNNCell", "ConvLSTM1D", "ConvLSTM2D",
    "ConvLSTM3D", "Bidirectional",
    "AugMix", "CutMix", "MixUp", "RandAugment", "RandomBrightness", "RandomColorDegeneration",
    "RandomColorJitter", "RandomContrast", "RandomCrop", "RandomElasticTransform", "RandomErasing",
    "RandomFlip", "RandomGaussianBlur", "RandomGrayscale", "RandomHue", "RandomInvert",
    "RandomPerspective", "RandomPosterization", "RandomRotation", "RandomSaturation",
    "RandomSharpness", "RandomShear", "RandomTranslation", "RandomZoom", "Solarization",
})
#: Keras 3 layer classes whose constructor creates a variable only with a keyword above 0.
KERAS3_LAYERS_STATE_AT_CONSTRUCTION_WITH = {"Attention": "dropout", "AdditiveAttention": "dropout"}


def keras_first_parameter(qualified_name: str) -> str | None:
    """The name of the first parameter of the Keras layer class `qualified_name` (any Keras), where
    a fact here asks it (`Dropout(0.0)` is `Dropout(rate=0.0)`: `KERAS3_LAYERS_STATE_UNLESS_ZERO`)."""
    root, sep, last = qualified_name.rpartition(".layers.")
    return KERAS3_LAYERS_STATE_UNLESS_ZERO.get(last) if sep and "." not in last else None



def layer_state_at_construction(qualified_name: str, keywords: dict[str, str] | None, positional: int) -> bool | None:
    """Whether constructing the Keras layer class `qualified_name` (under `keras.layers` /
    `tf.keras.layers`) creates a variable itself (`KERAS3_LAYERS_STATE_AT_CONSTRUCTION`): True or
    False for a Keras 3 (or `tf.keras`) layer class, None for anything else (tf_keras, a model
    class, a path deeper than `layers.<Name>`). `keywords` is the construction's keyword
    arguments by name (None when passed with `**` or otherwise unknown; the first positional
    one named too where `keras_first_parameter` knows its name) and `positional` how many
    others are passed positionally: an `Attention` given a `dropout` not shown to be 0, or given
    arguments positionally, counts as creating one; a `Dropout` whose rate is shown to be 0
    (`KERAS3_LAYERS_STATE_UNLESS_ZERO`) creates none."""
    root, sep, last = qualified_name.rpartition(".layers.")
    if not sep or root not in ("keras", "keras.src", "tensorflow.keras") or "." in last or not last[:1].isupper():
        return None
    rate = KERAS3_LAYERS_STATE_UNLESS_ZERO.get(last)
    if rate is not None and keywords is not None and keywords.get(rate) in _ZERO_LITERALS:
        return False
    if last in KERAS3_LAYERS_STATE_AT_CONSTRUCTION:
        return True
    keyword = KERAS3_LAYERS_STATE_AT_CONSTRUCTION_WITH.get(last)
    if keyword is not None:
        return keywords is None or positional > 0 or keywords.get(keyword, "0") not in _ZERO_LITERALS
    return False


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
    # `tf.cond` for a tensor predicate, the branch called as Python for a Python bool: a branch's
    # variable updates run either way (TF 2.21, tests/runtime/test_tf_fresh_facts.py)
    "tensorflow.__internal__.smart_cond.smart_cond",
})
#: APIs that call the function they take, at this argument place (position, keyword), with one
#: positional argument (the element's structure) and no keyword: `tf.map_fn(fn, elems)` calls
#: `fn(elem)`, `tf.vectorized_map(fn, elems)` calls `fn(elems)` once, traced; a parameter of
#: `fn` past the first keeps its default (TF 2.21, tests/runtime/test_tf_eighteenth_audit_bq_facts.py).
CALLS_ITS_FUNCTION_WITH = {
    "tensorflow.map_fn": (0, "fn", 1), "tensorflow.compat.v1.map_fn": (0, "fn", 1),
    "tensorflow.vectorized_map": (0, "fn", 1),
}
#: APIs that call the function they take once per element of their input, in the call itself, as
#: plain Python: `tf.nest.map_structure(func, s)` calls `func` once per element of `s` (eagerly and
#: while tracing alike), so a `tf.function` its `func` makes anew is made, and traced, once per
#: element (TF 2.21, tests/runtime/test_per_element_call_facts.py). (position, keyword) of the
#: function. `tf.map_fn` is not one: under a trace it traces its `fn` once.
TF_PER_ELEMENT_CALLS = {"tensorflow.nest.map_structure": (0, "func")}
#: Multi-output ops (`MULTI_OUTPUT_OPS`) whose result holds a Python list of tensors, not a
#: tensor, at these places: `tf.clip_by_global_norm(ts, n)` returns (a Python list of the
#: clipped tensors, the global norm), so `clipped, norm = tf.clip_by_global_norm(...)` binds
#: `clipped` to a list (`clipped + more` concatenates lists, `zip(clipped, vs)` pairs its items;
#: TF 2.21, under `tf.function` too: tests/runtime/test_tf_eighteenth_audit_bq_facts.py).
LIST_ELEMENTS_OF_RESULT = {"tensorflow.clip_by_global_norm": frozenset({0})}
#: Module paths that are TensorFlow's own top-level API under another name:
#: `tensorflow.compat.v2` is `tensorflow` (TF 2.21: `tf.compat.v2.compat.v1.py_func is
#: tf.compat.v1.py_func`, `tf.compat.v2.function is tf.function`; tests/runtime/
#: test_tf_fresh_facts.py), so `import tensorflow.compat.v2 as tf` names every API the data
#: here lists under `tensorflow.`.
TF_SAME_MODULE_PREFIXES = ("tensorflow.compat.v2.",)
#: TensorFlow's internal spellings of public functions: the object under the internal module is
#: the public one (`from tensorflow.python.ops import array_ops; array_ops.split is tf.split` in
#: TF 2.21, each pair checked with `is` by tests/runtime/test_tf_twentieth_audit_by_facts.py), so
#: a call by the internal name is the public function's call and every fact listed here under the
#: public name holds of it (`array_ops.split(v, 3)` returns a Python list of 3 tensors, as
#: `tf.split` does: `MULTI_OUTPUT_OPS`). Internal name -> public name.
TF_INTERNAL_NAMES = {
    "tensorflow.python.ops.array_ops.split": "tensorflow.split",
    "tensorflow.python.ops.array_ops.meshgrid": "tensorflow.meshgrid",
    "tensorflow.python.ops.array_ops.shape_n": "tensorflow.shape_n",
    "tensorflow.python.ops.array_ops.unique": "tensorflow.unique",
    "tensorflow.python.ops.array_ops.unique_with_counts": "tensorflow.unique_with_counts",
    "tensorflow.python.ops.array_ops.unravel_index": "tensorflow.unravel_index",
    "tensorflow.python.ops.array_ops.identity_n": "tensorflow.identity_n",
    "tensorflow.python.ops.clip_ops.clip_by_global_norm": "tensorflow.clip_by_global_norm",
    "tensorflow.python.ops.data_flow_ops.dynamic_partition": "tensorflow.dynamic_partition",
    "tensorflow.python.ops.linalg_ops.eig": "tensorflow.linalg.eig",
    "tensorflow.python.ops.linalg_ops.qr": "tensorflow.linalg.qr",
    "tensorflow.python.ops.linalg_ops.svd": "tensorflow.linalg.svd",
    "tensorflow.python.ops.nn_ops.top_k": "tensorflow.nn.top_k",
    "tensorflow.python.ops.nn.top_k": "tensorflow.nn.top_k",
}
#: Constructors whose result does not answer `== None` as `is None` does (TF 2.21, numpy; tests/
#: runtime/test_tf_twentieth_audit_by_facts.py): `tf.Variable(...) == None` raises ValueError
#: (eagerly and in a trace: None converts to no tensor), an unknown-rank `tf.TensorShape(None) ==
#: None` is True, a numpy array compares elementwise (an `if` on more than one element raises).
#: Every other value tested that way answers as `is` does: None, Python scalars and containers,
#: a Keras layer (object identity), a tf.Tensor (`t == None` is False, `t != None` True, eagerly
#: and traced), a static dimension (int or None).
NONE_EQUALITY_NOT_IDENTITY = frozenset({
    "tensorflow.Variable", "tensorflow.TensorShape", "keras.Variable",
    "numpy.array", "numpy.asarray", "numpy.zeros", "numpy.ones", "numpy.empty", "numpy.full",
    "numpy.arange", "numpy.zeros_like", "numpy.ones_like", "numpy.full_like",
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
    # a Python list, one tensor per input (`shape, axes = tf.identity_n([shape, axes])`; TF 2.21)
    "tensorflow.identity_n",
    # a Python list, one tensor per record default (`a, b = tf.io.decode_csv(line, ["", 0])`;
    # TF 2.21 in a traced function, tests/runtime/test_tf_fresh_facts.py)
    "tensorflow.io.decode_csv", "tensorflow.decode_csv",
})

#: Ops that run a Python function and return a Python list of tensors, one per dtype, when
#: `Tout` (keyword or third argument) is a list or tuple, and one tensor when it is one dtype
#: (TF 2.21 in a traced function: tests/runtime/test_tf_fresh_facts.py). Canonical names.
LIST_TOUT_OPS = frozenset({"tensorflow.numpy_function", "tensorflow.py_function", "tensorflow.py_func"})
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

def is_stateful_op(qualified_name: str) -> bool:
    """Kept in the graph for its effect even when its result is unused (STG603, STG105). Internal
    spellings (`tensorflow.python.ops.check_ops.assert_equal`) are recognised by their name."""
    q = canonical_tf_name(qualified_name)
    if q in STATEFUL_OPS or q in CONTROL_FLOW_OPS or q.startswith(STATEFUL_OP_PREFIXES):
        return True
    if qualified_name in STATEFUL_OPS or qualified_name.startswith(STATEFUL_OP_PREFIXES):
        return True
    last = q.rsplit(".", 1)[-1]
    if last == "smart_cond":  # `tensorflow.python.framework.smart_cond`, Keras's `tf_utils` copy
        return True
    return last.lower().startswith(("assert", "check_numerics", "print")) or ".summary" in q or ".debugging." in q


#: Calls that are True only outside tracing, and only while tracing.
EAGER_TESTS = frozenset({"tensorflow.executing_eagerly", "tensorflow.compat.v1.executing_eagerly",
                         "tensorflow.compat.v2.executing_eagerly"})
TRACING_TESTS = frozenset({"tensorflow.inside_function", "tensorflow.compat.v1.inside_function"})

#: Tests of whether a value is a tensor, and what a Function's parameter is in its trace (TF 2.21:
#: tests/runtime/test_tf_is_tensor_facts.py). `tf.Function` converts a tensor, a NumPy array or
#: scalar, and a `tf.data` element (a tensor already) to a graph tensor, and passes a variable as
#: itself; a Python number, list, None or other object stays a Python value. So in the trace
#: `tf.is_tensor(p)` is True exactly when the call passes `p` one of the first kinds (a variable
#: included), and `isinstance(p, tf.Tensor)` the same but False for a variable.
TENSOR_TESTS = frozenset({"tensorflow.is_tensor", "tensorflow.compat.v1.is_tensor", "tensorflow.compat.v2.is_tensor"})
TENSOR_TYPES = frozenset({"tensorflow.Tensor", "tensorflow.compat.v1.Tensor", "tensorflow.compat.v2.Tensor"})
#: What an argument is (`facts.ArgFacts.what`) when the Function sees a tensor for it, by test:
#: "is_tensor" (`tf.is_tensor`) or "isinstance" (`isinstance(p, tf.Tensor)`).
TENSOR_IN_TRACE = {"is_tensor": frozenset({"tensor", "ndarray", "variable"}),
                   "isinstance": frozenset({"tensor", "ndarray"})}
#: What an argument is when the Function sees it as a Python value (`ArgFacts.what`).
PYTHON_IN_TRACE = frozenset({"int", "float", "complex", "str", "bool", "list", "tuple", "dict", "set", "none", "range"})

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

#: Keras (legacy) optimizer methods of slot variables, one per model variable: `add_slot(var,
#: "m")` creates it on the optimizer, `get_slot(var, "m")` fetches it.
KERAS_SLOT_CREATING_METHODS = frozenset({"add_slot"})
KERAS_SLOT_METHODS = KERAS_SLOT_CREATING_METHODS | {"get_slot"}

#: Attributes of Keras models and modules that hold their list of variables.
VARIABLE_LIST_ATTRIBUTES = frozenset({
    "trainable_variables", "variables", "weights", "trainable_weights", "non_trainable_variables",
    "non_trainable_weights",
})

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
#: tf-keras defines both in `legacy_tf_layers/variable_scope_shim.py` and exports them as
#: `tf.compat.v1.keras.utils.*`; its own code and tests import them from that module.
_SHIM_MODULES = ("tf_keras.legacy_tf_layers.variable_scope_shim", "tf_keras.src.legacy_tf_layers.variable_scope_shim")
GET_OR_CREATE_CALLS = frozenset({
    "tensorflow.compat.v1.keras.utils.get_or_create_layer",
    *(f"{m}.get_or_create_layer" for m in _SHIM_MODULES),
})
#: Decorators under which `tf.compat.v1.get_variable` gets the variable of the first call again.
GET_OR_CREATE_DECORATORS = frozenset({
    "tensorflow.compat.v1.keras.utils.track_tf1_style_variables",
    *(f"{m}.track_tf1_style_variables" for m in _SHIM_MODULES),
})
#: Variable constructors that get an existing variable by name when one is tracked. Which
#: variable store is in effect (a shim, a reusing `variable_scope`) decides whether one is made:
#: without any, TF 2.21 raises AttributeError under tf.function (tests/runtime/test_tf_fresh_facts.py).
GET_OR_CREATE_VARIABLES = frozenset({"tensorflow.compat.v1.get_variable"})
#: Scopes whose creator decides what a variable constructor returns: one returning a tensor makes
#: no variable, and tf.function raises nothing (TF 2.21: tests/runtime/test_tf_fresh_facts.py).
VARIABLE_CREATOR_SCOPES = frozenset({
    "tensorflow.variable_creator_scope", "tensorflow.compat.v1.variable_creator_scope",
    "tensorflow.compat.v2.variable_creator_scope",
})

#: `tf.function(f)` returns a new `Function`, and each Function keeps its own traces: made anew,
#: it traces again on its first call whatever it wraps, the same module-level `f` included (5
#: traces in 5 wraps of one `f`, also with every Function kept alive; tf-behaviour.md's "separate
#: Function objects never share traces"); made once per outer iteration and called in an inner
#: loop, it traces once per creation, not per call (3 epochs x 4 calls: 3 traces). A method
#: decorated with `@tf.function` is one Function per instance, however often `self.step` is read
#: (1 trace in 5 reads). Observed with TensorFlow 2.21: tests/runtime/test_function_identity.py.
#: A configured staging decorator is "treated like tf.function" (docs/configuration.md). What a new
#: Function costs is a trace one made before the loop would have saved only where it wraps the same
#: callable every iteration: one made around another model each iteration traces once, as a
#: Function made once and taking the model as an argument does per model (3 models, 3 traces;
#: tests/runtime/test_tf_fifteenth_audit_be_facts.py, `analysis.functions.bound_per_iteration`).
TF_TRACE_CACHE = {"tensorflow.function": "per wrap"}

#: TensorFlow Federated's computation decorators build a serialized computation from the Python
#: body they wrap: given the parameter types (`@tff.tensorflow.computation(MODEL_TYPE, tf.float32)`)
#: they run the body once, when the decorator runs; given none, once per parameter type, on the
#: first call with it (a `PolymorphicComputation` keeps one concrete computation per type, "to be
#: reused for future calls with parameters of a matching type"). A call runs the serialized
#: computation, never the body again (TFF's `custom_federated_algorithms_2` tutorial: "The Python
#: body of `batch_loss` has already been traced and serialized in the above cell where it was
#: defined"; tensorflow.org/federated/api_docs/python/tff/tensorflow/computation). So what the
#: body makes (a `tf.function`, a variable) it makes once per parameter type, whatever the calls
#: (STG502, `analysis.repetition.body_runs_per_call`). Not checked by running: TFF pins an older
#: TensorFlow (0.87.0: 2.14) than the venv's and is not installed here; from its docs and source.
TFF_SERIALIZING_DECORATORS = frozenset({
    "tensorflow_federated.tensorflow.computation", "tensorflow_federated.tf_computation",
    "tensorflow_federated.federated_computation", "federated_language.federated_computation",
    # TFF's own code imports them from their modules
    "tensorflow_federated.python.core.environments.tensorflow_frontend.tensorflow_computation.tf_computation",
    "tensorflow_federated.python.core.impl.tensorflow_context.tensorflow_computation.tf_computation",
    "tensorflow_federated.python.core.impl.federated_context.federated_computation.federated_computation",
})
#: `tf.function` as a decorator (every spelling resolves to this name), checked with TF 2.21
#: (tests/runtime/test_tf_no_reuse_facts.py): on a def in a class body it is one Function per
#: object (`obj.m` binds a copy keyed by the object, with traces of its own; `Base.m(obj, ...)`
#: calls the class's own with the object in its key), and a Python int argument is part of the
#: key also with `reduce_retracing=True`: what `analysis.repetition.no_reuse` rests on. Other
#: staging decorators (TF-Agents' `common.function`, configured ones) were not checked.
TF_FUNCTION_DECORATORS = frozenset({"tensorflow.function"})

#: What keys one Function's traces: each Python argument of the call, by how it is compared (a
#: function by identity, a number, a string or a bool by value), and each tensor argument by its
#: spec. A trace is one distinct tuple of them all, so a Python value that the other Python
#: arguments of the same calls decide adds no trace: `random_apply(func, x, p)` called with
#: `(color_jitter, 0.8)`, `(color_drop, 0.2)`, `(random_blur, 1.0)` traces 3 times with `p` a
#: Python number and 3 times with `p` a tensor; one function with two values of `p`, 3 against 2;
#: an alias of the same function is the same key. A number is no such partner for another number:
#: `(1, 10)` and `(2, 20)` trace twice, once with both as tensors. Observed with TensorFlow 2.21:
#: tests/runtime/test_tf_trace_key_facts.py. The kinds (`facts.ArgFacts`: "function" for a def
#: of the program) whose key decides a Python number beside them (STG501,
#: `analysis.trace_key.decided_beside`): values that stay Python whatever the advice.
TF_TRACE_KEY = {"function": "identity", "str": "value", "bool": "value", "int": "value", "float": "value"}
#: Among them, the kinds a call keeps as Python values (a function cannot be a tensor; a string or
#: a bool is a mode STG501 never asks to pass as one).
TF_TRACE_KEY_PARTNERS = frozenset({"function", "str", "bool"})

#: TensorFlow's stateful random ops with an op-level `seed=`: a Python seed fixed while tracing
#: still gives a new draw on every run of the trace (three calls of a `tf.function` returning
#: `tf.random.uniform([3], seed=s)` give three values: tests/runtime/test_tf_capture_order_facts.py),
#: so a Python draw that only seeds one freezes nothing a call computes. Not the `stateless_*`
#: ops, whose values the seed decides.
STATEFUL_SEEDED_OPS = frozenset({
    *(f"tensorflow.random.{name}" for name in (
        "uniform", "normal", "truncated_normal", "shuffle", "gamma", "poisson", "categorical",
        "uniform_candidate_sampler", "log_uniform_candidate_sampler")),
    *(f"tensorflow.image.random_{name}" for name in (
        "flip_left_right", "flip_up_down", "brightness", "contrast", "hue", "saturation", "crop",
        "jpeg_quality")),
    "tensorflow.nn.dropout",
})
#: TensorFlow's stateless random ops: the `seed=` decides the values, so a Python draw frozen
#: into it repeats them on every run of the trace.
STATELESS_RANDOM_PREFIX = "tensorflow.random.stateless_"

#: TensorFlow / Keras base classes whose `__setattr__` (object tracking) still stores
#: `self.name = value` in the instance's `__dict__`: after `self.encoder = self.encoder()` in
#: `__init__`, `self.encoder(x)` calls the stored object, not the method `encoder` (TF 2.21,
#: Keras 3: tests/runtime/test_tf_shadowing_facts.py runs a keras.Model, a keras Layer and a
#: tf.Module). Keras layer bases are asked by prefix (`KERAS_INSTANCE_DICT_PREFIXES`) and name.
INSTANCE_DICT_BASES = frozenset({"tensorflow.Module"})
KERAS_INSTANCE_DICT_PREFIXES = ("keras.", "tensorflow.keras.")
