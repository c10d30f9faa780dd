"""Static arguments of jitted functions: unhashable ones, bad specs (STG504), objects hashed by
identity that are made anew for each call (STG505)."""

from __future__ import annotations

import libcst as cst

from stagelint.analysis.arguments import passed_argument
from stagelint.analysis.literals import keyword_constant
from stagelint.analysis import facts as F
from stagelint.analysis import jaxjit
from stagelint.analysis.context import short_code
from stagelint.analysis.functions import module_def_reached
from stagelint.analysis.proof import FALSE, HEURISTIC, fact, with_steps
from stagelint.analysis.repetition import runs_once
from stagelint.frameworks import (JAX, CALLABLE_HINTS, DATACLASS_DECORATORS, EQUINOX_MODULE_BASES, FLAX_STRUCT_DATACLASSES,
                                  HASHED_BY_VALUE_BASES, JAX_ARRAY_CONSTRUCTORS, JAX_PYTREE_REGISTERING,
                                  PYTREE_BASE_PREFIXES, PYTREE_CLASS_DECORATORS, RECALLING_DECORATORS,
                                  NUMPY_ARRAY_REDUCTION_KEYWORDS, NUMPY_SCALAR_REDUCTIONS,
                                  UNHASHABLE_BUILTINS, UNHASHABLE_KINDS)
from stagelint.analysis.jitsites import InExpectedErrors, JitSites, forwarded_parameter
from stagelint.rules.base import Rule
from stagelint.analysis.tensors import value_of



def _function_field(ctx, node: cst.ClassDef) -> tuple[int, str, cst.BaseExpression | None] | None:
    """The first field of an Equinox module annotated as a callable and not declared static:
    (its position among the fields, its name, its default)."""
    position = 0
    for st in node.body.body if isinstance(node.body, cst.IndentedBlock) else ():
        if not isinstance(st, cst.SimpleStatementLine):
            continue
        for small in st.body:
            if not isinstance(small, cst.AnnAssign) or not isinstance(small.target, cst.Name):
                continue
            position += 1
            hint = small.annotation.annotation
            hint = hint.value if isinstance(hint, cst.Subscript) else hint
            if not ctx.qualified_names(hint) & CALLABLE_HINTS:
                continue
            value = small.value
            if isinstance(value, cst.Call) and any(
                    a.keyword is not None and a.keyword.value == "static" and keyword_constant(a.value, "True")
                    for a in value.args):
                continue  # `eqx.field(static=True)`: part of the treedef, not a leaf
            return position - 1, small.target.value, value
    return None


def _is_function(ctx, expr: cst.BaseExpression | None, func) -> bool:
    """A plain function (not a module or another pytree): a lambda, a def, a JAX function."""
    if expr is None:
        return False
    if isinstance(expr, cst.Lambda):
        return True
    if isinstance(expr, (cst.Name, cst.Attribute)):
        if value_of(ctx, expr, func).what == "function":
            return True
        return any(q.startswith(("jax.nn.", "jax.numpy.", "jax.lax.", "jax.scipy.")) and q.rsplit(".", 1)[-1][:1].islower()
                   for q in ctx.qualified_names(expr))
    return False


def class_kind(ctx, node: cst.ClassDef, local: dict[str, str]) -> tuple[str, str]:
    """How instances of a class of this file hash: ("identity" | "value" | "unhashable" |
    "unknown", why) from its decorators, its `__hash__`/`__eq__` and its bases (`local`: the
    kinds of the file's classes seen so far, by qualified name)."""
    defines = set()
    for st in node.body.body if isinstance(node.body, cst.IndentedBlock) else ():
        if isinstance(st, cst.FunctionDef):
            defines.add(st.name.value)
        elif isinstance(st, cst.SimpleStatementLine):
            for small in st.body:
                if isinstance(small, cst.Assign) and any(
                        isinstance(t.target, cst.Name) and t.target.value == "__hash__" for t in small.targets):
                    if keyword_constant(small.value, "None"):
                        return "unhashable", "it sets `__hash__ = None`"
                    defines.add("__hash__")
    if "__hash__" in defines:
        return "value", ""
    for dec in node.decorators:
        expr = dec.decorator
        target = expr.func if isinstance(expr, cst.Call) else expr
        names = ctx.qualified_names(target)
        if names & FLAX_STRUCT_DATACLASSES:  # a frozen dataclass: hashed by value
            return "value", ""
        if names & DATACLASS_DECORATORS:
            options = {a.keyword.value: a.value for a in expr.args if a.keyword} if isinstance(expr, cst.Call) else {}
            if any(keyword_constant(options.get(k), "True") for k in ("frozen", "unsafe_hash")):
                return "value", ""
            eq = options.get("eq")
            if not keyword_constant(eq, "False"):
                return "unhashable", "a `@dataclass` without `frozen=True` sets `__hash__` to None"
            continue
        return "unknown", ""  # another decorator may add hashing
    if "__eq__" in defines:
        return "unhashable", "it defines `__eq__` without `__hash__`"
    if any(a.keyword is not None for a in node.keywords):
        return "unknown", ""
    kind = "identity"
    for base in node.bases:
        names = ctx.qualified_names(base.value)
        if names & HASHED_BY_VALUE_BASES:
            return "value", ""
        if names <= {"builtins.object"} and names:
            continue
        inherited = [local[q] for q in names if q in local]
        if not inherited:
            return "unknown", ""
        if inherited[0][0] != "identity":
            return inherited[0]
    return kind, ""


class _StaticSites(InExpectedErrors, Rule):
    """Shared walk of STG504/STG505: the file's jitted callables, its classes, and the calls
    that pass something suspicious for a parameter; `confirm` asks the project whether it is static."""

    #: candidates stand only for a jitted callable's spec (`jaxjit`): found where JAX is named
    framework = "jax"

    def __init__(self, ctx):
        super().__init__(ctx)
        self.sites = JitSites.of(self)
        self._class_nodes: list[cst.ClassDef] = []
        self._class_defs: list[cst.ClassDef] = []
        #: (class node, where, function, message fields) of methods jitted with a traced `self`
        self._methods: list[tuple] = []
        #: (class name, line) of `register_pytree_node(C, ...)` calls
        self._registrations: list[tuple[str, int]] = []
        self.classes: dict[str, tuple[str, str]] = {}
        #: Equinox modules of this file with a field holding a function: qualified name -> field
        self.function_fields: dict[str, str] = {}
        self._pending: list[tuple] = []

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        cls = self.ctx.classes[-1] if self.ctx.classes else None
        if cls is not None:
            self.classes[cls.qualname] = class_kind(self.ctx, node, self.classes)
            if any(b in EQUINOX_MODULE_BASES for b in cls.bases):
                field = _function_field(self.ctx, node)
                if field:
                    self.function_fields[cls.qualname] = field

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.sites.function(node)

    def visit_Assign(self, node: cst.Assign) -> None:
        self.sites.assignment(node)

    def visit_Call(self, node: cst.Call) -> None:
        if self.expecting_error:
            return  # `with pytest.raises(ValueError):` a test of the error itself
        func, in_loop = self.ctx.function, bool(self.ctx.loops)
        spec = self.sites.inline_spec(node)  # `jax.jit(f, static_argnums=1)(x, cfg)`: decided here
        if spec is not None:
            for index, keyword, arg in JitSites.arguments(node):
                self._pending.append((func, in_loop, node, None, index, keyword, arg.value, spec))
            return
        callee = self.sites.callee(node)
        if callee is None:
            return
        for index, keyword, arg in JitSites.arguments(node):
            self._pending.append((func, in_loop, node, callee, index, keyword, arg.value, None))

    def finish(self) -> None:
        for func, in_loop, call, callee, index, keyword, value, spec in self._pending:
            if callee is not None and not self.sites.may_be_jitted(callee):
                continue  # a function of this file that nothing jits
            fields = self.describe(func, in_loop, value)
            if fields is None:
                continue
            fields.update({"_stages_itself": True, "_callee": list(callee or ()), "_index": index, "_keyword": keyword,
                           "_attr": callee is not None and isinstance(call.func, cst.Attribute),
                           "arg": short_code(value), "callee": short_code(call.func)})
            if "_what" in fields:  # JAX's behaviour table, row 31: the hash is taken at the call
                fields["_because"] = [fact(f"`{short_code(value)}` is {fields['_what']}, which has no hash by value "
                                           f"(`hash()` raises TypeError)", self.ctx.position(value))]
            reached = module_def_reached(self.ctx, call, func, in_loop) if callee is not None else None
            if reached is not None and not reached[1]:
                # a later `def` rebinds the name: this call runs the one above it, kept as `name@line`
                fields["_callee"] = [f"{q}@{reached[0]}" for q in callee]
            rebound = self._rebound(call) if callee is not None else None
            if rebound is not None:
                fields["_because"] = [*fields.get("_because", ()), rebound]
            if spec is not None:  # the jit is in the call: the file decides
                verdict = self.judge(spec, fields)
                if not verdict:
                    continue
                fields.update(verdict, _spec=True)
            self.ctx.facts.candidates.append(F.Candidate(
                self.code, None if func is None else func.qualname, self.ctx.position(value), fields))

    def describe(self, func, in_loop: bool, value: cst.BaseExpression) -> dict | None:
        raise NotImplementedError

    def _rebound(self, call: cst.Call) -> list | None:
        """The guess of a callee the file binds more than once (a notebook's `f` redefined in a
        later cell with other static arguments): the project knows one spec per name, while the
        call runs whichever binding it reaches first."""
        if not isinstance(call.func, cst.Name):
            return None
        reached = self.ctx.bindings_of(call.func)
        scope = getattr(reached[0], "scope", None) if reached else None
        if scope is None:
            return None
        bindings = [b for b in scope.assignments[call.func.value] if getattr(b, "node", None) is not None]
        if len(bindings) < 2:
            return None
        return fact(f"`{call.func.value}` is bound {len(bindings)} times in this file: which of them the call reaches, "
                    f"and so which static arguments it has, is a guess", self.ctx.position(call), HEURISTIC)

    def _class_of(self, func, value, classes=None):
        """The local class `value` is an instance of (qualified name, what `classes` holds for
        it; by default the hashing kind), if known."""
        classes = self.classes if classes is None else classes
        if isinstance(value, cst.Call):
            for q in self.ctx.qualified_names(value.func):
                if q in classes:
                    return q, classes[q]
            return None
        if isinstance(value, cst.Name):
            v = value_of(self.ctx, value, func)
            if v.what == "object" and v.cls in classes:
                return v.cls, classes[v.cls]
        return None

    @classmethod
    def confirm(cls, candidate, project, module):
        fields = candidate.fields
        if fields.get("_spec"):
            return True  # decided in the file
        spec = jaxjit.lookup(project, module.module, fields["_callee"])
        return False if spec is None else cls.judge(spec, fields)

    @classmethod
    def judge(cls, spec: dict, fields: dict) -> dict | bool:
        """Message fields when the argument a candidate describes is static (`fields["_need"]`
        says "traced" where it is the traced positions that matter), else False."""
        index = jaxjit.shifted(spec, fields["_index"], fields.get("_attr", False))
        static = jaxjit.is_static(spec, index, fields["_keyword"])
        if static != (fields.get("_need", "static") == "static"):
            return False
        param = jaxjit.bound_parameter(spec, index, fields["_keyword"])
        return {"param": param if not param.startswith("#") else f"argument {param[1:]}"}


class UnhashableStaticArgument(_StaticSites):
    """
    ## What it does
    Flags a jitted function's static arguments that cannot work: a list, dict, set or array (a
    NumPy array or a `jax.Array`), or an instance of a class that is not hashable (a
    `@dataclass` without `frozen=True`, a class with `__eq__` but no `__hash__`), passed in a
    `static_argnums`/`static_argnames` position, at the call or through a name bound to one, or
    through a wrapper's parameter handed on as it is (`def pad(a, w): return _pad(a, w)`) when a
    call of the wrapper passes a list, dict, set or NumPy array for it; a
    static spec that names no parameter (`static_argnums=3` for a function of one parameter,
    `static_argnames="zz"`); a method of a plain class jitted without `self` among its static
    arguments. The jitted function may be defined in another module of the project.

    Where the line is drawn, and why: tuples, strings, numbers, frozen dataclasses and
    NamedTuples hash by value and are what static arguments are for; a class that is a pytree
    (an `equinox.Module`, a Flax module or struct (`@flax.struct.dataclass`), a class registered
    with `jax.tree_util.register_pytree_node_class`, as a decorator or a call) may be traced as
    `self`. A spec is checked against the def's own signature only where `jax.jit` is given the
    def or a wrapper that keeps its signature (`functools.lru_cache`, `functools.wraps`); under
    another decorator, which may set the signature jit reads (`__signature__`), the finding is in
    the preview tier. So is a call of a name the file binds more than once (a notebook's `f`
    redefined in a later cell with other static arguments): which binding the call reaches decides
    its static arguments. A name unpacked from a set or a list (`layout, = {...}`) holds an
    element, not the container, and is not reported. The proof (`because`) names the unhashable
    value's kind: JAX hashes static arguments at the call (JAX 0.10.2).

    ## Why is this bad?
    `jax.jit` keys its compilation cache on the static arguments' hashes. An unhashable one
    raises `ValueError: Non-hashable static arguments are not supported` at the call, but only
    under jit: under `jax.disable_jit()` (or in tests that mock jit) it works, so the bug shows
    up late. A bad spec raises `ValueError: Jitted function has static_argnums=(3,), but only
    accepts 1 positional arguments` where `jax.jit` wraps the function; a method jitted with a
    traced `self` raises `TypeError:
    Error interpreting argument ... as an abstract array` on the first call.

    ## Example
    ```python
    @functools.partial(jax.jit, static_argnums=1)
    def pad_to(x, widths):
        return jnp.pad(x, widths)

    pad_to(x, [(1, 1)])            # ValueError: Non-hashable static arguments
    ```

    ## Use instead
    ```python
    pad_to(x, ((1, 1),))           # a tuple hashes by value
    ```
    For a method, `@functools.partial(jax.jit, static_argnums=0)` (and make the class hash by
    value), or jit a function that takes the arrays it needs; for a config object, a
    `@dataclass(frozen=True)`.
    """

    code = "STG504"
    preview_under = {
        "jax": "Held back on repositories nobody here tuned on (bench/fresh_audit_notes.md), "
               "it was right 0 times in 1 of its findings in JAX code at the latest readings (0 in 7 "
               "findings over every reading): pmap ignores a donation index jit rejects, a wrapper sets the "
               "signature jit reads, a registered pytree is traced as `self`.",
    }
    name = "unhashable-static-argument"
    message = "{what}: under jax.jit {why}; {instead}"
    valid = (
        """
        import functools
        import jax
        import jax.numpy as jnp

        @functools.partial(jax.jit, static_argnums=1)
        def pad_to(x, widths):
            return jnp.pad(x, widths)

        pad_to(jnp.ones(3), ((1, 1),))
        pad_to(jnp.ones(3), widths=((2, 2),))
        """,
        """
        import dataclasses
        import functools
        import jax

        @dataclasses.dataclass(frozen=True)
        class Config:
            scale: float

        @functools.partial(jax.jit, static_argnames="config")
        def scale(x, config):
            return x * config.scale

        class Model:
            @functools.partial(jax.jit, static_argnums=0)
            def apply(self, x):
                return x * 2

        def run(x):
            return scale(x, config=Config(2.0)), Model().apply(x)
        """,
    )
    invalid = (
        """
        import functools
        import jax
        import jax.numpy as jnp

        @functools.partial(jax.jit, static_argnums=1)
        def pad_to(x, widths):
            return jnp.pad(x, widths)

        pad_to(jnp.ones(3), [(1, 1)])  # STG504
        widths = {"left": 1}
        pad_to(jnp.ones(3), widths)  # STG504
        """,
        """
        import dataclasses
        import jax

        @dataclasses.dataclass
        class Config:
            scale: float

        def _scale(x, config):
            return x * config.scale

        scale = jax.jit(_scale, static_argnames="config")
        typo = jax.jit(_scale, static_argnums=3)  # STG504

        def run(x):
            return scale(x, config=Config(2.0))  # STG504

        class Model:
            @jax.jit  # STG504
            def apply(self, x):
                return x * 2
        """,
    )

    def describe(self, func, in_loop, value):
        what = self._unhashable(func, value)
        if what is not None:
            return {"_what": what}
        # a file JAX stages nothing in (`screen.framework_reach`) hands no static argument on
        forwarded = forwarded_parameter(self.ctx, value, func) if JAX.name not in getattr(self.ctx, "absent", ()) else None
        if forwarded is not None:
            # `def pad(a, w): return _pad(a, w)`: what the wrapper's callers pass (project phase)
            return {"_forwarded": forwarded}
        found = self._class_of(func, value, self.function_fields)
        if found is not None and isinstance(value, cst.Call):
            position, field, default = found[1]
            given = passed_argument(value, position, field)
            if _is_function(self.ctx, given.value if given is not None else default, func):
                return {"_need": "traced", "_field": field}
        return None

    def _unhashable(self, func, value) -> str | None:
        if isinstance(value, (cst.List, cst.ListComp)):
            return "a list"
        if isinstance(value, (cst.Dict, cst.DictComp)):
            return "a dict"
        if isinstance(value, (cst.Set, cst.SetComp)):
            return "a set"
        if isinstance(value, cst.Call):
            names = self.ctx.qualified_names(value.func)
            for q in names:
                if q in UNHASHABLE_BUILTINS:
                    return UNHASHABLE_BUILTINS[q]
                if q in JAX_ARRAY_CONSTRUCTORS:
                    return "a jax.Array"
        found = self._class_of(func, value)
        if found is not None and found[1][0] == "unhashable":
            name = found[0].rsplit(".", 1)[-1]
            return f"a `{name}` object ({found[1][1]})"
        if isinstance(value, cst.Name) and any(id(getattr(r, "node", None)) in self.ctx.unpacked_names
                                                for r in self.ctx.bindings_of(value)):
            return None  # `tile_layout, = {...}` (jax-cfd): an element of the set, not the set
        if isinstance(value, (cst.Call, cst.Name)):
            v = value_of(self.ctx, value, func)
            if v.what in UNHASHABLE_KINDS and not self._numpy_scalar(value, func):
                return UNHASHABLE_KINDS[v.what]
        return None

    def _numpy_scalar(self, value, func) -> bool:
        """`np.prod([...], dtype=int)` (or a name bound to it once): a NumPy reduction over
        everything returns a NumPy scalar, hashable (`frameworks.NUMPY_SCALAR_REDUCTIONS`)."""
        if isinstance(value, cst.Name):
            refs = self.ctx.reaching(value, func)
            node = getattr(next(iter(refs)), "node", None) if refs and len(refs) == 1 else None
            value = self.ctx.bound_values.get(id(node)) if node is not None \
                and id(node) not in self.ctx.unpacked_names else None
        return isinstance(value, cst.Call) and bool(self.ctx.qualified_names(value.func) & NUMPY_SCALAR_REDUCTIONS) \
            and len(value.args) >= 1 and value.args[0].keyword is None and not any(
                (a.keyword is not None and a.keyword.value in NUMPY_ARRAY_REDUCTION_KEYWORDS)
                or (a.keyword is None and i > 0) or a.star for i, a in enumerate(value.args))

    @classmethod
    def confirm(cls, candidate, project, module):
        fields = candidate.fields
        if not fields.get("_forwarded"):
            return super().confirm(candidate, project, module)
        spec = jaxjit.lookup(project, module.module, fields["_callee"]) if not fields.get("_spec") else None
        verdict = fields.get("_spec") or (spec is not None and cls.judge(spec, fields))
        if not verdict or candidate.function is None:
            return False
        # The wrapper's parameter holds what its callers pass: one passing a list, dict, set or
        # NumPy array hands JAX an unhashable static argument through the wrapper.
        param = fields["_forwarded"]
        static = fields.get("param") if fields.get("_spec") else verdict["param"]
        for mod, site, arg in project.args_for((module.module, candidate.function), param):
            if arg.what in UNHASHABLE_KINDS:
                where = f"line {site.span.line}" if mod == module.module else f"{mod} line {site.span.line}"
                what = UNHASHABLE_KINDS[arg.what]
                return {"param": static, **_unhashable_message(dict(fields, _what=what), static), "_because": [fact(
                    f"`{param}` is a parameter of `{candidate.function.rsplit('.', 1)[-1]}` handed on as it is, and a "
                    f"call ({where}) passes {what} for it, which has no hash by value", site.span)]}
        return False

    @classmethod
    def judge(cls, spec, fields):
        verdict = super().judge(spec, fields)
        if not verdict:
            return False
        param = verdict["param"]
        if fields.get("_need") == "traced":
            verdict.update({
                "what": f"`{fields['arg']}` is an Equinox module with the function field `{fields['_field']}`, passed for `{param}` of `{fields['callee']}`",
                "why": "every leaf of a traced argument must be an array, and a function is not (TypeError: Error interpreting argument ... as an abstract array)",
                "instead": "jit with `eqx.filter_jit`, or declare the field `eqx.field(static=True)`",
            })
            return verdict
        if "_what" not in fields:
            return verdict  # a wrapper's parameter handed on: its callers decide (`confirm`)
        verdict.update(_unhashable_message(fields, param))
        return verdict

    # Specs the file itself shows to be wrong.

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        found = self.sites.function(node)
        if found is None:
            return
        dec, raw, spec = found
        func = self.ctx.function
        self._check_spec(dec.decorator, raw, spec, func.qualname, guess=self._rewrapped(node, dec))
        if func.is_method and spec.get("params") and not self._pytree_base():
            self_name = spec["params"][0]
            if 0 not in spec["static"] and not any(
                    q in ("builtins.staticmethod", "builtins.classmethod") for d in node.decorators
                    for q in self.ctx.qualified_names(d.decorator)):
                # Decided in `finish`: a registration as a pytree may come later in the file.
                self._methods.append((self._class_nodes[-1], self._jit_decorator(node), func.qualname, {
                    "what": f"method `{node.name.value}` is jitted with `{self_name}` as a traced argument",
                    "why": f"`{self_name}` is not an array nor a pytree, so the first call raises TypeError (Error interpreting argument ... as an abstract array)",
                    "instead": f"add `static_argnums=0` (and make the class hash by value), or jit a function of the arrays `{node.name.value}` needs",
                }))

    def visit_Call(self, node: cst.Call) -> None:
        super().visit_Call(node)
        if node.args and isinstance(node.args[0].value, cst.Name) \
                and self.ctx.qualified_names(node.func) & JAX_PYTREE_REGISTERING:
            self._registrations.append((node.args[0].value.value, self.ctx.position(node).line))

    def finish(self) -> None:
        super().finish()
        registered = set()
        for name, line in self._registrations:
            # the last `class C` above the call (a notebook may define `C` several times)
            above = [d for d in self._class_defs if d.name.value == name and self.ctx.position(d).line < line]
            if above:
                registered.add(id(max(above, key=lambda d: self.ctx.position(d).line)))
        for cls_node, where, function, fields in self._methods:
            if id(cls_node) not in registered:
                self._spec_finding(where, function, fields)

    def visit_Assign(self, node: cst.Assign) -> None:
        found = self.sites.assignment(node)
        if found is None:
            return
        target, raw, spec, call = found
        func = self.ctx.function
        self._check_spec(call, raw, spec, None if func is None else func.qualname, node.targets[0].target)

    def _rewrapped(self, node: cst.FunctionDef, dec: cst.Decorator) -> list | None:
        """The proof step for a def another decorator wraps before the jit decorator does:
        `jax.jit` checks `static_argnames`/`static_argnums` against `inspect.signature` of what it
        is given, which a wrapper may change (`__signature__`: learned_optimization's
        `add_with_summary` adds `with_summary`; JAX 0.10.2 accepts it). Known only for the
        decorators that return the def or a wrapper keeping its signature
        (`frameworks.RECALLING_DECORATORS`); another one makes the def's own signature a guess."""
        decorators = list(node.decorators)
        below = decorators[decorators.index(dec) + 1:] if dec in decorators else []
        for d in below:
            expr = d.decorator.func if isinstance(d.decorator, cst.Call) else d.decorator
            if not self.ctx.qualified_names(expr) & RECALLING_DECORATORS:
                return [fact(f"`{node.name.value}` is wrapped by `{short_code(expr)}` before `jax.jit` sees it: jit "
                             f"checks the names against the wrapper's signature, which a wrapper may set "
                             f"(`__signature__`), not the def's: a guess", self.ctx.position(d), HEURISTIC)]
        return None

    def _check_spec(self, where, raw: dict, spec: dict, function: str | None, at=None, guess=None) -> None:
        if "params" not in spec:
            return  # the signature is not in this file
        if guess:
            spec = dict(spec, _because=guess)
        params, kwonly = spec["params"], spec["kwonly"]
        for key, words in (("static", "static_argnums"), ("donate", "donate_argnums")):
            if spec["star"]:
                continue
            bad = [i for i in raw[key] if not -len(params) <= i < len(params)]
            if bad:
                node = raw["nodes"][key]
                self._spec_finding(node, function, {
                    **({"_because": spec["_because"]} if "_because" in spec else {}),
                    "what": f"`{words}={short_code(node.value)}` names no parameter of a function of {len(params)} positional parameter{'s' if len(params) != 1 else ''}",
                    "why": f"wrapping the function raises ValueError (Jitted function has {words}=..., but only accepts {len(params)} positional arguments)",
                    "instead": "count positions from 0, or name the parameter with `static_argnames`",
                })
        for key, words in (("static_names", "static_argnames"), ("donate_names", "donate_argnames")):
            if spec["kwstar"]:
                continue
            bad = [n for n in raw[key] if n not in params and n not in kwonly]
            if bad:
                node = raw["nodes"][key]
                self._spec_finding(node, function, {
                    **({"_because": spec["_because"]} if "_because" in spec else {}),
                    "what": f"`{words}` names `{bad[0]}`, which is not a parameter",
                    "why": f"wrapping the function raises ValueError (Jitted function has invalid argnames {{'{bad[0]}'}} in {words})",
                    "instead": f"name one of the parameters ({', '.join(params + kwonly) or 'none'})",
                })

    def _jit_decorator(self, node: cst.FunctionDef) -> cst.CSTNode:
        for dec in node.decorators:
            if jaxjit.jit_of(self.ctx, dec.decorator, self.sites.partials) is not None:
                return dec.decorator
        return node.name

    def _spec_finding(self, node, function, fields) -> None:
        fields = dict(fields, _spec=True, _stages_itself=True)
        self.ctx.facts.candidates.append(F.Candidate(self.code, function, self.ctx.position(node), fields))

    def _pytree_base(self) -> bool:
        """The method's class is a pytree by its bases or decorators (Equinox, Flax,
        `@register_pytree_node_class`), or of unknown make; registration calls are `finish`'s."""
        ctx = self.ctx
        cls = ctx.classes[-1] if ctx.classes else None
        if cls is None or not self._class_nodes:
            return True
        if any(b.startswith(PYTREE_BASE_PREFIXES) for b in cls.bases):
            return True
        if any(ctx.qualified_names(d.decorator.func if isinstance(d.decorator, cst.Call) else d.decorator)
               & PYTREE_CLASS_DECORATORS for d in self._class_nodes[-1].decorators):
            return True  # registered where it is defined
        kind = self.classes.get(cls.qualname, ("unknown", ""))[0]
        return kind == "unknown" or bool(cls.bases and not set(cls.bases) <= {"builtins.object"})

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        super().visit_ClassDef(node)
        self._class_nodes.append(node)
        self._class_defs.append(node)

    def leave_ClassDef(self, node: cst.ClassDef) -> None:
        self._class_nodes.pop()


class IdentityHashedStaticArgument(_StaticSites):
    """
    ## What it does
    Flags an object passed for a jitted function's static parameter (`static_argnums`,
    `static_argnames`) when its class hashes by identity (a plain class of the project without
    `__hash__` and `__eq__`) and the object is built anew for each call: constructed in the call
    (`step(x, Config(2.0))`) inside a loop or a function, or bound to a name in the loop or the
    function that makes the call.

    Where the line is drawn, and why: one object built once (a module-level singleton, a name
    bound outside the loop) hashes the same at every call and traces once; a frozen dataclass,
    a NamedTuple or a class with `__hash__`/`__eq__` hashes by value, so equal configs share one
    trace. Classes of other modules and libraries are not judged (their hashing is not in view).
    An object built anew on each call of a function is a new key per call only when that
    function is called again: a module-level function that its module's top-level code calls
    once (`if __name__ == "__main__": test_search()`) and nothing else in the project calls,
    imports or reads runs once per process, and makes one object, one trace
    (`analysis.repetition.runs_once`); a function the project never calls may have callers it
    does not show, and is reported.

    ## Why is this bad?
    `jax.jit` looks its compiled code up by the static arguments' hash and equality. An object
    hashed by identity is a new key every time it is built, so each call traces and compiles the
    function again (3 calls, 3 traces), silently: nothing fails, it is only slow, and the cache
    keeps every compiled version alive.

    ## Example
    ```python
    class Config:
        def __init__(self, scale):
            self.scale = scale

    for x in batches:
        step(x, Config(2.0))        # a new key: traces on every call
    ```

    ## Use instead
    ```python
    @dataclasses.dataclass(frozen=True)
    class Config:
        scale: float                # hashed by value: equal configs share one trace
    ```
    Or build the object once, before the loop.
    """

    code = "STG505"
    severity = "warning"
    repeated_cost = True
    name = "identity-hashed-static-argument"
    message = "`{arg}` makes a new `{cls}` for the static parameter `{param}` of `{callee}` {when}: `{cls}` hashes by identity, so under jax.jit each call given a new one traces and compiles again; make it a `@dataclass(frozen=True)` (or give it `__hash__` and `__eq__`), or build it once and reuse it"
    valid = (
        """
        import dataclasses
        import functools
        import jax

        @dataclasses.dataclass(frozen=True)
        class Config:
            scale: float

        @functools.partial(jax.jit, static_argnums=1)
        def step(x, config):
            return x * config.scale

        def train(batches):
            for x in batches:
                step(x, Config(2.0))
        """,
        """
        import functools
        import jax

        class Config:
            def __init__(self, scale):
                self.scale = scale

        CONFIG = Config(2.0)

        @functools.partial(jax.jit, static_argnums=1)
        def step(x, config):
            return x * config.scale

        def train(batches):
            config = Config(3.0)
            for x in batches:
                step(x, CONFIG)
                step(x, config)
        """,
        """
        import functools
        import jax

        class Searcher:
            def __init__(self, depth):
                self.depth = depth

        @functools.partial(jax.jit, static_argnums=1)
        def search(x, searcher):
            return x * searcher.depth

        def demo():
            searcher = Searcher(3)  # made once: `demo` runs once per process
            return search(1.0, searcher)

        if __name__ == "__main__":
            demo()
        """,
    )
    invalid = (
        """
        import functools
        import jax

        class Config:
            def __init__(self, scale):
                self.scale = scale

        @functools.partial(jax.jit, static_argnums=1)
        def step(x, config):
            return x * config.scale

        def train(batches):
            for x in batches:
                step(x, Config(2.0))  # STG505
        """,
        """
        import jax

        class Options:
            pass

        def _apply(x, options):
            return x + 1

        apply = jax.jit(_apply, static_argnames="options")

        def predict(x):
            options = Options()
            return apply(x, options=options)  # STG505
        """,
    )

    def describe(self, func, in_loop, value):
        found = self._class_of(func, value)
        if found is None or found[1][0] != "identity":
            return None
        cls = found[0].rsplit(".", 1)[-1]
        per_call = False
        if isinstance(value, cst.Call):
            if in_loop:
                when = "on every iteration of the loop"
            elif func is not None:
                when = f"on every call of `{func.facts.name}`"
                per_call = True
            else:
                return None  # one module-level call: one object, one trace
        else:
            v = value_of(self.ctx, value, func)
            if v.ident.startswith("new@"):
                when = "on every iteration of the loop"
            elif in_loop:
                return None  # built before the loop: every iteration passes the same object
            elif func is not None and self.ctx.binding_kind(value, func) == "local":
                when = f"on every call of `{func.facts.name}`"
                per_call = True
            else:
                return None
        # a new object per call of the function: a new trace per call when it is called again (`confirm`)
        return {"cls": cls, "when": when, **({"_per_call": True} if per_call else {})}

    @classmethod
    def confirm(cls, candidate, project, module):
        verdict = super().confirm(candidate, project, module)
        if not verdict or not candidate.fields.get("_per_call") or not candidate.function:
            return verdict
        once = runs_once(project, (module.module, candidate.function))
        if once is None:
            return verdict
        # made anew on each call of a function that runs once: one object, one trace
        return with_steps(verdict, candidate, fact(
            f"{once}: it makes one `{candidate.fields['cls']}`, so `{candidate.fields['callee']}` traces once with it",
            candidate.span, FALSE))


def _unhashable_message(fields: dict, param: str) -> dict:
    return {
        "what": f"`{fields['arg']}` is {fields['_what']}, passed for the static parameter `{param}` of `{fields['callee']}`",
        "why": "static arguments must be hashable (ValueError: Non-hashable static arguments are not supported)",
        "instead": f"pass a tuple, a string or a frozen dataclass, or make `{param}` a traced argument",
    }
