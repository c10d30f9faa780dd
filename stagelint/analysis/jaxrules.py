"""What the existing rule families decide differently for code JAX stages (issue 14).

The rule classes stay the one home of each rule; where JAX's semantics differ from TensorFlow's
they call in here (observed on jax 0.10.2, ../shared/spec/jax-behaviour.md):

* no AutoGraph: every Python `if`/`while`/`assert`/`and`/`or`/`not`, `range()` and dict key
  on a tracer fails (rows 13, 18, 20), including on a jitted function's parameters, which are
  tracers unless static;
* iterating or unpacking a traced array works (it unrolls: STG503's business, row 23), and so does
  `len(x)` (the shape is static);
* `float()`/`int()` on a tracer is a ConcretizationTypeError (STG601, row 16).
"""

from __future__ import annotations

import libcst as cst

from stagelint.analysis.bounds import varying_bound
from stagelint.analysis.literals import keyword_constant
from stagelint.analysis.dependence import op_result_fact
from stagelint.analysis.proof import HEURISTIC, TRUE, fact, with_steps
from stagelint.frameworks import (JAX, JAX_TRACER_ERROR_CATCHERS, NUMPY_ARRAY_METHOD_CALLS,
                                  PALLAS_KERNEL_CALLS, PARTIAL_CALLS)
from stagelint.analysis.caught import catches
from stagelint.analysis.jitsites import uses_pallas
from stagelint.analysis.memo import once
from stagelint.analysis.pytrees import PytreeModel, python_attribute_reads, traced_attribute_facts
from stagelint.analysis.jaxstaging import CODES_OUT_OF_MODE
from stagelint.analysis.tracers import jax_staging_in_trace, param_shows_array, tracer_fact

#: STG602 checks that JAX does not fail on: iteration unrolls, `len` reads the static shape,
#: `int()`/`float()` are STG601's there.
_NOT_IN_JAX = frozenset({"a `for` loop", "unpacking", "a comprehension", "`len(...)`", "`int(...)`",
                         "`float(...)`"})
#: Builtins that iterate a value and test or hash each element: on a traced array (or a list of
#: tracers) they fail under JAX where iterating alone works (JAX 0.10.2:
#: tests/runtime/test_jax_certainty_facts.py). `max`/`min`/`sorted` compare elements only when
#: there are two or more, which the code does not show: left out.
_TESTS_ELEMENTS = frozenset({"`any(...)`", "`all(...)`", "`set(...)`", "`frozenset(...)`"})
_ERRORS = {
    "`range(...)`": "TracerIntegerConversionError",
    "a dict key": "TypeError (unhashable tracer)",
    "`set(...)`": "TypeError (unhashable tracer)",
    "`frozenset(...)`": "TypeError (unhashable tracer)",
}
_INSTEAD = {
    "`while`": "loop with `jax.lax.while_loop` / `lax.fori_loop`, or mark the argument static (`static_argnums`)",
    "`assert`": "check with `checkify.check` or `jax.debug.callback`, or assert on static values (shapes)",
    "`range(...)`": "loop with `lax.fori_loop` / `lax.scan`, or mark the bound static (`static_argnums`)",
    "a dict key": "key the dict by a static value",
    "`any(...)`": "use `jnp.any(...)`",
    "`all(...)`": "use `jnp.all(...)`",
    "`set(...)`": "use `jnp.unique(x, size=...)`, or keep static values in the set",
    "`frozenset(...)`": "use `jnp.unique(x, size=...)`, or keep static values in the set",
}
_BRANCH = "branch with `jax.lax.cond` / `jnp.where`, or mark the argument static (`static_argnums`)"


def jax_branch_test(expr: cst.BaseExpression, ctx=None, func=None, _depth: int = 0) -> bool:
    """A test that computes on a value (`x > 0`, `x.sum()`), not one that asks whether an
    optional argument was given (`if mask:`, `if not cfg.flag:`): a jitted function's argument
    may be None or a Python flag as well as an array. A local name is the value it was bound to
    when that binding is the only one reaching the test (`direction = t0 > t1` ... `if
    direction:` is `if t0 > t1:`: TracerBoolConversionError under jit, JAX 0.10.2,
    tests/runtime/test_jax_recall_facts.py)."""
    if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Not):
        return jax_branch_test(expr.expression, ctx, func, _depth)
    if isinstance(expr, cst.Name) and ctx is not None and func is not None and _depth < 3:
        bound = _only_local_value(ctx, expr, func)
        return bound is not None and jax_branch_test(bound, ctx, func, _depth + 1)
    return not isinstance(expr, (cst.Name, cst.Attribute))


def _only_local_value(ctx, name: cst.Name, func):
    """The value of the one plain assignment in `func` that reaches the load `name` (`d = t0 >
    t1`), or None: a parameter, several bindings (a branch may bind a Python value), an unpacked
    element, an augmented assignment, a loop or comprehension variable, a closure."""
    refs = ctx.reaching(name, func)
    if not refs or len(refs) != 1:
        return None
    (r,) = refs
    node = getattr(r, "node", None)
    if getattr(r, "scope", None) is not ctx.scope(func.node.body) or not isinstance(node, cst.Name) \
            or id(node) in ctx.unpacked_names or id(node) in ctx.comprehension_targets:
        return None
    bound = ctx.bound_values.get(id(node))
    return bound if isinstance(bound, cst.BaseExpression) else None


def compares_with_none(expr: cst.BaseExpression) -> bool:
    """`x != None` / `x == None` (or `is`): under JAX a Python bool whatever `x` is. A JAX array's
    `__eq__` / `__ne__` give None back to Python, which compares identities: a tracer, a pytree of
    them or None against None is True or False while tracing (JAX 0.10.2,
    tests/runtime/test_jax_fifteenth_audit_static_facts.py; sac-jax-maniskill's
    `if visual_encoder != None:` under jit)."""
    return isinstance(expr, cst.Comparison) and all(
        isinstance(c.operator, (cst.Equal, cst.NotEqual, cst.Is, cst.IsNot)) and keyword_constant(c.comparator, "None")
        for c in expr.comparisons)


def confirm_tracer_as_python_value(candidate, project, key):
    """STG602 for a function JAX stages: a dict of message fields, or False."""
    fields = candidate.fields
    what = fields.get("what", "")
    if what in _NOT_IN_JAX or ("iterat" in fields.get("error", "") and what not in _TESTS_ELEMENTS):
        return False
    if fields.get("_none_test"):
        return False  # `if encoder != None:`: a Python bool under JAX (`compares_with_none`)
    modes, _ = jax_staging_in_trace(project, key)
    if modes and all(candidate.code in CODES_OUT_OF_MODE[mode] for mode in modes):
        return False  # only `jax.grad` alone traces it through calls a trace makes: its primal values decide
    if not fields.get("_definite") and not project.jax.is_traced(key, fields.get("_params", ())):
        return False
    if not fields.get("_definite") and python_attribute_reads(project, key,
                                                              fields.get("_attrs") or fields.get("_local_attrs")):
        return False  # `if model.dim == 4`: a Flax NNX module's Python attribute, a pytree's aux data
    error = _ERRORS.get(what, "TracerBoolConversionError")
    if catches(fields, JAX_TRACER_ERROR_CATCHERS.get(error, frozenset())):
        return False  # the code catches the tracer error by name: it handles the traced case
    # The step the finding rests on: the value is known to be a tracer (an op under jit, a traced
    # parameter), or only guessed to be one (the preview tier), or known not to be one.
    step = tracer_fact(project, key, fields, candidate.span)
    if step is None:
        return False
    out = {
        "jax_error": error,
        "jax_instead": _INSTEAD.get(what, _BRANCH),
    }
    because = traced_attribute_facts(project, key, fields.get("_attrs"), candidate.span) \
        if not fields.get("_definite") else []
    if not because and step[3] == HEURISTIC and PytreeModel.of(project).guessed_static(
            key, fields.get("_attrs") or fields.get("_local_attrs")):
        return False  # `left.offsets` of an object whose class is not shown: the project's pytrees keep it aux data
    # `if cfg.scale > 2`: `scale` a child of the pytree `cfg` is: that is the step
    return with_steps(out, candidate, *(because or [step]))


def confirm_concrete_value(candidate, project, key):
    """STG601 for a function JAX stages: traced values only (a static argument is a Python value)."""
    fields = candidate.fields
    # `float(x)`, `x.item()`: ConcretizationTypeError; NumPy on a tracer (`EagerOnlyCall._numpy`,
    # by the call's qualified name): TracerArrayConversionError
    error = fields.get("_jax_error", "ConcretizationTypeError")
    if catches(fields, JAX_TRACER_ERROR_CATCHERS[error]):
        return False  # the code catches the tracer error by name: it handles the traced case
    if fields.get("_numpy") in NUMPY_ARRAY_METHOD_CALLS:
        return False  # `np.min(x, 0)`, `np.reshape(x, s)`: NumPy calls the tracer's own method
    if fields.get("_primal") and project.jax.mode_of(key) == "grad":
        return False  # `np.asarray(lax.stop_gradient(x))` under `jax.grad` alone: the primal, concrete (`JAX_PRIMAL_OPS`)
    if not fields.get("_definite") and (python_attribute_reads(project, key, fields.get("_attrs"))
                                        or PytreeModel.of(project).guessed_static(key, fields.get("_attrs"))):
        return False  # `np.argsort(matrix.offsets)`: a pytree's aux data, a Python value (the rule's a preview under JAX)
    if fields.get("_definite"):
        # a JAX operation's result: a tracer wherever the whole body is traced; under `jax.grad` /
        # `jax.vmap` alone only if computed from what they transform (`analysis.dependence`)
        return {"_because": [op_result_fact(project, key, fields.get("value", "the value"),
                                            {*fields.get("_params", ()), *fields.get("_from", ())}, candidate.span)]}
    return project.jax.is_traced(key, fields.get("_params", ()))


def confirm_loop_unrolled(candidate, project, key):
    """STG503 for a function JAX stages: a Python `for` over `range(<static argument>)` (each
    value unrolls and compiles anew), over a traced array (unrolled over its first axis, row 23),
    or over Python data callers pass; `range(<tracer>)` is STG602's (it fails)."""
    fields = candidate.fields
    how, param = fields["_how"], fields["_param"]
    traced = project.jax.traced_params(key)
    verdict = _loop_unrolled(candidate, how, param, traced, project, key)
    if verdict and not (fields.get("_ops_framework") or set(fields.get("_ops_params", ())) & traced):
        # Each unrolled copy costs what the body adds to the program: nothing for Python-only
        # work (shape arithmetic, asserts on ints, sharding specs). Only a project function's
        # call, which may add ops or may not, stands between this loop and the finding.
        verdict["_preview"] = "the body adds JAX operations only through calls of project functions"
    if verdict and not verdict.get("_preview") and not project.jax.op_results_traced(key):
        # `jax.vmap` / `jax.grad` alone keep no trace: the body runs again, op by op, on every
        # call, so nothing is compiled and no program grows with the loop (JAX 0.10.2:
        # tests/runtime/test_jax_traced_values.py). Only a jit around a caller not seen here
        # would unroll it: a guess.
        verdict["_preview"] = "staged here only by a transformation that compiles nothing (jax.vmap, jax.grad)"
    if verdict and fields.get("_counts_rows"):
        # `range(x.shape[0])`: as many iterations as `x` has rows, one copy of the body each
        counted = fields["_counts_rows"]
        verdict["_because"] = [*verdict.get("_because", ()), fact(
            f"`{counted}` is the first dimension of the traced array: the loop runs once per row, as a `for` over "
            f"the array's rows does", candidate.span, TRUE)]
    return verdict


def _loop_unrolled(candidate, how, param, traced, project, key):
    fields = candidate.fields
    if how == "array":
        unshown = fields.get("_structure_unshown")
        if unshown:
            # `jax.vmap(f)(x)` returns the pytree `f` returns (`JAX_WRAPPED_OUTPUT_STRUCTURE`): a
            # multi-discriminator's list of predictions is a list, iterated once per item, a count
            # its structure fixes (tests/runtime/test_jax_output_structure.py); an array only where
            # `f`'s returns show one: a guess where they are not shown
            return {"detail": "if it is an array: one copy of the body per row", "length": "first dimension",
                    "_because": [fact(
                        f"whether `{candidate.fields.get('iter', '')}` is an array is a guess: it comes from "
                        f"`{unshown}`, which returns the pytree its function returns, and that function's returns "
                        f"are not shown here; a list or tuple of arrays is iterated once per item",
                        candidate.span, HEURISTIC)]}
        return {"detail": "one copy of the body per row of the traced array", "length": "first dimension"}
    if how == "range":
        if param in traced:
            return False  # TracerIntegerConversionError: STG602
        if param in project.jax.static_params(key):
            return {"detail": f"`{param}` is static: one copy of the body per step", "length": f"`{param}`"}
        args = project.args_for(key, param)
        from stagelint.analysis.tensors import NUMBERS

        reason = varying_bound([a for _, _, a in args if a.kind == "python" or a.what in NUMBERS])
        if reason is None:
            return False
        return {"detail": f"callers pass `{param}` as {reason}", "length": f"`{param}`"}
    # A jitted parameter may be a pytree (`for w, b in params:`, `for layer in layers: layer(x)`):
    # an array needs evidence, an op on the parameter itself or rows used as values
    f = project.function(key)
    evidence = param_shows_array(f, param)
    rows = fields.get("_rows") and (fields.get("_ops_definite") or param in fields.get("_ops_params", ()))
    if param in traced and (evidence or rows):
        verdict = {"detail": f"`{param}` is a traced array: one copy of the body per row", "length": "first dimension"}
        if f is not None and param in f.python_container_params and not evidence:
            # `slots: list[int]`: jit hands a list argument over as a list of its leaves, and the
            # loop runs once per element, a count fixed by the argument's structure (JetStream's
            # `for slot in slots`; tests/runtime/test_jax_certain_steps_facts.py): that callers
            # pass an array instead is a guess
            verdict["_preview"] = f"`{param}` is annotated as a Python container: a list of leaves under jit, not an array"
        elif not evidence and not fields.get("_row_op"):
            # A jitted parameter is a pytree: a dict is iterated over its keys, a list or tuple
            # over its items (a count its structure fixes: the layers of a parameter dict), an
            # array over its rows (tests/runtime/test_jax_fresh_facts.py). Known where the
            # parameter shows it is an array (an operation on it, `xs.shape`) or where each row
            # is an operand of a JAX operation (a dict's string key would fail there); else only
            # the loop variable used as a value points at rows (self-organising-systems' `for
            # param in gradients`, a dict of Haiku layers used as keys): a guess
            verdict["_because"] = [fact(
                f"whether `{param}` is an array is a guess: nothing in `{f.name}` shows it (no `{param}.shape`, "
                f"no operation on it), and a dict or list of arrays is iterated once per key or item, a count "
                f"its structure fixes", candidate.span, HEURISTIC)]
            verdict["detail"] = f"if `{param}` is an array: one copy of the body per row"
        return verdict
    for mod, site, arg in project.args_for(key, param):
        if arg.what == "ndarray" or (arg.what in ("list", "tuple", "range") and arg.elements in ("int", "float")):
            return {"detail": f"callers pass `{arg.text}` (line {site.span.line}): one copy of the body per element",
                    "length": "length"}
    return False


def writes_into_ref(ctx, site) -> bool:
    """`total[...] += x` / `ref[0] = v` on a `jax.Ref` (`jax.new_ref(...)`) or on a Pallas Ref (a
    parameter of a kernel handed to `pallas_call`, `pallas_ref_params`): JAX's own mutable state,
    updated on every call, like a tf.Variable's `assign` (not Python state, not a leak)."""
    if JAX.name in getattr(ctx, "absent", ()):
        return False  # a file JAX cannot reach (`screen.framework_reach`) makes no `jax.Ref`
    node = site.node
    target = getattr(site, "target", None)
    if not isinstance(target, cst.Subscript):  # (`a_ref[...], b_ref[...] = a, b`: each element's site)
        target = getattr(node, "target", None)
    if target is None and isinstance(node, cst.Assign) and len(node.targets) == 1:
        target = node.targets[0].target
    if not isinstance(target, cst.Subscript) or not isinstance(target.value, cst.Name):
        return False
    bindings = ctx.bindings_of(target.value)
    if not bindings:
        return False
    if all(isinstance(getattr(b, "node", None), cst.Param) for b in bindings) and uses_pallas(ctx):
        refs = pallas_ref_params(ctx)
        return all(id(b.node) in refs for b in bindings)
    names = [b for b in bindings if isinstance(getattr(b, "node", None), cst.Name)]
    return bool(names) and all(_made_by(ctx, b.node, JAX_REF_CONSTRUCTORS) for b in names)


def pallas_ref_params(ctx) -> frozenset[int]:
    """The parameters (ids of `cst.Param`) that hold Pallas Refs: the positional parameters of the
    kernels the module hands `pallas_call` (`frameworks.PALLAS_KERNEL_CALLS`), by name or through
    `functools.partial` (what it binds, by keyword or position, is no Ref), the def found in the
    module. A store into one is Pallas state the kernel's lowering keeps, not a leak."""
    return once(ctx, "_pallas_ref_params", lambda: _pallas_ref_params(ctx))


def _pallas_ref_params(ctx) -> frozenset[int]:
    if ctx.module_node is None:
        return frozenset()
    found: set[int] = set()

    class Calls(cst.CSTVisitor):
        def visit_Call(self, node: cst.Call) -> None:
            where = next((PALLAS_KERNEL_CALLS[q] for q in ctx.qualified_names(node.func) if q in PALLAS_KERNEL_CALLS),
                         None)
            if where is None:
                return
            position, keyword = where
            kernel = next((a.value for a in node.args if a.keyword is not None and a.keyword.value == keyword), None)
            if kernel is None and len(node.args) > position and all(
                    a.keyword is None and not a.star for a in node.args[:position + 1]):
                kernel = node.args[position].value
            if kernel is not None:
                _kernel_params(ctx, kernel, found, set(), 0)

    ctx.module_node.visit(Calls())
    return frozenset(found)


def _names_partial(ctx, func) -> bool:
    """`functools.partial`, also through a name bound to it once (`partial = functools.partial`)."""
    if ctx.qualified_names(func) & PARTIAL_CALLS:
        return True
    if not isinstance(func, cst.Name):
        return False
    bindings = ctx.bindings_of(func)
    node = getattr(bindings[0], "node", None) if bindings and len(bindings) == 1 else None
    value = ctx.bound_values.get(id(node)) if isinstance(node, cst.Name) else None
    return value is not None and bool(ctx.qualified_names(value) & PARTIAL_CALLS)


def _kernel_params(ctx, expr, found: set[int], bound: set[str], skip: int, depth: int = 0) -> None:
    """Add the Ref parameters of the kernel `expr` names (a def, a `functools.partial` of one, a
    name bound once to either) to `found`; `bound` and `skip` are what partials bind."""
    if depth > 4:
        return
    if isinstance(expr, cst.Call) and _names_partial(ctx, expr.func) and expr.args:
        rest = expr.args[1:]
        if any(a.star for a in rest):
            return  # `partial(k, *args)`: how many it binds is not shown
        bound = bound | {a.keyword.value for a in rest if a.keyword is not None}
        _kernel_params(ctx, expr.args[0].value, found, bound,
                       skip + sum(1 for a in rest if a.keyword is None), depth + 1)
        return
    if not isinstance(expr, cst.Name):
        return
    bindings = ctx.bindings_of(expr)
    if not bindings or len(bindings) != 1:
        return
    node = getattr(bindings[0], "node", None)
    if isinstance(node, cst.FunctionDef):
        positional = [*node.params.posonly_params, *node.params.params]
        for p in positional[skip:]:
            if p.name.value not in bound:
                found.add(id(p))
    elif isinstance(node, cst.Name):
        value = ctx.bound_values.get(id(node))
        if isinstance(value, cst.Call):
            if _names_partial(ctx, value.func):
                _kernel_params(ctx, value, found, bound, skip, depth + 1)
            else:
                for made in _returned_defs(ctx, value.func):
                    _kernel_params(ctx, made, found, bound, skip, depth + 1)


def _returned_defs(ctx, func) -> list:
    """The names of the nested defs a factory returns (`kernel = _make_kernel(cs, D)`, whose every
    `return` gives back a def of its body by name): the call's result is one of them (Python's
    own semantics: the kernel handed to `pallas_call` is that def, its parameters the Refs). []
    when `func` is no def of the module's found once, or a `return` gives anything else."""
    bindings = ctx.bindings_of(func) if isinstance(func, cst.Name) else None
    factory = getattr(bindings[0], "node", None) if bindings and len(bindings) == 1 else None
    if not isinstance(factory, cst.FunctionDef):
        return []
    returns, stack = [], list(factory.body.children)
    while stack:
        node = stack.pop()
        if isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
            continue  # (a nested def's own returns)
        if isinstance(node, cst.Return):
            returns.append(node.value)
        stack.extend(node.children)
    if not returns or not all(isinstance(v, cst.Name) for v in returns):
        return []
    defs = {id(s) for s in factory.body.body if isinstance(s, cst.FunctionDef)}
    for value in returns:
        found = ctx.bindings_of(value)
        if not found or len(found) != 1 or id(getattr(found[0], "node", None)) not in defs:
            return []
    return returns


#: Calls that make a `jax.Ref`.
JAX_REF_CONSTRUCTORS = frozenset({"jax.new_ref", "jax.empty_ref", "jax.ref.new_ref", "jax.ref.empty_ref"})


def _made_by(ctx, name: cst.Name, constructors) -> bool:
    value = ctx.bound_values.get(id(name))
    return isinstance(value, cst.Call) and bool(ctx.qualified_names(value.func) & constructors)
