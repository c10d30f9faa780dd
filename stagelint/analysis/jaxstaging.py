"""Which code JAX stages, and how: the per-file record and the project's view (issue 14).

The per-file walk (`stagelint.analysis.context`) takes every framework at once (`frameworks.STAGING`), so
`@jax.jit`, `jax.jit(f)` and `jax.vmap(f)` become entry points exactly as `tf.function` does, and
the project call graph reaches their helpers across modules. This module adds what is JAX's own:

* `record_call` / `decorator_api` (per file): the JAX API that stages a function, with its
  static and donated arguments (`@partial(jax.jit, static_argnums=1)`, `jax.jit(f,
  static_argnames="n")`), and the functions `jax.lax` control flow traces (`lax.cond(p, f, g,
  x)`, `lax.scan(body, c, xs)`, lambdas included), as `facts.JaxStaged` records.
* `JaxView` (project phase, `Project.jax`): per function, the framework that stages it
  ("jax" or "tensorflow"), JAX's staging mode (`frameworks.JAX_JIT` ...), the parameters that
  hold tracers, and the static / donated parameters of a jitted function. Flax Linen modules'
  `__call__`, `setup` and `@nn.compact` methods are entry points here (through project base
  classes too).

The public questions other code asks are listed in /work/notes/jax-api.md (`framework_of`,
`mode_of`, `traced_params`, `static_params`, `donated_params`, `is_traced`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst

from stagelint.analysis.arguments import passed_argument
from stagelint.analysis.literals import keyword_constant, literal_text
from stagelint.analysis import facts as F
from stagelint.analysis.trivia import holds_statement
from stagelint.frameworks import (
    JAX,
    JAX_ARGUMENT_SPECS,
    JAX_DIFFERENTIATES_ARGNUMS,
    EQUINOX_ARRAYS_ONLY,
    JAX_FUNCTION_ARGUMENTS,
    JAX_GRAD,
    JAX_JIT,
    JAX_NAMED_AXIS_COLLECTIVES,
    JAX_PYTHON_UNDER_DISABLE_JIT,
    JAX_REBUILDS_ARGUMENTS,
    JAX_RUNS_AT_ONCE,
    JAX_TRACE,
    JAX_TRACES_DEPENDENTS,
    JAX_OPS_ALWAYS_TRACED,
    JAX_TRACES_EVERY_ARGUMENT,
    EQUINOX_CONSTRUCTION_CHECKS,
    EQUINOX_MODULE_BASES,
    EQUINOX_STAGED_METHODS,
    LINEN_COMPACT,
    LINEN_MODULE_BASES,
    LINEN_STAGED_METHODS,
    NNX_HIJAX_CALLS,
    NNX_TRANSFORMS,
    OPTAX_USERS_JIT,
    PARTIAL_CALLS,
    optax_update_argument,
)

Key = tuple[str, str]

#: Every JAX API that stages the function it is given first.
JAX_STAGING = JAX_JIT | JAX_TRACE | JAX_GRAD
#: Methods that run a Flax Linen module's methods (`model.apply(variables, x)`, `state.apply_fn`),
#: and an Equinox module's call (`model(x)` is a call of the object: any call counts there).
LINEN_RUNNERS = frozenset({"apply", "init", "apply_fn", "init_with_output", "lazy_init"})
#: The target name of `jax.jit(model.apply)` records (no function of the project has it).
APPLY_MARK = "<jitted apply>"
#: The APIs that rebuild each argument (`frameworks.JAX_REBUILDS_ARGUMENTS`), and the users' jit
#: of an optax transformation's `update` (`frameworks.OPTAX_USERS_JIT`: `jax.jit(opt.update)`
#: flattens `state` and rebuilds it, so `state["step"] += 1` there changes the trace's own copy).
REBUILDS_ARGUMENTS = JAX_REBUILDS_ARGUMENTS | {OPTAX_USERS_JIT}
#: Those whose `in_axes` (second positional) may leave arguments unbatched.
JAX_MAPPING = frozenset({"jax.vmap", "jax.pmap", "flax.nnx.vmap", "flax.nnx.pmap"})
#: Modes, most demanding first: a function reached in several modes is judged by the first.
#: "python": a Flax Linen module method only `init`/`apply` outside jit runs (concrete values).
MODES = ("jit", "body", "trace", "grad", "python")
#: The API of those Linen methods' entries.
LINEN_EAGER = "flax.linen.Module:python"
#: The APIs of the entries of a Flax Linen / Equinox module's own methods (`JaxView._linen_entries`).
#: An Equinox module's `__call__` that only a call in code traced otherwise than by jit runs
#: (`equinox.Module:trace` under an eager `jax.vmap`): traced in that mode (`_equinox_calls`).
EQUINOX_CALLED = frozenset(f"equinox.Module:{mode}" for mode in ("body", "trace", "grad"))
MODULE_METHOD_APIS = frozenset({"flax.linen.Module", "equinox.Module", LINEN_EAGER}) | EQUINOX_CALLED
#: Codes that hold in each mode. "jit": every family; "body", "trace" (not cached: traced again on
#: every use): no staleness, no retracing; "grad" (concrete values, Python control flow works, row 15):
#: leaked tracers and host conversions only.
#: Whatever the mode: AutoGraph loops (STG202), tf.Variable creation rules (STG402, STG403) and
#: pruned ops with checks (STG603) are TensorFlow's own.
TENSORFLOW_ONLY = frozenset({"STG202", "STG402", "STG403", "STG603"})
CODES_OUT_OF_MODE = {
    "jit": TENSORFLOW_ONLY,
    # a `lax` loop body or cond branch: traced once for all its iterations (rows 25, 26), not cached
    "body": TENSORFLOW_ONLY | {"STG301", "STG302", "STG303", "STG501", "STG502", "STG506"},
    # `vmap`, `shard_map`, `checkpoint` outside jit: traced again on every call, so Python effects
    # run on every call too (checked with JAX 0.10.2: a print in an eager shard_map ran on each call)
    "trace": TENSORFLOW_ONLY | {"STG101", "STG102", "STG103", "STG104", "STG105", "STG301", "STG302", "STG303",
                                "STG501", "STG502", "STG506"},
    # a Linen method only `init`/`apply` outside jit runs: Python with concrete values. What it does
    # as Python still counts: a store on the bound, frozen module raises (STG102 on `self`, row 40),
    # `nn.jit(nn.Dense)` made anew in a loop (STG502), call-site codes (STG203, STG504, STG505, STG605)
    "python": TENSORFLOW_ONLY | {"STG101", "STG103", "STG104", "STG105", "STG201", "STG301", "STG302", "STG303",
                                "STG401", "STG501", "STG503", "STG506", "STG601", "STG602", "STG604"},
    "grad": frozenset({"STG101", "STG102", "STG103", "STG104", "STG105", "STG202", "STG301", "STG302",
                       "STG303", "STG401", "STG402", "STG403", "STG501", "STG502", "STG503", "STG506", "STG602",
                       "STG603"}),
}


def api_mode(api: str) -> str:
    if api == LINEN_EAGER:
        return "python"
    if api in EQUINOX_CALLED:
        return api.partition(":")[2]
    if api in JAX_JIT or api == OPTAX_USERS_JIT or api.startswith("flax.linen") or api == "equinox.Module":
        return "jit"
    if api in JAX_GRAD:
        return "grad"
    if api in JAX_FUNCTION_ARGUMENTS:
        return "body"
    return "trace"


# Per file --------------------------------------------------------------------------------------


def decorator_api(ctx, decorator: cst.BaseExpression) -> tuple[str, cst.Call | None] | None:
    """The JAX API a decorator stages with, and the call holding its options: `@jax.jit`,
    `@jax.jit(static_argnames=...)`-style factories, `@partial(jax.jit, static_argnums=1)`."""
    if isinstance(decorator, cst.Call):
        names = ctx.qualified_names(decorator.func)
        if names & PARTIAL_CALLS and decorator.args and decorator.args[0].keyword is None:
            inner = ctx.resolves_to(decorator.args[0].value, JAX_STAGING)
            return (inner, decorator) if inner else None
        api = ctx.resolves_to(decorator.func, JAX_STAGING)
        return (api, decorator) if api else None
    api = ctx.resolves_to(decorator, JAX_STAGING)
    return (api, None) if api else None


def _ints(expr: cst.BaseExpression) -> list[int]:
    if isinstance(expr, cst.Integer):
        return [int(expr.value)]
    if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Minus) and isinstance(expr.expression, cst.Integer):
        return [-int(expr.expression.value)]
    if isinstance(expr, (cst.Tuple, cst.List)):
        return [i for el in expr.elements for i in _ints(el.value)]
    return []


def _strs(expr: cst.BaseExpression) -> list[str]:
    if isinstance(expr, cst.SimpleString):
        return [expr.evaluated_value] if isinstance(expr.evaluated_value, str) else []
    if isinstance(expr, (cst.Tuple, cst.List)):
        return [s for el in expr.elements for s in _strs(el.value)]
    return []


class _AxisCalls(cst.CSTVisitor):
    """`bound_axis_call`'s search of one small statement: the first named-axis collective over a
    literal axis name among the parts that run whenever the statement does. (A visitor class of
    the module: the fast traversal looks a class's reactions up once, `fastmeta._REACTIONS`.)"""

    def __init__(self, ctx):
        super().__init__()
        self.ctx = ctx
        self.found: tuple | None = None

    def visit_Lambda(self, node) -> bool:
        return False

    def visit_IfExp(self, node) -> bool:
        node.test.visit(self)  # the test runs; which branch does is a condition
        return False

    def visit_BooleanOperation(self, node) -> bool:
        node.left.visit(self)
        return False

    def visit_ListComp(self, node) -> bool:
        return False

    visit_SetComp = visit_DictComp = visit_GeneratorExp = visit_ListComp

    def visit_Call(self, node: cst.Call) -> None:
        if self.found:
            return
        api = self.ctx.resolves_to(node.func, JAX_NAMED_AXIS_COLLECTIVES)
        if api is None:
            return
        arg = passed_argument(node, JAX_NAMED_AXIS_COLLECTIVES[api], "axis_name")
        names = _strs(arg.value) if arg is not None else []
        if names:
            self.found = (node, api, names[0])


def bound_axis_call(ctx, func: cst.FunctionDef) -> tuple[cst.Call, str, str] | None:
    """(the call, its API, the axis name) of a named-axis collective over a literal axis name that
    every run of `func` makes (`frameworks.JAX_NAMED_AXIS_COLLECTIVES`: `jax.lax.all_gather(x,
    'batch')` in a statement of the body's own block, before any statement that may `return`, not
    under a condition, a lambda or a nested def), or None. Such a function raises where no
    transformation binds the axis: it never runs as plain Python. None in a file JAX stages
    nothing in (`screen.framework_reach`: no name there resolves to JAX's)."""
    if not isinstance(func.body, cst.IndentedBlock) or JAX.name in getattr(ctx, "absent", ()):
        return None
    for stmt in func.body.body:
        if not isinstance(stmt, cst.SimpleStatementLine):
            # its body runs under a condition, or in a loop or try (not searched); one that may
            # return (`if not distributed: return x`) may end the run before the call (one that
            # raises, `if x.shape != y.shape: raise ValueError(...)`, ends it in an error too)
            if holds_statement(stmt, (cst.Return,)):
                return None
            continue
        for small in stmt.body:
            calls = _AxisCalls(ctx)
            small.visit(calls)
            if calls.found:
                return calls.found
            if isinstance(small, (cst.Return, cst.Raise)):
                return None
    return None


def staged_record(ctx, target: F.Target, where: cst.CSTNode, api: str, options: cst.Call | None,
                  decorator: bool) -> F.JaxStaged:
    record = F.JaxStaged(target, ctx.position(where), api, decorator=decorator)
    positional = [a for a in options.args if a.keyword is None] if options is not None else []
    for arg in options.args if options is not None else ():
        key = arg.keyword.value if arg.keyword is not None else None
        if key == "in_axes" or (key is None and api in JAX_MAPPING and len(positional) > 1 and arg is positional[1]) \
                or (key is not None and key == JAX_ARGUMENT_SPECS.get(api)):
            # (`in_axes=None`, `in_specs=None`: the argument is passed as the caller's object)
            if isinstance(arg.value, (cst.Tuple, cst.List)):
                record.unmapped = [j for j, el in enumerate(arg.value.elements)
                                   if keyword_constant(el.value, "None")]
        if key in ("static_argnums", "static_broadcasted_argnums"):
            record.static_argnums = _ints(arg.value)
        elif key == "static_argnames":
            record.static_argnames = _strs(arg.value)
        elif key == "donate_argnums":
            record.donate_argnums = _ints(arg.value)
        elif key == "donate_argnames":
            record.donate_argnames = _strs(arg.value)
        elif key == "argnums":
            record.argnums = _ints(arg.value)
    return record


def decorated_api(ctx, node: cst.FunctionDef) -> str | None:
    """The JAX API a decorator of the def stages it with, if any."""
    if JAX.name in getattr(ctx, "absent", ()):
        return None  # a file JAX cannot reach (`screen.framework_reach`) names no JAX API
    for dec in node.decorators:
        found = decorator_api(ctx, dec.decorator)
        if found is not None:
            return found[0]
    return None


def record_decorated(ctx, node: cst.FunctionDef, qualname: str) -> str | None:
    """Record a def staged by a JAX decorator; its API, or None."""
    for dec in node.decorators:
        found = decorator_api(ctx, dec.decorator)
        if found is not None:
            api, options = found
            absolute = f"{ctx.module}.{qualname}" if ctx.module else qualname
            ctx.facts.jax_staged.append(staged_record(ctx, ("name", absolute), node.name, api, options, True))
            return api
    return None


def record_call(walker, node: cst.Call, names: set[str]) -> None:
    """`jax.jit(f, ...)`, `jax.vmap(self.step)`, `jax.jit(partial(f, n=3))`, and the functions
    `jax.lax` control flow is given (lambdas are walked as functions of their own)."""
    ctx = walker.ctx
    if names & NNX_HIJAX_CALLS:
        from stagelint.analysis.nnx import record_call as record_nnx_call

        record_nnx_call(ctx, node, names)  # hijax Variables
    if _record_optax_update(walker, node, names):
        return
    api = next((q for q in sorted(names) if q in JAX_STAGING), None)
    if api is not None:
        first = node.args[0] if node.args else None
        if first is None or (first.keyword is not None and first.keyword.value not in ("fun", "f", "fn")):
            return
        value = first.value
        if isinstance(value, cst.Attribute) and value.attr.value in LINEN_RUNNERS and api in JAX_JIT:
            # `jax.jit(Block(2).apply)`: the module's methods run under jit (`JaxView._linen_entries`)
            ctx.facts.jax_staged.append(staged_record(ctx, ("name", f"{ctx.module}.{APPLY_MARK}"), value, api,
                                                      node, False))
            record_linen_run(walker, value.value, APPLY_MARK)
            return
        while isinstance(value, cst.Call) and value.args and ctx.resolves_to(value.func, JAX_STAGING):
            value = value.args[0].value  # `jax.jit(jax.grad(f))`: f is traced under jit (row 15)
        target = _function_target(walker, value)
        if target is not None:
            record = staged_record(ctx, target, value, api, node, False)
            record.bound, record.bound_positional = _partial_bound(ctx, value)
            record.bound_literals = _partial_literals(ctx, value)
            record.inline = id(node) not in ctx.assigned_calls
            ctx.facts.jax_staged.append(record)
            if walker._target_of(first.value) is None:
                # a lambda, `partial(f)`, `jit(grad(f))`: what the TF path records for a named
                # function (`Project.staged_afresh`: used once, it traces with the values of the moment)
                ctx.facts.wrapped.append(target)
                if id(node) in ctx._fresh_staging_calls:
                    ctx.facts.fresh_wrapped.append(target)
            elif id(node) in ctx.assigned_calls and api not in JAX_RUNS_AT_ONCE:
                ctx.staged_bindings.append((record, ctx.assigned_calls[id(node)], ctx.function, id(node)))
        return
    api = next((q for q in sorted(names) if q in JAX_FUNCTION_ARGUMENTS), None)
    if api is None or (api in JAX_PYTHON_UNDER_DISABLE_JIT and ctx.jit_disabled_depth):
        return  # under `with jax.disable_jit():` the functions run as Python, on concrete arrays
    for index, keyword in JAX_FUNCTION_ARGUMENTS[api]:
        arg = passed_argument(node, index, keyword)
        if arg is None:
            continue
        values = [el.value for el in arg.value.elements] if isinstance(arg.value, (cst.List, cst.Tuple)) else [arg.value]
        for value in values:
            target = _function_target(walker, value)
            if target is not None:
                record = staged_record(ctx, target, value, api, None, False)
                # `lax.cond(p, f, partial(g, m=m), x)`: the operands are traced, what partial binds
                # stays the Python value it was (JAX 0.10.2: tests/runtime/test_jax_traced_values.py)
                record.bound, record.bound_positional = _partial_bound(ctx, value)
                record.inline = True
                ctx.facts.jax_staged.append(record)


def _record_optax_update(walker, node: cst.Call, names: set[str]) -> bool:
    """`optax.GradientTransformation(init_fn, update_fn)` (inside optax too: `base.Gradient
    Transformation(...)`): `update_fn` is jitted by the transformation's users, whom the code
    does not show (`frameworks.OPTAX_UPDATE_TRANSFORMATIONS`; `JaxView.unshown`, the preview
    tier). Whether the call was one."""
    where = next(filter(None, map(optax_update_argument, sorted(names))), None)
    if where is None:
        return False
    ctx = walker.ctx
    arg = passed_argument(node, *where)
    target = _function_target(walker, arg.value) if arg is not None else None
    if target is not None:
        record = staged_record(ctx, target, arg.value, OPTAX_USERS_JIT, None, False)
        record.bound, record.bound_positional = _partial_bound(ctx, arg.value)
        record.inline = True
        ctx.facts.jax_staged.append(record)
    return True


def mark_uncalled(ctx) -> None:
    """At the end of a file's walk: the JAX wrappers bound by an assignment whose binding nothing
    reads. A transformation's result traces the function only when it is called (`jax.jit(f)`
    returns a wrapper and runs nothing: tests/runtime/test_jax_fresh_facts.py), so a wrapper no
    code calls stages nothing. A local name no code of its function reads is never called (a
    fact: `JaxStaged.uncalled` "never"); an attribute (`self._compiled = jax.jit(self._fn)`)
    nothing in the module reads may still be read by another module, which the file does not
    show ("module"). A module-level name nothing in its module reads is called only if a module
    importing it calls it, which the project decides ("importers": `JaxView`), except in a
    notebook, which no module imports: one none of its cells reads is never called
    (`_unread_in_notebook`)."""
    dropped = set()
    for record, target, func, call in ctx.staged_bindings:
        if isinstance(target, cst.Attribute):
            if target.attr.value not in ctx.attribute_loads:
                record.uncalled = "module"
        elif isinstance(target, cst.Name):
            if not ctx.never_read(target, func) and not _unread_in_notebook(ctx, target, func):
                if func is None and ctx.notebook_hidden is None and ctx.unreferenced(target):
                    record.uncalled, record.binding = "importers", target.value
                record.calls_shown = _only_called(ctx, target, func)
                continue  # read, or a module's name: other modules may import it and call it
            record.uncalled = "never"
            if call in ctx.wrapped_at:
                dropped.add(ctx.wrapped_at[call])  # nor is it an entry point the other way
    if dropped:
        ctx.facts.wrapped = [t for i, t in enumerate(ctx.facts.wrapped) if i not in dropped]


def _only_called(ctx, target: cst.Name, func) -> bool:
    """`target` is a local of `func` bound once, and every load of it is the callee of a call
    the file records as a project function's call site: what each call passes shows."""
    scope = ctx.scope(target)
    if func is None or target.value in func.declared or scope is None or target.value not in scope.assignments:
        return False
    bindings = list(scope.assignments[target.value])
    if len(bindings) != 1:
        return False
    loads = [a.node for a in bindings[0].references]
    return bool(loads) and all(id(n) in ctx._site_callee_names for n in loads)


def _unread_in_notebook(ctx, target: cst.Name, func) -> bool:
    """`target` is a name a notebook binds at its top level and none of its cells reads (Quantum
    HMC's `hmc_sampler_cpu = jit(hmc_sampler, backend='cpu')`, the next line calling
    `hmc_sampler` itself). A notebook is no module Python imports, so its names are read only by
    its own cells, all of which a check of the notebook sees, save the IPython syntax it leaves
    out (`%timeit step_jit(x)`, a `%%time` cell): a name written there may be called."""
    hidden = ctx.notebook_hidden
    return func is None and hidden is not None and target.value not in hidden and ctx.unreferenced(target)


def record_linen_run(walker, receiver: cst.BaseExpression, mark: str | None) -> None:
    """`model.apply(...)` / `Model().init(...)` (mark None: the calling function runs it) or
    `jax.jit(model.apply)` (mark APPLY_MARK): which module class runs, when the file shows it."""
    ctx = walker.ctx
    cls = walker._object_class(receiver)
    caller = mark if mark is not None else (ctx.function.qualname if ctx.function is not None else None)
    ctx.facts.linen_runs.append((caller, cls))


def _partial_bound(ctx, expr: cst.BaseExpression) -> tuple[list[str], int]:
    """Keywords and the number of leading positional arguments `functools.partial` binds."""
    if isinstance(expr, cst.Call) and ctx.qualified_names(expr.func) & PARTIAL_CALLS and expr.args:
        rest = expr.args[1:]
        return ([a.keyword.value for a in rest if a.keyword is not None],
                sum(1 for a in rest if a.keyword is None and not a.star))
    return [], 0


def _partial_literals(ctx, expr: cst.BaseExpression) -> dict[str, str]:
    """The keywords `functools.partial` binds to a literal, with its source (`JaxEntry.partial_values`)."""
    if isinstance(expr, cst.Call) and ctx.qualified_names(expr.func) & PARTIAL_CALLS and expr.args:
        return {a.keyword.value: text for a in expr.args[1:]
                if a.keyword is not None and (text := literal_text(a.value))}
    return {}


def _function_target(walker, expr: cst.BaseExpression) -> F.Target | None:
    ctx = walker.ctx
    if isinstance(expr, cst.Call) and ctx.qualified_names(expr.func) & PARTIAL_CALLS and expr.args:
        expr = expr.args[0].value
    if isinstance(expr, cst.Lambda):
        ctx._dataset_lambdas.add(id(expr))  # walked as a function of its own
        where = ctx.position(expr)
        name = f"<lambda:{where.line}:{where.column}>"
        qualname = f"{ctx.function.qualname}.<locals>.{name}" if ctx.function is not None else name
        return ("name", f"{ctx.module}.{qualname}" if ctx.module else qualname)
    return walker._target_of(expr)


# Project phase -----------------------------------------------------------------------------------


@dataclass
class JaxEntry:
    """How JAX stages one entry point (several records of one function merge)."""

    apis: set[str] = field(default_factory=set)
    static: set[str] = field(default_factory=set)
    donated: set[str] = field(default_factory=set)
    #: `jax.vmap(f, in_axes=(0, None))`: parameters passed unbatched (Python values under vmap alone)
    unmapped: set[str] = field(default_factory=set)
    #: Linen methods, `eqx.filter_jit` and `eqx.filter_vmap`: parameters are not known to hold
    #: tracers (Python values are passed as they are, or are static)
    params_unknown: bool = False
    #: the parameters `jax.grad(f, argnums=...)` does not differentiate, and whether only such
    #: differentiating APIs stage the function (then those parameters are the callers' values)
    not_differentiated: set[str] = field(default_factory=set)
    differentiates_only: bool = True
    #: for a method: how its `self` reaches it, per staging record: "passed" (an argument, as
    #: `@jax.jit` on the def hands it), "bound" (`jax.jit(self.step)`), or "other" (an API
    #: that does not rebuild its arguments)
    receivers: set[str] = field(default_factory=set)
    #: an Equinox module's construction check: the jitted function (a key) that builds the module
    built_in: tuple = ()
    #: an Equinox module's `__call__` that traced code calls on an object of it: (the caller, the line)
    called_in: tuple = ()
    #: some staging of it is called where no call site shows what it passes (`JaxStaged.inline`)
    inline: bool = False
    #: per staging record: (the keywords `functools.partial` binds to literals, with their
    #: source; whether the calls of its wrapper all show: `JaxStaged.calls_shown`)
    stagings: list = field(default_factory=list)

    def partial_values(self, param: str) -> tuple[list[str], bool] | None:
        """(the literals (source) stagings of the function bind `param` to with
        `functools.partial`, whether some staging leaves it to the calls): a keyword `partial`
        binds is passed on every call of the partial object, unless that call passes the keyword
        itself (Python's `functools.partial`; `flags.param_values` asks the calls). None where a
        staging that does not bind it so is called where the calls may not show
        (`JaxStaged.calls_shown`)."""
        if not self.stagings:
            return None
        found, unbound = [], False
        for literals, shown in self.stagings:
            if param in literals:
                found.append(literals[param])
            elif not shown:
                return None
            else:
                unbound = True
        return found, unbound

    @property
    def mode(self) -> str:
        modes = {api_mode(a) for a in self.apis}
        return next(m for m in MODES if m in modes)


def _unimported_wrappers(project):
    """A question about a module-level JAX wrapper nothing in its module reads (`mark_uncalled`'s
    "importers", asked with its module and name): is it bound in a private module (a dotted part
    starting with `_`: `jaxhps.down_pass._adaptive_2D_DtN`, what the package's `__init__` does not
    re-export is its own) that the project imports by name only, none of those imports naming the
    wrapper? Then no code calls it or passes it on, and a wrapper traces only when called
    (`frameworks.JAX_RUNS_AT_ONCE`: tests/runtime/test_jax_fresh_facts.py,
    test_jax_unused_wrapper_facts.py): the function it wraps is traced by it nowhere. A module
    imported whole (`import pkg._m`, `from pkg import _m`, `from pkg._m import *`), or imported by
    no module of the project (its users are not shown), or a name some import or call of the
    project names, is left to the rest of the model."""
    imported: dict[str, set[str]] = {}  # module -> the names the project imports from it
    whole: set[str] = set()
    named: set[str] = set()
    for m in project.modules.values():
        whole.update(m.star_from)
        for value in m.imports.values():
            named.add(value)
            mod, _, name = value.rpartition(".")
            if mod:
                imported.setdefault(mod, set()).add(name)
        for f in m.functions.values():
            named.update(e.target[1] for e in f.calls if e.target[0] == "name")
    whole.update(v for v in named if v in project.modules)

    def unimported(module: str, name: str) -> bool:
        if module in whole or module not in imported:
            return False
        if not any(part.startswith("_") and not part.startswith("__") for part in module.split(".")):
            return False
        return bool(name) and f"{module}.{name}" not in named and name not in imported[module]

    return unimported


#: How a call's argument is bound when it is an object made outside the calling function
#: (`facts.ArgFacts.root`): a closure over the enclosing function's value, a global, an import.
_BOUND_OUTSIDE = frozenset({"closure", "global", "import"})


class JaxView:
    """Per function of a `staging.Project`: which framework stages it, in which JAX mode, and
    which of its parameters hold tracers."""

    def __init__(self, project):
        self.project = project
        self.entries: dict[Key, JaxEntry] = {}
        #: entry points staged only by wrappers bound where nothing in their module reads them
        #: (`self._compiled = jax.jit(self._fn)`, never called there: `mark_uncalled`), with the
        #: binding's module and line; a wrapper no code of its function reads stages nothing
        self.uncalled: dict[Key, tuple[str, int]] = {}
        #: entry points staged only as the `update` of an optax transformation, which its users
        #: jit (`frameworks.OPTAX_UPDATE_TRANSFORMATIONS`): the bundling call's module and line
        self.unshown: dict[Key, tuple[str, int]] = {}
        called: set[Key] = set()
        unimported = None  # (`_unimported_wrappers`, once a record asks)
        for m in sorted(project.modules.values(), key=lambda m: m.module):
            for record in m.jax_staged:
                if record.uncalled == "never":
                    continue  # a wrapper never called traces nothing
                if record.uncalled == "importers":
                    if unimported is None:
                        unimported = _unimported_wrappers(project)
                    if unimported(m.module, record.binding):
                        continue  # a private module's wrapper none of its importers reads
                key = project.resolve(m.module, record.target)
                f = project.function(key) if key is not None else None
                if f is None:
                    continue
                if record.api == OPTAX_USERS_JIT:
                    self.unshown.setdefault(key, (m.path, record.span.line))
                elif record.uncalled == "module":
                    self.uncalled.setdefault(key, (m.path, record.span.line))
                else:
                    called.add(key)
                entry = self.entries.setdefault(key, JaxEntry())
                entry.apis.add(record.api)
                entry.stagings.append((record.bound_literals, record.calls_shown))
                entry.inline = entry.inline or record.inline
                bound = record.target[0] in ("self", "super")  # `jax.jit(self.step)`: self is bound
                if f.class_qualname:
                    entry.receivers.add("bound" if bound or record.bound_positional or f.params[:1] == []
                                        else "passed" if record.api in REBUILDS_ARGUMENTS else "other")
                params = f.params[1:] if f.class_qualname and bound else f.params
                # `jax.pmap(partial(f, config=c))`: what partial binds is a Python value
                entry.static |= set(record.bound) & set(params)
                entry.static |= set(params[:record.bound_positional])
                params = [p for p in params[record.bound_positional:] if p not in record.bound]
                entry.static |= {params[i] for i in record.static_argnums if -len(params) <= i < len(params)}
                entry.static |= set(record.static_argnames) & set(params)
                entry.donated |= {params[i] for i in record.donate_argnums if -len(params) <= i < len(params)}
                entry.donated |= set(record.donate_argnames) & set(params)
                entry.unmapped |= {params[i] for i in record.unmapped if i < len(params)}
                if record.api in JAX_DIFFERENTIATES_ARGNUMS and record.argnums != []:
                    # grad traces the positions it differentiates; the others reach the
                    # function as the caller's own objects (a Python int stays an int)
                    traced = record.argnums if record.argnums is not None else [0]
                    entry.not_differentiated |= {p for i, p in enumerate(params)
                                                 if i not in traced and i - len(params) not in traced}
                else:
                    entry.differentiates_only = False
                if record.api in EQUINOX_ARRAYS_ONLY:
                    entry.params_unknown = True
        for key in called:
            self.uncalled.pop(key, None)
            self.unshown.pop(key, None)
        for entry in self.entries.values():
            if entry.differentiates_only:
                # staged by grad alone: what it does not differentiate is what callers pass
                entry.static |= entry.not_differentiated
        self._linen_entries()
        self.modes: dict[Key, str] = {}
        self.tensorflow: set[Key] = set()
        self.nnx_only: set[Key] = set()
        self.whole_body_traced: set[Key] = set()
        self._reached_otherwise: frozenset | None = None  # (`traced_whole_only`, once asked)
        self.traced_self: set[Key] = set()
        self._traced: dict[Key, frozenset[str]] = {}
        self._known: dict[Key, frozenset[str]] = {}
        self._calls_into: dict | None = None  # (`_incoming`, once asked)

    def reach(self) -> None:
        """The modes of what the entry points reach (after `Project` has added them as entries)."""
        project = self.project
        for mode in MODES:
            seen: dict[Key, Key] = {}
            for key in sorted(k for k, e in self.entries.items() if e.mode == mode):
                project.reach_from(key, seen, only_unguarded=False)
            for key in seen:
                self.modes.setdefault(key, mode)
        # Reached only from Flax NNX transforms (`nnx.jit`): they carry Variable updates of the
        # modules passed in out of the trace (row 41)
        nnx: dict[Key, Key] = {}
        other: dict[Key, Key] = {}
        for key, entry in sorted(self.entries.items()):
            if entry.mode == "python":
                continue
            nnx_entry = entry.apis <= NNX_TRANSFORMS
            project.reach_from(key, nnx if nnx_entry else other, only_unguarded=False)
        self.nnx_only: set[Key] = set(nnx) - set(other)
        # Reached from a transformation that traces the whole body (`jax.jit`, a `lax` body, not
        # `grad`/`vmap` alone): every JAX operation's result there is a tracer
        whole: dict[Key, Key] = {}
        for key in sorted(self.entries):
            if self.whole_body_entry(key):
                project.reach_from(key, whole, only_unguarded=False)
        self.whole_body_traced: set[Key] = set(whole)
        self.traced_self = self._traced_self()
        tf_entries = [k for k in project.entries if k not in self.entries]
        seen = {}
        for key in sorted(tf_entries):
            project.reach_from(key, seen, only_unguarded=False)
        self.tensorflow = set(seen)

    def _traced_self(self) -> set[Key]:
        """Methods whose `self` is an argument a JAX transformation flattens: a method staged
        with `self` passed and not static (`@jax.jit def step(self, x)`: JAX raises TypeError at
        the call unless the class is a pytree), and the methods it calls on `self`. Each call
        flattens the object afresh: its children are traced, its aux data keys the trace cache
        (a changed value traces again), so no attribute of it is baked into a reused trace
        (observed with jax 0.10.2: tests/runtime/test_jax_pytree_fields.py). A method `self` also
        reaches bound or static (`jax.jit(self.step)`, `static_argnums=0`) is left out."""
        project = self.project
        seeds, bound = [], set()
        for key, entry in self.entries.items():
            f = project.function(key)
            if f is None or not f.class_qualname or not entry.receivers:
                continue
            if entry.receivers == {"passed"} and f.params[0] not in entry.static:
                seeds.append(key)
            else:
                bound.add(key)
        out: set[Key] = set()
        todo = sorted(seeds)
        while todo:
            key = todo.pop()
            if key in out or key in bound:
                continue
            out.add(key)
            for edge, callee in project.call_edges(key):
                if edge.target[0] in ("self", "super"):
                    todo.append(callee)
        return out

    def _linen_entries(self) -> None:
        """Flax Linen `__call__`/`setup`/`@compact` methods and Equinox `__call__` methods."""
        project = self.project
        self.frozen_modules = set()  # Linen and Equinox classes: `self.x = ...` raises
        # Modules applied where nothing is jitted (a design test, a notebook) run as Python: a
        # module class counts where its own module jits, or a module that imports from it does.
        # A Linen module traces its methods only when `init`/`apply` runs inside jit: the modules
        # whose jitted code (or what it calls) runs `.apply(...)`, `.init(...)`, `.apply_fn(...)`,
        # and the modules they import, hold the staged module classes.
        reached: dict[Key, Key] = {}
        for key, entry in sorted(self.entries.items()):
            if entry.mode == "jit":
                project.reach_from(key, reached, only_unguarded=False)
        # Runs of a module class the file shows (`Model().apply`, `model = Model()` then
        # `model.apply`) stage that class alone; a run of an unknown module (`state.apply_fn`,
        # a parameter's `.apply`) stages the module classes of its module and of what it imports.
        applying: set[str] = set()
        applied: set[str] = set()
        for m in project.modules.values():
            for caller, cls in m.linen_runs:
                if caller == APPLY_MARK or (caller is not None and (m.module, caller) in reached):
                    found = project.resolve_class(cls) if cls else None
                    if found is not None:
                        applied.add(found[1].qualname)
                    else:
                        applying.add(m.module)
        applying |= {key[0] for key in reached if any(
            edge.target[-1].rsplit(".", 1)[-1] == "apply_fn" for edge in project.function(key).calls)}
        applied = self._with_parts(applied)
        # An Equinox module built in jitted code (`Module(x, ...)` there) runs its construction
        # checks (`__check_init__`) under that trace (`frameworks.EQUINOX_CONSTRUCTION_CHECKS`).
        built: dict[str, Key] = {}  # class -> a jitted function that builds it
        for m in sorted(project.modules.values(), key=lambda m: m.module):
            for site in m.call_sites:
                if site.target[0] == "name" and site.caller is not None and (m.module, site.caller) in reached \
                        and (found := project.resolve_class(site.target[1])) is not None:
                    built.setdefault(found[1].qualname, (m.module, site.caller))
        # An Equinox module is called as `model(x)` in jitted code: the modules that jit, and theirs.
        jitting = {m.module for m in project.modules.values() if any(r.api in JAX_JIT for r in m.jax_staged)}
        linen_modules, equinox_modules = self._with_imports(applying), self._with_imports(jitting)
        if not any(q.partition(".")[0] in ("flax", "equinox") for m in project.modules.values() for q in m.imports.values()):
            return  # a base is named through an import (a re-export's too): no module class here
        called_in: dict = {}
        eager_only: set = set()
        if any(project.derives(cls, EQUINOX_MODULE_BASES) for cls in project.classes):
            called_in, eager_only = self._equinox_calls(built)
        for cls in sorted(project.classes):
            if project.derives(cls, LINEN_MODULE_BASES):
                api, methods, staged = "flax.linen.Module", LINEN_STAGED_METHODS, linen_modules
            elif project.derives(cls, EQUINOX_MODULE_BASES):
                api, methods, staged = "equinox.Module", EQUINOX_STAGED_METHODS, equinox_modules
            else:
                continue
            module, facts = project.classes[cls]
            self.frozen_modules.add(facts.qualname)
            called = False
            if api == "equinox.Module":
                call = project.method_of(facts.qualname, "__call__")
                if call in eager_only:
                    continue  # every call of it the project shows runs eagerly: nothing traces it
                called = call in called_in and call[0] == module
            builder = next((by for b, by in sorted(built.items())
                            if b == facts.qualname or project.derives(b, {facts.qualname})), None) \
                if api == "equinox.Module" else None
            if builder is not None:
                methods = methods | EQUINOX_CONSTRUCTION_CHECKS  # a class built in jitted code, or a base of one
                if module not in staged and not called:
                    methods = EQUINOX_CONSTRUCTION_CHECKS
                    staged = staged | {module}
            if called:
                staged = staged | {module}  # traced code calls an object of it
            if module not in staged and facts.qualname not in applied:
                if api != "flax.linen.Module":
                    continue
                api = LINEN_EAGER  # runs as Python, but a bound module is frozen all the same
            prefix = facts.qualname[len(module) + 1:] if module else facts.qualname
            for q, f in project.modules[module].functions.items():
                if f.class_qualname != facts.qualname or q != f"{prefix}.{f.name}":
                    continue
                if f.name in methods or (api == "flax.linen.Module" and set(f.decorators) & LINEN_COMPACT):
                    entry = self.entries.setdefault((module, q), JaxEntry())
                    entry.apis.add(api)
                    if f.name in EQUINOX_CONSTRUCTION_CHECKS and builder is not None:
                        entry.built_in = builder
                    if api == "equinox.Module" and (module, q) in called_in:
                        caller, line, mode = called_in[(module, q)]
                        entry.called_in = (caller, line)
                        if mode != "jit" and module not in equinox_modules:
                            # traced as its caller is: a call under `jax.vmap` alone is traced anew each call
                            entry.apis.discard(api)
                            entry.apis.add(f"{api}:{mode}")

    def _equinox_calls(self, built: dict[str, Key]) -> tuple[dict[Key, tuple], set[Key]]:
        """Equinox wraps no method of a Module in a transformation (`frameworks.EQUINOX_MODULE_BASES`):
        a Module's `__call__` is traced only by a call of the object made in traced code. From the
        calls of objects whose class the project shows (`m = Model(...)`, then `m(x)`:
        `ModuleFacts.method_calls`): the `__call__` methods such a call in traced code runs
        (-> (the caller, the call's line)), and those whose shown calls all run in code nothing
        traces, when no object of the class is handed to a project function (which may call it
        traced: `step(model, x)`) nor built in traced code."""
        project = self.project
        traced: dict[Key, str] = {}  # function -> the most demanding mode it is traced in
        for mode in MODES:
            seen: dict[Key, Key] = {}
            for key in sorted(k for k, e in self.entries.items() if e.mode == mode):
                project.reach_from(key, seen, only_unguarded=False)
            for key in seen:
                traced.setdefault(key, mode)
        called_in: dict[Key, tuple] = {}
        eager: set[Key] = set()
        passed: set[str] = set(built)
        for m in sorted(project.modules.values(), key=lambda m: m.module):
            for site in m.call_sites:
                passed.update(project.resolved_class_name(a.cls) for a in (*site.args, *site.kwargs.values()) if a.cls)
            for caller, cls, method, *_, span in m.method_calls:
                found = project.resolve_class(cls) if method == "__call__" and cls else None
                if found is None or not project.derives(found[1].qualname, EQUINOX_MODULE_BASES):
                    continue
                call = project.method_of(found[1].qualname, "__call__")
                if call is None:
                    continue
                if caller is not None and (m.module, caller) in traced:
                    mode = traced[(m.module, caller)]
                    if call not in called_in or MODES.index(mode) < MODES.index(called_in[call][2]):
                        called_in[call] = ((m.module, caller), span.line, mode)
                else:
                    eager.add(call)
        handed = {project.method_of(cls, "__call__") for cls in passed}
        return called_in, eager - set(called_in) - handed

    def _with_parts(self, classes: set[str]) -> set[str]:
        """The module classes and the project classes they derive from or build in their
        methods (`Sub()(x)`, `self.dense = Dense2()` in `setup`): what runs when they run."""
        project = self.project
        out: set[str] = set()
        todo = sorted(classes)
        while todo:
            name = todo.pop()
            found = project.resolve_class(name)
            if found is None or found[1].qualname in out:
                continue
            module, facts = found
            out.add(facts.qualname)
            todo.extend(facts.bases)
            prefix = facts.qualname[len(module) + 1:] if module else facts.qualname
            for q, f in project.modules[module].functions.items():
                if f.class_qualname == facts.qualname and q.startswith(prefix + "."):
                    todo.extend(e.target[1] for e in f.calls if e.target[0] == "name" and len(e.target) == 2)
        return out

    def _with_imports(self, modules: set[str]) -> set[str]:
        """The modules and the project modules they import (`import models`, `from models import CNN`)."""
        project = self.project
        out = set(modules)
        for name in modules:
            for v in project.modules[name].imports.values():
                found = project.module_named(v, name) or (project.split_qualified(v, name) or (None,))[0]
                if found is not None:
                    out.add(found)
        return out

    # The questions ---------------------------------------------------------------------------

    def framework_of(self, key: Key) -> str | None:
        """"jax" when only JAX stages the function, "tensorflow" when TensorFlow does, None when
        nothing does."""
        if key in self.tensorflow:
            return "tensorflow"
        return "jax" if key in self.modes else None

    def mode_of(self, key: Key) -> str | None:
        """"jit", "trace" or "grad" for a function JAX stages (the most demanding way it is
        reached), None otherwise."""
        return self.modes.get(key) if key not in self.tensorflow else None

    def linen_method(self, key: Key) -> bool:
        """A staged method of a Flax Linen or Equinox module (frozen: `self.x = ...` raises): one
        the module runs (`__call__`, `setup`, `@compact`), or one of its own that staged code
        reaches (`self.encode(x)` from `__call__`)."""
        e = self.entries.get(key)
        if e is not None and MODULE_METHOD_APIS & e.apis:
            return True
        f = self.project.function(key) if key in self.modes and key not in self.tensorflow else None
        return f is not None and f.class_qualname in self.frozen_modules

    def linen_setup(self, key: Key) -> bool:
        """A Flax Linen module's `setup` (it assigns submodules to `self` by design)."""
        e = self.entries.get(key)
        return e is not None and bool({"flax.linen.Module", LINEN_EAGER} & e.apis) and key[1].rsplit(".", 1)[-1] == "setup"

    def entry(self, key: Key) -> JaxEntry | None:
        return self.entries.get(key)

    def static_params(self, key: Key) -> set[str]:
        e = self.entries.get(key)
        return set(e.static) if e else set()

    def rebuilt_params(self, key: Key) -> frozenset[str]:
        """Parameters through which the function receives JAX's own copy of the caller's object:
        the non-static parameters of a function only plain JAX transforms stage
        (`frameworks.JAX_REBUILDS_ARGUMENTS`), which rebuild each argument's containers around
        its leaves. A store into one changes nothing the caller holds."""
        e = self.entries.get(key)
        if key in self.tensorflow or e is None or e.params_unknown or not e.apis or not e.apis <= REBUILDS_ARGUMENTS:
            return frozenset()
        return frozenset(self.project.function(key).passed_params) - e.static

    def donated_params(self, key: Key) -> set[str]:
        e = self.entries.get(key)
        return set(e.donated) if e else set()

    def applies(self, code: str, key: Key) -> bool:
        """Whether a finding of `code` in the function can happen under the way JAX stages it."""
        mode = self.mode_of(key)
        return mode is None or code not in CODES_OUT_OF_MODE[mode]

    def traced_params(self, key: Key, _depth: int = 0) -> frozenset[str]:
        """Parameters that hold tracers: the non-static parameters of a jitted or transformed
        function (a Python int passed to `jax.jit` becomes a tracer too; literal defaults are
        left out, a default is not traced), and a helper's parameters that such values reach."""
        if key in self._traced:
            return self._traced[key]
        if self.framework_of(key) != "jax" or _depth > 6:
            return frozenset()
        self._traced[key] = frozenset()  # a cycle adds nothing
        project = self.project
        f = project.function(key)
        entry = self.entries.get(key)
        out: set[str] = set(self.given_traced_params(key))
        for module, site in project.call_sites.get(key, ()):
            for param, arg in project.passed(site, key):
                if self._arg_traced(module, site, arg, _depth):
                    out.add(param)
            spread, filled = project.spread_into(site, key)
            if spread and site.caller is not None and spread in self.traced_params((module, site.caller), _depth + 1):
                out |= set(filled)  # `opi(*params)`: the elements of a traced argument
        python = f.python_default_params
        if entry is not None:
            out -= entry.static
            # `jax.jit(f)(ids)` flattens a list argument into its leaves: traced, whatever its annotation
            python = python - f.python_container_params
        result = frozenset(out - python)
        self._traced[key] = result
        return result

    def given_traced_params(self, key: Key) -> frozenset[str]:
        """Parameters the transformation itself hands tracers: the non-static parameters of the
        function `jax.jit`, `pmap` or a `lax` body is given (a Python int passed to `jax.jit` becomes
        a tracer too), the mapped ones under `jax.vmap` alone (an `in_axes=None` argument is passed
        as it is: tests/runtime/test_jax_certain_steps_facts.py). Known true, unlike a helper's parameter,
        which holds a tracer only if what its callers pass is one (`traced_params`)."""
        entry = self.entries.get(key)
        if key in self.tensorflow or entry is None or entry.params_unknown or not entry.apis:
            return frozenset()
        f = self.project.function(key)
        out = set(f.passed_params) - entry.static - f.literal_default_params - self.unpassed_defaults(key)
        if entry.mode != "jit":
            out -= entry.unmapped
        # `jax.jit(f)(ids)` flattens a list argument into its leaves: traced, whatever its annotation
        return frozenset(out - (f.python_default_params - f.python_container_params))

    def unpassed_defaults(self, key: Key) -> frozenset[str]:
        """Parameters with a default that no call through the transformation shown passes (nor
        may pass: a call that spreads `*xs` / `**kw` into it may). Python binds the default object
        itself, after the transformation has flattened what was passed, so it is never a tracer
        (`def l(z, N=N)` under `jax.jit(l)(z)`: `N` is the module's int, `z[:N]` a static slice;
        passed, `jax.jit(l)(z, 2)`, a tracer: JAX 0.10.2,
        tests/runtime/test_jax_seventeenth_audit_facts.py). A call of the plain function (`l(z,
        params)` beside `obj = jax.jit(l)`) does not go through the transformation: what it passes
        is the caller's (`traced_params` follows it). None where a staging is called in place
        (`jax.jit(l)(z, 2)`, a `lax` body, a wrapper handed on unbound): its calls are not shown."""
        f = self.project.function(key)
        entry = self.entries.get(key)
        if f is None or not f.default_params or entry is None or entry.inline:
            return frozenset()  # `jax.jit(f)(x, 5)`: what the call passes is not a call site
        plain = ("name", f"{key[0]}.{key[1]}") if f.staged_by != "decorator" else None
        sites = [site for _, site in self.project.call_sites.get(key, ()) if tuple(site.target) != plain]
        if any(site.spread for site in sites):
            return frozenset()
        return frozenset(p for p in f.default_params
                         if not any(self.project.arg_passed(site, key, p) is not None for site in sites))

    def known_traced_params(self, key: Key, _depth: int = 0) -> frozenset[str]:
        """The `traced_params` known to hold tracers: those the transformation is given
        (`given_traced_params`), and a helper's parameters some call passes one of those or a JAX
        operation's result in a body traced whole (`jax.jit`, `pmap`, a `lax` body: every
        operation's result is a tracer there). Not a value computed under `jax.vmap` or `grad`
        alone, which is a tracer only if computed from what they transform."""
        if key in self._known:
            return self._known[key]
        traced = self.traced_params(key)
        if _depth > 6 or not traced:
            return frozenset()
        self._known[key] = frozenset()  # a cycle adds nothing
        project = self.project
        out = set(self.given_traced_params(key))
        for module, site in project.call_sites.get(key, ()):
            if site.caller is None:
                continue
            caller = (module, site.caller)
            out |= self._passed_tracers(caller, site, key, _depth)
        result = frozenset(out & traced)
        self._known[key] = result
        return result

    def _passed_tracers(self, caller: Key, site: F.CallSite, key: Key, depth: int) -> set[str]:
        """The parameters of `key` the call `site` in `caller` passes a known tracer: a JAX op's
        result where the caller's body is traced whole, a parameter of the caller known to hold
        one, or an element of one spread into them (`opi(*params)` in a pmapped function: the
        leaves of its traced argument, tests/runtime/test_jax_fourteenth_audit_az_facts.py)."""
        project, out = self.project, set()
        for param, arg in project.passed(site, key):
            if arg.kind == "tensor" and self.op_results_traced(caller) \
                    or arg.param and arg.param in self.known_traced_params(caller, depth + 1):
                out.add(param)
        spread, filled = project.spread_into(site, key)
        if spread and spread in self.known_traced_params(caller, depth + 1):
            out |= set(filled)
        return out

    def tracer_in_every_trace(self, key: Key) -> frozenset[str]:
        """The parameters of a helper (a function no transformation is given, reached only through
        calls) that every call of it made while tracing passes a known tracer (`_passed_tracers`):
        in every trace of the helper they hold tracers, so a Python conversion of one there
        (`if type == 0 or None:`) raises in every trace (`tracers.raises_while_traced`). A call the
        project does not show as a call site (a function handed on as a value, a call it cannot
        describe) leaves it empty: what that call passes is not known. Calls made where nothing
        traces do not count: they run the helper as plain Python, in no trace."""
        project = self.project
        if key in self.entries or key in project.entries or key not in project.reached:
            return frozenset()
        incoming = self._incoming().get(key)
        if not incoming:
            return frozenset()
        sites = {((module, site.caller), site.span.line, site.span.column): site
                 for module, site in project.call_sites.get(key, ())
                 if site.caller is not None and not site.concrete}
        out = None
        for edge in sorted(incoming):
            site = sites.get(edge)
            if site is None:
                return frozenset()
            passed = self._passed_tracers(edge[0], site, key, 0)
            out = passed if out is None else out & passed
            if not out:
                return frozenset()
        return frozenset(out & self.known_traced_params(key))

    def _incoming(self) -> dict:
        """Function -> {(caller, line, column)} of the call edges reaching it from functions an
        entry point reaches (each once per project)."""
        if self._calls_into is None:
            project, into = self.project, {}
            for caller in sorted(project.reached):
                for edge, callee in project.call_edges(caller):
                    into.setdefault(callee, set()).add((caller, edge.span.line, edge.span.column))
            self._calls_into = into
        return self._calls_into

    def _arg_traced(self, module: str, site: F.CallSite, arg: F.ArgFacts, depth: int) -> bool:
        if arg.kind == "tensor":
            caller = (module, site.caller) if site.caller is not None else None
            if caller is not None and arg.root in _BOUND_OUTSIDE and not arg.params \
                    and caller in self.modes and caller not in self.whole_body_traced:
                # `jax.grad(lambda x: cwt(x, scales))`: under `grad` / `vmap` alone an array bound
                # outside the traced function is concrete (`frameworks.JAX_TRACES_DEPENDENTS`)
                return False
            return True
        if arg.param and site.caller is not None:
            return arg.param in self.traced_params((module, site.caller), depth + 1)
        return False

    def whole_body_entry(self, key: Key) -> bool:
        """An entry point staged by something that traces its whole body (`jax.jit`, a `lax`
        body, `checkpoint`), not by `jax.grad` / `jax.vmap` alone (`frameworks.JAX_TRACES_DEPENDENTS`)."""
        e = self.entries.get(key)
        return e is not None and bool(e.apis - JAX_TRACES_DEPENDENTS - {LINEN_EAGER})

    def op_results_traced(self, key: Key) -> bool:
        """Every JAX operation's result in the function is a tracer: something that traces the
        whole body reaches it (`jax.jit`, `pmap`, a `lax` body, `checkpoint`), not only
        `jax.grad` / `jax.vmap`, which trace only what is computed from the arguments they
        transform (`frameworks.JAX_TRACES_DEPENDENTS`)."""
        return key in self.whole_body_traced

    def traced_whole_only(self, key: Key) -> bool:
        """Every trace that reaches the function traces the whole body into a jaxpr (`jax.jit`,
        `pmap`, `pjit`, a `lax` loop body or `cond` branch, `checkpoint`:
        `frameworks.JAX_OPS_ALWAYS_TRACED`), through the calls it makes or directly: there every
        JAX op's result in it is a tracer, wherever its caller's values come from (FoldJAX's
        confidence head, reached by `jax.jit` and by a `lax.map` inside it). Not where anything
        else reaches it (TensorFlow, `vmap` or `grad` alone, `associative_scan`, a host callback)."""
        if self._reached_otherwise is None:
            project, seen = self.project, {}
            for entry in sorted(set(project.entries) | set(self.entries)):
                e = self.entries.get(entry)
                if e is None or not e.apis or not e.apis <= JAX_OPS_ALWAYS_TRACED:
                    project.reach_from(entry, seen, only_unguarded=False)
            self._reached_otherwise = frozenset(seen)
        return key in self.whole_body_traced and key not in self._reached_otherwise

    def is_traced(self, key: Key, params) -> bool:
        """Any of `params` (a candidate's `_params`) holds a tracer in the function `key`."""
        return bool(set(params) & self.traced_params(key))
