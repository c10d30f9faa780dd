"""Which calls hand a function to a `tf.data` transformation, which traces it into a graph.

`ds.map(parse)`, `ds.filter(self._keep)`, `ds.reduce(0, add)`, `ds.apply(tf.data.experimental.scan(0, f))`
and `tf.data.experimental.map_and_batch(parse, 32)` trace their function once per dataset,
whatever runs them: a `print` in it runs once, `np.random` in it is one constant, and Python state
it changes changes once (TF 2.21, checked in `stagelint.frameworks.DATASET_FUNCTION_METHODS`).

`map`, `filter` and `reduce` are common method names (pandas, multiprocessing), so a method call
counts only when the receiver is shown to be a dataset: built by `tf.data` or a dataset factory
(`stagelint.analysis.tensors.value_of`), chained after a method only datasets have (`.batch(...).map(f)`),
a name that the same function also calls such a method on (`ds = ds.map(f); ds = ds.batch(8)`),
or a call that passes a keyword only dataset transformations take (`num_parallel_calls=`).
"""

from __future__ import annotations

import libcst as cst

from stagelint import frameworks as FW
from stagelint.analysis.arguments import passed_argument
from stagelint.analysis.trivia import inner_nodes


def function_arguments(ctx, node: cst.Call, names: set[str]) -> list[cst.BaseExpression]:
    """The expressions a call passes as functions a `tf.data` transformation traces, or []."""
    spec = None
    for q in sorted(names):
        spec = FW.DATASET_FUNCTION_TRANSFORMS.get(FW.canonical_tf_name(q))
        if spec is not None:
            break
    if spec is None:
        if not isinstance(node.func, cst.Attribute) or names & {"builtins.map", "builtins.filter"}:
            return []
        spec = FW.DATASET_FUNCTION_METHODS.get(node.func.attr.value)
        if spec is None or not _is_dataset_call(ctx, node):
            return []
    args = (passed_argument(node, index, keyword) for index, keyword in spec)
    return [arg.value for arg in args if arg is not None]


def _is_dataset_call(ctx, node: cst.Call) -> bool:
    if any(a.keyword is not None and a.keyword.value in FW.DATASET_ONLY_KEYWORDS for a in node.args):
        return True
    return is_dataset(ctx, node.func.value)


def is_dataset(ctx, expr: cst.BaseExpression, _depth: int = 0) -> bool:
    from stagelint.analysis.tensors import value_of

    if value_of(ctx, expr, ctx.function).what == "dataset":
        return True
    if isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute) and _depth < 8:
        method = expr.func.attr.value
        if method in FW.DATASET_ONLY_METHODS:
            return True
        if method in FW.DATASET_FUNCTION_METHODS or method in ("take", "skip", "repeat", "apply", "concatenate"):
            return is_dataset(ctx, expr.func.value, _depth + 1)
    if isinstance(expr, cst.Name):
        return expr.value in _dataset_names(ctx)
    return False


def _dataset_names(ctx) -> frozenset[str]:
    """Names the current function (or module) calls a dataset-only method on (`ds.batch(8)`)."""
    func = ctx.function
    memo = ctx.memo.setdefault("dataset_names", {})
    key = id(func.node) if func is not None else 0
    found = memo.get(key)
    if found is None:
        names = set()
        stack = [func.node] if func is not None else [ctx.module_node] if getattr(ctx, "module_node", None) else []
        while stack:
            node = stack.pop()
            if (
                isinstance(node, cst.Call)
                and isinstance(node.func, cst.Attribute)
                and isinstance(node.func.value, cst.Name)
                and node.func.attr.value in FW.DATASET_ONLY_METHODS
            ):
                names.add(node.func.value.value)
            stack.extend(inner_nodes(node))
        found = memo[key] = frozenset(names)
    return found
