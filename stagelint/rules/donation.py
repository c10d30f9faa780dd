"""Donated buffers: an array handed to a jitted function's `donate_argnums` and read again (STG203)."""

from __future__ import annotations

import libcst as cst

from stagelint.analysis.literals import keyword_constant
from stagelint.analysis import facts as F
from stagelint.analysis import jaxjit
from stagelint.analysis.context import short_code, target_names
from stagelint.analysis.jitsites import JitSites, expects_error
from stagelint.frameworks import JAX_ABSTRACT_USES, JAX_DONATED_METADATA, JAX_NOT_DONATED_KINDS
from stagelint.rules.base import Rule
from stagelint.analysis.tensors import value_of
from stagelint.analysis.trivia import TRIVIA, inner_nodes, statement_parts

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
    its metadata (`x.shape`, `x.dtype`, `x.is_deleted()`, also of an entry: `batch["x"].shape`)
    works on a deleted array, so that is not a read; donation deletes a pytree's arrays, not its
    containers, so `batch.keys()`, `del batch["mask"]` and `x.delete()` (a no-op once deleted)
    read nothing either, and neither is a check of the deletion (`self.assertDeleted(x)`) or a read under
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
    preview_under = {
        "jax": "Held back on repositories nobody here tuned on (bench/fresh_audit_notes.md), "
               "it was right 2 times in 4 findings in JAX code (2 in 7 over every reading): the "
               "reads were of metadata or containers, or on a path that never donated.",
    }
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
        #: (id(statement), name) -> its first event (`_first`); id(statement) -> names it spells;
        #: (id(loop), name) -> `_passed_again`, id(loop) -> `_leaves`. The nodes stay alive in the
        #: tree meanwhile.
        self._uses_memo: dict[tuple, object] = {}
        self._spelled_memo: dict[int, frozenset] = {}
        self._loop_memo: dict[object, bool] = {}

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
            if isinstance(arg.value, cst.Name) and not keyword_constant(arg.value):
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
                if value_of(self.ctx, name, func).what in JAX_NOT_DONATED_KINDS:
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
        position = ctx.raw_position  # plain tuples: no Span built per statement tried
        line, column, end_line, end_column = position(call)
        start, end = (line, column), (end_line, end_column)
        path = []  # (statements, index of the one holding the call, owner), innermost first
        for stmts, owner in reversed(blocks):
            index = None
            for i, st in enumerate(stmts):
                at = position(st)
                if (at[0], at[1]) <= start and end <= (at[2], at[3]):
                    index = i
                    break
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
        if _ends_the_path(statement):
            return None  # `return step(cache)`: nothing after it runs once the array is donated
        memo = self._uses_memo
        for stmts, index, owner in path:
            for st in stmts[index + 1:]:
                key = (id(st), name)
                event = memo.get(key, memo)
                if event is memo:
                    # Most statements never spell the name: one walk per statement answers every name.
                    event = memo[key] = _first(st, name, ctx, True) if name in self._spelled(st) else None
                if event is not None:
                    kind, node = event
                    return (node, f"read again at line {ctx.position(node).line}") if kind == "read" else None
                if _ends_the_path(st):
                    return None  # a `return`/`raise` after the donating call: the code below runs on other paths
            if isinstance(owner, (cst.For, cst.While)) and self._passed_again(owner, name):
                return (call, "passed again on the loop's next iteration")
        return None

    def _passed_again(self, loop: cst.CSTNode, name: str) -> bool:
        """The loop never rebinds `name` and always goes round again: what a call in it passes
        is passed again. Asked once per loop and name (a training loop passes the same names
        to many calls)."""
        key = (id(loop), name)
        again = self._loop_memo.get(key)
        if again is None:
            again = self._loop_memo[key] = _first(loop, name, self.ctx, False) is None and not self._leaves(loop)
        return again

    def _leaves(self, loop: cst.CSTNode) -> bool:
        leaves = self._loop_memo.get(id(loop))
        if leaves is None:
            leaves = self._loop_memo[id(loop)] = _leaves(loop.body)
        return leaves

    def _spelled(self, statement: cst.CSTNode) -> frozenset:
        """Every identifier spelled in `statement` (a superset of what `_first` can find: it
        finds only `Name` nodes), computed once per statement."""
        memo = self._spelled_memo
        names = memo.get(id(statement))
        if names is None:
            names = memo[id(statement)] = frozenset(_names_in(statement))
        return names


def _ends_the_path(statement: cst.CSTNode) -> bool:
    """`return ...` / `raise ...`: the statements after it (in this block and the ones around
    it) do not run after it, so what they read was not donated on this path."""
    return isinstance(statement, cst.SimpleStatementLine) and any(
        isinstance(small, (cst.Return, cst.Raise)) for small in statement.body)


def _names_in(node: cst.CSTNode) -> set[str]:
    """The values of the `Name` nodes under `node`, found past the trivia (`inner_nodes`:
    whitespace, commas and brackets are most of a statement's nodes, and hold no name)."""
    found: set[str] = set()
    stack = [node]
    while stack:
        for child in inner_nodes(stack.pop()):
            if type(child) is cst.Name:
                found.add(child.value)
            else:
                stack.append(child)
    return found


def _leaves(block: cst.CSTNode) -> bool:
    """A `break` or `return` in a loop body (outside nested defs): maybe no next iteration."""
    stack = [block]
    while stack:
        node = stack.pop()
        kind = type(node)
        if kind is cst.Break or kind is cst.Return:
            return True
        if kind is cst.For or kind is cst.While:
            if _leaves_return(node):
                return True
        elif kind is not cst.FunctionDef and kind is not cst.ClassDef:
            stack.extend(statement_parts(node))
    return False


def _leaves_return(loop: cst.CSTNode) -> bool:
    """A `return` inside an inner loop still leaves the outer one (its `break` does not)."""
    stack = [loop]
    while stack:
        node = stack.pop()
        kind = type(node)
        if kind is cst.Return:
            return True
        if kind is not cst.FunctionDef and kind is not cst.ClassDef:
            stack.extend(statement_parts(node))
    return False


def _checks_deletion(call: cst.Call) -> bool:
    func = call.func
    last = func.attr.value if isinstance(func, cst.Attribute) else func.value if isinstance(func, cst.Name) else ""
    return "deleted" in last.lower()


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
            if any(n.value == name for n in target_names(t)):
                return True
    return False


def _first(node: cst.CSTNode, name: str, ctx, reads: bool):
    """The first ("read", Name) (if `reads`) or ("store", node) of `name` in `node`, in
    evaluation order, or None; nested defs, lambdas and classes are not entered (their bodies
    run later, if ever). Plain recursion that stops at the first event (a generator per node
    costs several times more), and node types compared exactly (libcst's classes are ABCs:
    `isinstance` is slow, and the parser makes no subclasses of them)."""
    kind = type(node)
    if kind is cst.Name:
        return ("read", node) if reads and node.value == name else None
    if kind is cst.Lambda or kind is cst.ClassDef:
        return None
    if kind is cst.FunctionDef:
        return ("store", node) if node.name.value == name else None
    if kind is cst.Attribute:
        value = node.value
        if node.attr.value in JAX_DONATED_METADATA and _entry_of(value, name):
            return None  # metadata survives the deletion (`x.shape`, `batch["x"].shape`)
        return _first(value, name, ctx, reads)
    if kind is cst.Arg:
        return _first(node.value, name, ctx, reads)
    if kind is cst.Call:
        if _checks_deletion(node):
            return None  # `self.assertDeleted(x)`: asks whether the donation happened
        func = node.func
        if type(func) is cst.Attribute and func.attr.value in JAX_ABSTRACT_USES:
            return _first(func.value, name, ctx, reads)  # `step.lower(x)`: only shapes and dtypes
    elif kind is cst.With:
        if any(expects_error(ctx, item.item) for item in node.items):
            return None  # `with self.assertRaises(RuntimeError):` reads it to see the error
    elif kind is cst.Import or kind is cst.ImportFrom:
        if isinstance(node.names, cst.ImportStar):
            return None
        for alias in node.names:
            bound = alias.asname.name if alias.asname else alias.name
            if isinstance(bound, cst.Name) and bound.value == name:
                return ("store", node)
        return None
    elif kind is cst.Assign:
        event = _first(node.value, name, ctx, reads)
        if event is None:
            for t in node.targets:
                event = _stored(t.target, name, ctx, reads)
                if event is not None:
                    break
        return event
    elif kind is cst.AnnAssign:
        if node.value is None:
            return None
        return _first(node.value, name, ctx, reads) or _stored(node.target, name, ctx, reads)
    elif kind is cst.AugAssign:
        return _first(node.value, name, ctx, reads) or _first(node.target, name, ctx, reads)
    elif kind is cst.NamedExpr:
        return _first(node.value, name, ctx, reads) or _stored(node.target, name, ctx, reads)
    elif kind is cst.For:
        return _first(node.iter, name, ctx, reads) or _stored(node.target, name, ctx, reads) or \
            _first(node.body, name, ctx, reads) or \
            (_first(node.orelse, name, ctx, reads) if node.orelse is not None else None)
    elif kind is cst.WithItem:
        event = _first(node.item, name, ctx, reads)
        if event is None and node.asname is not None:
            event = _stored(node.asname.name, name, ctx, reads)
        return event
    elif kind is cst.Del:
        if type(node.target) is cst.Subscript and _entry_of(node.target, name):
            return None  # `del batch["mask"]`: removes a key of the Python container, reads no array
        return _stored(node.target, name, ctx, reads)
    elif kind in _COMPREHENSIONS:
        # The comprehension's own variables shadow the name.
        f = node.for_in
        while f is not None:
            if any(n.value == name for n in target_names(f.target)):
                return _first(node.for_in.iter, name, ctx, reads)
            f = f.inner_for_in
    for child in node.children:
        if type(child) not in TRIVIA:  # (whitespace and punctuation: most children)
            event = _first(child, name, ctx, reads)
            if event is not None:
                return event
    return None


_COMPREHENSIONS = frozenset({cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.DictComp})


def _entry_of(expr: cst.BaseExpression, name: str) -> bool:
    """`expr` is `name` or an entry of it by literal keys (`name["x"]`, `name[0]["y"]`)."""
    while type(expr) is cst.Subscript:
        if not all(type(e.slice) is cst.Index and type(e.slice.value) in (cst.SimpleString, cst.Integer)
                   for e in expr.slice):
            return False
        expr = expr.value
    return type(expr) is cst.Name and expr.value == name


def _stored(target: cst.CSTNode, name: str, ctx, reads: bool):
    """`_first` for an assignment target: a Name there is a store."""
    kind = type(target)
    if kind is cst.Name:
        return ("store", target) if target.value == name else None
    if kind is cst.Tuple or kind is cst.List:
        for el in target.elements:
            event = _stored(el.value, name, ctx, reads)
            if event is not None:
                return event
        return None
    if kind is cst.StarredElement:
        return _stored(target.value, name, ctx, reads)
    return _first(target, name, ctx, reads)  # `x[0] = ...`, `obj.attr = ...`: reads the object
