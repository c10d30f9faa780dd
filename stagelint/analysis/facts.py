"""What one traversal of one file learns: plain, picklable records.

The per-file phase (parse + one traversal) produces a `ModuleFacts`; the project phase
(`staging.Project`) joins the facts of all files to decide which functions are staged and
which candidate findings stand. Facts hold no libcst nodes, so they can cross process
boundaries and be cached by file content.
"""

from __future__ import annotations

from dataclasses import dataclass, field

#: A call target before project resolution:
#:   ("name", "pkg.mod.func")      a qualified name (absolute; module-local names are prefixed)
#:   ("self", "pkg.mod.Class", "m") `self.m(...)` inside a method of Class
#:   ("super", "pkg.mod.Class", "m") `super().m(...)`
Target = tuple[str, ...]


@dataclass(frozen=True)
class Span:
    line: int
    column: int
    end_line: int
    end_column: int


#: Marks the walk's record of an `if <param>:` on a parameter that defaults to False, None or 0
#: among the conditions on parameters it keeps (`CallEdge.flag`); a condition (`CallEdge.when`)
#: starts with the parameter's name.
FLAG_MARK = "!"

#: The candidate field naming the module constant (`DEBUG = False`, never rebound in its module)
#: whose `if` leaves the candidate's code unrun unless another module writes it (`cfg.DEBUG = True`):
#: the project phase puts the candidate in the preview tier (a guess that nothing does) when no file
#: of the project writes an attribute so named (`walk.module_flag_dead`, `flags.module_flag_fact`).
FLAG_DEAD_FIELD = "_module_flag_off"


@dataclass
class CallEdge:
    target: Target
    span: Span
    #: Under a first-call guard (`if self.v is None:`): runs once, on the first trace.
    guarded: bool = False
    #: "call" for a call, "ref" for a function passed as an argument (tf.cond(pred, f, g)).
    kind: str = "call"
    #: In a branch that never runs while tracing: "" for `if tf.executing_eagerly():`, or the
    #: target of a project predicate the branch depends on (`else:` of `if in_tf_function():`),
    #: decided in the project phase; None otherwise.
    eager_unless: object = None
    #: For a "ref": the target of the call it is handed to (`Solver(callback=f)`), if any.
    into: Target | None = None
    #: For a "ref": how many positional arguments the framework API it is handed to calls it
    #: with, and no keyword (`tf.map_fn(fn, elems)` calls `fn(elem)`: 1;
    #: `frameworks.CALLS_ITS_FUNCTION_WITH`); -1 when not known.
    passes: int = -1
    #: For a "ref": the framework API it is handed to calls it once per element of its input, in
    #: that call (`jax.tree_util.tree_map(f, tree)`: `frameworks.PER_ELEMENT_CALLS`): its name; "" otherwise.
    per_element: str = ""
    #: Under `if <flag>:` on a parameter of the caller whose default is False, None or 0
    #: (`if debug_mode:`): the parameter's name; the call is traced only when a traced call passes
    #: it (`analysis.flags`). "" otherwise.
    flag: str = ""
    #: The conditions on the caller's parameters the call is written under (`flags.param_conditions`:
    #: "verbose|truthy|", after `if scan: return ...` "scan|falsy|"): it is traced only where each
    #: can hold (`flags.traced_reach`).
    when: list[str] = field(default_factory=list)
    #: After a `x.numpy()` in a statement that runs before it on every path through the caller
    #: (`FileContext.after_trace_raising_call`), `x` not known a tensor: that call, and its line
    #: ("`x.numpy()` (line 12)"). Under a trace it raises on a tensor or a variable, so the call is
    #: traced only if `x` is neither (`tracers.after_raising_fact`: a guess). "" otherwise; after
    #: a `.numpy()` of a known tensor the call is in no trace (`eager_unless`).
    after_raising: str = ""
    #: Inside what the caller hands a project function as an argument (a lambda written there,
    #: or, for a "ref", the function named there): ((that call's target, the argument's position
    #: "0", "1", ... or keyword), ...), outermost first. Where that function hands the parameter
    #: to `tf.py_function` (`FunctionFacts.escaped_params`), this runs as Python, not traced.
    within: tuple = ()


@dataclass
class ArgFacts:
    """How one argument at a call site looks statically (for parameter tensor-ness, STG501)."""

    #: "tensor", "python" (a literal / Python number), or "unknown"
    kind: str
    #: the literal's source text when kind == "python"
    text: str = ""
    #: what the value is, as far as the caller shows (`tensors.value_of`): "int", "float", "str",
    #: "bool", "list", "ndarray", "py-iterator", "generator", "data-iterator", "dataset",
    #: "optimizer", "model", "layer", "variable", "object" (an instance of `cls`), or "" (unknown)
    what: str = ""
    #: qualified name of the class the value was constructed from (`SimpleModel()`)
    cls: str = ""
    #: which object it is, for "is it the same object at every call?" (`opt1@12`); "|"-separated
    #: when a loop variable runs over a literal list of objects
    ident: str = ""
    #: which function object it is, for "do two calls pass the same function?"
    #: (`analysis.functions.function_object`): "same:<qualified name>", "new", "attr:<code>", ""
    function: str = ""
    #: the caller's own parameter, passed straight through (so the caller's callers decide)
    param: str = ""
    #: why the value changes between calls: "loop variable `i`", "counter `step`", or ""
    varies: str = ""
    #: a local Python int new at every execution of the call in one run of the caller: a counter
    #: set once before the loops and raised before the call in every iteration (`tensors.rises_every_execution`)
    rises: bool = False
    #: the variables of the enclosing loops the value is computed from, of any kind (`n = (task + 1)
    #: * k` in the body of `for task in ...`: ["task"]): values bound anew with them on each iteration
    from_loops: list[str] = field(default_factory=list)
    #: how many values it takes when it is the variable of an enclosing loop over `range` of
    #: integer literals or a literal tuple/list of numbers (`for axis in range(3)`: 3); 0 when
    #: not known to be a fixed set
    values: int = 0
    #: what the elements are when the value is a list/tuple the caller shows (`[(1, 1)] * 3`:
    #: "tuple"; `[layer_a, layer_b]`: "layer"), "" when unknown or mixed
    elements: str = ""
    #: how the object passed is bound in the caller, when it outlives the caller's call:
    #: "global", "self", "import", "closure", "param" (the caller's own argument), or ""
    root: str = ""
    #: the caller's parameters that make the argument a tensor when they are (`x * 2`: ["x"]),
    #: for the parameter summaries of the callee (`stores.stored_tensor_params`)
    params: list[str] = field(default_factory=list)
    #: the argument's shape changes between executions of a call in a loop
    #: (`analysis.varying_shapes.Variation`), or None: how, and the facts that show it
    shape: Variation | None = None


@dataclass
class Variation:
    """How an argument's shape changes from one execution of its call to the next (STG506)."""

    #: "varies" (a new shape on many executions) or "remainder" (one smaller last batch)
    kind: str
    #: where the change comes from, a phrase for the message ("`ds.padded_batch(32)` pads each
    #: batch to its own longest element")
    source: str = ""
    #: `analysis.proof.fact`s, in the order a reader checks them
    facts: list[list] = field(default_factory=list)
    #: the argument is one part of a loop's element (`x` of `for x, y in ds`): the loop target's
    #: "line:column", the part's index and the number of parts; "" when it is the whole value
    part_of: str = ""
    index: int = 0
    parts: int = 0
    #: for a part, the fact that says whether it is one that changes (heuristic where the code
    #: does not declare the parts' shapes: a call that passes every part sees the change anyway)
    part_fact: list = field(default_factory=list)
    #: for a "remainder": "batch" (a dataset's last batch) or "window" (a slice's last window)
    origin: str = ""


@dataclass
class CallSite:
    """A call of a project function, recorded anywhere (module level, tests, other functions)."""

    target: Target
    span: Span
    caller: str | None
    args: list[ArgFacts] = field(default_factory=list)
    kwargs: dict[str, ArgFacts] = field(default_factory=dict)
    #: the lines of the outermost loop of the calling function around the call (a `for`/`while`
    #: or a comprehension: `walk._repetition_span`), within which the call runs again; None when
    #: the call is in no loop of its function
    loop: Span | None = None
    #: `f.get_concrete_function(...)`: traces with these arguments but is not a call
    concrete: bool = False
    #: the project functions the arguments name, by position ("0", "1", ...) or keyword
    #: (`measure(train, data)`: {"0": train}): a helper calling its parameter calls them
    refs: dict[str, tuple[str, ...]] = field(default_factory=dict)
    #: the caller's own `*args` parameter, forwarded after the positional arguments (`f(*args)`)
    star: str = ""
    #: the call spreads `*xs` or `**kw` into its arguments: which parameters it fills is not shown
    spread: bool = False
    #: the caller's own parameter spread after the positional arguments, alone (`f(*params)`,
    #: `f(a, *params)`; no `**`): the parameters it fills from there on hold its elements
    spread_param: str = ""
    #: the call spreads (`**kw`) the `**kwargs` parameter of its caller or of a function around it,
    #: every other spread resolved into `kwargs` (`spreads.forwarded_kwargs`): (that function's
    #: qualified name, the keys it changes on it); () otherwise. The keywords it passes besides
    #: are those the function's own calls gave it
    kwargs_from: tuple = ()
    #: a call of a name bound to what a call of a project function returned (`step = make_step()`
    #: ... `step(x)`): (the binding's place, "local@<line>:<column>" when the calling function
    #: binds it, "outer@..." otherwise, *the factory's target); () for any other call
    made_by: tuple = ()
    #: a module-level call's branches: ((line of the `if`/`try`, "body"/"else"/"exceptN"), ...) from
    #: the outermost in (`FileContext.branch_paths`); () elsewhere
    branch: tuple = ()

    @property
    def in_loop(self) -> bool:
        """The call runs again in a loop of its caller (the caller's one call repeats it)."""
        return self.loop is not None


@dataclass
class FunctionFacts:
    qualname: str
    name: str
    span: Span
    class_qualname: str | None = None  # absolute qualified name of the directly enclosing class
    params: list[str] = field(default_factory=list)
    #: the positional parameters without a default (`self` included), in order
    required_positional: list[str] = field(default_factory=list)
    #: the `*args` parameter and how many positional parameters come before it or a bare `*`
    #: ("", -1 if neither)
    varargs: str = ""
    varargs_at: int = -1
    #: params with any default: a call that leaves one out binds the default object itself, which no
    #: transformation sees (`def l(z, N=N)` under `jax.jit(l)(z)`: `N` an int, jaxstaging.unpassed_defaults)
    default_params: set[str] = field(default_factory=set)
    #: params whose default is a Python literal (not tensors: flags such as `training=False`)
    literal_default_params: set[str] = field(default_factory=set)
    #: params whose default is a string or a bool (`mode="CONSTANT"`): Python options, never tensors
    python_default_params: set[str] = field(default_factory=set)
    #: params whose default is a scalar literal -> its source (`verbose=False`: "False"), what a
    #: call leaving the parameter out gives it (`flags.param_values`)
    scalar_defaults: dict[str, str] = field(default_factory=dict)
    #: among them, those annotated as a container of Python scalars (`ids: List[int]`): Python
    #: where a caller passes them, but leaves JAX traces where the function is jitted itself
    python_container_params: set[str] = field(default_factory=set)
    #: the class a parameter's annotation names (`time_axis: TimeAxis`), absolute
    param_classes: dict[str, str] = field(default_factory=dict)
    #: params used directly as operands of framework ops (so they are tensors)
    tensor_params: set[str] = field(default_factory=set)
    #: among them, those only an op operand shows: TensorFlow ops take Python numbers too
    #: (`tf.range(1, n + 1)` with `n = x.shape[1]`), so that evidence is a guess
    op_params: set[str] = field(default_factory=set)
    #: "decorator" when a staging decorator sits on the def itself
    staged_by: str | None = None
    #: decorated with an eager escape (tf.py_function): runs eagerly, never traced into.
    escape: bool = False
    #: a notebook's top-level `test*` def its cells call at most once, outside loops: one call per
    #: run, or a test runner's one per test (`walk._notebook_tests`, `analysis.testing`)
    test_run: bool = False
    #: a module-level def its module's top-level code calls in statements of their own outside
    #: any loop, every read of its name there being one of them: how many; 0 otherwise
    #: (`walk._called_once_at_top`; one call per process: `repetition.runs_once`)
    top_calls: int = 0
    #: absolute qualified names of the decorators (project staging wrappers resolve later)
    decorators: list[str] = field(default_factory=list)
    #: body returns `tf.function(<own parameter>)`: the function is itself a staging wrapper
    wraps_param: bool = False
    #: a nested function hands this function's parameter to an eager escape
    #: (`def deco(func): def wrapper(*a): return tf.py_function(func, a, ...)`): what it
    #: decorates runs eagerly, the wrapper is what gets traced
    escapes_param: bool = False
    #: the parameters handed to `tf.py_function` / `numpy_function` as the function it runs,
    #: directly or by a nested def that calls them (`new_py_function(func, ...)`:
    #: `def wrapped(*a): return func(*a)`, `tf.py_function(func=wrapped, ...)`): what a caller
    #: passes there runs as Python, at every execution (`staging.runs_as_python`)
    escaped_params: list[str] = field(default_factory=list)
    calls: list[CallEdge] = field(default_factory=list)
    #: the staging decorator fixes an `input_signature` (Python values cannot retrace it)
    input_signature: bool = False
    #: the staging decorator says `reduce_retracing=True` (shapes are generalised after a retrace)
    relaxed_shapes: bool = False
    #: the staging decorator says `autograph=False` (no conversion of int()/len()/loops)
    autograph: bool = True
    #: the staging decorator may compile with XLA (`jit_compile=` anything but False / None), where
    #: ops XLA lacks (`tf.print`'s PrintV2) fail
    xla: bool = False
    #: how each parameter is used in the body: "tensor" (only where a tensor works the same: op
    #: operands, `tf.range` bounds, `tf.print`), "structure" (Python control flow, `range`, shapes,
    #: other calls), absent when unused (filled by STG501's visitor)
    param_uses: dict[str, str] = field(default_factory=dict)
    #: parameters passed (alone or in an expression) to a JAX function (`jax.random.split(rng,
    #: num)`): it may need the Python value there (a count, a shape, an axis; filled by STG501's visitor)
    param_jax_args: list[str] = field(default_factory=list)
    #: plain attribute reads `(receiver, attribute)`: receiver "self" or a parameter name
    attr_reads: list[tuple[str, str]] = field(default_factory=list)
    #: contains `yield`: calling it makes a generator
    is_generator: bool = False
    #: calls made under a condition (`if`, `while`, `x if c else y`, `a or f()`, a loop's iterable),
    #: by "line:column": each condition the call runs under, as [definitely a tensor, the
    #: parameters it depends on, whether it is a loop's iterable]; an `except` handler's call has
    #: [..., "", how the `try` body raises, its code] (`RecursiveFunction._handler_condition`) (STG401)
    conditional_calls: dict[str, list] = field(default_factory=dict)
    #: returns True while tracing: "yes", or the target of the predicate it defers to (`return
    #: in_tf_function()`), or None (`context.tracing_test`)
    tracing_test: object = None
    #: what its returns are (`analysis.values.Summary`): (a tensor for sure, the parameters that
    #: make it one, the targets of the project functions whose results it returns), or None
    returns: object = None
    #: the `def` every `return` of it returns by name (`def make_step(): @tf.function def step(x):
    #: ...; return step`), or None: a call of what a call of it returns calls that function
    returns_function: Target | None = None
    #: the first TensorFlow state op its own body runs (`v.assign_add(...)`, `tf.print(...)`),
    #: outside `tf.init_scope()`; "" for none (`analysis.effects.project_state_op` follows calls)
    state_op: str = ""
    #: for an `__init__`: the attributes of `self` its body binds, in a statement of its own (not
    #: under an `if`, a loop, a `try`...), to what the method of the same name returns
    #: (`self.encoder = self.encoder()`; not `self.step = tf.function(self.step)`, whose value
    #: calls the method): name -> [end line, end column] of the first such statement;
    #: `analysis.shadowing`
    self_binds: dict[str, list[int]] = field(default_factory=dict)
    #: for an `__init__`: the line of its first `return` (0: none), and of its first call passing
    #: `self` itself as an argument, `X.__init__(self)` apart (0: none): what runs from there on
    #: may not bind, or may read attributes before they are bound (`analysis.shadowing`)
    first_return: int = 0
    self_passed: int = 0

    @property
    def passed_params(self) -> list[str]:
        """The parameters a caller passes values for: all but a method's `self`."""
        return self.params[1:] if self.class_qualname else self.params

    @property
    def positional_params(self) -> list[str]:
        """The parameters a positional argument can bind, in order: all but the keyword-only ones.
        Past them Python binds further positional arguments into `*args`, never into a keyword-only
        parameter (`def step(a, *rest, scale=2.0)` called `step(x, y)` leaves `scale` 2.0:
        tests/rules/test_passed_arguments.py runs it)."""
        return self.params[:self.varargs_at] if self.varargs_at >= 0 else self.params


@dataclass
class AttrWrite:
    """`obj.attr = value` / `obj.attr += value` anywhere in a module (STG302, STG303)."""

    attr: str
    span: Span
    #: the class the object belongs to: the method's class for `self.attr`, the class a name was
    #: constructed from for `model.attr` (`model = SimpleModel()`), "" when unknown
    owner: str
    #: the function holding the write (qualname in its module), None at module level
    function: str | None
    #: inside `__init__`/`build`: sets the attribute up rather than changing it
    in_init: bool
    #: "variable" (a tf.Variable or `add_weight`), "variables" (a list of them), "keras" (a Keras
    #: object), "tensor", "python", "none" or "unknown"
    value: str
    #: source of the write for messages, e.g. "self.bias += 5.0"
    text: str
    augmented: bool = False
    #: receiver is `self` (not another name)
    on_self: bool = False
    #: under a first-call guard (`if self.table is None:`): set once, lazily
    guarded: bool = False
    #: at module level inside a loop: the outermost loop's [first line, last line] (it runs both
    #: before and after the calls in the loop)
    loop: list[int] = field(default_factory=list)
    #: on a name bound to one object in a function: [methods called on it before, after] the
    #: write, in program order (`ModuleFacts.method_calls`' fifth and sixth fields); [] elsewhere
    around: list = field(default_factory=list)
    #: on `self` in `__init__`: what the value is in Flax NNX's terms (`stagelint.analysis.nnx.stored_kind`)
    nnx: str = ""
    #: on `self` in `__init__`: the `__init__` parameter the value is, not rebound before
    #: (`self.debug = debug`), else "" (`flags.attribute_values`)
    param: str = ""


@dataclass
class WrapperBinding:
    """`g = tf.function(f)` / `self.step = tf.function(self._step)`: calling `g` runs a Function."""

    target: Target
    input_signature: bool = False
    relaxed_shapes: bool = False


@dataclass
class DatasetFunction:
    """A function a `tf.data` transformation traces (`ds.map(parse)`, `ds.filter(self._keep)`,
    `ds.map(functools.partial(parse, size=3))`, `ds.map(lambda x: ...)`)."""

    target: Target
    span: Span
    #: parameters `functools.partial` binds: keywords, and how many leading positional ones
    bound: tuple[str, ...] = ()
    bound_positional: int = 0
    #: why its receiver is a dataset only as a guess (`analysis.datasets.dataset_call`), "" when shown
    guess: str = ""
    #: how many positional arguments the dataset's element gives it (its top-level tuple
    #: components: `datasets.element_components`), after what `partial` binds; 0 when not shown
    components: int = 0
    #: the function whose code makes the transformation's call (None at module level), and the
    #: lines of the outermost loop of that code around it (`walk._repetition_span`): each call
    #: traces the function again (`repetition.dataset_traces`)
    caller: str | None = None
    loop: Span | None = None


@dataclass
class JaxStaged:
    """A function a JAX API stages (`@jax.jit`, `jax.jit(f, static_argnums=1)`, the branches of
    `lax.cond`, `@partial(jax.jit, ...)`, `jax.vmap(f)`): `stagelint.analysis.jaxstaging`."""

    target: Target
    span: Span
    #: the staging API's qualified name (`jax.jit`, `jax.lax.scan`, `equinox.filter_jit`)
    api: str
    #: static and donated arguments, as the call spells them
    static_argnums: list[int] = field(default_factory=list)
    static_argnames: list[str] = field(default_factory=list)
    donate_argnums: list[int] = field(default_factory=list)
    donate_argnames: list[str] = field(default_factory=list)
    #: `jax.vmap(f, in_axes=(0, None))`: the positions passed unbatched (Python values under vmap
    #: alone); `jax.shard_map(f, in_specs=(P("x"), None))`: those passed unsharded, as given
    unmapped: list[int] = field(default_factory=list)
    #: what `functools.partial` binds in `jax.jit(partial(f, ...))`: keywords, leading positionals
    bound: list[str] = field(default_factory=list)
    bound_positional: int = 0
    #: of those keywords, the ones bound to a literal -> its source (`partial(f, use_scan=True)`)
    bound_literals: dict[str, str] = field(default_factory=dict)
    #: a decorator on the def (not a call)
    decorator: bool = False
    #: `jax.grad(f, argnums=(0, 2))`: the positions a differentiating API traces, as spelled;
    #: None where the call does not say (its default, the first), [] where it is not a literal
    argnums: list[int] | None = None
    #: a wrapper bound by an assignment that nothing reads (`jaxstaging.mark_uncalled`): "never"
    #: (a local name its function never reads), "module" (an attribute nothing in its module
    #: reads), "importers" (a module-level name nothing in its module reads: called only if a
    #: module importing it calls it, `JaxView`), "" (read, or not bound by an assignment)
    uncalled: str = ""
    #: for "importers": the name the wrapper is bound to
    binding: str = ""
    #: neither a decorator nor a wrapper bound by an assignment (`jax.jit(f)(x, 5)`, a `lax`
    #: body, `minimize(jax.jit(f))`): what its calls pass is not shown as call sites
    inline: bool = False
    #: a wrapper bound by an assignment to a local name of a function, every read of which is a
    #: call the file records (`compiled = jax.jit(f)` ... `compiled(x, n=2)`): its calls all show
    calls_shown: bool = False


@dataclass
class ClassFacts:
    qualname: str  # absolute
    bases: list[str] = field(default_factory=list)  # absolute qualified names
    span: Span | None = None
    #: Flax NNX attribute kinds the class body declares (`x: int = nnx.static()`, `y: nnx.Data[...]`)
    nnx_fields: dict[str, str] = field(default_factory=dict)
    #: how the file registers the class as a pytree (`analysis.pytrees`): "registered" (its
    #: flattening is spelled out: `pytree_static` are aux data, `pytree_children` traced),
    #: "static" (`register_static`: nothing traced), "unknown" (registered, flattening not
    #: followed), or "" (not registered here; annotated fields of an Equinox module or Flax
    #: struct base are still listed: a project base decides)
    pytree: str = ""
    pytree_static: list[str] = field(default_factory=list)
    pytree_children: list[str] = field(default_factory=list)
    #: where the flattening is spelled (`tree_flatten`'s def, the flatten function; the class
    #: statement for declared fields), for the proof a finding carries
    pytree_line: int = 0
    #: properties computed in Python from attributes of `self` alone: name -> those attributes
    pytree_derived: dict[str, list[str]] = field(default_factory=dict)
    #: methods taking `self` alone whose every return is a Python int whatever the object holds
    #: (`return len(self.link_names)`): name -> the [class, method] pairs they return the result
    #: of (`self.params.number_of_links()`), each to be one too (`analysis.pytrees`)
    python_int_methods: dict[str, list] = field(default_factory=dict)
    #: where the class's own `__init__` passes `dynamic=True` to its Keras base (0: it does not), and
    #: whether that True is a default its constructor's caller may override
    #: (`analysis.eagerswitch.keras_dynamic`)
    dynamic_line: int = 0
    dynamic_default: bool = False
    #: the module rebinds the class's name before anything reads the class through it
    #: (`analysis.rebinding`): no code reaches the class object, so none of its methods runs
    superseded: bool = False


@dataclass
class Candidate:
    """A finding that stands if its function is staged (and the rule's `confirm` agrees)."""

    code: str
    function: str | None  # qualname inside the module; None at module level
    span: Span
    fields: dict = field(default_factory=dict)


@dataclass
class ModuleFacts:
    path: str
    module: str
    is_package: bool = False
    functions: dict[str, FunctionFacts] = field(default_factory=dict)
    classes: dict[str, ClassFacts] = field(default_factory=dict)
    #: targets of wrapper calls `g = tf.function(f)`, `self.step = tf.function(self._step)`
    wrapped: list[Target] = field(default_factory=list)
    #: calls of possibly-project functions, for call-site analysis
    call_sites: list[CallSite] = field(default_factory=list)
    #: import aliases at module level: local name -> absolute qualified name (re-exports)
    imports: dict[str, str] = field(default_factory=dict)
    #: the modules a module-level `from m import *` names (absolute): every public name of `m`
    #: is imported, which `imports` does not list
    star_from: list[str] = field(default_factory=list)
    candidates: list[Candidate] = field(default_factory=list)
    #: names bound to a Function made by a wrapper call, by the call-site target they appear as:
    #: "name:pkg.mod.g" or "self:pkg.mod.Class:step"
    wrapper_bindings: dict[str, WrapperBinding] = field(default_factory=dict)
    #: wrapper targets staged only through one-shot wrappers (`tf.function(f)(x)`,
    #: `tf.function(f).get_concrete_function(...)`): each use traces afresh
    fresh_wrapped: list[Target] = field(default_factory=list)
    #: names bound at module level to a ConcreteFunction, `traced = f.get_concrete_function(x)`:
    #: "pkg.mod.traced" -> the target traced (calling it runs that trace: program order)
    concrete_bindings: dict[str, Target] = field(default_factory=dict)
    #: module-level calls of a method on an object of a known class (`m.configure(2.0)`,
    #: `m(x)`): [line, class qualified name, method], for program order (`analysis.order`)
    object_calls: list[tuple[int, str, str]] = field(default_factory=list)
    #: calls of a method on a name bound to an object of a known class, in any scope
    #: (`est.prepare(data)`, `attn(x)`): (calling function or None, class qualified name, method,
    #: fresh: the scope just constructed the object and nothing used it before, in this loop turn,
    #: then the methods called on the same object before and after it in program order, and the
    #: call's span)
    method_calls: list[tuple] = field(default_factory=list)

    #: attributes read other than as the callee of a recorded call site (`agents[0].update(...)`,
    #: `fn = obj.update`, `tf.keras`): name -> the lines (a method so named may be called where
    #: `call_sites` does not show it: `repetition._sites_by_name`). `__init__` read inside an
    #: `__init__` is left out: a base's set-up of the object being made (`Layer.__init__(self)`).
    uncalled_attribute_reads: dict[str, list[int]] = field(default_factory=dict)

    #: calls of Keras step and training methods (`model.train_step(b)`, `model.fit(...)`):
    #: (method, receiver's class or "", receiver's ident or "", calling function or None)
    keras_drives: list[tuple] = field(default_factory=list)
    #: functions `tf.data` transformations trace (point 6 of issue 11)
    dataset_functions: list[DatasetFunction] = field(default_factory=list)
    #: functions JAX APIs stage (issue 14, `stagelint.analysis.jaxstaging`)
    jax_staged: list[JaxStaged] = field(default_factory=list)
    #: `model.apply(...)`, `Model().init(...)`, `jax.jit(model.apply)`: (calling function's
    #: qualname, `jaxstaging.APPLY_MARK` for a jitted runner, or None at module level; the
    #: receiver's class qualified name or "" when the file does not show it)
    linen_runs: list[tuple] = field(default_factory=list)
    #: attribute writes, for "is this attribute reassigned anywhere?" (STG302, STG303)
    attr_writes: list[AttrWrite] = field(default_factory=list)
    #: module constants (`DEBUG = False`) whose `if` leaves a candidate of the module unrun
    #: (`facts.FLAG_DEAD_FIELD`): a file writing an attribute so named is demanded
    flag_constants: list[str] = field(default_factory=list)
    #: the module makes hijax Flax NNX Variables (`nnx.var_defaults(hijax=True)`, `hijax=True`)
    nnx_hijax: bool = False
    #: objects built (optimizer/model variables created) outside staged code: ident -> first line
    built: dict[str, int] = field(default_factory=dict)
    #: objects whose variables all exist once they are made where `tf.keras` is Keras 3 (a
    #: `tf.keras.optimizers.SGD` without momentum: `frameworks.tensorflow.optimizer_built_at_construction`),
    #: not under Keras 2: ident -> first line
    built_if_keras3: dict[str, int] = field(default_factory=dict)
    #: the module's events for `tf.config.run_functions_eagerly` (`analysis.eagerswitch`), in module
    #: order: (line, "import", dotted name) for its unconditional module-level imports, (line, "on",
    #: "") where module-level code sets the switch True, (0, "off", "") where code sets it another way,
    #: (0, "traces", "") where it traces Functions whatever the switch says: the fact is unknown;
    #: last, (line, "driver", name) for a function setting it first and (line, "calls", "") at the
    #: first module-level call (`eagerswitch.driver_eager_entries`)
    eager_switch: list[tuple[int, str, str]] = field(default_factory=list)
    #: (rule code, short traceback) for rules that raised on this file; their other
    #: candidates from the file are dropped, every other rule's stand.
    errors: list[tuple[str, str]] = field(default_factory=list)


# Definitions by location -----------------------------------------------------------------------


def moved_name(name: str, old: str, new: str) -> str:
    """`name` with its leading dotted part `old` replaced by `new` (`f.<locals>.g` -> `f@3.<locals>.g`)."""
    if name == old:
        return new
    if name.startswith(old + "."):
        return new + name[len(old):]
    return name


def _moved_target(target, absolute_old: str, absolute_new: str):
    if not isinstance(target, tuple) or len(target) < 2:
        return target
    if target[0] == "name":
        return ("name", moved_name(target[1], absolute_old, absolute_new), *target[2:])
    if target[0] in ("self", "super"):
        return (target[0], moved_name(target[1], absolute_old, absolute_new), *target[2:])
    return target


def _retarget_function(f: FunctionFacts, target) -> None:
    """The call targets a function's facts hold, passed through `target` (a definition moved)."""
    for edge in f.calls:
        edge.target = target(edge.target)
        if isinstance(edge.eager_unless, tuple):
            edge.eager_unless = target(edge.eager_unless)
    if isinstance(f.tracing_test, tuple):
        f.tracing_test = target(f.tracing_test)
    if f.returns:
        f.returns = (f.returns[0], f.returns[1], [list(target(tuple(c))) for c in f.returns[2]])
    if f.returns_function is not None:
        f.returns_function = target(tuple(f.returns_function))


def relocate(facts: ModuleFacts, old: str, new: str, module: str) -> None:
    """Move the module-level definition `old` (a function or class, and what is nested in it)
    to the name `new`, in every fact of the module recorded so far that names it."""
    absolute_old = f"{module}.{old}" if module else old
    absolute_new = f"{module}.{new}" if module else new

    def target(t):
        return _moved_target(t, absolute_old, absolute_new)

    functions = {}
    for q, f in facts.functions.items():
        q2 = moved_name(q, old, new)
        f.qualname = q2
        if f.class_qualname:
            f.class_qualname = moved_name(f.class_qualname, absolute_old, absolute_new)
        f.param_classes = {p: moved_name(c, absolute_old, absolute_new) for p, c in f.param_classes.items()}
        _retarget_function(f, target)
        functions[q2] = f
    facts.functions = functions
    classes = {}
    for q, c in facts.classes.items():
        q2 = moved_name(q, absolute_old, absolute_new)
        c.qualname = q2
        c.bases = [moved_name(b, absolute_old, absolute_new) for b in c.bases]
        classes[q2] = c
    facts.classes = classes
    facts.wrapped = [target(t) for t in facts.wrapped]
    facts.concrete_bindings = {k: target(t) for k, t in facts.concrete_bindings.items()}
    facts.object_calls = [(line, moved_name(cls, absolute_old, absolute_new), method)
                          for line, cls, method in facts.object_calls]
    facts.method_calls = [(caller, moved_name(cls, absolute_old, absolute_new), method, *rest)
                          for caller, cls, method, *rest in facts.method_calls]
    facts.fresh_wrapped = [target(t) for t in facts.fresh_wrapped]
    for d in facts.dataset_functions:
        d.target = target(d.target)
    for j in facts.jax_staged:
        j.target = target(j.target)
    facts.keras_drives = [(method, moved_name(cls, absolute_old, absolute_new) if cls else cls, ident,
                           moved_name(caller, old, new) if caller is not None else None)
                          for method, cls, ident, caller in facts.keras_drives]
    facts.linen_runs = [(moved_name(caller, old, new) if caller and caller[0] != "<" else caller,
                         moved_name(cls, absolute_old, absolute_new) if cls else cls)
                        for caller, cls in facts.linen_runs]
    for site in facts.call_sites:
        site.target = target(site.target)
        site.refs = {k: target(tuple(t)) for k, t in site.refs.items()}
        if site.made_by:
            site.made_by = (site.made_by[0], *target(tuple(site.made_by[1:])))
        if site.caller is not None:
            site.caller = moved_name(site.caller, old, new)
    bindings = {}
    for key, binding in facts.wrapper_bindings.items():
        kind, _, rest = key.partition(":")
        if kind == "name":
            key = "name:" + moved_name(rest, absolute_old, absolute_new)
        elif kind == "self":
            cls, _, attr = rest.rpartition(":")
            key = f"self:{moved_name(cls, absolute_old, absolute_new)}:{attr}"
        binding.target = target(binding.target)
        bindings[key] = binding
    facts.wrapper_bindings = bindings
    for w in facts.attr_writes:
        w.owner = moved_name(w.owner, absolute_old, absolute_new)
        if w.nnx.startswith("class:"):
            w.nnx = "class:" + moved_name(w.nnx[6:], absolute_old, absolute_new)
        if w.function is not None:
            w.function = moved_name(w.function, old, new)
    for c in facts.candidates:
        if c.function is not None:
            c.function = moved_name(c.function, old, new)
        if c.fields.get("_eager_unless"):
            c.fields["_eager_unless"] = [list(target(tuple(t))) for t in c.fields["_eager_unless"]]


# Module identity -------------------------------------------------------------------------------


def disambiguate(modules: list[ModuleFacts]) -> None:
    """Files that would have the same dotted name (`a/model.py` and `b/model.py`, folders without
    `__init__.py`) get names that include their folders (`a.model`, `b.model`), in place, so one's
    facts do not hide the other's. The name is a function of the path alone: a later round of
    analysis that adds another `model.py` renames only that one. Imports of `model` then resolve
    to the file nearest the importer (`Project`)."""
    groups: dict[str, dict[str, ModuleFacts]] = {}
    for m in modules:
        original = m.__dict__.setdefault("dotted", m.module)
        groups.setdefault(original, {})[m.path] = m
    for original, by_path in groups.items():
        if len(by_path) < 2 or not original:
            continue
        for path, m in by_path.items():
            new = _path_name(path, original)
            if new != m.module:
                rename_module(m, m.module, new)


def _path_name(path: str, dotted: str) -> str:
    import os

    rel = os.path.relpath(os.path.abspath(path))
    parts = rel.replace(os.sep, "/").split("/")
    if parts and parts[0] == "..":
        parts = os.path.abspath(path).replace(os.sep, "/").strip("/").split("/")
    folders = [p.replace(".", "_") for p in parts[:-1] if p not in ("", ".")]
    # the folders above the packages the dotted name already spells
    spelled = dotted.count(".") + (1 if parts[-1] == "__init__.py" else 0)
    above = folders[: max(0, len(folders) - spelled)]
    return ".".join([*above, dotted]) if above else dotted


def rename_module(facts: ModuleFacts, old: str, new: str) -> None:
    """Every absolute name of the module `old` in its facts becomes one of `new`."""
    def name(q):
        return moved_name(q, old, new) if isinstance(q, str) else q

    def target(t):
        return _moved_target(tuple(t), old, new) if isinstance(t, (tuple, list)) and t else t

    facts.module = new
    for f in facts.functions.values():
        if f.class_qualname:
            f.class_qualname = name(f.class_qualname)
        f.decorators = [name(d) for d in f.decorators]
        f.param_classes = {p: name(c) for p, c in f.param_classes.items()}
        _retarget_function(f, target)
    classes = {}
    for q, c in facts.classes.items():
        c.qualname = name(c.qualname)
        c.bases = [name(b) for b in c.bases]
        classes[name(q)] = c
    facts.classes = classes
    facts.wrapped = [target(t) for t in facts.wrapped]
    facts.fresh_wrapped = [target(t) for t in facts.fresh_wrapped]
    facts.concrete_bindings = {name(k): target(t) for k, t in facts.concrete_bindings.items()}
    facts.object_calls = [(line, name(cls), method) for line, cls, method in facts.object_calls]
    facts.method_calls = [(caller, name(cls), method, *rest) for caller, cls, method, *rest in facts.method_calls]
    for d in facts.dataset_functions:
        d.target = target(d.target)
    # what JAX stages (`@jax.jit`, `jax.grad(f)`): renamed with the rest, or the two files'
    # same-named functions would share one record (one file's `@jax.jit` staging the other's
    # function, which then counts as staged by neither framework's JAX view)
    for j in facts.jax_staged:
        j.target = target(j.target)
    facts.linen_runs = [(caller, name(cls) if cls else cls) for caller, cls in facts.linen_runs]
    facts.keras_drives = [(method, name(cls), ident, caller) for method, cls, ident, caller in facts.keras_drives]
    for site in facts.call_sites:
        site.target = target(site.target)
        site.refs = {k: target(tuple(t)) for k, t in site.refs.items()}
        if site.made_by:
            site.made_by = (site.made_by[0], *target(tuple(site.made_by[1:])))
        for arg in [*site.args, *site.kwargs.values()]:
            arg.cls = name(arg.cls)
    bindings = {}
    for key, binding in facts.wrapper_bindings.items():
        kind, _, rest = key.partition(":")
        if kind == "name":
            key = "name:" + name(rest)
        elif kind == "self":
            cls, _, attr = rest.rpartition(":")
            key = f"self:{name(cls)}:{attr}"
        binding.target = target(binding.target)
        bindings[key] = binding
    facts.wrapper_bindings = bindings
    facts.imports = {k: name(v) for k, v in facts.imports.items()}
    facts.star_from = [name(m) for m in facts.star_from]
    facts.eager_switch = [(line, kind, name(n)) for line, kind, n in facts.eager_switch]
    for w in facts.attr_writes:
        w.owner = name(w.owner)
        if w.nnx.startswith("class:"):
            w.nnx = "class:" + name(w.nnx[6:])
    for c in facts.candidates:
        fields = c.fields
        if fields.get("_anchors"):
            fields["_anchors"] = [[new if a[0] == old else a[0], a[1]] for a in fields["_anchors"]]
        if fields.get("_calls"):
            fields["_calls"] = [list(target(t)) for t in fields["_calls"]]
        if fields.get("_eager_unless"):
            fields["_eager_unless"] = [list(target(tuple(t))) for t in fields["_eager_unless"]]
        if isinstance(fields.get("_cls"), str):
            fields["_cls"] = name(fields["_cls"])
