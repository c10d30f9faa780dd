"""What a function does besides computing a value: the TensorFlow state ops it runs (a summary per
function, followed through the file's own helpers).

A trace-time guard (`if not self.warmed:`) that runs a state op and flips a Python flag bakes the
op into every call's graph (STG105, and STG102 for the flag); whether the block runs one must not
depend on whether the op is written in the block or in a helper it calls (`self._warm(x)`). A
function's summary is the first state op its own body runs, directly or through a call of a
function or method of the same file, memoised per function: each body is read once per file,
so the cost is linear in the file. Across files, each function's own first state op is a fact
(`FunctionFacts.state_op`, recorded during the walk) and the project phase propagates it to the
callers to a fixpoint (`project_state_op`): a worklist over reverse call edges, linear in them.
"""

from __future__ import annotations

import libcst as cst

from stagelint.analysis.memo import once
from stagelint.frameworks import STATEFUL_METHODS, STATEFUL_OPS, canonical_tf_name

#: The stateful ops a trace-time guard wrongly makes unconditional: output, checks, summaries,
#: variable updates (random draws, configuration and data pipelines are not "state ops" here).
STATE_PREFIXES = ("tensorflow.debugging.", "tensorflow.summary.", "tensorflow.raw_ops.",
                  "tensorflow.assert_", "tensorflow.scatter_", "tensorflow.lookup.")
#: How many helpers deep a call is followed.
MAX_DEPTH = 6


def state_op(ctx, call: cst.Call) -> str | None:
    """The TensorFlow state change a call makes itself (`v.assign_add(...)`, `tf.print(...)`)."""
    from stagelint.analysis.context import short_code

    if isinstance(call.func, cst.Attribute) and call.func.attr.value in STATEFUL_METHODS:
        return f"{short_code(call.func)}(...)"
    for q in ctx.qualified_names(call.func):
        canonical = canonical_tf_name(q)
        if canonical in STATEFUL_OPS or canonical.startswith(STATE_PREFIXES):
            return f"{short_code(call.func)}(...)"
    return None


def runs_state_op(ctx, call: cst.Call, owner: tuple = (None, None), _depth: int = 0) -> str | None:
    """The state op a call runs: its own, or the first one the body of the function of this file
    it calls runs (`self._warm(x)` -> `self.total.assign_add(...)`).
    `owner` is (the class statement, the name of `self`) when the call is made in a method."""
    own = state_op(ctx, call)
    if own or _depth >= MAX_DEPTH:
        return own
    for node, cls in callee_defs(ctx, call, owner):
        found = function_state_op(ctx, node, cls, _depth + 1)
        if found:
            return found
    return None


def function_state_op(ctx, node: cst.FunctionDef, cls: cst.ClassDef | None = None, _depth: int = 0) -> str:
    """The summary: the first state op `node`'s body runs (nested defs and `tf.init_scope()`
    blocks aside), "" for none. Memoised per function."""
    memo = ctx.memo.setdefault("state_ops", {})
    key = id(node)
    if key in memo:
        return memo[key] or ""
    memo[key] = None  # recursion: a function calling itself adds nothing
    found = ""
    params = node.params.posonly_params or node.params.params
    owner = (cls, params[0].name.value if cls is not None and params else None)
    stack = [node.body]
    while stack and not found:
        n = stack.pop()
        t = type(n)  # exact types: a failed isinstance against a libcst class is slow
        if t is cst.FunctionDef or t is cst.ClassDef or t is cst.Lambda:
            continue
        if t is cst.With and ctx.is_lifting_scope(n):
            continue
        if t is cst.Call:
            found = runs_state_op(ctx, n, owner, _depth) or ""
        stack.extend(reversed(n.children))
    memo[key] = found
    return found


def callee_defs(ctx, call: cst.Call, owner: tuple):
    """The definitions of this file a call may run: (FunctionDef, its class or None); a method
    through `self` (`owner` = (class statement, name of `self`)), of that class's own body."""
    cls, self_name = owner
    func = call.func
    if isinstance(func, cst.Name):
        for b in ctx.bindings_of(func):
            node = getattr(b, "node", None)
            if isinstance(node, cst.FunctionDef):
                yield node, None
    elif (isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name)
          and func.value.value == self_name and cls is not None):
        for stmt in cls.body.body:
            if isinstance(stmt, cst.FunctionDef) and stmt.name.value == func.attr.value:
                yield stmt, cls


def project_state_op(project, key) -> str:
    """Project phase: the first state op the function `key` runs, itself or through the project
    functions it calls (plain calls, not function references), "" for none."""
    return once(project, "_state_ops", lambda: _propagate(project)).get(key, "")


def _propagate(project) -> dict:
    ops: dict = {}
    callers: dict = {}
    todo = []
    for name, m in project.modules.items():
        for q, f in m.functions.items():
            key = (name, q)
            if f.state_op:
                ops[key] = f.state_op
                todo.append(key)
            for edge in f.calls:
                if edge.kind != "call":
                    continue
                callee = project.resolve(name, edge.target)
                if callee is not None:
                    callers.setdefault(callee, []).append(key)
    while todo:  # each function enters once: linear in the call edges
        key = todo.pop()
        for caller in callers.get(key, ()):
            if caller not in ops:
                ops[caller] = ops[key]
                todo.append(caller)
    return ops
