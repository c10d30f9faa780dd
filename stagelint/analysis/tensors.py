"""One small, shared inference of tensor-ness.

A value is a tensor when it is the result of a framework op (`tf.constant`, `tf.matmul`, but
not classes such as `tf.TensorSpec`, nor `tf.data`/`tf.keras` objects), arithmetic or
indexing on a tensor, a local name bound to a tensor, or an element of a loop over a tensor.
A parameter is a tensor when the project phase decides so (used as an operand of a framework
op, a Keras `call` input, or passed a tensor at a call site), so the answer for an expression
is "definitely" plus the set of parameters it depends on.

Answers are asked for at the end of the file (rules' `finish`), when every binding is known.
"""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst
from libcst.metadata import BuiltinAssignment, FunctionScope, ImportAssignment

from stagelint.analysis import facts as F
from stagelint.analysis.arguments import passed_argument
from stagelint.analysis.objects import root_kind
from stagelint.analysis.context import FILE_OPENERS, FileContext, FunctionInfo, short_code
from stagelint.analysis.dependence import name_loads
from stagelint.analysis.literals import BOOLS, is_literal, keyword_constant
from stagelint.analysis.fastmeta import walk
from stagelint.analysis.trivia import TRIVIA
from stagelint.frameworks import (CONTAINER_METHODS, ELEMENT_PRESERVING_WRAPPERS, JAX, LIST_ELEMENTS_OF_RESULT,
                                  NUMPY_FLOAT_CONSTANTS, STRUCTURE_ATTRIBUTES, TUPLE_YIELDING_BUILTINS,
                                  canonical_tf_name)


#: String literals: `"labels"`, `"a" "b"`, `f"{name}_mask"`.
_STRINGS = (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString)


@dataclass(frozen=True)
class Tensorness:
    definite: bool = False
    params: frozenset[str] = frozenset()
    #: targets of project functions in other files whose result it is made of: a tensor when one
    #: of them returns one (`analysis.values.Summaries`, project phase)
    calls: frozenset = frozenset()

    def __or__(self, other: Tensorness) -> Tensorness:
        return Tensorness(self.definite or other.definite, self.params | other.params, self.calls | other.calls)

    @property
    def possible(self) -> bool:
        return self.definite or bool(self.params)


#: JAX transforms: calling what they return computes arrays.
from stagelint.frameworks import (  # noqa: E402
    JAX_AUX_PATH, JAX_BRANCH_OUTPUT, JAX_GRAD, JAX_GRAD_SHAPED_LIKE_ARGUMENT, JAX_JIT, JAX_OUTPUT_STRUCTURE, JAX_TRACE,
    JAX_TREE_MAPS, JAX_WRAPPED_OUTPUT_STRUCTURE,
)

_JAX_TRANSFORMS = JAX_JIT | JAX_TRACE | JAX_GRAD

NOT = Tensorness()
TENSOR = Tensorness(True)
#: The result of calling a Keras layer or model: tensors, in a structure or not.
KERAS_CALL = Tensorness(False, frozenset(), frozenset({("keras",)}))


def tensorness(ctx: FileContext, expr: cst.BaseExpression, func: FunctionInfo | None = None) -> Tensorness:
    return _Inference(ctx, func).of(expr)


class _MemoizedWalk:
    """Answers about expressions, each (node, function) once per file.

    Asked again and again (by several rules, by value_of for every sub-expression, through
    names bound many times), the walk was exponential on real modules (numpy's crackfortran:
    minutes). A name bound from itself (`x = x + 1`) is a cycle: there the walk answers
    `cycle`, and its other bindings decide. The questions in progress are the file's, not one
    walk's: tensor-ness asks values and values ask tensor-ness, each through a walk of its own,
    so a cycle through both (a name rebound from a call of itself) is seen only by a set they
    share.
    """

    memo_name = ""
    cycle = None

    def __init__(self, ctx: FileContext, func: FunctionInfo | None):
        self.ctx = ctx
        self.func = func
        self.active: set[tuple[int, int]] = ctx.memo.setdefault(self.memo_name + ":active", set())
        self.memo: dict = ctx.memo.setdefault(self.memo_name, {})

    def of(self, expr):
        key = (id(expr), id(self.func))
        found = self.memo.get(key)
        if found is not None:
            return found
        if key in self.active:
            return self.cycle
        self.active.add(key)
        try:
            result = self._of(expr)
        finally:
            self.active.discard(key)
        self.memo[key] = result
        return result


class _Inference(_MemoizedWalk):
    memo_name = "tensorness"
    cycle = NOT

    def _union(self, exprs) -> Tensorness:
        out = NOT
        for e in exprs:
            out = out | self.of(e)
        return out

    def _of(self, expr) -> Tensorness:
        ctx = self.ctx
        fw = ctx.framework
        # `type(expr) is`: libcst node classes have no subclasses, and a failed `isinstance` test
        # against one goes through the ABC machinery (a Python call), here once per kind tried.
        t = type(expr)
        if t is cst.Name:
            return self._name(expr)
        if t is cst.Call:
            names = ctx.qualified_names(expr.func)
            if names & JAX_TREE_MAPS:
                return self._tree_map(expr)
            if any(ctx.framework_op(q) for q in names):
                return TENSOR
            if isinstance(expr.func, cst.Call) and ctx.resolves_to(expr.func.func, _JAX_TRANSFORMS):
                return TENSOR  # `jax.grad(loss)(w)`, `jax.vmap(f)(xs)`: arrays
            if names and any(fw.owns(q) for q in names):
                return NOT
            result = self._project_call(expr)
            if result is not None:
                return result
            if isinstance(expr.func, cst.Attribute):
                if expr.func.attr.value in fw.non_tensor_attributes or expr.func.attr.value in CONTAINER_METHODS:
                    return NOT  # `x.get_shape()`, `features.keys()`
                if isinstance(expr.func.value, cst.Name) and self.func is not None \
                        and expr.func.value.value == self.func.self_name:
                    return NOT  # `self.helper(x)` of a class elsewhere: decided by `_project_call`
                receiver = self.of(expr.func.value)
                return Tensorness(receiver.definite, receiver.params)
            return NOT
        if t is cst.Attribute:
            if expr.attr.value in fw.non_tensor_attributes:
                return NOT
            if isinstance(expr.value, cst.Name) and self.func is not None and expr.value.value == self.func.self_name:
                return NOT
            return self.of(expr.value)
        if t is cst.BinaryOperation:
            return self._union((expr.left, expr.right))
        if t is cst.UnaryOperation:
            return NOT if isinstance(expr.operator, cst.Not) else self.of(expr.expression)
        if t is cst.Comparison:
            if all(isinstance(c.operator, (cst.Is, cst.IsNot)) for c in expr.comparisons):
                return NOT  # `x is not None`: an identity test, Python even on a tensor
            if len(expr.comparisons) == 1 and isinstance(expr.comparisons[0].operator, (cst.In, cst.NotIn)) \
                    and python_string(self.ctx, expr.left, self.func):
                # `"labels" in batch`: a key of a dict of arrays (an array holds no strings: JAX
                # raises TypeError, not a tracer error), a Python bool under jit and tf.function
                return NOT
            return self._union([expr.left, *(c.comparator for c in expr.comparisons)])
        if t is cst.Subscript:
            return self.of(expr.value)
        if t is cst.IfExp:
            return self._union((expr.body, expr.orelse))
        if t is cst.Tuple or t is cst.List or t is cst.Set:
            return self._union(el.value for el in expr.elements)
        if t is cst.Dict:
            return self._union(el.value for el in expr.elements if isinstance(el, cst.DictElement))
        if t is cst.StarredElement:
            return self.of(expr.value)
        if t is cst.AugAssign:
            return self.of(expr.value)
        if t is cst.For:
            return self._iterated(expr.iter)
        return NOT

    def _tree_map(self, call: cst.Call) -> Tensorness:
        """`jax.tree.map(f, tree, *rest)`: the trees given, with `f`'s results for leaves: a
        lambda's body, or a framework function that returns arrays (`jnp.zeros_like`). Diffrax's
        `saveat = jtu.tree_map(fn, saveat)` keeps `saveat.dense` a Python bool."""
        positional = [a.value for a in call.args if a.keyword is None and not a.star]
        if not positional or any(a.star for a in call.args):
            return TENSOR
        fn, trees = positional[0], positional[1:]
        out = self._union(trees)
        if isinstance(fn, cst.Lambda):
            return out | self.of(fn.body)
        fw = self.ctx.framework
        if any(fw.returns_tensor(q) for q in self.ctx.qualified_names(fn)):
            return TENSOR
        if isinstance(fn, (cst.Name, cst.Attribute)):
            info = _same_file_function(self.ctx, fn, self.func)
            if info is not None:  # `jax.tree.map(init, shapes)` with `def init(s): return jnp.zeros(s)`
                return out | Tensorness(summarise_returns(self.ctx, info).definite)
        return out

    def _project_call(self, call: cst.Call) -> Tensorness | None:
        """The result of calling a Keras object (a model, layer, loss or metric in a global, an
        attribute or a local), or a project function: its summary (`analysis.values`)."""

        ctx = self.ctx
        func = call.func
        if not isinstance(func, (cst.Name, cst.Attribute)):
            return None
        if isinstance(func, cst.Attribute) and func.attr.value in ctx.framework.non_tensor_attributes:
            return None
        callee = value_of(ctx, func, self.func)
        if callee.what in ("metric", "loss"):
            return TENSOR
        if callee.what in CALLABLE_KERAS:
            # a layer or model: tensors, maybe in a list or tuple (`return_state=True`): not
            # one tensor to unpack, but tensors to store or log (`analysis.values.KERAS_RESULT`)
            return KERAS_CALL
        info = _same_file_function(ctx, func, self.func)
        if info is not None:
            summary = summarise_returns(ctx, info)
            out = Tensorness(summary.definite, frozenset(), frozenset(summary.calls))
            if summary.params:
                for param, arg in bind_arguments(info, call):
                    if param in summary.params:
                        out = out | self.of(arg)
            return out
        target = _call_target(ctx, func, self.func)
        if target is not None:
            return Tensorness(False, frozenset(), frozenset({target}))
        return None

    def _iterated(self, iterable, comprehension: cst.CompFor | None = None, target: cst.CSTNode | None = None) -> Tensorness:
        """Elements of a loop's iterable: tensors for `tf.range`, a tensor or a dataset. The same
        for a `for` statement and a comprehension's `for` clause (`[v.item() for v in
        jnp.linspace(...)]`: each `v` is a tracer under jit, JAX 0.10.2,
        tests/runtime/test_jax_recall_facts.py), except what AutoGraph converts: only a
        `for` statement's `range(<tensor>)` becomes `tf.range`; a comprehension's `range` yields
        Python ints (or fails on a tensor, under JAX as under `tf.function`), and so does
        `enumerate`'s index. A dict of tensors is iterated over its keys."""
        ctx = self.ctx
        if isinstance(iterable, cst.Call):
            names = ctx.qualified_names(iterable.func)
            if comprehension is not None:
                if "builtins.range" in names:
                    return NOT
                if "builtins.enumerate" in names:
                    t = comprehension.target
                    if isinstance(t, cst.Tuple) and t.elements and t.elements[0].value is target:
                        return NOT
            if "builtins.range" in names or "builtins.enumerate" in names or "builtins.zip" in names:
                # `range(<tensor>)` is converted to `tf.range`: its elements are tensors too.
                return self._union(a.value for a in iterable.args)
        elif isinstance(iterable, (cst.Name, cst.Dict, cst.DictComp)) and value_of(ctx, iterable, self.func).what == "dict":
            return NOT  # a dict is iterated over its keys (a tensor is unhashable: never a key)
        return self.of(iterable)

    def _name(self, name: cst.Name) -> Tensorness:
        ctx = self.ctx
        refs = ctx.reaching(name, self.func)
        if not refs:
            return NOT
        out = NOT
        for r in refs:
            if isinstance(r, (BuiltinAssignment, ImportAssignment)):
                continue
            node = getattr(r, "node", None)
            if isinstance(node, cst.Param):
                if self.func is not None and name.value != self.func.self_name and name.value in self.func.facts.params:
                    out = out | Tensorness(False, frozenset({name.value}))
                continue
            value = ctx.bound_values.get(id(node))
            if value is not None:
                at = ctx.unpacked_at.get(id(node))
                if at is not None and self._list_element(value, at[0]):
                    continue  # `clipped, norm = tf.clip_by_global_norm(...)`: `clipped` is a Python list
                element = self._returned_element(value, *at) if at is not None else None
                out = out | (element if element is not None else self.of(value))
                continue
            comp = ctx.comprehension_targets.get(id(node))
            if comp is not None:
                out = out | self._iterated(comp.iter, comp, node)  # an element, as a `for` statement's
        return out

    def _list_element(self, value, index: int) -> bool:
        """`value` is a call of an op whose result holds a Python list of tensors at `index`
        (`frameworks.LIST_ELEMENTS_OF_RESULT`: `tf.clip_by_global_norm`'s first element)."""
        return isinstance(value, cst.Call) and any(
            index in LIST_ELEMENTS_OF_RESULT.get(canonical_tf_name(q), ()) for q in self.ctx.qualified_names(value.func))

    def _returned_element(self, call: cst.Call, index: int, count: int) -> Tensorness | None:
        """`images, size = self._scale(...)`: the name is the `index`-th of the tuple every return
        of a def of this file spells out with `count` elements (`return resized, [h, w]`), so it is
        what that element is, not what the whole result is. None when a return is not such a tuple."""
        info = _same_file_function(self.ctx, call.func, self.func)
        returns = [v for v in getattr(info, "returns", ()) if v is not None] if info is not None else []
        if not returns or not all(isinstance(v, (cst.Tuple, cst.List)) and len(v.elements) == count
                                  and not any(isinstance(e, cst.StarredElement) for e in v.elements)
                                  for v in returns):
            return None
        active = self.ctx.memo.setdefault("unpacking", set())
        if id(call) in active:
            return None  # recursion through the callee: the whole result decides
        active.add(id(call))
        try:
            inner = self if info is self.func else _Inference(self.ctx, info)
            bound = dict(bind_arguments(info, call))
            out = NOT
            for v in returns:
                element = inner.of(v.elements[index].value)
                out = out | Tensorness(element.definite, frozenset(), element.calls)
                for param in element.params:
                    if param in bound:
                        out = out | self.of(bound[param])
            return out
        finally:
            active.discard(id(call))


def same_file_function(ctx: FileContext, func: cst.BaseExpression, within: FunctionInfo | None):
    """The walk record of the def `func` names in this file (`helper`, `self.helper` of the
    method's own class), if any (for rules: `_same_file_function`)."""
    return _same_file_function(ctx, func, within)


def _same_file_function(ctx: FileContext, func: cst.BaseExpression, within: FunctionInfo | None):
    """The walk record of the def a call's function names in this file (`helper(...)`, or
    `self.helper(...)` of the method's own class), if any."""
    infos = ctx.__dict__.get("function_infos")
    if not infos:
        return None
    if isinstance(func, cst.Name):
        for b in ctx.bindings_of(func):
            node = getattr(b, "node", None)
            if isinstance(node, cst.FunctionDef):
                return infos.get(id(node))
        return None
    if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and within is not None \
            and func.value.value == within.self_name and within.facts.class_qualname:
        return _method_info(ctx, within.facts.class_qualname, func.attr.value)
    return None


def _method_info(ctx: FileContext, cls: str, name: str):
    """The walk record of method `name` of the class `cls` (absolute qualified name) of this file."""
    infos = ctx.__dict__.get("function_infos")
    if not infos:
        return None
    by_method = ctx.memo.setdefault("methods", {})
    # Brought up to date with the functions walked since it was last asked (filled once, at
    # the first question, it held only the methods walked before that one: an answer that
    # depended on which classes came earlier in the file).
    seen = ctx.memo.get("methods_seen", 0)
    if seen != len(infos):
        for info in list(infos.values())[seen:]:
            if info.facts.class_qualname:
                by_method[(info.facts.class_qualname, info.facts.name)] = info
        ctx.memo["methods_seen"] = len(infos)
    return by_method.get((cls, name))


def bind_arguments(info: FunctionInfo, call: cst.Call):
    """(parameter, argument) pairs of a call of a def of this file (`self` skipped for methods)."""
    params = list(info.facts.params)
    if info.is_method and params and isinstance(call.func, cst.Attribute):
        params = params[1:]
    positional = [a.value for a in call.args if a.keyword is None and not a.star]
    for param, arg in zip(params, positional):
        yield param, arg
    for a in call.args:
        if a.keyword is not None and a.keyword.value in params:
            yield a.keyword.value, a.value


def _call_target(ctx: FileContext, func: cst.BaseExpression, within: FunctionInfo | None):
    """The call target (`facts.Target`) of a call of a project function in another file."""
    if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and within is not None \
            and func.value.value == within.self_name and within.facts.class_qualname:
        return ("self", within.facts.class_qualname, func.attr.value)
    if isinstance(func, (cst.Name, cst.Attribute)):
        names = ctx.qualified_names(func)
        if len(names) == 1:
            (q,) = names
            root = q.split(".", 1)[0]
            if not q.startswith("builtins.") and (root in ctx.project_roots or root == ctx.module.split(".", 1)[0]) \
                    and ".<locals>." not in q:  # `y.sum()` on a parameter: a method of the value
                return ("name", q)
    return None


def arg_facts(ctx: FileContext, expr: cst.BaseExpression, func: FunctionInfo | None = None,
              loops: tuple = ()) -> F.ArgFacts:
    """How an argument looks at a call site in `func` inside `loops`: a tensor, a Python value,
    or unknown; what kind of value it is, which object, and whether it changes between calls."""
    from stagelint.analysis.context import short_code

    text = short_code(expr)
    value = value_of(ctx, expr, func)
    param = ""
    if isinstance(expr, cst.Name) and func is not None and ctx.binding_kind(expr, func) == "param" and all(
            isinstance(getattr(r, "node", None), cst.Param) for r in ctx.reaching(expr, func) or ()):
        param = expr.value  # passed straight through (not `e = tf.constant(e)` first)
    # Only STG501's JAX step asks where a value comes from across loop iterations (a static
    # argument beside another one computed from the same loop variable): where JAX cannot stage
    # anything (`screen.framework_reach`), no call site's argument needs it.
    jax_reach = JAX.name not in getattr(ctx, "absent", ())
    extra = dict(what=value.what, cls=value.cls, ident=value.ident, param=param,
                 varies=why_varies(ctx, expr, func, loops),
                 from_loops=loop_sources(ctx, expr, loops) if jax_reach and loops else [],
                 root=_root_kind(ctx, expr, func),
                 values=_loop_values(ctx, expr, loops))
    if extra["varies"].startswith("counter") and func is not None and rises_every_execution(ctx, expr, loops):
        extra["rises"] = True
    if value.what in ("list", "tuple"):
        extra["elements"] = element_kind(ctx, expr, func)
    elif func is not None and not param and value.what not in ("dict", "set", "nest", "tensor"):
        extra["params"] = sorted(tensorness(ctx, expr, func).params)
    if is_literal(expr):
        return F.ArgFacts("python", text, **extra)
    if value.what in ("list", "tuple", "dict", "set", "nest"):
        return F.ArgFacts("unknown", text, **extra)  # a structure of tensors is not a tensor
    if value.what == "tensor":
        return F.ArgFacts("tensor", text, **extra)
    if isinstance(expr, cst.Name) and _is_python_number_name(ctx, expr):
        return F.ArgFacts("python", text, **extra)
    return F.ArgFacts("unknown", text, **extra)


def _root_kind(ctx: FileContext, expr: cst.BaseExpression, func: FunctionInfo | None) -> str:
    """How the object an argument names is bound in the caller (for "does a helper write into
    something that outlives the call?"): only for a name or a chain of attributes on one."""
    if func is None or not isinstance(expr, (cst.Name, cst.Attribute)):
        return ""
    return root_kind(ctx, func, expr) or ""


def python_string(ctx: FileContext, expr: cst.BaseExpression, func: FunctionInfo | None) -> bool:
    """`expr` holds a Python string: a string literal, or a name every binding of which is a string
    literal or a `for` over a list or tuple of strings (`for key in ("a_mask", "b_mask"):`, also
    through a name bound to one, or either branch of an `if`-expression of them). `key in
    features` with such a key is a Python bool, under jit too: a dict of arrays (a pytree stays a
    dict) hashes the string, and an array holds no string (`Array.__contains__` raises TypeError,
    no tracer): JAX 0.10.2, tests/runtime/test_jax_concretizing_facts.py (the twentieth JAX
    audit's BW-P2, FoldJAX's `if key not in features: continue`)."""
    if isinstance(expr, _STRINGS):
        return True
    refs = ctx.referents(expr) if isinstance(expr, cst.Name) else None
    if not refs:
        return False
    for r in refs:
        bound = ctx.bound_values.get(id(getattr(r, "node", None)))
        if isinstance(bound, _STRINGS):
            continue
        if not (isinstance(bound, cst.For) and bound.target is getattr(r, "node", None)
                and _strings_iterated(ctx, bound.iter, func)):
            return False
    return True


def _strings_iterated(ctx: FileContext, expr: cst.BaseExpression, func: FunctionInfo | None, _depth: int = 0) -> bool:
    if isinstance(expr, cst.IfExp) and _depth < 4:
        return all(_strings_iterated(ctx, e, func, _depth + 1) for e in (expr.body, expr.orelse))
    if isinstance(expr, cst.Name) and _depth < 4:
        refs = ctx.referents(expr) or ()
        values = [ctx.bound_values.get(id(getattr(r, "node", None))) for r in refs]
        return bool(values) and all(isinstance(v, (cst.IfExp, cst.List, cst.Tuple)) and
                                    _strings_iterated(ctx, v, func, _depth + 1) for v in values)
    return isinstance(expr, (cst.List, cst.Tuple)) and bool(expr.elements) and all(
        isinstance(el, cst.Element) and isinstance(el.value, _STRINGS) for el in expr.elements)


def element_kind(ctx: FileContext, expr: cst.BaseExpression, func: FunctionInfo | None, _depth: int = 0) -> str:
    """What a list or tuple the code shows holds: the common `value_of(...).what` of the elements of
    a display (`[(1, 1)] * 3`, `[a, b]`), through names bound once to one; "" when unknown or mixed."""
    if _depth > 4:
        return ""
    if isinstance(expr, (cst.List, cst.Tuple, cst.Set)):
        kinds = {value_of(ctx, el.value, func).what for el in expr.elements if isinstance(el, cst.Element)}
        return kinds.pop() if len(kinds) == 1 else ""
    if isinstance(expr, (cst.ListComp, cst.SetComp, cst.GeneratorExp)):
        return value_of(ctx, expr.elt, func).what
    if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, (cst.Multiply, cst.Add)):
        for side in (expr.left, expr.right):
            kind = element_kind(ctx, side, func, _depth + 1)
            if kind:
                return kind
        return ""
    if isinstance(expr, cst.Call) and ctx.qualified_names(expr.func) & {"builtins.list", "builtins.tuple"} and expr.args:
        inner = expr.args[0].value
        if isinstance(inner, cst.Call) and "builtins.range" in ctx.qualified_names(inner.func):
            return "int"
        return element_kind(ctx, inner, func, _depth + 1)
    if isinstance(expr, cst.Name):
        refs = ctx.referents(expr) or ()
        kinds = set()
        for r in refs:
            bound = ctx.bound_values.get(id(getattr(r, "node", None)))
            if bound is None or isinstance(bound, (cst.For, cst.AugAssign)):
                return ""
            kinds.add(element_kind(ctx, bound, func, _depth + 1))
        return kinds.pop() if len(kinds) == 1 else ""
    return ""


def _is_python_number_name(ctx: FileContext, name: cst.Name) -> bool:
    """A name bound only to literals or to the target of `for ... in range(...)`."""
    refs = ctx.referents(name)
    if not refs:
        return False
    for r in refs:
        node = getattr(r, "node", None)
        value = ctx.bound_values.get(id(node)) if node is not None else None
        if value is None:
            return False
        if isinstance(value, cst.For):
            it = value.iter
            if not (isinstance(it, cst.Call) and "builtins.range" in ctx.qualified_names(it.func)):
                return False
        elif isinstance(value, cst.AugAssign):
            if not is_literal(value.value):
                return False
        elif not is_literal(value):
            return False
    return True


# What a value is -------------------------------------------------------------------------------

#: Python values whose iteration is plain Python (unrolled under staging).
PYTHON_SEQUENCES = frozenset({"list", "tuple", "dict", "set", "str", "range", "ndarray"})
#: Values whose iteration is stateful Python: consumed once, at trace time.
PYTHON_ITERATORS = frozenset({"py-iterator", "generator"})
NUMBERS = frozenset({"int", "float", "complex"})
#: Keras objects whose call computes tensors (an optimizer's does not exist).
CALLABLE_KERAS = frozenset({"model", "layer", "metric", "loss"})


@dataclass(frozen=True)
class Value:
    """What an expression evaluates to, as far as the file shows.

    `what`: "int", "float", "complex", "str", "bool", "none", "list", "tuple", "dict", "set",
    "range", "ndarray", "generator", "py-iterator", "data-iterator", "dataset", "tensor",
    "variable", "optimizer", "model", "layer", "metric", "rng", "function", "object", "pydata" (made
    by a data pipeline that is not `tf.data`: `frameworks.PYTHON_DATA_SOURCES`, its methods, a
    split of it), or "" when unknown. `cls` is the qualified name of the class an object was
    constructed from. `ident` names the object (`opt1@12`, the name and line of its one binding; `new@12:5` for an object
    constructed right there, a new one every time the line runs).
    """

    what: str = ""
    cls: str = ""
    ident: str = ""


UNKNOWN = Value()


#: What a literal or a display is, whatever it holds (by the node's exact type).
_DISPLAY_VALUES = {
    cst.Integer: Value("int"), cst.Float: Value("float"), cst.Imaginary: Value("complex"),
    cst.SimpleString: Value("str"), cst.ConcatenatedString: Value("str"), cst.FormattedString: Value("str"),
    cst.List: Value("list"), cst.ListComp: Value("list"), cst.Tuple: Value("tuple"),
    cst.Dict: Value("dict"), cst.DictComp: Value("dict"), cst.Set: Value("set"), cst.SetComp: Value("set"),
    cst.GeneratorExp: Value("generator"), cst.Lambda: Value("function"),
}


def value_of(ctx: FileContext, expr: cst.BaseExpression, func: FunctionInfo | None = None) -> Value:
    return _Values(ctx, func).of(expr)


def structure_unshown(ctx: FileContext, expr: cst.BaseExpression, func: FunctionInfo | None = None) -> str | None:
    """`expr` is what a wrapped JAX transformation's call returns (`jax.vmap(f)(x)`, `jax.jit(f)(x)`,
    `JAX_WRAPPED_OUTPUT_STRUCTURE`), or an element a target list unpacks from it, and nothing here
    shows what `f` returns (a parameter, a function of another file): the call returns the pytree
    `f` returns, an array or a list, tuple or dict of them, and which one is not shown. The call's
    source (`jax.vmap(disc)`), else None."""
    return _Values(ctx, func).structure_unshown(expr)


class _Values(_MemoizedWalk):
    memo_name = "values"
    cycle = UNKNOWN

    def _of(self, expr) -> Value:
        t = type(expr)  # `type(expr) is`, as in `_Inference._of`
        fixed = _DISPLAY_VALUES.get(t)
        if fixed is not None:
            return fixed
        if t is cst.Name:
            if expr.value in BOOLS:
                return Value("bool")
            if expr.value == "None":
                return Value("none")
            return self._name(expr)
        if t is cst.Call:
            return self._call(expr)
        if t is cst.BinaryOperation and isinstance(expr.operator, cst.Add) and any(
            isinstance(side, (cst.List, cst.ListComp, cst.Tuple)) for side in (expr.left, expr.right)
        ):
            # `[first] + rest`: a list (of tensors, maybe)
            return Value("tuple" if isinstance(expr.left, cst.Tuple) or isinstance(expr.right, cst.Tuple) else "list")
        if t is cst.Subscript and any(isinstance(e.slice, cst.Slice) for e in expr.slice):
            inner = self.of(expr.value)
            if inner.what in ("list", "tuple", "str", "ndarray"):
                return Value(inner.what)  # `tf.unstack(shape)[1:]`: a slice of a list is a list
        if t is cst.Subscript and len(expr.slice) == 1 and isinstance(expr.slice[0].slice, cst.Index) \
                and type(expr.slice[0].slice.value) is cst.SimpleString:
            inner = self.of(expr.value)
            if inner.what == "pydata":
                return Value("pydata", inner.cls)  # `load_dataset("glue", "mrpc")["train"]`: a split
        if t is cst.Attribute and expr.attr.value in STRUCTURE_ATTRIBUTES:
            return Value("tuple")
        if tensorness(self.ctx, expr, self.func).definite:
            return Value("tensor")
        if t is cst.UnaryOperation and not isinstance(expr.operator, cst.Not):
            inner = self.of(expr.expression)
            return Value(inner.what) if inner.what in NUMBERS else UNKNOWN
        if t is cst.BinaryOperation:
            left, right = self.of(expr.left), self.of(expr.right)
            if left.what in NUMBERS and right.what in NUMBERS:
                return Value("float" if "float" in (left.what, right.what) else left.what)
            for seq in ("list", "tuple", "str"):  # `[x] * 3`, `a + [x]`
                if seq in (left.what, right.what) and isinstance(expr.operator, (cst.Multiply, cst.Add)):
                    return Value(seq)
            return UNKNOWN
        if t is cst.Attribute:
            if self.ctx.qualified_names(expr) & NUMPY_FLOAT_CONSTANTS:
                return Value("float")  # `np.pi`
            return self._attribute(expr)
        return UNKNOWN

    def _merge(self, values: list[Value]) -> Value:
        if not values:
            return UNKNOWN
        first = values[0]
        if any(v.what != first.what for v in values):
            return UNKNOWN
        cls = first.cls if all(v.cls == first.cls for v in values) else ""
        return Value(first.what, cls, first.ident if len(values) == 1 else "")

    def _name(self, name: cst.Name) -> Value:
        ctx = self.ctx
        refs = ctx.reaching(name, self.func)
        if not refs:
            return UNKNOWN
        values = []
        for r in refs:
            if isinstance(r, (BuiltinAssignment, ImportAssignment)):
                return UNKNOWN
            node = getattr(r, "node", None)
            if isinstance(node, cst.Param):
                star = _star_kind(self.func, node)
                if star:
                    values.append(Value(star))  # `*tensors`: a tuple; `**kwargs`: a dict
                    continue
                return UNKNOWN
            if isinstance(node, (cst.FunctionDef, cst.Lambda)):
                values.append(Value("function"))
                continue
            if isinstance(node, cst.ClassDef):
                values.append(Value("class"))
                continue
            bound = ctx.bound_values.get(id(node))
            comp = ctx.comprehension_targets.get(id(node)) if bound is None else None
            if comp is not None and comp.target is node and _numbers_iterated(ctx, comp.iter, self.func):
                it = comp.iter
                if isinstance(it, (cst.Tuple, cst.List)):
                    values.append(self._merge([self.of(el.value) for el in it.elements]))
                else:
                    values.append(Value("int"))  # `for k in range(3)`: Python ints
                continue
            if bound is None:
                return UNKNOWN
            if isinstance(bound, cst.For):
                values.append(self._loop_element(node, bound))
            elif isinstance(bound, cst.AugAssign):
                inner = self.of(bound.value)  # `n += 1` stays a number, `acc += [x]` a list
                if inner.what in NUMBERS | {"ndarray"} and self._updates_array(name, r, bound):
                    # `kd *= 2 * np.pi`: NumPy in place, an array still (`kd *= t` of a tensor `t`
                    # defers to the tensor and rebinds `kd` to one: tests/runtime/test_tf_loop_facts.py)
                    values.append(Value("ndarray"))
                else:
                    values.append(Value(inner.what) if inner.what in NUMBERS | {"list", "tuple", "str"} else UNKNOWN)
            else:
                at = ctx.unpacked_at.get(id(node))
                path = ctx.unpacked_path.get(id(node)) or ((at,) if at is not None else None)
                aux = self._aux(bound, path) if path is not None and isinstance(bound, cst.Call) \
                    and isinstance(bound.func, cst.Call) else None
                if aux is not None:
                    value = aux  # `(_, aux), grads = jax.value_and_grad(f, has_aux=True)(x)`: what `f` returns
                elif at is not None and isinstance(bound, cst.Call) \
                        and ctx.qualified_names(bound.func) & TUPLE_YIELDING_BUILTINS:
                    value = Value("tuple")  # `dets, projs = zip(*pairs)`: each name one element, a tuple
                elif at is not None and isinstance(bound, cst.Call) and self._structure_api(bound):
                    # one element of a JAX call's structured result (`carry, ys = lax.scan(...)`):
                    # what the code shows that element is, else what the call is, never the
                    # whole result's structure
                    value = self._structured(bound, at) or self._call(bound, structured=False)
                else:
                    value = self.of(bound)
                if isinstance(node, cst.Name) and value.what and (not value.ident or value.ident.startswith("new@")) \
                        and not (value.ident and id(node) in ctx.loop_bound):
                    # the object made on that line is the one this name holds (bound in a loop
                    # to a new object: a new one on every iteration, as the `new@` ident says)
                    value = Value(value.what, value.cls, f"{node.value}@{ctx.position(node).line}")
                values.append(value)
        return self._merge(values)

    def _updates_array(self, name: cst.Name, binding, aug: cst.AugAssign) -> bool:
        """`aug` (`kd *= 2`, the `binding` the load `name` sees) updates a NumPy array: every
        other binding of the name that reaches the statement is one."""
        values = [self.ctx.bound_values.get(id(getattr(b, "node", None)))
                  for b in self.ctx.reaching_in_order(name, self.func, aug) or () if b is not binding]
        return bool(values) and all(isinstance(v, cst.BaseExpression) and self.of(v).what == "ndarray"
                                    for v in values)

    def _loop_element(self, target: cst.CSTNode, loop: cst.For) -> Value:
        """The value a loop variable takes: `for i in range(n)`, `for opt in [a, b]`, enumerate."""
        ctx = self.ctx
        it = loop.iter
        if loop.target is target:
            if isinstance(it, (cst.List, cst.Tuple, cst.Set)):
                elements = [self.of(el.value) for el in it.elements if isinstance(el, cst.Element)]
                merged = self._merge(elements) if elements else UNKNOWN
                if merged.what and len(elements) > 1:
                    idents = [e.ident for e in elements]
                    ident = "|".join(idents) if all(idents) else ""
                    return Value(merged.what, merged.cls, ident)
                return merged
            if isinstance(it, cst.Call) and it.args and not it.args[0].keyword and not it.args[0].star \
                    and ctx.qualified_names(it.func) & ELEMENT_PRESERVING_WRAPPERS:
                it = it.args[0].value  # `for i in tqdm(range(n))`: the wrapped iterable's elements
            iterated = self.of(it)
            if iterated.what in ("range",):
                return Value("tensor") if tensorness(ctx, loop, self.func).definite else Value("int")
            if iterated.what == "tensor":
                return Value("tensor")
            if iterated.what in ("dataset", "data-iterator"):
                return Value("nest")  # an element: one tensor, or a tuple or dict of them
            if iterated.what == "pytree" or (iterated.what in ("list", "tuple") and iterated.cls == "pytree"):
                return Value("pytree")  # an array's row, or a subtree: not known which
            return UNKNOWN
        if (
            isinstance(loop.target, cst.Tuple)
            and loop.target.elements
            and loop.target.elements[0].value is target
            and isinstance(it, cst.Call)
            and "builtins.enumerate" in ctx.qualified_names(it.func)
        ):
            inner = self.of(it.args[0].value) if it.args else UNKNOWN
            return Value("tensor") if inner.what in ("dataset", "data-iterator") else Value("int")
        return UNKNOWN

    def _attribute(self, expr: cst.Attribute) -> Value:
        ctx = self.ctx
        func = self.func
        if isinstance(expr.value, cst.Name) and func is not None and expr.value.value == func.self_name:
            cls = func.facts.class_qualname
            key = (cls, expr.attr.value)
            # One answer per attribute and file: `self.head = self.head - n` in many methods
            # otherwise re-derives the same attribute through every node, exponentially.
            memo = ctx.memo.setdefault("attribute_values", {})
            if key in memo:
                return memo[key]
            values = ctx.self_attr_values.get(key) if cls else None
            result = UNKNOWN
            if values:
                memo[key] = UNKNOWN  # a cycle through this attribute knows nothing more
                merged = self._merge([self.of(v) for v in values])
                if merged.what:
                    result = Value(merged.what, merged.cls, f"{ctx.relative(cls)}.{expr.attr.value}")
            memo[key] = result
            return result
        return UNKNOWN

    def _call(self, call: cst.Call, structured: bool = True) -> Value:
        from stagelint import frameworks as FW

        ctx = self.ctx
        fw = ctx.framework
        names = ctx.qualified_names(call.func)
        new = f"new@{ctx.position(call).line}:{ctx.position(call).column}"
        if isinstance(call.func, cst.Call) and ctx.resolves_to(call.func.func, JAX_GRAD_SHAPED_LIKE_ARGUMENT):
            return self._gradient(call)
        found = self._structured(call) if structured else None
        if found is not None:
            return found
        for q in sorted(names):
            if q == "builtins.iter":
                inner = self.of(call.args[0].value) if call.args else UNKNOWN
                if inner.what == "dataset":
                    return Value("data-iterator", ident=new)
                if inner.what in PYTHON_SEQUENCES or inner.what in PYTHON_ITERATORS:
                    return Value("py-iterator", ident=new)
                return UNKNOWN
            if q in _BUILTIN_RESULTS:
                return Value(_BUILTIN_RESULTS[q])
            if q in FILE_OPENERS:
                return Value("file", q, new)
            if q.startswith("itertools."):
                return Value("py-iterator", ident=new)
            if q in FW.RNG_CONSTRUCTORS:
                return Value("rng", q, new)
            if q in FW.DATASET_FACTORIES or (q.startswith("tensorflow.data.") and "dataset" in q.lower()):
                return Value("dataset")
            if FW.python_data_source(q):
                return Value("pydata", q, new)  # `datasets.load_dataset(...)`: not `tf.data`
            if q in FW.TFDS_BUILDERS:
                return Value("object", q, new)
            if q.startswith("numpy."):
                return Value("ndarray")
            if q in fw.staging_decorators:
                return Value("function")
            if fw.creates_variables(q):
                return Value(_keras_kind(fw, q), q, new)
            if ".losses." in q and q.rsplit(".", 1)[-1][:1].isupper() and fw.owns(q):
                return Value("loss", q, new)  # `tf.keras.losses.MeanSquaredError()`: called on tensors
            if FW.canonical_tf_name(q) in FW.MULTI_OUTPUT_OPS or FW.canonical_tf_name(q) in FW.CONTROL_FLOW_OPS \
                    or q in FW.JAX_MULTI_OUTPUT_OPS or list_tout(call, q):
                return Value("list")  # a Python list/tuple of tensors (loop vars, branch outputs)
            if fw.returns_tensor(q):
                return Value("tensor")
            if fw.owns(q) or q.startswith("builtins."):
                return UNKNOWN
        if isinstance(call.func, cst.Attribute):
            method = call.func.attr.value
            if method in FW.DATASET_WRAPPING_METHODS or method in FW.DATASET_MAKING_METHODS:
                return Value("dataset")
            receiver = self.of(call.func.value)
            if receiver.what == "dataset" and method not in FW.DATASET_NON_DATASET_METHODS:
                return Value("dataset")
            if receiver.what == "pydata":
                return Value("pydata", receiver.cls, new)  # `hf.shuffle(...)`: the same library's
            if receiver.what == "object" and receiver.cls in FW.TFDS_BUILDERS \
                    and method in FW.TFDS_BUILDER_DATASET_METHODS:
                return Value("dataset")  # `tfds.builder(name).as_dataset(split=...)`
            if receiver.what == "rng" and method not in FW.RNG_NON_DRAW_METHODS:
                return Value("ndarray")
            if receiver.what == "ndarray" and method in FW.NUMPY_ARRAY_METHODS:
                return Value("ndarray")  # `kd.reshape(shape)`: NumPy's, computed as Python
        if isinstance(call.func, cst.Name):
            for b in ctx.bindings_of(call.func):
                node = getattr(b, "node", None)
                if isinstance(node, cst.FunctionDef) and _has_yield(node, ctx):
                    return Value("generator", ident=new)
                if isinstance(node, cst.ClassDef):
                    names = ctx.qualified_names(call.func)
                    return Value("object", next(iter(names)) if len(names) == 1 else "", new)
        if len(names) == 1:
            (q,) = names
            last = q.rsplit(".", 1)[-1]
            if not fw.owns(q) and not q.startswith("builtins.") and last[:1].isupper():
                return Value("object", q, new)  # a project or library class, resolved later
        shape = self._call_shape(call)
        if shape:
            return Value(shape)
        if tensorness(ctx, call, self.func).definite:
            return Value("tensor")
        return UNKNOWN

    def structure_unshown(self, expr: cst.BaseExpression) -> str | None:
        """`structure_unshown`: every binding of the name `expr` (or `expr` itself) is a wrapped
        transformation's call, or an element unpacked from one, whose function's returns are not shown."""
        ctx = self.ctx
        if isinstance(expr, cst.Call):
            calls = [expr]
        elif isinstance(expr, cst.Name):
            refs = ctx.reaching(expr, self.func)
            if not refs:
                return None
            calls = []
            for r in refs:
                node = getattr(r, "node", None)
                bound = ctx.bound_values.get(id(node)) if node is not None else None
                if not isinstance(bound, cst.Call):
                    return None
                calls.append(bound)
        else:
            return None
        shown = None
        for call in calls:
            api = self._structure_api(call)
            if api is None or api not in JAX_WRAPPED_OUTPUT_STRUCTURE or any(a.star for a in call.args):
                return None
            mapped = [a.value for a in call.func.args if a.keyword is None and not a.star]
            if not mapped:
                return None
            operands = [a.value for a in call.args if a.keyword is None]
            if self._returns(mapped[0], operands):
                return None  # the function's returns are shown: what they are decides
            shown = shown or short_code(call.func)
        return shown

    def _structure_api(self, call: cst.Call) -> str | None:
        """The `JAX_OUTPUT_STRUCTURE` API a call is (`lax.scan(...)`, `jax.vmap(f)(x)`,
        `jax.jit(f)(x)`), if any."""
        mapped = isinstance(call.func, cst.Call)
        api = self.ctx.resolves_to(call.func.func if mapped else call.func, JAX_OUTPUT_STRUCTURE)
        return api if api is not None and (api in JAX_WRAPPED_OUTPUT_STRUCTURE) == mapped else None

    def _structured(self, call: cst.Call, element: tuple[int, int] | None = None) -> Value | None:
        """What a JAX call of `JAX_OUTPUT_STRUCTURE` gives, or its `element` (index, count) when
        a target list unpacks it, when the code shows it is a Python container: that container,
        its items pytrees (`Value(what, "pytree")`). None otherwise (what the call is decides;
        the `(carry, ys)` pair of `lax.scan` too). A function returning one of its parameters
        returns what the call hands it there (`jax.vmap(lambda x: x)(layers)`, a `lax.cond`
        branch `lambda x: x`: the operand)."""
        api = self._structure_api(call)
        if api is None:
            return None
        how, position = JAX_OUTPUT_STRUCTURE[api]
        mapped = isinstance(call.func, cst.Call)
        args = call.func.args if mapped else call.args
        positional = [a.value for a in args if a.keyword is None and not a.star]
        if position >= len(positional) or any(a.star for a in args):
            return None
        if how == "pair" and element is None:
            return None
        if how == "branches":
            return self._branch_structure(api, positional, element)
        given = positional[position]
        operands = [a.value for a in call.args if a.keyword is None and not a.star] \
            if mapped and not any(a.star for a in call.args) else None
        if how == "init":
            returns = [(given, self.func)]
        else:
            returns = self._returns(given, operands)
        if how == "pair":  # `(carry, ys)`: the element of what the function returns, as a pair
            if element[1] != 2:
                return None
            found = None
            if returns and all(isinstance(v, cst.Tuple) and len(v.elements) == 2 for v, _ in returns):
                found = self._container([(v.elements[element[0]].value, scope) for v, scope in returns], None)
            if found is None and element[0] == 0 and len(positional) > position + 1:
                # the carry has the structure of `init`, or the scan raises while tracing
                found = self._container([(positional[position + 1], self.func)], None)
            return found
        return self._container(returns, element)

    def _aux(self, call: cst.Call, path: tuple) -> Value | None:
        """The part at `path` of `jax.value_and_grad(f, has_aux=True)(x)` (or `jax.grad`'s, ...)
        that is, or lies in, the aux `f` returns second (`JAX_AUX_PATH`): the Python container
        `f`'s returns show there (`return loss, {"total": loss}`: a dict), its items pytrees.
        None otherwise: another part, `has_aux` not spelled `True`, or returns that show none."""
        grad = call.func
        api = self.ctx.resolves_to(grad.func, JAX_AUX_PATH)
        if api is None or not any(a.keyword is not None and a.keyword.value == "has_aux"
                                  and keyword_constant(a.value, "True") for a in grad.args):
            return None
        at = JAX_AUX_PATH[api]
        if path[:len(at)] != at or any(a.star for a in (*grad.args, *call.args)):
            return None
        positional = [a.value for a in grad.args if a.keyword is None]
        if not positional:
            return None
        returns = self._returns(positional[0], [a.value for a in call.args if a.keyword is None])
        for index, count in ((1, 2), *path[len(at):]):  # `f` returns `(output, aux)`
            if not returns or not all(isinstance(v, (cst.Tuple, cst.List)) and len(v.elements) == count
                                      and not any(isinstance(e, cst.StarredElement) for e in v.elements)
                                      for v, _ in returns):
                return None
            returns = [(v.elements[index].value, scope) for v, scope in returns]
        return self._container(returns, None)

    def _container(self, returns, element: tuple[int, int] | None) -> Value | None:
        """The Python container every one of `returns` (expression, the function it is read in)
        is, or its `element` (index, count) where each is a display of as many elements."""
        if element is not None:  # a display of as many elements, each unpacked in turn
            index, count = element
            if not returns or not all(isinstance(v, (cst.Tuple, cst.List)) and len(v.elements) == count
                                      and not any(isinstance(e, cst.StarredElement) for e in v.elements)
                                      for v, _ in returns):
                return None
            returns = [(v.elements[index].value, scope) for v, scope in returns]
        if not returns:
            return None
        found = self._merge([_Values(self.ctx, scope).of(v) for v, scope in returns])
        return Value(found.what, "pytree") if found.what in ("list", "tuple", "dict") else None

    def _returns(self, given: cst.BaseExpression, operands: list | None) -> list:
        """What the function `given` returns, each (expression, the function it is read in): a
        lambda's body, the returns of a def or of a callable object's `__call__` of this file; a
        returned parameter (not rebound) is the operand at its position in `operands`, the
        arguments the function is called with (or unknown: no entry, an empty list)."""
        ctx = self.ctx
        if isinstance(given, cst.Lambda):
            info, params, exprs = self.func, given.params, [given.body]
            bound_self = False
        else:
            info = _same_file_function(ctx, given, self.func)
            bound_self = isinstance(given, cst.Attribute)
            if info is None:
                info, bound_self = self._called_method(given), True
            if info is None or not isinstance(info.node, cst.FunctionDef):
                return []
            params = info.node.params
            exprs = [v for v in getattr(info, "returns", ()) if v is not None]
        positional = list(params.posonly_params) + list(params.params)
        if bound_self:
            positional = positional[1:]
        out = []
        for expr in exprs:
            param = self._returned_parameter(expr, info, positional)
            if param is None:
                out.append((expr, info))
            elif operands is not None and param < len(operands):
                out.append((operands[param], self.func))
            else:
                return []
        return out

    def _returned_parameter(self, expr, info, positional) -> int | None:
        """The index in `positional` of the parameter the returned `expr` is, when it is one
        (the name's one binding that reaches it is that parameter)."""
        if not isinstance(expr, cst.Name) or not positional:
            return None
        refs = self.ctx.reaching(expr, info)
        refs = list(refs or ())
        if len(refs) != 1:
            return None
        node = getattr(refs[0], "node", None)
        for i, p in enumerate(positional):
            if p is node:
                return i
        return None

    def _branch_structure(self, api: str, positional: list, element: tuple[int, int] | None) -> Value | None:
        """`lax.cond` / `lax.switch` (`JAX_BRANCH_OUTPUT`): the container one branch shows it
        returns; every branch returns the same structure, or the call raises while tracing."""
        positions, start = JAX_BRANCH_OUTPUT[api]
        if max(positions) >= len(positional):
            return None
        branches = []
        for i in positions:
            given = positional[i]
            if len(positions) == 1:  # `switch`'s list or tuple of branches
                if not isinstance(given, (cst.List, cst.Tuple)):
                    return None
                branches.extend(el.value for el in given.elements if isinstance(el, cst.Element))
            else:
                branches.append(given)
        operands = positional[start:]
        found = {self._container(self._returns(b, operands), element) for b in branches}
        found = {v.what for v in found if v is not None}
        return Value(found.pop(), "pytree") if len(found) == 1 else None

    def _called_method(self, given: cst.BaseExpression):
        """The walk record of the `__call__` a callable object runs (`jax.vmap(Multi())`, or a
        name bound to such an object), when its class is defined in this file; else None."""
        value = self.of(given)
        if value.what != "object" or not value.cls:
            return None
        return _method_info(self.ctx, value.cls, "__call__")

    def of_all(self, exprs) -> Value:
        """What every one of `exprs` is (one answer, or unknown)."""
        return self._merge([self.of(e) for e in exprs])

    def _gradient(self, call: cst.Call) -> Value:
        """`jax.grad(f)(x)`: a pytree of the structure of the argument it differentiates
        (`JAX_GRAD_SHAPED_LIKE_ARGUMENT`): a Python container when that argument is one (its
        `cls` "pytree": its items are pytrees too), an array when it is one, else "pytree" (an
        array or a container, not known which)."""
        grad = call.func
        if any(a.keyword is not None and a.keyword.value == "has_aux" for a in grad.args):
            return Value("tuple")  # `(gradients, aux)`
        if any(a.keyword is not None and a.keyword.value == "argnums" for a in grad.args) \
                or len([a for a in grad.args if a.keyword is None]) > 1:
            return Value("pytree")
        positional = [a.value for a in call.args if a.keyword is None and not a.star]
        if not positional or any(a.star for a in call.args[:1]):
            return Value("pytree")
        what = self.of(positional[0]).what
        if what == "tensor":
            return Value("tensor")
        # a container whose items are the gradients of the argument's items: pytrees too
        return Value(what, "pytree") if what in ("list", "tuple", "dict") else Value("pytree")

    def _call_shape(self, call: cst.Call) -> str:
        """What a call of a Keras object or of a def of this file gives, when its tensors may
        come in a structure: "nest" for a layer or model (an RNN with `return_state` returns a
        list), the shape of the def's returns otherwise (`return image, label`: "tuple")."""

        func = call.func
        if not isinstance(func, (cst.Name, cst.Attribute)):
            return ""
        callee = self.of(func)
        if callee.what in CALLABLE_KERAS:
            return "nest" if callee.what in ("model", "layer") else "tensor"
        info = _same_file_function(self.ctx, func, self.func)
        if info is not None:
            shape = summarise_returns(self.ctx, info).shape
            if not shape:
                # every return a Python list (`new_params = []` filled per layer): the call gives
                # one, jitted too (a jit returns the structure its Python returns)
                returns = [v for v in getattr(info, "returns", ()) if v is not None]
                kinds = {value_of(self.ctx, v, info).what for v in returns}
                if len(kinds) == 1 and kinds <= {"list", "tuple", "dict"}:
                    return kinds.pop()
            return {"tuple": "tuple", "nest": "nest"}.get(shape, "")
        return ""


_BUILTIN_RESULTS = {
    "builtins.range": "range", "builtins.enumerate": "py-iterator", "builtins.zip": "py-iterator",
    "builtins.map": "py-iterator", "builtins.filter": "py-iterator", "builtins.reversed": "py-iterator",
    "builtins.list": "list", "builtins.sorted": "list", "builtins.tuple": "tuple", "builtins.dict": "dict",
    "builtins.set": "set", "builtins.frozenset": "set", "builtins.int": "int", "builtins.len": "int",
    "builtins.round": "int", "builtins.float": "float", "builtins.str": "str", "builtins.repr": "str",
    "builtins.format": "str", "builtins.bool": "bool",
}


def _star_kind(func: FunctionInfo | None, param: cst.Param) -> str:
    if func is None:
        return ""
    params = func.node.params
    if param is params.star_arg:
        return "tuple"
    if param is params.star_kwarg:
        return "dict"
    return ""


def _keras_kind(fw, q: str) -> str:
    if q in fw.variable_constructors:
        return "rng" if ".random." in q else "variable"
    if ".optimizers." in q:
        return "optimizer"
    if ".metrics." in q:
        return "metric"
    if ".losses." in q:
        return "loss"
    if ".layers." in q:
        return "layer"
    if ".models." in q or q.rsplit(".", 1)[-1] in ("Sequential", "Model"):
        return "model"
    return "object"


def _has_yield(func: cst.FunctionDef, ctx: FileContext) -> bool:
    """The def's own body yields (nested defs and lambdas do not count). Remembered per file:
    a node's id is unique only while its tree lives, and a process analyses file after file
    (a memo across files answered for whichever def reused the id)."""
    memo = ctx.__dict__.setdefault("_yield_memo", {})
    key = id(func)
    if key not in memo:
        found = False

        def enter(node) -> bool:
            nonlocal found
            t = type(node)  # exact types: a failed isinstance against a libcst class is slow
            if t is cst.Yield:
                found = True
            return not found and t is not cst.FunctionDef and t is not cst.Lambda and t is not cst.ClassDef

        walk(func.body, enter, _nothing, TRIVIA)  # past whitespace and operators, as the analysis walk
        memo[key] = found
    return memo[key]


def _nothing(node) -> None:
    pass


def why_varies(ctx: FileContext, expr: cst.BaseExpression, func: FunctionInfo | None, loops: tuple,
            _depth: int = 0) -> str:
    """Why an argument takes a new value at each execution of the call: it is (or is computed
    from, also through locals: `scale = i * 2`) the variable of an enclosing Python loop or
    comprehension over numbers, or a counter bumped with `+=`."""
    for name in _names_in(expr):
        refs = ctx.referents(name) or ()
        for r in refs:
            node = getattr(r, "node", None)
            bound = ctx.bound_values.get(id(node)) if node is not None else None
            if isinstance(bound, cst.For) and any(loop is bound for loop in loops):
                if value_of(ctx, name, func).what in NUMBERS:
                    return f"loop variable `{name.value}`"
            comp = ctx.comprehension_targets.get(id(node)) if node is not None else None
            if comp is not None and _numbers_iterated(ctx, comp.iter, func):
                return f"comprehension variable `{name.value}`"
            if (
                bound is not None and _depth < 3 and loops and not isinstance(bound, (cst.For, cst.AugAssign))
                and any(_inside_node(ctx, node, loop) for loop in loops)
            ):
                # `scale = i * 2` in the loop body: computed from the loop variable
                why = why_varies(ctx, bound, func, loops, _depth + 1)
                if why and value_of(ctx, name, func).what in NUMBERS:
                    return f"`{name.value}`, computed from the {why}"
        # Every binding in the name's scope, also those after the call (`lr *= 0.9` at the end
        # of the loop body), which scope analysis does not count as reaching it.
        for scope in {id(r.scope): r.scope for r in refs if getattr(r, "scope", None) is not None}.values():
            for a in scope.assignments[name.value]:
                bound = ctx.bound_values.get(id(getattr(a, "node", None)))
                if isinstance(bound, cst.AugAssign) and value_of(ctx, bound.value, func).what in NUMBERS:
                    return f"counter `{name.value}`"
    return ""


def rises_every_execution(ctx: FileContext, expr: cst.BaseExpression, loops: tuple) -> bool:
    """The argument is a local Python int that is new at every execution of the call within one
    run of its function (a global step): bound once outside the loops around the call (`steps =
    0`), then only raised, by `steps += <positive int literal>`, one such statement standing in
    the innermost loop's own body before the statement that holds the call (so every iteration
    that reaches the call raised it first). Any other binding (`ep_step = 0` in the loop, a
    `for` target, a non-literal step) leaves it unshown."""
    if not isinstance(expr, cst.Name) or not loops or not isinstance(loops[-1], (cst.For, cst.While)):
        return False
    refs = ctx.referents(expr) or ()
    scopes = {id(r.scope): r.scope for r in refs if getattr(r, "scope", None) is not None}
    if len(scopes) != 1:
        return False
    (scope,) = scopes.values()
    if not isinstance(scope, FunctionScope):
        return False
    body = loops[-1].body.body if isinstance(loops[-1].body, cst.IndentedBlock) else ()
    at = next((i for i, stmt in enumerate(body) if ctx.inside(expr, stmt)), None)
    inits, raised_before = 0, False
    for a in scope.assignments[expr.value]:
        node = getattr(a, "node", None)
        bound = ctx.bound_values.get(id(node))
        if isinstance(bound, cst.AugAssign):
            if not (isinstance(bound.operator, cst.AddAssign) and isinstance(bound.value, cst.Integer)
                    and int(bound.value.evaluated_value) > 0):
                return False
            raised_before = raised_before or (at is not None and any(
                isinstance(stmt, cst.SimpleStatementLine) and any(small is bound for small in stmt.body)
                for stmt in body[:at]))
        elif isinstance(bound, cst.Integer) and not any(ctx.inside(node, loop) for loop in loops):
            inits += 1
        else:
            return False
    return inits == 1 and raised_before


def loop_sources(ctx: FileContext, expr: cst.BaseExpression, loops: tuple, _depth: int = 0) -> list[str]:
    """The variables of the enclosing `loops` (their `for` targets) that `expr` reads, directly or
    through locals assigned in those loops' bodies (`n = (task + 1) * k`), whatever their kind: a
    value computed from them is bound anew with them on each iteration. A local's own sources
    are found once per file for each loop nest (the arguments of the calls in a loop read the
    same locals again and again)."""
    out: list[str] = []
    if not loops:
        return out
    memo = ctx.memo.setdefault("loop_sources", {})
    for name in name_loads(expr):
        for r in ctx.referents(name) or ():
            node = getattr(r, "node", None)
            bound = ctx.bound_values.get(id(node)) if node is not None else None
            if isinstance(bound, cst.For) and any(loop is bound for loop in loops):
                found = [name.value]
            elif isinstance(bound, cst.BaseExpression) and _depth < 3:
                key = (id(node), id(bound), tuple(map(id, loops)), _depth)
                found = memo.get(key)
                if found is None:
                    inside = any(_inside_node(ctx, node, loop) for loop in loops)
                    found = memo[key] = loop_sources(ctx, bound, loops, _depth + 1) if inside else []
            else:
                continue
            out.extend(n for n in found if n not in out)
    return out


def _loop_values(ctx: FileContext, expr: cst.BaseExpression, loops: tuple) -> int:
    """How many values `expr` takes when it is the variable of an enclosing loop over `range(...)`
    of integer literals or a literal tuple/list of numbers (`for axis in range(3)`: 3); else 0."""
    if not isinstance(expr, cst.Name):
        return 0
    for r in ctx.referents(expr) or ():
        loop = ctx.bound_values.get(id(getattr(r, "node", None)))
        if not isinstance(loop, cst.For) or not any(loop is outer for outer in loops) \
                or not isinstance(loop.target, cst.Name):
            return 0
        iterable = loop.iter
        if isinstance(iterable, (cst.Tuple, cst.List)) and iterable.elements and all(
                isinstance(el.value, (cst.Integer, cst.Float)) for el in iterable.elements):
            return len(iterable.elements)
        if isinstance(iterable, cst.Call) and "builtins.range" in ctx.qualified_names(iterable.func) \
                and 1 <= len(iterable.args) <= 3 and all(isinstance(a.value, cst.Integer) and a.keyword is None
                                                        for a in iterable.args):
            try:
                return len(range(*(int(a.value.value, 0) for a in iterable.args)))
            except ValueError:
                return 0
        return 0
    return 0


def _numbers_iterated(ctx: FileContext, iterable, func) -> bool:
    """`range(...)`, or a literal tuple/list of numbers."""
    if isinstance(iterable, cst.Call) and "builtins.range" in ctx.qualified_names(iterable.func):
        return True
    if isinstance(iterable, (cst.Tuple, cst.List)) and iterable.elements:
        return all(value_of(ctx, el.value, func).what in NUMBERS for el in iterable.elements)
    return False


def _inside_node(ctx: FileContext, node, container) -> bool:
    try:
        return ctx.inside(node, container)
    except KeyError:
        return False


def _names_in(expr: cst.BaseExpression):
    if isinstance(expr, cst.Name):
        yield expr
    elif isinstance(expr, cst.BinaryOperation):
        yield from _names_in(expr.left)
        yield from _names_in(expr.right)
    elif isinstance(expr, cst.UnaryOperation):
        yield from _names_in(expr.expression)


def range_iterated(ctx: FileContext, iterable: cst.BaseExpression) -> cst.Call | None:
    """The `range(...)` call a loop iterates: the iterable itself, or under `reversed(...)` (the
    same numbers, last first: `for i in reversed(range(T))` unrolls as `range(T)` does)."""
    while isinstance(iterable, cst.Call) and "builtins.reversed" in ctx.qualified_names(iterable.func) \
            and len(iterable.args) == 1:
        iterable = iterable.args[0].value
    if isinstance(iterable, cst.Call) and "builtins.range" in ctx.qualified_names(iterable.func):
        return iterable
    return None


def leading_dimension_of(expr: cst.BaseExpression) -> cst.BaseExpression | None:
    """The array whose first dimension `expr` reads, `x` of `x.shape[0]`: `range(x.shape[0])`
    counts the rows of `x`, as `for row in x` does (JAX 0.10.2 unrolls both into the same program,
    one copy of the body per row: tests/runtime/test_jax_recall_facts.py)."""
    if (
        isinstance(expr, cst.Subscript) and len(expr.slice) == 1 and isinstance(expr.slice[0].slice, cst.Index)
        and isinstance(expr.slice[0].slice.value, cst.Integer) and expr.slice[0].slice.value.value == "0"
        and isinstance(expr.value, cst.Attribute) and expr.value.attr.value == "shape"
    ):
        return expr.value.value
    return None


def loop_kind(ctx: FileContext, loop: cst.For | cst.While, func: FunctionInfo | None) -> tuple[str, frozenset[str]]:
    """How AutoGraph treats a loop in staged code: ("converted", params) when it becomes a graph
    loop (over a tensor, `tf.range`, `range(<tensor>)`, a dataset or `tf.data` iterator, `while`
    on a tensor); ("python", params) when it runs in Python at trace time; the params are the
    parameters whose call-site values decide it ("maybe" when only they do)."""
    if isinstance(loop, cst.While):
        t = tensorness(ctx, loop.test, func)
        if t.definite:
            return "converted", frozenset()
        return ("maybe", t.params) if t.params else ("python", frozenset())
    it = loop.iter
    if isinstance(it, cst.Call):
        names = ctx.qualified_names(it.func)
        if names & {"builtins.enumerate", "builtins.zip", "builtins.iter"}:
            # AutoGraph converts these over datasets only (over a tensor they raise: STG602).
            params = set()
            for a in it.args:
                if isinstance(a.value, cst.Name) and func is not None and ctx.binding_kind(a.value, func) == "param":
                    params.add(a.value.value)
                elif value_of(ctx, a.value, func).what not in ("dataset", "data-iterator"):
                    return "python", frozenset()
            if not it.args:
                return "python", frozenset()
            return ("maybe", frozenset(params)) if params else ("converted", frozenset())
    value = value_of(ctx, it, func)
    if value.what in ("tensor", "dataset", "data-iterator"):
        return "converted", frozenset()
    if value.what in ("list", "tuple", "dict", "set", "str"):
        return "python", frozenset()  # `for offset in [o1, o2, o3]`: a Python list of tensors
    t = tensorness(ctx, loop, func)
    if t.definite:
        return "converted", frozenset()
    if isinstance(it, cst.Name) and func is not None and ctx.binding_kind(it, func) == "param":
        return "maybe", frozenset({it.value})
    if t.params:
        return "maybe", t.params
    return "python", frozenset()


# Per-function summaries (`analysis.values.Summaries` finishes them in the project phase) ----------


@dataclass
class Summary:
    """What a function's returns are, in terms the project phase can finish: a tensor for sure
    (`definite`), a tensor when the arguments for `params` are, or what the project functions
    it returns the result of (`calls`, targets) return."""

    definite: bool = False
    params: tuple = ()
    calls: tuple = ()
    #: the shape of what it returns: "tensor" (one), "tuple" (a tuple or list display, of
    #: tensors or not), "nest" (sometimes one, sometimes another), "" (unknown)
    shape: str = ""


def summarise_returns(ctx, info) -> Summary:
    """The return summary of one function of the file being walked (memoised per function)."""
    memo = ctx.memo.setdefault("return_summaries", {})
    key = id(info.node)
    if key in memo:
        return memo[key] or Summary()
    memo[key] = None  # recursion: a function returning its own call knows nothing more
    definite, params, calls, shapes = False, set(), set(), set()
    returns = getattr(info, "returns", ())
    for value in returns:
        if value is None or keyword_constant(value, "None"):
            continue
        t = tensorness(ctx, value, info)
        if not (t.definite or t.params or t.calls):
            # a return that is no tensor (`return pred_value` of `tf.get_static_value`): what the
            # function returns depends on its path, so the summary claims nothing
            memo[key] = Summary(shape="nest" if shapes else "")
            return memo[key]
        definite = definite or t.definite
        params |= t.params
        calls |= t.calls
        if isinstance(value, (cst.Tuple, cst.List)):
            shapes.add("tuple")
        else:
            what = value_of(ctx, value, info).what
            shapes.add("tuple" if what in ("tuple", "list") else what if what in ("tensor", "nest") else "")
    shape = shapes.pop() if len(shapes) == 1 else "nest" if shapes else ""
    out = Summary(definite, tuple(sorted(params)), tuple(sorted(calls)), shape)
    memo[key] = out
    return out


def list_tout(call: cst.Call, qualified: str) -> bool:
    """`tf.numpy_function(f, inp, [tf.float32, tf.int32])` (`py_function`, `py_func`): a Python
    list of tensors, one per dtype of a list or tuple `Tout` (`FW.LIST_TOUT_OPS`)."""
    from stagelint import frameworks as FW

    if FW.canonical_tf_name(qualified) not in FW.LIST_TOUT_OPS:
        return False
    tout = passed_argument(call, 2, "Tout")
    return tout is not None and isinstance(tout.value, (cst.List, cst.Tuple))
