"""Donated buffers: an array handed to a jitted function's `donate_argnums` and read again (STG203)."""

from __future__ import annotations

import libcst as cst

from stagelint import facts as F
from stagelint import jaxjit
from stagelint.context import short_code
from stagelint.jitsites import JitSites
from stagelint.rules.base import Rule
from stagelint.tensors import NUMBERS, value_of

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
    not a read. A donation spec that is not a literal is unknown, and nothing is flagged.

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
        self.sites = JitSites(self)
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
        callee = self.sites.callee(node)
        if callee is None:
            return
        for index, keyword, arg in JitSites.arguments(node):
            if isinstance(arg.value, cst.Name) and arg.value.value not in ("None", "True", "False"):
                if value_of(self.ctx, arg.value, self.ctx.function).what in _NOT_DONATED:
                    continue  # a NumPy array or a Python value is copied to the device, not deleted
                found = self._after(node, arg.value.value)
                if found is not None:
                    self._pending.append((self.ctx.function, node, callee, index, keyword, arg.value, found))

    def finish(self) -> None:
        for func, call, callee, index, keyword, name, (where, how) in self._pending:
            if not any(self.sites._relative(q) in self.sites.local or self.sites._relative(q) == q for q in callee):
                continue  # a function of this file that nothing jits
            self.ctx.facts.candidates.append(self._candidate(func, call, callee, index, keyword, name, where, how))

    def _candidate(self, func, call, callee, index, keyword, name, where, how):
        return F.Candidate(self.code, None if func is None else func.qualname, self.ctx.position(where), {
            "_stages_itself": True, "_callee": list(callee), "_index": index, "_keyword": keyword,
            "name": name.value, "callee": short_code(call.func), "how": how,
        })

    @classmethod
    def confirm(cls, candidate, project, module):
        fields = candidate.fields
        spec = jaxjit.lookup(project, module.module, fields["_callee"])
        if spec is None or not jaxjit.is_donated(spec, fields["_index"], fields["_keyword"]):
            return False
        return {"param": jaxjit.bound_parameter(spec, fields["_index"], fields["_keyword"]).lstrip("#")}

    # What follows the call.

    def _after(self, call: cst.Call, name: str):
        """Where `name` is read after `call` passed it: (node, how) or None. Scans the
        statements after the call's, block by block outwards to the end of the function (or
        module); a store of the name ends the search. In a loop that never rebinds it, the next
        iteration passes it again."""
        ctx = self.ctx
        where = ctx.position(call)
        path = []  # (statements, index of the one holding the call, owner), innermost first
        for stmts, owner in reversed(self._blocks):
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
        for stmts, index, owner in path:
            for st in stmts[index + 1:]:
                event = _first_use(st, name)
                if event is not None:
                    kind, node = event
                    return (node, f"read again at line {ctx.position(node).line}") if kind == "read" else None
            if isinstance(owner, (cst.For, cst.While)):
                if _first_use(owner, name, stores_only=True) is None and not _leaves(owner.body):
                    return (call, "passed again on the loop's next iteration")
        return None


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


def _first_use(node: cst.CSTNode, name: str, stores_only: bool = False):
    """The first ("read", Name) or ("store", node) of `name` in `node`, in evaluation order;
    nested defs, lambdas and classes are not entered (their bodies run later, if ever)."""
    for kind, n in _uses(node, name):
        if kind == "store" or not stores_only:
            return kind, n
    return None


def _uses(node: cst.CSTNode, name: str):
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
        yield from _uses(node.value, name)
        return
    if isinstance(node, cst.Arg):
        yield from _uses(node.value, name)
        return
    if isinstance(node, (cst.Import, cst.ImportFrom)):
        if isinstance(node.names, cst.ImportStar):
            return
        for alias in node.names:
            bound = alias.asname.name if alias.asname else alias.name
            if isinstance(bound, cst.Name) and bound.value == name:
                yield "store", node
        return
    if isinstance(node, cst.Assign):
        yield from _uses(node.value, name)
        for t in node.targets:
            yield from _stores(t.target, name)
        return
    if isinstance(node, cst.AnnAssign):
        if node.value is not None:
            yield from _uses(node.value, name)
            yield from _stores(node.target, name)
        return
    if isinstance(node, cst.AugAssign):
        yield from _uses(node.value, name)
        yield from _uses(node.target, name)
        return
    if isinstance(node, cst.NamedExpr):
        yield from _uses(node.value, name)
        yield from _stores(node.target, name)
        return
    if isinstance(node, cst.For):
        yield from _uses(node.iter, name)
        yield from _stores(node.target, name)
        yield from _uses(node.body, name)
        if node.orelse is not None:
            yield from _uses(node.orelse, name)
        return
    if isinstance(node, cst.WithItem):
        yield from _uses(node.item, name)
        if node.asname is not None:
            yield from _stores(node.asname.name, name)
        return
    if isinstance(node, cst.Del):
        yield from _stores(node.target, name)
        return
    if isinstance(node, (cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.DictComp)):
        # The comprehension's own variables shadow the name.
        names = set()
        f = node.for_in
        while f is not None:
            names.update(_target_names(f.target))
            f = f.inner_for_in
        if name in names:
            yield from _uses(node.for_in.iter, name)
            return
    for child in node.children:
        yield from _uses(child, name)


def _stores(target: cst.CSTNode, name: str):
    if isinstance(target, cst.Name):
        if target.value == name:
            yield "store", target
        return
    if isinstance(target, (cst.Tuple, cst.List)):
        for el in target.elements:
            yield from _stores(el.value, name)
        return
    if isinstance(target, cst.StarredElement):
        yield from _stores(target.value, name)
        return
    yield from _uses(target, name)  # `x[0] = ...`, `obj.attr = ...`: reads the object
