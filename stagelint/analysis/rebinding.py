"""Module-level rebinding: a class whose name the module binds to something else before anything
can read the class through it.

Python binds a module global to what its module-level code last assigned: a function reads the
global when it runs, not when it is defined. So after

    class generator(tf.keras.layers.Layer): ...
    option = "function"
    if option == "function":
        generator = make_generator_model()
    else:
        generator = generator()

the module's import has left `generator` bound to what `make_generator_model()` returned (the
`else` never runs: `literals.module_constant_truth`), and a function calling `generator(noise)`
calls that model, never the class, unless something read the name while it still held the
class: module-level code between the class and the rebinding, or a function such code may call
(found through the scope analysis' reads, to a fixed point). Checked by running Python: the
subclass's `call` never runs (tests/runtime/test_tf_eighteenth_audit_br2_facts.py).
"""

from __future__ import annotations

import libcst as cst
from libcst.metadata import FunctionScope, GlobalScope

from stagelint.analysis.literals import constant_name, literal_truth, module_constant_truth, spelled_otherwise


def superseded_classes(ctx) -> set[int]:
    """The ids of the module-level classes whose name the module surely rebinds before anything
    can read the class through it (the module docstring); asked once the walk is over, when every
    module-level binding is known."""
    module = ctx.module_node
    body = module.body if module is not None else ()
    out: set[int] = set()
    for i, statement in enumerate(body):
        if not isinstance(statement, cst.ClassDef) or statement.decorators:
            continue  # (a decorator may register the class before the rebinding)
        name = statement.name.value
        scope = ctx.scope(statement)
        bindings = scope.assignments[name] if scope is not None else ()
        if len(bindings) < 2 or sum(isinstance(getattr(b, "node", None), cst.ClassDef) for b in bindings) > 1 \
                or spelled_otherwise(module.code, name):
            continue  # (two classes of one name: their facts share a qualified name)
        last = next((j for j in range(i + 1, len(body)) if _surely_binds(ctx, body[j], name)), None)
        if last is not None and not _read_before(ctx, scope, name, statement, body[i + 1:last + 1]):
            out.add(id(statement))
    return out


def _decided(ctx, node: cst.If) -> bool | None:
    """The truth of a module-level `if` Python decides from literals or module constants (none
    the module may rebind some way no binding shows: `literals.spelled_otherwise`)."""
    return _test_truth(ctx, node.test)


def _test_truth(ctx, test) -> bool | None:
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        truth = _test_truth(ctx, test.expression)  # `if not USE_CLASSES:`
        return None if truth is None else not truth
    truth = literal_truth(test)
    if truth is None:
        name = constant_name(test)
        if name is None or spelled_otherwise(ctx.module_node.code, name.value):
            return None
        truth = module_constant_truth(ctx, test)
    return truth


def _statements(block) -> list:
    """The statements of a block (`if`'s body, `else`), an `elif` standing for itself."""
    if isinstance(block, cst.If):
        return [block]
    return list(block.body) if isinstance(block.body, (list, tuple)) else [block.body]


def _live(ctx, node: cst.If) -> tuple[list, list]:
    """(the statements that run, the blocks that never run) of a module-level `if`: both
    branches' statements when its test is not decided."""
    truth = _decided(ctx, node)
    orelse = node.orelse.body if isinstance(node.orelse, cst.Else) else node.orelse
    if truth is None:
        return _statements(node.body) + (_statements(orelse) if orelse is not None else []), []
    if truth:
        return _statements(node.body), [node.orelse] if node.orelse is not None else []
    return (_statements(orelse) if orelse is not None else []), [node.body]


def _surely_binds(ctx, statement, name: str) -> bool:
    """`statement` binds `name` whenever it runs: an assignment to the plain name, or a decided
    `if` whose running branch does."""
    if isinstance(statement, (cst.SimpleStatementLine, cst.Assign, cst.AnnAssign)):
        for small in statement.body if isinstance(statement, cst.SimpleStatementLine) else (statement,):
            if isinstance(small, cst.Assign) and any(
                    isinstance(t.target, cst.Name) and t.target.value == name for t in small.targets):
                return True
            if isinstance(small, cst.AnnAssign) and small.value is not None \
                    and isinstance(small.target, cst.Name) and small.target.value == name:
                return True
        return False
    if isinstance(statement, cst.If) and _decided(ctx, statement) is not None:
        live, _ = _live(ctx, statement)
        return any(_surely_binds(ctx, s, name) for s in live)
    return False


def _dead_spans(ctx, statements) -> list[tuple]:
    """The spans of the blocks that never run among module-level `if`s of `statements`."""
    spans = []
    for statement in statements:
        if isinstance(statement, cst.If):
            live, dead = _live(ctx, statement)
            spans.extend(ctx.raw_position(b) for b in dead)
            spans.extend(_dead_spans(ctx, live))
    return spans


def _within(pos, span) -> bool:
    return (span[0], span[1]) <= (pos[0], pos[1]) and (pos[2], pos[3]) <= (span[2], span[3])


def _read_before(ctx, scope, name: str, cls: cst.ClassDef, between) -> bool:
    """Something may read the class through `name` before the rebinding: a read by module-level
    code running in `between` (the statements after the class up to the rebinding one), or a read
    inside a module-level function or class that such code reads (and so may call), followed to
    a fixed point; a read inside anything else (a function nested in a statement) is unknown."""
    module = ctx.module_node
    start = ctx.raw_position(cls)[2:]
    end = ctx.raw_position(between[-1])[2:]
    dead = _dead_spans(ctx, between)
    tops = {statement: ctx.raw_position(statement) for statement in module.body}
    names, todo = {name}, [name]
    while todo:
        current = todo.pop()
        for binding in scope.assignments[current]:
            for access in binding.references:
                pos = ctx.raw_position(access.node)
                if not _in_function(access.scope):
                    if start <= pos[:2] <= end and not any(_within(pos, d) for d in dead):
                        return True
                    continue
                top = next((s for s, p in tops.items() if _within(pos, p)), None)
                if not isinstance(top, (cst.FunctionDef, cst.ClassDef)):
                    return True
                if top.name.value not in names:
                    names.add(top.name.value)
                    todo.append(top.name.value)
    return False


def _in_function(scope) -> bool:
    """The scope runs only when a function is called (a function's, a lambda's, or one nested in
    them); a class body or a comprehension at module level runs where it stands."""
    while scope is not None and not isinstance(scope, GlobalScope):
        if isinstance(scope, FunctionScope):
            return True
        scope = getattr(scope, "parent", None)
    return False


def remakes_function_first(ctx, func, name: str, before_line: int) -> bool:
    """The function `func` (a FunctionInfo), whose every write to a global is below `before_line`,
    first binds the global `name` (a Function's name, declared `global` there) anew, whenever it
    runs: a statement of its body's top level above that line assigns `name = tf.function(...)`
    or `name = <...>.python_function` (`frameworks.FUNCTION_REMAKERS`, `FUNCTION_PYTHON_ATTRIBUTE`),
    or is a `try` whose body and every handler do. Later calls of `name` run a new Function (traced
    anew, reading the globals as they are then) or the plain function (eager): no call after the
    writer's run reuses a trace made before it."""
    if func is None or func.declared.get(name) != "global":
        return False
    for statement in _statements(func.node.body):
        if ctx.position(statement).line >= before_line:
            return False
        if _remakes(ctx, statement, name):
            return True
        if isinstance(statement, cst.Try) and statement.handlers and all(
                any(_remakes(ctx, s, name) for s in _statements(block.body))
                for block in (statement, *statement.handlers)):
            return True
    return False


def _remakes(ctx, statement, name: str) -> bool:
    from stagelint.frameworks import FUNCTION_REMAKERS, FUNCTION_PYTHON_ATTRIBUTE

    if not isinstance(statement, cst.SimpleStatementLine):
        return False
    for small in statement.body:
        if not (isinstance(small, cst.Assign) and len(small.targets) == 1
                and isinstance(small.targets[0].target, cst.Name) and small.targets[0].target.value == name):
            continue
        value = small.value
        if isinstance(value, cst.Attribute) and value.attr.value == FUNCTION_PYTHON_ATTRIBUTE:
            return True
        if isinstance(value, cst.Call) and ctx.qualified_names(value.func) & FUNCTION_REMAKERS:
            return True
    return False
