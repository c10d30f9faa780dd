"""Path facts: tests whose truth tells what a value is on the path they guard.

`type_dispatch`: a test that dispatches on a value's type or on which backend a module serves
(`isinstance(x, np.ndarray)`, `tf.is_tensor(x)`, `JAX_MODE`): the code under it is written for
one kind of value, and knows which. `resets_its_flag`: a block in a loop that clears the flag it
tests runs on the iterations that set it, not on each one.

`clears_its_flag`: `if self.is_virgin: <build>; self.is_virgin = False`, a block that clears the
instance flag it tests on every path and that nothing sets back, runs once per object.

`after_early_return_guard`: code below a top-level `if <done once>: return` (`if self.built:
return`, `if key in cache: return cache[key]`) runs once per object or key, eagerly as when traced.

`keras_built_test`: `if not self.built:` in a Keras layer's `call`, or after `super().build(...)` in
its `build`, tests what Keras has set already (`frameworks.tensorflow.KERAS_BUILT_ATTRIBUTE`).
"""

from __future__ import annotations

import libcst as cst

from stagelint.analysis.literals import bool_constant, is_literal, keyword_constant, off_literal
from stagelint.frameworks import (KERAS_BUILDING_METHOD, KERAS_BUILT_ATTRIBUTE, KERAS_BUILT_BEFORE,
                                  is_keras_layer_base)
from stagelint.analysis.trivia import LEAVING, holds_statement

#: Calls that test what kind of object a value is.
_TYPE_TESTS = frozenset({"builtins.isinstance", "builtins.hasattr", "builtins.callable", "builtins.type",
                         "tensorflow.is_tensor", "tensorflow.compat.v1.is_tensor", "tensorflow.compat.v2.is_tensor",
                         "keras.ops.is_tensor"})


def type_dispatch(ctx, test) -> bool:
    """`isinstance(x, np.ndarray)`, `not tf.is_tensor(x)`, `hasattr(x, "cpu") and ...`,
    `"jax" in str(type(x))`, `JAX_MODE` (a module flag bound only to a literal)."""
    stack = [test]
    while stack:
        node = stack.pop()
        if isinstance(node, cst.Call):
            names = ctx.qualified_names(node.func)
            if names & _TYPE_TESTS or (isinstance(node.func, cst.Attribute) and node.func.attr.value == "is_tensor"):
                return True
        if isinstance(node, cst.Name) and node.value.isupper() and ctx.binding_kind(node) == "global":
            bindings = ctx.bindings_of(node)
            if bindings and all(
                bool_constant(ctx.bound_values.get(id(getattr(b, "node", None)))) for b in bindings
            ):
                return True  # `if JAX_MODE:` with `JAX_MODE = False`: which backend the module serves
        if isinstance(node, (cst.BooleanOperation, cst.UnaryOperation, cst.Comparison)):
            stack.extend(node.children)
        elif isinstance(node, cst.ComparisonTarget):
            stack.append(node.comparator)
        elif isinstance(node, cst.Call) and ctx.qualified_names(node.func) & {"builtins.str", "builtins.repr"}:
            stack.extend(a.value for a in node.args)  # `"jax" in str(type(videos))`
    return False


def resets_its_flag(ctx, node: cst.If, loop: cst.For | cst.While) -> bool:
    """`if need_compile: ...; need_compile = False` in `loop`: the block clears the flag it tests,
    and the loop sets it again only under a test of its own (`if step % n == 0: need_compile =
    True`), so the block runs on the first iteration and then only on those, not on each one.
    The same for `if step is None: step = jax.jit(...)` (a lazy initialisation: the block binds
    the name it tests to a value, and the test fails on every later iteration).
    An assignment of the flag the loop makes on every pass (at its own level, or in a `with`,
    `try` or inner loop) leaves the block running on each iteration."""
    a, b = ctx.position(node), ctx.position(loop)
    if not (b.line, b.column) < (a.line, a.column) or not (a.end_line, a.end_column) <= (b.end_line, b.end_column):
        return False  # (an `if` around the loop runs the loop or not)
    lazy = _none_test(node.test)
    if not isinstance(node.test, cst.Name) and lazy is None:
        return False
    flag = lazy if lazy is not None else node.test.value

    def assigns(stmt) -> list:
        if not isinstance(stmt, cst.SimpleStatementLine):
            return []
        return [s for s in stmt.body if isinstance(s, (cst.Assign, cst.AugAssign, cst.AnnAssign)) and any(
            isinstance(t, cst.Name) and t.value == flag
            for t in ([x.target for x in s.targets] if isinstance(s, cst.Assign) else [s.target]))]

    # `if need_compile: ...; need_compile = False`, or `if step is None: step = jax.jit(...)` (the
    # block binds the name it tests to something else than None: the test fails from then on)
    def clears(value: cst.BaseExpression) -> bool:
        if lazy is None:
            return keyword_constant(value, "False")
        return not keyword_constant(value, "None")

    if not any(isinstance(s, cst.Assign) and clears(s.value) for stmt in node.body.body for s in assigns(stmt)):
        return False
    todo = list(loop.body.body)
    while todo:
        stmt = todo.pop()
        if stmt is node or isinstance(stmt, cst.If):
            continue  # the block itself, or a set under a test of the loop's own
        if assigns(stmt):
            return False
        body = getattr(stmt, "body", None)
        if isinstance(body, cst.BaseSuite):
            todo.extend(getattr(body, "body", ()))
        for part in [*getattr(stmt, "handlers", ()), getattr(stmt, "orelse", None), getattr(stmt, "finalbody", None)]:
            inner = getattr(part, "body", None)
            if isinstance(inner, cst.BaseSuite):
                todo.extend(getattr(inner, "body", ()))
    return True


def clears_its_flag(ctx, node: cst.If) -> bool:
    """`if self.is_virgin: <build>; self.is_virgin = False` in a method: a first-call guard on an
    instance flag. The test reads a Python attribute (every write of it in the module is a
    literal, so it is no tensor and the `if` is decided while tracing), the block clears it on
    every path (a top-level `self.<flag> = False` / `None` / `0` with no `return`, `raise`,
    `break` or `continue` before it), and nothing sets it back outside `__init__` or the class
    body. The block then runs on the first call only, eagerly as when traced: the first trace
    clears the flag and later traces (other input signatures) skip the block, so what it builds
    is built once (TF 2.21: tests/runtime/test_tf_twelfth_audit_facts.py). A flag some other
    method sets true again, or one the block clears on some paths only, guards nothing."""
    func = ctx.function
    test = node.test
    if func is None or not func.self_name or not isinstance(test, cst.Attribute) \
            or not isinstance(test.value, cst.Name) or test.value.value != func.self_name \
            or ctx.binding_kind(test.value, func) != "self" or not isinstance(node.body, cst.IndentedBlock):
        return False
    flag = test.attr.value
    cleared = False
    for stmt in node.body.body:
        if isinstance(stmt, cst.SimpleStatementLine) and any(
            _writes_flag(s, func.self_name, flag) and off_literal(s.value) for s in stmt.body
            if isinstance(s, (cst.Assign, cst.AnnAssign))
        ):
            cleared = True
            break
        if holds_statement(stmt, LEAVING):
            return False
    return cleared and _set_only_once(ctx, flag)


def _writes_flag(stmt, self_name: str | None, flag: str) -> bool:
    targets = [t.target for t in stmt.targets] if isinstance(stmt, cst.Assign) else [stmt.target]
    return any(isinstance(t, cst.Attribute) and t.attr.value == flag and isinstance(t.value, cst.Name)
               and (self_name is None or t.value.value == self_name) for t in targets)


def _set_only_once(ctx, flag: str) -> bool:
    """Every write of `<anything>.<flag>` in the module is a literal, and outside `__init__` and
    class bodies a falsy one (`setattr(obj, "<flag>", ...)` counts as a write of any value)."""
    memo = ctx.memo.setdefault("flag_writes", {})
    if flag in memo:
        return memo[flag]
    if ctx.module_node is None:
        return False
    ok = True
    stack = [(ctx.module_node, "")]
    while stack and ok:
        n, where = stack.pop()
        if isinstance(n, cst.FunctionDef):
            where = n.name.value
        elif isinstance(n, cst.ClassDef):
            where = "__init__"  # a class attribute's default
        if isinstance(n, (cst.Assign, cst.AnnAssign, cst.AugAssign)) and _writes_flag(n, None, flag):
            if isinstance(n, cst.AugAssign) or not is_literal(n.value) \
                    or (where != "__init__" and not off_literal(n.value)):
                ok = False
        elif isinstance(n, cst.Call) and isinstance(n.func, cst.Name) and n.func.value == "setattr" \
                and len(n.args) > 1 and isinstance(n.args[1].value, cst.SimpleString) \
                and n.args[1].value.evaluated_value == flag:
            ok = False
        stack.extend((c, where) for c in n.children)
    memo[flag] = ok
    return ok


def _none_test(test: cst.BaseExpression) -> str | None:
    """The name `test` compares with `is None` (`if step is None:`), or None."""
    if isinstance(test, cst.Comparison) and isinstance(test.left, cst.Name) and len(test.comparisons) == 1:
        target = test.comparisons[0]
        if isinstance(target.operator, cst.Is) and keyword_constant(target.comparator, "None"):
            return test.left.value
    return None


def after_early_return_guard(ctx, func, node: cst.CSTNode) -> bool:
    """`node` follows a first-call guard that returns early: `if self._table is not None: return`
    (or `if self.built: return`, `if key in cache: return cache[key]`) at the top level of the
    function, so it runs once (per key)."""
    line = _first_guard_line(ctx, func)
    return line is not None and line < ctx.position(node).line


def _first_guard_line(ctx, func) -> int | None:
    """The line of the function's first top-level early-return guard, or None. Asked for every
    call and store of the function: found once per function (scanning the statements above
    each node made a long function quadratic). The guard's reading depends on the function
    being walked, which is part of the key."""
    memo = ctx.memo.setdefault("early_return_guard", {})
    key = (id(func.node), id(ctx.function))
    if key in memo:
        return memo[key]
    found = None
    body = func.node.body
    for stmt in body.body if isinstance(body, cst.IndentedBlock) else ():
        if type(stmt) is cst.If and stmt.orelse is None and _returns(stmt.body):  # (exact: cheaper)
            if ctx.first_call_guard(stmt.test, func=func) == "orelse" or _is_built_test(stmt.test):
                found = ctx.position(stmt).line
                break
    memo[key] = found
    return found


def _returns(block) -> bool:
    stmts = block.body if isinstance(block, cst.IndentedBlock) else [block]
    last = stmts[-1] if stmts else None
    if isinstance(last, cst.SimpleStatementLine):
        return any(isinstance(s, cst.Return) for s in last.body)
    if isinstance(last, cst.SimpleStatementSuite):
        return any(isinstance(s, cst.Return) for s in last.body)
    return False


def _is_built_test(test) -> bool:
    """`if self.built:` / `if self._initialized:` / `if hasattr(self, "x"):`."""
    if isinstance(test, cst.Attribute) and isinstance(test.value, cst.Name):
        return test.attr.value.lstrip("_") in ("built", "initialized", "is_built", "is_initialized")
    return isinstance(test, cst.Call) and isinstance(test.func, cst.Name) and test.func.value == "hasattr"


def runs_once(ctx, node: cst.CSTNode) -> bool:
    """`node` runs once per object or key, eagerly as when traced: in a block under a first-call
    guard (`if self.v is None:`, `if name not in self._modules:` that fills the entry), or below
    an early-return guard. A trace-time effect there is no different from eager code's."""
    func = ctx.function
    return func is not None and (ctx.guard_depth > 0 or after_early_return_guard(ctx, func, node))


def keras_built_test(ctx, node: cst.If, func) -> str | None:
    """The method whose Keras fact makes `node`'s test, `self.built` or `not self.built`, known
    (`frameworks.tensorflow.KERAS_BUILT_ATTRIBUTE`: Keras builds a layer, and sets `built`, in
    `__call__` before its `call` runs; the base `Layer.build` sets it): "call" in a method Keras
    runs only after that (`KERAS_BUILT_BEFORE`), which this module never invokes itself
    (`layer.call(x)` skips `__call__`), whose class the project phase must show to be a Keras
    layer (`keras_models.built_before_call`); "build" in the `build` of a class of this file that
    derives from Keras's `Layer` itself, below a top-level `super().build(...)`. Else None."""
    test = node.test
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        test = test.expression
    if func is None or not func.self_name or not func.facts.class_qualname \
            or not isinstance(test, cst.Attribute) or test.attr.value != KERAS_BUILT_ATTRIBUTE \
            or not isinstance(test.value, cst.Name) or test.value.value != func.self_name:
        return None
    if func.facts.name in KERAS_BUILT_BEFORE:
        # (`layer.call(x)` in this module skips `__call__`, and the build, whichever layer it is)
        return None if _invoked_directly(ctx, func.facts.name, ctx.class_node_of(func)) else func.facts.name
    if func.facts.name != KERAS_BUILDING_METHOD or not isinstance(func.node.body, cst.IndentedBlock):
        return None
    cls = ctx.class_node_of(func)
    if cls is None or not any(is_keras_layer_base(q) for base in cls.bases
                              for q in ctx.qualified_names(base.value)):
        return None
    line = ctx.position(node).line
    for stmt in func.node.body.body:
        if ctx.position(stmt).end_line >= line:
            return None  # (a top-level statement before the test has run whenever the test runs)
        if isinstance(stmt, cst.SimpleStatementLine) and any(
                isinstance(small, cst.Expr) and _super_call(small.value, KERAS_BUILDING_METHOD) for small in stmt.body):
            return KERAS_BUILDING_METHOD
    return None


def _invoked_directly(ctx, method: str, cls: cst.ClassDef | None) -> bool:
    """The module calls `<receiver>.<method>(...)` where the receiver may be an object of `cls`:
    any receiver but `super()` and `self`, or `self` in a method of `cls` or of a class of this
    module `cls` derives from (`HTDemucs.build` calling `self.call(x)` invokes its own `call`, not
    that of the layers it holds)."""
    memo = ctx.memo.setdefault("invoked_directly", {})
    if method not in memo:
        other, by_self = False, set()
        stack: list[tuple[cst.CSTNode, str | None]] = [(ctx.module_node, None)] if ctx.module_node is not None else []
        while stack and not other:
            n, owner = stack.pop()
            if isinstance(n, cst.ClassDef):
                owner = n.name.value
            elif isinstance(n, cst.Call) and isinstance(n.func, cst.Attribute) and n.func.attr.value == method:
                receiver = n.func.value
                if isinstance(receiver, cst.Name) and receiver.value == "self" and owner is not None:
                    by_self.add(owner)
                elif not (isinstance(receiver, cst.Call) and isinstance(receiver.func, cst.Name)
                          and receiver.func.value == "super"):
                    other = True
            stack.extend((c, owner) for c in n.children)
        memo[method] = (other, by_self)
    other, by_self = memo[method]
    if other:
        return True
    seen: set[str] = set()
    todo = [cls] if cls is not None else []
    while todo:  # `cls` and the classes of this module it derives from
        node = todo.pop()
        if node.name.value in seen:
            continue
        seen.add(node.name.value)
        if node.name.value in by_self:
            return True
        for base in node.bases:
            if isinstance(base.value, cst.Name):
                todo.extend(b.node for b in ctx.bindings_of(base.value) if isinstance(getattr(b, "node", None), cst.ClassDef))
    return False


def _super_call(expr, method: str) -> bool:
    """`super().<method>(...)` or `super(Cls, self).<method>(...)`."""
    return isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute) and expr.func.attr.value == method \
        and isinstance(expr.func.value, cst.Call) and isinstance(expr.func.value.func, cst.Name) \
        and expr.func.value.func.value == "super"
