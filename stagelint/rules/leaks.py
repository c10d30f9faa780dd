"""Values that escape the graph (STG2xx)."""

from __future__ import annotations

import libcst as cst

from stagelint.analysis.dependence import params_feeding
from stagelint.analysis.flags import with_flag_step
from stagelint.analysis.objects import root_kind
from stagelint.analysis.context import mutates_container, short_code
from stagelint.analysis.jaxrules import writes_into_ref
from stagelint.analysis.nnx import store_carried, store_fields
from stagelint.rules.base import Rule
from stagelint.analysis.stores import outlives_fact, scratch_attribute, scratch_only, store_is_external, store_sites, \
    stored_tensor_fact
from stagelint.analysis.tensors import loop_kind, tensorness, value_of


class LeakedTensor(Rule):
    """
    ## What it does
    Flags a tensor computed in staged code that is stored where it outlives the call: a global
    or nonlocal name, an attribute of `self` or of another non-local object, or a container
    that is not local to the call.

    Also through a closure nested in the staged method (`def keep(t): self.last = t`), a
    `nonlocal`, and a helper's parameter when a staged caller passes it an object that outlives
    the call (`fill(cache, x)` with a global `cache`). Not flagged: containers the caller made
    for the call (`parts = []; fill(parts, x)`), a copy the call made (`obs = obs.copy()`:
    `dict.copy()` returns a new dict; TensorFlow 2.21 refuses a `tf.function` that writes into
    its argument itself, "Modifying a copy is allowed"), values that are not tensors
    (STG102), such as what `tf.load_op_library` returns (a Python module), and an attribute that
    is the same call's scratch: stored at the top of the call (`__init__` may set a placeholder),
    worked on there (`self.logits = self.logits + w`, `out, self.state = cell(x, self.state)`,
    `self.outs.append(y)`), read only later in that call, and read by no other function of the
    project: each trace reads its own graph's tensors and nothing reads them after the call
    (observed with TF 2.21, `stores.scratch_only`).


    Under JAX: a tracer stored outside (a leaked tracer, UnexpectedTracerError later), also out of
    `jax.grad`, `jax.vmap` and `lax.scan` without `jit`. Not Flax NNX state: a store into a
    module or Variable passed to `nnx.jit` (carried out of the trace), nor into a hijax Variable
    (`nnx.var_defaults(hijax=True)`, `hijax=True`) under plain `jax.jit`, whose update propagates.
    Nor a store into an argument of a function `jax.jit`, `vmap`, `grad` or a `lax` body stages
    (`metrics["mean"] = jnp.mean(y)`): JAX passes its own copy of the caller's pytree, which dies
    with the trace (STG102 when the store was meant for the caller). Under `jax.grad` or
    `jax.vmap` alone (no jit around them) only what is computed from the arguments they transform
    is a tracer; an array of closures or constants (`grid = jnp.linspace(0, 1, 5)`) is a concrete
    array there, and storing it leaks nothing (JAX 0.10.2). The default reports a store there when
    the code shows the value computed from a traced parameter (`LOG["w"] = jnp.tanh(w)`), and
    anything under `jax.jit`, `pmap` or a `lax` body, where every operation's result is a tracer;
    the preview tier adds the operation results it cannot trace back (`analysis.dependence`). Code
    reached only under `if debug_mode:` on a parameter left at a False/None/0 default by every
    traced call the project shows is preview too (`analysis.flags`).

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
    preview_under = {
        "jax": "Held back on repositories nobody here tuned on (bench/fresh_audit_notes.md), "
               "it was right 1 time in 21 findings in JAX code: the stored values were concrete arrays, "
               "Python values or kernel references, not tracers.",
    }
    name = "leaked-tensor"
    message = "tensor `{value}` is stored in {place}, which outlives {func}: a symbolic tensor that is out of scope after the call; return it instead"
    jax_message = "traced value `{value}` is stored in {place}, which outlives {func}: a leaked tracer (UnexpectedTracerError when used later); return it instead"
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
        """
        import jax

        @jax.jit
        def step(w, g):
            new = w - 0.1 * g
            return new, g                  # JAX: returned, not stored
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

        queries = tf.keras.Input((4, 8))
        attended = Attention()(queries, queries)
        """,
        """
        import tensorflow as tf

        cache = []

        def fill(acc, x):
            acc.append(x * 2)  # STG201

        class Scores(tf.keras.layers.Layer):
            def call(self, q):
                def keep(t):
                    self.last = t  # STG201
                keep(tf.matmul(q, q, transpose_b=True))
                return q

        model = tf.keras.Sequential([Scores()])

        @tf.function
        def step(x):
            fill(cache, tf.abs(x))
            return x
        """,
        """
        import jax

        last_grad = None

        @jax.jit
        def step(w, g):
            global last_grad
            last_grad = g  # STG201
            return w - 0.1 * g
        """,
    )

    def finish(self) -> None:
        for site in store_sites(self.ctx):
            if writes_into_ref(self.ctx, site):
                continue  # a `jax.Ref` updated in place: state JAX keeps
            if not site.tensor.possible and not site.tensor.calls:
                continue
            value = short_code(site.value) if site.value is not None else _stored_arg(site)
            stored = site.value if site.value is not None else _stored_expr(site)
            self.report(site.node, value=value, place=site.place, _root=site.root_kind, _root_name=site.root,
                        _from=sorted(params_feeding(self.ctx, stored, site.func)),
                        _owner=site.owner,
                        _definite=site.tensor.definite, _params=sorted(site.tensor.params),
                        _calls=sorted(list(c) for c in site.tensor.calls), function=site.func,
                        _scratch=scratch_attribute(self.ctx, site), **store_fields(self.ctx, site))

    @classmethod
    def confirm(cls, candidate, project, module) -> bool:
        key = (module.module, candidate.function)
        root = candidate.fields.get("_root")
        if project.jax.linen_method(key) and root == "self":
            return False  # STG102: the store itself raises in a bound Linen module
        if store_carried(candidate, project, key):
            return False  # Flax NNX state: `nnx.jit` carries module updates out, hijax Variables propagate
        if not store_is_external(candidate, project, key):
            return False
        if scratch_only(candidate, project, key):
            return False  # the same call's scratch: each trace reads its own graph's tensor, nothing reads it after
        tensor = stored_tensor_fact(candidate, project, key)
        if tensor is None:
            return False
        outlives = outlives_fact(candidate)
        verdict = {"_because": [tensor] + ([outlives] if outlives is not None else [])}
        return with_flag_step(verdict, candidate, project, key)


def _stored_expr(site):
    args = getattr(site.node, "args", ())
    return args[0].value if args else None


def _stored_arg(site) -> str:
    expr = _stored_expr(site)
    return short_code(expr) if expr is not None else "..."


class PythonAccumulatorInGraphLoop(Rule):
    """
    ## What it does
    Flags, in staged code, a Python list, dict or set that is filled inside a loop AutoGraph
    turns into a graph loop: `acc.append(x)` (and `extend`, `insert`, `update`, `add`, ...),
    `d[k] = v` with a key computed in the loop, or `acc += [x]`, where `acc` was created before
    the loop, and the loop runs over `tf.range(...)`, `range(<tensor>)`, a tensor, a `tf.data`
    dataset or iterator (also through `enumerate`/`zip`), or is a `while` on a tensor condition.

    Not flagged: Python loops (over `range(3)`, a list, or `range(k)` of a parameter that ops take
    only as a size or count: `tf.nn.top_k(x, k=k)`, `tf.linspace(a, b, num)`), which run at trace
    time and may fill Python containers freely; containers created inside the loop body; stores with a fixed key
    (`state["total"] = ...`), which AutoGraph carries as a loop variable; containers that live
    outside the call, which STG102/STG201 report. A loop over a parameter is reported when a call
    passes a tensor or a dataset there; taken for a tensor only from the function's own ops
    (`tf.reduce_sum(values)`, which a Python list of tensors passes too), it is a preview finding
    (`--preview`): `for var in variables:` over a Python list is a Python loop.

    ## Why is this bad?
    AutoGraph traces the body of a graph loop once. A Python container sees one append, holding
    one symbolic tensor from inside the loop: `len(acc)` is 1 whatever the number of
    iterations, and using the content after the loop raises `InaccessibleTensorError`. Eager
    mode appends on every iteration, so the bug appears only once the function is staged.

    ## Example
    ```python
    @tf.function
    def squares(n):
        out = []
        for i in tf.range(n):
            out.append(i * i)          # traced once: InaccessibleTensorError after the loop
        return tf.stack(out)
    ```

    ## Use instead
    ```python
    @tf.function
    def squares(n):
        out = tf.TensorArray(tf.int32, size=n)
        for i in tf.range(n):
            out = out.write(i, i * i)
        return out.stack()
    ```
    """

    code = "STG202"
    name = "python-accumulator-in-graph-loop"
    message = "{action} fills a Python {kind} inside a loop AutoGraph turns into a graph loop ({loop}) in {func}: the body is traced once, so it holds one symbolic tensor (InaccessibleTensorError when used after the loop); accumulate in a `tf.TensorArray`"
    valid = (
        """
        import tensorflow as tf

        @tf.function
        def dynamic_rnn(input_data, initial_state):
            input_data = tf.transpose(input_data, [1, 0, 2])
            max_seq_len = input_data.shape[0]
            states = tf.TensorArray(tf.float32, size=max_seq_len)
            state = initial_state
            for i in tf.range(max_seq_len):
                state = input_data[i] + state
                states = states.write(i, state)
            return tf.transpose(states.stack(), [1, 0, 2])
        """,
        """
        import tensorflow as tf

        @tf.function
        def f(x, n):
            parts = []
            for i in range(3):
                parts.append(x * i)
            totals = {"sum": tf.constant(0)}
            for i in tf.range(n):
                step = []
                step.append(i)
                totals["sum"] += tf.add_n(step)
            return tf.add_n(parts), totals["sum"]
        """,
    )
    invalid = (
        """
        import tensorflow as tf

        @tf.function
        def squares(n):
            out = []
            for i in tf.range(n):
                out.append(i * i)  # STG202
            return len(out)
        """,
        """
        import tensorflow as tf

        def collect(dataset):
            seen = {}
            for i, batch in enumerate(dataset):
                seen[i] = batch  # STG202
            return seen

        @tf.function
        def run(dataset):
            return collect(dataset)

        run(tf.data.Dataset.range(3))
        """,
    )

    def __init__(self, ctx):
        super().__init__(ctx)
        self.sites = []  # (function, node, container Name, action, loops, key expression or None)

    def visit_Call(self, node: cst.Call) -> None:
        ctx = self.ctx
        if not ctx.loops or ctx.function is None or not ctx.in_staged_context:
            return
        func = node.func
        if mutates_container(ctx, node) and isinstance(func.value, cst.Name):
            self.sites.append((ctx.function, node, func.value, f"`{short_code(func)}(...)`", list(ctx.loops), None))

    def visit_Assign(self, node: cst.Assign) -> None:
        for t in node.targets:
            self._store(node, t.target)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        ctx = self.ctx
        if isinstance(node.target, cst.Name) and isinstance(node.value, (cst.List, cst.ListComp)):
            if ctx.loops and ctx.function is not None and ctx.in_staged_context:
                self.sites.append((ctx.function, node, node.target, f"`{short_code(node, 50)}`", list(ctx.loops), None))
            return
        self._store(node, node.target)

    def _store(self, node, target) -> None:
        ctx = self.ctx
        if not ctx.loops or ctx.function is None or not ctx.in_staged_context:
            return
        if isinstance(target, cst.Subscript) and isinstance(target.value, cst.Name) and len(target.slice) == 1:
            index = target.slice[0].slice
            if isinstance(index, cst.Index):
                self.sites.append((ctx.function, node, target.value, f"`{short_code(target)} = ...`",
                                   list(ctx.loops), index.value))

    def finish(self) -> None:
        ctx = self.ctx
        reported = set()
        for func, node, container, action, loops, key in self.sites:
            if id(node) in reported:
                continue
            if isinstance(node, cst.AugAssign):
                # `acc += [x]`: the target is a binding, not a read; look at the name's other bindings.
                scope = ctx.scope(container)
                if scope is None or scope is not ctx.scope(func.node.body):
                    continue
                bindings = [a.node for a in scope.assignments[container.value]
                            if isinstance(getattr(a, "node", None), cst.Name) and a.node is not container]
                kinds = {value_of(ctx, ctx.bound_values[id(b)], func).what for b in bindings if id(b) in ctx.bound_values}
                if kinds != {"list"}:
                    continue
                kind_of_container = "list"
            else:
                if ctx.binding_kind(container, func) != "local" or root_kind(ctx, func, container) is not None:
                    continue  # not the call's own container (STG102/STG201 report outside ones)
                kind_of_container = value_of(ctx, container, func).what
                if kind_of_container not in ("list", "dict", "set"):
                    continue
                bindings = [getattr(b, "node", None) for b in ctx.bindings_of(container)]
            if key is not None and not tensorness(ctx, key, func).possible:
                continue  # a fixed key: AutoGraph carries the item as a loop variable
            for loop in reversed(loops):
                if any(b is not None and ctx.inside(b, loop) for b in bindings):
                    break  # created in this loop's body: fresh on every iteration
                kind, params = loop_kind(ctx, loop, func)
                params = params - func.sequence_names  # `isinstance(x, (list, tuple))`: a Python list
                if kind == "python" or (kind == "maybe" and not params):
                    continue
                reported.add(id(node))
                wrapped = isinstance(loop, cst.For) and isinstance(loop.iter, cst.Call) and bool(
                    ctx.qualified_names(loop.iter.func) & {"builtins.enumerate", "builtins.zip", "builtins.iter"})
                self.report(node, function=func, action=action, kind=kind_of_container, _datasets_only=wrapped,
                            loop=f"line {ctx.position(loop).line}", _params=sorted(params),
                            _key=sorted(tensorness(ctx, key, func).params) if key is not None else [],
                            _definite=kind == "converted")
                break

    @classmethod
    def confirm(cls, candidate, project, module) -> bool:
        if candidate.fields.get("_definite"):
            return True
        key = (module.module, candidate.function)
        tensors = project.tensor_params(key, keras_inputs=False)  # Keras inputs may be lists
        datasets_only = candidate.fields.get("_datasets_only")  # enumerate/zip convert datasets only
        converted = ("dataset", "data-iterator") if datasets_only else ("tensor", "dataset", "data-iterator")
        guessed = None
        for param in candidate.fields.get("_params", ()):
            if any(arg.what in converted for _, _, arg in project.args_for(key, param)):
                return True  # a call passes a tensor or a dataset there
            if param in tensors and not datasets_only and guessed is None:
                guessed = param
        if guessed is not None:
            # Taken for a tensor from the function's own code (an op given it, an input
            # signature's guess) with no call showing one passed: a Python list or int there makes
            # a Python loop, which fills the container normally (`for var in variables:`).
            return {"_preview": f"`{guessed}` is taken for a tensor from how `{candidate.function}` uses it; "
                                "no call shows a tensor or dataset passed, and a Python list or int makes a Python loop"}
        return False

