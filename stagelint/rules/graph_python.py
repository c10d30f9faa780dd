"""Python that cannot work on symbolic tensors, and ops a graph prunes (STG6xx)."""

from __future__ import annotations

import libcst as cst

from stagelint.analysis.literals import keyword_constant
from stagelint.analysis.caught import WatchesTry
from stagelint.analysis.guards import type_dispatch
from stagelint.analysis.keras_models import keras_layer, keras_model
from stagelint.analysis.proof import HEURISTIC, TRUE, fact, with_staging_certainty
from stagelint.analysis.tracers import origin as tracer_origin
from stagelint.analysis.context import short_code
from stagelint.analysis.values import VARIABLE, kind_of, one_tensor, tensor_fact
from stagelint.frameworks import (
    EAGER_ONLY_METHODS,
    ITERATING_BUILTINS,
    JAX,
    JAX_PRIMAL_OPS,
    KERAS_EAGER_LAYER_METHODS,
    KERAS_EAGER_LOOPS,
    NUMPY_SHAPE_CONSTRUCTORS,
    NUMPY_STATIC_FUNCTIONS,
    TF_BOOL_ERROR,
    TF_ITERATE_ERROR,
    is_stateful_op,
    keras_layer_method_error,
    pruned_when_unused,
    keras_loop_error,
    FUNCTION_PYTHON_ATTRIBUTE,
    INDEXED_UPDATE_OPS,
    indexed_update_fits,
)
from stagelint.analysis.static_shapes import indexed_update_shapes, shapes_per_call
from stagelint.analysis.dependence import params_feeding
from stagelint.analysis.flags import with_flag_step
from stagelint.analysis.jaxrules import confirm_concrete_value, confirm_tracer_as_python_value, jax_branch_test
from stagelint.analysis.nnx import param_attributes
from stagelint.analysis.pytrees import reads_through_locals
from stagelint.analysis.jaxrules import compares_with_none
from stagelint.rules.base import Rule
from stagelint.analysis.tensors import Tensorness, tensorness, value_of


def _tensor_confirmed(candidate, project, module, keras_inputs: bool = True, op_operands: str = TRUE):
    """Definitely a tensor, or built from parameters the project shows are tensors: the verdict
    with that fact for the finding's proof, or False."""
    fact = tensor_fact(project, (module.module, candidate.function), candidate, keras_inputs, op_operands)
    return {"_because": [fact]} if fact is not None else False


def _tensor_fields(t: Tensorness) -> dict:
    return {"_definite": t.definite, "_params": sorted(t.params)}


class _TypeDispatch:
    """Keeps `dispatch`, the depth of if/elif/else chains that dispatch on a value's type
    (`isinstance(x, np.ndarray)`, `if not isinstance(shape, tf.Tensor):`, `type(inputs) is list`,
    `hasattr(x, "numpy")`): code written for several kinds of input, each branch for the kinds its
    test lets through. A symbolic tensor is an instance of `tf.Tensor` while traced (observed with
    TensorFlow 2.21), so a branch for lists, NumPy arrays or Python shapes is not what a traced
    tensor runs; the model does not follow which kind takes which branch, so it says nothing there."""

    def __init__(self, ctx):
        super().__init__(ctx)
        self.dispatch = 0
        self._dispatching: list[bool] = []

    def visit_If(self, node: cst.If) -> None:
        flag = type_dispatch(self.ctx, node.test)
        self._dispatching.append(flag)
        self.dispatch += flag

    def leave_If(self, node: cst.If) -> None:
        self.dispatch -= self._dispatching.pop()


class EagerOnlyCall(_TypeDispatch, WatchesTry, Rule):
    """
    ## What it does
    Flags, in staged code, `.numpy()` on a tensor or a `tf.Variable`, `.item()` and `.tolist()`
    on a tensor, and NumPy functions called with a tensor argument (`np.array(x)`,
    `np.asarray(x)`, `np.sum(x)`, `np.float32(x)`, ...).

    Also flags Keras's own loops called on a Keras model in staged code: `model.predict(x)`,
    `predict_on_batch`, `evaluate` and `fit`, also through `self` in a method of a `keras.Model`
    subclass (`self.predict(x)`) and on a model the object holds (`self.model.predict(x)`);
    `train_on_batch` and `test_on_batch` too on a Keras 2 model (`tf_keras`). The receiver must be
    shown to be a Keras model: built from `keras.Sequential`/`keras.Model`, or an instance of a
    project class that derives from one, whose method is Keras's and not the project's own.
    Likewise `layer.get_weights()` on a Keras layer or model in staged code: it reads each
    variable's value as a NumPy array (Keras 3 raises NotImplementedError there, Keras 2
    RuntimeError); read the variables themselves (`layer.weights`, `layer.kernel`).

    Not flagged: NumPy on Python values and static metadata (`np.pi`, `np.sqrt(2.0)`,
    `np.prod(x.shape)`, `np.float32` as a dtype); `.numpy()` on a module-level eager tensor,
    which is a constant captured at trace time; code inside `tf.py_function`/`tf.numpy_function`,
    which runs eagerly.

    Under TensorFlow the default reports a value known to be a tensor: an op's result, or a
    parameter its callers pass a tensor to (or an input signature, a Keras `call`'s input, an op
    it is given to where no caller is shown). A parameter of a function the project calls, none
    of whose callers passes a tensor there, whose only evidence is an op it is given to
    (`tf.range(1, n + 1)`), is a preview finding: ops take Python numbers too, and a static
    dimension (`x.shape[1]`) is a Python int while traced (TF 2.21), on which NumPy works.


    Under JAX: `float()`, `int()`, `.item()` and NumPy on a tracer (ConcretizationTypeError,
    TracerArrayConversionError); `np.prod(x.shape)`, `x.ndim`, `len(x)` are static and fine, and
    so is a conversion in the body of a `try` whose handler catches that error (names it, or
    `TypeError`, `Exception`, a bare `except:`: every tracer error is a `TypeError`). NumPy functions
    that call their first argument's own method (`np.min(x, 0)`, `np.sum(x)`, `np.reshape(x,
    (3, 3))`, `np.transpose(x)`: `frameworks.NUMPY_ARRAY_METHOD_CALLS`) run JAX's method on a
    tracer given first and work; `np.sum([x, y])` and `np.clip(x, 0, 1)` raise. Under `jax.grad`
    or `jax.vmap` alone (no jit around them) only what is computed from the arguments they
    transform is a tracer: `float(jnp.sum(grid))` of a `grid = jnp.linspace(...)` works there
    (JAX 0.10.2), and `lax.stop_gradient(x)` is the primal there, concrete even of a
    differentiated `x` (`np.asarray(lax.stop_gradient(x))` works under `jax.grad` alone, not under
    `jax.vmap` or jit). The default reports such a conversion when the code shows the value computed
    from a traced parameter (`float(jnp.sum(w))` of the differentiated `w`), or anywhere under
    `jax.jit`, `pmap` or a `lax` body, where every operation's result is a tracer; the preview tier
    adds the operation results it cannot trace back (`analysis.dependence`). A call reached only
    under `if debug_mode:` on a parameter whose default (False, None, 0) no traced call the project
    shows overrides is a preview finding too: a transformation passes what its caller gives, so the
    default holds and the branch is not traced (`analysis.flags`).

    ## Why is this bad?
    Inside a `tf.function` tensors are symbolic: they have a shape and a dtype but no value
    until the graph runs. `.numpy()` raises `AttributeError: 'SymbolicTensor' object has no
    attribute 'numpy'` (on a variable, `NotImplementedError: numpy() is only available when eager
    execution is enabled`), and NumPy raises `NotImplementedError: Cannot convert a symbolic
    tf.Tensor to a numpy array`, or, for a tensor in the shape `np.zeros`, `np.ones`, `np.empty`
    or `np.full` needs as Python integers (`np.zeros((tf.shape(x)[0], 3))`), a `TypeError`
    (`'SymbolicTensor' object cannot be interpreted as an integer`; TF 2.21). The same code works
    in eager mode, so it breaks only once it is staged.

    `Model.predict`, `evaluate` and `fit` are eager loops that make their own `tf.function` and
    return NumPy or Python values. Under Keras 3 (TF 2.21) `predict` and `predict_on_batch` raise
    `AttributeError: 'SymbolicTensor' object has no attribute 'numpy'` while tracing, and
    `evaluate` and `fit` raise `OperatorNotAllowedInGraphError`; Keras 2 raises `RuntimeError:
    Detected a call to Model.predict inside a tf.function` for all six. (Keras 3 runs
    `train_on_batch` and `test_on_batch` as one step inside the enclosing graph.) Calling the
    model itself, `model(x, training=False)`, is what works there.

    ## Example
    ```python
    @tf.function
    def normalise(x):
        mean = np.mean(x)            # NotImplementedError while tracing
        return x - mean
    ```

    ## Use instead
    ```python
    @tf.function
    def normalise(x):
        return x - tf.reduce_mean(x)
    ```
    If the code must run in NumPy, wrap it in `tf.numpy_function`. In place of
    `model.predict(x)` in a `tf.function`, call the model: `model(x, training=False)`.
    """

    code = "STG601"
    trace_error = True
    preview_under = {
        "jax": "Held back on repositories nobody here tuned on (bench/fresh_audit_notes.md), "
               "it was right 0 times in 13 findings in JAX code: the values were concrete or Python "
               "values, or the NumPy call works on a tracer.",
        "tensorflow": "Held back on repositories nobody here tuned on (bench/fresh_audit_notes.md), "
                      "it was right 2 times in 14 findings in TensorFlow code (the held-back halves "
                      "re-read at one main, and the eleventh audit's): the `.numpy()` calls sat "
                      "under a verbose flag the traced callers leave at its False default.",
    }
    name = "eager-only-call"
    message = "`{call}` {needs}, but in {func} {value_is}: {error} at trace time; {instead}"
    jax_message = "`{call}` needs a concrete value, but in {func} `{value}` is a JAX tracer: ConcretizationTypeError / TracerArrayConversionError at trace time; use `jax.numpy` ops, mark the argument static (`static_argnums`), or use `jax.pure_callback`"
    valid = (
        """
        import numpy as np
        import tensorflow as tf

        @tf.function
        def f(x):
            size = np.prod(x.shape)
            return tf.cast(x, np.float32) * np.pi / np.sqrt(2.0) + size

        y = f(tf.ones([2, 2])).numpy()
        """,
        """
        import numpy as np
        import tensorflow as tf

        def np_sum(x):
            return np.sum(x)

        @tf.function
        def f(x):
            return tf.numpy_function(np_sum, [x], tf.float32)
        """,
        """
        import numpy as np
        import jax

        @jax.jit
        def scale(x):
            return x / np.prod(x.shape)    # JAX: shapes are static
        """,
        """
        import keras
        import tensorflow as tf

        model = keras.Sequential([keras.layers.Dense(2)])
        model.compile(optimizer="sgd", loss="mse")

        @tf.function
        def step(x, y):
            loss = model.train_on_batch(x, y)   # Keras 3 runs one step in the graph
            return model(x, training=False), loss

        class Agent(keras.Model):
            def predict(self, x):           # the project's own `predict`
                return self(x, training=False)

            @tf.function
            def act(self, x):
                return self.predict(x)

        preds = model.predict(tf.ones([2, 3]))   # eager: fine
        """,
    )
    invalid = (
        """
        import numpy as np
        import tensorflow as tf

        @tf.function
        def normalise(x):
            x = tf.cast(x, tf.float32)
            mean = np.mean(x)  # STG601
            return x - mean
        """,
        """
        import tensorflow as tf

        def to_list(t):
            return t.numpy().tolist()  # STG601

        @tf.function
        def f(x):
            y = tf.square(x)
            return tf.constant(to_list(y))
        """,
        """
        import jax

        @jax.jit
        def accuracy(correct, total):
            return float(correct) / total  # STG601
        """,
        """
        import keras
        import tensorflow as tf

        class Agent(keras.Model):
            def __init__(self):
                super().__init__()
                self.dense = keras.layers.Dense(2)

            def call(self, x):
                return self.dense(x)

            @tf.function
            def act(self, x):
                return self.predict(x)  # STG601
        """,
    )

    def report(self, node, **fields) -> None:
        fields.setdefault("needs", "needs a concrete value")
        fields.setdefault("value_is", f"`{fields.get('value')}` is a symbolic tensor")
        super().report(node, **fields, **self.caught_fields(node))

    def _primal(self, expr) -> dict:
        """`lax.stop_gradient(x)`: the primal value under differentiation alone (`frameworks.JAX_PRIMAL_OPS`)."""
        primal = isinstance(expr, cst.Call) and bool(self.ctx.qualified_names(expr.func) & JAX_PRIMAL_OPS)
        return {"_primal": True} if primal else {}

    def _from(self, expr) -> list[str]:
        """The parameters the value is computed from (under `jax.grad` / `jax.vmap` alone only
        those make it a tracer: `analysis.dependence.op_result_fact`)."""
        return sorted(params_feeding(self.ctx, expr, self.ctx.function))

    def visit_Call(self, node: cst.Call) -> None:
        ctx = self.ctx
        func = ctx.function
        if func is None or not ctx.in_staged_context or self.dispatch:
            return
        if isinstance(node.func, cst.Attribute) and node.func.attr.value in EAGER_ONLY_METHODS:
            self._method(node, node.func.attr.value, node.func.value)
            return
        if isinstance(node.func, cst.Attribute) and node.func.attr.value in KERAS_EAGER_LOOPS:
            self._keras_loop(node, node.func.attr.value, node.func.value)
            return
        if isinstance(node.func, cst.Attribute) and node.func.attr.value in KERAS_EAGER_LAYER_METHODS \
                and not node.args:
            self._keras_loop(node, node.func.attr.value, node.func.value, layer=True)
            return
        names = ctx.qualified_names(node.func)
        for q in names:
            if q.startswith("numpy.") and not q.startswith("numpy.random.") and q not in NUMPY_STATIC_FUNCTIONS:
                self._numpy(node, q)
                return
        conversion = names & {"builtins.float", "builtins.int", "builtins.complex"}
        if conversion and node.args and node.args[0].keyword is None:
            # (under tf.function these are STG602's TypeError; JAX raises ConcretizationTypeError)
            t = tensorness(ctx, node.args[0].value, func)
            if t.possible:
                attrs = {}
                if t.params and not t.definite:
                    # `int(state.num_steps)`: which attributes of the parameters it reads (a
                    # `struct.field(pytree_node=False)`, aux data: Python values under jit)
                    reads = param_attributes(ctx, node.args[0].value, func) or reads_through_locals(
                        ctx, node.args[0].value, func)
                    attrs = {"_attrs": reads} if reads else {}
                self.report(node, call=f"{min(conversion)[9:]}(...)", value=short_code(node.args[0].value),
                            error="", instead="", _jax_only=True, _from=self._from(node.args[0].value),
                            **_tensor_fields(t), **attrs, **self._primal(node.args[0].value))

    def _method(self, node: cst.Call, method: str, receiver: cst.BaseExpression) -> None:
        ctx = self.ctx
        func = ctx.function
        call = f"{short_code(receiver)}.{method}()"
        if isinstance(receiver, cst.Name) and ctx.binding_kind(receiver, func) in ("global", "closure", "import"):
            if kind_of(ctx, receiver, func) == VARIABLE:
                self.report(node, call=call, value=short_code(receiver), _definite=True, _variable=True,
                            error="NotImplementedError (a variable has no value while tracing)",
                            instead="read it as a tensor (`v` or `v.read_value()`) and use TensorFlow ops")
            return  # a module-level eager tensor is a captured constant: `.numpy()` works once
        if kind_of(ctx, receiver, func) == VARIABLE:
            self.report(node, call=call, value=short_code(receiver), _definite=True, _variable=True,
                        error="NotImplementedError (a variable has no value while tracing)",
                        instead="read it as a tensor (`v` or `v.read_value()`) and use TensorFlow ops")
            return
        if method == "numpy" and isinstance(receiver, cst.Name) and ctx.binding_kind(receiver, func) == "param":
            # Whatever a staged function receives has no `.numpy()` there: tensors are symbolic.
            t = Tensorness(True)
        else:
            t = tensorness(ctx, receiver, func)
        if t.possible:
            self.report(node, call=call, value=short_code(receiver),
                        error="AttributeError ('SymbolicTensor' object has no attribute '%s')" % method,
                        instead="keep the value a tensor and use TensorFlow ops, or move the code into `tf.py_function`",
                        _from=self._from(receiver), **_tensor_fields(t))

    def _keras_loop(self, node: cst.Call, method: str, receiver: cst.BaseExpression, layer: bool = False) -> None:
        """`model.predict(x)` / `self.predict(x)`: whether the receiver is a Keras model (and which
        Keras) is the project's to say (`confirm`); a name the file does not show is left alone.
        `layer`: a Keras layer's method that reads its weights as NumPy (`layer.get_weights()`)."""
        func = self.ctx.function
        if isinstance(receiver, cst.Name) and receiver.value == func.self_name and func.facts.class_qualname:
            cls = func.facts.class_qualname
        else:
            value = value_of(self.ctx, receiver, func)
            if value.what not in (("model", "layer", "object") if layer else ("model", "object")) or not value.cls:
                return
            cls = value.cls
        shown = short_code(receiver)
        if layer:
            self.report(node, call=f"{shown}.{method}()", value=shown, error="", instead="",
                        needs="reads the weights' values as NumPy arrays", value_is="variables have no NumPy value",
                        _keras_layer=method, _model_class=cls)
            return
        self.report(node, call=f"{shown}.{method}()", value=shown, error="", instead="",
                    needs="runs Keras's own eager loop", value_is="tensors are symbolic",
                    _keras_loop=method, _model_class=cls)

    def _numpy(self, node: cst.Call, q: str) -> None:
        ctx = self.ctx
        t = Tensorness()
        tensor_arg = None
        in_shape = False  # the tensor is the shape a constructor needs as Python ints
        others = False  # a possible tensor in an argument after the first
        for i, arg in enumerate(node.args):
            if value_of(ctx, arg.value, ctx.function).what == "dict":
                continue  # NumPy keeps a dict as one object (`np.sum(metrics, -1)` returns it): no conversion
            at = tensorness(ctx, arg.value, ctx.function)
            if at.possible and tensor_arg is None:
                tensor_arg = arg.value
                in_shape = q in NUMPY_SHAPE_CONSTRUCTORS and (
                    (i == 0 and arg.keyword is None) or (arg.keyword is not None and arg.keyword.value == "shape"))
            others = others or (at.possible and (i > 0 or arg.keyword is not None or arg.star != ""))
            t = t | at
        if t.possible:
            name = short_code(node.func)
            # `np.min(x, 0)` with x first and alone: JAX's `x.min` runs (`jaxrules.confirm_concrete_value`)
            first = node.args[0].value if node.args else None
            listed = isinstance(first, (cst.List, cst.Tuple, cst.ListComp, cst.GeneratorExp)) \
                or (first is not None and value_of(ctx, first, ctx.function).what in ("list", "tuple"))
            receiver = {"_numpy": q} if not others and not listed else {}
            shape = {"needs": "needs a shape of Python integers",
                     "value_is": f"`{short_code(tensor_arg)}` "
                                 + ("holds" if isinstance(tensor_arg, (cst.List, cst.Tuple)) else "is")
                                 + " a symbolic tensor",
                     "error": "TypeError (NumPy cannot read a symbolic tensor as an integer)",
                     "instead": f"use `tf.{name.rsplit('.', 1)[-1].replace('empty', 'zeros').replace('full', 'fill')}`, "
                                "which takes a shape tensor"} if in_shape else {
                     "error": "NotImplementedError (Cannot convert a symbolic tf.Tensor to a numpy array)",
                     "instead": "use the TensorFlow equivalent (`tf.reduce_*`, `tf.math.*`, `tf.experimental.numpy`), or `tf.numpy_function`"}
            attrs = {}
            if t.params and not t.definite:
                # `np.argsort(matrix.offsets)`: which attributes of the parameters it reads (aux data: Python)
                reads = param_attributes(ctx, tensor_arg, ctx.function) or reads_through_locals(
                    ctx, tensor_arg, ctx.function)
                attrs = {"_attrs": reads} if reads else {}
            self.report(node, call=f"{name}(...)", value=short_code(tensor_arg), **shape,
                        _jax_error="TracerArrayConversionError", **receiver, _from=self._from(tensor_arg),
                        **_tensor_fields(t), **attrs, **self._primal(tensor_arg))

    @classmethod
    def confirm(cls, candidate, project, module):
        key = (module.module, candidate.function)
        if candidate.fields.get("_keras_loop"):
            return not project.staged_by_jax(key) and _keras_loop_confirmed(candidate, project, module)
        if candidate.fields.get("_keras_layer"):
            return not project.staged_by_jax(key) and _keras_layer_confirmed(candidate, project, module)
        if project.staged_by_jax(key):
            return with_flag_step(confirm_concrete_value(candidate, project, key), candidate, project, key)
        # A NumPy call works on the Python number a parameter given to an op may be
        # (`np.log(n)` with `tf.range(n)` below and `n = x.shape[1]` passed): a guess there
        return not candidate.fields.get("_jax_only") and _tensor_confirmed(candidate, project, module,
                                                                           op_operands=HEURISTIC)


def _keras_loop_instead(method: str, model: str) -> str:
    if method in ("predict", "predict_on_batch"):
        return f"call the model instead: `{model}(x, training=False)`"
    if method in ("evaluate", "test_on_batch"):
        return f"compute the loss and metrics from `{model}(x, training=False)` with TensorFlow ops, or call `{method}` outside the tf.function"
    return f"write the step with `{model}(x, training=True)`, a `tf.GradientTape` and `optimizer.apply_gradients`, or call `{method}` outside the tf.function"


def _keras_loop_confirmed(candidate, project, module):
    """The receiver is a Keras model whose `method` is Keras's own (not the project's override),
    and the method fails in staged code under the Keras the model is built on."""
    fields = candidate.fields
    method, cls = fields["_keras_loop"], fields["_model_class"]
    found = keras_model(project, cls)
    if found is None or project.resolve(module.module, ("self", cls, method)) is not None:
        return False  # not a Keras model, or the project's own `predict`
    flavour, base = found
    error = keras_loop_error(method, flavour)
    if error is None:
        return False  # Keras 3 runs `train_on_batch` / `test_on_batch` in the enclosing graph
    receiver = fields["value"]
    spelt = base.replace("tensorflow.", "tf.", 1) if base.startswith("tensorflow.") else base
    shown = f"`{cls.rsplit('.', 1)[-1]}`, a subclass of `{spelt}`" if cls != base else f"`{spelt}`"
    because = fact(f"`{receiver}` is a Keras model ({shown}), whose `{method}` is Keras's own loop",
                   candidate.span)
    return {"error": error, "instead": _keras_loop_instead(method, receiver), "_because": [because]}


def _keras_layer_confirmed(candidate, project, module):
    """The receiver is a Keras layer or model whose `method` (`frameworks.KERAS_EAGER_LAYER_METHODS`:
    `get_weights`) is Keras's own, not the project's override: it raises in staged code."""
    fields = candidate.fields
    method, cls = fields["_keras_layer"], fields["_model_class"]
    found = keras_layer(project, cls)
    if found is None or project.resolve(module.module, ("self", cls, method)) is not None:
        return False  # not shown to be a Keras layer, or the project's own `get_weights`
    flavour, base = found
    receiver = fields["value"]
    spelt = base.replace("tensorflow.", "tf.", 1) if base.startswith("tensorflow.") else base
    shown = f"`{cls.rsplit('.', 1)[-1]}`, a subclass of `{spelt}`" if cls != base else f"`{spelt}`"
    because = fact(f"`{receiver}` is a Keras layer ({shown}), whose `{method}()` reads each variable's value "
                   f"as a NumPy array, which only eager execution has", candidate.span)
    return {"error": keras_layer_method_error(method, flavour),
            "instead": f"read the variables themselves (`{receiver}.weights`, `{receiver}.kernel`), which are "
                       f"tensors in the graph", "_because": [because]}


#: The branches checked where no AutoGraph runs (their tests must come from ops).
_BRANCHES = frozenset({"`if`", "`while`", "`... if ... else ...`", "a `for` loop"})


def _names_in(expr):
    stack = [expr]
    while stack:
        node = stack.pop()
        if isinstance(node, cst.Name):
            yield node.value
        elif not isinstance(node, (cst.Lambda, cst.Call)):
            stack.extend(node.children)


def _python_truth(expr) -> bool:
    """A test whose value is a Python bool whatever its operands are: `x is None`, `x is not y`,
    `not <such>`, `<such> and <such>`."""
    if isinstance(expr, cst.Comparison):
        return all(isinstance(c.operator, (cst.Is, cst.IsNot)) for c in expr.comparisons)
    if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Not):
        return _python_truth(expr.expression)
    if isinstance(expr, cst.BooleanOperation):
        return _python_truth(expr.left) and _python_truth(expr.right)
    return False


_BRANCH_INSTEAD = "branch with `tf.cond` / `keras.ops.cond` (or select with `tf.where`)"


class TensorAsPythonValue(_TypeDispatch, WatchesTry, Rule):
    """
    ## What it does
    Flags Python constructs in staged code that need a tensor's value, where AutoGraph does not
    convert them: `assert` on a tensor condition; `bool(t)`; membership tests (`t in [1, 2]`);
    `while True:` loops left by `if <tensor>: break`; and iteration that is not a plain `for`
    statement: `list(t)`, `tuple(t)`, `sum(t)`, `max(t)`, `sorted(t)`, comprehensions over `t`,
    `for i, r in enumerate(t)`, `zip(t, u)`, `a, b = t` and `f(*t)`.

    Where no AutoGraph runs it also flags `if t:`, `while t:`, `x if t else y`, `for` loops over
    a tensor or `tf.range`, and `int(t)`, `float(t)`, `len(t)`: under `autograph=False`, and in
    the methods Keras 3 runs (`call`, `train_step`, `test_step`, `predict_step` of a subclass of
    `keras.layers.Layer` / `keras.Model`, and the helpers they call). Keras 3 runs them as plain
    Python, also when the layer is called from a `tf.function` or trained with `fit` (run with
    TF 2.21 / Keras 3.15 in `tests/test_keras3_autograph.py`: a tensor `if` and a `for` over
    `tf.range` in `call` raise `OperatorNotAllowedInGraphError`, `float(t)` raises `TypeError`,
    and the same code in a `tf.function` body runs).

    Not flagged, because AutoGraph converts them into graph ops: `if t:`, `while t:`, `x if t
    else y`, `t and u`, `not t`, `for r in t:` (a `tf.while_loop`), and `int(t)`, `float(t)`,
    `len(t)` (a cast and a shape op). These last three behave differently from eager mode: on a
    tensor with more than one element eager raises `TypeError` where the graph computes an
    element-wise cast, so code that runs eagerly keeps its meaning; they are left alone.
    Also not flagged: Python lists and tuples of tensors (`tf.unstack(x)`, `tf.split(...)`, the
    outputs of `tf.while_loop`/`tf.cond`), and parameters that may be such structures: Keras
    `call` inputs with no other evidence of being one tensor, or a parameter the function tests
    with `isinstance(x, (list, tuple))` or `tf.nest.is_nested(x)`; a parameter whose only evidence
    of being a tensor is an op argument that takes Python values as well: a list concatenated into
    it (`loop_vars=[np.int32(0)] + initial_loop_vars`), or a size, count or dimension argument
    (`tf.nn.top_k(x, k=k)`, `dimensions_to_reduce=axis`), or an op given the name after the
    parameter was unpacked into it (`(inputs, lens) = inputs`, then `tf.shape(inputs)`: the op
    gets one element); a parameter annotated as a Python
    option (`dtype: tf.DType`, `name: str`); the Python lists and tuples around tensors (a slice
    of `tf.unstack(...)`, `tf.linalg.normalize`'s pair, a RaggedTensor's `nested_row_splits`,
    the clipped list of `clipped, norm = tf.clip_by_global_norm(...)`) and a composite's `rank`;
    `tf.identity_n([a, b])`, a Python list; a parameter with a literal default that no call the
    project shows passes, in a function only called in the project or handed to `tf.map_fn` /
    `tf.vectorized_map` (which pass the element alone): it holds the Python default. Nor in a branch that
    dispatches on a value's type (`if not isinstance(shape, tf.Tensor): list(shape)`, `if
    type(inputs) is list: inputs, mask = inputs`): a traced tensor is an instance of `tf.Tensor`,
    and the branch is written for the kinds its test lets through.
    In Keras methods, not flagged: Keras 2 layers (`tf_keras`), which AutoGraph converts; a
    `call` that is itself decorated with `tf.function`; code that a `tf.function` also reaches
    (AutoGraph converts it there); and layers built on `tf.keras`, which in TF 2.21 is Keras 3
    unless `TF_USE_LEGACY_KERAS=1` selects Keras 2: which one runs depends on the environment and
    on the TensorFlow version the code was written for, so they are left alone.


    Under JAX there is no AutoGraph: every Python `if`, `while`, `assert`, `and`/`or`/`not`, `range()`
    and dict key on a traced value fails (TracerBoolConversionError), including on a jitted
    function's non-static arguments, under `jax.vmap` and in `lax` bodies; not under `jax.grad` alone
    (concrete values), not on static arguments, shapes, `x is None` or a string key tested against
    a dict of arrays (`if "labels" in batch:`), nor on a plain Python
    attribute of a Flax NNX module (`if model.dim == 4` with `self.dim = 4` in `__init__`: static
    under any jit; a Variable's value, `nnx.data(...)` and arrays are traced). Iterating a traced array
    and `len(x)` work in JAX (STG503 covers the unrolling), and so do `list(x)`, `sum(x)`, `zip` and
    `enumerate`; `any(x)`, `all(x)` and `set(x)` test or hash its rows and fail. Nor in the body
    of a `try` whose handler catches the tracer error (`except jax.errors.ConcretizationTypeError:`, Haiku's `dropout`;
    every tracer error is a `TypeError`, so `except TypeError`, `except Exception` and a bare `except:` catch it too):
    the error is caught while tracing and the handler runs; `except ValueError` catches none (JAX 0.10.2).

    Under JAX the default tier reports only a value *known* to be a tracer
    (`stagelint.analysis.tracers`, observed with JAX 0.10.2): the result of a JAX op where
    `jax.jit`, `jax.pmap` or a `lax` body traces the code (every op returns a tracer there, even
    on constants), or of an op the mapped argument reaches under `jax.vmap`; a traced parameter
    used with an operator or an array method (`loss > threshold`, `x.sum() > 0`), an item or a row
    of one (`ids[0] > 0`, `for row in rows: if row.sum() > 0:`); a parameter alone in `range(n)`
    or as a dict key, and in `set(x)`, `any(x)`, `all(x)` where the function shows it is an array
    (`x.shape`, an op on it: a dict argument iterates its keys, Python strings). The whole chain
    is known, each step in the finding's proof: a function the traced code only hands to a
    callee not known to call it (not a `jax` / `lax` API) is traced by guess. The preview tier
    (`--preview`) adds the values whose tracer-ness is a
    guess: an attribute of a parameter that is not known to be a pytree child or an NNX Variable
    (`assert geom.is_squared_euclidean`, `if cfg._flags["x"]:`: a property, static aux data), a
    parameter alone in a truth test (`assert mask`: a container or None has a Python truth
    value), a name bound outside the traced function (a closed-over array may be a concrete
    NumPy one), the result of a project function, an op under `vmap` no mapped argument reaches,
    an argument of a Flax / Equinox module's method (it holds what its callers pass), a helper's
    parameter no call shown passes a known tracer (`tracers.passed_param_guess`), a parameter
    alone in `set` / `any` / `all` that may be a dict. `lax.psum`
    of a Python number is the axis size, a Python int: never reported.
    `enumerate`'s index and a `range` loop's variable are Python ints: never reported.

    ## Why is this bad?
    While tracing, a tensor has no value, so Python cannot decide a truth value or iterate over
    it: TensorFlow raises `OperatorNotAllowedInGraphError` (for `assert x > 0`, even when it
    holds) or, for `while True:` with a tensor `break`, `NotImplementedError: The condition of
    while loop started as non-Tensor, then changed to Tensor`. The same code works in eager
    mode, so it breaks only once it is staged.

    ## Example
    ```python
    @tf.function
    def f(x):
        assert tf.reduce_all(x > 0)       # OperatorNotAllowedInGraphError
        return tf.stack([r * 2 for r in x])
    ```

    ## Use instead
    ```python
    @tf.function
    def f(x):
        tf.debugging.assert_positive(x)   # a graph op, checked on every call
        return tf.map_fn(lambda r: r * 2, x)
    ```
    Loop with `for r in x:` or `tf.range`, and give a `while` loop a tensor condition
    (`while not done:`) instead of `while True:` with a tensor `break`. In a Keras 3 `call`,
    branch with `tf.cond` / `keras.ops.cond` and loop with `tf.while_loop` / `keras.ops.fori_loop`.
    """

    code = "STG602"
    trace_error = True
    preview_under = {
        "jax": "Held back on repositories nobody here tuned on (bench/fresh_audit_notes.md), "
               "it was right 0 times in 39 findings in JAX code: the values were Python containers, "
               "static structure or concrete arrays, and JAX iterates and unpacks arrays of static "
               "shape.",
        "tensorflow": "Held back on repositories nobody here tuned on (bench/fresh_audit_notes.md), "
               "it was right 0 times in 13 findings in TensorFlow code: the values were Python values or"
               " containers of tensors.",
    }
    name = "tensor-as-python-value"
    message = "{what} needs a Python value, but `{value}` is a symbolic tensor in {func}: {error} at trace time (eager mode runs it); {instead}"
    jax_message = "{what} needs a Python value, but `{value}` is a JAX tracer in {func}: {jax_error} at trace time (JAX has no AutoGraph); {jax_instead}"
    valid = (
        """
        import tensorflow as tf

        @tf.function
        def f(x):
            assert x.shape[0] == 2
            while tf.reduce_sum(x) > 1:
                x = tf.tanh(x)
            if x[0] > 0:
                x = -x
            total = 0.0
            for r in x:
                total += r
            return total, int(x[0]), len(x)
        """,
        """
        import keras
        import tensorflow as tf

        class Gate(keras.layers.Layer):
            def call(self, x, training=False):
                if training:
                    x = x * 0.5
                x = tf.cond(tf.reduce_sum(x) > 0, lambda: x * 2, lambda: x)
                return tf.while_loop(lambda v: tf.reduce_sum(v) > 10, lambda v: v / 2, [x])[0]
        """,
        """
        import functools
        import jax
        import jax.numpy as jnp

        @functools.partial(jax.jit, static_argnames="training")
        def layer(x, training):
            if training:                   # JAX: a static argument is a Python value
                x = x * 0.5
            return jnp.where(x > 0, x, 0.0)
        """,
    )
    invalid = (
        """
        import tensorflow as tf

        @tf.function
        def f(x):
            assert tf.reduce_all(x > 0)  # STG602
            return tf.stack([r * 2 for r in x])  # STG602
        """,
        """
        import tensorflow as tf

        def countdown(s):
            while True:  # STG602
                s = s - 1
                if s < 0:
                    break
            return s

        @tf.function
        def f(x):
            a, b = tf.unstack(x)
            first, second = x  # STG602
            return countdown(a + b + first)
        """,
        """
        import tensorflow as tf

        @tf.function(autograph=False)
        def f(x):
            n = tf.size(x)
            return tf.ones([int(n)])  # STG602
        """,
        """
        import tensorflow as tf

        @tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])
        def scale(x):
            y = x * 2
            assert tf.reduce_all(y > 0)  # STG602
            return y
        """,
        """
        import keras
        import tensorflow as tf

        class Gate(keras.layers.Layer):
            def call(self, x):
                if tf.reduce_sum(x) > 0:  # STG602
                    x = x * 2
                for i in tf.range(3):  # STG602
                    x = x + 1.0
                return x

        gated = keras.Sequential([keras.Input((3,)), Gate()])
        """,
        """
        import jax

        @jax.jit
        def relu(x):
            if x > 0:  # STG602
                return x
            return 0.0
        """,
    )

    def __init__(self, ctx):
        super().__init__(ctx)
        self.ifs: list[cst.BaseExpression] = []
        #: While-True loops in staged code: node -> (function, [tensor-candidate break conditions])
        self.forever: dict[int, tuple] = {}
        #: (node, expression, function, fields): decided at the end of the file, when every
        #: binding and every `isinstance(x, (list, tuple))` test of the function is known
        self.checks: list[tuple] = []
        #: (function, name) pairs the function tests against None: optional values, maybe static
        #: Python ones (`pred_value = tf.get_static_value(p)`; `if pred_value is not None:`)
        self.none_tested: set[tuple[int, str]] = set()

    def _tensor(self, expr, func) -> Tensorness:
        """A tensor itself, not a Python list/tuple of tensors (the model's `one_tensor`)."""
        return one_tensor(self.ctx, expr, func)

    def _staged(self) -> bool:
        return self.ctx.function is not None and self.ctx.in_staged_context

    def _check(self, node, expr, what: str, error: str, instead: str, **extra) -> None:
        if self.dispatch:
            return  # a branch written for the kinds of value its type test lets through
        # (the `try` statements around `node` are known now, during the walk; the check is decided in `finish`,
        # and the value's text is written there, for the few checks that report)
        self.checks.append((node, expr, self.ctx.function, dict(what=what, value=None, error=error,
                                                                instead=instead, **extra, **self.caught_fields(node))))

    def visit_Assert(self, node: cst.Assert) -> None:
        if self._staged():
            self._check(node, node.test, "`assert`", TF_BOOL_ERROR,
                        "use `tf.debugging.assert_*` (a graph op, checked on every call)")

    def visit_Call(self, node: cst.Call) -> None:
        if not self._staged():
            return
        names = self.ctx.qualified_names(node.func)
        positional = [a.value for a in node.args if a.keyword is None and not a.star]
        for arg in node.args:
            if arg.star == "*":
                self._check(arg, arg.value, f"`*{short_code(arg.value)}`", TF_ITERATE_ERROR,
                            "pass the elements with `tf.unstack(...)` or index them")
        if not positional:
            return
        if "builtins.range" in names:
            for arg in positional:
                self._check(node, arg, "`range(...)`", "TypeError", "", _jax_only=True)
        if "builtins.bool" in names:
            self._check(node, positional[0], "`bool(...)`", TF_BOOL_ERROR,
                        "compare with TensorFlow ops and branch with `if <tensor>:` (a `tf.cond`)")
        elif names & {"builtins.int", "builtins.float", "builtins.len"}:
            name = next(iter(sorted(names & {"builtins.int", "builtins.float", "builtins.len"})))[9:]
            self._check(node, positional[0], f"`{name}(...)`", "TypeError",
                        "use `tf.cast`/`tf.shape`", _unconverted=True)
        elif names & ITERATING_BUILTINS:
            name = next(iter(sorted(names & ITERATING_BUILTINS)))[9:]
            args = positional[1:] if name in ("map", "filter") else positional
            for arg in args:
                self._check(node, arg, f"`{name}(...)`", TF_ITERATE_ERROR,
                            "loop with `for r in t:` / `tf.range`, or use `tf.unstack`/`tf.map_fn`")

    def visit_CompFor(self, node: cst.CompFor) -> None:
        if self._staged():
            self._check(node.iter, node.iter, "a comprehension", TF_ITERATE_ERROR,
                        "use a `for` statement (AutoGraph converts it), `tf.map_fn` or vectorised ops")

    def visit_CompIf(self, node: cst.CompIf) -> None:
        if self._staged():
            self._check(node.test, node.test, "a comprehension's `if`", TF_BOOL_ERROR,
                        "filter with `tf.boolean_mask` or `tf.where`")

    def visit_Comparison(self, node: cst.Comparison) -> None:
        if not self._staged():
            return
        if isinstance(node.left, cst.Name) and any(
            isinstance(c.operator, (cst.Is, cst.IsNot)) and keyword_constant(c.comparator, "None")
            for c in node.comparisons
        ):
            self.none_tested.add((id(self.ctx.function), node.left.value))
        for target in node.comparisons:
            if isinstance(target.operator, (cst.In, cst.NotIn)) and isinstance(
                target.comparator, (cst.List, cst.Tuple, cst.Set)
            ):
                self._check(node, node.left, "a membership test", TF_BOOL_ERROR,
                            "compare with `tf.reduce_any(tf.equal(x, [...]))`")

    def visit_Assign(self, node: cst.Assign) -> None:
        if not self._staged():
            return
        for t in node.targets:
            if isinstance(t.target, (cst.Tuple, cst.List)):
                self._check(node, node.value, "unpacking", TF_ITERATE_ERROR,
                            "split it with `tf.unstack(...)` (or index it)")

    def visit_BooleanOperation(self, node: cst.BooleanOperation) -> None:
        if self._staged():  # `a and b` asks `bool(a)`: AutoGraph converts it, JAX cannot
            what = "`and`" if isinstance(node.operator, cst.And) else "`or`"
            self._check(node, node.left, what, TF_BOOL_ERROR, _BRANCH_INSTEAD, _jax_only=True)

    def visit_UnaryOperation(self, node: cst.UnaryOperation) -> None:
        if self._staged() and isinstance(node.operator, cst.Not):
            self._check(node, node.expression, "`not`", TF_BOOL_ERROR, _BRANCH_INSTEAD, _jax_only=True)

    def visit_Subscript(self, node: cst.Subscript) -> None:
        # `WEIGHTS[label]` on a Python dict: hashing a tracer raises (row 20)
        if self._staged() and len(node.slice) == 1 and isinstance(node.slice[0].slice, cst.Index) \
                and value_of(self.ctx, node.value, self.ctx.function).what == "dict":
            index = node.slice[0].slice.value
            self._check(node, index, "a dict key", "TypeError (unhashable)", "", _jax_only=True)

    def visit_Dict(self, node: cst.Dict) -> None:
        if self._staged():
            for el in node.elements:
                if isinstance(el, cst.DictElement):
                    self._check(el.key, el.key, "a dict key", "TypeError (unhashable)", "", _jax_only=True)

    def visit_While(self, node: cst.While) -> None:
        test = node.test
        forever = keyword_constant(test, "True") or (
            isinstance(test, cst.Integer) and test.value != "0"
        )
        if forever and self._staged():
            self.forever[id(node)] = (node, self.ctx.function, [])
        elif self._staged():
            self._check(node, test, "`while`", TF_BOOL_ERROR, _BRANCH_INSTEAD, _unconverted=True)

    def visit_If(self, node: cst.If) -> None:
        super().visit_If(node)
        self.ifs.append(node.test)
        if self._staged():
            self._check(node, node.test, "`if`", TF_BOOL_ERROR, _BRANCH_INSTEAD, _unconverted=True)

    def visit_IfExp(self, node: cst.IfExp) -> None:
        if self._staged():
            self._check(node, node.test, "`... if ... else ...`", TF_BOOL_ERROR, _BRANCH_INSTEAD, _unconverted=True)

    def visit_For(self, node: cst.For) -> None:
        if self._staged():
            self._check(node, node.iter, "a `for` loop", TF_ITERATE_ERROR,
                        "loop with `tf.while_loop` / `keras.ops.fori_loop`, or vectorise", _unconverted=True)

    def leave_If(self, node: cst.If) -> None:
        super().leave_If(node)
        self.ifs.pop()

    def visit_Break(self, node: cst.Break) -> None:
        loops = self.ctx.loops
        if loops and id(loops[-1]) in self.forever and self.ifs:
            self.forever[id(loops[-1])][2].append(self.ifs[-1])

    def finish(self) -> None:
        reported = set()
        for node, expr, func, fields in self.checks:
            if fields.get("_unconverted") and _python_truth(expr):
                continue  # `if x is None:`: a Python bool whatever `x` is
            if fields.get("_unconverted") and fields["what"] in _BRANCHES and any(
                (id(func), n) in self.none_tested for n in _names_in(expr)
            ):
                continue  # `if pred_value:` after `if pred_value is not None:`: a static value
            t = self._tensor(expr, func)
            if fields.get("_jax_only") and fields["what"] in ("`not`", "`and`", "`or`") and not t.definite \
                    and not jax_branch_test(expr, self.ctx, func):
                continue  # `not train`: a jitted function's argument may be a Python flag (or None)
            if fields.get("_unconverted") and fields["what"] in _BRANCHES and not t.definite:
                if not (t.params and jax_branch_test(expr, self.ctx, func)):
                    continue  # a branch needs an op's result as its test, not a parameter's guess
                fields = dict(fields, _jax_only=True)  # JAX traces a jitted function's parameters
            if t.possible and id(node) not in reported:
                reported.add(id(node))
                fields = dict(fields, value=short_code(expr))
                if compares_with_none(expr):
                    fields = dict(fields, _none_test=True)  # `if encoder != None:` (a Python bool under JAX)
                if t.params and not t.definite:
                    # `if model.dim == 4`: which attributes of the parameters it tests (Flax NNX: static or traced)
                    reads = param_attributes(self.ctx, expr, func)
                    if reads:
                        fields = dict(fields, _attrs=reads)
                    else:
                        # `if offset >= 0` over `zip(op.offsets, ...)`: what a local computes from in Python
                        reads = reads_through_locals(self.ctx, expr, func)
                        if reads:
                            fields = dict(fields, _local_attrs=reads)
                self.report(node, function=func, **fields, **_tensor_fields(t), **self._origin(expr, func))
        for node, func, tests in self.forever.values():
            t = Tensorness()
            for test in tests:
                t = t | tensorness(self.ctx, test, func)
            if t.possible:
                test = next(x for x in tests if tensorness(self.ctx, x, func).possible)
                self.report(node, function=func, what="`while True:` with a tensor `break`", value=short_code(test),
                            **self._origin(test, func),
                            error="NotImplementedError (the loop condition started as non-Tensor, then changed to Tensor)",
                            instead="make the tensor condition the loop's own: `while <condition>:`",
                            **_tensor_fields(t))

    def _origin(self, expr, func) -> dict:
        """How the value is known to be a tracer where JAX stages the code (`analysis.tracers`)."""
        if JAX.name in getattr(self.ctx, "absent", ()):
            return {}
        kind, params = tracer_origin(self.ctx, expr, func)
        return {"_origin": kind, "_origin_params": sorted(params)}

    @classmethod
    def confirm(cls, candidate, project, module):
        key = (module.module, candidate.function)
        if project.staged_by_jax(key):
            # the whole chain known: a staging hop through a function passed to a project
            # function that is taken to call it is a guess too (`proof.guessed_hop`)
            return with_staging_certainty(confirm_tracer_as_python_value(candidate, project, key), project, key)
        if candidate.fields.get("_jax_only"):
            return False
        verdict = True
        if candidate.fields.get("_unconverted"):
            # Converted by AutoGraph (a `tf.cond`, a `tf.while_loop`, a cast) wherever AutoGraph
            # runs; a pitfall only where no entry point that reaches the code converts it.
            key = (module.module, candidate.function)
            if project.converted(key):
                return False
            entry = project.reached.get(key)
            if project.entries.get(entry) == "keras":
                why = "Keras 3 runs `%s` as plain Python, without AutoGraph, also under `tf.function` and `fit`" % entry[1].rsplit(".", 1)[-1]
            else:
                why = "AutoGraph is off"
            error = candidate.fields["error"]
            verdict = {"error": f"{error[:-1]}; {why})" if error.endswith(")") else f"{error} ({why})"}
        # A Keras `call(self, inputs, states)` may receive lists of tensors: iterating or
        # testing those is fine, so a parameter needs evidence of its own here.
        confirmed = _tensor_confirmed(candidate, project, module, keras_inputs=False)
        return confirmed and ({**confirmed, **verdict} if isinstance(verdict, dict) else confirmed)


class DiscardedOp(Rule):
    """
    ## What it does
    Flags a call of a pure TensorFlow op in staged code whose result is thrown away: an
    expression statement such as `tf.gather(x, [1])` or `tf.ensure_shape(x, [None, 3])`.

    Not flagged: ops kept for their effect, which the graph runs even when unused (listed as
    data in `stagelint/frameworks/tensorflow.py`): `tf.print`, `tf.debugging.*` and the `assert_*` ops,
    `check_numerics`, `tf.summary.*`, `tf.py_function`, variable updates (`.assign*()`, method
    calls in general), random ops, and control flow such as `tf.cond`/`tf.while_loop` whose
    branches may hold effects (`smart_cond` too: `tf.cond` for a tensor predicate, the branch
    called as Python for a Python bool); and what is no op at all, such as
    `tf.get_logger().warning(...)` and TF1's `tf.logging.info(...)` (Python logging),
    `tf.compat.v1.add_to_collection(...)` (returns None at trace time) or
    `tf.broadcast_static_shape(a.shape, b.shape)` (Python on static shapes, which raises while
    traced). Code outside staged functions runs eagerly and is not flagged. Nor is JAX code:
    `jax.jit` drops an op whose result is unused too, but no JAX op raises at run time (an index
    out of range clamps or fills, eagerly as under jit), so nothing is lost; and
    `checkify.check(...)` returns None, its failure being the error value `checkify.checkify`
    returns (JAX 0.10.2).

    ## Why is this bad?
    Graphs are non-strict: they run only the ops needed for the outputs and for stateful
    effects. An op whose result is unused is pruned, so the error it would raise (an
    out-of-range `tf.gather`, a failed `tf.ensure_shape`, an unparsable `tf.strings.to_number`)
    never happens, while eager mode runs it and raises. (What the op checks while it is built
    still raises: `tf.ensure_shape` of a static shape that cannot match fails at trace time,
    pruned or not; the checks lost are those made on run-time values, observed with TF 2.21 in
    `tests/runtime/test_message_facts.py`. So an indexed update, `tf.tensor_scatter_nd_update(a,
    [0, 1], [10])`, whose shapes the code spells (displays of numbers, and a parameter every call
    of its function passes such a display or `tf.Variable([1, 2])`) and do not fit is not
    flagged: every trace raises ValueError in the op's shape function.) Often the result was meant to be used
    (`tf.tensor_scatter_nd_update(...)` returns a new tensor; it does not update in place).

    ## Example
    ```python
    @tf.function
    def unused_return_graph(x):
        tf.gather(x, [1])      # pruned: never runs, so an index out of range never raises
        return x
    ```

    ## Use instead
    ```python
    @tf.function
    def checked(x):
        tf.debugging.assert_greater(tf.size(x), 1)   # asserts are kept
        return tf.gather(x, [1])                      # or use the result
    ```
    """

    code = "STG603"
    severity = "warning"
    name = "discarded-op"
    message = "the result of `{call}` is unused, so {func}'s graph prunes the op: it never runs, and an error it would raise when run (as eager mode runs it) never happens; use the result, or use a `tf.debugging` check if it was meant as one"
    valid = (
        """
        import tensorflow as tf

        v = tf.Variable(0.0)

        @tf.function
        def f(x):
            tf.print("x:", x)
            tf.debugging.assert_positive(x)
            tf.debugging.check_numerics(x, "x")
            tf.summary.scalar("x", tf.reduce_sum(x), step=1)
            v.assign_add(tf.reduce_sum(x))
            tf.random.uniform([2])
            return tf.gather(x, [0])

        def unused_return_eager(x):
            tf.gather(x, [1])
            return x
        """,
    )
    invalid = (
        """
        import tensorflow as tf

        @tf.function
        def unused_return_graph(x):
            tf.gather(x, [1])  # STG603
            return x
        """,
        """
        import tensorflow as tf

        def check_shape(x):
            tf.ensure_shape(x, [None, 3])  # STG603

        @tf.function
        def step(x):
            check_shape(x)
            return x * 2
        """,
    )

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        #: calls by a plain name, by the id of that Name: the calls of a function (`finish`)
        self._named_calls: dict[int, cst.Call] = {}
        #: indexed updates whose shapes wait on the calls of their function: (function, the
        #: candidate held, `Rule.hold`, [shape, or the position of the function's parameter the argument is])
        self._waiting: list = []
        #: Names read for their Python function (`f.python_function`), by id
        self._python_reads: set[int] = set()

    def visit_Call(self, node: cst.Call) -> None:
        if isinstance(node.func, cst.Name):
            self._named_calls[id(node.func)] = node

    def visit_Attribute(self, node: cst.Attribute) -> None:
        if node.attr.value == FUNCTION_PYTHON_ATTRIBUTE and isinstance(node.value, cst.Name):
            self._python_reads.add(id(node.value))

    def visit_Expr(self, node: cst.Expr) -> None:
        ctx = self.ctx
        if ctx.function is None or not ctx.in_staged_context or not isinstance(node.value, cst.Call):
            return
        call = node.value
        own = ctx.module + "."
        for q in sorted(ctx.qualified_names(call.func)):
            if is_stateful_op(q) or q.startswith(own):
                return  # kept for its effect, or this module's own function (linting TF itself)
            if pruned_when_unused(q):
                shapes = indexed_update_shapes(ctx, call, ctx.function) if q in INDEXED_UPDATE_OPS else None
                if shapes is not None and not any(isinstance(s, int) for s in shapes) \
                        and indexed_update_fits(*shapes) is False:
                    return  # its shape function raises at trace: the error is not pruned
                held = self.hold(call, call=f"{short_code(call.func)}(...)")
                if held is None:
                    return
                if shapes is not None and any(isinstance(s, int) for s in shapes):
                    # decided once the calls of the function are seen (`finish`)
                    self._waiting.append((ctx.function, held, shapes))
                else:
                    ctx.release(held)
                return

    def finish(self) -> None:
        for func, held, shapes in self._waiting:
            traced = shapes_per_call(self.ctx, func, shapes, self._named_calls, self._python_reads)
            if not (traced and all(indexed_update_fits(*s) is False for s in traced)):
                self.ctx.release(held)  # unless every call's trace raises in the op's shape function, used or not
