"""Python state captured at trace time (STG3xx)."""

from __future__ import annotations

import libcst as cst
from libcst.metadata import ImportAssignment

from stagelint.frameworks import MUTATING_METHODS
from stagelint.rules.base import Rule


class StaleGlobal(Rule):
    """
    ## What it does
    Flags staged code that reads a module-level or enclosing-scope Python variable which is
    rebound (`foo = 100`, `global foo; foo = ...`, `foo += 1`) or mutated in place
    (`foo.append(...)`, `foo[k] = v`) somewhere else.

    ## Why is this bad?
    The value is captured when the function is traced and baked into the graph as a constant.
    Later changes are not seen: eager code returns 101 where the staged function still
    returns 2. Only a new trace (for example a new input dtype) picks the new value up.

    Not flagged: names bound once (constants), imports, functions and classes, names bound in
    exclusive branches (`if ...: X = 1 else: X = 2`), and `tf.Variable`s or Keras objects,
    which are read at run time.

    ## Example
    ```python
    foo = 1

    @tf.function
    def buggy_add():
        return 1 + foo

    foo = 100      # buggy_add() still returns 2
    ```

    ## Use instead
    ```python
    @tf.function
    def recommended_add(foo):
        return 1 + foo

    foo = tf.Variable(1)   # or a tf.Variable updated with foo.assign(100)
    ```
    """

    code = "STG301"
    name = "stale-global"
    message = "{func} reads {scope} `{name}`, which is {change}; its value is frozen at trace time, so pass it as an argument or keep it in a `tf.Variable`"
    valid = (
        """
        import tensorflow as tf

        SCALE = 2
        LAYERS = (1, 2)

        @tf.function
        def f(x):
            return x * SCALE + len(LAYERS)
        """,
        """
        import tensorflow as tf

        foo = tf.Variable(1)

        @tf.function
        def variable_add():
            return 1 + foo

        foo.assign(100)
        """,
        """
        import tensorflow as tf

        try:
            import scipy
            HAVE_SCIPY = True
        except ImportError:
            HAVE_SCIPY = False

        if HAVE_SCIPY:
            MODE = "fast"
        else:
            MODE = "slow"

        @tf.function
        def f(x):
            if MODE == "fast" and HAVE_SCIPY:
                return x
            return -x
        """,
    )
    invalid = (
        """
        import tensorflow as tf

        @tf.function
        def buggy_add():
            return 1 + foo  # STG301

        foo = 1
        print(buggy_add())
        foo = 100
        print(buggy_add())
        """,
        """
        import tensorflow as tf

        history = []

        def record(value):
            history.append(value)

        @tf.function
        def f(x):
            return x * len(history)  # STG301
        """,
        """
        import tensorflow as tf

        def make_scaled():
            scale = 1.0

            @tf.function
            def scaled(x):
                return x * scale  # STG301

            scale = 2.0
            return scaled
        """,
    )

    def __init__(self, ctx):
        super().__init__(ctx)
        self.reads = []  # (function, Name node, bindings)
        self.mutated: dict[int, set[str]] = {}  # binding node id -> functions that mutate it

    def visit_Name(self, node: cst.Name) -> None:
        ctx = self.ctx
        func = ctx.function
        if func is None or not ctx.in_staged_context:
            return
        kind = ctx.binding_kind(node, func)
        if kind not in ("global", "closure"):
            return
        if func.declared.get(node.value):
            return  # the function writes it itself: STG102/STG201
        self.reads.append((func, node, ctx.bindings_of(node), kind))

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if isinstance(func, cst.Attribute) and func.attr.value in MUTATING_METHODS:
            self._mutated(func.value)

    def visit_Assign(self, node: cst.Assign) -> None:
        for t in node.targets:
            if isinstance(t.target, cst.Subscript):
                self._mutated(t.target.value)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        if isinstance(node.target, cst.Subscript):
            self._mutated(node.target.value)

    def _mutated(self, obj: cst.BaseExpression) -> None:
        """Record that a function changes the object a name is bound to (in place)."""
        ctx = self.ctx
        if ctx.function is None:
            return  # module-level setup runs at import, before anything is traced
        while isinstance(obj, cst.Subscript):
            obj = obj.value
        if isinstance(obj, cst.Name):
            for b in ctx.referents(obj) or ():
                node = getattr(b, "node", None)
                if node is not None:
                    self.mutated.setdefault(id(node), set()).add(ctx.function.qualname)

    def finish(self) -> None:
        ctx = self.ctx
        fw = ctx.framework
        reported = set()
        for func, name, bindings, kind in self.reads:
            if (func.qualname, name.value) in reported or not bindings:
                continue
            nodes = []
            skip = False
            for b in bindings:
                node = getattr(b, "node", None)
                if isinstance(b, ImportAssignment) or not isinstance(node, cst.Name):
                    skip = True  # imports, defs, classes, parameters of an enclosing function
                    break
                value = ctx.bound_values.get(id(node))
                if isinstance(value, cst.Call):
                    names = ctx.qualified_names(value.func)
                    if any(fw.creates_variables(q) for q in names):
                        skip = True  # a tf.Variable / Keras object: read at run time
                        break
                nodes.append(node)
            if skip or not nodes:
                continue
            change = self._change(func, nodes, kind)
            if change is None:
                continue
            reported.add((func.qualname, name.value))
            self.report(name, function=func, name=name.value, change=change,
                        scope="global" if kind == "global" else "the enclosing function's variable")

    def _change(self, func, nodes, kind) -> str | None:
        ctx = self.ctx
        if kind == "global":
            for node in nodes:
                if id(node) not in ctx.branch_paths:
                    return "rebound inside a function"
        for node in nodes:
            if id(node) in ctx.rebinding_targets or id(node) in ctx.loop_bound:
                return "rebound in a loop or by an augmented assignment"
        for i, a in enumerate(nodes):
            for b in nodes[i + 1:]:
                if not ctx.exclusive(a, b):
                    line = ctx.position(b).line
                    return f"rebound on line {line}"
        for node in nodes:
            others = self.mutated.get(id(node), set()) - {func.qualname}
            if others:
                return f"mutated in `{sorted(others)[0]}`"
        return None
