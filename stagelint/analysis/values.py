"""One abstract value per expression, and what each function does with values (its summary).

The lattice is small: what a rule needs to decide whether something is a pitfall.

    tensor      one (symbolic, under staging) tensor
    tensors     a Python tuple/list of tensors (`tf.unique(x)`, `tf.audio.decode_wav(b)`): unpacking
                and iterating it is plain Python
    nest        a tensor or a structure of tensors (an element of a dataset): not known to be one
    constant    a Python value that is the same at every call (a literal, a module constant)
    varying     a Python number that changes from call to call at a call site (a loop variable, an
                `enumerate` index, a counter, a value computed from one)
    function    a Python function or a Function
    variable    a `tf.Variable`
    keras       a Keras object (model, layer, metric, loss, optimizer): calling a model, layer,
                loss or metric gives a tensor
    iterator    a Python iterator or generator, or a `tf.data` iterator (`what` tells which)
    file        an open Python file object: its methods are Python I/O
    dataset     a `tf.data.Dataset`
    unknown     anything else; `params` then names the parameters that would make it a tensor

It is read off the per-file inferences of `stagelint.analysis.tensors` (tensor-ness, memoised per node,
and `value_of`'s finer kinds) and adds what those leave out: call results. A call of a Keras
object is a tensor; a call of a function of the same file is what that function's summary
returns (a tensor, or a tensor when the arguments for some of its parameters are); a call of a
project function elsewhere is decided in the project phase (`Summaries`), where every function's
summary is known and "returns a tensor" is computed to a fixpoint over the call graph.
"""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from stagelint.analysis.literals import keyword_constant
from stagelint.analysis.memo import once
from stagelint.frameworks import PYTHON_TEXT_BUILTINS
from stagelint.analysis.tensors import CALLABLE_KERAS, Summary, list_tout, summarise_returns  # noqa: F401 (the value model's names)

TENSOR, TENSORS, NEST, CONSTANT, VARYING = "tensor", "tensors", "nest", "constant", "varying"
FUNCTION, VARIABLE, KERAS, ITERATOR, FILE, DATASET, UNKNOWN = (
    "function", "variable", "keras", "iterator", "file", "dataset", "unknown")

#: `tensors.Value.what` -> lattice kind (numbers become "varying" when a call site shows they change).
_KINDS = {
    "tensor": TENSOR, "nest": NEST, "int": CONSTANT, "float": CONSTANT, "complex": CONSTANT, "str": CONSTANT,
    "bool": CONSTANT, "none": CONSTANT, "range": CONSTANT, "function": FUNCTION, "class": FUNCTION,
    "variable": VARIABLE, "model": KERAS, "layer": KERAS, "metric": KERAS, "loss": KERAS, "optimizer": KERAS,
    "py-iterator": ITERATOR, "generator": ITERATOR, "data-iterator": ITERATOR, "file": FILE, "dataset": DATASET,
}
#: Methods of open file objects (Python I/O, STG101).
FILE_METHODS = frozenset({"read", "readline", "readlines", "write", "writelines", "flush", "seek", "truncate"})


@dataclass(frozen=True)
class AbstractValue:
    kind: str = UNKNOWN
    #: the finer kind (`tensors.Value.what`): "int", "list", "model", "data-iterator", ...
    what: str = ""
    #: parameters of the enclosing function that make it a tensor when they are tensors
    params: frozenset = frozenset()
    #: why a Python number changes between calls ("loop variable `i`"), "" otherwise
    varies: str = ""


def abstract(ctx, expr: cst.BaseExpression, func=None, loops: tuple = ()) -> AbstractValue:
    """The abstract value of `expr` in `func` (inside `loops`, for call sites)."""
    from stagelint.analysis.tensors import why_varies, tensorness, value_of

    value = value_of(ctx, expr, func)
    t = tensorness(ctx, expr, func)
    what = value.what
    if what in ("list", "tuple"):
        from stagelint.analysis.tensors import element_kind

        elements = element_kind(ctx, expr, func)
        kind = TENSORS if elements == "tensor" or _multi_output(ctx, expr) else CONSTANT if elements else UNKNOWN
        return AbstractValue(kind, what)
    kind = _KINDS.get(what)
    if kind is None:
        kind = TENSOR if t.definite else UNKNOWN
    varies = why_varies(ctx, expr, func, loops) if kind == CONSTANT and loops is not None else ""
    if varies:
        kind = VARYING
    return AbstractValue(kind, what, t.params, varies)


def _multi_output(ctx, expr) -> bool:
    from stagelint.frameworks import MULTI_OUTPUT_OPS, canonical_tf_name

    return isinstance(expr, cst.Call) and any(
        canonical_tf_name(q) in MULTI_OUTPUT_OPS or list_tout(expr, q) for q in ctx.qualified_names(expr.func))


# Per-function summaries ---------------------------------------------------------------------------


class Summaries:
    """Project phase: does a project function return a tensor? To a fixpoint over the call
    graph: a function returns one when its own returns are (`Summary.definite`) or when a project
    function whose result it returns does. Each function is settled once per change of one of
    its callees, a worklist over reverse edges: linear in the edges of the return graph."""

    def __init__(self, project):
        self.project = project
        self.returns: set = set()
        deps: dict = {}
        todo = []
        for name, m in project.modules.items():
            for q, f in m.functions.items():
                summary = getattr(f, "returns", None)
                if not summary:
                    continue
                key = (name, q)
                definite, _params, calls = summary
                if definite:
                    self.returns.add(key)
                    todo.append(key)
                for target in calls:
                    if tuple(target) == KERAS_RESULT:
                        self.returns.add(key)
                        todo.append(key)
                        continue
                    callee = project.resolve(name, tuple(target))
                    if callee is not None:
                        deps.setdefault(callee, []).append(key)
        while todo:
            key = todo.pop()
            for caller in deps.get(key, ()):
                if caller not in self.returns:
                    self.returns.add(caller)
                    todo.append(caller)

    def returns_tensor(self, module: str, target) -> bool:
        key = self.project.resolve(module, tuple(target))
        return key is not None and key in self.returns


def summaries(project) -> Summaries:
    """The project's summaries, computed once per project."""
    return once(project, "_summaries", lambda: Summaries(project))


#: The pseudo-target of a Keras layer's or model's call result (`tensors.KERAS_CALL`).
KERAS_RESULT = ("keras",)


def calls_return_tensor(project, module: str, calls) -> bool:
    """One of the project functions whose results a value is made of returns a tensor (or it is
    what a Keras layer or model returned)."""
    if not calls:
        return False
    if any(tuple(c) == KERAS_RESULT for c in calls):
        return True
    s = summaries(project)
    return any(s.returns_tensor(module, target) for target in calls if tuple(target) != KERAS_RESULT)


# Questions the rules ask --------------------------------------------------------------------------
# Rules ask these rather than reading `value_of(...).what` or re-deriving tensor-ness themselves.

#: Finer kinds of Python structures (`tensors.Value.what`): never one tensor, whatever they hold.
STRUCTURES = frozenset({"list", "tuple", "dict", "set", "str", "range", "nest"})


def kind_of(ctx, expr: cst.BaseExpression, func=None) -> str:
    """The lattice kind of `expr` as far as its bindings show (a variable, a file, a Keras object,
    a dataset, a Python constant, ...), without the tensor inference `abstract` adds: cheap."""
    from stagelint.analysis.tensors import value_of

    return _KINDS.get(value_of(ctx, expr, func).what, UNKNOWN)


def one_tensor(ctx, expr: cst.BaseExpression, func):
    """Tensor-ness (`tensors.Tensorness`) of `expr` as one tensor, not a Python structure of
    tensors (`tf.unstack(x)`, `[a, b]`, a name sometimes bound to a list, a parameter the function
    tests with `isinstance(x, (list, tuple))`): iterating or testing such a value is plain Python."""
    from stagelint.analysis.tensors import Tensorness, tensorness, value_of

    if value_of(ctx, expr, func).what in STRUCTURES:
        return Tensorness()
    if isinstance(expr, cst.Name):
        if expr.value in func.sequence_names:
            return Tensorness()
        for b in ctx.bindings_of(expr):
            bound = ctx.bound_values.get(id(getattr(b, "node", None)))
            if bound is not None and value_of(ctx, bound, func).what in STRUCTURES:
                return Tensorness()  # sometimes a list (`x = [x]`): iterating it may be fine
    t = tensorness(ctx, expr, func)
    # `narrow.items()` after `isinstance(narrow, Mapping)`: the parameter is a structure
    return Tensorness(t.definite, t.params - func.sequence_names)


def tensor_in_project(project, key, definite: bool, params, keras_inputs: bool = True) -> bool:
    """Project phase: a value of function `key` is a tensor: for sure (`definite`), or built from
    parameters the project shows are tensors (call sites, op operands, Keras `call` inputs unless
    `keras_inputs` is False)."""
    return bool(definite or (params and set(params) & project.tensor_params(key, keras_inputs)))


def tensor_fact(project, key, candidate, keras_inputs: bool = True, op_operands: str = "true") -> list | None:
    """Why a candidate's `value` is a tensor (`tensor_in_project`'s reason), for the finding's
    proof; None when it is not known to be one. `op_operands` is the certainty of the evidence
    that a parameter is given to an op (`FunctionFacts.op_params`): a guess where a Python
    number there would do what the rule says cannot be done."""
    from stagelint.analysis.proof import TRUE, definite_tensor, fact

    fields = candidate.fields
    value = fields.get("value") or "the value"
    if fields.get("_variable"):
        return fact(f"`{value}` is a `tf.Variable`: it has no value while the function is traced", candidate.span)
    if fields.get("_definite"):
        return fact(definite_tensor(value), candidate.span)
    wanted = set(fields.get("_params", ()))
    if not project.call_sites.get(key):
        op_operands = TRUE  # what outside callers pass is not shown: an op operand is the evidence there is
    params = sorted(wanted & project.tensor_params(key, keras_inputs, op_operands=op_operands == TRUE))
    if params and op_operands == TRUE:
        names = ", ".join(f"`{p}`" for p in params)
        return fact(f"`{value}` comes from parameter {names}, which the project shows is a tensor (what its "
                    f"callers pass, or an op it is given to)", candidate.span)
    if params:
        names = ", ".join(f"`{p}`" for p in params)
        return fact(f"`{value}` comes from parameter {names}, which the project shows is a tensor (what its "
                    f"callers pass, or its input signature)", candidate.span)
    params = sorted(wanted & project.tensor_params(key, keras_inputs))
    if not params:
        return None
    # TensorFlow ops take Python numbers too (`tf.range(1, n + 1)`): a parameter given to an op
    # may be a Python value the project's callers, which pass no tensor there, computed from a
    # static shape (checked with TF 2.21)
    names = ", ".join(f"`{p}`" for p in params)
    return fact(f"`{value}` comes from parameter {names}, which is given to a TensorFlow op but to which no "
                f"caller the project shows passes a tensor; ops take Python numbers too, so that it is a tensor "
                f"is a guess", candidate.span, op_operands)


def python_number(arg) -> bool:
    """A call site passes a Python number or literal (a counter, a loop variable, `3`, `"same"`)."""
    from stagelint.analysis.tensors import NUMBERS

    return arg.kind == "python" or arg.what in NUMBERS


def formatted_tensorness(ctx, expr: cst.BaseExpression, func):
    """Tensors an argument shows: itself, or what `"...".format(...)` / an f-string / `%` formats
    (what a `print` or a log call would turn into text at trace time)."""
    from stagelint.analysis.tensors import Tensorness, tensorness

    if isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute) and expr.func.attr.value == "format":
        t = Tensorness()
        for arg in expr.args:
            t = t | formatted_tensorness(ctx, arg.value, func)
        return t
    if isinstance(expr, cst.FormattedString):
        t = Tensorness()
        for part in expr.parts:
            if isinstance(part, cst.FormattedStringExpression):
                t = t | formatted_tensorness(ctx, part.expression, func)
        return t
    if isinstance(expr, (cst.Tuple, cst.List)):
        t = Tensorness()
        for el in expr.elements:
            t = t | formatted_tensorness(ctx, el.value, func)
        return t
    if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, cst.Modulo) and isinstance(
        expr.left, (cst.SimpleString, cst.ConcatenatedString)
    ):
        return formatted_tensorness(ctx, expr.right, func)
    if _text_of(ctx, expr) is not None:
        # `str(loss)`, `"step " + str(step) + " " + str(tf.reduce_mean(loss))`: Python turns the
        # tensor into its symbolic text (`Tensor("Mean:0", shape=(), dtype=float32)`) at trace time
        t = Tensorness()
        for part in _text_of(ctx, expr):
            t = t | formatted_tensorness(ctx, part, func)
        return t
    return tensorness(ctx, expr, func)


def _text_of(ctx, expr) -> list | None:
    """The values a text expression formats: `str(x)` / `repr(x)` / `format(x)` -> [x]; a `+` of
    text (a string literal or such an expression on either side) -> the parts; None otherwise."""
    if isinstance(expr, cst.Call) and len(expr.args) >= 1 and ctx.qualified_names(expr.func) & PYTHON_TEXT_BUILTINS:
        return [expr.args[0].value]
    if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, cst.Add):
        sides = (expr.left, expr.right)
        if any(isinstance(e, (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString))
               or _text_of(ctx, e) is not None for e in sides):
            return [e for e in sides if not isinstance(e, (cst.SimpleString, cst.ConcatenatedString))]
    return None


def python_option_param(ctx, func, expr: cst.BaseExpression) -> bool:
    """The function's own parameter with a literal default other than None (`training=False`,
    `mode="train"`): a Python value that is part of the trace key."""
    if not isinstance(expr, cst.Name) or ctx.binding_kind(expr, func) != "param":
        return False
    default = func.defaults.get(expr.value)
    if default is None or keyword_constant(default, "None"):
        return False
    return expr.value in func.facts.literal_default_params
