"""Which calls hand a function to a `tf.data` transformation, which traces it into a graph.

`ds.map(parse)`, `ds.filter(self._keep)`, `ds.reduce(0, add)`, `ds.apply(tf.data.experimental.scan(0, f))`
and `tf.data.experimental.map_and_batch(parse, 32)` trace their function once per dataset,
whatever runs them: a `print` in it runs once, `np.random` in it is one constant, and Python state
it changes changes once (TF 2.21, checked in `stagelint.frameworks.DATASET_FUNCTION_METHODS`).

`map`, `filter` and `reduce` are common method names (pandas, multiprocessing, and the data
pipelines that are not `tf.data`: Hugging Face `datasets`, torchdata, grain, whose `map` calls the
function as Python on each example, tracing nothing), so a method call counts only when the
receiver is shown to be a dataset. What shows it is where the value comes from, the sources of
`tf.data` (`stagelint.analysis.tensors.value_of`): `tf.data` itself, a dataset factory
(`frameworks.DATASET_FACTORIES`: `tfds.load`, Keras' `*_dataset_from_directory`), a method that
makes one (`frameworks.DATASET_MAKING_METHODS`: `hf_ds.to_tf_dataset(...)`,
`model.prepare_tf_dataset(...)`, `tfds.builder(name).as_dataset(...)`), a dataset's own methods;
else a method or keyword only datasets have, on the receiver or chained before the call
(`.padded_batch(8).map(f)`, `num_parallel_calls=`), or a name the same function also calls such a
method on (`ds = ds.map(f); ds = ds.with_options(o)`). A value whose root is a known pipeline
that is not `tf.data` (`frameworks.PYTHON_DATA_SOURCES`: `datasets.load_dataset(...)`) is no
dataset, whatever methods follow. A receiver of unknown origin (a parameter) shown only by
methods other pipelines share (`frameworks.DATASET_SHARED_METHODS`: `.shuffle(...)`,
`.batch(...)`) is a dataset as a guess: its functions are entry points of the preview tier
(`dataset_call`'s reason, `staging.Project.staging_unshown`).
"""

from __future__ import annotations

import libcst as cst

from stagelint import frameworks as FW
from stagelint.analysis.arguments import passed_argument
from stagelint.analysis.context import short_code
from stagelint.analysis.trivia import inner_nodes


#: Methods of a dataset whose result is a dataset (a chain of them keeps its root's kind).
_DATASET_METHODS = (FW.DATASET_ONLY_METHODS | FW.DATASET_SHARED_METHODS | frozenset(FW.DATASET_FUNCTION_METHODS)
                    | FW.DATASET_CHAIN_METHODS) - FW.DATASET_NON_DATASET_METHODS

#: How sure a receiver is a `tf.data.Dataset` (`_receiver`): shown, a guess, or not one.
_SHOWN, _NOT = "shown", "not"


def dataset_call(ctx, node: cst.Call, names: set[str]) -> tuple[list[cst.BaseExpression], str]:
    """The expressions a call passes as functions a `tf.data` transformation traces ([] when
    none), and, when the receiver is a dataset only as a guess, why ("" when shown)."""
    spec = None
    for q in sorted(names):
        spec = FW.DATASET_FUNCTION_TRANSFORMS.get(FW.canonical_tf_name(q))
        if spec is not None:
            break
    guess = ""
    if spec is None:
        if not isinstance(node.func, cst.Attribute) or names & {"builtins.map", "builtins.filter"}:
            return [], ""
        spec = FW.DATASET_FUNCTION_METHODS.get(node.func.attr.value)
        if spec is None:
            return [], ""
        if any(a.keyword is not None and a.keyword.value in FW.DATASET_ONLY_KEYWORDS for a in node.args):
            found = _SHOWN
        else:
            found = _receiver(ctx, node.func.value)
        if found == _NOT or not found:
            return [], ""
        if found != _SHOWN:
            guess = (f"`{short_code(node.func.value)}` is a `tf.data.Dataset` only as a guess: the code calls "
                     f"`.{found}(...)` on it, which other data pipelines have too (Hugging Face `datasets`, "
                     f"torchdata, grain: their `{node.func.attr.value}` calls the function as Python on each "
                     f"element, tracing nothing), and does not show where it comes from")
    args = (passed_argument(node, index, keyword) for index, keyword in spec)
    return [arg.value for arg in args if arg is not None], guess


def is_dataset(ctx, expr: cst.BaseExpression) -> bool:
    """`expr` is shown to be a `tf.data.Dataset` (a guess is not)."""
    return _receiver(ctx, expr) == _SHOWN


def _receiver(ctx, expr: cst.BaseExpression, _depth: int = 0) -> str:
    """`_SHOWN` when `expr` is shown to be a dataset, `_NOT` when its root is a pipeline that is
    not `tf.data`, the shared method that makes it one as a guess, or "" (unknown)."""
    from stagelint.analysis.tensors import value_of

    what = value_of(ctx, expr, ctx.function).what
    if what == "dataset":
        return _SHOWN
    if what == "pydata":
        return _NOT
    if isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute) and _depth < 8:
        method = expr.func.attr.value
        if method in FW.DATASET_ONLY_METHODS:
            return _SHOWN
        shared = method in FW.DATASET_SHARED_METHODS
        if shared or method in FW.DATASET_FUNCTION_METHODS or method in FW.DATASET_CHAIN_METHODS:
            found = _receiver(ctx, expr.func.value, _depth + 1)
            return found or (method if shared else "")
    if isinstance(expr, cst.Name):
        return _dataset_names(ctx).get(expr.value, "")
    return ""


def _dataset_names(ctx) -> dict[str, str]:
    """Names the current function (or module) calls a method on that only datasets have
    (`ds.padded_batch(8)`: -> `_SHOWN`), else one other pipelines share (`ds.shuffle(100)`: ->
    that method, a guess)."""
    func = ctx.function
    memo = ctx.memo.setdefault("dataset_names", {})
    key = id(func.node) if func is not None else 0
    found = memo.get(key)
    if found is None:
        names: dict[str, str] = {}
        stack = [func.node] if func is not None else [ctx.module_node] if getattr(ctx, "module_node", None) else []
        while stack:
            node = stack.pop()
            if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) \
                    and (node.func.attr.value in FW.DATASET_ONLY_METHODS
                         or node.func.attr.value in FW.DATASET_SHARED_METHODS):
                # down the chain to its root name (`ds.batch(32).prefetch(1)`: `ds`, shown by
                # `prefetch`, whose receiver `ds.batch(32)` is a dataset, so `ds` is one)
                method, at = node.func.attr.value, node.func.value
                while isinstance(at, cst.Call) and isinstance(at.func, cst.Attribute) \
                        and at.func.attr.value in _DATASET_METHODS:
                    at = at.func.value
                if isinstance(at, cst.Name):
                    name = at.value
                    if method in FW.DATASET_ONLY_METHODS:
                        names[name] = _SHOWN
                    else:
                        names.setdefault(name, method)
            stack.extend(inner_nodes(node))
        found = memo[key] = names
    return found


def element_components(ctx, node: cst.Call) -> int:
    """How many positional arguments the function of `node`, a dataset's `map`, `filter`,
    `flat_map` or `interleave` call, is given: the element's top-level tuple components, and
    nothing by keyword (`FW.DATASET_ELEMENT_CALLS`); 0 when the code does not show the element's
    structure (another call, a method that makes new elements, a tuple the code does not spell)."""
    if not isinstance(node.func, cst.Attribute) or node.func.attr.value not in FW.DATASET_ELEMENT_CALLS:
        return 0
    return _components(ctx, node.func.value, 0)


def _components(ctx, expr: cst.BaseExpression, depth: int) -> int:
    from stagelint.analysis.tensors import value_of

    if depth > 12:
        return 0
    if isinstance(expr, cst.Name):
        refs = list(ctx.reaching_in_order(expr, ctx.function) or ())
        values = [ctx.bound_values.get(id(getattr(r, "node", None))) for r in refs]
        if len(values) != 1 or values[0] is None or id(refs[0].node) in ctx.unpacked_names:
            return 0  # (several bindings, a parameter, an element unpacked from a tuple: not shown)
        return _components(ctx, values[0], depth + 1)
    if not isinstance(expr, cst.Call):
        return 0
    if isinstance(expr.func, cst.Attribute) and expr.func.attr.value in FW.DATASET_COMPONENT_KEEPING_METHODS \
            and is_dataset(ctx, expr.func.value):
        return _components(ctx, expr.func.value, depth + 1)
    names = {FW.canonical_tf_name(q) for q in ctx.qualified_names(expr.func)}
    if names & FW.DATASET_ONE_COMPONENT_SOURCES:
        return 1
    positional = [a for a in expr.args if a.keyword is None]
    if any(a.star for a in expr.args):
        return 0
    if FW.DATASET_ZIP in names:
        if len(positional) == 1 and isinstance(positional[0].value, cst.Tuple):
            return _tuple_length(positional[0].value)
        return len(positional) if len(positional) > 1 else 0
    if names & FW.DATASET_STRUCTURE_SOURCES and positional:
        value = positional[0].value
        if isinstance(value, cst.Tuple):
            return _tuple_length(value)
        if isinstance(value, (cst.List, cst.Dict)) or value_of(ctx, value, ctx.function).what in ("ndarray", "tensor"):
            return 1
    return 0


def _tuple_length(expr: cst.Tuple) -> int:
    return 0 if any(isinstance(el, cst.StarredElement) for el in expr.elements) else len(expr.elements)
