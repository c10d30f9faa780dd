"""A Python value rebound together with the batch size of the data a loop hands a Function.

A tf.function without an input_signature is keyed on the concrete shapes of its tensor arguments
(`frameworks.DATASET_BATCHING_METHODS`). A loop iteration that rebinds a global to `bs` and
batches, by the same `bs`, the dataset it hands on (`BATCH_SIZE = bs; ds = ....batch(bs);
train(model, ds)`, or `for x in ds: step(x)`) gives the Function a new shape whenever the value is
new, and that shape's trace reads the new value: the rebinding is not read stale by the full
batches. Whether a trace is reused with the old value depends on what this code does not show:
a smaller last batch of a size traced before (the row count), the Function's `input_signature` or
`reduce_retracing`, and whether the batches are what the Function is given. So a finding whose
only change is such a rebinding is a guess (the preview tier)."""

from __future__ import annotations

import libcst as cst

from stagelint.analysis.arguments import passed_argument
from stagelint.analysis.trivia import inner_nodes
from stagelint.frameworks import DATASET_BATCHING_METHODS


def fed_batches_of(ctx, write: cst.Name, loop: cst.CSTNode, func) -> list[int]:
    """Lines of the calls in `loop` handed a `tf.data` dataset the loop batches by the value the
    binding `write` makes (`BATCH_SIZE = bs` with `.batch(bs)`, or `.batch(BATCH_SIZE)`): the
    dataset by name (`train(model, ds)`), or an element of a `for` over it (`for x in ds:
    step(x)`); [] when there is none. `func` is the function holding the loop (None: module)."""
    value = ctx.bound_values.get(id(write))
    nodes = _subtree(ctx, loop)
    datasets = []  # Name targets bound to a dataset batched by the value
    for node in nodes:
        if not isinstance(node, cst.Assign) or len(node.targets) != 1 \
                or not isinstance(node.targets[0].target, cst.Name):
            continue
        batch = _batching_call(node.value)
        if batch is None:
            continue
        size = passed_argument(batch, *DATASET_BATCHING_METHODS[batch.func.attr.value])
        if size is None or not _same_value(ctx, size.value, write, value):
            continue
        if not _is_dataset(ctx, batch.func.value, func):
            continue
        datasets.append(node.targets[0].target)
    if not datasets:
        return []
    bound = {id(d) for d in datasets}

    def of_dataset(name) -> bool:
        return isinstance(name, cst.Name) and any(id(getattr(r, "node", None)) in bound
                                                  for r in ctx.referents(name) or ())
    lines = []
    elements: list[tuple[cst.For, set[str]]] = []
    for node in nodes:
        if isinstance(node, cst.For) and of_dataset(node.iter):
            elements.append((node, {n.value for n in _target_names(node.target)}))
    for node in nodes:
        if not isinstance(node, cst.Call):
            continue
        for arg in node.args:
            if of_dataset(arg.value) or (isinstance(arg.value, cst.Name) and any(
                    arg.value.value in names and ctx.inside(node, f.body) for f, names in elements)):
                lines.append(ctx.position(node).line)
                break
    return lines


def _subtree(ctx, loop) -> list:
    """Every node of `loop` (a scan of that subtree, once per loop of the file)."""
    memo = ctx.memo.setdefault("batch_keyed_subtree", {})
    found = memo.get(id(loop))
    if found is None:
        found, stack = [], [loop]
        while stack:
            n = stack.pop()
            found.append(n)
            stack.extend(inner_nodes(n))
        memo[id(loop)] = found
    return found


def _batching_call(expr) -> cst.Call | None:
    """The batching call (`.batch(n)`) on the method chain `expr` ends with, down through
    the methods applied after it (`.batch(n).prefetch(1)`)."""
    while isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute):
        if expr.func.attr.value in DATASET_BATCHING_METHODS:
            return expr
        expr = expr.func.value
    return None


def _same_value(ctx, size, write: cst.Name, value) -> bool:
    """The batch size is the global the write binds, or a name bound as the write's value is
    (the same bindings reach both)."""
    if not isinstance(size, cst.Name):
        return False
    if size.value == write.value:
        return True
    if not isinstance(value, cst.Name) or size.value != value.value:
        return False
    a, b = ctx.referents(size), ctx.referents(value)
    return bool(a) and {id(r) for r in a} == {id(r) for r in b or ()}


def _is_dataset(ctx, receiver, func) -> bool:
    from stagelint.analysis.tensors import value_of

    while True:
        if value_of(ctx, receiver, func).what == "dataset":
            return True
        if not (isinstance(receiver, cst.Call) and isinstance(receiver.func, cst.Attribute)):
            return False
        receiver = receiver.func.value


def _target_names(target) -> list[cst.Name]:
    if isinstance(target, cst.Name):
        return [target]
    if isinstance(target, (cst.Tuple, cst.List)):
        return [n for el in target.elements for n in _target_names(el.value)]
    return []
