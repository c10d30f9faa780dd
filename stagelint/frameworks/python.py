"""Python and its standard library, as data: what runs once per trace under any staging (I/O,
draws from `random` and `numpy.random`, the clock), what mutates a container in place.

Observed under `tf.function` with TensorFlow 2.21 (../shared/spec/tf-behaviour.md rows a, i, l)
and under `jax.jit` with jax 0.10.2 (../shared/spec/jax-behaviour.md rows 1-4 and 9).
"""

from __future__ import annotations

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
                      "tensorflow.compat.v1.logging.", "tensorflow.logging.")
#: Of those, the loggers and warnings (module-level functions: `logging.info`, `warnings.warn`,
#: TF1's `tf.compat.v1.logging.info`): each writes a message once per trace, like `print`
#: (tf-behaviour.md row a; tests/runtime/test_tf_retracing_facts.py runs each under
#: `tf.function`), and whether that misleads depends on what the message formats (STG101 judges
#: them on their arguments: a message of Python values describes the trace).
LOGGING_PREFIXES = ("logging.", "absl.logging.", "warnings.", "tensorflow.compat.v1.logging.")
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
#: Of those, the ones that return None on every builtin container and deque (all but `pop`,
#: `popitem`, `setdefault`, `popleft`): a call whose result the code binds is another object's
#: method, as `updates, state = optimizer.update(grads, state)` is optax's pure update (a
#: `GradientTransformation` field returning a new state), not `dict.update`, whose None cannot be
#: unpacked (tests/rules/test_stg3_captures.py checks both with Python and optax).
NONE_RETURNING_MUTATORS = MUTATING_METHODS - {"pop", "popitem", "setdefault", "popleft"}

#: Of those, the ones whose every call changes the container again (a list grows by one more
#: element, a pop takes another): staged code that runs them once per trace, not once per call,
#: leaves the container different from what eager code leaves after the second call (a log with
#: one entry for three steps). The others, repeated with the same arguments (`d.update(k=v)`,
#: `s.add(v)`, `d.setdefault(k, v)`, `clear()`, `sort()`), leave what one call leaves
#: (tests/runtime/test_jax_certainty_facts.py).
PER_CALL_MUTATORS = frozenset({
    "append", "extend", "insert", "appendleft", "extendleft", "pop", "popitem", "popleft", "remove", "reverse",
})

#: Binary operators (libcst's class names, `AddAssign` read as `Add`) whose result, applied again
#: to it with the same operand, changes again: `calls = calls + 1` and `calls += 1` count every
#: call. Not `|`, `&`, `%` (`(x | y) | y == x | y`: a repeated call leaves what one call leaves),
#: nor a call or a boolean operator over the place (`x = normalise(x)`, `x = x and flag`), which
#: may give the same value again (tests/runtime/test_tf_store_facts.py).
REPEAT_CHANGING_OPERATORS = frozenset({
    "Add", "Subtract", "Multiply", "Divide", "FloorDivide", "Power", "MatrixMultiply", "LeftShift", "RightShift",
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
#: Seeding of the module-wide generators -> the prefix of the draws it fixes. Seeded with a
#: literal earlier in the same block, a draw gives the same value on every eager call, so the
#: constant a trace bakes in is what each call would compute (TF 2.21:
#: tests/runtime/test_tf_variable_creation_facts.py).
SEEDING_CALLS = {"numpy.random.seed": "numpy.random.", "random.seed": "random."}
#: Constructors of Python/NumPy random generators: every draw from the object is frozen.
RNG_CONSTRUCTORS = frozenset({
    "numpy.random.default_rng", "numpy.random.Generator", "numpy.random.RandomState",
    "random.Random", "random.SystemRandom",
})
#: Methods of those generators that are not draws.
RNG_NON_DRAW_METHODS = frozenset({
    "seed", "getstate", "setstate", "get_state", "set_state", "spawn", "bit_generator", "jumped",
})

#: `functools.partial(f, ...)`: calling it calls `f` with the remaining arguments; making it calls
#: nothing. `jax.tree_util.Partial` is a subclass (a pytree whose bound arguments are leaves), the
#: same in both (JAX 0.10.2: tests/runtime/test_jax_thirteenth_audit_au_facts.py).
PARTIAL_CALLS = frozenset({"functools.partial", "jax.tree_util.Partial"})
#: The keyword that names the function a host callback runs, where it is not passed first: `callback`
#: for JAX's (`jax.pure_callback`, `jax.debug.callback`, `io_callback`), `func` for TensorFlow's
#: `tf.py_function`, `tf.numpy_function` and `tf.compat.v1.py_func` (their signatures in JAX 0.10.2
#: and TF 2.21, `inspect.signature`).
CALLBACK_FUNCTION_KEYWORDS = frozenset({"callback", "func"})

#: How a test function's name starts by pytest's default collection (`python_functions = "test"`,
#: a prefix), which ipytest applies to a notebook's own functions: a test runner calls one once
#: per test (`walk._notebook_tests`, `analysis.testing`).
TEST_FUNCTION_PREFIX = "test"

#: Decorators (last part) that register a function as a web request handler (Flask, FastAPI,
#: Starlette, aiohttp `routes.get`): it runs once per request, so a Function made in it is made
#: anew for every request (STG502).
REQUEST_HANDLER_DECORATORS = frozenset({"route", "get", "post", "put", "patch", "delete", "websocket",
                                        "api_route"})

#: Classes an `isinstance` test names when a value may be a dict of tensors.
MAPPING_TYPES = frozenset({
    "builtins.dict", "collections.abc.Mapping", "collections.abc.MutableMapping", "typing.Mapping",
    "typing.Dict", "collections.OrderedDict", "collections.Mapping",
})

#: Python container methods: a call of one on a dict of tensors is not a tensor.
CONTAINER_METHODS = frozenset({"keys", "values", "items"})


#: Annotations of a Python container (`List[int]`, `Sequence[str]`, `tuple[int, ...]`): with
#: Python scalars as items (`PYTHON_SCALAR_TYPES`) the parameter holds no tensor under any staging:
#: neither framework turns a list into a tensor or tracer when it is passed (TensorFlow keys a
#: trace on its values, JAX flattens it into its leaves only as arguments of the jitted function
#: itself), so `max(ids)`, `len(ids)` and iteration are Python (tests/rules/test_stg6_graph_python.py:
#: the helper case and the jitted function's own list, both ways).
PYTHON_CONTAINER_TYPES = frozenset({
    "typing.List", "typing.Sequence", "typing.Tuple", "typing.Iterable", "typing.Collection",
    "collections.abc.Sequence", "collections.abc.Iterable", "builtins.list", "builtins.tuple",
})
PYTHON_SCALAR_TYPES = frozenset({"builtins.int", "builtins.str", "builtins.bool"})

#: Builtins that turn their argument into text (`str(x)`, `repr(x)`, `format(x)`): Python runs
#: them on whatever they are given, a traced value's symbolic text included.
PYTHON_TEXT_BUILTINS = frozenset({"builtins.str", "builtins.repr", "builtins.format"})

#: Modules whose functions compute in Python, adding nothing to a graph: a traced function runs
#: them once per trace, as Python (tf-behaviour.md k and l: a loop body's Python runs once per
#: trace; STG305 asks whether a loop's body adds ops).
PYTHON_COMPUTING_MODULES = ("builtins.", "numpy.", "math.", "string.", "re.", "itertools.", "collections.",
                            "functools.", "operator.", "copy.", "logging.", "absl.logging.", "warnings.")
#: Builtins that only show or test a value, whatever it is: given a symbolic tensor, `str`,
#: `repr` and `format` return its description and `isinstance` and `type` its class, with no error
#: and no op added to the graph (TF 2.21, tests/runtime/test_tf_retracing_facts.py): a parameter
#: used only there neither needs its Python value nor a tensor's (STG501 asks it).
PYTHON_SHOWING_CALLS = frozenset({"builtins.str", "builtins.repr", "builtins.format", "builtins.isinstance",
                                  "builtins.type"})
#: Methods of Python values (strings, containers, `TensorShape.as_list`, `float.is_integer`): a
#: call of one adds nothing to a graph.
PYTHON_VALUE_METHODS = frozenset({
    "append", "extend", "insert", "pop", "update", "keys", "values", "items", "get", "setdefault",
    "format", "join", "split", "replace", "strip", "lower", "upper", "startswith", "endswith", "copy",
    "add", "index", "count", "as_list", "is_integer",
})

#: `str` methods that answer a Python bool and that a JAX array does not have (on a tracer they
#: raise AttributeError): their result is never a tracer (JAX 0.10.2:
#: tests/runtime/test_jax_nineteenth_audit_bs_facts.py).
STR_TEST_METHODS = frozenset({
    "startswith", "endswith", "isdigit", "isalpha", "isalnum", "isnumeric", "isdecimal", "isidentifier",
    "islower", "isupper", "isspace", "istitle", "isascii", "isprintable",
})
#: Iterating a mapping's `items()` / `keys()` gives its keys: hashed, so never a tracer (a tracer is
#: unhashable: TypeError; a dict argument's keys are treedef data under jit, the Python objects
#: the caller used; JAX 0.10.2: tests/runtime/test_jax_nineteenth_audit_bs_facts.py).
MAPPING_KEY_ITERATORS = frozenset({"items", "keys"})

#: NumPy's module constants: Python floats (`kd *= 2 * np.pi` multiplies by a number).
NUMPY_FLOAT_CONSTANTS = frozenset({"numpy.pi", "numpy.e", "numpy.inf", "numpy.nan", "numpy.euler_gamma"})
#: Methods of a NumPy array that give a NumPy array (or a NumPy scalar) computed by NumPy: inside a
#: trace they run once, as Python, and add nothing to the graph; the loop of STG503 over the axes
#: of a Python shape list that builds its vectors with them unrolls no op (a symbolic tensor
#: given to one raises instead: `a.dot(t)`; tests/runtime/test_tf_loop_facts.py).
NUMPY_ARRAY_METHODS = frozenset({
    "reshape", "astype", "copy", "transpose", "flatten", "ravel", "squeeze", "swapaxes", "repeat",
    "sum", "mean", "prod", "min", "max", "cumsum", "cumprod", "clip", "round", "conj", "dot", "take",
    "view", "std", "var", "argmax", "argmin", "argsort",
})

#: Builtins that iterate over their (positional) arguments: given a symbolic tensor, each raises
#: OperatorNotAllowedInGraphError as `list(x)` does (tf-behaviour.md j; STG602 asks it).
ITERATING_BUILTINS = frozenset({
    "builtins.list", "builtins.tuple", "builtins.set", "builtins.frozenset", "builtins.sum",
    "builtins.max", "builtins.min", "builtins.sorted", "builtins.any", "builtins.all",
    "builtins.enumerate", "builtins.zip", "builtins.map", "builtins.filter", "builtins.reversed",
    "builtins.iter", "builtins.dict",
})

#: Builtins whose every element is a tuple (`zip` one of the zipped items each, `enumerate` an index
#: and an item): unpacking one (`dets, projs = zip(*pairs)`) binds each name to a tuple, not an
#: iterator, so a `for` over it visits every element on every call
#: (tests/runtime/test_jax_sixteenth_audit_bg_facts.py).
TUPLE_YIELDING_BUILTINS = frozenset({"builtins.zip", "builtins.enumerate"})

#: Calls that make an unhashable object (`hash([])` raises TypeError): as a jitted function's
#: static argument it fails (jax-behaviour.md row 31; STG504 asks it), with what it is called.
UNHASHABLE_BUILTINS = {"builtins.list": "a list", "builtins.dict": "a dict", "builtins.set": "a set",
                       "builtins.bytearray": "a bytearray"}
#: Kinds of value (`tensors.value_of(...).what`) that fail to hash (`hash([])`, `hash({})`,
#: `hash(set())`, a NumPy array's `hash` raise TypeError): as a jitted function's static argument
#: each fails (jax-behaviour.md row 31, tests/runtime/test_jax_certain_steps_facts.py; STG504 asks
#: it), with what it is called.
UNHASHABLE_KINDS = {"list": "a list", "dict": "a dict", "set": "a set", "ndarray": "a NumPy array"}
#: NumPy reductions that, given no `axis` (nor `out` / `keepdims`), return a NumPy scalar
#: (`np.prod([2, 3], dtype=int)` is an `np.int64`): hashable by value, a fine static argument where
#: an ndarray is not (JAX 0.10.2: tests/runtime/test_jax_fifteenth_audit_static_facts.py).
NUMPY_SCALAR_REDUCTIONS = frozenset({
    "numpy.prod", "numpy.sum", "numpy.max", "numpy.min", "numpy.amax", "numpy.amin", "numpy.mean",
    "numpy.median", "numpy.std", "numpy.var", "numpy.argmax", "numpy.argmin", "numpy.count_nonzero",
    "numpy.all", "numpy.any",
})
#: The keywords that make a NumPy reduction return an array.
NUMPY_ARRAY_REDUCTION_KEYWORDS = frozenset({"axis", "out", "keepdims"})
#: The decorator that makes a class a dataclass: unless told `frozen=True` or `unsafe_hash=True`
#: (or `eq=False`), it sets `__hash__` to None, so an instance fails to hash as a static argument
#: (tests/runtime/test_jax_certain_steps_facts.py; STG504 asks it).
DATACLASS_DECORATORS = frozenset({"dataclasses.dataclass"})
#: Bases whose subclasses hash and compare by value, not by identity (a NamedTuple, an enum, a
#: subclass of a built-in immutable): made anew for each call, an equal one still finds the
#: trace a static argument keyed (jax-behaviour.md row 33 is the identity case; STG505 asks it).
HASHED_BY_VALUE_BASES = frozenset({"typing.NamedTuple", "enum.Enum", "enum.IntEnum", "enum.Flag", "enum.IntFlag",
                                   "enum.StrEnum", "builtins.tuple", "builtins.str", "builtins.int",
                                   "builtins.float", "builtins.frozenset", "builtins.bytes"})
#: Annotations of a callable parameter.
CALLABLE_HINTS = frozenset({"builtins.callable", "typing.Callable", "collections.abc.Callable"})

#: Decorators that memoize the function they wrap: its body runs once per distinct argument tuple,
#: and every later call with equal arguments returns the object that first run returned (a
#: `jax.jit` a memoized factory makes is one object per key, whose traces every later call with
#: that key reuses: tests/runtime/test_jax_thirteenth_audit_facts.py).
MEMOIZING_DECORATORS = frozenset({"functools.lru_cache", "functools.cache"})

#: Decorators that bind a def's name to the function itself or to a wrapper that calls it with
#: the arguments it is given, so a call of that name from inside the function runs it again. A
#: decorator not listed here (nor a staging API: `tf.function`, `jax.jit`, which trace the
#: function they wrap) binds the name to an object the analysis does not know: a multiple-dispatch
#: registry (`functools.singledispatch`, plum's `@dispatch`) runs the implementation the
#: arguments' types select, which may be another def of the same name, and so a call that looks
#: recursive need not be (tests/runtime/test_jax_traced_values.py runs one under `jax.jit`).
RECALLING_DECORATORS = frozenset({
    "builtins.staticmethod", "builtins.classmethod", "functools.lru_cache", "functools.cache",
    "functools.wraps", "abc.abstractmethod", "typing.final", "typing.override",
    "typing_extensions.override", "typing_extensions.final",
    # the frameworks' own, which call the function they mark or wrap
    "jax.custom_jvp", "jax.custom_vjp", "jax.named_call", "flax.linen.compact", "flax.linen.nowrap",
    "tensorflow.custom_gradient", "tensorflow.autograph.experimental.do_not_convert",
    "tensorflow.Module.with_name_scope",
})

#: Decorators whose result, stored in a class, is a non-data descriptor (no `__set__`): an
#: instance attribute of the same name is found first (Python's attribute lookup), as for a plain
#: `def`. A `property` (data descriptor) is not: its setter runs on `self.name = ...`, its getter
#: on every read (tests/runtime/test_tf_shadowing_facts.py).
NON_DATA_DECORATORS = frozenset({"builtins.staticmethod", "builtins.classmethod", "abc.abstractmethod"})

#: Library base classes whose `__setattr__` stores `self.name = value` in the instance's
#: `__dict__`, so a later `self.name` reads the value before any method of the class so named:
#: `object`'s own (tests/runtime/test_tf_shadowing_facts.py; the TensorFlow ones:
#: `frameworks.tensorflow.INSTANCE_DICT_BASES`).
INSTANCE_DICT_BASES_PY = frozenset({"builtins.object", "object"})
