"""Whether a value in code JAX stages is *known* to be a tracer, and why (issue 23: per-step
certainty for STG602 under JAX).

A tracer is known from two sources only, each observed with JAX 0.10.2
(tests/runtime/test_jax_certainty_facts.py):

* an op: where something that traces the whole body reaches the code (`jax.jit`, `pmap`, the
  bodies of `lax` control flow: `JaxView.op_results_traced`) every JAX op returns a tracer, even
  on constants; under `jax.vmap` / `jax.grad` alone only an op the transformed argument reaches
  does (`frameworks.JAX_TRACES_DEPENDENTS`, tests/runtime/test_jax_traced_values.py);
* a parameter the transformation traces (`JaxView.traced_params`: a non-static argument, a
  Python scalar included), combined with an operator or an array method
  (`frameworks.JAX_ARRAY_METHODS`): `loss > threshold`, `x.sum() > 0`. The parameter alone may
  be a rebuilt container or None (`if batch:`, `assert mask` are Python truth tests there); it is
  a tracer for `range(n)` and a dict key, which fail on any container too.

An item or a row of a traced argument is what the argument is (a leaf or a rebuilt container);
a value that is an op's result on one path and a parameter on another is known where the
parameter is traced too, or no call passes it (`if u0 is None: u0 = jnp.zeros(n)`); a
`jax.tree.map` whose function makes arrays gives a tree of them. Everything else is not known:
an attribute of a parameter (a pytree's field may be static aux data, a property, a dict of
arrays), the result of a project function, a name bound in an enclosing function (a
closed-over array may be a concrete NumPy one), an element of other iterations. Those are
"weak": the finding goes to the preview tier. `enumerate`'s index and a `range` loop's
variable are Python ints whatever they iterate ("python"): never reported; so is a mapping's key
from `.items()` / `.keys()` (hashed: a tracer is unhashable), also as a part of a `zip` or
`enumerate` target, a `str` test method on a Python value (`label.startswith("FIXED")`: a JAX
array has none), and `min` / `max` of Python values (one of its operands; with a tracer among
them, as for an operator, a tracer's comparison: tests/runtime/test_jax_nineteenth_audit_bs_facts.py),
Pallas's `cdiv` of Python numbers (`frameworks.JAX_PYTHON_OF_PYTHON_NUMBERS`), and the TPU's
description and its parts (`RECORD`).

`origin` runs in the per-file walk (it reads the file's bindings); `tracer_fact` in the project
phase (it asks how JAX stages the function).
"""

from __future__ import annotations

import libcst as cst

from stagelint.analysis.flags import gated_reach, traced_reach
from stagelint.analysis.jaxstaging import MODULE_METHOD_APIS
from stagelint.analysis.memo import once
from stagelint.analysis.proof import HEURISTIC, TRUE, fact
from stagelint.frameworks import (
    JAX_ARRAY_METHODS,
    JAX_ARRAY_ONLY_ATTRIBUTES,
    JAX_COLLECTIVES_OF_CONSTANTS,
    JAX_PYTHON_OF_PYTHON_NUMBERS,
    JAX_PYTHON_RECORDS,
    JAX_CONCRETIZING_ANY_LEAF,
    JAX_TRACES_EVERY_ARGUMENT,
    JAX_TREE_MAPS,
    MAPPING_KEY_ITERATORS,
    OPTAX_USERS_JIT,
    STR_TEST_METHODS,
)

#: What a value is known to be, strongest first: a JAX op's result, a traced parameter combined
#: by an operator, a parameter alone, not known, a Python value.
#: MIXED: a JAX op's result on one path, a parameter on another (`if u0 is None: u0 = jnp.zeros(n)`).
#: TREE: a pytree of JAX op results (`jax.tree.map(lambda s: jnp.ones(s), shapes)`): its items are arrays.
OP, MIXED, PARAM, BARE, WEAK, PYTHON, TREE = "op", "mixed", "param", "bare", "weak", "python", "tree"
#: The parameters part of a `PYTHON` value that is a record of Python values (`frameworks.
#: JAX_PYTHON_RECORDS`: the TPU's description): its attributes, items and methods' results are
#: Python values, records too (`tpu_info.sparse_core.num_lanes`). A Python value's parts are not
#: known otherwise (a module's object may hold arrays).
RECORD = frozenset({"<record>"})
_RANK = {OP: 0, MIXED: 1, PARAM: 2, BARE: 3, TREE: 4, WEAK: 5}
_KNOWN = (OP, MIXED, PARAM, BARE)
_LITERALS = (cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString, cst.ConcatenatedString, cst.FormattedString)


def _weakest(a, b):
    """Of two ways a value may have been bound: both must be known (a Python value on one path
    and a tracer on the other is not known)."""
    (ka, pa), (kb, pb) = a, b
    if PYTHON in (ka, kb):
        return (PYTHON, pa & pb) if ka == kb else (WEAK, frozenset())  # (a record on every path: `RECORD`)
    if {ka, kb} <= {OP, MIXED, PARAM, BARE} and OP in (ka, kb) and ka != kb:
        return MIXED, pa | pb
    return (ka if _RANK[ka] >= _RANK[kb] else kb), pa | pb


def _strongest(parts):
    """Of the operands of an operator: one tracer operand makes the result one."""
    parts = list(parts)
    known = [p for p in parts if p[0] in _KNOWN]
    if not known:
        return (PYTHON, frozenset()) if parts and all(k == PYTHON for k, _ in parts) else (WEAK, frozenset())
    kind = min((k for k, _ in known), key=_RANK.get)
    params = frozenset().union(*(p for _, p in known))
    return (PARAM if kind == BARE else kind), params


def origin(ctx, expr: cst.BaseExpression, func) -> tuple[str, frozenset]:
    """(kind, parameters) of `expr` in `func`: `OP`, `MIXED`, `PARAM`, `BARE`, `WEAK` or `PYTHON`,
    and the parameters of `func` the value comes from (for `OP`, those its ops are given)."""
    memo = ctx.memo.setdefault("tracer_origin", {})
    key = (id(expr), id(func))
    if key not in memo:
        memo[key] = (WEAK, frozenset())  # a name bound from itself (`x = x + 1`): its other bindings decide
        memo[key] = _origin(ctx, expr, func)
    return memo[key]


def _origin(ctx, expr, func):
    t = type(expr)
    if t is cst.Name:
        return _name(ctx, expr, func)
    if isinstance(expr, _LITERALS) or t is cst.Lambda:
        return PYTHON, frozenset()
    if t is cst.Call:
        names = ctx.qualified_names(expr.func)
        args = [a.value for a in expr.args]
        if names & JAX_TREE_MAPS:
            return _tree_map(ctx, expr, func)
        if names & {"builtins.min", "builtins.max"} and len(args) >= 2 \
                and not any(a.star or a.keyword for a in expr.args):
            # `min(a, b)` is one of its operands, chosen by comparing them (`b < a`): Python ints
            # give a Python int; a tracer among them gives a tracer's comparison, whose truth
            # value `min` asks (TracerBoolConversionError): as for an operator
            return _strongest(_leaf(origin(ctx, a, func)) for a in args)
        if names & JAX_COLLECTIVES_OF_CONSTANTS and args and origin(ctx, args[0], func)[0] == PYTHON:
            return PYTHON, frozenset()  # `lax.psum(1, axis)`: the axis size, a Python int
        if names & JAX_PYTHON_RECORDS:
            return PYTHON, RECORD  # `pltpu.get_tpu_info()`
        if names & JAX_PYTHON_OF_PYTHON_NUMBERS and args and not any(a.star for a in expr.args) \
                and all(origin(ctx, a, func)[0] == PYTHON for a in args):
            return PYTHON, frozenset()  # `pl.cdiv(n, block)` of Python ints: a Python int
        if any(q.startswith("jax.") and ctx.framework_op(q) for q in names):
            return OP, _params_of(ctx, args, func)
        if isinstance(expr.func, cst.Call) and any(q.startswith("jax.") for q in ctx.qualified_names(expr.func.func)):
            return OP, _params_of(ctx, args, func)  # `jax.grad(loss)(w)`, `jax.vmap(f)(xs)`
        if isinstance(expr.func, cst.Attribute):
            receiver = _leaf(origin(ctx, expr.func.value, func))
            if receiver == (PYTHON, RECORD):
                return receiver  # `tpu_info.get_sublane_tiling(dtype)`
            if expr.func.attr.value in STR_TEST_METHODS and receiver[0] == PYTHON:
                return PYTHON, frozenset()  # `label.startswith("FIXED")` on a mapping's key: a bool
            if expr.func.attr.value in JAX_ARRAY_METHODS and receiver[0] in _KNOWN:
                kind = PARAM if receiver[0] == BARE else receiver[0]
                return kind, receiver[1] | _params_of(ctx, args, func)
        return WEAK, frozenset()
    if t is cst.Attribute:
        if expr.attr.value in ctx.framework.non_tensor_attributes:
            return PYTHON, frozenset()  # `x.shape`, `x.ndim`, `x.dtype`
        inner = origin(ctx, expr.value, func)
        if inner == (PYTHON, RECORD):
            return inner  # `tpu_info.num_lanes`
        return inner if inner[0] == OP else (WEAK, frozenset())  # `jnp.linalg.eigh(m).eigenvalues`, `y.T`
    if t is cst.Subscript:
        inner = _leaf(origin(ctx, expr.value, func))
        if inner[0] in (MIXED, PYTHON):
            return inner  # (`x.shape[-2]`: an item of a shape is a Python int)
        if inner[0] in (PARAM, BARE):
            # an item of a traced argument: a leaf (a tracer) or a rebuilt container, as the
            # argument itself is (`ids[0] > 0`, `batch["x"].sum()`)
            return BARE, inner[1]
        return inner if inner[0] == OP else (WEAK, frozenset())
    if t is cst.BinaryOperation:
        return _strongest(_leaf(origin(ctx, side, func)) for side in (expr.left, expr.right))
    if t is cst.UnaryOperation:
        inner = origin(ctx, expr.expression, func)
        if isinstance(expr.operator, cst.Not):
            return inner  # `not x` asks `bool(x)`: Python for a container or None
        return (PARAM, inner[1]) if inner[0] == BARE else inner
    if t is cst.Comparison:
        ops = [c.operator for c in expr.comparisons]
        if all(isinstance(o, (cst.Is, cst.IsNot)) for o in ops):
            return PYTHON, frozenset()
        if any(isinstance(o, (cst.In, cst.NotIn)) for o in ops):
            # `x in (1, 2)` compares `x` with each: Python for a container (`[1] == 1` is False);
            # `x in values` with both traced fails whatever they are (an array's `__contains__`
            # computes, a leaf's `==` does, a dict hashes the tracer)
            left = _leaf(origin(ctx, expr.left, func))
            rights = [_leaf(origin(ctx, c.comparator, func)) for c in expr.comparisons]
            if left[0] in _KNOWN and any(r[0] in _KNOWN for r in rights):
                return _strongest([left, *rights])
            return left
        return _strongest(_leaf(origin(ctx, e, func)) for e in (expr.left, *(c.comparator for c in expr.comparisons)))
    if t is cst.IfExp:
        return _weakest(origin(ctx, expr.body, func), origin(ctx, expr.orelse, func))
    return WEAK, frozenset()


def _leaf(found):
    """A tree of JAX op results (`TREE`) used as an array (an item, a method, an operator): an op's result."""
    return (OP, found[1]) if found[0] == TREE else found


def _tree_map(ctx, call: cst.Call, func):
    """`jax.tree.map(fn, tree, ...)`: a tree of op results when `fn` makes arrays (a lambda's JAX op,
    a function of the file returning one on every path); else what the tree given is, its leaves
    mapped (a traced argument's leaves stay traced, an object stays the object)."""
    positional = [a.value for a in call.args if a.keyword is None and not a.star]
    if len(positional) < 2:
        return WEAK, frozenset()
    fn, tree = positional[0], positional[1]
    leaf = None
    if isinstance(fn, cst.Lambda):
        leaf = origin(ctx, fn.body, func)[0]
    elif isinstance(fn, cst.Name):
        infos = ctx.__dict__.get("function_infos") or {}
        defs = [infos.get(id(b.node)) for b in ctx.bindings_of(fn)
                if isinstance(getattr(b, "node", None), cst.FunctionDef)]
        if len(defs) == 1 and defs[0] is not None:
            returns = [v for v in defs[0].returns if v is not None]
            kinds = {origin(ctx, v, defs[0])[0] for v in returns}
            leaf = OP if returns and kinds == {OP} else None
    if leaf == OP:
        return TREE, frozenset()
    return _element(ctx, tree, func)


def _element(ctx, expr, func):
    """What a part of `expr` is (a leaf `jax.tree.map` gives, a row a loop takes): of a traced
    argument, a leaf or a rebuilt container, as the argument itself is (`BARE`); of an op's
    result, what that is; anything else is not known."""
    kind, params = origin(ctx, expr, func)
    if kind in (PARAM, BARE):
        return BARE, params
    return (kind, params) if kind in (OP, MIXED) else (WEAK, frozenset())


def _params_of(ctx, exprs, func) -> frozenset:
    out = frozenset()
    for e in exprs:
        kind, params = origin(ctx, e, func)
        if kind in _KNOWN:
            out |= params
    return out


def _name(ctx, name: cst.Name, func):
    if func is None:
        return WEAK, frozenset()
    refs = ctx.reaching(name, func)
    if not refs:
        return WEAK, frozenset()
    own = ctx.scope(func.node.body)
    out = None
    for r in refs:
        node = getattr(r, "node", None)
        comp = ctx.comprehension_targets.get(id(node))
        bound = ctx.bound_values.get(id(node))
        if comp is not None:
            found = _loop_variable(ctx, node, comp.iter, comp.target, func)
        elif getattr(r, "scope", None) is not own:
            # a closure or a global: an array computed outside the trace is concrete
            return WEAK, frozenset()
        elif isinstance(node, cst.Param):
            found = (BARE, frozenset({name.value})) if name.value != func.self_name else (WEAK, frozenset())
        elif isinstance(bound, cst.For):
            found = _loop_variable(ctx, node, bound.iter, bound.target, func)
        elif bound is None or isinstance(bound, cst.AugAssign) or id(node) in ctx.unpacked_names:
            # `a, b = f(x)`, `x += d`: an element of a value, a new value made from the old one;
            # known only from a JAX op's result (`q, r = jnp.linalg.qr(m)`: arrays)
            value = bound.value if isinstance(bound, cst.AugAssign) else bound
            found = origin(ctx, value, func) if value is not None else (WEAK, frozenset())
            if found[0] != OP:
                found = (WEAK, frozenset())
        else:
            found = origin(ctx, bound, func)
        out = found if out is None else _weakest(out, found)
        if out[0] == WEAK:
            return out
    return out or (WEAK, frozenset())


def _loop_variable(ctx, node, iterable, target, func):
    """A `for` target: `enumerate`'s index and a `range` loop's variable are Python ints; a row
    of a traced array (or an element of a rebuilt argument, or parts of one) is what an item of
    it is."""
    if not isinstance(iterable, cst.Call):
        return _element(ctx, iterable, func)
    names = ctx.qualified_names(iterable.func)
    if "builtins.range" in names and target is node:
        return PYTHON, frozenset()
    if "builtins.enumerate" in names and isinstance(target, (cst.Tuple, cst.List)) and len(target.elements) == 2 \
            and iterable.args:
        if target.elements[0].value is node:
            return PYTHON, frozenset()
        if target.elements[1].value is node:  # an element of what `enumerate` is given
            return _loop_variable(ctx, node, iterable.args[0].value, node, func)
        # `for i, (k, v) in enumerate(d.items())`: the element's own parts (only a key is taken from there)
        return _python_part(ctx, node, iterable.args[0].value, target.elements[1].value, func)
    if "builtins.zip" in names and isinstance(target, (cst.Tuple, cst.List)) \
            and len(target.elements) == len(iterable.args) and not any(a.star or a.keyword for a in iterable.args):
        # `for (label, v), k in zip(d.items(), keys)`: each part of the target takes from its own iterable
        for element, arg in zip(target.elements, iterable.args):
            if element.value is node or ctx.inside(node, element.value):
                return _python_part(ctx, node, arg.value, element.value, func)
    if isinstance(iterable.func, cst.Attribute) and iterable.func.attr.value in MAPPING_KEY_ITERATORS \
            and not iterable.args:
        # a mapping's key (`frameworks.MAPPING_KEY_ITERATORS`): never a tracer
        if iterable.func.attr.value == "keys" and target is node:
            return PYTHON, frozenset()
        if isinstance(target, (cst.Tuple, cst.List)) and len(target.elements) == 2 and target.elements[0].value is node:
            return PYTHON, frozenset()
    return WEAK, frozenset()


def _python_part(ctx, node, iterable, target, func):
    """A part of a compound loop target (`zip`'s, `enumerate`'s element) taken as a Python value
    only: what else it is stays a guess, as before these parts were followed."""
    found = _loop_variable(ctx, node, iterable, target, func)
    return found if found[0] == PYTHON else (WEAK, frozenset())


def concretized_kinds(conversion: str) -> tuple:
    """The origins (`origin`) on which the conversion `conversion` (`float`, `np.asarray`,
    `item`: `frameworks.JAX_CONCRETIZING_FUNCTIONS` / `_METHODS`) raises wherever the value's
    parameters are traced: a JAX op's result, a traced parameter combined by an operator; a
    parameter alone too for those that raise on a container or None as well
    (`JAX_CONCRETIZING_ANY_LEAF`: `float(batch)` raises whether `batch` is a tracer or a
    rebuilt tuple; `bool(batch)` and `np.asarray(batch)` do not on a tuple)."""
    return (OP, PARAM, BARE) if conversion in JAX_CONCRETIZING_ANY_LEAF else (OP, PARAM)


# Project phase ---------------------------------------------------------------------------------


def raises_while_traced(project, key, fields: dict) -> bool:
    """The candidate's code runs after a concretizing call that raises on every trace of the
    function `key` (the walk's `_after_concrete`: `float(x)`, `np.asarray(x)`, `x.item()` in a
    statement above it on every path through the function), so it is never traced: the trace
    stops at that call (`ConcretizationTypeError`, `TracerArrayConversionError`; JAX 0.10.2,
    tests/runtime/test_jax_concretizing_facts.py), and nothing after it runs while tracing. Known
    only where every trace of `key` hands the value a tracer: the function is staged by
    `jax.jit` / `pmap` alone (`frameworks.JAX_TRACES_EVERY_ARGUMENT`: not `vmap` or `grad`, under
    which an op on constants is concrete, nor a wrapper whose arguments are not known to be
    traced), it is traced only as that transformation's function (decorated, or no traced code
    calls it directly: there it would hold its caller's values), and the value is a JAX op's
    result or comes from a non-static parameter the transformation is given. The code before the
    call does run at each trace (and, no trace ever completing, on every call). A JAX op's
    result is a tracer in a function those transformations alone reach through calls as well
    (`JaxView.traced_whole_only`: `sigma_measure = jit(...)` calls `sample_weight`, whose
    `range()` of a `jnp` array's element raises there). A helper no transformation is given
    (`entry` None) holds what its callers pass: its conversion raises in every trace when every
    call of it made while tracing passes a known tracer for the value's parameter
    (`JaxView.tracer_in_every_trace`: `utils_OPT.inti_guess(..., type=type_initial_guess)` in a
    function a pmapped one calls with `*params`); its calls where nothing traces run it as plain
    Python, in no trace."""
    if fields.get("_after_concrete") is None or key is None or not project.staged_by_jax(key):
        return False
    jax = project.jax
    if fields.get("_concrete_kind") == OP and jax.traced_whole_only(key):
        return True
    entry = jax.entry(key)
    f = project.function(key)
    kind = fields.get("_concrete_kind")
    if entry is None and kind in concretized_kinds(fields.get("_concrete_call", "")):
        # a helper every traced call of which passes a tracer there (`inti_guess(..., type=t)`
        # under `jax.pmap`): its conversion raises in each of its traces
        return bool(set(fields.get("_concrete_params", ())) & jax.tracer_in_every_trace(key))
    if f is None or entry is None or entry.params_unknown or not entry.apis \
            or not entry.apis <= JAX_TRACES_EVERY_ARGUMENT:
        return False
    if f.staged_by != "decorator" and any(project.in_traced_code(module, site)
                                          for module, site in project.call_sites.get(key, ())):
        return False  # (also run inside another trace, with what its caller passes)
    kind = fields.get("_concrete_kind")
    if kind == OP:
        return True
    if kind in concretized_kinds(fields.get("_concrete_call", "")):
        return bool(set(fields.get("_concrete_params", ())) & jax.given_traced_params(key))
    return False


def after_raising_fact(project, key, span) -> list | None:
    """The step "the function is traced" as a guess (`proof.HEURISTIC`) when every way the entry
    points reach `key` goes through a call made after a `x.numpy()` in its caller
    (`facts.CallEdge.after_raising`, `x` not known a tensor): under a trace `.numpy()` raises on
    a tensor (AttributeError on a symbolic one) or a variable (NotImplementedError), TF 2.21
    (`frameworks.TRACE_RAISING_METHODS`), so such a call is traced only if `x` is neither:
    Monodepth2's debug block (`dispmap = outputs[...][0].numpy()`, then `dilate_box(box)`),
    written for eager runs with tf.function turned off. None when it is reached otherwise."""
    if key not in project.reached:
        return None
    seen, blocked = once(project, "_after_raising_reach", lambda: _reach_before_raising(project))
    if key in seen or key not in blocked:
        return None
    caller, call = blocked[key]
    module = project.modules.get(caller[0])
    where = f" in {module.path}" if module is not None else ""
    return fact(f"`{project.display(caller, key[0])}` calls `{project.display(key, key[0])}` only after "
                f"{call}{where}: under a trace `.numpy()` raises on a tensor or a variable, so this is traced "
                f"only if its receiver is neither (a guess)", span, HEURISTIC)


def _reach_before_raising(project) -> tuple[set, dict]:
    """What the entry points reach through calls not made after a `.numpy()`, and for a function
    only such calls lead to, the first one met: (caller, the `.numpy()` call and its line)."""
    if not any(edge.after_raising for key in project.reached if (f := project.function(key)) is not None
               for edge in f.calls):
        return set(project.reached), {}
    blocked: dict = {}

    def stops(key, edge, callee) -> bool:
        if edge.after_raising:
            blocked.setdefault(callee, (key, edge.after_raising))
        return bool(edge.after_raising)

    return gated_reach(project, stops), blocked


def _names(params) -> str:
    return ", ".join(f"`{p}`" for p in sorted(params))


#: Constructs for which a parameter alone is a tracer: they fail on a container or None as well
#: (`range(d)` and `{d: ...}` of a dict argument raise TypeError too).
_BARE_ENOUGH = frozenset({"`range(...)`", "a dict key"})
#: Constructs that iterate a parameter alone: they fail on an array or a list or tuple of tracers
#: (each element tested or hashed), but a dict argument stays a dict under jit and iterates its
#: keys, Python strings: `set(d)`, `all(d)`, `set(ids).issubset(d)` work (JAX 0.10.2,
#: tests/runtime/test_jax_certainty_facts.py). Known only where the parameter shows it is an
#: array (`param_shows_array`).
_BARE_IF_ARRAY = frozenset({"`any(...)`", "`all(...)`", "`set(...)`", "`frozenset(...)`"})


def param_shows_array(f, param: str) -> bool:
    """The function's own code shows `param` is an array, not a pytree of them: an operand of a
    framework op (`jnp.sum(x)`), or an array-only attribute read (`x.shape`, `x.at`;
    `frameworks.JAX_ARRAY_ONLY_ATTRIBUTES`). A jitted parameter may be a dict, list or tuple
    of arrays otherwise."""
    return f is not None and (param in f.tensor_params or any(
        recv == param and attr in JAX_ARRAY_ONLY_ATTRIBUTES for recv, attr in f.attr_reads))


def module_argument_guess(project, key, traced, value: str, span) -> list | None:
    """A parameter of a Flax Linen / Equinox module's own method, staged as the module's method:
    Flax runs it with what its caller passes, a tracer only where a jitted `apply` passes an array
    (praxis's `add_summary(..., summary_type)`: a Python enum; `Head()(x, self.keep)`: an int
    field). Unless every call shown passes an array, whether it is a tracer is a guess (the
    preview tier); None where that does not apply."""
    entry = project.jax.entry(key)
    if not traced or entry is None or not entry.apis or not entry.apis <= MODULE_METHOD_APIS:
        return None
    traced = sorted(traced)
    passed = [a for p in traced for _, _, a in project.args_for(key, p)]
    if passed and all(a.kind == "tensor" for a in passed):
        return None
    name = project.display(key, key[0])
    return fact(f"`{value}` comes from parameter `{traced[0]}` of the module method `{name}`, which holds "
                f"what its callers pass (a tracer only where a jitted `apply` passes an array): a guess",
                span, HEURISTIC)


def passed_param_guess(project, key, traced, value: str, span) -> list | None:
    """A parameter the transformation does not hand a tracer itself (a helper's, or one
    `jax.vmap` passes with `in_axes=None`) holds what its callers pass: a tracer where a caller
    under `jax.jit` passes one, a concrete array where a caller under `jax.vmap` alone computes it
    from an unbatched value (`jr.randint(key)` of an `in_axes=None` key; JAX 0.10.2,
    tests/runtime/test_jax_certain_steps_facts.py). Unless a call shown passes a known tracer
    (`JaxView.known_traced_params`), which it holds is a guess (the preview tier); None when one
    of `traced` is known to hold one."""
    traced = set(traced)
    if not traced or traced & project.jax.known_traced_params(key):
        return None
    name = project.display(key, key[0])
    return fact(f"`{value}` comes from parameter `{sorted(traced)[0]}` of `{name}`, which no transformation is "
                f"given directly: it holds what its callers pass, a tracer only where they pass one (under "
                f"`jax.vmap` alone, a value computed from an `in_axes=None` argument is concrete): a guess",
                span, HEURISTIC)


def jax_staging_in_trace(project, key) -> tuple[frozenset, bool]:
    """How the JAX stagings that trace `key` stage it, counting only those whose entry point
    reaches it through calls a trace makes (`flags.traced_reach`: a call under a condition false
    in every trace is not made): the modes of those entry points (`JaxView.mode_of`'s "jit",
    "body", "trace", "grad", "python"), and whether one of them traces the whole body
    (`JaxView.whole_body_entry`). JAXFluxTubeGK's precompute builder is reached by a jitted
    objective only under `if collision_frequency is not None:`, which it leaves at None, and by a
    test's `jax.grad` alone: only `grad` traces it, and Python control flow on its values works
    there (JAX 0.10.2, tests/runtime/test_jax_certainty_facts.py)."""
    def build():
        jax = project.jax
        by_mode: dict[str, set] = {}
        for entry, e in jax.entries.items():
            by_mode.setdefault(e.mode, set()).add(entry)
        reach = {mode: traced_reach(project, entries) for mode, entries in by_mode.items()}
        whole = traced_reach(project, {entry for entry in jax.entries if jax.whole_body_entry(entry)})
        return reach, whole
    reach, whole = once(project, "_tracers_jax_staging_in_trace", build)
    return frozenset(mode for mode, seen in reach.items() if key in seen), key in whole


def tracer_fact(project, key, fields: dict, span) -> list | None:
    """The fact that the candidate's `value` is a tracer in the function `key` JAX stages: known
    true, heuristic (the preview tier), or None when it is known not to be one."""
    kind = fields.get("_origin")
    if kind is None:
        return None  # a candidate the walk did not classify (an older facts cache): not known
    kind, params = kind, set(fields.get("_origin_params", ()))
    value = fields.get("value", "the value")
    if kind == PYTHON:
        return None
    jax = project.jax
    modes, whole_in_trace = jax_staging_in_trace(project, key)
    # (a whole-body staging that reaches the function only through calls no trace makes traces
    # none of it; where no JAX staging reaches it in a trace at all, what reaches it decides)
    whole = jax.op_results_traced(key) and (whole_in_trace or not modes)
    traced = sorted(params & jax.traced_params(key))
    name = project.display(key, key[0])
    entry = jax.entry(key)
    staging = entry if entry is not None and entry.apis else jax.entry(project.reached.get(key))
    how = (" and ".join("its users' `jax.jit` (the update of an optax transformation)" if a == OPTAX_USERS_JIT
                        else f"`{a}`" for a in sorted(staging.apis)) if staging is not None and staging.apis
           else "the transformation that reaches it")
    if kind == OP:
        if whole:
            return fact(f"`{value}` is computed by JAX ops in `{name}`, traced by {how}: under a trace every op "
                        f"returns a tracer, even on constants", span, TRUE)
        if traced:
            return fact(f"`{value}` is computed by JAX ops from parameter `{traced[0]}` of `{name}`, which {how} "
                        f"traces: a tracer", span, TRUE)
        return fact(f"`{value}` is computed by JAX ops, but under {how} an op on values the transformation does "
                    f"not map is concrete: whether it is a tracer is a guess", span, HEURISTIC)
    if kind == MIXED and whole:
        f = project.function(key)
        unpassed = {p for p in params - set(traced)
                    if f is not None and p in f.literal_default_params and not project.args_for(key, p)}
        if set(traced) | unpassed >= params:
            other = "a traced argument" if not unpassed else "which no call passes (its default)"
            return fact(f"`{value}` is computed by JAX ops in `{name}`, traced by {how} (a tracer even on constants), "
                        f"or is parameter {_names(params)}, {other}", span, TRUE)
        return fact(f"`{value}` is computed by JAX ops on one path and is a parameter on another: whether it is a "
                    f"tracer is a guess", span, HEURISTIC)
    if kind in (PARAM, BARE) and traced:
        guess = module_argument_guess(project, key, traced, value, span) \
            or passed_param_guess(project, key, traced, value, span)
        if guess is not None:
            return guess
    if kind in (PARAM, BARE) and traced:
        what = fields.get("what")
        if kind == BARE and what in _BARE_IF_ARRAY and not param_shows_array(project.function(key), traced[0]):
            return fact(f"`{value}` is parameter `{traced[0]}` of `{name}`, which may be a dict of arrays (its keys "
                        f"are what {what} reads, Python strings): whether it is a tracer is a guess", span, HEURISTIC)
        if kind == BARE and what not in _BARE_ENOUGH | _BARE_IF_ARRAY:
            return fact(f"`{value}` is parameter `{traced[0]}` of `{name}`, which may be a container or None (a "
                        f"Python truth value): whether it is a tracer is a guess", span, HEURISTIC)
        source = (f"a non-static argument of `{name}`, which {how} traces" if entry is not None and entry.apis
                  else f"a parameter of `{name}` its traced callers pass a tracer")
        return fact(f"`{value}` comes from parameter `{traced[0]}`, {source}: JAX traces every leaf of it, a "
                    f"Python scalar included", span, TRUE)
    return fact(f"`{value}` is reached through an attribute, an item, a closure or a project function: whether it "
                f"is a tracer (not static pytree data, a property, a concrete closure) is a guess", span, HEURISTIC)
