"""Values that escape the graph (STG2xx)."""

from __future__ import annotations

from stagelint.context import short_code
from stagelint.rules.base import Rule
from stagelint.stores import store_sites


class LeakedTensor(Rule):
    """
    ## What it does
    Flags a tensor computed in staged code that is stored where it outlives the call: a global
    or nonlocal name, an attribute of `self` or of another non-local object, or a container
    that is not local to the call.

    ## Why is this bad?
    Inside a `tf.function` tensors are symbolic graph tensors. Stored outside, the value is a
    `SymbolicTensor` with no value: `.numpy()` raises `AttributeError`, and using it in another
    function raises `TypeError: ... is out of scope and cannot be used here`. It is stored
    once per trace, not once per call.

    ## Example
    ```python
    x = None

    @tf.function
    def leaky_function(a):
        global x
        x = a + 1          # a symbolic tensor escapes
        return a + 2
    ```

    ## Use instead
    ```python
    @tf.function
    def function(a):
        x = a + 1
        return a + 2, x    # every output is a return value
    ```
    """

    code = "STG201"
    name = "leaked-tensor"
    message = "tensor `{value}` is stored in {place}, which outlives {func}: a symbolic tensor that is out of scope after the call; return it instead"
    valid = (
        """
        import tensorflow as tf

        @tf.function
        def f(a):
            x = a + 1
            results = [x]
            results.append(a * 2)
            return a + 2, x, results
        """,
        """
        import tensorflow as tf

        class Accumulator(tf.Module):
            def __init__(self):
                self.total = tf.Variable(0.0)

            @tf.function
            def add(self, x):
                self.total.assign_add(tf.reduce_sum(x))
                return self.total
        """,
    )
    invalid = (
        """
        import tensorflow as tf

        x = None

        @tf.function
        def leaky_function(a):
            global x
            x = a + 1  # STG201
            return a + 2

        correct_a = leaky_function(tf.constant(1))
        """,
        """
        import tensorflow as tf

        class MyClass:
            def __init__(self):
                self.field = None

        external_list = []
        external_object = MyClass()

        @tf.function
        def leaky_function():
            a = tf.constant(1)
            external_list.append(a)  # STG201
            external_object.field = a  # STG201
        """,
        """
        import tensorflow as tf

        class Attention(tf.keras.layers.Layer):
            def call(self, q, v):
                scores = tf.matmul(q, v, transpose_b=True)
                self.last_scores = scores  # STG201
                return tf.matmul(tf.nn.softmax(scores), v)
        """,
    )

    def finish(self) -> None:
        for site in store_sites(self.ctx):
            if not site.tensor.possible:
                continue
            value = short_code(site.value) if site.value is not None else _stored_arg(site)
            self.report(site.node, value=value, place=site.place, _root=site.root_kind,
                        _definite=site.tensor.definite, _params=sorted(site.tensor.params), function=site.func)

    @classmethod
    def confirm(cls, candidate, project, module) -> bool:
        key = (module.module, candidate.function)
        if candidate.fields.get("_root") == "param" and project.entries.get(key) is None:
            return False
        if candidate.fields.get("_definite"):
            return True
        return bool(set(candidate.fields.get("_params", ())) & project.tensor_params(key))


def _stored_arg(site) -> str:
    args = getattr(site.node, "args", ())
    return short_code(args[0].value) if args else "..."
