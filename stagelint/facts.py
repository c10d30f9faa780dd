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
    #: the caller's own parameter, passed straight through (so the caller's callers decide)
    param: str = ""
    #: why the value changes between calls: "loop variable `i`", "counter `step`", or ""
    varies: str = ""
    #: what the elements are when the value is a list/tuple the caller shows (`[(1, 1)] * 3`:
    #: "tuple"; `[layer_a, layer_b]`: "layer"), "" when unknown or mixed
    elements: str = ""


@dataclass
class CallSite:
    """A call of a project function, recorded anywhere (module level, tests, other functions)."""

    target: Target
    span: Span
    caller: str | None
    args: list[ArgFacts] = field(default_factory=list)
    kwargs: dict[str, ArgFacts] = field(default_factory=dict)
    in_loop: bool = False
    #: `f.get_concrete_function(...)`: traces with these arguments but is not a call
    concrete: bool = False


@dataclass
class FunctionFacts:
    qualname: str
    name: str
    span: Span
    class_qualname: str | None = None  # absolute qualified name of the directly enclosing class
    params: list[str] = field(default_factory=list)
    #: params whose default is a Python literal (not tensors: flags such as `training=False`)
    literal_default_params: set[str] = field(default_factory=set)
    #: params whose default is a string or a bool (`mode="CONSTANT"`): Python options, never tensors
    python_default_params: set[str] = field(default_factory=set)
    #: params used directly as operands of framework ops (so they are tensors)
    tensor_params: set[str] = field(default_factory=set)
    #: "decorator" when a staging decorator sits on the def itself
    staged_by: str | None = None
    #: decorated with an eager escape (tf.py_function): runs eagerly, never traced into.
    escape: bool = False
    #: absolute qualified names of the decorators (project staging wrappers resolve later)
    decorators: list[str] = field(default_factory=list)
    #: body returns `tf.function(<own parameter>)`: the function is itself a staging wrapper
    wraps_param: bool = False
    calls: list[CallEdge] = field(default_factory=list)
    #: the staging decorator fixes an `input_signature` (Python values cannot retrace it)
    input_signature: bool = False
    #: the staging decorator says `autograph=False` (no conversion of int()/len()/loops)
    autograph: bool = True
    #: how each parameter is used in the body: "tensor" (only where a tensor works the same: op
    #: operands, `tf.range` bounds, `tf.print`), "structure" (Python control flow, `range`, shapes,
    #: other calls), absent when unused (filled by STG501's visitor)
    param_uses: dict[str, str] = field(default_factory=dict)
    #: plain attribute reads `(receiver, attribute)`: receiver "self" or a parameter name
    attr_reads: list[tuple[str, str]] = field(default_factory=list)
    #: contains `yield`: calling it makes a generator
    is_generator: bool = False
    #: calls made under a condition (`if`, `while`, `x if c else y`, `a or f()`), by "line:column":
    #: [the condition is definitely a tensor, parameters it depends on] (filled by STG401)
    conditional_calls: dict[str, list] = field(default_factory=dict)
    #: returns True while tracing: "yes", or the target of the predicate it defers to (`return
    #: in_tf_function()`), or None (`context.tracing_test`)
    tracing_test: object = None


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


@dataclass
class WrapperBinding:
    """`g = tf.function(f)` / `self.step = tf.function(self._step)`: calling `g` runs a Function."""

    target: Target
    input_signature: bool = False


@dataclass
class ClassFacts:
    qualname: str  # absolute
    bases: list[str] = field(default_factory=list)  # absolute qualified names
    span: Span | None = None


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
    candidates: list[Candidate] = field(default_factory=list)
    #: names bound to a Function made by a wrapper call, by the call-site target they appear as:
    #: "name:pkg.mod.g" or "self:pkg.mod.Class:step"
    wrapper_bindings: dict[str, WrapperBinding] = field(default_factory=dict)
    #: wrapper targets staged only through one-shot wrappers (`tf.function(f)(x)`,
    #: `tf.function(f).get_concrete_function(...)`): each use traces afresh
    fresh_wrapped: list[Target] = field(default_factory=list)
    #: attribute writes, for "is this attribute reassigned anywhere?" (STG302, STG303)
    attr_writes: list[AttrWrite] = field(default_factory=list)
    #: objects built (optimizer/model variables created) outside staged code: ident -> first line
    built: dict[str, int] = field(default_factory=dict)
    #: (rule code, short traceback) for rules that raised on this file; their other
    #: candidates from the file are dropped, every other rule's stand.
    errors: list[tuple[str, str]] = field(default_factory=list)
