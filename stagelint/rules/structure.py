"""Structure the tracer cannot handle: recursion, variables created per trace (STG4xx)."""

from __future__ import annotations

import libcst as cst

from stagelint import facts as F
from stagelint.context import short_code
from stagelint.rules.base import Rule


class RecursiveFunction(Rule):
    """
    ## What it does
    Flags a call in staged code that leads back to a function already being traced: direct
    recursion (`f` calls `f`) and mutual recursion through helpers (`a` -> `b` -> `a`), across
    modules of the project.

    ## Why is this bad?
    `tf.function` traces calls by running them. With a tensor argument the base case is a
    tensor condition, AutoGraph traces both branches, and tracing never ends:
    `StagingError: ... RecursionError: maximum recursion depth exceeded`. With a Python
    argument it "works" by tracing once per depth, building a new graph for every value.

    ## Example
    ```python
    @tf.function
    def recursive_fn(n):
        if n > 0:
            return recursive_fn(n - 1)
        return 1
    ```

    ## Use instead
    ```python
    @tf.function
    def iterative_fn(n):
        result = tf.constant(1)
        while n > 0:          # AutoGraph turns this into a tf.while_loop
            n -= 1
        return result
    ```
    """

    code = "STG401"
    name = "recursive-function"
    message = "recursive call {cycle} in {func}: tf.function cannot trace recursion (StagingError/RecursionError, or one trace per depth); rewrite it as a loop"
    valid = (
        """
        import tensorflow as tf

        def helper(x):
            return x * 2

        @tf.function
        def f(n):
            x = tf.constant(1)
            while n > 0:
                x = helper(x)
                n -= 1
            return x
        """,
        """
        import tensorflow as tf

        class Block(tf.keras.layers.Layer):
            def call(self, x):
                return super().call(x) + 1
        """,
    )
    invalid = (
        """
        import tensorflow as tf

        @tf.function
        def recursive_fn(n):
            if n > 0:
                return recursive_fn(n - 1)  # STG401
            else:
                return 1
        """,
        """
        import tensorflow as tf

        def is_even(n):
            return n == 0 or is_odd(n - 1)

        def is_odd(n):
            return n != 0 and is_even(n - 1)  # STG401

        @tf.function
        def parity(n):
            return is_even(n)
        """,
    )

    @classmethod
    def project_candidates(cls, project):
        """Back edges of a depth-first walk over the staged call graph: each closes a cycle."""
        color: dict = {}
        out = []
        for entry in sorted(project.entries):
            if entry in color:
                continue
            stack = [(entry, iter(list(project.edges(entry))))]
            path = [entry]
            color[entry] = "grey"
            while stack:
                key, edges = stack[-1]
                advanced = False
                for edge, callee in edges:
                    state = color.get(callee)
                    if state == "grey":
                        cycle = path[path.index(callee):] + [callee]
                        names = " -> ".join(f"`{project.display(k, key[0])}`" for k in cycle)
                        out.append((key[0], F.Candidate(cls.code, key[1], edge.span, {"cycle": names})))
                    elif state is None:
                        color[callee] = "grey"
                        path.append(callee)
                        stack.append((callee, iter(list(project.edges(callee)))))
                        advanced = True
                        break
                if not advanced:
                    color[key] = "black"
                    stack.pop()
                    path.pop()
        return out


class VariableCreation(Rule):
    """
    ## What it does
    Flags `tf.Variable(...)`, `add_weight(...)`, `tf.random.Generator` and the construction of
    Keras layers, models, metrics and optimizers in staged code, unless they sit under a
    first-call guard: `if self.v is None:`, `if not self.built:`, `if not hasattr(self, "v"):`
    (also when the guard is in a caller).

    ## Why is this bad?
    A tf.function may create variables only on its first trace. An unconditional
    `tf.Variable` raises `ValueError: tf.function only supports singleton tf.Variables created
    on the first call`; a Keras layer built inside the function does the same.

    ## Example
    ```python
    @tf.function
    def f(x):
        v = tf.Variable(1.0)
        return v * x
    ```

    ## Use instead
    ```python
    class Scale(tf.Module):
        def __init__(self):
            self.v = None

        @tf.function
        def __call__(self, x):
            if self.v is None:          # created once, on the first call
                self.v = tf.Variable(1.0)
            return self.v * x
    ```
    Or create the variable outside the function and pass it in or capture it.
    """

    code = "STG402"
    name = "variable-creation"
    message = "`{what}` creates a variable each time {func} is traced; tf.function allows it only on the first call (ValueError): create it outside or under `if self.v is None:`"
    valid = (
        """
        import tensorflow as tf

        class Count(tf.Module):
            def __init__(self):
                self.count = None

            @tf.function
            def __call__(self):
                if self.count is None:
                    self.count = tf.Variable(0)
                return self.count.assign_add(1)
        """,
        """
        import tensorflow as tf

        class Dense(tf.keras.layers.Layer):
            def build(self, shape):
                self.w = self.add_weight(shape=(shape[-1], 4))

            def call(self, x):
                if not self.built:
                    self._create()
                return tf.matmul(x, self.w)

            def _create(self):
                self.b = tf.Variable(tf.zeros([4]))
        """,
        """
        import tensorflow as tf

        v = tf.Variable(1.0)
        layer = tf.keras.layers.Dense(3)

        @tf.function
        def f(x):
            v.assign_add(1.0)
            return layer(x) * v
        """,
    )
    invalid = (
        """
        import tensorflow as tf

        @tf.function
        def f(x):
            v = tf.Variable(1.0)  # STG402
            return v
        """,
        """
        import tensorflow as tf

        class Head(tf.keras.Model):
            def call(self, x):
                return tf.keras.layers.Dense(3)(x)  # STG402
        """,
        """
        import tensorflow as tf

        def make_state():
            return tf.Variable(0)  # STG402

        @tf.function
        def step(x):
            state = make_state()
            return state.assign_add(x)
        """,
    )

    def visit_Call(self, node: cst.Call) -> None:
        ctx = self.ctx
        if ctx.function is None or ctx.guard_depth:
            return
        fw = ctx.framework
        if any(fw.creates_variables(q) for q in ctx.qualified_names(node.func)):
            self.report(node, what=f"{short_code(node.func)}(...)")
        elif isinstance(node.func, cst.Attribute) and node.func.attr.value in fw.variable_creating_methods:
            self.report(node, what=f"{short_code(node.func)}(...)")

    @classmethod
    def confirm(cls, candidate, project, module) -> bool:
        return (module.module, candidate.function) in project.unguarded
