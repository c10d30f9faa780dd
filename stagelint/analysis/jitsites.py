"""The walk state the call-site rules of jitted functions share (STG203, STG504, STG505).

Each of those rules keeps one `JitSites` per file: it learns the jitted callables the file defines
(recording their specs once per file for the project phase, `jaxjit.record`), the signatures of
the file's functions, and which calls may run a jitted callable (one of the file's, or a
function of another project module, decided in the project phase by `jaxjit.lookup`).
"""

from __future__ import annotations

import libcst as cst
from libcst.helpers import get_full_name_for_node

from stagelint.analysis import jaxjit
from stagelint.analysis.memo import once


#: Context managers of tests that check what the statements they hold raise or warn (tests of
#: the error itself, or of its absence): the statements are there for that, not their results.
EXPECT_ERROR = frozenset({"pytest.raises", "pytest.warns", "numpy.testing.assert_raises",
                          "numpy.testing.assert_warns"})
EXPECT_ERROR_METHODS = frozenset({"assertRaises", "assertRaisesRegex", "assertRaisesRegexp",
                                  "assertRaisesWithLiteralMatch", "assertWarns", "assertWarnsRegex",
                                  "assertNoWarnings"})


def expects_error(ctx, expr: cst.BaseExpression) -> bool:
    """`pytest.raises(...)`, `self.assertRaises(...)`, `self.assertWarns(...)`: the block is
    there to raise or warn (or to show it does not)."""
    if not isinstance(expr, cst.Call):
        return False
    if isinstance(expr.func, cst.Attribute) and expr.func.attr.value in EXPECT_ERROR_METHODS:
        return True
    return ctx is not None and bool(ctx.qualified_names(expr.func) & EXPECT_ERROR)


def forwarded_parameter(ctx, value: cst.BaseExpression, func) -> str | None:
    """The parameter of `func` an argument hands on as it is (`def pad(a, w): return _pad(a, w)`:
    `w`), when the parameter is the only binding reaching it (not `self`, not `*args`/`**kwargs`):
    the argument is whatever the wrapper's callers pass (`Project.args_for` follows them)."""
    if func is None or not isinstance(value, cst.Name) or value.value == func.self_name:
        return None
    refs = ctx.reaching(value, func)
    if not refs or len(refs) != 1:
        return None
    node = getattr(next(iter(refs)), "node", None)
    if not isinstance(node, cst.Param) or node.star in ("*", "**") or node.name.value != value.value:
        return None
    return value.value if getattr(next(iter(refs)), "scope", None) is ctx.scope(func.node.body) else None


#: Pallas works on refs: `x_ref.at[i].set(v)` stores, `ref[:n]` slices a ref, shapes come from
#: the kernel's block specs. Modules that import it are left to Pallas's own checks.
PALLAS = ("jax.experimental.pallas", "jax._src.pallas")


def uses_pallas(ctx) -> bool:
    return once(ctx, "_uses_pallas", lambda: _pallas_imported(ctx))


def _pallas_imported(ctx) -> bool:
    if any(q.startswith(PALLAS) for q in ctx.facts.imports.values()):
        return True
    return ctx.module_node is not None and any(_imports_pallas(st) for st in ctx.module_node.body)


def _imports_pallas(st) -> bool:
    if not isinstance(st, cst.SimpleStatementLine):
        return False
    for small in st.body:
        # (dotted names read off the nodes: generating their code for every import of every file
        # cost more than the rest of this rule on TensorFlow code)
        if isinstance(small, cst.ImportFrom) and small.module is not None:
            module = get_full_name_for_node(small.module) or ""
            names = [] if isinstance(small.names, cst.ImportStar) else [
                get_full_name_for_node(a.name) for a in small.names]
            if module.startswith(PALLAS) or (module == "jax.experimental" and "pallas" in names):
                return True
        elif isinstance(small, cst.Import):
            if any((get_full_name_for_node(a.name) or "").startswith(PALLAS) for a in small.names):
                return True
    return False


class ExpectedErrors:
    """The `with pytest.raises(...)` / `assertRaises` blocks around the walk's position: code
    there is written to fail, so a rule says nothing about it. One per file (`of`), shared by
    the rules that ask: each `with` is read once, whichever rule's walk reaches it first."""

    def __init__(self, ctx):
        self.ctx = ctx
        self.depth = 0
        #: id(With) -> 1 when it expects an error, else 0; for the `with` statements the walk is in
        self._open: dict[int, int] = {}

    @classmethod
    def of(cls, ctx) -> "ExpectedErrors":
        return once(ctx, "_expected_errors", lambda: cls(ctx))

    def enter(self, node: cst.With) -> None:
        if id(node) not in self._open:
            expecting = self._open[id(node)] = int(any(expects_error(self.ctx, item.item) for item in node.items))
            self.depth += expecting

    def leave(self, node: cst.With) -> None:
        self.depth -= self._open.pop(id(node), 0)


class InExpectedErrors:
    """For a rule (a mixin before `Rule`) that says nothing about code written to fail:
    `self.expecting_error` is true inside `with pytest.raises(...)` / `self.assertRaises(...)`."""

    def visit_With(self, node: cst.With) -> None:
        ExpectedErrors.of(self.ctx).enter(node)

    def leave_With(self, node: cst.With) -> None:
        ExpectedErrors.of(self.ctx).leave(node)

    @property
    def expecting_error(self) -> bool:
        return ExpectedErrors.of(self.ctx).depth > 0


class JitSites:
    def __init__(self, rule):
        self.rule = rule
        self.ctx = rule.ctx
        #: absolute qualified name -> signature, for the file's defs and lambdas bound to names
        self.signatures: dict[str, dict] = {}
        #: names bound to `functools.partial(jax.jit, ...)`: qualified name -> (transform, spec)
        self.partials: dict[str, tuple] = {}
        #: the file's jitted callables: name in the module -> resolved spec
        self.local: dict[str, dict] = {}
        #: method -> {id(node): answer}: every rule sharing this object asks about the same nodes
        self._answers: dict[str, dict[int, object]] = {"function": {}, "assignment": {}, "callee": {}}

    @classmethod
    def of(cls, rule) -> "JitSites":
        """The file's one JitSites: STG203, STG504 and STG505 read the same defs, assignments and
        calls in the same walk, so each node is read once for all of them."""
        return once(rule.ctx, "_jit_sites", lambda: cls(rule))

    def _once(self, method: str, node: cst.CSTNode, compute):
        answers = self._answers[method]
        key = id(node)
        if key in answers:
            return answers[key]
        answer = answers[key] = compute(node)
        return answer

    # Definitions -------------------------------------------------------------------------------

    def _absolute(self, relative: str) -> str:
        module = self.ctx.module
        return f"{module}.{relative}" if module else relative

    def _relative(self, absolute: str) -> str:
        module = self.ctx.module
        return absolute[len(module) + 1:] if module and absolute.startswith(module + ".") else absolute

    def _keep(self, node, name: str, spec: dict) -> None:
        self.local[name] = spec
        recorded = self.ctx.__dict__.setdefault("_jaxjit_recorded", set())
        if (id(node), name) not in recorded:
            recorded.add((id(node), name))
            jaxjit.record(self.ctx, self.rule.code, node, name, spec)

    def function(self, node: cst.FunctionDef):
        """A def: its signature; when a jit decorator sits on it, (decorator, raw spec, resolved
        spec). The rule's `visit_FunctionDef` calls it (ctx.function is the def)."""
        return self._once("function", node, self._function)

    def _function(self, node: cst.FunctionDef):
        func = self.ctx.function
        sig = jaxjit.signature(node.params, method=bool(func and func.is_method))
        self.signatures[self._absolute(func.qualname)] = sig
        for dec in node.decorators:
            found = jaxjit.jit_of(self.ctx, dec.decorator, self.partials)
            if found is None or found[2] is not None:
                continue
            _, raw, = found[:2]
            spec = jaxjit.resolve_spec(raw, sig)
            self._keep(node, func.qualname, spec)
            return dec, raw, spec
        return None

    def assignment(self, node: cst.Assign):
        """`step = jax.jit(f, ...)`, `jit_static = functools.partial(jax.jit, ...)`: what it binds,
        as (target Name, raw spec, resolved spec, jit call) for a jitted callable, else None."""
        return self._once("assignment", node, self._assignment)

    def _assignment(self, node: cst.Assign):
        if len(node.targets) != 1 or not isinstance(node.targets[0].target, cst.Name):
            return None
        target = node.targets[0].target
        value = node.value
        if isinstance(value, cst.Lambda):
            for q in self.ctx.qualified_names(target):
                self.signatures[q] = jaxjit.signature(value.params)
            return None
        found = jaxjit.jit_of(self.ctx, value, self.partials)
        if found is None:
            return None  # (most assignments: the target's names are not needed)
        names = self.ctx.qualified_names(target)
        transform, raw, wrapped = found
        if wrapped is None:
            if isinstance(value, cst.Call):  # a partial or a decorator factory, not a callable yet
                for q in names:
                    self.partials[q] = (transform, raw)
            return None
        sig = self.signature_of(wrapped)
        spec = jaxjit.resolve_spec(raw, sig)
        for q in names:
            self._keep(node, self._relative(q), spec)
        return target, raw, spec, value

    def signature_of(self, wrapped: cst.BaseExpression) -> dict | None:
        if isinstance(wrapped, cst.Lambda):
            return jaxjit.signature(wrapped.params)
        for q in self.ctx.qualified_names(wrapped):
            if q in self.signatures:
                return self.signatures[q]
        return None

    # Calls -------------------------------------------------------------------------------------

    def inline_spec(self, call: cst.Call) -> dict | None:
        """The resolved spec of `jax.jit(f, ...)(x)`: a jit made in the call itself, decided here."""
        if not isinstance(call.func, cst.Call):
            return None
        found = jaxjit.jit_of(self.ctx, call.func, self.partials)
        if found is None or found[2] is None:
            return None
        return jaxjit.resolve_spec(found[1], self.signature_of(found[2]))

    def callee(self, call: cst.Call) -> list[str] | None:
        """The absolute names of a call's callee when it may be a jitted callable: one of this
        file's, or a function of the project (decided later); None for anything else."""
        return self._once("callee", call, self._callee)

    def may_be_jitted(self, callee: list[str]) -> bool:
        """At the end of the walk: a callee `callee` named is jitted in this file, or lives in
        another module (the project phase decides); False for a function of this file nothing jits."""
        return any(self._relative(q) in self.local or self._relative(q) == q for q in callee)

    def _callee(self, call: cst.Call) -> list[str] | None:
        names = self.ctx.qualified_names(call.func)
        if not names:
            return None
        out = []
        for q in sorted(names):
            if q.startswith("builtins."):
                return None
            root = q.split(".", 1)[0]
            if self._relative(q) in self.local or root in self.ctx.project_roots \
                    or root == self.ctx.module.split(".", 1)[0]:
                out.append(q)
        return out or None

    @staticmethod
    def arguments(call: cst.Call):
        """(index, keyword, argument) for each argument a call passes one by one; stops at `*args`
        (positions after it are unknown)."""
        index = 0
        for arg in call.args:
            if arg.star == "*":
                return
            if arg.star == "**":
                continue
            if arg.keyword is None:
                yield index, None, arg
                index += 1
            else:
                yield None, arg.keyword.value, arg
