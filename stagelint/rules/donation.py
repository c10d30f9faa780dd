"""Donated buffers: an array handed to a jitted function's `donate_argnums` and read again (STG203)."""

from __future__ import annotations

import libcst as cst

from stagelint import facts as F
from stagelint import jaxjit
from stagelint.context import short_code
from stagelint.jitsites import JitSites, expects_error
from stagelint.rules.base import Rule
from stagelint.tensors import NUMBERS, value_of

#: Methods of a jitted function that read only its arguments' shapes and dtypes.
_ABSTRACT_USES = frozenset({"lower", "trace", "eval_shape"})
#: Values a donation does not delete: copied to the device for the call.
_NOT_DONATED = NUMBERS | {"ndarray", "str", "bool", "none"}

#: Attributes a deleted array still answers (metadata kept on the Python object).
_METADATA = frozenset({"shape", "dtype", "ndim", "size", "is_deleted", "sharding", "nbytes", "aval", "weak_type"})


class UseAfterDonation(Rule):
    """
    ## What it does
    Flags a name that is passed to a jitted function in a position it donates
    (`donate_argnums`, `donate_argnames`, given to `jax.jit` as a decorator through
    `functools.partial`, or in a call `jax.jit(f, donate_argnums=0)`), and then read again: by a
    later statement of the same code, or by the same call on the next iteration of a loop that
    does not rebind the name. The jitted function may be defined in another module of the project.

    Where the line is drawn, and why: rebinding the name to the result (`x = step(x)`, the
    idiom donation is made for) ends the old array's life, so nothing is flagged; reading only
    its metadata (`x.shape`, `x.dtype`, `x.is_deleted()`) works on a deleted array, so that is
    not a read, and neither is a check of the deletion (`self.assertDeleted(x)`) or a read under
    `with pytest.raises(...)`/`self.assertRaises(...)` (a test of the error). A donation spec that is not a literal is unknown, and nothing is flagged.

    ## Why is this bad?
    Donation lets XLA reuse the argument's buffer for the output, and JAX deletes the array
    you passed: reading it afterwards raises `RuntimeError: Array has been deleted`, and
    passing it again fails with "Buffer has been deleted or donated". Under
    `jax.disable_jit()` nothing is donated, so the eager run hides the bug. (Where no output
    has the donated buffer's shape and dtype, JAX warns "Some donated buffers were not usable"
    and keeps it: the code then works by accident.)

    ## Example
    ```python
    @functools.partial(jax.jit, donate_argnums=0)
    def update(state, grads):
        return state - 0.1 * grads

    new_state = update(state, grads)
    print(state.mean())     # RuntimeError: Array has been deleted
    ```

    ## Use instead
    ```python
    state = update(state, grads)    # rebind the name to the result
    print(state.mean())
    ```
    Or copy what you still need before the call, or stop donating that argument.
    """

    code = "STG203"
    framework = "jax"  # candidates stand only where JAX stages (`confirm`)
    name = "use-after-donation"
    message = "`{name}` was donated to `{callee}` (its `{param}` is in `donate_argnums`/`donate_argnames`) and is {how}: under jax.jit the array is deleted by that call (RuntimeError: Array has been deleted); rebind the name to the result (`{name} = {callee}(...)`) or do not donate it"
    valid = (
        """
        import functools
        import jax

        @functools.partial(jax.jit, donate_argnums=0)
        def update(state, grads):
            return state - 0.1 * grads

        def train(state, batches):
            for grads in batches:
                state = update(state, grads)
            print(state.shape, state.sum())
            return state
        """,
        """
        import jax

        def _update(state, grads):
            return state - grads

        update = jax.jit(_update, donate_argnums=0)

        def train(state, grads):
            new_state = update(state, grads)
            print(grads.sum(), state.shape, state.is_deleted())
            return new_state
        """,
    )
    invalid = (
        """
        import functools
        import jax

        @functools.partial(jax.jit, donate_argnums=0)
        def update(state, grads):
            return state - 0.1 * grads

        def train(state, grads):
            new_state = update(state, grads)
            print(state.mean())  # STG203
            return new_state
        """,
        """
        import jax

        def _update(state, grads):
            return state - grads

        update = jax.jit(_update, donate_argnames="state")

        def train(state, batches):
            for grads in batches:
                new_state = update(state, grads)  # STG203
            return new_state
        """,
    )

    def __init__(self, ctx):
        super().__init__(ctx)
        self.sites = JitSites.of(self)
        #: enclosing statement lists, innermost last: [statements, owner node or None]
        self._blocks: list[tuple[tuple, cst.CSTNode | None]] = []
        self._owners: dict[int, cst.CSTNode] = {}
        #: (call node, callee names, index, keyword, Name, later read or None, loop) to decide at the end
        self._pending: list[tuple] = []

    # Block bookkeeping (which statements follow a call).

    def visit_Module(self, node: cst.Module) -> None:
        self._blocks.append((tuple(node.body), node))

    def _own(self, owner: cst.CSTNode, *blocks) -> None:
        for block in blocks:
            if block is not None:
                self._owners[id(block)] = owner

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.sites.function(node)
        self._own(node, node.body)

    def visit_For(self, node: cst.For) -> None:
        self._own(node, node.body)

    def visit_While(self, node: cst.While) -> None:
        self._own(node, node.body)

    def visit_IndentedBlock(self, node: cst.IndentedBlock) -> None:
        self._blocks.append((tuple(node.body), self._owners.get(id(node))))

    def leave_IndentedBlock(self, node: cst.IndentedBlock) -> None:
        self._blocks.pop()

    def visit_SimpleStatementSuite(self, node: cst.SimpleStatementSuite) -> None:
        self._blocks.append(((), None))  # `if c: f(x)` on one line: nothing follows inside

    def leave_SimpleStatementSuite(self, node: cst.SimpleStatementSuite) -> None:
        self._blocks.pop()

    def visit_Assign(self, node: cst.Assign) -> None:
        self.sites.assignment(node)

    def visit_Call(self, node: cst.Call) -> None:
        spec = self.sites.inline_spec(node)  # `jax.jit(f, donate_argnums=0)(x)`: decided here
        callee = self.sites.callee(node) if spec is None else []
        if callee is None:
            return
        names = []
        for index, keyword, arg in JitSites.arguments(node):
            if spec is not None and not jaxjit.is_donated(spec, index, keyword):
                continue
            if isinstance(arg.value, cst.Name) and arg.value.value not in ("None", "True", "False"):
                param = "" if spec is None else jaxjit.bound_parameter(spec, index, keyword).lstrip("#")
                names.append((index, keyword, arg.value, param))
        if names:
            # Decided in `finish`, once the file shows which of its functions are jitted: the
            # enclosing blocks are kept as they are now.
            self._pending.append((self.ctx.function, node, callee, names, list(self._blocks)))

    def finish(self) -> None:
        for func, call, callee, names, blocks in self._pending:
            if callee and not self.sites.may_be_jitted(callee):
                continue  # a function of this file that nothing jits
            for index, keyword, name, param in names:
                if value_of(self.ctx, name, func).what in _NOT_DONATED:
                    continue  # a NumPy array or a Python value is copied to the device, not deleted
                found = self._after(call, name.value, blocks)
                if found is None:
                    continue
                where, how = found
                self.ctx.facts.candidates.append(F.Candidate(
                    self.code, None if func is None else func.qualname, self.ctx.position(where), {
                        "_stages_itself": True, "_callee": list(callee), "_index": index, "_keyword": keyword,
                        "_attr": isinstance(call.func, cst.Attribute),
                        "_param": param, "name": name.value, "callee": short_code(call.func), "how": how,
                    }))

    @classmethod
    def confirm(cls, candidate, project, module):
        fields = candidate.fields
        if not fields["_callee"]:
            return {"param": fields["_param"]}  # the jit is in the call: decided in the file
        spec = jaxjit.lookup(project, module.module, fields["_callee"])
        if spec is None:
            return False
        index = jaxjit.shifted(spec, fields["_index"], fields.get("_attr", False))
        if not jaxjit.is_donated(spec, index, fields["_keyword"]):
            return False
        return {"param": jaxjit.bound_parameter(spec, index, fields["_keyword"]).lstrip("#")}

    # What follows the call.

    def _after(self, call: cst.Call, name: str, blocks):
        """Where `name` is read after `call` passed it: (node, how) or None. Scans the
        statements after the call's, block by block outwards to the end of the function (or
        module); a store of the name ends the search. In a loop that never rebinds it, the next
        iteration passes it again."""
        ctx = self.ctx
        where = ctx.position(call)
        path = []  # (statements, index of the one holding the call, owner), innermost first
        for stmts, owner in reversed(blocks):
            index = next((i for i, st in enumerate(stmts) if _holds(ctx, st, where)), None)
            if index is None:
                return None
            path.append((stmts, index, owner))
            if isinstance(owner, (cst.FunctionDef, cst.Module)):
                break
        if not path:
            return None
        statement = path[0][0][path[0][1]]
        if _binds(statement, name):
            return None  # `x = step(x)`: the name now holds the result
        memo = self.__dict__.setdefault("_uses_memo", {})
        for stmts, index, owner in path:
            for st in stmts[index + 1:]:
                key = (id(st), name)
                if key not in memo:
                    # Most statements never spell the name: one walk per statement answers every name.
                    memo[key] = _first_use(st, name, ctx) if name in self._spelled(st) else None
                event = memo[key]
                if event is not None:
                    kind, node = event
                    return (node, f"read again at line {ctx.position(node).line}") if kind == "read" else None
            if isinstance(owner, (cst.For, cst.While)):
                if _first_use(owner, name, ctx, stores_only=True) is None and not _leaves(owner.body):
                    return (call, "passed again on the loop's next iteration")
        return None

    def _spelled(self, statement: cst.CSTNode) -> frozenset:
        """Every identifier spelled in `statement` (a superset of what `_uses` can yield: it
        yields only `Name` nodes), computed once per statement."""
        memo = self.__dict__.setdefault("_spelled_memo", {})
        names = memo.get(id(statement))
        if names is None:
            found, stack = set(), [statement]
            while stack:
                node = stack.pop()
                if isinstance(node, cst.Name):
                    found.add(node.value)
                else:
                    stack.extend(node.children)
            names = memo[id(statement)] = frozenset(found)
        return names


def _leaves(block: cst.CSTNode) -> bool:
    """A `break` or `return` in a loop body (outside nested defs): maybe no next iteration."""
    if isinstance(block, (cst.Break, cst.Return)):
        return True
    if isinstance(block, (cst.FunctionDef, cst.Lambda, cst.ClassDef, cst.For, cst.While)) and block is not None:
        return isinstance(block, (cst.For, cst.While)) and _leaves_return(block)
    return any(_leaves(child) for child in block.children)


def _leaves_return(loop: cst.CSTNode) -> bool:
    """A `return` inside an inner loop still leaves the outer one (its `break` does not)."""
    if isinstance(loop, cst.Return):
        return True
    if isinstance(loop, (cst.FunctionDef, cst.Lambda, cst.ClassDef)):
        return False
    return any(_leaves_return(child) for child in loop.children)


def _checks_deletion(call: cst.Call) -> bool:
    func = call.func
    last = func.attr.value if isinstance(func, cst.Attribute) else func.value if isinstance(func, cst.Name) else ""
    return "deleted" in last.lower()


def _holds(ctx, node, where) -> bool:
    span = ctx.position(node)
    return (span.line, span.column) <= (where.line, where.column) and \
        (where.end_line, where.end_column) <= (span.end_line, span.end_column)


def _binds(statement: cst.CSTNode, name: str) -> bool:
    """A simple statement line that assigns `name` (the call's result, typically)."""
    if not isinstance(statement, cst.SimpleStatementLine):
        return False
    for small in statement.body:
        targets = ()
        if isinstance(small, cst.Assign):
            targets = [t.target for t in small.targets]
        elif isinstance(small, (cst.AnnAssign, cst.AugAssign)):
            targets = [small.target]
        for t in targets:
            if any(n == name for n in _target_names(t)):
                return True
    return False


def _target_names(target) -> list[str]:
    if isinstance(target, cst.Name):
        return [target.value]
    if isinstance(target, (cst.Tuple, cst.List)):
        return [n for el in target.elements for n in _target_names(el.value)]
    if isinstance(target, cst.StarredElement):
        return _target_names(target.value)
    return []


def _first_use(node: cst.CSTNode, name: str, ctx=None, stores_only: bool = False):
    """The first ("read", Name) or ("store", node) of `name` in `node`, in evaluation order;
    nested defs, lambdas and classes are not entered (their bodies run later, if ever)."""
    for kind, n in _uses(node, name, ctx):
        if kind == "store" or not stores_only:
            return kind, n
    return None


def _uses(node: cst.CSTNode, name: str, ctx=None):
    if isinstance(node, cst.Name):
        if node.value == name:
            yield "read", node
        return
    if isinstance(node, (cst.Lambda, cst.ClassDef)):
        return
    if isinstance(node, cst.FunctionDef):
        if node.name.value == name:
            yield "store", node
        return
    if isinstance(node, cst.Attribute):
        if isinstance(node.value, cst.Name) and node.value.value == name and node.attr.value in _METADATA:
            return  # metadata survives the deletion
        yield from _uses(node.value, name, ctx)
        return
    if isinstance(node, cst.Arg):
        yield from _uses(node.value, name, ctx)
        return
    if isinstance(node, cst.Call) and _checks_deletion(node):
        return  # `self.assertDeleted(x)`: asks whether the donation happened
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value in _ABSTRACT_USES:
        yield from _uses(node.func.value, name, ctx)
        return  # `step.lower(x)`, `step.trace(x)`: only shapes and dtypes are read
    if isinstance(node, cst.With) and any(expects_error(ctx, item.item) for item in node.items):
        return  # `with self.assertRaises(RuntimeError):` reads it to see the error
    if isinstance(node, (cst.Import, cst.ImportFrom)):
        if isinstance(node.names, cst.ImportStar):
            return
        for alias in node.names:
            bound = alias.asname.name if alias.asname else alias.name
            if isinstance(bound, cst.Name) and bound.value == name:
                yield "store", node
        return
    if isinstance(node, cst.Assign):
        yield from _uses(node.value, name, ctx)
        for t in node.targets:
            yield from _stores(t.target, name, ctx)
        return
    if isinstance(node, cst.AnnAssign):
        if node.value is not None:
            yield from _uses(node.value, name, ctx)
            yield from _stores(node.target, name, ctx)
        return
    if isinstance(node, cst.AugAssign):
        yield from _uses(node.value, name, ctx)
        yield from _uses(node.target, name, ctx)
        return
    if isinstance(node, cst.NamedExpr):
        yield from _uses(node.value, name, ctx)
        yield from _stores(node.target, name, ctx)
        return
    if isinstance(node, cst.For):
        yield from _uses(node.iter, name, ctx)
        yield from _stores(node.target, name, ctx)
        yield from _uses(node.body, name, ctx)
        if node.orelse is not None:
            yield from _uses(node.orelse, name, ctx)
        return
    if isinstance(node, cst.WithItem):
        yield from _uses(node.item, name, ctx)
        if node.asname is not None:
            yield from _stores(node.asname.name, name, ctx)
        return
    if isinstance(node, cst.Del):
        yield from _stores(node.target, name, ctx)
        return
    if isinstance(node, (cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.DictComp)):
        # The comprehension's own variables shadow the name.
        names = set()
        f = node.for_in
        while f is not None:
            names.update(_target_names(f.target))
            f = f.inner_for_in
        if name in names:
            yield from _uses(node.for_in.iter, name, ctx)
            return
    for child in node.children:
        yield from _uses(child, name, ctx)


def _stores(target: cst.CSTNode, name: str, ctx=None):
    if isinstance(target, cst.Name):
        if target.value == name:
            yield "store", target
        return
    if isinstance(target, (cst.Tuple, cst.List)):
        for el in target.elements:
            yield from _stores(el.value, name, ctx)
        return
    if isinstance(target, cst.StarredElement):
        yield from _stores(target.value, name, ctx)
        return
    yield from _uses(target, name, ctx)  # `x[0] = ...`, `obj.attr = ...`: reads the object
