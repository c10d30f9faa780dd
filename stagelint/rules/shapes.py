"""Shapes that depend on traced values, in code JAX stages (STG604)."""

from __future__ import annotations

import libcst as cst

from stagelint.analysis.pytrees import (PytreeModel, python_attribute_reads, reads_through_locals,
                                       traced_attribute_facts)
from stagelint.analysis.tracers import OP, PYTHON, WEAK, module_argument_guess, passed_param_guess
from stagelint.analysis.tracers import origin as tracer_origin
from stagelint.analysis.dependence import op_result_fact, params_feeding
from stagelint.analysis.flags import with_flag_step
from stagelint.analysis.context import short_code
from stagelint.analysis.proof import HEURISTIC, fact
from stagelint.analysis.nnx import param_attributes
from stagelint.analysis.jitsites import InExpectedErrors, uses_pallas
from stagelint.frameworks import (JAX_HIT_COUNT_LENGTH, JAX_LENGTH_ARGUMENTS, JAX_LENGTH_FIXES, JAX_MASK_FUNCTIONS,
                                  JAX_SHAPE_CONSTRUCTORS)
from stagelint.rules.base import Rule
from stagelint.analysis.tensors import Tensorness, tensorness

_COMPARISONS = (cst.LessThan, cst.LessThanEqual, cst.GreaterThan, cst.GreaterThanEqual, cst.Equal, cst.NotEqual)

_WHY = "the result's shape would depend on traced values"


class DataDependentShape(InExpectedErrors, Rule):
    """
    ## What it does
    Flags, in code that `jax.jit`, `jax.vmap`, `jax.pmap` or a `jax.lax` control-flow body
    traces, operations whose output shape depends on the values of traced arrays: boolean
    indexing (`x[x > 0]`, `x[mask]` where `mask` is a comparison, `x.at[x > 0].set(0)`);
    `jnp.nonzero`, `jnp.flatnonzero`, `jnp.argwhere`, `jnp.unique` (and its `unique_*` forms),
    `jnp.compress`, `jnp.extract`, the set functions (`jnp.setdiff1d`, ...) and one-argument
    `jnp.where(c)` without `size=`; `jnp.bincount` without `length=` and `jnp.repeat` without
    `total_repeat_length=` on traced values; `jnp.arange`, `jnp.linspace(num=...)`,
    `jnp.zeros`/`ones`/`full`/`empty`/`eye` with a shape JAX computes (`jnp.zeros(jnp.sum(m))`);
    `jnp.split`, `array_split`, `hsplit`, `vsplit`, `dsplit` at traced indices or a traced number
    of sections (`jnp.split(y, jnp.cumsum(sizes))`: the pieces are the indices' values);
    slices with traced bounds (`x[:n]`).

    Where the line is drawn, and why: the value must be traced: an operation of `jax.numpy`
    or `jax.lax`, or a parameter the project shows holds a tracer (not static through
    `static_argnums`/`static_argnames`, not a Python default, not an attribute a registered
    pytree keeps in its aux data or static fields: `jnp.arange(0, time_axis.Nt)` with `Nt`
    computed by NumPy from `tree_flatten`'s aux data). So `size=` given, the three-argument
    `jnp.where(c, x, y)`, slices by Python ints or shape arithmetic (`x[: x.shape[0] // 2]`),
    integer indexing with a traced index (`x[i]`, a gather) and code that only `jax.grad` stages
    (values are concrete there) are left alone, as is TensorFlow code (its graphs allow dynamic
    shapes). Under `jax.vmap` alone (no jit, no `lax` body around it) only what is computed from
    the mapped arguments is a tracer: `jnp.nonzero(jnp.arange(3) > 1)` of constants works there
    (JAX 0.10.2), so an operation's result the code does not show computed from a mapped parameter
    is reported in the preview tier only (`analysis.dependence`); by default, only `jnp.nonzero(row
    > 0)` of the mapped `row`, or anything under `jax.jit`, `pmap` or a `lax` body, where every
    operation's result is a tracer. A parameter is known to hold a tracer where the transformation
    itself hands it one (a non-static parameter of the function `jax.jit`, `pmap` or a `lax` body is
    given, a mapped one of `jax.vmap`'s) or where a call passes such a parameter or a JAX
    operation's result in a body traced whole; a helper's parameter reached otherwise (under
    `jax.vmap` alone a value computed from an `in_axes=None` argument is concrete, and serket's
    vmapped translations slice by one that works) holds what its callers pass: preview
    (`JaxView.known_traced_params`). Code reached only under `if debug_mode:` on a parameter left at
    a False/None/0 default by every traced call the project shows is preview too (`analysis.flags`). Array constructors given a parameter as their shape are left alone too: model
    dimensions are Python ints bound in ways a reader of one call cannot see (a
    `functools.partial`, pmap's `static_broadcasted_argnums`, a config object). Code under
    `with pytest.raises(...)` or `self.assertRaises(...)` tests the error itself. Modules that
    import Pallas are left alone (kernels index refs, their shapes come from block specs).

    What is known and what is a guess (each finding's proof, `because`, states its chain): the
    default tier holds the lengths, bounds and masks whose tracer is known: a JAX operation's
    result (`jnp.sum(mask)`), or a non-static parameter of the function `jax.jit`, `pmap` or a
    `lax` body is given, alone or combined by operators (`x > 0`, `n + 1`): every leaf of a traced
    argument is a tracer, a Python scalar included (JAX 0.10.2). A value read through an attribute,
    a project function's result, an item of something not traced or a closed-over name is in the
    preview tier: it may be pytree metadata, a static field or aux data, a Python int under jit
    (e3nn's `scalars.irreps.dim`, jaxls's running sum of a `jdc.Static` field), unless the project
    shows the class (a registered pytree's child or property of children: traced, the default
    tier; its aux data or a static field: silent). A `range` loop's variable and `enumerate`'s
    index are Python ints whatever they iterate: never reported; so is a method of an object the
    function receives that returns `len(...)` (a Python int of any object, a tracer's static
    leading dimension), integer arithmetic on it, or the result of another such method (jaxsim's
    `model.number_of_links()` returning `self.kin_dyn_parameters.number_of_links()`, which returns
    `len(self.link_names)`).

    ## Why is this bad?
    XLA compiles for fixed shapes, so JAX must know every array's shape while tracing. Where
    it depends on the data, tracing fails: `NonConcreteBooleanIndexError` for a boolean index,
    `ConcretizationTypeError` for `nonzero`/`unique`/`arange`, `IndexError: Slice entries must
    be static integers` for `x[:n]`. Under `jax.disable_jit()` all of it works, so eager tests
    pass and the jitted code fails.

    ## Example
    ```python
    @jax.jit
    def positive_mean(x):
        return jnp.mean(x[x > 0])       # NonConcreteBooleanIndexError

    @jax.jit
    def prefix_sum(x, n):
        return jnp.sum(x[:n])           # IndexError: slice entries must be static
    ```

    ## Use instead
    ```python
    @jax.jit
    def positive_mean(x):
        mask = x > 0
        return jnp.sum(jnp.where(mask, x, 0.0)) / jnp.maximum(mask.sum(), 1)

    @jax.jit
    def prefix_sum(x, n):
        return jnp.sum(jnp.where(jnp.arange(x.shape[0]) < n, x, 0.0))
    ```
    Or give the size: `jnp.nonzero(mask, size=k, fill_value=-1)`; or make the bound static
    (`static_argnums`), which compiles once per value.
    """

    code = "STG604"
    preview_under = {
        "jax": "Held back on repositories nobody here tuned on (bench/fresh_audit_notes.md), "
               "it was right 0 times in 3 findings in JAX code at the latest readings (0 in 16 over "
               "every reading; 23 more on a half read to fix from, all false): the lengths and bounds "
               "were Python ints (static fields, pytree metadata, psum of a constant), or the code ran "
               "unjitted.",
    }
    framework = "jax"  # candidates stand only where JAX stages (`confirm`)
    # the error tracing raises (ConcretizationTypeError), met in turn after the ones before it
    # (a size-less `jnp.unique` stops the trace as `float(x)` does: `frameworks.JAX_VALUE_SHAPED_FUNCTIONS`)
    trace_error = True
    name = "data-dependent-shape"
    message = "{what} in {func}: under jax.jit {why} ({error}); {instead}"
    valid = (
        """
        import functools
        import jax
        import jax.numpy as jnp

        @jax.jit
        def positive_mean(x):
            mask = x > 0
            return jnp.sum(jnp.where(mask, x, 0.0)) / jnp.maximum(mask.sum(), 1)

        @jax.jit
        def first_ids(mask):
            return jnp.nonzero(mask, size=4, fill_value=-1)

        @jax.jit
        def first_half(x, i):
            return x[: x.shape[0] // 2], x[i], jnp.arange(x.shape[0])

        @functools.partial(jax.jit, static_argnums=1)
        def prefix(x, n):
            return x[:n], jnp.arange(n)

        def eager(x, n):
            return x[x > 0], x[:n], jnp.nonzero(x)

        grad = jax.grad(lambda x: jnp.sum(x[x > 0]))
        """,
    )
    invalid = (
        """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def positive_mean(x):
            return jnp.mean(x[x > 0])  # STG604

        @jax.jit
        def active(mask, labels):
            return jnp.nonzero(mask), jnp.unique(labels), jnp.where(mask)  # STG604

        @jax.jit
        def prefix_sum(x, n):
            return jnp.sum(x[:n]) + jnp.arange(n).sum()  # STG604
        """,
    )

    def visit_Subscript(self, node: cst.Subscript) -> None:
        ctx, func = self.ctx, self.ctx.function
        if func is None or not ctx.in_staged_context or self.expecting_error:
            return
        for element in node.slice:
            sl = element.slice
            if isinstance(sl, cst.Index) and sl.star is None and _is_mask(ctx, sl.value, func):
                t = tensorness(ctx, sl.value, func)
                if t.possible:
                    self._report(node, t, [sl.value], what=f"boolean indexing `{short_code(node)}`",
                                 error="NonConcreteBooleanIndexError",
                                 instead="keep the shape with `jnp.where(mask, x, fill)` (reductions take `where=`), "
                                         "or use `jnp.nonzero(mask, size=k)`")
                    return
            elif isinstance(sl, cst.Slice):
                t = Tensorness()
                for bound in (sl.lower, sl.upper, sl.step):
                    if bound is not None:
                        t = t | tensorness(ctx, bound, func)
                if t.possible:
                    self._report(node, t, [b for b in (sl.lower, sl.upper, sl.step) if b is not None],
                                 what=f"the slice `{short_code(node)}` with a traced bound",
                                 error="IndexError: Slice entries must be static integers",
                                 instead="slice a fixed size with `jax.lax.dynamic_slice`, mask with "
                                         "`jnp.where(jnp.arange(x.shape[0]) < n, x, 0)`, or make the bound static")
                    return

    def visit_Call(self, node: cst.Call) -> None:
        ctx, func = self.ctx, self.ctx.function
        if func is None or not ctx.in_staged_context or self.expecting_error:
            return  # (under `pytest.raises(...)`: a test of the error itself)
        names = ctx.qualified_names(node.func)
        if not any(q.startswith("jax.numpy.") for q in names) and not (
                isinstance(node.func, cst.Attribute) and node.func.attr.value == "nonzero"):
            return
        if any(a.star for a in node.args):
            return  # `f(*args, **kw)`: `size=` may be among them
        keywords = {a.keyword.value: a.value for a in node.args if a.keyword is not None}
        positional = [a.value for a in node.args if a.keyword is None]
        for q in sorted(names):
            if (q in JAX_HIT_COUNT_LENGTH or q == "jax.numpy.where" and len(positional) == 1 and not {"x", "y"} & set(keywords)) \
                    and "size" not in keywords:
                data = positional[:2] if positional else list(keywords.values())[:1]
                t = _any_traced(ctx, data, func)
                if t.possible:
                    self._report(node, t, data, what=f"`{short_code(node)}` without `size=`", error="ConcretizationTypeError",
                                 instead="pass `size=` (and `fill_value=`) to fix the output's length"
                                 + (", or use the three-argument `jnp.where(c, x, y)`" if q == "jax.numpy.where" else ""))
                return
            if q in JAX_LENGTH_FIXES and JAX_LENGTH_FIXES[q] in keywords:
                return
            if q == "jax.numpy.bincount" and positional:
                t = tensorness(ctx, positional[0], func)
                if t.possible:
                    self._report(node, t, positional[:1], what=f"`{short_code(node)}` without `length=`", error="ConcretizationTypeError",
                                 instead="pass `length=` to fix the output's length")
                return
            if q in JAX_LENGTH_ARGUMENTS:
                values = []
                for keyword, position in JAX_LENGTH_ARGUMENTS[q]:
                    if keyword in keywords:
                        values.append(keywords[keyword])
                    elif position < len(positional):
                        values.append(positional[position])
                if q == "jax.numpy.repeat" and values and isinstance(values[0], (cst.Integer, cst.Name)) \
                        and not tensorness(ctx, values[0], func).definite and not _is_param(ctx, values[0], func):
                    return  # `jnp.repeat(x, 2)`, `jnp.repeat(x, k)` with a Python int
                t = _any_traced(ctx, values, func)
                constructor = q in JAX_SHAPE_CONSTRUCTORS
                if constructor and not any(_computes(ctx, v) for v in values):
                    return  # a shape from parameters or helpers: see JAX_SHAPE_CONSTRUCTORS
                if t.possible:
                    error = "TypeError: Shapes must be 1D sequences of concrete values" if constructor \
                        else "ConcretizationTypeError"
                    fix = JAX_LENGTH_FIXES.get(q)
                    self._report(node, t, values, what=f"`{short_code(node)}` with a traced length", error=error,
                                 instead=f"pass `{fix}=`" if fix else
                                 "take the length from a shape (`x.shape[0]`) or make it static (`static_argnums`), "
                                 "and mask a fixed-size result")
                return
        if isinstance(node.func, cst.Attribute) and node.func.attr.value == "nonzero" \
                and "size" not in keywords:
            t = tensorness(ctx, node.func.value, func)
            if t.possible:
                self._report(node, t, [node.func.value], what=f"`{short_code(node)}` without `size=`",
                             error="ConcretizationTypeError",
                             instead="pass `size=` (and `fill_value=`) to fix the output's length")

    def _report(self, node, t: Tensorness, values, **fields) -> None:
        if uses_pallas(self.ctx):
            return  # Pallas: refs and block specs (asked last: it reads the file's imports)
        if t.params and not t.definite:
            # `jnp.arange(0, time_axis.Nt)`: which attributes of the parameters it reads (a pytree's
            # aux data and static fields are Python values: `analysis.pytrees`)
            reads: list | None = []
            for v in values:
                found = param_attributes(self.ctx, v, self.ctx.function)
                # every parameter that makes the value traced is read through its attributes
                if found is None or not tensorness(self.ctx, v, self.ctx.function).params <= {r[0] for r in found}:
                    reads = None
                    break
                reads += found
            if reads:
                fields["_attrs"] = reads
            else:
                # `data[offset:]` with `for offset, data in zip(op.offsets, op.data)`: the attributes a
                # local computes from in Python (whether they are Python values: `analysis.pytrees`)
                local = [reads_through_locals(self.ctx, v, self.ctx.function) for v in values]
                if any(local) and all(found is not None for found in local):
                    fields["_local_attrs"] = [r for found in local for r in found]
        kinds = [tracer_origin(self.ctx, v, self.ctx.function) for v in values]
        if kinds and all(k == PYTHON for k, _ in kinds):
            return  # a `range` loop's variable, shape arithmetic: Python ints whatever is traced
        # the value's origin (`analysis.tracers`): a JAX op's result or a traced parameter combined
        # by operators is known; one read through an attribute, a project call, a closure is a guess
        weak = [short_code(v) for v, (k, _) in zip(values, kinds) if k == WEAK]
        if weak and not any(k == OP for k, _ in kinds):
            fields["_weak"] = weak[0]  # (even where the value model calls it a tensor: jaxls's sum)
            # `model.number_of_links()`: a method of a parameter, which may return a Python int
            # whatever the object holds (`PytreeModel.python_int_calls`)
            calls = [_method_call(self.ctx, v, self.ctx.function) for v, (k, _) in zip(values, kinds) if k != PYTHON]
            if calls and all(calls):
                fields["_int_calls"] = calls
        params = t.params
        if kinds and not any(k == WEAK for k, _ in kinds):
            # every value's origin is known (`analysis.tracers`): the parameters it names are those
            # that make it traced (`start = i * days` with `i` from `enumerate(xs)`: `days`, not `xs`)
            params = frozenset().union(*(p for _, p in kinds))
        self.report(node, why=_WHY, _definite=t.definite, _params=sorted(params), _jax_only=True,
                    _value=short_code(values[0]) if values else short_code(node),
                    _from=sorted(set().union(*(params_feeding(self.ctx, v, self.ctx.function) for v in values))),
                    **fields)

    @classmethod
    def confirm(cls, candidate, project, module):
        key = (module.module, candidate.function)
        return with_flag_step(cls._traced_shape(candidate, project, key), candidate, project, key)

    @classmethod
    def _traced_shape(cls, candidate, project, key):
        jax = project.jax
        if not project.staged_by_jax(key) or jax.mode_of(key) not in ("jit", "trace"):
            return False  # TensorFlow allows dynamic shapes; under grad alone values are concrete
        fields = candidate.fields
        if PytreeModel.of(project).python_int_calls(key, fields.get("_int_calls")):
            return False  # `model.number_of_links()` returning `len(...)`: a Python int
        if fields.get("_definite") and fields.get("_weak"):
            return {"_because": [_weak_fact(fields["_weak"], candidate.span)]}
        if fields.get("_definite"):
            # a JAX operation's result: a tracer wherever the whole body is traced; under `jax.vmap`
            # alone only if computed from what it maps (`analysis.dependence`)
            return {"_because": [op_result_fact(project, key, fields.get("_value", "the length"),
                                                {*fields.get("_params", ()), *fields.get("_from", ())}, candidate.span)]}
        if not jax.is_traced(key, fields.get("_params", ())):
            return False
        if python_attribute_reads(project, key, fields.get("_attrs") or fields.get("_local_attrs")):
            return False  # a registered pytree's aux data or static field: a Python value
        guess = module_argument_guess(project, key, set(fields.get("_params", ())) & jax.traced_params(key),
                                      fields.get("_value", "the length"), candidate.span)
        if guess is not None:
            return {"_because": [guess]}  # a module method's argument: what its caller passes
        because = traced_attribute_facts(project, key, fields.get("_attrs"), candidate.span) or []
        if fields.get("_weak") and not because and PytreeModel.of(project).guessed_static(
                key, fields.get("_attrs") or fields.get("_local_attrs")):
            return False  # read from an object whose class is not shown: the project's pytrees keep it aux data
        if fields.get("_weak") and not because:
            because = [_weak_fact(fields["_weak"], candidate.span)]
        guess = passed_param_guess(project, key, set(fields.get("_params", ())) & jax.traced_params(key),
                                   fields.get("_value", "the length"), candidate.span)
        if guess is not None:
            because = [guess, *because]  # a helper's parameter: what its callers pass
        if not because:
            traced = sorted(set(fields.get("_params", ())) & jax.traced_params(key))
            if traced:
                because = [fact(f"`{fields.get('_value', 'the length')}` comes from parameter `{traced[0]}` of "
                                f"`{project.display(key, key[0])}`, a non-static argument the transformation traces: "
                                "every leaf of it is a tracer, a Python scalar included", candidate.span)]
        return {"_because": because} if because else True


def _weak_fact(value: str, span) -> list:
    """The guess of a length or bound read through an attribute, a call, an item or a closure
    (e3nn's `scalars.irreps.dim`, jaxls's running sum of a `jdc.Static` field: Python ints of
    pytree metadata under jit, JAX 0.10.2, tests/runtime/test_jax_shape_facts.py)."""
    return fact(f"`{value}` is reached through an attribute, a call, an item or a closure: whether it is a tracer "
                "(not pytree metadata, a static field, aux data, a concrete closure) is a guess", span, HEURISTIC)


def _computes(ctx, expr: cst.BaseExpression) -> bool:
    """The expression itself calls a `jax.numpy`/`jax.lax` operation (`jnp.sum(mask)`)."""
    if isinstance(expr, cst.Call):
        if any(q.startswith(("jax.numpy.", "jax.lax.")) and ctx.framework.returns_tensor(q)
               for q in ctx.qualified_names(expr.func)):
            return True
    if isinstance(expr, (cst.Lambda, cst.FunctionDef)):
        return False
    return any(_computes(ctx, child) for child in expr.children if isinstance(child, cst.CSTNode))


def _any_traced(ctx, values, func) -> Tensorness:
    t = Tensorness()
    for v in values:
        t = t | tensorness(ctx, v, func)
    return t


def _method_call(ctx, expr, func) -> list | None:
    """`param.method()` (no arguments) -> [param, method]; None for anything else."""
    if isinstance(expr, cst.Call) and not expr.args and isinstance(expr.func, cst.Attribute) \
            and _is_param(ctx, expr.func.value, func):
        return [expr.func.value.value, expr.func.attr.value]
    return None


def _is_param(ctx, expr, func) -> bool:
    return isinstance(expr, cst.Name) and ctx.binding_kind(expr, func) == "param"


def _is_mask(ctx, expr: cst.BaseExpression, func, depth: int = 0) -> bool:
    """The expression is a boolean array as far as the code shows: a comparison, `~`/`&`/`|`
    of masks, a `jnp.isnan`-like call, or a local name bound only to one of those."""
    if depth > 4:
        return False
    if isinstance(expr, cst.Comparison):
        return all(isinstance(c.operator, _COMPARISONS) for c in expr.comparisons)
    if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.BitInvert):
        return _is_mask(ctx, expr.expression, func, depth + 1)
    if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, (cst.BitAnd, cst.BitOr, cst.BitXor)):
        return _is_mask(ctx, expr.left, func, depth + 1) or _is_mask(ctx, expr.right, func, depth + 1)
    if isinstance(expr, cst.Call):
        return bool(ctx.qualified_names(expr.func) & JAX_MASK_FUNCTIONS)
    if isinstance(expr, cst.Name):
        refs = ctx.reaching(expr, func)
        if not refs:
            return False
        for r in refs:
            value = ctx.bound_values.get(id(getattr(r, "node", None)))
            if value is None or not isinstance(value, cst.BaseExpression) or not _is_mask(ctx, value, func, depth + 1):
                return False
        return True
    return False
