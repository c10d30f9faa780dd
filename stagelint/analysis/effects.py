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


def call_rebinds(ctx, call: cst.Call, owner: tuple = (None, None), _depth: int = 0) -> frozenset:
    """The Python state a call of a function of this file rebinds, named as the caller sees it:
    ("attr", name of `self`, attribute) for a method through `self` that assigns `self.attr`
    (`self._initialize_weights(x)` -> `self._initialized = True`), ("name", n) for a function
    that assigns a name it declares `global`; followed through the helpers those call the same
    way. A store of a new variable (`self.v = tf.Variable(...)`) is not a rebinding here: it is
    the first-call guard of STG402. Python runs the helper's body only while the caller is
    traced, as it runs the caller's own statements."""
    if _depth >= MAX_DEPTH:
        return frozenset()
    out = set()
    for node, cls in callee_defs(ctx, call, owner):
        for kind, name in function_rebinds(ctx, node, cls, _depth + 1):
            if kind == "attr" and cls is not None:
                out.add(("attr", owner[1], name))
            elif kind == "name":
                out.add(("name", name))
    return frozenset(out)


def function_rebinds(ctx, node: cst.FunctionDef, cls: cst.ClassDef | None = None, _depth: int = 0) -> frozenset:
    """The summary: ("attr", a) for each `self.a = ...` / `self.a += ...` of the function's body on
    its own first parameter (a method of `cls`), ("name", n) for each name it declares `global`
    and assigns; also through the calls of this file's functions and `self` methods it makes
    (nested defs aside). Memoised per function."""
    memo = ctx.memo.setdefault("rebinds", {})
    key = id(node)
    if key in memo:
        return memo[key] or frozenset()
    memo[key] = None  # recursion: a function calling itself adds nothing
    params = node.params.posonly_params or node.params.params
    self_name = params[0].name.value if cls is not None and params else None
    declared: set[str] = set()
    own: set[tuple] = set()
    through: set[tuple] = set()
    stack = [node.body]
    while stack:
        n = stack.pop()
        t = type(n)
        if t is cst.FunctionDef or t is cst.ClassDef or t is cst.Lambda:
            continue
        if t is cst.Global:
            declared.update(a.name.value for a in n.names)
        elif t is cst.Assign:
            if not _creates_variable(ctx, n.value):
                for target in n.targets:
                    own.update(_rebound(target.target, self_name))
        elif t is cst.AugAssign or (t is cst.AnnAssign and n.value is not None):
            own.update(_rebound(n.target, self_name))
        elif t is cst.Call:
            through.update((k, parts[-1]) for k, *parts in call_rebinds(ctx, n, (cls, self_name), _depth))
        stack.extend(reversed(n.children))
    result = frozenset({(k, v) for k, v in own if k == "attr" or v in declared} | through)
    memo[key] = result
    return result


def _rebound(target, self_name: str | None) -> set:
    """("attr", a) for `<self>.a`, ("name", n) for a plain name; in tuples and lists too."""
    t = type(target)
    if t is cst.Attribute and type(target.value) is cst.Name and self_name and target.value.value == self_name:
        return {("attr", target.attr.value)}
    if t is cst.Name:
        return {("name", target.value)}
    if t is cst.Tuple or t is cst.List:
        return set().union(*(_rebound(e.value, self_name) for e in target.elements))
    return set()


def _creates_variable(ctx, value) -> bool:
    return isinstance(value, cst.Call) and any(
        ctx.framework.creates_variables(q) for q in ctx.qualified_names(value.func))


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


# What a trace-time value reaches ------------------------------------------------------------------

def only_printed(ctx, func, call: cst.Call) -> bool:
    """`call`'s value reaches nothing but Python output the same function runs while it is traced:
    it is bound, through formatting alone, to a local name bound nowhere else (`pref = "[" +
    time.ctime() + "]"`), and every read of that name is an argument of a print or logging call
    of the function's own body (`print(pref, *msg)`), not of a function defined in it (a lambda
    handed to `jax.debug.callback` runs on every call, with the value frozen). The value is
    used up by the trace-time output: no call of the traced function, and nothing it computes,
    ever sees it, so a value frozen at trace time changes nothing there."""
    from stagelint.analysis.context import block_statements, statements_down_to
    from stagelint.frameworks import PYTHON_IO_CALLS, PYTHON_IO_PREFIXES, PYTHON_TEXT_BUILTINS

    holding = None
    for statement, holds in statements_down_to(ctx, block_statements(getattr(func.node, "body", None)),
                                               ctx.raw_position(call)[0]):
        if holds:
            holding = statement
            if isinstance(statement, (cst.FunctionDef, cst.ClassDef)):
                break  # (not into a def or class of the body: the call is not the function's own)
    if not isinstance(holding, cst.SimpleStatementLine) or len(holding.body) != 1:
        return False
    assign = holding.body[0]
    if not isinstance(assign, cst.Assign) or len(assign.targets) != 1 or not isinstance(assign.targets[0].target, cst.Name):
        return False
    target = assign.targets[0].target
    scope = ctx.scope(target)
    if not ctx.inside(call, assign.value) or scope is None or scope is not ctx.scope(func.node.body) \
            or target.value in func.declared:
        return False  # (a local of the function itself: not a `global` or `nonlocal` name)
    stack = [assign.value]
    while stack:  # the value is made by formatting the call's result alone
        node = stack.pop()
        if isinstance(node, (cst.Lambda, cst.Yield, cst.Await, cst.NamedExpr)):
            return False
        if isinstance(node, cst.Call) and node is not call and not ctx.qualified_names(node.func) & PYTHON_TEXT_BUILTINS:
            return False
        if node is not call:
            stack.extend(node.children)
    assignments = list(scope.assignments[target.value])
    if len(assignments) != 1:
        return False
    spans = []
    todo = list(block_statements(func.node.body))
    while todo:  # the print and logging calls of the function's own body (not of defs or lambdas in it)
        node = todo.pop()
        if isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
            continue
        if isinstance(node, cst.Call):
            names = ctx.qualified_names(node.func)
            if any(q in PYTHON_IO_CALLS or q.startswith(PYTHON_IO_PREFIXES) for q in names):
                spans.extend(ctx.raw_position(a.value) for a in node.args)
                continue
        todo.extend(node.children)
    references = assignments[0].references
    if not references:
        return False
    for reference in references:
        at = ctx.raw_position(reference.node)
        if not any((s[0], s[1]) <= (at[0], at[1]) and (at[2], at[3]) <= (s[2], s[3]) for s in spans):
            return False
    return True
