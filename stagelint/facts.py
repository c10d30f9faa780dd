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
Target = tuple


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


@dataclass
class ArgFacts:
    """How one argument at a call site looks statically (for parameter tensor-ness, STG501)."""

    #: "tensor", "python" (a literal / Python number), or "unknown"
    kind: str
    #: the literal's source text when kind == "python"
    text: str = ""


@dataclass
class CallSite:
    """A call of a project function, recorded anywhere (module level, tests, other functions)."""

    target: Target
    span: Span
    caller: str | None
    args: list[ArgFacts] = field(default_factory=list)
    kwargs: dict[str, ArgFacts] = field(default_factory=dict)
    in_loop: bool = False


@dataclass
class FunctionFacts:
    qualname: str
    name: str
    span: Span
    class_qualname: str | None = None  # absolute qualified name of the directly enclosing class
    params: list[str] = field(default_factory=list)
    #: params whose default is a Python literal (not tensors: flags such as `training=False`)
    literal_default_params: set[str] = field(default_factory=set)
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
