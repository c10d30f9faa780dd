"""The one traversal of a file (`analyze_module`), recording the facts the project phase needs.

`analyze_module` parses nothing itself: it takes a parsed module, resolves the metadata the
rules use (qualified names, scopes, positions) once, and walks the tree once. During the walk
`FileContext` (`stagelint.analysis.context`) keeps its own stack of functions, classes, first-call guards
and lifting scopes (cheaper than ParentNodeProvider); the walker records the facts the project
phase needs (functions, calls, staging markers, arguments, stores) by asking the value model
(`stagelint.analysis.tensors`, `analysis.values`, `stores`, `datasets`, `analysis.effects`) and
dispatches every node to the rules' `visit_*` / `leave_*`. It sits above everything it asks:
the context and the value model never call back into it.

(Moved out of `stagelint/analysis/context.py`; `git log -- stagelint/analysis/context.py` has its history.)
"""

from __future__ import annotations

import contextlib

import libcst as cst
from libcst.metadata import ImportAssignment

from stagelint.analysis import facts as F
from stagelint.analysis.eagerswitch import keras_dynamic
from stagelint.analysis.effects import runs_state_op, state_op
from stagelint.analysis.guards import after_early_return_guard, clears_its_flag
from stagelint.analysis.context import (
    FILE_OPENERS,
    TENSOR_CHECKS,
    TRUTH_TEST,
    FileContext,
    block_statements,
    code_of,
    concretizing_call,
    concretizing_callee,
    ends_leaving,
    holds_kind,
    is_setup_method,
    mutates_container,
    relaxes_shapes,
    short_code,
    staging_options,
    target_names,
    trace_raising_call,
    tracing_call,
    truth_while_tracing,
    unreachable_tail,
)
from stagelint.analysis.functions import function_object
from stagelint.analysis.tracers import BARE, OP, PARAM, concretized_kinds, origin as tracer_origin
from stagelint.analysis.literals import (constant_name, constant_truth, is_literal, keyword_constant,
                                         literal_truth, module_constant_truth, off_literal,
                                         spelled_otherwise)
from stagelint.analysis.rebinding import superseded_classes
from stagelint.analysis.spreads import dict_keywords, forwarded_kwargs
from stagelint.analysis.pytrees import note_class, record_class, record_param_classes, record_registration
from stagelint.analysis.varying_shapes import shape_variation
from stagelint.analysis.datasets import dataset_call, element_components
from stagelint.analysis.fastmeta import Metadata, fast_traversal, walk
from stagelint.analysis.flags import param_conditions
from stagelint.frameworks import (
    BUILDING_METHODS,
    CALLS_ITS_FUNCTION_WITH,
    CALLBACK_FUNCTION_KEYWORDS,
    CONFIG_KEYWORDS,
    CONVERSION_OPS,
    GET_OR_CREATE_CALLS,
    JAX_RECORDED_CALL_PREFIXES,
    JAX_SEQUENCE_INDEX,
    KERAS_EAGER_COMPILE,
    KERAS_FORWARDED_COMPILE,
    KERAS_HAND_TRAINING,
    KERAS_INPUT_CALLS,
    KERAS_OPS_PREFIXES,
    KERAS_SAVED,
    KERAS_SAVING_CALLS,
    KERAS_SEQUENTIAL_ENTRY,
    KERAS_SLOT_METHODS,
    KERAS_STEP_METHODS,
    KERAS_SYMBOLIC_SCOPE,
    KERAS_VALIDATING_FIT,
    KERAS_VALIDATION_KEYWORDS,
    KERAS_TRAINING_METHODS,
    LIST_TAKING_OPS,
    MAPPING_TYPES,
    NOT_KERAS_COMPILES,
    PARTIAL_CALLS,
    PER_ELEMENT_CALLS,
    SEQUENCE_TESTS,
    VARIABLE_LIST_ATTRIBUTES,
    builds_at_construction,
    optimizer_built_at_construction,
    is_keras_model_class,
    size_argument,
)
from stagelint.analysis.jaxstaging import mark_uncalled, record_call, record_linen_run
from stagelint.analysis.nnx import declared_kind, imports_flax, stored_kind
from stagelint.analysis.tensors import arg_facts, bind_arguments, summarise_returns, tensorness, value_of
from stagelint.analysis.proof import FALSE, HEURISTIC, fact
from stagelint.analysis.trivia import LEAVING, TRIVIA, holds_statement, inner_nodes

KERAS_DRIVING_METHODS = KERAS_STEP_METHODS | KERAS_TRAINING_METHODS | {KERAS_HAND_TRAINING}


def _functional_super_init(node: cst.Call) -> bool:
    """`super().__init__(inputs=..., outputs=...)`: a Model subclass made as a functional model."""
    func = node.func
    if not (isinstance(func, cst.Attribute) and func.attr.value == "__init__" and isinstance(func.value, cst.Call)
            and isinstance(func.value.func, cst.Name) and func.value.func.value == "super"):
        return False
    return {"inputs", "outputs"} <= {a.keyword.value for a in node.args if a.keyword is not None}


def _eager_unless(ctx) -> object:
    """For a call edge: None when the call may run while tracing, "" when it never does, or the
    target of the predicate whose truth while tracing keeps it out (innermost eager block)."""
    if not ctx.eager_stack or ctx.function is None:
        return None
    return ctx.eager_stack[-1]


def _default_off_flag(ctx, test) -> str:
    """The parameter `if <param>:` tests, when its default is False, None or 0; else ""."""
    func = ctx.function
    if func is None or not isinstance(test, cst.Name) or ctx.binding_kind(test, func) != "param":
        return ""
    return test.value if off_literal(func.defaults.get(test.value)) else ""



def _record_conditions(ctx, node: cst.If) -> None:
    """The conditions on the function's parameters its `if` puts on its body, on its `else` (or
    `elif`), and, when the body always leaves the block (`if scan: return run_jax(x)`), on the
    statements after it in the block (`flags.param_conditions`)."""
    body, orelse = param_conditions(ctx, node.test)
    if not body and not orelse:
        return
    fid = id(ctx.function)
    if body:
        ctx._cond_blocks.setdefault(id(node.body), []).extend((fid, c) for c in body)
    if orelse and node.orelse is not None:
        ctx._cond_blocks.setdefault(id(node.orelse), []).extend((fid, c) for c in orelse)
    if orelse:
        block = ctx._enclosing_block.get(id(node))  # (held only where the body always leaves it)
        if block is not None:
            after = False
            for statement in block.body:
                if after:
                    ctx._cond_blocks.setdefault(id(statement), []).extend((fid, c) for c in orelse)
                after = after or statement is node


def _flag(ctx, func) -> str:
    """The innermost `if <flag>:` of `func` itself that a call sits under (`CallEdge.flag`)."""
    return next((c[1:] for f, c in reversed(ctx.cond_stack) if f == id(func) and c[0] == F.FLAG_MARK), "")


def never_runs(node, ctx=None) -> tuple:
    """The blocks of an `if`/`while` that never run whatever the code around them does: a
    literal false test's body, a literal true `if`'s `else` (or `elif` chain), the same for a
    local name bound only to one literal (`literals.constant_truth`: `use_jit = False` then `if
    use_jit: step = jax.jit(step)`). Code there is not staged, not called, not anything: no rule
    reports in it and it adds no fact."""
    truth = literal_truth(node.test) if ctx is None else constant_truth(ctx, node.test)
    if truth is False:
        return (node.body,)
    if truth is True and isinstance(node, cst.If) and node.orelse is not None:
        return (node.orelse,)
    return ()


def module_flag_dead(ctx, node: cst.If) -> None:
    """`if DEBUG:` with `DEBUG = False` at module level and no rebinding in the module, or `if
    MODE == "debug":` with `MODE = "train"` (`literals.module_constant_truth`): Python never runs
    the body (nor, with a true constant, the `else`), eagerly or traced; only another module can change that (`cfg.DEBUG = True`),
    which the file does not show, so the blocks are recorded (`ctx._flag_dead`) and the
    candidates in them marked at the end of the walk (`mark_flag_dead`)."""
    truth = module_constant_truth(ctx, node.test)
    if truth is None:
        return
    block = node.body if truth is False else node.orelse
    if block is not None:
        ctx._flag_dead.append((ctx.position(block), constant_name(node.test).value))


def mark_flag_dead(ctx) -> None:
    """Marks each candidate inside a block `module_flag_dead` recorded with the constant's name,
    unless the module rebinds the name some way no binding shows (`literals.spelled_otherwise`)."""
    code = ctx.module_node.code if ctx.module_node is not None else ""
    names = {name for _, name in ctx._flag_dead}
    kept = {name for name in names if code and not spelled_otherwise(code, name)}
    for span, name in ctx._flag_dead:
        if name not in kept:
            continue
        for cand in ctx.facts.candidates:
            if span.line <= cand.span.line and cand.span.end_line <= span.end_line:
                cand.fields.setdefault(F.FLAG_DEAD_FIELD, name)
    ctx.facts.flag_constants = sorted({c.fields[F.FLAG_DEAD_FIELD] for c in ctx.facts.candidates
                                       if F.FLAG_DEAD_FIELD in c.fields})


def _drop_superseded_sites(ctx) -> None:
    """Calls through a name whose class the module rebinds before anything reads it
    (`rebinding.superseded_classes`: `generator = make_generator_model()` after `class
    generator`) call what the name was rebound to, never the class: they are no call of it, and
    the class is marked (`ClassFacts.superseded`): none of its methods is an entry point."""
    gone = superseded_classes(ctx)
    if not gone:
        return
    for node in ctx.module_node.body:
        if id(node) in gone:
            qualname = f"{ctx.module}.{node.name.value}" if ctx.module else node.name.value
            if qualname in ctx.facts.classes:
                ctx.facts.classes[qualname].superseded = True
    dropped = {id(site) for site, node, _, _ in ctx._pending_sites if isinstance(node.func, cst.Name)
               and any(id(getattr(b, "node", None)) in gone for b in ctx.bindings_of(node.func))}
    if dropped:
        ctx.facts.call_sites = [s for s in ctx.facts.call_sites if id(s) not in dropped]
        ctx._pending_sites = [p for p in ctx._pending_sites if id(p[0]) not in dropped]


def _unpacked_paths(target, path: tuple):
    """(id of each name, its path) in a nested target list (`(_, aux), grads`): (position,
    count) per level; nothing below a starred element (its positions are not fixed)."""
    if any(isinstance(e, cst.StarredElement) for e in target.elements):
        return
    for i, e in enumerate(target.elements):
        step = (*path, (i, len(target.elements)))
        if isinstance(e.value, cst.Name):
            yield id(e.value), step
        elif isinstance(e.value, (cst.Tuple, cst.List)):
            yield from _unpacked_paths(e.value, step)


def _argument_key(i: int, arg: cst.Arg) -> str:
    """An argument's place in its call: its keyword, or its position."""
    return arg.keyword.value if arg.keyword is not None else str(i)


def _callback_function(call: cst.Call) -> cst.BaseExpression | None:
    """The function a host callback call (`frameworks.JAX_EAGER_ESCAPES`, `tf.py_function`) runs:
    its first positional argument, or the keyword naming it."""
    for arg in call.args:
        if arg.keyword is None:
            return None if arg.star else arg.value
        if arg.keyword.value in CALLBACK_FUNCTION_KEYWORDS:
            return arg.value
    return None


def _reads_only_at(ctx, node, name: str, where: set[int], one_binding: bool = False) -> list | None:
    """The reads of `name` in the scope holding `node` (of every binding of it there; with
    `one_binding`, of its one binding), when each read is a node of `where` (by id); None when that
    scope binds no `name` (or, with `one_binding`, more than once) or a read is elsewhere."""
    scope = ctx.scope(node)
    if scope is None or name not in scope.assignments:
        return None
    bindings = scope.assignments[name]
    if one_binding and len(bindings) != 1:
        return None
    reads = [read for binding in bindings for read in binding.references]
    return reads if all(id(read.node) in where for read in reads) else None


def _callback_partials(ctx) -> None:
    """`cb = partial(f, ...)` (one binding of `cb` in its scope) whose every read hands it to a host
    callback as the function to run (`jax.debug.callback(cb, x)`): making the partial calls
    nothing and JAX calls `cb`, so `f`, with concrete values on every execution (JAX 0.10.2:
    tests/runtime/test_jax_thirteenth_audit_au_facts.py); the edge taking `f` as called where the
    partial is made is dropped. A read anywhere else (a call, another callee) keeps it."""
    if not ctx._named_partials or not ctx._callback_names:
        return
    for func, edge, name in ctx._named_partials:
        if _reads_only_at(ctx, name, name.value, ctx._callback_names, one_binding=True):
            func.facts.calls = [e for e in func.facts.calls if e is not edge]


def _notebook_tests(ctx) -> None:
    """A notebook's top-level `test*` def (`testing.collected_by_test_runner`) that its cells call
    at most once, in a statement of its own outside any loop, and read nowhere else: one call per
    run of the notebook, or the test runner's one call per test (`FunctionFacts.test_run`). No
    module imports a notebook, so its cells are every caller but the runner."""
    for node, facts in ctx._notebook_tests:
        reads = _reads_only_at(ctx, node, node.name.value, ctx._top_calls)
        if reads is not None and len(reads) <= 1:
            facts.test_run = True


def _called_once_at_top(ctx) -> None:
    """A module-level def whose name the module reads only in calls its top-level code makes in a
    statement of their own outside any loop (`main()` under `if __name__ == "__main__":`), the
    name bound once: how many (`FunctionFacts.top_calls`). The module's top-level code runs once
    per process (an imported module is kept in `sys.modules`; a script's `__main__` block runs
    once per run), so one such call runs the def once, unless other modules call it too
    (`repetition.runs_once` asks the project)."""
    for name in ctx._top_called:
        found = ctx._top_defs.get(name)
        if found is None:
            continue
        node, facts = found
        reads = _reads_only_at(ctx, node, name, ctx._top_calls, one_binding=True)
        if reads:
            facts.top_calls = len(reads)


def _after_raising(ctx) -> None:
    """The step of a candidate reported after a `x.numpy()` in its block
    (`FileContext.after_trace_raising_call`): under a trace that call raises when `x` is a
    tensor or a variable (`frameworks.TRACE_RAISING_METHODS`). With `x` known a tensor the
    candidate's code never runs while tracing (a false step: no finding); else it runs while
    tracing only if `x` is neither, a guess (preview)."""
    alive = {id(c) for c in ctx.facts.candidates} if ctx.after_raising else ()
    for candidate, func, raising in ctx.after_raising:
        if id(candidate) not in alive:
            continue  # (a rule that failed lost its candidates)
        _, call, receiver = raising[:3]
        if len(raising) > 3:  # every path through a compound statement above calls one
            candidate.fields["_because"] = [*(candidate.fields.get("_because") or ()),
                                            _compound_step(ctx, func, raising, candidate.span)]
            continue
        if tensorness(ctx, receiver, func).definite:
            step = fact(f"`{short_code(call)}` runs before this in the same block, and under a trace it raises "
                        f"(`{short_code(receiver)}` is a tensor): this never runs while tracing", candidate.span, FALSE)
        else:
            step = fact(f"`{short_code(call)}` runs before this in the same block: under a trace `.numpy()` raises "
                        f"on a tensor or a variable, so this runs while tracing only if `{short_code(receiver)}` "
                        f"is neither (a guess)", candidate.span, HEURISTIC)
        candidate.fields["_because"] = [*(candidate.fields.get("_because") or ()), step]
    for edge, func, raising in ctx.after_raising_edges:
        # the same for a call made there: in no trace after a `.numpy()` of a known tensor, else
        # traced only if the receiver is neither a tensor nor a variable (`tracers.after_raising_fact`)
        line, call, receiver = raising[:3]
        calls, loop = raising[3] if len(raising) > 3 else ([call], None)
        if loop is None and all(tensorness(ctx, c.func.value, func).definite for c in calls):
            edge.eager_unless = ""
        elif edge.eager_unless is None:
            edge.after_raising = f"`{short_code(call)}` (line {line})" if loop is None else (
                f"`{short_code(call)}` in every iteration of the loop on line {line}, which runs if it iterates once")


def _compound_step(ctx, func, raising, span) -> list:
    """The step of a candidate after a compound statement every path through which calls
    `x.numpy()` (`FileContext.compound_raising`): false (in no trace) when each receiver is known
    a tensor and no loop decides whether a path runs one; a guess otherwise."""
    line, call, _, (calls, loop) = raising
    shown = ", ".join(sorted({f"`{short_code(c)}`" for c in calls}))
    definite = all(tensorness(ctx, c.func.value, func).definite for c in calls)
    if definite and loop is None:
        return fact(f"every path through the statement on line {line} calls {shown} before this, and under a trace "
                    f"it raises (a tensor's `.numpy()`): this never runs while tracing", span, FALSE)
    if definite:
        return fact(f"the body of the loop on line {line} calls {shown} on every path, and under a trace it raises "
                    f"(a tensor's `.numpy()`): this runs while tracing only if `{short_code(loop)}` gives the loop no "
                    f"iteration (a guess)", span, HEURISTIC)
    return fact(f"every path through the statement on line {line} calls {shown} before this: under a trace "
                f"`.numpy()` raises on a tensor or a variable, so this runs while tracing only if no receiver is "
                f"either{' or the loop makes no iteration' if loop is not None else ''} (a guess)", span, HEURISTIC)


def _after_concretizing(ctx) -> None:
    """A candidate reported after a JAX concretizing call in its block (`float(x)`,
    `np.asarray(x)`, `x.item()`, `range(n)`, an `if`/`while` test's truth:
    `FileContext.after_trace_raising_call`) whose value is known a tracer or a traced parameter
    (`tracers.origin`): the first such call's line, how its value is known and from which
    parameters (`_after_concrete`, `_concrete_kind`, `_concrete_params`, `_concrete_call`).
    Whether it certainly raises where the function is traced is the project's question
    (`tracers.raises_while_traced`)."""
    alive = {id(c) for c in ctx.facts.candidates} if ctx.after_concretizing else ()
    for candidate, func, calls in ctx.after_concretizing:
        if id(candidate) not in alive:
            continue
        first, params_of_any = None, set()
        for line, call, value, conversion in calls:
            if not conversion:
                node = concretizing_callee(ctx, call)
                if node is None:
                    continue
                kind, params, conversion = _callee_conversion(ctx, call, node, func)
            else:
                kind, params = _converted(ctx, call, value, conversion, func)
            if conversion and kind in concretized_kinds(conversion):
                if kind == OP:  # (a tracer wherever the whole body is traced: the strongest)
                    first, params_of_any = (line, kind, conversion), set()
                    break
                # from parameters: any one of them traced makes its conversion raise
                first = first or (line, kind, conversion)
                params_of_any |= set(params)
        if first is not None:
            line, kind, conversion = first
            candidate.fields.update(_after_concrete=line, _concrete_kind=kind,
                                    _concrete_params=sorted(params_of_any), _concrete_call=conversion)


def _converted(ctx, call, value, conversion: str, func) -> tuple:
    """(kind, parameters) of what a concretizing call converts (`tracers.origin`): of `range`'s
    bounds, the first that makes it raise (`range(0, n)`: any bound a tracer does); an index
    only where what it indexes is a Python list or tuple (`_python_sequence`)."""
    if conversion == JAX_SEQUENCE_INDEX and not _python_sequence(ctx, call.value, func):
        return "", frozenset()
    if conversion == "builtins.range" and isinstance(call, cst.Call):
        found = "", frozenset()
        for arg in call.args:
            if arg.keyword is None and not arg.star:
                found = tracer_origin(ctx, arg.value, func)
                if found[0] in concretized_kinds(conversion):
                    break
        return found
    found = tracer_origin(ctx, value, func)
    if conversion == TRUTH_TEST and found[0] not in concretized_kinds(conversion) and _returns_ops(ctx, value):
        return OP, frozenset()
    return found


def _python_sequence(ctx, expr, func) -> bool:
    """`expr` is a list or tuple display (a comprehension's list too), or a name of `func` every
    binding reaching it binds to one (`sizes = [a, b]`, then `sizes[i]`)."""
    if isinstance(expr, (cst.List, cst.Tuple, cst.ListComp)):
        return True
    if not isinstance(expr, cst.Name) or func is None:
        return False
    refs = ctx.reaching(expr, func)
    return bool(refs) and all(
        isinstance(ctx.bound_values.get(id(getattr(r, "node", None))), (cst.List, cst.Tuple, cst.ListComp))
        and getattr(r, "scope", None) is ctx.scope(func.node.body) for r in refs)


def _returns_ops(ctx, expr) -> bool:
    """`expr` (or `not expr`) calls a plain def of the file (its name's one binding, no
    decorator, no generator) whose body ends in a `return` or `raise` and whose every `return`
    gives a JAX op's result (`def should_continue(v): return jnp.logical_not(...)`): run inside
    a trace that traces the whole body, its result is a tracer."""
    while isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Not):
        expr = expr.expression
    if not isinstance(expr, cst.Call) or not isinstance(expr.func, cst.Name):
        return False
    bindings = ctx.bindings_of(expr.func)
    node = getattr(bindings[0], "node", None) if len(bindings) == 1 else None
    if type(node) is not cst.FunctionDef or node.decorators or node.asynchronous is not None \
            or not ends_leaving(node.body):
        return False
    info = ctx.function_infos.get(id(node))
    if info is None or info.facts.is_generator:
        return False
    returns = [v for v in info.returns if v is not None]
    return bool(returns) and len(returns) == len(info.returns) \
        and all(tracer_origin(ctx, v, info)[0] == OP for v in returns)


#: How many calls deep `_callee_conversion` follows a conversion (`f` calls `g` calls `h`, which converts).
_CALLEE_DEPTH = 4


def _calls_own_method(value, func, attr: str) -> bool:
    """`value` is `self.attr(...)`, none of its arguments the method itself."""
    def own(expr) -> bool:
        return isinstance(expr, cst.Attribute) and expr.attr.value == attr \
            and isinstance(expr.value, cst.Name) and expr.value.value == func.self_name
    return isinstance(value, cst.Call) and own(value.func) and not any(own(a.value) for a in value.args)


def _callee_conversion(ctx, call: cst.Call, node: cst.FunctionDef, caller) -> tuple:
    """(kind, parameters of `caller`, conversion) when the plain function `node` of the module,
    called by `call`, runs a concretizing call before it can return (a statement of its own body,
    or a header of one, above which no statement holds a `return`; not a generator or a
    coroutine, whose body does not run at the call), directly or in a plain function of the
    module it calls so (up to `_CALLEE_DEPTH` calls deep), on a value known a tracer or a traced
    parameter once the caller's arguments are bound (`def to_float(x): return float(x)` called
    `to_float(loss)`); else ("", (), "")."""
    info, conversions = _callee_conversions(ctx, node, 0)
    for kind, params, conversion in conversions:
        known = _bound_conversion(ctx, call, info, caller, kind, params, conversion)
        if known is not None:
            return known
    return "", (), ""


def _callee_conversions(ctx, node: cst.FunctionDef, depth: int) -> tuple:
    """(its FunctionInfo, [(kind, its parameters, conversion)]) of the concretizing calls the
    statements of the function's own body (and their headers) make before one that holds a
    `return`, and of the plain functions of the module those statements call (read once per
    function)."""
    memo = ctx.memo.setdefault("callee_conversions", {})
    got = memo.get(id(node))
    if got is not None and got[0] is node:
        return got[1]
    info = ctx.function_infos.get(id(node))
    found = []
    memo[id(node)] = (node, (info, found))  # (a recursive call meets it unfinished: nothing more)
    if info is not None and node.asynchronous is None and not holds_kind(node.body, (cst.Yield, cst.Await)):
        for statement in block_statements(node.body):
            if isinstance(statement, cst.SimpleStatementLine):
                calls = [concretizing_call(ctx, statement)]
            elif isinstance(statement, (cst.FunctionDef, cst.ClassDef)):
                calls = []
            else:
                calls = [c[1:] for c in ctx.header_conversions(statement)]
            for conversion in calls:
                if conversion is None:
                    continue
                call, value, name = conversion
                if name:
                    found.append((*_converted(ctx, call, value, name, info), name))
                elif depth + 1 < _CALLEE_DEPTH:
                    inner = concretizing_callee(ctx, call)
                    if inner is not None and inner is not node:
                        inner_info, inner_found = _callee_conversions(ctx, inner, depth + 1)
                        for kind, params, name in inner_found:
                            known = _bound_conversion(ctx, call, inner_info, info, kind, params, name)
                            if known is not None:
                                found.append(known)
                                break
            if holds_statement(statement, (cst.Return,)):
                break  # (it may return before what follows)
    return info, found


def _bound_conversion(ctx, call: cst.Call, info, caller, kind, params, conversion: str) -> tuple | None:
    """`_callee_conversion`'s answer for one conversion in the callee `info` of a value of `kind`
    from its parameters `params`, or None when it is not known to raise with the caller's
    arguments."""
    if kind == OP:
        return OP, (), conversion  # (run inside the caller's trace, every op's result is a tracer)
    if kind not in concretized_kinds(conversion) or not params or info is None:
        return None
    args = dict(bind_arguments(info, call))
    origins = [tracer_origin(ctx, args[p], caller) for p in params if p in args]
    if len(origins) != len(params):
        return None
    if kind == PARAM:  # an operator or a method on them: a tracer, or it raises on a container
        if all(o[0] in (OP, PARAM, BARE) for o in origins):
            return PARAM, frozenset().union(*(o[1] for o in origins)), conversion
        return None
    return (origins[0][0], origins[0][1], conversion) if len(origins) == 1 else None


def _tests_for_sequence(ctx: FileContext, node: cst.Call, names: set[str]) -> bool:
    """`isinstance(x, (list, tuple))`, `tree.is_nested(x)`, `tf.nest.is_nested(x)`."""
    if "builtins.isinstance" in names and len(node.args) > 1:
        kinds = node.args[1].value
        elements = [e.value for e in kinds.elements] if isinstance(kinds, cst.Tuple) else [kinds]
        return any(ctx.qualified_names(e) & ({"builtins.list", "builtins.tuple"} | MAPPING_TYPES) for e in elements)
    return bool(names & SEQUENCE_TESTS)


def _operands(expr: cst.BaseExpression):
    """Names an op argument is computed from by arithmetic (`x`, `x * 2`, `x > 0`); not `x[0]`,
    which is as likely an element of a list of tensors."""
    if isinstance(expr, cst.Name):
        yield expr
    elif isinstance(expr, cst.BinaryOperation):
        if any(isinstance(side, (cst.List, cst.ListComp, cst.Tuple)) for side in (expr.left, expr.right)):
            return  # `[np.int32(0)] + loop_vars`: a list concatenated, not arithmetic on tensors
        yield from _operands(expr.left)
        yield from _operands(expr.right)
    elif isinstance(expr, cst.UnaryOperation) and not isinstance(expr.operator, cst.Not):
        yield from _operands(expr.expression)
    elif isinstance(expr, cst.Comparison):
        yield from _operands(expr.left)
        for c in expr.comparisons:
            yield from _operands(c.comparator)

#: The node types `_Walker.on_visit` records something for (its chain of `t is ...` tests):
#: every other node skips the chain with one set test.


_RECORDED = frozenset({
    cst.FunctionDef, cst.ClassDef, cst.If, cst.With, cst.Try, cst.Global, cst.Nonlocal, cst.Lambda,
    cst.Decorator, cst.For, cst.While, cst.Call, cst.Assign, cst.AnnAssign, cst.AugAssign, cst.Attribute,
    cst.Yield, cst.Return, cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.DictComp, cst.Del,
    cst.NamedExpr, cst.Import, cst.ImportFrom, cst.Expr,
})
#: The same for `_Walker.on_leave`.
_LEFT = frozenset({cst.FunctionDef, cst.ClassDef, cst.Lambda, cst.Decorator, cst.For, cst.While})


#: rule classes -> the trivia none of them has a `visit_`/`leave_` handler for
_SKIPS: dict[frozenset, frozenset] = {}


def _skipped(rules) -> frozenset:
    """The node types the walk need not enter for these rules: trivia (`stagelint.analysis.trivia`), less
    any a rule handles or the walk records."""
    classes = frozenset(type(r) for r in rules)
    skip = _SKIPS.get(classes)
    if skip is None:
        handled = {k for k in TRIVIA for c in classes
                   if hasattr(c, "visit_" + k.__name__) or hasattr(c, "leave_" + k.__name__)}
        skip = _SKIPS[classes] = TRIVIA - handled - _RECORDED - _LEFT
    return skip


def runs_ops_then_flips(ctx: FileContext, node: cst.If, block) -> bool:
    """A set-once guard whose block runs TensorFlow state ops (`v.assign(...)`, `tf.print`)
    and sets a Python flag: the ops are recorded into every call's graph, the flag flips only
    while tracing; not TensorFlow's create-variables-once idiom (STG105 and STG102 stand)."""

    op = flips = False
    owner = (ctx.class_node_of(ctx.function), ctx.function.self_name if ctx.function else None)
    stack = [block]
    while stack and not (op and flips):
        n = stack.pop()
        if isinstance(n, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
            continue
        if isinstance(n, cst.With) and ctx.is_lifting_scope(n):
            continue  # `with tf.init_scope():` runs it once, as meant
        if isinstance(n, cst.Call):
            # the op itself, or one a helper of this file runs (`self._warm(x)`)
            op = op or bool(runs_state_op(ctx, n, owner))
        elif isinstance(n, (cst.Assign, cst.AugAssign)):
            value = n.value
            if isinstance(n, cst.AugAssign) or is_literal(value):
                flips = True
        stack.extend(inner_nodes(n))
    return op and flips


def _mark_repeated(ctx: FileContext, loop) -> None:
    """Register the parts of a loop that run once per iteration, which the walk then enters with
    the loop on `ctx._loop_stack`: a `for`'s target and body, a `while`'s test and body, a
    comprehension's element and every `for`/`if` clause but the first iterable. The rest runs
    once: a `for`'s iterable and a comprehension's first one are evaluated before the first
    iteration, an `else:` after the last. A comprehension (a generator expression too, as
    `sum(f(x) for x in xs)` consumes it) calls its element once per item, as a `for` loop over
    the same iterable runs its body."""
    if isinstance(loop, cst.For):
        parts = [loop.target, loop.body]
    elif isinstance(loop, cst.While):
        parts = [loop.test, loop.body]
    else:
        first = loop.for_in
        parts = [loop.key, loop.value] if isinstance(loop, cst.DictComp) else [loop.elt]
        parts += [first.target, *first.ifs]
        if first.inner_for_in is not None:
            parts.append(first.inner_for_in)
    for part in parts:
        ctx._repeated[id(part)] = loop


def _repetition_span(ctx: FileContext, made=None) -> F.Span | None:
    """The lines within which code of the current function runs between two iterations of the
    outermost loop around the walk's position (a call there runs again after it), or None outside
    loops: a `for`/`while` from its header to the end of its body (its `else:` runs once, after
    the last iteration), a comprehension whole. `made`: the binding of the object called there
    (`f = make_step()` ... `f(x)`): only loops that do not hold it call that same object again."""
    loops = [lp for lp in ctx._loop_stack if made is None or not ctx.inside(made, lp)]
    if not loops:
        return None
    loop = loops[0]
    where = ctx.position(loop)
    if isinstance(loop, (cst.For, cst.While)):
        end = ctx.position(loop.body)
        return F.Span(where.line, where.column, end.end_line, end.end_column)
    return where


#: rule classes (in the order a walk runs them) -> {(prefix, node type): the indices of those with
#: that handler}: a rule's handlers are its class's methods (no rule sets one on itself)
_HANDLED: dict[tuple, dict] = {}


class _Walker(cst.CSTVisitor):
    # Metadata (`fastmeta.Metadata`) is resolved by `analyze_module`, not by libcst's wrapper.

    def __init__(self, ctx: FileContext, rules):
        super().__init__()
        self.ctx = ctx
        self.rules = rules
        self._visits: dict[type, list] = {}
        self._leaves: dict[type, list] = {}
        #: (prefix, node type) -> which rules have that handler, for these rule classes in this order
        self._which = _HANDLED.setdefault(tuple(type(r) for r in rules), {})
        self.failed: set = set()
        #: binding id -> [(method call entry, loop span or None)] of the calls on that object so far
        self._object_uses: dict[int, list] = {}

    def _handlers(self, table, prefix, node_type):
        handlers = table.get(node_type)
        if handlers is None:
            name = prefix + node_type.__name__
            which = self._which.get((prefix, node_type))
            if which is None:  # asked of the classes once per process, not of each file's rules
                which = self._which[(prefix, node_type)] = tuple(
                    i for i, r in enumerate(self.rules) if hasattr(type(r), name))
            handlers = [(self.rules[i], getattr(self.rules[i], name)) for i in which]
            table[node_type] = handlers
        return handlers

    def _dispatch(self, table, prefix, node) -> None:
        self._call(self._handlers(table, prefix, type(node)), node)

    def _call(self, handlers, node) -> None:
        """`_dispatch` with the handlers of the node's type already looked up."""
        for rule, handler in handlers:
            if rule in self.failed:
                continue
            try:
                handler(node)
            except Exception:
                self._fail(rule)

    def _fail(self, rule) -> None:
        """A rule that raises loses this file; the walk and every other rule go on."""
        import traceback

        self.failed.add(rule)
        self.ctx.facts.errors.append((rule.code, traceback.format_exc(limit=-4)))
        self.ctx.facts.candidates = [c for c in self.ctx.facts.candidates if c.code != rule.code]

    def on_visit(self, node: cst.CSTNode) -> bool:
        ctx = self.ctx
        if ctx._dead_blocks and id(node) in ctx._dead_blocks:
            return False  # never runs (`never_runs`): neither visited nor left, nor what it holds
        t = type(node)
        if ctx._region_of:
            region = ctx._region_of.get(id(node))
            if region is not None:
                ctx.regions.append(region)
        if ctx._repeated and id(node) in ctx._repeated:
            # first: a call that is itself the repeated part (`[step(x) for x in xs]`) runs in the loop
            ctx._loop_stack.append(ctx._repeated[id(node)])
        if t not in _RECORDED:
            pass  # most nodes (names, operators, whitespace): one set test, not the chain below
        elif t is cst.FunctionDef:
            if ctx.functions:
                ctx.functions[-1].inner.append(node)
            ctx._enter_function(node)
            record_param_classes(ctx, node)
            self._record_eager_tail(node)
        elif t is cst.ClassDef:
            if ctx.functions:
                ctx.functions[-1].inner.append(node)
            ctx._enter_class(node)
            note_class(ctx, node, ctx.classes[-1])
            if node.bases:  # `super().__init__(dynamic=True)`: Keras never traces it (`analysis.eagerswitch`)
                ctx.classes[-1].dynamic_line, ctx.classes[-1].dynamic_default = keras_dynamic(ctx, node)
        elif t is cst.If:
            dead = never_runs(node, ctx)
            if dead:
                ctx._dead_blocks.update(id(b) for b in dead)
            elif isinstance(node.test, (cst.Name, cst.Comparison)):
                module_flag_dead(ctx, node)
            if ctx.functions:
                self._record_eager_branch(node)
            flag = _default_off_flag(ctx, node.test)
            if flag:  # (kept with the conditions: one look-up per node for both, `_flag`)
                ctx._cond_blocks.setdefault(id(node.body), []).append((id(ctx.function), F.FLAG_MARK + flag))
            if ctx.function is not None:
                _record_conditions(ctx, node)
            guard = ctx.first_call_guard(node.test) or ("body" if clears_its_flag(ctx, node) else None)
            if guard == "body" and not runs_ops_then_flips(ctx, node, node.body):
                ctx._guarded_blocks.add(id(node.body))
            elif guard == "orelse" and node.orelse is not None and not runs_ops_then_flips(ctx, node, node.orelse):
                ctx._guarded_blocks.add(id(node.orelse))
            if not ctx.functions:
                # the `if` by its line: a module-level call site keeps its branches (`CallSite.branch`)
                line = ctx.position(node).line
                ctx._branch_of[id(node.body)] = (line, "body")
                if node.orelse is not None:
                    ctx._branch_of[id(node.orelse)] = (line, "else")
        elif t is cst.With:
            if ctx.functions and ctx.is_lifting_scope(node):
                ctx._lifted_blocks.add(id(node.body))
            if ctx.disables_jit(node):
                ctx._jit_disabled_blocks.add(id(node.body))
        elif t is cst.Try:
            if not ctx.functions:
                line = ctx.position(node).line
                ctx._branch_of[id(node.body)] = (line, "body")
                for i, handler in enumerate(node.handlers):
                    ctx._branch_of[id(handler)] = (line, f"except{i}")
        elif t is cst.Global or t is cst.Nonlocal:
            if ctx.functions:
                kind = "global" if t is cst.Global else "nonlocal"
                ctx.function.declared.update((n.name.value, kind) for n in node.names)
        elif t is cst.Lambda:
            if ctx.functions:
                ctx.functions[-1].inner.append(node)
            if id(node) in ctx._escaped_lambdas:
                ctx.escaped_depth += 1
            if id(node) in ctx._dataset_lambdas:
                ctx._enter_lambda(node)
            elif id(node) in ctx._argument_lambdas:
                ctx.argument_lambdas.append((id(ctx.function), ctx._argument_lambdas[id(node)]))
        elif t is cst.Decorator:
            if ctx.functions and any(d is node for d in getattr(ctx.functions[-1].node, "decorators", ())):
                # A decorator's expression runs once, where the def is, not in the function.
                ctx._decorated.append(ctx.functions.pop())
        elif t is cst.For or t is cst.While:
            if t is cst.While:
                ctx._dead_blocks.update(id(b) for b in never_runs(node))
            _mark_repeated(ctx, node)
            ctx.loop_depth += 1
            ctx.loops.append(node)
            if ctx.functions:
                ctx.functions[-1].inner.append(node)
        elif t is cst.Call:
            if ctx.functions:
                ctx.functions[-1].calls.append(node)
            for arg in node.args:
                if arg.keyword is not None:
                    ctx._never_accessed.add(id(arg.keyword))
            self._record_call(node)
            if ctx.functions and ctx.function.facts.name == "__init__" and not ctx.function.facts.self_passed:
                self._record_self_passed(node)
            if ctx.functions and ctx.in_staged_context and isinstance(node.func, cst.Attribute):
                if mutates_container(ctx, node):
                    ctx.raw_stores.append(
                        (ctx.function, node, "method", node.func.value, node, ctx.guard_depth > 0)
                    )
                    ctx.note_store(node)
        elif t is cst.Expr:
            if type(node.value) is cst.Call:
                ctx.statement_calls.add(id(node.value))
        elif t is cst.Assign:
            if ctx.functions:
                ctx.functions[-1].stores.append(node)
            if type(node.value) is cst.Call and len(node.targets) == 1:
                ctx.assigned_calls[id(node.value)] = node.targets[0].target
            for tgt in node.targets:
                self._record_binding(tgt.target, node.value)
                self._record_store(node, tgt.target, node.value)
                self._record_attr_write(node, tgt.target, node.value)
                self._record_wrapper_binding(tgt.target, node.value)
        elif t is cst.AnnAssign:
            if ctx.functions:
                ctx.functions[-1].stores.append(node)
            if not ctx.functions and ctx.classes and isinstance(node.target, cst.Name):
                declared_kind(ctx, node)  # `x: int = nnx.static()` in an NNX class body
            if node.value is not None:
                self._record_binding(node.target, node.value)
                self._record_store(node, node.target, node.value)
                self._record_attr_write(node, node.target, node.value)
                self._record_wrapper_binding(node.target, node.value)
        elif t is cst.AugAssign:
            if ctx.functions:
                ctx.functions[-1].stores.append(node)
            self._record_binding(node.target, node, rebinding=True)
            self._record_store(node, node.target, node.value)
            self._record_attr_write(node, node.target, node.value)
        elif t is cst.Attribute:
            ctx._never_accessed.add(id(node.attr))
            if id(node) not in ctx._store_attributes:
                name = node.attr.value
                ctx.attribute_loads.add(name)
                if id(node) not in ctx._site_callees and (name != "__init__" or ctx.function is None
                                                          or ctx.function.facts.name != "__init__"):
                    ctx._uncalled_reads.append(node)  # (lines found once the walk is over)
            self._record_attr_read(node)
        elif t is cst.Yield:
            if ctx.functions:
                ctx.function.facts.is_generator = True
        elif t is cst.Return:
            if ctx.functions:
                ctx.function.returns.append(node.value)
                if ctx.function.facts.name == "__init__" and not ctx.function.facts.first_return:
                    ctx.function.facts.first_return = ctx.raw_position(node)[0]
        elif t is cst.ListComp or t is cst.SetComp or t is cst.GeneratorExp or t is cst.DictComp:
            _mark_repeated(ctx, node)
            if ctx.functions:
                ctx.functions[-1].inner.append(node)
            # Registered on entering the comprehension, before its element (`f(x, k)` in
            # `[f(x, k) for k in range(3)]`) is visited: a rule asking about `k` there must not
            # get (and memoise) an answer made before the `for` clause is known.
            comp = node.for_in
            while comp is not None:
                for name in target_names(comp.target):
                    ctx.comprehension_targets[id(name)] = comp
                comp = comp.inner_for_in
        elif t is cst.With:
            for item in node.items:
                if item.asname is not None and isinstance(item.asname.name, cst.Name) and isinstance(item.item, cst.Call) \
                        and ctx.qualified_names(item.item.func) & FILE_OPENERS:
                    self._record_binding(item.asname.name, item.item)  # `with open(p) as fh:`
        elif t is cst.Del:
            if ctx.functions:
                ctx.functions[-1].stores.append(node)
            self._record_store(node, node.target, None)
        elif t is cst.NamedExpr:
            self._record_binding(node.target, node.value)
        elif t is cst.Import or t is cst.ImportFrom:
            if not ctx.functions and not ctx.classes:
                self._record_import(node)
        if id(node) in ctx._branch_of:
            ctx._branch_stack.append(ctx._branch_of[id(node)])
        if ctx._eager_blocks and id(node) in ctx._eager_blocks:
            ctx.eager_stack.append(ctx._eager_blocks[id(node)])
        if ctx._cond_blocks and id(node) in ctx._cond_blocks:
            ctx.cond_stack.extend(ctx._cond_blocks[id(node)])
        if t is cst.IndentedBlock or t is cst.SimpleStatementSuite or t is cst.Else:
            if t is cst.IndentedBlock and ctx.functions:
                for statement in node.body:
                    # an `if` whose body ends the block's run (a loop body's `continue` and `break`
                    # too): the rest of the block runs only when the body did not
                    if type(statement) is cst.If and ends_leaving(statement.body, LEAVING):
                        ctx._enclosing_block[id(statement)] = node  # (`_record_conditions`)
                # after a line that always leaves the block (`raise ...`, `return`): never runs
                ctx._dead_blocks.update(id(s) for s in unreachable_tail(node, LEAVING))
            if id(node) in ctx._guarded_blocks:
                ctx.guard_depth += 1
            if id(node) in ctx._lifted_blocks:
                ctx.lifted_depth += 1
            if id(node) in ctx._jit_disabled_blocks:
                ctx.jit_disabled_depth += 1
        if t is cst.For and isinstance(node, cst.For):
            self._record_binding(node.target, node, rebinding=True)
        # The rules' handlers of a node type, looked up once per type; most types have none.
        handlers = self._visits.get(t)
        if handlers is None:
            handlers = self._handlers(self._visits, "visit_", t)
        if handlers:
            self._call(handlers, node)
        return True

    def on_leave(self, original_node: cst.CSTNode) -> None:
        ctx = self.ctx
        if ctx._dead_blocks and id(original_node) in ctx._dead_blocks:
            return
        t = type(original_node)
        handlers = self._leaves.get(t)
        if handlers is None:
            handlers = self._handlers(self._leaves, "leave_", t)
        if handlers:
            self._call(handlers, original_node)
        if ctx._eager_blocks and id(original_node) in ctx._eager_blocks:
            ctx.eager_stack.pop()
        if ctx._cond_blocks and id(original_node) in ctx._cond_blocks:
            del ctx.cond_stack[len(ctx.cond_stack) - len(ctx._cond_blocks[id(original_node)]):]
        if t is cst.IndentedBlock or t is cst.SimpleStatementSuite or t is cst.Else:
            if id(original_node) in ctx._guarded_blocks:
                ctx.guard_depth -= 1
            if id(original_node) in ctx._lifted_blocks:
                ctx.lifted_depth -= 1
            if id(original_node) in ctx._jit_disabled_blocks:
                ctx.jit_disabled_depth -= 1
        if t not in _LEFT:
            pass
        elif t is cst.FunctionDef:
            info = ctx.function
            if info is not None and info.node is original_node and info.returns and not info.facts.is_generator:
                # named before a later `def` of the same name relocates it (`facts.relocate`)
                info.facts.returns_function = self._returned_function(info.returns)
            ctx._leave_function()
        elif t is cst.ClassDef:
            record_class(ctx, original_node, ctx.classes[-1])  # (its methods walked: `pytrees._returns`)
            ctx._leave_class()
        elif t is cst.Lambda:
            if id(original_node) in ctx._escaped_lambdas:
                ctx.escaped_depth -= 1
            if id(original_node) in ctx._dataset_lambdas:
                ctx._leave_function()
            elif id(original_node) in ctx._argument_lambdas:
                ctx.argument_lambdas.pop()
        elif t is cst.Decorator:
            if ctx._decorated and any(d is original_node for d in ctx._decorated[-1].node.decorators):
                ctx.functions.append(ctx._decorated.pop())
        elif t is cst.For or t is cst.While:
            ctx.loop_depth -= 1
            ctx.loops.pop()
        if id(original_node) in ctx._branch_of:
            ctx._branch_stack.pop()
        if ctx._repeated and id(original_node) in ctx._repeated:
            ctx._loop_stack.pop()
        if ctx._region_of and id(original_node) in ctx._region_of:
            ctx.regions.pop()
        if t is cst.Module:
            _callback_partials(ctx)
            _notebook_tests(ctx)
            _called_once_at_top(ctx)
            mark_uncalled(ctx)
            _drop_superseded_sites(ctx)
            self._describe_call_sites()
            reads: dict[str, set[int]] = {}
            for read in ctx._uncalled_reads:
                reads.setdefault(read.attr.value, set()).add(ctx.raw_position(read)[0])
            ctx.facts.uncalled_attribute_reads = {attr: sorted(lines) for attr, lines in reads.items()}
            self._summarise()
            # Rules that decide with whole-file knowledge do so while metadata is still bound.
            for rule in self.rules:
                if rule in self.failed:
                    continue
                try:
                    rule.finish()
                except Exception:
                    self._fail(rule)
            _after_raising(ctx)
            _after_concretizing(ctx)
            if ctx._flag_dead:
                mark_flag_dead(ctx)

    # Facts ------------------------------------------------------------------------------------

    def _record_binding(self, target, value, rebinding: bool = False) -> None:
        ctx = self.ctx
        if (
            isinstance(target, (cst.Tuple, cst.List))
            and isinstance(value, (cst.Tuple, cst.List))
            and len(target.elements) == len(value.elements)
            and not any(isinstance(e, cst.StarredElement) for e in (*target.elements, *value.elements))
        ):
            # `a, b = [], {}`: each name is bound to its own element
            for t, v in zip(target.elements, value.elements):
                self._record_binding(t.value, v.value, rebinding)
            return
        if isinstance(target, (cst.Tuple, cst.List)) and isinstance(value, cst.Call) \
                and all(isinstance(e, cst.Element) and isinstance(e.value, cst.Name) for e in target.elements):
            for i, e in enumerate(target.elements):
                ctx.unpacked_at[id(e.value)] = (i, len(target.elements))
        elif isinstance(target, (cst.Tuple, cst.List)) and isinstance(value, cst.Call) \
                and isinstance(value.func, cst.Call):
            # `(_, aux), grads = jax.value_and_grad(f, has_aux=True)(x)`: each name's path
            ctx.unpacked_path.update(_unpacked_paths(target, ()))
        unpacked = isinstance(target, (cst.Tuple, cst.List))
        if isinstance(target, cst.Name) and isinstance(value, cst.Call) and self._functional_model(value):
            # built where it is made: the name's object (`name@line`) and the call's (`new@...`)
            line, at = ctx.position(target).line, ctx.position(value)
            for ident in (f"{target.value}@{line}", f"new@{at.line}:{at.column}"):
                ctx.facts.built[ident] = min(line, ctx.facts.built.get(ident, line))
        elif isinstance(target, cst.Name) and isinstance(value, cst.Call):
            built = self._optimizer_built(value)
            if built:
                # its variables exist once made (`frameworks.optimizer_built_at_construction`)
                line = ctx.position(target).line
                into = ctx.facts.built if built == "keras3" else ctx.facts.built_if_keras3
                ident = f"{target.value}@{line}"
                into[ident] = min(line, into.get(ident, line))
        for name in target_names(target):
            ctx.bound_values[id(name)] = value
            if unpacked:
                ctx.unpacked_names.add(id(name))  # bound to one element of `value`, not to it
            if rebinding:
                ctx.rebinding_targets.add(id(name))
            if ctx.loop_depth:
                ctx.loop_bound.add(id(name))
            if not ctx.functions:
                ctx.branch_paths[id(name)] = tuple(ctx._branch_stack)

    def _record_eager_branch(self, node: cst.If) -> None:
        """`if tf.executing_eagerly(): A else: B`: A never runs while tracing; `if in_tf_function():`
        (a project predicate, decided in the project phase): its `else:` never does."""
        found = self._eager_test(node.test)
        if found is None:
            return
        eager_in_body, mark = found
        block = node.body if eager_in_body else node.orelse
        if block is not None:
            self.ctx._eager_blocks[id(block)] = mark
            if mark:
                self.ctx._predicate_blocks.append((block, mark, self.ctx.function))
        if mark == "" and isinstance(node.test, cst.BooleanOperation):
            self._record_eager_operands(node.test)

    def _record_eager_operands(self, test: cst.BooleanOperation) -> None:
        """`if _is_concrete(x) and np.any(np.asarray(x) < 0):`: Python evaluates the right
        operand of `and` only when the left one is true, of `or` only when it is false, so where
        the left one's truth while tracing (`truth_while_tracing`) rules that out, the right one
        never runs while tracing."""
        while isinstance(test, cst.BooleanOperation):
            left = truth_while_tracing(self.ctx, test.left)
            if left is not None and left == isinstance(test.operator, cst.Or):
                self.ctx._eager_blocks[id(test.right)] = ""
            test = test.left

    def _record_eager_tail(self, func: cst.FunctionDef) -> None:
        """`if in_tf_function(): return self._call_tf(x)` then `return self._call_python(x)`: the
        statements after a tracing test that returns never run while tracing."""
        body = func.body.body if isinstance(func.body, cst.IndentedBlock) else ()
        for i, stmt in enumerate(body):
            if isinstance(stmt, cst.If) and stmt.orelse is None and ends_leaving(stmt.body):
                found = self._eager_test(stmt.test)
                if found is not None and not found[0]:
                    for later in body[i + 1:]:
                        if not isinstance(later, (cst.FunctionDef, cst.ClassDef)):
                            self.ctx._eager_blocks[id(later)] = found[1]
                            if found[1]:
                                self.ctx._predicate_blocks.append((later, found[1], self.ctx.function))
                    return

    def _eager_test(self, test):
        """(the body is the eager branch, mark) for a test of whether code is being traced."""
        truth = truth_while_tracing(self.ctx, test)
        if truth is not None:
            return not truth, ""
        found = tracing_call(self.ctx, test)
        if found is None:
            return None
        test, negated, _, traced = found
        if traced is not None:
            return not traced, ""
        target = self._target_of(test.func)
        if target is None or not self._is_project_target(target):
            return None
        return negated, target

    def _record_store(self, stmt, target, value) -> None:
        ctx = self.ctx
        if not ctx.functions or not ctx.in_staged_context:
            return
        targets = target.elements if isinstance(target, (cst.Tuple, cst.List)) else (target,)
        for tgt in targets:
            tgt = getattr(tgt, "value", tgt) if isinstance(tgt, (cst.Element, cst.StarredElement)) else tgt
            if isinstance(tgt, (cst.Attribute, cst.Subscript)) or (
                isinstance(tgt, cst.Name) and tgt.value in ctx.function.declared
            ):
                ctx.raw_stores.append((ctx.function, stmt, "store", tgt, value, ctx.guard_depth > 0))
                ctx.note_store(stmt)

    def _record_import(self, node) -> None:
        ctx = self.ctx
        if isinstance(node, cst.Import):
            for alias in node.names:
                local = alias.evaluated_alias or alias.evaluated_name.split(".")[0]
                full = alias.evaluated_name if alias.evaluated_alias else local
                ctx.facts.imports[local] = full
            return
        module = code_of(node.module) if node.module is not None else ""
        dots = "." * len(node.relative)
        base = ctx.absolute_import(dots + module) if dots else module
        if isinstance(node.names, cst.ImportStar):
            ctx.star_import = True
            ctx.facts.star_from.append(base)
            return
        for alias in node.names:
            local = alias.evaluated_alias or alias.evaluated_name
            ctx.facts.imports[local] = f"{base}.{alias.evaluated_name}" if base else alias.evaluated_name

    def _record_escaped_param(self, node: cst.Call) -> None:
        """`tf.py_function(func, ...)` where `func` is a parameter of this or an enclosing function:
        that function is a decorator keeping what it decorates eager."""
        ctx = self.ctx
        first = node.args[0] if node.args else None
        if first is None or not isinstance(first.value, cst.Name):
            return
        if first.keyword is not None and first.keyword.value not in ("func", "fn"):
            return
        info = ctx.function
        while info is not None:
            if ctx.binding_kind(first.value, info) == "param":
                info.facts.escapes_param = True
                info.facts.escaped_params.append(first.value.value)
                return
            info = info.parent
        info = ctx.function
        if info is None:
            return
        # `def wrapped_func(*a): return func(*a)` nested here, then `tf.py_function(func=wrapped_func)`:
        # the parameters the nested def calls run at every execution too (BV-t2, TC-Prediction)
        nested = ctx.facts.functions.get(f"{info.facts.qualname}.<locals>.{first.value.value}")
        if nested is None:
            return
        prefix = f"{ctx.facts.module}.{info.facts.qualname}.<locals>."
        for edge in nested.calls:
            if edge.kind == "call" and edge.target[0] == "name" and edge.target[1].startswith(prefix):
                name = edge.target[1][len(prefix):]
                if name in info.facts.params and name not in info.facts.escaped_params:
                    info.facts.escaped_params.append(name)

    def _record_call(self, node: cst.Call) -> None:
        ctx = self.ctx
        fw = ctx.framework
        func = ctx.function
        names = ctx.qualified_names(node.func)
        staging = ctx.staging_decorators()
        self._record_one_shot_and_built(node, staging)
        self._record_keras_tracing(node, names)
        if func is not None and node.args and isinstance(node.args[0].value, cst.Name):
            if _tests_for_sequence(ctx, node, names):
                func.sequence_names.add(node.args[0].value.value)
        escapes = bool(names & fw.eager_escapes) or (
            # `tf.py_function(...)` with `tf = try_import_tensorflow()` (keras-hub): by its name
            isinstance(node.func, cst.Attribute) and node.func.attr.value in ("py_function", "numpy_function")
        )
        if escapes:
            for arg in node.args:
                if isinstance(arg.value, cst.Lambda):
                    ctx._escaped_lambdas.add(id(arg.value))
            callee = _callback_function(node)
            if isinstance(callee, cst.Name):
                ctx._callback_names.add(id(callee))  # (`_callback_partials`)
            elif isinstance(callee, cst.Call) and ctx.qualified_names(callee.func) & PARTIAL_CALLS:
                ctx._escaped_partials.add(id(callee))
            self._record_escaped_param(node)
        elif isinstance(node.func, cst.Attribute) or names:
            self._record_dataset_functions(node, names)
        if isinstance(node.func, cst.Attribute) and node.func.attr.value in ("apply", "init", "init_with_output", "lazy_init"):
            record_linen_run(self, node.func.value, None)
        if names and any(q.startswith(JAX_RECORDED_CALL_PREFIXES) for q in names):
            record_call(self, node, names)
            if func is None:
                record_registration(ctx, node, names)  # `register_pytree_node(C, flatten, unflatten)`
        if names & staging and node.args:
            first = node.args[0]
            if first.keyword is None or first.keyword.value in ("func", "fn", "python_function"):
                if (
                    func is not None
                    and isinstance(first.value, cst.Name)
                    and ctx.binding_kind(first.value, func) == "param"
                ):
                    func.facts.wraps_param = True  # a decorator of the project's own
                else:
                    target = self._target_of(first.value)
                    if target is not None:
                        if id(node) in ctx.assigned_calls:
                            ctx.wrapped_at[id(node)] = len(ctx.facts.wrapped)
                        ctx.facts.wrapped.append(target)
                        if id(node) in ctx._fresh_staging_calls:
                            ctx.facts.fresh_wrapped.append(target)
        if func is not None:
            if escapes or ctx.escaped_depth:
                # The wrapped function runs eagerly, not traced into the graph; so does what a
                # lambda handed to `tf.py_function` calls, written inline or nested in another
                # lambda (TF 2.21: tests/runtime/test_tf_twelfth_audit_facts.py).
                return
            if not func.facts.state_op and ctx.lifted_depth == 0:
                func.facts.state_op = state_op(ctx, node) or ""
            if trace_raising_call(node):
                ctx.raising_functions.add(id(func))  # (a `.numpy()` the calls below it may follow)
            target = self._target_of(node.func)
            if target is not None and not (names and all(fw.owns(n) for n in names)):
                edge = F.CallEdge(target, ctx.position(node),
                                  guarded=ctx.guard_depth > 0 or ctx.lifted_depth > 0 or after_early_return_guard(ctx, func, node),
                                  eager_unless=_eager_unless(ctx), flag=_flag(ctx, func),
                                  when=ctx.conditions_of(func) if ctx.cond_stack else [],
                                  within=ctx.argument_lambdas_of(func))
                func.facts.calls.append(edge)
                if id(func) in ctx.raising_functions:
                    raising = ctx.after_trace_raising_call(func, edge.span.line, numpy_only=True)[0]
                    if raising is not None:  # decided once the walk is over (`_after_raising`)
                        ctx.after_raising_edges.append((edge, func, raising))
            once = bool(names & GET_OR_CREATE_CALLS)  # the factory runs on the first call only
            partial = bool(names & PARTIAL_CALLS) and node.args and node.args[0].keyword is None
            project_target = target is not None and self._is_project_target(target)
            if project_target:
                for i, arg in enumerate(node.args):
                    if isinstance(arg.value, cst.Lambda) and not arg.star:
                        # (`new_py_function(lambda row: load(row), ...)`: `CallEdge.within`)
                        ctx._argument_lambdas[id(arg.value)] = (target, _argument_key(i, arg))
            for i, arg in enumerate(node.args):
                if partial and i == 0 and id(node) in ctx._escaped_partials:
                    continue  # `jax.debug.callback(partial(f, ...), x)`: f runs as Python, called back
                ref = self._function_reference(arg.value)
                if ref is not None:
                    edge = F.CallEdge(ref, ctx.position(arg.value), kind="ref",
                                      guarded=once or ctx.guard_depth > 0, into=target,
                                      when=ctx.conditions_of(func) if ctx.cond_stack else [],
                                      passes=_passes(names, i, arg), per_element=_per_element(names, i, arg),
                                      within=ctx.argument_lambdas_of(func) + (
                                          ((target, _argument_key(i, arg)),) if project_target else ()))
                    func.facts.calls.append(edge)
                    bound = ctx.assigned_calls.get(id(node)) if partial and i == 0 else None
                    if isinstance(bound, cst.Name):
                        ctx._named_partials.append((func, edge, bound))
            if names and not names & CONVERSION_OPS and any(
                (fw.returns_tensor(n) and not n.startswith(KERAS_OPS_PREFIXES)) or n.startswith(TENSOR_CHECKS)
                for n in names
            ):
                # An op computing a tensor (or checking one) takes tensors; configuration,
                # `tf.nest` and Keras utilities take anything, and so do conversions
                # (`tf.convert_to_tensor(x)` says x may be a Python value) and Keras 3's
                # backend-neutral ops, written to take Python numbers and NumPy arrays as well
                # (`ops.cast(rotary_dim, "float32")` of a static dimension: keras_hub).
                list_taking = bool(names & LIST_TAKING_OPS)
                for i, arg in enumerate(node.args):
                    if list_taking and i == 0 and arg.keyword is None:
                        continue  # `tf.concat(parts, 0)`: a list of tensors, not a tensor
                    if arg.keyword is not None and arg.keyword.value in CONFIG_KEYWORDS:
                        continue  # `tf.pad(x, p, mode=mode)`: a Python option
                    if size_argument(names, i, arg.keyword.value if arg.keyword is not None else None):
                        continue  # `tf.nn.top_k(x, k=k)`: a Python int as often as a tensor
                    for name in _operands(arg.value):
                        if ctx.binding_kind(name, func) == "param" and self._param_reaches(name, func):
                            if name.value not in func.facts.tensor_params:
                                func.facts.op_params.add(name.value)
                            func.facts.tensor_params.add(name.value)
        if func is None and not ctx.functions:
            self._record_object_call(node)
            if ctx.loop_depth == 0 and isinstance(node.func, cst.Name) and id(node) in ctx.statement_calls:
                # `test_integrator()` in a cell, `main()` under `if __name__ == "__main__":`: one call per run
                ctx._top_calls.add(id(node.func))
                ctx._top_called.add(node.func.value)
        self._record_method_call(node, func)
        self._record_object_arguments(node, func)
        callee = node.func
        concrete = isinstance(callee, cst.Attribute) and callee.attr.value == "get_concrete_function"
        if concrete:
            callee = callee.value  # `f.get_concrete_function(args)` traces f with args
        if func is not None and isinstance(callee, cst.Name) and ctx.binding_kind(callee, func) == "param":
            # `def measure(f, *args): f.get_concrete_function(*args)`: calls what its callers
            # pass for `f`, with what they pass for `args` (the project phase follows them)
            target = ("param", callee.value)
        else:
            target = self._target_of(node.func)
            concrete = concrete and target is None
            if concrete:
                target = self._target_of(callee)
        if target is not None and self._is_project_target(target):
            made = self._made_by_call(node.func, func) if not concrete and isinstance(node.func, cst.Name) else None
            site = F.CallSite(target, ctx.position(node), func.qualname if func else None,
                              loop=_repetition_span(ctx, made and made[1]), concrete=concrete,
                              made_by=made[0] if made else (),
                              branch=tuple(ctx._branch_stack) if func is None else ())
            self._record_refs(site, node, func)
            ctx.facts.call_sites.append(site)
            if isinstance(callee, cst.Attribute):
                ctx._site_callees.add(id(callee))
            elif isinstance(callee, cst.Name):
                ctx._site_callee_names.add(id(callee))
            # Arguments are described at the end of the file, when every binding is known (a
            # counter bumped after the call, `lr *= 0.9`, is still a counter).
            ctx._pending_sites.append((site, node, func, tuple(ctx.loops)))

    def _module_loop(self) -> list[int]:
        """[first line, last line] of the outermost loop around a module-level statement, or []."""
        ctx = self.ctx
        if not ctx.loops:
            return []
        p = ctx.position(ctx.loops[0])
        return [p.line, p.end_line]

    def _object_class(self, expr: cst.BaseExpression) -> str:
        """The qualified name of the class the object `expr` is an instance of, or ""."""

        value = value_of(self.ctx, expr, self.ctx.function)
        return value.cls if value.what == "object" and value.cls else ""

    def _record_object_call(self, node: cst.Call) -> None:
        """A module-level call of a method of an object whose class the module shows (`m.fit()`,
        `m(x)`, `m = Model()` before): where, in program order, that method runs."""
        ctx = self.ctx
        receiver, method = _receiver_and_method(node)
        if receiver is None:
            return
        value = value_of(ctx, receiver, None)
        if value.what == "object" and value.cls:
            ctx.facts.object_calls.append((ctx.position(node).line, value.cls, method))

    def _record_method_call(self, node: cst.Call, func) -> None:
        """`est.prepare(data)`, `attn(x)` on a name bound to an object of a class the file shows,
        in any scope (`ModuleFacts.method_calls`): fresh when the scope constructed the object
        and this is its first use, in the same loop iteration (STG302: written before any call
        of the object could trace it); where the call is (STG301: a function that calls a
        Function's method above and below its own write of a global, `analysis.order`)."""
        ctx = self.ctx
        receiver, method = _receiver_and_method(node)
        if receiver is None:
            return
        value = value_of(ctx, receiver, func)
        if value.what != "object" or not value.cls:
            return
        entry = (func.qualname if func else None, value.cls, method,
                 self._first_use_of_new_object(receiver, func), [], [], ctx.position(node))
        ctx.facts.method_calls.append(entry)
        self._order_object_call(receiver, func, entry)

    def _record_object_arguments(self, node: cst.Call, func) -> None:
        """`apply(model, x)`: a call of a project function handed an object of a known class is a
        use of that object, in the order `_order_object_call` keeps ("()" and the call's target,
        `|`-joined, among the methods: the guide's `evaluate(simple_model, x)` in a function)."""
        if func is None or not any(a.keyword is None and not a.star and isinstance(a.value, cst.Name) for a in node.args):
            return
        # The callee first: most calls (`len(x)`, `x.append(y)`) name no function to resolve, and
        # then no argument's value is asked.
        target = self._target_of(node.func)
        if target is None or not all(isinstance(t, str) for t in target):
            return
        for arg in node.args:
            if arg.keyword is not None or arg.star or not isinstance(arg.value, cst.Name):
                continue
            value = value_of(self.ctx, arg.value, func)
            if value.what != "object" or not value.cls:
                continue
            self._order_object_call(arg.value, func, (func.qualname, value.cls, "()" + "|".join(target), False, [], []))

    def _order_object_call(self, receiver: cst.Name, func, entry) -> None:
        """The methods called on the same object (the one binding reaching `receiver`) before and
        after this call, in program order (`entry`'s last two fields, filled as later calls are
        seen). In a loop that does not make the object, the calls of the loop follow one another
        both ways (the next turn). STG302: a setter called between two calls of a Function on
        the same object makes the second reuse a trace of the old value."""
        ctx = self.ctx
        refs = ctx.reaching(receiver, func) if func is not None else ctx.reaching_in_order(receiver, None)
        if not refs or len(refs) != 1:
            return
        (binding,) = refs
        target = getattr(binding, "node", None)
        if target is None:
            return
        loop = None
        if ctx.loops:
            p, made = ctx.position(ctx.loops[-1]), ctx.position(target)
            if not p.line <= made.line <= p.end_line:
                loop = (p.line, p.end_line)
        uses = self._object_uses.setdefault(id(target), [])
        for earlier, earlier_loop in uses:
            entry[4].append(earlier[2])
            if entry[2]:  # a write ("") is no call the others follow
                earlier[5].append(entry[2])
            if loop is not None and loop == earlier_loop:
                entry[5].append(earlier[2])
                if entry[2]:
                    earlier[4].append(entry[2])
        if loop is not None and entry[2]:
            entry[4].append(entry[2])  # the next turn's call follows this one
            entry[5].append(entry[2])
        uses.append((entry, loop))

    def _first_use_of_new_object(self, receiver: cst.Name, func) -> bool:
        """`receiver` is the first use of the one binding that reaches it, an assignment of a
        constructor call made in the same loop iteration (or outside any loop)."""
        ctx = self.ctx
        refs = ctx.reaching(receiver, func) if func is not None else ctx.reaching_in_order(receiver, None)
        if not refs or len(refs) != 1:
            return False
        (binding,) = refs
        target = getattr(binding, "node", None)
        if not isinstance(ctx.bound_values.get(id(target)), cst.Call):
            return False
        here = ctx.position(receiver)
        for access in getattr(binding, "references", ()):
            p = ctx.position(access.node)
            if (p.line, p.column) < (here.line, here.column):
                return False  # used before (handed on, called): it may have traced already
        if ctx.loops:
            loop = ctx.position(ctx.loops[-1])
            made = ctx.position(target)
            if not loop.line <= made.line <= loop.end_line:
                return False  # made before the loop: the second turn's call follows the first's
        return True

    def _record_refs(self, site: F.CallSite, node: cst.Call, func) -> None:
        """The project functions a call passes (by position or keyword), and a `*args` of the
        caller's own forwarded whole: named now, where the definitions that reach the call are
        the ones a name means (a later `def train` must not capture them)."""
        position = 0
        for arg in node.args:
            if arg.star:
                if (arg.star == "*" and func is not None and isinstance(arg.value, cst.Name)
                        and arg.value.value == func.facts.varargs and self.ctx.binding_kind(arg.value, func) == "param"):
                    site.star = arg.value.value
                continue
            ref = self._function_reference(arg.value)
            key = arg.keyword.value if arg.keyword is not None else str(position)
            if arg.keyword is None:
                position += 1
            if ref is not None and ref[0] == "name":
                site.refs[key] = ref

    def _made_by_call(self, name: cst.Name, func):
        """(made_by, binding) for a call of a name whose one reaching binding is the result of a
        call of a project function (`step = make_step()` ... `step(x)`): the call runs what that
        function returns (`FunctionFacts.returns_function`, resolved in the project phase).
        `made_by` is `("<scope>@<line>:<column>", *the factory's target)`: the binding's place,
        "local" when the calling function makes it (each of its runs calls a new object), "outer"
        when it is made outside (a module-level name, an enclosing function's); the binding: its
        loops do not repeat calls of one object. None otherwise."""
        ctx = self.ctx
        refs = ctx.reaching_in_order(name, func)
        if not refs or len(refs) != 1:
            return None
        bound = getattr(refs[0], "node", None)
        value = ctx.bound_values.get(id(bound)) if bound is not None else None
        if not isinstance(value, cst.Call) or id(bound) in ctx.unpacked_names or id(bound) in ctx.rebinding_targets:
            return None
        factory = self._target_of(value.func)
        if factory is None or factory[0] not in ("name", "self") or not self._is_project_target(factory):
            return None
        local = func is not None and ctx.inside(bound, func.node)
        where = ctx.position(bound)
        return (f"{'local' if local else 'outer'}@{where.line}:{where.column}", *factory), bound

    def _summarise(self) -> None:
        """Every function's return summary, for the project phase (`analysis.values.Summaries`)."""

        for info in self.ctx.function_infos.values():
            if info.returns:
                summary = summarise_returns(self.ctx, info)
                if summary.definite or summary.params or summary.calls:
                    info.facts.returns = (summary.definite, list(summary.params), [list(c) for c in summary.calls])

    def _returned_function(self, values) -> F.Target | None:
        """The target of the `def` every one of `values` (a function's `return` values) names,
        or None: a name bound only by `def` statements (a local def makes a new function object
        on each run of the function around it; its decorators, a new `tf.function`/`jax.jit`
        object with traces of its own)."""
        targets = set()
        for value in values:
            if not isinstance(value, cst.Name):
                return None
            bindings = self.ctx.bindings_of(value)
            if not bindings or not all(isinstance(getattr(b, "node", None), cst.FunctionDef) for b in bindings):
                return None
            targets.add(self._target_of(value))
        return next(iter(targets)) if len(targets) == 1 and None not in targets else None

    def _record_dataset_functions(self, node: cst.Call, names: set[str]) -> None:
        """Functions a `tf.data` transformation traces (`stagelint.analysis.datasets`): entry points."""

        ctx = self.ctx
        exprs, guess = dataset_call(ctx, node, names)
        for expr in exprs:
            bound, positional = (), 0
            # how many positional arguments the element gives it (`datasets.element_components`)
            components = element_components(ctx, node)
            if isinstance(expr, cst.Call) and ctx.qualified_names(expr.func) & PARTIAL_CALLS and expr.args:
                rest = expr.args[1:]
                bound = tuple(a.keyword.value for a in rest if a.keyword is not None)
                positional = sum(1 for a in rest if a.keyword is None and not a.star)
                if any(a.star for a in rest):
                    components = 0  # (`partial(f, *xs)`: which parameters it fills is not shown)
                expr = expr.args[0].value
            if isinstance(expr, cst.Lambda):
                ctx._dataset_lambdas.add(id(expr))
                where = ctx.position(expr)
                name = f"<lambda:{where.line}:{where.column}>"
                qualname = f"{ctx.function.qualname}.<locals>.{name}" if ctx.function is not None else name
                target = ("name", f"{ctx.module}.{qualname}" if ctx.module else qualname)
            else:
                target = self._target_of(expr)
            if target is not None:
                ctx.facts.dataset_functions.append(
                    F.DatasetFunction(target, ctx.position(expr), bound, positional, guess, components,
                                      ctx.function.qualname if ctx.function is not None else None,
                                      _repetition_span(ctx)))

    def _describe_call_sites(self) -> None:
        ctx = self.ctx
        for site, node, func, loops in ctx._pending_sites:
            site.args = [self._arg_facts(a.value, func, loops) for a in node.args if a.keyword is None and not a.star]
            site.kwargs = {a.keyword.value: self._arg_facts(a.value, func, loops) for a in node.args
                           if a.keyword is not None}
            site.spread = any(a.star for a in node.args)
            if site.spread and func is not None:
                self._resolve_spreads(site, node, func, loops)
            if site.spread and func is not None and node.args[-1].star == "*" \
                    and not any(a.star or a.keyword is not None for a in node.args[:-1]):
                # `opi(*params)`: the elements of the caller's parameter fill the rest
                site.spread_param = arg_facts(self.ctx, node.args[-1].value, func, loops).param
        ctx._pending_sites = []

    def _resolve_spreads(self, site: F.CallSite, node: cst.Call, func, loops) -> None:
        """A call's `**` spreads of dict displays (or names bound once to one, never changed) pass
        their string keys as keywords (`spreads.dict_keywords`): the site records them so, as if
        written out, and is no spread any more; one spread of a `**kwargs` parameter left besides is
        recorded as forwarded (`CallSite.kwargs_from`). Any `*` spread, or another spread, keeps it
        a spread (which parameters it fills is not shown)."""
        stars = [a for a in node.args if a.star]
        if any(a.star != "**" for a in stars):
            return
        expanded: dict = {}
        forward = ()
        for a in stars:
            items = dict_keywords(self.ctx, func, a.value)
            if items is None:
                found = forwarded_kwargs(self.ctx, func, a.value)
                if found is None or forward:
                    return
                forward = found
                continue
            if set(items) & set(expanded):
                return  # (a keyword given twice: TypeError at the call)
            expanded.update(items)
        if set(expanded) & set(site.kwargs):
            return
        for key, (value, owner) in expanded.items():
            site.kwargs[key] = self._arg_facts(value, func, loops) if owner is func else arg_facts(self.ctx, value)
        site.kwargs_from = forward
        site.spread = bool(forward)

    def _arg_facts(self, expr, func, loops) -> F.ArgFacts:
        arg = arg_facts(self.ctx, expr, func, loops)
        arg.shape = shape_variation(self.ctx, expr, func, loops)
        arg.function = function_object(self.ctx, expr, func, loops)
        return arg

    def _optimizer_built(self, call: cst.Call) -> str:
        """`frameworks.optimizer_built_at_construction` of the call: "keras3", "tf.keras" or ""."""
        names = [q for q in self.ctx.qualified_names(call.func) if ".optimizers." in q]
        if not names or any(a.star for a in call.args):
            return ""
        keywords = {a.keyword.value: code_of(a.value) for a in call.args if a.keyword is not None}
        positional = sum(1 for a in call.args if a.keyword is None)
        for q in names:
            found = optimizer_built_at_construction(q, keywords, positional)
            if found:
                return found
        return ""

    def _functional_model(self, call: cst.Call) -> bool:
        """`call` makes a functional Keras model (`frameworks.builds_at_construction`)."""
        keywords = {a.keyword.value for a in call.args if a.keyword is not None}
        positional = sum(1 for a in call.args if a.keyword is None and not a.star)
        return any(builds_at_construction(q, keywords, positional) for q in self.ctx.qualified_names(call.func))

    def _record_one_shot_and_built(self, node: cst.Call, staging: set[str]) -> None:
        """`tf.function(f)(x)` / `tf.function(f).get_concrete_function(x)` (a Function used once),
        and objects whose variables a call creates (`opt.build(...)`, `model.fit(...)`, `model(x)`)."""
        ctx = self.ctx
        inner = node.func
        if isinstance(inner, cst.Attribute) and inner.attr.value == "get_concrete_function":
            inner = inner.value
        if isinstance(inner, cst.Call) and ctx.qualified_names(inner.func) & staging:
            ctx._fresh_staging_calls.add(id(inner))
        if isinstance(node.func, cst.Attribute) and node.func.attr.value in KERAS_DRIVING_METHODS \
                and not (node.func.attr.value == "compile" and ctx.qualified_names(node.func) & NOT_KERAS_COMPILES):
            value = value_of(ctx, node.func.value, ctx.function)
            method = node.func.attr.value
            if method == "compile" and any(a.keyword is not None and a.keyword.value == "run_eagerly"
                                           and keyword_constant(a.value, "True")
                                           for a in node.args):
                method = KERAS_EAGER_COMPILE
            elif method == "compile" and self._forwards_compile(node):
                method = KERAS_FORWARDED_COMPILE
            ctx.facts.keras_drives.append(
                (method, value.cls, value.ident, ctx.function.qualname if ctx.function else None))
        receiver = None
        if isinstance(node.func, cst.Attribute) and node.func.attr.value in BUILDING_METHODS:
            receiver = node.func.value
        elif isinstance(node.func, cst.Name):
            receiver = node.func
        if isinstance(receiver, cst.Name):
            if receiver is node.func:
                value = value_of(ctx, receiver, ctx.function)
                if value.what not in ("model", "layer", "object"):
                    return  # calling a model or layer builds it
                ident = value.ident
            else:
                ident = value_of(ctx, receiver, ctx.function).ident
            if ident:
                line = ctx.position(node).line
                ctx.facts.built[ident] = min(line, ctx.facts.built.get(ident, line))

    def _record_keras_tracing(self, node: cst.Call, names: set[str]) -> None:
        """What shows Keras tracing a project layer's methods (`frameworks.KERAS_LOOP_STEPS`),
        among the Keras drives: `keras.Input(...)` in a scope, a project layer made as an entry
        of `Sequential([...])`, `fit(..., validation_data=...)`, `tf.saved_model.save(model)` and
        `model.export(...)`."""
        ctx = self.ctx
        caller = ctx.function.qualname if ctx.function else None
        drives = ctx.facts.keras_drives
        if names & KERAS_INPUT_CALLS or self._functional_model(node) or _functional_super_init(node):
            # the layers this scope calls build a functional model: called on symbolic inputs
            drives.append((KERAS_SYMBOLIC_SCOPE, "", "", caller))
            if caller is None:
                ctx.module_builds.append(ctx.position(node).line)
            return
        if isinstance(node.func, cst.Attribute) and node.func.attr.value in ("fit", "export"):
            if node.func.attr.value == "export" or any(
                    a.keyword is not None and a.keyword.value in KERAS_VALIDATION_KEYWORDS for a in node.args):
                value = value_of(ctx, node.func.value, ctx.function)
                method = KERAS_SAVED if node.func.attr.value == "export" else KERAS_VALIDATING_FIT
                drives.append((method, value.cls, value.ident, caller))
            return
        if names & KERAS_SAVING_CALLS and node.args:
            value = value_of(ctx, node.args[0].value, ctx.function)
            drives.append((KERAS_SAVED, value.cls, value.ident, caller))
            return
        if any(q.rsplit(".", 1)[-1] == "Sequential" and is_keras_model_class(q) for q in names):
            entries = node.args[0].value if node.args and node.args[0].keyword in (None,) else None
            entries = entries or next((a.value for a in node.args if a.keyword is not None
                                       and a.keyword.value == "layers"), None)
            if isinstance(entries, (cst.List, cst.Tuple)):
                for element in entries.elements:
                    made = element.value
                    if isinstance(made, cst.Call):
                        for q in sorted(ctx.qualified_names(made.func)):
                            if not ctx.framework.owns(q):
                                drives.append((KERAS_SEQUENTIAL_ENTRY, q, "", caller))

    def _record_wrapper_binding(self, target: cst.BaseExpression, value: cst.BaseExpression) -> None:
        """`g = tf.function(f)` / `self.step = tf.function(self._step, input_signature=...)`."""
        ctx = self.ctx
        if (
            isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute)
            and value.func.attr.value == "get_concrete_function" and isinstance(target, cst.Name)
            and not ctx.functions
        ):
            traced = self._target_of(value.func.value)
            names = ctx.qualified_names(target)
            if traced is not None and len(names) == 1:
                ctx.facts.concrete_bindings[next(iter(names))] = traced
            return
        wrapped = None
        if isinstance(value, cst.Call) and value.args and ctx.qualified_names(value.func) & ctx.staging_decorators():
            first = value.args[0]
            if first.keyword is None or first.keyword.value in ("func", "fn", "python_function"):
                wrapped = self._target_of(first.value)
        if wrapped is None and not ctx.facts.wrapper_bindings:
            return
        key = self._wrapper_key(target)
        if key is None or key in ctx._rebound_wrappers:
            return
        earlier = ctx.facts.wrapper_bindings.get(key)
        if earlier is not None and (wrapped is None or earlier.target != wrapped):
            # A name bound to a Function and bound again, to another function's wrapper or to
            # another value (`data_creator = vmap(f)` ... `data_creator = vmap(g)` in one module):
            # a call runs whichever binding reaches it (Python's own order; with jax 0.10.2, each
            # call traces only the function bound above it: tests/runtime/test_jax_fresh_facts.py).
            # The model keeps one binding per name, so which function a call runs is unknown.
            del ctx.facts.wrapper_bindings[key]
            ctx._rebound_wrappers.add(key)
            return
        if wrapped is not None:
            signature, _ = staging_options(value)
            ctx.facts.wrapper_bindings[key] = F.WrapperBinding(wrapped, signature, relaxes_shapes(value))

    def _wrapper_key(self, target: cst.BaseExpression) -> str | None:
        """The key of a wrapper binding's target: `name:<qualified>` or `self:<class>:<attr>`."""
        if isinstance(target, cst.Name):
            names = self.ctx.qualified_names(target)
            return "name:" + next(iter(names)) if len(names) == 1 else None
        self_target = self._target_of(target) if isinstance(target, cst.Attribute) else None
        if self_target is not None and self_target[0] == "self":
            return f"self:{self_target[1]}:{self_target[2]}"
        return None

    def _record_attr_write(self, stmt, target: cst.BaseExpression, value: cst.BaseExpression | None) -> None:
        """`obj.attr = value` anywhere: the owner class, whether it is set-up code, what is stored."""
        ctx = self.ctx
        targets = target.elements if isinstance(target, (cst.Tuple, cst.List)) else (target,)
        for tgt in targets:
            tgt = tgt.value if isinstance(tgt, (cst.Element, cst.StarredElement)) else tgt
            if not isinstance(tgt, cst.Attribute):
                continue
            ctx._store_attributes.add(id(tgt))
            if not isinstance(tgt.value, cst.Name):
                continue
            func = ctx.function
            attr = tgt.attr.value
            owner = ""
            on_self = False
            if func is not None and func.self_name == tgt.value.value and func.facts.class_qualname:
                if ctx.binding_kind(tgt.value, func) == "self":
                    owner = func.facts.class_qualname
                    on_self = True
                    if value is not None and not isinstance(stmt, cst.AugAssign):
                        ctx.self_attr_values.setdefault((owner, attr), []).append(value)
                    if func.facts.name == "__init__" and len(targets) == 1:
                        self._record_self_bind(stmt, func, attr, value)
            if not on_self:
                owner = value_of(ctx, tgt.value, func).cls
            nnx_kind = ""
            param = ""
            if on_self and func.facts.name == "__init__" and isinstance(value, cst.Name) \
                    and not isinstance(stmt, cst.AugAssign) and len(targets) == 1 \
                    and ctx.binding_kind(value, func) == "param" \
                    and all(isinstance(getattr(r, "node", None), cst.Param) for r in ctx.reaching(value, func) or ()):
                param = value.value  # `self.debug = debug`: what each construction passes (flags)
            if on_self and is_setup_method(func.facts.name) and not isinstance(stmt, cst.AugAssign):
                if imports_flax(ctx):  # what the attribute is if the class is a Flax NNX module
                    nnx_kind = stored_kind(ctx, value, func, lambda v: tensorness(ctx, v, func).definite)
            ctx.facts.attr_writes.append(F.AttrWrite(
                attr=attr,
                span=ctx.position(stmt),
                owner=owner,
                function=func.qualname if func else None,
                in_init=func is not None and is_setup_method(func.facts.name),
                guarded=ctx.guard_depth > 0,
                value=self._stored_kind(value, isinstance(stmt, cst.AugAssign)),
                text=short_code(stmt, 60),
                augmented=isinstance(stmt, cst.AugAssign),
                on_self=on_self,
                loop=self._module_loop() if func is None else [],
                nnx=nnx_kind,
                around=self._write_order(tgt.value, func, owner) if func is not None and not on_self else [],
                param=param,
            ))

    def _record_self_bind(self, stmt, func, attr: str, value) -> None:
        """`self.attr = self.attr(...)` in a statement of `__init__`'s own body
        (`FunctionFacts.self_binds`): the value is what the method returned, not a wrapper of the
        method (`self.step = tf.function(self.step)` calls it on every call: no such record)."""
        if attr in func.facts.self_binds or isinstance(stmt, cst.AugAssign) or not _calls_own_method(value, func, attr):
            return
        body = func.node.body
        for line in body.body if isinstance(body, cst.IndentedBlock) else ():
            if isinstance(line, cst.SimpleStatementLine) and any(s is stmt for s in line.body):
                _, _, end_line, end_column = self.ctx.raw_position(line)
                func.facts.self_binds[attr] = [end_line, end_column]
                return

    def _record_self_passed(self, call: cst.Call) -> None:
        """The first call of an `__init__` that passes `self` itself (`register(self)`): the
        callee may read its attributes before `__init__` binds them (`FunctionFacts.self_passed`).
        `Base.__init__(self)` is the base's own set-up, as `super().__init__()` is."""
        func = self.ctx.function
        if not any(isinstance(arg.value, cst.Name) and arg.value.value == func.self_name for arg in call.args):
            return
        if isinstance(call.func, cst.Attribute) and call.func.attr.value == "__init__" \
                or "builtins.super" in self.ctx.qualified_names(call.func):
            return  # (`super(Cls, self)` names the base's methods, calls none)
        func.facts.self_passed = self.ctx.raw_position(call)[0]

    def _write_order(self, receiver: cst.Name, func, owner: str) -> list:
        """[methods called before, after] on the object `receiver` names, as for a method call."""
        if not owner:
            return []
        entry = (func.qualname, owner, "", False, [], [])
        self._order_object_call(receiver, func, entry)
        return [entry[4], entry[5]]

    def _stored_kind(self, value: cst.BaseExpression | None, augmented: bool) -> str:
        ctx = self.ctx
        if value is None:
            return "unknown"
        if keyword_constant(value, "None"):
            return "none"
        if isinstance(value, cst.Call):
            names = ctx.qualified_names(value.func)
            if names & ctx.framework.variable_constructors:
                return "variable"
            if any(ctx.framework.creates_variables(q) for q in names):
                return "keras"  # a layer, model, metric or optimizer (it owns variables)
            func = value.func
            if isinstance(func, cst.Attribute) and func.attr.value in ctx.framework.variable_creating_methods:
                return "variable"  # `self.w = self.add_weight(...)`
        if isinstance(value, cst.Attribute) and value.attr.value in VARIABLE_LIST_ATTRIBUTES:
            return "variables"  # `self._weights = model.trainable_variables`: a list of variables
        if self._keras_container(value):
            return "keras"  # `{"loss": tf.keras.metrics.Mean(...), ...}`: Keras objects, each as one alone
        if (
            isinstance(value, cst.ListComp) and isinstance(value.elt, cst.Call)
            and isinstance(value.elt.func, cst.Attribute) and value.elt.func.attr.value in KERAS_SLOT_METHODS
        ):
            return "variables"  # `[self.get_slot(v, "average") for v in weights]`: slot variables

        if not augmented and tensorness(ctx, value, ctx.function).definite:
            return "tensor"
        if is_literal(value) or augmented:
            return "python"
        return "unknown"

    def _forwards_compile(self, node: cst.Call) -> bool:
        """`super().compile(**kwargs)` (positional arguments besides) in a method `compile` whose
        `**kwargs` parameter this call is the only use of: the caller's keywords reach Keras's
        `compile` as they were given (`frameworks.KERAS_FORWARDED_COMPILE`)."""
        ctx, func = self.ctx, self.ctx.function
        receiver = node.func.value
        if func is None or func.facts.name != "compile" or not isinstance(func.node, cst.FunctionDef) \
                or not (isinstance(receiver, cst.Call) and isinstance(receiver.func, cst.Name)
                        and receiver.func.value == "super"):
            return False
        star = func.node.params.star_kwarg
        spread = [a for a in node.args if a.star == "**"]
        if star is None or len(spread) != 1 or not isinstance(spread[0].value, cst.Name) \
                or spread[0].value.value != star.name.value or any(a.keyword is not None for a in node.args):
            return False
        refs = ctx.referents(spread[0].value)
        return bool(refs) and len(refs) == 1 and isinstance(getattr(refs[0], "node", None), cst.Param) \
            and len(refs[0].references) == 1

    def _param_reaches(self, name: cst.Name, func) -> bool:
        """The parameter's own binding may reach this load of its name: not when every binding
        reaching it unpacks a structure into the name (`(inputs, lens) = inputs` ...
        `tf.shape(inputs)`: the op is given one element, which says nothing of what the
        parameter is)."""
        refs = self.ctx.reaching(name, func)
        unpacked = self.ctx.unpacked_names
        return not refs or not all(id(getattr(r, "node", None)) in unpacked for r in refs)

    def _keras_container(self, value: cst.BaseExpression) -> bool:
        """A dict, list or tuple display whose every element is a Keras object made there (a layer,
        metric or optimizer: `Framework.creates_variables`)."""
        if isinstance(value, cst.Dict):
            items = [e.value for e in value.elements if isinstance(e, cst.DictElement)]
            if len(items) != len(value.elements):
                return False  # `**other`
        elif isinstance(value, (cst.List, cst.Tuple)):
            items = [e.value for e in value.elements if isinstance(e, cst.Element)]
            if len(items) != len(value.elements):
                return False  # `*other`
        else:
            return False
        creates = self.ctx.framework.creates_variables
        return bool(items) and all(
            isinstance(v, cst.Call) and any(creates(q) for q in self.ctx.qualified_names(v.func)) for v in items)

    def _record_attr_read(self, node: cst.Attribute) -> None:
        """`self.attr` / `param.attr` loads in a function (which attributes staged code reads)."""
        ctx = self.ctx
        func = ctx.function
        if func is None or id(node) in ctx._store_attributes or not isinstance(node.value, cst.Name):
            return
        recv = node.value.value
        if recv != func.self_name and recv not in func.facts.params:
            return
        kind = ctx.binding_kind(node.value, func)
        if kind not in ("self", "param"):
            return
        pair = ("self" if kind == "self" else recv, node.attr.value)
        if pair not in func.facts.attr_reads:
            func.facts.attr_reads.append(pair)

    def _is_project_target(self, target: F.Target) -> bool:
        if target[0] != "name":
            return True
        root = target[1].split(".", 1)[0]
        return root in self.ctx.project_roots or root == self.ctx.module.split(".", 1)[0]

    def _function_reference(self, expr: cst.BaseExpression) -> F.Target | None:
        """A function passed as an argument (`tf.cond(p, self._a, helper)`): the callee may call it."""
        if isinstance(expr, cst.Attribute):
            ref = self._target_of(expr)
            return ref if ref is not None and ref[0] == "self" else None
        if isinstance(expr, cst.Name) and self._names_function(expr):
            return self._target_of(expr)
        return None

    def _names_function(self, expr: cst.BaseExpression) -> bool:
        """A Name argument that refers to a def (so passing it may call it)."""
        if not isinstance(expr, cst.Name):
            return False
        for b in self.ctx.bindings_of(expr):
            if isinstance(getattr(b, "node", None), cst.FunctionDef):
                return True
            if isinstance(b, ImportAssignment) and isinstance(b.node, cst.ImportFrom):
                return True
        return False

    def _target_of(self, expr: cst.BaseExpression) -> F.Target | None:
        ctx = self.ctx
        func = ctx.function
        if isinstance(expr, cst.Attribute) and isinstance(expr.value, cst.Name) and func is not None:
            if func.self_name and expr.value.value == func.self_name and ctx.binding_kind(expr.value, func) == "self":
                return ("self", func.self_class, expr.attr.value)
        if (
            isinstance(expr, cst.Attribute)
            and isinstance(expr.value, cst.Call)
            and isinstance(expr.value.func, cst.Name)
            and expr.value.func.value == "super"
            and func is not None
            and func.facts.class_qualname
        ):
            return ("super", func.facts.class_qualname, expr.attr.value)
        if isinstance(expr, (cst.Name, cst.Attribute)):
            names = ctx.qualified_names(expr)
            if len(names) == 1:
                (q,) = names
                if not q.startswith("builtins."):
                    return ("name", q)
        return None


def _receiver_and_method(node: cst.Call) -> tuple[cst.Name | None, str]:
    """`m.fit(...)` -> (m, "fit"); `m(x)` -> (m, "__call__"); anything else -> (None, "")."""
    if isinstance(node.func, cst.Attribute) and isinstance(node.func.value, cst.Name):
        return node.func.value, node.func.attr.value
    if isinstance(node.func, cst.Name):
        return node.func, "__call__"
    return None, ""


def analyze_module(module: cst.Module, ctx: FileContext, rule_classes, metadata=Metadata, fast: bool = True) -> F.ModuleFacts:
    """Resolve metadata once, walk once; return the file's facts with the rules' candidates.
    (`metadata=LibcstMetadata, fast=False` is the slow reference, all libcst's own providers and
    traversals: tests compare the two.)"""
    with fast_traversal() if fast else contextlib.nullcontext():
        ctx._meta = metadata(module)
        ctx.module_node = module
        rules = [cls(ctx) for cls in rule_classes]
        walker = _Walker(ctx, rules)
        ctx._rules = rules
        if fast:
            # as module.visit(walker), without rebuilding nodes, and without entering trivia
            walk(module, walker.on_visit, walker.on_leave, _skipped(rules))
        else:
            module.visit(walker)
    return ctx.facts


def _per_element(names, i: int, arg: cst.Arg) -> str:
    """The framework call named `names` that calls the function handed to it as its `i`-th
    argument `arg` once per element of its input (`frameworks.PER_ELEMENT_CALLS`), or ""."""
    for name in sorted(names):
        place = PER_ELEMENT_CALLS.get(name)
        if place is not None:
            given = arg.keyword.value if arg.keyword is not None else None
            if (given is None and i == place[0] and not arg.star) or given == place[1]:
                return name
    return ""


def _passes(names, i: int, arg: cst.Arg) -> int:
    """How many positional arguments the framework call named `names` calls the function handed
    to it as its `i`-th argument `arg` with (`frameworks.CALLS_ITS_FUNCTION_WITH`); -1 unknown."""
    for name in names:
        place = CALLS_ITS_FUNCTION_WITH.get(name)
        if place is not None:
            at, keyword, count = place
            given = arg.keyword.value if arg.keyword is not None else None
            if (given is None and i == at and not arg.star) or given == keyword:
                return count
    return -1
