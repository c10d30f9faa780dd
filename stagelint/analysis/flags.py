"""Branches on a parameter left at its default. A transformation calls the function with the
arguments its caller gives, so a parameter no traced call passes holds its default, a Python value:
`if debug_mode:` with `debug_mode=False` is not taken while traced, and what only that branch calls
is not traced (observed with JAX 0.10.2: tests/runtime/test_jax_traced_values.py). A call under
such a branch (`facts.CallEdge.flag`) is known traced only when a traced call passes the parameter;
where the project shows none (the traced calls are `jax.vmap(f, ...)(a, b, c)` it does not follow,
or only eager calls pass it: a test calling `f(..., debug_mode=True)`), the step is a guess.

Code written under such a branch itself (`if verbose: print(...)`, a candidate's `_when`), or a
value read only there (`t0 = time.perf_counter()` ... `if verbose: log(t1 - t0)`), is in no trace
when the function is no entry point (the framework's caller, out of sight, may pass anything), some
traced call of it is shown, and none passes the parameter (or spreads `*args`/`**kwargs` into the
call) anything but False, None or 0 (`untraced_branch`): no rule reports there. A Python `if` on a
Python value is decided while tracing, under `jax.jit` and `tf.function` alike (observed with JAX
0.10.2 and TensorFlow 2.21: tests/runtime/test_jax_eleventh_audit_facts.py).

The same fact, stated for any value a trace gives a parameter (`param_values`): the Python values
a parameter takes in every trace are what each traced call passes for it, a literal, the default
where the call leaves it out, or what the caller's own parameter holds where the call forwards it
(`f(x, verbose=verbose)`: the caller's traced calls decide, followed a few callers up); it is
unknown as soon as the function is an entry point (its caller is out of sight), a traced call
passes anything else, spreads `*args`/`**kwargs`, or hands the function on to be called where the
calls do not show (`lax.scan(body, ...)`, `tf.cond(p, f, g)`). Code runs under conditions on its
function's parameters (`param_conditions`: `if p:`, `if not p:`, `if p is None:`, `if p == "x":`,
`and` of them, the `else` branch, and the rest of a block after `if p: return ...`); a condition
no known value satisfies is false in every trace, so what is written under it is in no trace
(`untraced_branch`, the one question the pipeline's verdicts ask for every rule), and a function
called only from such code is traced by no call (`traced_reach`): NEO_JAX's `run_boozer` returns
under `if jax_surface_scan:`, its only traced caller passes `jax_surface_scan=True`, so the
Python-loop driver called after that return is never traced (observed with JAX 0.10.2 and
TensorFlow 2.21, AutoGraph's converted `if` and early `return` included:
tests/runtime/test_traced_param_values.py). The same holds of an attribute of the method's own
object set from a constructor parameter in `__init__` and never written elsewhere (`if
self.debugPrint == True:`, condition "self.debugPrint|==|True"): its values are what every
construction the project shows passes (`attribute_values`); a construction it does not show
may pass another, so that branch is a guess (`attribute_gate_fact`: the preview tier), not a
decision. A Keras layer's `call` is an entry point (Keras and the layer's importers call it out
of sight), and the traced calls the project shows are calls of its objects, whose class the code
often does not show: a branch of it under a parameter Keras never passes, which every call the
project shows giving it by name gives from eager code, is a guess too (`keras_flag_fact`: the
fifteenth audit's WaveNet `Conv1D`, tests/runtime/test_tf_keras_tracing_facts.py). A store's
conditions reach the rules that report stores once the walk is over (`FileContext.store_when`).
A test of whether a parameter is a tensor (`if not tf.is_tensor(X):`, `isinstance(X, tf.Tensor)`)
is a condition too ("X|not-is_tensor|"): a Function sees a tensor, a NumPy array and (for
`tf.is_tensor`) a variable it is passed as a tensor, so such a branch is in no trace when every
call that traces the function shows one (`tensor_in_every_trace`), a guess when the calls do not
all show and none shown passes a Python value (`tensor_guard_fact`: the seventeenth TensorFlow
audit's QuantPred saliency map, handed to a batching helper; tests/runtime/test_tf_is_tensor_facts.py).
Unknown decides nothing.
"""

from __future__ import annotations

from collections import deque

import libcst as cst

from stagelint.analysis.literals import OFF_LITERALS, literal_value, parse_literal
from stagelint.analysis.memo import once
from stagelint.analysis.proof import HEURISTIC, fact, with_steps
from stagelint.frameworks import (KERAS_SAVED, KERAS_STEP_CALL_KEYWORDS, KERAS_SYMBOLIC_SCOPE, PYTHON_IN_TRACE,
                                  TENSOR_IN_TRACE, TENSOR_TESTS, TENSOR_TYPES)

def _passes(project, key, param: str) -> bool:
    """Some call that traces `key` passes `param` (anything but False/None/0): a call from
    traced code, any call of a function staged itself (`@jax.jit`), or a call of a Function made
    from it (`step = jax.jit(f); step(x, debug=True)`)."""
    f = project.function(key)
    if f is None or param not in f.params:
        return True  # (nothing to go by: keep the step)
    # decorated with a staging API: its direct calls are traced calls (`jax.vmap(f)(x)` makes
    # the entry too, but then a direct call `f(x, debug=True)` runs eagerly)
    staged_itself = f.staged_by == "decorator" or bool(
        set(f.decorators) & project.framework.staging_decorators)

    def given(site, key) -> bool:
        arg = project.arg_passed(site, key, param)
        return arg is not None and not (arg.kind == "python" and arg.text in OFF_LITERALS)

    for module, site in project.call_sites.get(key, ()):
        traced_caller = project.in_traced_code(module, site)
        if (traced_caller or staged_itself) and given(site, key):
            return True
    return any(given(site, key) for _, site, _ in project.function_calls.get(key, ()))


def untraced_branch(project, key, conditions) -> bool:
    """Code of `key` written under `conditions` (`param_conditions`, the candidate's `_when`) is in
    no trace: one of them is false for every value its parameter takes in the traces
    (`param_values`), or every traced call of `key` is made from such code (`traced_reach`).
    See the module's docstring."""
    if key is None or project.function(key) is None:
        return False
    if key in project.reached and key not in traced_reach(project):
        return True
    return any(decided_false(project, key, c) for c in conditions or ())


# Conditions on parameters (the walk) ---------------------------------------------------------


def text_value(text: str) -> tuple[bool, object]:
    """`literal_value` of a literal argument's text (`facts.ArgFacts.text`, cut to 40 characters
    with whitespace runs made one space): a string only when nothing of it can have been changed."""
    if len(text) >= 37 or text.endswith("..."):
        return False, None
    ok, value = parse_literal(text)
    if isinstance(value, str) and any(c.isspace() for c in value):
        return False, None
    return ok, value


def _param_name(ctx, node) -> str:
    """The parameter of the function being walked that `node` reads, unbound since (else ""); or
    "self.<attr>" for an attribute of the method's own object (`attribute_values`)."""
    func = ctx.function
    if func is not None and isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name) \
            and func.facts.class_qualname and node.value.value == func.self_name \
            and ctx.binding_kind(node.value, func) == "self":
        return f"self.{node.attr.value}"
    if func is None or not isinstance(node, cst.Name) or ctx.binding_kind(node, func) != "param":
        return ""
    if not all(isinstance(getattr(r, "node", None), cst.Param) for r in ctx.reaching(node, func) or ()):
        return ""  # rebound first (`if progress is None: progress = cfg.progress`)
    return node.value


def param_conditions(ctx, test) -> tuple[list[str], list[str]]:
    """(conditions the `if` body runs under, conditions its `else` runs under), each a list of
    "param|op|literal" that all hold there (op "truthy", "falsy", "==", "!="): `if p:`, `if not
    p:`, `if p is None:` / `is not None`, `if p == "x":` / `!=` (either side), `a and b` for the
    body, `a or b` for the else. What is not such a test adds nothing (decides nothing)."""
    while isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        body, orelse = param_conditions(ctx, test.expression)
        return orelse, body
    if isinstance(test, (cst.Name, cst.Attribute)):
        p = _param_name(ctx, test)
        return ([f"{p}|truthy|"], [f"{p}|falsy|"]) if p else ([], [])
    if isinstance(test, cst.Call):
        found = _tensor_test(ctx, test)
        if found is None:
            return [], []
        p, kind = found
        return [f"{p}|{kind}|"], [f"{p}|not-{kind}|"]
    if isinstance(test, cst.BooleanOperation):
        left, right = param_conditions(ctx, test.left), param_conditions(ctx, test.right)
        if isinstance(test.operator, cst.And):
            return left[0] + right[0], []
        return [], left[1] + right[1]
    if isinstance(test, cst.Comparison) and len(test.comparisons) == 1:
        target = test.comparisons[0]
        op, other = target.operator, target.comparator
        p = _param_name(ctx, test.left)
        if not p:
            p, other = _param_name(ctx, other), test.left
        ok, value = literal_value(other)
        if not p or not ok:
            return [], []
        if isinstance(op, (cst.Is, cst.IsNot)) and value is not None:
            return [], []  # `p is True`: identity, not equality (`1 is True` is False)
        equal = f"{p}|==|{value!r}"
        unequal = f"{p}|!=|{value!r}"
        if isinstance(op, (cst.Equal, cst.Is)):
            return [equal], [unequal]
        if isinstance(op, (cst.NotEqual, cst.IsNot)):
            return [unequal], [equal]
    return [], []


def _tensor_test(ctx, call: cst.Call) -> tuple[str, str] | None:
    """(parameter, "is_tensor" or "isinstance") for `tf.is_tensor(p)` / `isinstance(p, tf.Tensor)`
    on a parameter of the function being walked (`frameworks.TENSOR_TESTS`, `TENSOR_TYPES`)."""
    func = call.func
    spelled = func.attr.value if isinstance(func, cst.Attribute) else func.value if isinstance(func, cst.Name) else ""
    if spelled not in ("is_tensor", "isinstance"):
        return None  # (asked of every `if <call>:`: the names are looked up for these two only)
    args = [a for a in call.args if a.keyword is None and not a.star]
    if not args or len(args) != len(call.args):
        return None
    names = ctx.qualified_names(func)
    if names & TENSOR_TESTS and len(args) == 1:
        kind = "is_tensor"
    elif "builtins.isinstance" in names and len(args) == 2 and ctx.qualified_names(args[1].value) & TENSOR_TYPES:
        kind = "isinstance"
    else:
        return None
    p = _param_name(ctx, args[0].value)
    return (p, kind) if p and not p.startswith("self.") else None


# Values of parameters in every trace ------------------------------------------------------------

#: How many callers up a forwarded parameter's values are followed.
_FORWARD_DEPTH = 4


def _holds(op: str, wanted, value) -> bool:
    if op in TENSOR_IN_TRACE:
        return False  # (a Python value is no tensor in the trace)
    if op.startswith("not-"):
        return True
    if op == "truthy":
        return bool(value)
    if op == "falsy":
        return not value
    equal = value == wanted  # (`p is None` is `p == None` for a literal's value)
    return equal if op == "==" else not equal


def decided_false(project, key, condition: str) -> bool:
    """No value the parameter takes in any trace of `key` satisfies the condition."""
    param, op, literal = condition.split("|", 2)
    if op.startswith("not-") and tensor_in_every_trace(project, key, param, op[4:]):
        return True  # `if not tf.is_tensor(x):` where every call passes a tensor or an array
    ok, wanted = parse_literal(literal) if literal else (True, None)
    if not ok:
        return False
    values = param_values(project, key, param)  # (None for "self.<attr>": `attribute_gate_fact`)
    return values is not None and not any(_holds(op, wanted, v) for v in values)


def _trace_making_calls(project, key):
    """(module, site, converted) for each call the project shows that traces `key`: a call of the
    Function itself from eager code (`converted`: the Function turns the arguments into tensors),
    or a call from traced code (the argument is what the caller's trace holds). None when the
    function is handed on anywhere the project shows (`handed_on`), or is an entry point other
    than a Function (a Keras method, a `tf.data` function: its calls do not show)."""
    kind = project.entries.get(key)
    if kind not in (None, "decorator", "wrapper") or key in _handed_on(project):
        return None
    out = _calls_shown(project, key)
    if any(site.concrete for _, site, _ in out):
        return None  # `get_concrete_function(...)`: traces with what it is given
    return out


def _calls_shown(project, key) -> list:
    """`_trace_making_calls` among the calls the project shows, whatever else may call `key`."""
    function_sites = {id(site) for _, site, _ in project.function_calls.get(key, ())}
    out = []
    for module, site in project.call_sites.get(key, ()):
        traced = project.in_traced_code(module, site)
        if traced or id(site) in function_sites:
            out.append((module, site, not traced))
    return out


def _tensor_kinds(test: str, converted: bool) -> frozenset:
    """What an argument is (`ArgFacts.what`) when the trace sees a tensor for `test`: converted by
    the Function (`TENSOR_IN_TRACE`), or passed as it is from traced code (no NumPy array then)."""
    kinds = TENSOR_IN_TRACE[test]
    return kinds if converted else kinds - {"ndarray"}


def _handed_on(project) -> set:
    """The functions some function of the project hands on as a value (a "ref" edge: `fun=f`,
    `lax.scan(f, ...)`, `function_batch(X, saliency_map)`): called where the calls do not show."""
    def build():
        found = set()
        for name, m in project.modules.items():
            for f in m.functions.values():
                for edge in f.calls:
                    if edge.kind == "ref":
                        callee = project.resolve(name, edge.target)
                        if callee is not None:
                            found.add(callee)
        return found
    return once(project, "_flag_handed_on", build)


def tensor_in_every_trace(project, key, param: str, test: str) -> bool:
    """`tf.is_tensor(param)` (`test` "is_tensor"; "isinstance" for `isinstance(param, tf.Tensor)`)
    is True in every trace of `key` the project shows: each call that traces it passes `param` a
    tensor, a NumPy array or (for `tf.is_tensor`) a variable to the Function, which converts an
    array to a tensor, or a tensor or variable from traced code (`frameworks.TENSOR_IN_TRACE`, TF
    2.21: tests/runtime/test_tf_is_tensor_facts.py), and the function is handed on nowhere. So a
    branch under `if not tf.is_tensor(param):` is in no trace. False when no such call shows, one
    passes anything else or leaves `param` to its default, or spreads its arguments."""
    f = project.function(key)
    if f is None or param not in f.params or param == f.varargs:
        return False
    calls = _trace_making_calls(project, key)
    if not calls:
        return False
    for _, site, converted in calls:
        if site.spread or site.star:
            return False
        arg = project.arg_passed(site, key, param)
        if arg is None or (arg.what or arg.kind) not in _tensor_kinds(test, converted):
            return False
    return True


def tensor_guard_fact(project, key, conditions, span):
    """The step "this branch is traced" as a guess (`proof.HEURISTIC`) when one of `conditions` is
    `not tf.is_tensor(p)` / `not isinstance(p, tf.Tensor)` (`param_conditions`) not decided by
    `tensor_in_every_trace`, and no call the project shows passes `p` a Python value (a number, a
    list, None, ...) nor leaves it to its default: a Function sees every tensor, NumPy array and
    `tf.data` element it is passed as a tensor (tests/runtime/test_tf_is_tensor_facts.py), so the
    branch runs in a trace only if some call passes a Python value, which its callers, not all
    shown (`function_batch(X, saliency_map)` calls it out of sight), may or may not do. None when a
    call shown passes one: the branch is traced, the finding stands."""
    f = project.function(key)
    for condition in conditions or ():
        param, op, _ = condition.split("|", 2)
        if not op.startswith("not-") or f is None or param not in f.params:
            continue
        if any(_reaches_branch(project, key, f, site, param, op[4:], converted)
               for _, site, converted in _calls_shown(project, key)):
            continue
        test = f"tf.is_tensor({param})" if op == "not-is_tensor" else f"isinstance({param}, tf.Tensor)"
        return fact(f"`{param}` is a tensor in a trace of `{project.display(key, key[0])}` whenever the call passes a "
                    f"tensor, a NumPy array or a `tf.data` element (the Function converts them), so this branch under "
                    f"`not {test}` runs in a trace only if a call passes a Python value, which no call the "
                    f"project shows does (a guess)", span, HEURISTIC)
    return None


def _reaches_branch(project, key, f, site, param: str, test: str, converted: bool) -> bool:
    """The call passes `param` what the trace sees as no tensor: a Python value (a number, a list,
    None, ...; or nothing, leaving a literal default), a NumPy array from traced code, or a
    variable for `isinstance(param, tf.Tensor)` (`_tensor_kinds`)."""
    arg = project.arg_passed(site, key, param)
    if arg is None:
        return not site.spread and not site.star and param in f.scalar_defaults
    return arg.kind == "python" or arg.what in PYTHON_IN_TRACE \
        or (arg.what in TENSOR_IN_TRACE["is_tensor"] and arg.what not in _tensor_kinds(test, converted))


def attribute_gate_fact(project, key, conditions, span):
    """The step "this branch is traced" as a guess (`proof.HEURISTIC`) when one of `conditions`
    (`param_conditions`, a candidate's `_when`) tests `self.<attr>` and no value `attribute_values`
    gives satisfies it; None otherwise. A guess, not a decision: the class is constructed where
    its importers write too, and a construction the project does not show may pass another value
    (a parameter's traced callers, by contrast, are what the project shows: `param_values`)."""
    for condition in conditions or ():
        param, op, literal = condition.split("|", 2)
        if not param.startswith("self."):
            continue
        ok, wanted = parse_literal(literal) if literal else (True, None)
        values = attribute_values(project, key, param[5:]) if ok else None
        if values is None or any(_holds(op, wanted, v) for v in values):
            continue
        shown = ", ".join(sorted(repr(v) for v in values))
        return fact(f"`{param}` is set in `__init__` from its parameter and written nowhere else, and every "
                    f"construction of the class the project shows gives it {shown}: this branch is in no trace "
                    f"of those objects; a construction elsewhere may give it another value (a guess)", span, HEURISTIC)
    return None


def module_flag_fact(project, name: str, span):
    """The step "this block runs" as a guess (`proof.HEURISTIC`) for a candidate under `if DEBUG:`
    (or `if MODE == "debug":`) on a module constant its own module binds only to literals that decide
    the test one way and never rebinds (`walk.module_flag_dead`, `facts.FLAG_DEAD_FIELD`: Python
    then never runs the block, eagerly or traced), when no file of the project assigns an attribute so named on another object
    (`env.DEBUG = True`); None when one does (the block runs after it: the finding stands). A
    guess, not a decision: a write the project spells otherwise (`setattr(env, "DEBUG", True)`,
    `mock.patch("pkg.env.DEBUG", True)`, `pkg.env.DEBUG = True`) is not seen, so the finding goes
    to the preview tier rather than away (tests/runtime/test_jax_sixteenth_audit_bg_facts.py)."""
    if any(not w.on_self for _, w in project.attr_writes(name)):
        return None
    return fact(f"`{name}` is bound at module level only to literals that leave this block unrun and nothing "
                f"in its module rebinds it, so this runs only if another module sets `{name}` on it, which no file of the "
                f"project does as an attribute write (a guess)", span, HEURISTIC)


def keras_flag_fact(project, key, conditions, span):
    """The step "this branch is traced" as a guess (`proof.HEURISTIC`) when `key` is a Keras layer's
    `call` and one of `conditions` tests a parameter of it (`if not is_synthesis: return ...`) that
    its literal default does not satisfy, which Keras' own loops never pass
    (`frameworks.KERAS_STEP_CALL_KEYWORDS`), and which every call the project shows giving it by
    name gives in eager code: a function no entry point reaches, building no functional model,
    while no traced call spreads `**kwargs` into a call it does not resolve and no model is saved
    (a saved model traces `call` with its first call's arguments). The values a parameter takes in
    every trace are what the traced calls pass (`param_values`); a layer's traced calls are calls of
    its objects, whose class the code often does not show (`block(x, c)` over a list of blocks),
    and one may pass the parameter by position: a guess, not a decision. None otherwise (a library
    layer whose callers the project does not show keeps its finding)."""
    f = project.function(key)
    if f is None or f.name != "call" or project.entries.get(key) != "keras" or not conditions:
        return None
    for condition in conditions:
        param, op, literal = condition.split("|", 2)
        if param.startswith("self.") or param in KERAS_STEP_CALL_KEYWORDS or param not in f.scalar_defaults:
            continue
        ok, wanted = parse_literal(literal) if literal else (True, None)
        known, default = parse_literal(f.scalar_defaults[param])
        if not ok or not known or _holds(op, wanted, default):
            continue
        eager = _eager_named_passes(project, param)
        if not eager or any(project.in_traced_code(module, site) and project.arg_passed(site, key, param) is not None
                            for module, site in project.call_sites.get(key, ())):
            continue
        where = ", ".join(f"{path}:{line}" for path, line in eager[:3]) + (", ..." if len(eager) > 3 else "")
        return fact(f"`{param}` of `{project.display(key, key[0])}` defaults to {default!r}, which Keras' own loops "
                    f"keep, and every call the project shows passing it by name runs in eager code ({where}): this "
                    f"branch is traced only if a traced call passes it by position (a guess)", span, HEURISTIC)
    return None


def dataset_default_fact(project, key, conditions, span):
    """The step "this branch is traced" as a guess (`proof.HEURISTIC`) when `key` is a `tf.data`
    function whose element's structure the code does not show (`Project.dataset_filled`), and one
    of `conditions` tests a positional parameter with a literal default that no value is false
    for once the transformation is taken to leave it out (`_dataset_value`: the element's
    components fill only the parameters before it), while some call the project shows passes it
    by name (an option, not a component: Efficient-VDVAE's `data_prep(x_val, use_tf=False)`). The
    transformation gives the element's components by position (`frameworks.DATASET_ELEMENT_CALLS`):
    an element with more components would fill it with a tensor. None otherwise."""
    f = project.function(key)
    if f is None or project.entries.get(key) != "dataset" or project.dataset_filled.get(key, 0) is not None:
        return None
    for condition in conditions or ():
        param, op, literal = condition.split("|", 2)
        if param not in f.positional_params or param not in f.scalar_defaults \
                or not any(param in site.kwargs for _, site in project.call_sites.get(key, ())):
            continue
        ok, wanted = parse_literal(literal) if literal else (True, None)
        values = _values(project, key, param, 0, guess=True) if ok else None
        if values is None or any(_holds(op, wanted, v) for v in values):
            continue
        return fact(f"`{project.display(key, key[0])}` is a `tf.data` function, called with the element's components "
                    f"by position and nothing by keyword; `{param}` defaults to {f.scalar_defaults[param]}, which this "
                    f"branch's condition does not satisfy, and a call passes it by name, as an option: the branch is "
                    f"traced only if the element has more components than the parameters before `{param}`, which the "
                    f"code does not show (a guess)", span, HEURISTIC)
    return None


def _eager_named_passes(project, param: str) -> list:
    """[(path, line)] of the calls passing `param` by name, when all of them run in eager code
    (`keras_flag_fact`); [] when one of them, or a call spreading `**kwargs` it does not resolve,
    is traced, builds a functional model, or a model is saved."""
    memo = once(project, "_flag_eager_named_passes", dict)
    if param in memo:
        return memo[param]
    memo[param] = []
    symbolic = set()
    for name, m in project.modules.items():
        for method, _cls, _ident, caller in m.keras_drives:
            if method == KERAS_SAVED:
                return []
            if method == KERAS_SYMBOLIC_SCOPE:
                symbolic.add((name, caller))
    found = []
    for name in sorted(project.modules):
        m = project.modules[name]
        for site in m.call_sites:
            traced = project.in_traced_code(name, site) or (name, site.caller) in symbolic
            if param in site.kwargs:
                if traced:
                    return []
                found.append((m.path, site.span.line))
            elif site.spread and traced and project.resolve(name, site.target) is None:
                return []
    memo[param] = found
    return found


def _traced_callers(project) -> dict:
    """Function -> [(caller, edge)] for every call edge of a function an entry point reaches."""
    def build():
        callers: dict = {}
        for caller in project.reached:
            for edge, callee in project.call_edges(caller):
                callers.setdefault(callee, []).append((caller, edge))
        return callers
    return once(project, "_flag_traced_callers", build)


def param_values(project, key, param: str, _depth: int = 0):
    """The Python values `param` of `key` takes in every trace (a frozenset), or None when that is
    not known: see the module's docstring."""
    memo = once(project, "_flag_param_values", dict)
    if (key, param) in memo:
        return memo[(key, param)]
    memo[(key, param)] = None  # (a call cycle: unknown)
    values = _values(project, key, param, _depth)
    memo[(key, param)] = values
    return values


def _values(project, key, param: str, depth: int, guess: bool = False):
    f = project.function(key)
    if f is None or param not in f.params or param == f.varargs:
        return None
    values = set()
    if key in project.entries:
        known, value = _dataset_value(project, key, f, param, guess)
        if known:
            values.add(value)
        else:
            bound = _partial_values(project, key, param, f.scalar_defaults)
            if bound is None:
                return None
            values |= bound
    return _with_traced_calls(project, key, param, f.scalar_defaults, depth, values, by_keyword=False)


def _with_traced_calls(project, key, param: str, defaults: dict, depth: int, values: set, by_keyword: bool):
    """`values` (what `key`'s stagings give `param`) joined with what its traced calls pass
    (`_traced_call_values`); `values` alone where nothing traced calls it, None where a call
    passes what does not show, or neither shows anything."""
    shown = _traced_call_values(project, key, param, defaults, depth, by_keyword)
    if shown is None:
        return frozenset(values) if values and not _traced_callers(project).get(key) else None
    return frozenset(values | shown)


def _traced_call_values(project, key, param: str, defaults: dict, depth: int, by_keyword: bool):
    """What the traced calls of `key` pass for `param` (`defaults`' literal where one passes
    none; `by_keyword`: only by that keyword, as a `**kwargs` receives it), following a caller
    that forwards its own parameter or hands its `**kwargs` on; None when there is no traced call,
    or one passes what does not show."""
    callers = _traced_callers(project).get(key)
    if not callers:
        return None
    sites = _sites_by_place(project, key)
    values = set()
    for caller, edge in callers:
        if edge.kind != "call":
            return None  # handed on (`lax.scan(body, ...)`): called where the calls do not show
        site = sites.get((caller[0], caller[1], edge.span.line, edge.span.column))
        if site is None or site.star:
            return None
        arg = site.kwargs.get(param) if by_keyword else project.arg_passed(site, key, param)
        if site.spread and arg is None:
            # only a spread of a `**kwargs` parameter: what that parameter's own calls gave it by
            # this name
            forwarded = _kwargs_values(project, caller, site.kwargs_from, param, defaults, depth) \
                if site.kwargs_from else None
        elif site.spread:
            return None
        else:
            known, value = _spelled_value(arg, defaults, param)
            if known:
                values.add(value)
                continue
            forwarded = param_values(project, caller, arg.param, depth + 1) \
                if arg is not None and arg.param and depth < _FORWARD_DEPTH else None
        if forwarded is None:
            return None
        values |= forwarded
    return values


def _partial_values(project, key, param: str, defaults: dict):
    """The values `param` of a JAX entry point holds in every call of its stagings the project
    shows (`JaxEntry.partial_values`): the literal each staging binds it to with
    `functools.partial` (FoldJAX's `jax.jit(partial(boltz2_sample_forward, use_scan=True, ...))`),
    what each call of a staging passes for it (a call's keyword overrides what `partial` binds),
    and, where a staging leaves it to the calls, the literal default a call passing none leaves
    (`defaults`: those of the function whose parameter it is, the entry's or, for a keyword its
    `**kwargs` hands on, the callee's). None when a staging is called where its calls may not show, a call passes anything else or
    spreads its arguments."""
    entry = project.jax.entries.get(key) if project.staged_by_jax(key) else None
    found = entry.partial_values(param) if entry is not None and not entry.inline else None
    f = project.function(key)
    if found is None or f is None:
        return None
    texts, unbound = found
    calls = project.function_calls.get(key, ())
    if unbound and not calls:
        return None  # (its calls, said to show, resolve to no call of it here: not followed)
    values = set()
    for text in texts:
        known, value = text_value(text)
        if not known:
            return None
        values.add(value)
    for _, site, _ in calls:
        if site.spread or site.star:
            return None
        arg = project.arg_passed(site, key, param)
        if arg is None and not unbound:
            continue  # (the partial's own binding holds)
        known, value = _spelled_value(arg, defaults, param)
        if not known:
            return None
        values.add(value)
    return values


def _sites_by_place(project, key) -> dict:
    sites = {}
    for module, site in project.call_sites.get(key, ()):
        sites.setdefault((module, site.caller, site.span.line, site.span.column), site)
    return sites


def _kwargs_values(project, caller, kwargs_from: tuple, param: str, defaults: dict, depth: int):
    """The values a call forwarding a `**kwargs` parameter (`CallSite.kwargs_from`: the function
    it belongs to, the keys that function changes on it) passes for the callee's `param`, given
    `defaults` (the callee's): in every trace, what each traced call of that function gives it by
    that name, or the callee's literal default where one gives none (`spreads`, Python's own
    binding of keywords). The function is the caller, or one around it that alone calls it (its
    closure then holds the `**kwargs` of that function's own call). None when not known: the
    function changes that key, takes `param` by name itself, is an entry point other than one
    `_partial_values` answers, or a call of it spreads what does not show."""
    owner_name, changed = kwargs_from
    owner = (caller[0], owner_name)
    of = project.function(owner)
    if depth >= _FORWARD_DEPTH or of is None or param in changed or param in of.params:
        return None
    if owner != caller and (caller in project.entries or any(
            c != owner or edge.kind != "call" for c, edge in _traced_callers(project).get(caller, ()))):
        return None  # (a nested function called elsewhere too, or handed on)
    values = set()
    if owner in project.entries:
        # a transformation's calls of it: what its stagings bind with `partial` and their calls pass
        bound = _partial_values(project, owner, param, defaults)
        if bound is None:
            return None
        values |= bound
    return _with_traced_calls(project, owner, param, defaults, depth + 1, values, by_keyword=True)


def _dataset_value(project, key, f, param: str, guess: bool = False) -> tuple[bool, object]:
    """The Python value `param` of `key` holds in the calls of the `tf.data` transformations that
    trace it, when every one leaves it out: (True, its literal default). A transformation gives its
    function the element's top-level tuple components by position and nothing by keyword
    (`frameworks.DATASET_ELEMENT_CALLS`), so a keyword-only parameter, or a positional one past the
    components of every element (`Project.dataset_filled`), keeps its default; (False, None) for
    any other entry point, a parameter `functools.partial` binds, or an element whose structure
    the code does not show (unless `guess`: `dataset_default_fact`)."""
    if project.entries.get(key) != "dataset" or param in project.dataset_bound.get(key, ()) \
            or param not in f.scalar_defaults:
        return False, None
    if param in f.positional_params:
        filled = project.dataset_filled.get(key)
        if (filled is None and not guess) or (filled is not None and f.positional_params.index(param) < filled):
            return False, None
    return parse_literal(f.scalar_defaults[param])


def _spelled_value(arg, defaults: dict, param: str) -> tuple[bool, object]:
    """The Python value a call site gives `param` where the code spells it: the literal it passes,
    or, passing nothing, the parameter's literal default: (True, value); (False, None) otherwise."""
    if arg is None:
        return parse_literal(defaults.get(param, "-"))
    if arg.kind == "python":
        return text_value(arg.text)
    return False, None


def attribute_values(project, key, attr: str):
    """The Python values `self.<attr>` holds in every call of the method `key`, or None when that
    is not known: the attribute is written only in `__init__` of the method's class, from one of
    its parameters (`self.debug = debug`: `AttrWrite.param`), nothing else the project shows
    writes an attribute so named on an object of that class or of unknown class, no project class
    derives from it or is among its bases, and every construction of the class the project shows
    (at least one) passes that parameter a literal or leaves it to its literal default, or passes
    the object's own `self.<attr>` (`Hourglass(depth - 1, debug=self.debug)` inside the class: no
    value it does not already hold). The values a parameter has in every trace (`param_values`),
    carried through the object: a `call` testing `if self.debug == True:` with `debug=False` the
    default no construction overrides runs that branch in no trace (the stacked-hourglass port)."""
    memo = once(project, "_flag_attribute_values", dict)
    if (key, attr) not in memo:
        memo[(key, attr)] = _attribute_values(project, key, attr)
    return memo[(key, attr)]


def _attribute_values(project, key, attr: str):
    f = project.function(key)
    found = project.class_near(f.class_qualname, key[0]) if f is not None and f.class_qualname else None
    if found is None:
        return None
    cls = found[1].qualname
    family = project.class_family(cls)
    if any(c != cls and c in project.classes for c in family):
        return None  # a project base or subclass: its writes and constructions are not followed here

    def owner(write) -> str | None:
        known = project.resolve_class(write.owner) if write.owner else None
        return known[1].qualname if known is not None else None

    writes = [(m, w) for m, w in project.attr_writes(attr) if (o := owner(w)) is None or o in family]
    inits = {(m, w.function) for m, w in writes}
    if not writes or len(inits) != 1 or not all(w.param and w.on_self and not w.guarded for _, w in writes):
        return None
    init = project.function(next(iter(inits)))
    params = {w.param for _, w in writes}
    sites = _constructions(project).get(cls)
    if init is None or not sites:
        return None
    values = set()
    for module, site in sites:
        if site.spread or site.star:
            return None
        for param in params:
            arg = site.kwargs.get(param)
            if arg is None and param in init.positional_params:
                i = init.positional_params.index(param) - 1  # (`self` is not passed)
                arg = site.args[i] if 0 <= i < len(site.args) else None
            known, value = _spelled_value(arg, init.scalar_defaults, param)
            if known:
                values.add(value)
            elif arg is None or not (arg.text == f"self.{attr}" and site.caller is not None
                                     and _in_class(project, module, site.caller, cls)):
                return None
    return frozenset(values)


def _in_class(project, module: str, caller: str, cls: str) -> bool:
    f = project.function((module, caller))
    found = project.class_near(f.class_qualname, module) if f is not None and f.class_qualname else None
    return found is not None and found[1].qualname == cls


def _constructions(project) -> dict:
    """Project class (absolute name) -> [(module, call site)] of every call the project shows of
    the class itself (`Residual(features)`): its constructions."""
    def build():
        out: dict = {}
        for name in sorted(project.modules):
            for site in project.modules[name].call_sites:
                if site.target[0] != "name" or site.concrete:
                    continue
                found = project.class_near(site.target[1], name)
                if found is not None:
                    out.setdefault(found[1].qualname, []).append((name, site))
        return out
    return once(project, "_flag_constructions", build)


def traced_reach(project, starts=None) -> set:
    """What the entry points (or the entry points `starts`) reach through calls not written under
    a condition false in every trace (`CallEdge.when`, `decided_false`): a function
    `project.reached` holds and this does not is called only from code no trace runs. Of
    `starts`, the functions those stagings trace (`tracers.jax_staging_in_trace`: JAXFluxTubeGK's
    precompute builder, which the jitted objective calls only under `if collision_frequency is
    not None:` it leaves at None, traced otherwise by a test's `jax.grad` alone)."""
    memo = once(project, "_flag_traced_reach", dict)
    at = None if starts is None else frozenset(starts)
    if at not in memo:
        gated = any(edge.when for key in project.reached if (f := project.function(key)) is not None
                    for edge in f.calls)
        if not gated and at is None:
            memo[at] = set(project.reached)
        else:
            memo[at] = gated_reach(project, lambda key, edge, callee: gated and any(
                decided_false(project, key, c) for c in edge.when), at)
    return memo[at]


def gated_reach(project, stops, starts=None) -> set:
    """What the entry points (or `starts`) reach through the call edges `stops(caller, edge,
    callee)` lets pass, breadth first (each callee met through its first such edge; `stops` is
    asked only of a callee not reached yet). Serves the flag gates here and
    `tracers.after_raising_fact`'s."""
    starts = project.entries if starts is None else starts
    seen = set(starts)
    queue = deque(sorted(starts))
    while queue:
        key = queue.popleft()
        for edge, callee in project.call_edges(key):
            if callee in seen or stops(key, edge, callee):
                continue
            seen.add(callee)
            queue.append(callee)
    return seen


def _flag_free(project) -> tuple[set, dict]:
    """What the entry points reach without a call under an `if <flag>:` no traced call turns on,
    and for a function such a call leads to, the first one seen: (caller, flag, line)."""
    return once(project, "_flag_free_reach", lambda: _reach_without_flags(project))


def _reach_without_flags(project) -> tuple[set, dict]:
    passes: dict = {}
    blocked: dict = {}

    def stops(key, edge, callee) -> bool:
        flag = getattr(edge, "flag", "")
        if not flag:
            return False
        if (key, flag) not in passes:
            passes[(key, flag)] = _passes(project, key, flag)
        if passes[(key, flag)]:
            return False
        blocked.setdefault(callee, (key, flag, edge.span.line))
        return True

    return gated_reach(project, stops), blocked


def default_flag_fact(project, key, span) -> list | None:
    """The step "the function is traced" as a guess (`proof.HEURISTIC`) when every way the entry
    points reach it goes through a call under `if <flag>:` on a parameter no traced call passes;
    None when it is reached otherwise (or not at all)."""
    seen, blocked = _flag_free(project)
    if key not in project.reached or key in seen:
        return None
    shown = f"`{project.display(key, key[0])}`"
    if key in blocked:
        caller, flag, line = blocked[key]
        module = project.modules.get(caller[0])
        where = f"{module.path}:{line}" if module is not None else f"line {line}"
        how = f"`{project.display(caller, key[0])}` calls {shown} only under `if {flag}:` ({where}), and `{flag}` " \
              f"defaults to False, None or 0"
    else:
        how = f"{shown} is reached only through a call under `if <flag>:` on a parameter that defaults to False, None or 0"
    return fact(f"{how}; no traced call the project shows passes it, so a transformation keeps the default and the "
                f"branch may never be traced", span, HEURISTIC)


def with_flag_step(verdict, candidate, project, key):
    """A rule's `confirm` verdict with the step above added to the proof when it is a guess."""
    if not verdict or not project.staged_by_jax(key):
        return verdict
    step = default_flag_fact(project, key, candidate.span)
    if step is None:
        return verdict
    return with_steps(verdict, candidate, step)
