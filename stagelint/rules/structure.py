"""Structure the tracer cannot handle: recursion, variables created per trace (STG4xx)."""

from __future__ import annotations

import libcst as cst

from stagelint.analysis import facts as F
from stagelint.analysis.proof import HEURISTIC, TRUE, fact, with_staging_certainty
from stagelint.analysis.context import code_of, ends_leaving, short_code
from stagelint.frameworks import (
    GET_OR_CREATE_DECORATORS,
    GET_OR_CREATE_VARIABLES,
    KERAS_BUILDING_INPUTS,
    KERAS_INPUT_SHAPE_KEYWORDS,
    KERAS_WEIGHTLESS_WRAPPERS,
    LIST_BUILDING_METHODS,
    TENSORFLOW,
    RECALLING_DECORATORS,
    VARIABLE_CREATOR_SCOPES,
    builds_at_construction,
    is_keras_model_class,
    keras_first_parameter,
    layer_state_at_construction,
)
from stagelint.rules.base import Rule
from stagelint.analysis.guards import after_early_return_guard
from stagelint.analysis.literals import constant_text
from stagelint.analysis.meets import can_meet, containers, in_body, stored_on
from stagelint.analysis.recursion import decreasing_measure
from stagelint.analysis.caught import CONVERTS, STATIC, try_body_raises


class RecursiveFunction(Rule):
    """
    ## What it does
    Flags a call in staged code that leads back to a function already being traced: direct
    recursion (`f` calls `f`) and mutual recursion through helpers (`a` -> `b` -> `a`), across
    modules of the project, when tracing cannot end it well: a `tf.function` in the cycle, a
    base case that may be a tensor (`if n > 0:` with a tensor `n`), or no base case at all.

    Not flagged: helpers that recurse over a Python structure while tracing (`if isinstance(x,
    dict): return {k: walk(v) ...}`, `for child in children: walk(child)`, `_get_slopes(n)` on a
    Python int, also when the call sits under a tensor test too: `if rank == 0: return ...` then
    `if value.uniform_row_length: return iterate(value.values, rank - 1)`): the recursion runs
    and ends at trace time, as it does in eager mode. Likewise a call back into the cycle made only under
    a Python option flag (a parameter with a bool or string default: `if jit_compile:` ... call
    itself with `jit_compile=False` inside a jit-compiled Function): the flag decides while tracing.
    Under JAX a jitted function that calls itself is traced inline (jit within jit), so only the
    base case decides: a traced one (or none) is flagged, a Python one (`if t1 is not None:`) is not.
    There a call of itself made only from an `except` handler runs when the `try` body raises:
    JAX's numerics raise on no value (`cholesky` of a non-positive-definite matrix gives NaNs,
    eagerly and under jit; `frameworks.JAX_RAISE_ON_NO_VALUE`), so a handler around only such
    calls runs, in a trace, for a shape alone, decided while tracing as eagerly: not flagged (a
    jitter loop `try: return cholesky(A) except: return try_chol(A + eps, n + 1)`). A body that
    converts a tracer (`int(x)`) raises on every trace, so its handler's call recurses without
    end: flagged; a body calling anything else may raise in a trace or not: the preview tier
    (`analysis.caught.try_body_raises`).
    Nor a `tf.function` that calls itself only while a Python measure exceeds a fixed bound and
    lowers it in the call: the static rank of a parameter passed indexed (`if len(t.shape) > dim:`
    ... `f(t[..., i], dim=dim)`), or a parameter with a number default passed less a literal
    (`if n > 0:` ... `f(x, n - 1)` with `n=3`): the recursion ends while tracing, one trace per
    rank or value, each reused by later calls (`analysis.recursion`).
    A call is taken to run the function its name resolves to when the def has no decorator, or
    only decorators that return it or a wrapper calling it (`functools.lru_cache`, `staticmethod`,
    `tf.function`, `jax.jit`, `functools.partial(jax.jit, ...)`: `frameworks.RECALLING_DECORATORS`).
    Under any other decorator the name may be bound to something else, such as a multiple-dispatch
    registry (plum's `@dispatch`) that runs another implementation of the same name: such a cycle
    is reported in the preview tier only.

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
    jax_message = "recursive call {cycle} in {func}: JAX traces it with tracers, so a base case tested on a traced value never ends the recursion (TracerBoolConversionError); rewrite it as `lax.while_loop` / `lax.fori_loop`"
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
        """
        import tensorflow as tf

        @tf.function
        def back_flatten(tensor, dim):
            if len(tensor.shape) > dim:  # the static rank: a Python int, one lower per call
                splits = [back_flatten(tensor[..., i], dim=dim) for i in range(tensor.shape[-1])]
                tensor = tf.concat(splits, axis=-1)
            return tensor
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
            return is_even(tf.convert_to_tensor(n))  # a tensor: `n == 0` becomes a graph condition
        """,
    )

    def __init__(self, ctx):
        super().__init__(ctx)
        #: (function, condition, region, loop, holds): calls inside `region` run only when
        #: `condition` is `holds` (None for a loop's iterable)
        self.conditions: list[tuple] = []
        self.calls: list[tuple] = []  # (function, call)

    def _condition(self, test, region, loop: bool = False, holds: bool | None = True) -> None:
        if self.ctx.function is not None and region is not None:
            span = self.ctx.position(region)
            self.conditions.append((self.ctx.function, test, (span.line, span.column, span.end_line, span.end_column),
                                    loop, None if loop else holds))

    def visit_If(self, node: cst.If) -> None:
        self._condition(node.test, node.body)
        self._condition(node.test, node.orelse, holds=False)
        func = self.ctx.function
        if func is not None and node.orelse is None and ends_leaving(node.body):
            # `if base_case: return ...` then the recursive call: the rest of the function is
            # conditional on the test too
            end = self.ctx.position(node)
            f = self.ctx.position(func.node)
            self.conditions.append((func, node.test, (end.end_line, end.end_column, f.end_line, f.end_column), False,
                                    False))

    def visit_While(self, node: cst.While) -> None:
        self._condition(node.test, node.body)

    def visit_For(self, node: cst.For) -> None:
        # A call in a loop's body runs once per element: the iterable is its base case (the
        # children of a Python tree run out); a tensor one is a while loop's test under
        # AutoGraph, while JAX unrolls a loop over a traced array (a Python loop all the same)
        self._condition(node.iter, node.body, loop=True)

    def _comprehension(self, node) -> None:
        self._condition(node.for_in.iter, node, loop=True)  # `[walk(c) for c in children]`

    visit_ListComp = visit_SetComp = visit_GeneratorExp = visit_DictComp = _comprehension

    def visit_IfExp(self, node: cst.IfExp) -> None:
        self._condition(node.test, node.body)
        self._condition(node.test, node.orelse, holds=False)

    def visit_BooleanOperation(self, node: cst.BooleanOperation) -> None:
        # `n == 0 or is_odd(n - 1)`: the right side runs when the left is false (`and`: true)
        self._condition(node.left, node.right, holds=isinstance(node.operator, cst.And))

    def visit_Try(self, node: cst.Try) -> None:
        # a call in an `except` handler runs only when the body raises (`_handler_condition`)
        for handler in node.handlers:
            self._condition(node, handler.body)

    visit_TryStar = visit_Try

    def visit_Call(self, node: cst.Call) -> None:
        if self.ctx.function is not None:
            self.calls.append((self.ctx.function, node))

    def finish(self) -> None:
        """Record, for each call under a condition, how tensor-like the condition is: recursion
        ends by a Python test (a structure's depth) or by a tensor test (traced forever)."""
        from stagelint.analysis.tensors import tensorness

        ctx = self.ctx
        by_function: dict[int, list] = {}
        for func, test, region, loop, holds in self.conditions:
            by_function.setdefault(id(func), []).append((test, region, loop, holds))
        for func, call in self.calls:
            conditions = by_function.get(id(func))
            if not conditions:
                continue
            span = ctx.position(call)
            # (only a call of the function by its own name can lower its own measure)
            own = type(call.func) is cst.Name and type(func.node) is cst.FunctionDef \
                and call.func.value == func.node.name.value
            # each enclosing condition: [definite tensor, parameters, a loop's iterable, the kind
            # of Python measure it bounds and the call lowers ("rank", "number"), or ""]
            found = []
            for test, (line, column, end_line, end_column), loop, holds in conditions:
                if (line, column) <= (span.line, span.column) and (span.end_line, span.end_column) <= (end_line, end_column):
                    if isinstance(test, (cst.Try, cst.TryStar)):
                        found.append(self._handler_condition(test, func))
                        continue
                    one = tensorness(ctx, test, func)
                    lowered = decreasing_measure(ctx, func, test, holds, call) if holds is not None and own else None
                    found.append([one.definite, sorted(one.params), loop, lowered or ""])
            if found:
                func.facts.conditional_calls[f"{span.line}:{span.column}"] = found

    def _handler_condition(self, node, func) -> list:
        """The condition of a call in an `except` handler of `node`: "the body raised", read for
        JAX (`caught.try_body_raises`) as [definitely a tracer, the parameters it depends on,
        False, "", how the body raises (STATIC, CONVERTS or "unknown"), the code it turns on]: a
        conversion's value decides like a base case's test (a tracer: the handler runs on every
        trace); STATIC is decided while tracing, as eagerly."""
        from stagelint.analysis.tensors import tensorness

        kind, part, value = try_body_raises(self.ctx, node)
        text = short_code(part, 60) if part is not None else ""
        if kind == CONVERTS:
            one = tensorness(self.ctx, value, func)
            return [one.definite, sorted(one.params), False, "", kind, text]
        return [False, [], False, "", kind or "unknown", text]

    @classmethod
    def _ends_badly(cls, project, cycle):
        """A recursion tracing cannot handle: a Function in the cycle (one trace per depth, or
        endless), no condition on any call of the cycle (endless in eager mode too), or a
        condition that may be a tensor (AutoGraph traces both branches: endless). Recursion over
        a Python structure (`if isinstance(x, dict): ... recurse`) ends while tracing, and so does
        one whose call is made only under a Python option flag (`if jit_compile:` with
        `jit_compile=False`: TFP's `_minimize_common` runs itself once inside a jit-compiled
        Function with the flag off), Function or not. True, False, or the handler condition
        (`_handler_condition`) whose reading is not known, when only it may make the recursion
        run in a trace (a guess: the preview tier)."""
        edges = []
        for key, nxt in zip(cycle, cycle[1:]):
            f = project.function(key)
            for edge, callee in project.edges(key):
                if callee == nxt:
                    conds = f.conditional_calls.get(f"{edge.span.line}:{edge.span.column}")
                    if conds is not None and not project.staged_by_jax(key):
                        # an `except` handler's call is read under JAX only (what raises in a
                        # tf.function's trace is not stated): there it counts as unconditional
                        conds = [c for c in conds if len(c) < 5] or None
                    edges.append((key, conds))
                    if conds is not None and any(not d and params and set(params) <= f.python_default_params
                                                 for d, params, *rest in conds if len(rest) < 3):
                        return False  # a bool or string option decides, as in eager mode
        if cycle[0] == cycle[-1] and len(cycle) == 2 and edges and all(
            conds is not None and any(cls._ends_while_tracing(project, key, c) for c in conds) for key, conds in edges
        ):
            return False  # each call lowers a Python measure the recursion stops at: a trace per value
        # A tf.function in the cycle traces once per depth, or forever. A function JAX stages
        # that calls itself while traced is traced inline (jit within jit), so there only the
        # base case decides, as below (jax-behaviour.md row 21).
        if any(project.is_function_object(k) and k not in project.jax.entries for k in cycle):
            return True
        if edges and all(conds is None for _, conds in edges):
            return True
        guessed = False
        for key, conds in edges:
            if conds is None:
                continue
            if project.staged_by_jax(key):
                # JAX runs a loop in Python (over a traced array, unrolled): its tests decide
                conds = [c for c in conds if not c[2]]
                if not conds:
                    continue
            # The call runs only when every enclosing condition holds: one Python condition (a
            # Python depth, `if rank == 0: return` before it) bounds the recursion while tracing,
            # whatever the others test (AutoGraph traces both branches of a tensor `if`, each
            # one level deeper).
            tensors = project.tensor_params(key)
            traced = [cls._traced_condition(c, tensors) for c in conds]
            if all(traced):
                return True
            if False not in traced:
                guessed = guessed or next(c for c, t in zip(conds, traced) if t is None)
        return guessed

    @staticmethod
    def _traced_condition(condition, tensors: set) -> bool | None:
        """Whether a condition of `conditional_calls` may take a traced value's part: a test
        on a tensor (or one of the parameters holding one); for an `except` handler under JAX
        (`_handler_condition`), a body converting a tracer raises on every trace (True), one
        whose calls raise on no value raises only on what is static in the trace (False), and
        any other body may or may not raise there (None: not known)."""
        definite, params, *rest = condition
        if len(rest) >= 3:
            kind = rest[2]
            if kind == STATIC:
                return False
            if kind == CONVERTS and (definite or set(params) & tensors):
                return True
            return None
        return bool(definite or set(params) & tensors)

    @staticmethod
    def _ends_while_tracing(project, key, condition) -> bool:
        """The condition (`conditional_calls`) bounds a Python measure the call lowers
        (`analysis.recursion.decreasing_measure`: a static rank, a number parameter), and tests
        no parameter known to hold a tensor: under `tf.function` the test is decided while
        tracing and the recursion ends as in eager Python, one trace per value (TF 2.21: a
        rank-3 input to a function recursing down to rank 2 runs with 2 traces). Not under JAX."""
        definite, params, _, lowered = (*condition, "")[:4]
        if definite or not lowered or project.staged_by_jax(key):
            # (a jitted function's own call passes it tracers, the forwarded bound too, unless
            # static: JAX 0.10.2 raises TracerBoolConversionError on `x.ndim > dim` there)
            return False
        return not set(params) & project.tensor_params(key)

    @staticmethod
    def _handler_guess(condition, span) -> list:
        """The step "the `except` handler the recursion goes through runs in a trace" as a guess:
        its `try` body may raise there or not (`caught.try_body_raises` knows neither)."""
        definite, params, _, _, kind, text = condition
        if kind == CONVERTS:
            what = f"converts a value not known to be traced (`{text}`): on a tracer it raises on every trace"
        else:
            what = (f"calls `{text}`, not known to raise or not while traced" if text
                    else "may raise or not while traced")
        return fact(f"the recursion continues only from an `except` handler, whose `try` body {what} (JAX's "
                    f"numerics raise on no value: NaN or inf instead)", span, HEURISTIC)

    @classmethod
    def _calls_itself(cls, project, cycle, module: str, span) -> list:
        """The step "each call of the cycle runs the function its name resolves to": known for a
        def without decorators or with decorators that return it or a wrapper calling it
        (`frameworks.RECALLING_DECORATORS`, the staging APIs); only likely (the preview tier) for
        any other decorator, whose result may dispatch elsewhere (a multiple-dispatch registry)."""
        known = RECALLING_DECORATORS | project.staging_decorators()
        for key in dict.fromkeys(cycle):
            f = project.function(key)
            decorators = set(f.decorators if f is not None else ())
            if decorators & known:
                decorators.discard("functools.partial")  # `@partial(jax.jit, static_argnums=0)`
            other = sorted(decorators - known)
            if other:
                return [fact(f"`{project.display(key, module)}` is decorated with `{other[0]}`, which may bind its name "
                             f"to something other than the function (a multiple-dispatch registry runs the "
                             f"implementation the arguments select): the call may not run it again", span, HEURISTIC)]
        return []

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
                        bad = cls._ends_badly(project, cycle)
                        if not bad:
                            continue
                        names = " -> ".join(f"`{project.display(k, key[0])}`" for k in cycle)
                        because = cls._calls_itself(project, cycle, key[0], edge.span)
                        if bad is not True:
                            because.append(cls._handler_guess(bad, edge.span))
                        out.append((key[0], F.Candidate(cls.code, key[1], edge.span, {
                            "cycle": names, "_because": because})))
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


def _arguments(ctx, call: cst.Call, names: set[str]) -> tuple[dict[str, str] | None, int]:
    """(the keyword arguments of `call` by name, how many others it passes positionally). Each
    value is its code, or the literal a constant holds (`Dropout(rate=RATE)`, `RATE = 0.0`:
    `analysis.literals.constant_text`); the first positional argument is named too where the
    framework knows the parameter (`Dropout(0.0)` is `Dropout(rate=0.0)`:
    `frameworks.keras_first_parameter`). The keywords are None when it passes `*args` or
    `**kwargs`."""
    args = list(call.args)
    if any(a.star for a in args):
        return None, sum(1 for a in args if a.keyword is None)
    keywords = {}
    first = next((p for q in names if (p := keras_first_parameter(q))), None)
    if first and args and args[0].keyword is None:
        keywords[first] = constant_text(ctx, args[0].value) or code_of(args[0].value)
        args = args[1:]
    keywords.update({a.keyword.value: constant_text(ctx, a.value) or code_of(a.value)
                     for a in args if a.keyword is not None})
    return keywords, sum(1 for a in args if a.keyword is None)


class VariableCreation(Rule):
    """
    ## What it does
    Flags `tf.Variable(...)`, `add_weight(...)`, `tf.random.Generator` and the construction of
    Keras layers, models, metrics and optimizers in staged code, unless they sit under a
    first-call guard: `if self.v is None:`, `if not self.built:`, `if not hasattr(self, "v"):`
    (also when the guard is in a caller, or returns early: `if self.v is not None: return`, or
    is a method of the class that returns such a test: `if self._needs_init():`), or an instance
    flag the block clears on every path and nothing sets back (`if self.is_virgin: self._build();
    self.is_virgin = False`: the first trace builds, later traces skip the block). `if self.v ==
    None:` guards as `is None` does (None, an int, a layer, a tensor answer `== None` by
    identity), unless the function stores in the tested attribute a value that does not: a
    `tf.Variable` (`v == None` raises ValueError, so the retrace fails there), a numpy array, a
    `TensorShape`. Not flagged either: `tf.keras.metrics.MSE(y, p)` and the other capitalised
    metric functions (`MAE`, `MAPE`, `MSLE`, `KLD`: the loss functions, no variable).

    Not flagged: `Input(shape=...)` in any spelling (`keras.layers.Input` is `keras.Input`: a
    function returning a symbolic KerasTensor, no variable, also on every trace); a functional
    `keras.Model(inputs, outputs)`, which wires layers and makes no variable itself (an unbuilt
    layer applied to the inputs in the trace is reported, at its own call); Keras layers that
    own no variables (`Add`, `Activation`, `Reshape`, pooling, `Resizing`, `InputLayer`; in Keras 2
    (`tf_keras`) also `Dropout` and the other random layers, which Keras 3 gives a seed-generator
    variable), listed as data in `stagelint/frameworks/tensorflow.py`; and a Keras `RNN` over a cell
    whose class (in the same file, on the framework's base classes) creates no variables (tf-addons'
    CRF decoding cell): the RNN's variables are its cell's. Nor an `RNN` or `TimeDistributed` made
    in a `call` around a layer the object made once (`RNN(self.gru_cell)`, `self.gru_cell` set only
    in `__init__` or `build`): these wrappers own no variables of their own, and the wrapped layer's
    are made at its first build, once. `Bidirectional` is not such a wrapper: it copies its layer,
    with new weights each time it is made. Nor a Keras layer or model constructed and not built in
    the staged function (a builder that makes `Sequential([Conv2D(...)])` and returns it, calling
    nothing it makes): a layer makes its weights at its first call, not when constructed; a
    `Sequential` given an `Input`, or a layer given `input_shape=`, is built when constructed and is
    reported, as are optimizers and metrics, which make variables when constructed. Only a call
    that can meet the object counts as building it: one in code that never runs (after a `return`,
    under `if False:`) cannot, nor can one done before the construction, in the same run, unless it is handed the object's owner (`self.setup()` before `self.head =
    Dense(...)`: a later trace's call meets an earlier trace's layer), so `self.encoder =
    Encoder(...)` of a class the analysis cannot see, followed by `self.head = Dense(...)`, leaves
    the `Dense` silent. Keras 3's `Dropout`, `SpatialDropout*`, `GaussianDropout` (by `rate`) and
    `GaussianNoise` (by `stddev`) make a seed-generator variable when constructed, and are
    reported even when nothing builds them, unless the rate is shown to be 0 (`Dropout(0.0)`,
    `Dropout(rate=0.0)`, a constant `NO_DROP = 0.0`): then they make none, built or not.

    Default tier: the call is known to make a variable: `tf.Variable`, `tf.random.Generator`,
    `self.add_weight`, or a layer, model, metric or optimizer class named by the framework's
    public API (`tf.keras.layers.Dense`). Preview tier (`--preview`), each with its reason in
    the finding's proof: a class found only in one of the framework's own modules
    (`tf_keras.layers.rnn.legacy_cells.LSTMStateTuple` is a namedtuple), `add_weight` on another
    receiver (taken by its name), `tf.compat.v1.get_variable` (it gets the existing variable when
    a variable store such as `track_tf1_style_variables` holds one), and any constructor inside
    a `tf.variable_creator_scope`, whose creator decides what is made, or inside `tf.init_scope()`
    (it raises where the Function is called eagerly; called while a TF1 graph or a TFF
    computation is built, the variable is made once in that graph). Not reported:
    `get_variable` under `track_tf1_style_variables`, and the factory of `get_or_create_layer`
    (it runs once), however tf-keras spells them. Code reached only because a function is handed
    to something other than a framework API that calls it while tracing is preview too. Not
    reported in a Keras layer's `call` that only Keras's symbolic builds run (a functional model
    on `keras.Input`, a `Sequential`) where nothing near it stages anything else (no
    `tf.function`, `fit`, `predict`, save, ...) and the built models are trained by hand
    (`optimizer.apply_gradients` outside staged code): a symbolic build runs `call` once and
    makes no tf.function, so no second trace raises (the variable is still a fresh, untrained
    one on every eager call, a defect of another kind). Elsewhere, where only a symbolic build
    runs such a `call` and nothing shows a Function running an object of its class (no `fit`,
    `predict` or save of a model of it, no `tf.function`, Keras `train_step` or traced layer
    calling or making it, nor, in the modules joined to it by imports, a Keras loop or traced call
    of a model whose class the code does not show, which the built model may be), whether a
    Function ever runs the built model is not shown: preview (a module that builds models on
    `keras.Input` and returns them for code outside the project to fit, or one whose only
    `tf.function` scales a tensor).

    ## Why is this bad?
    A tf.function keeps the variables one trace creates, and no more: when its first trace
    creates variables, it traces the function again on that same call, and a variable created
    in that second trace raises `ValueError: tf.function only supports singleton tf.Variables
    created on the first call` (in a later trace: `ValueError: Creating variables on a non-first
    call`). So an unconditional `tf.Variable` fails on the very first call, not on a later one;
    one under a Python `if` fails on the first call that takes the branch; a Keras layer built
    inside the function does the same (all observed with TF 2.21 in
    `tests/runtime/test_message_facts.py`). The guard below works because the second trace finds
    `self.v` set.

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
    function_trace = True  # tf.function's variable checks: a Keras symbolic build makes no Function
    name = "variable-creation"
    message = "`{what}` creates a variable each time {func} is traced, and tf.function keeps the variables of one trace only: it traces a function that created some again on the same call, so the first call that runs this line raises ValueError; create it outside, or under `if self.v is None:`"
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

        Head().predict(features)
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

    def __init__(self, ctx):
        super().__init__(ctx)
        #: classes of this file whose methods create variables (`add_weight`, `tf.Variable`)
        self.creating_classes: set[str] = set()
        #: `RNN(cell)` / `TimeDistributed(layer)` constructions, judged at the end on the wrapped
        #: layer: (node, function, cell)
        self.wrappers: list[tuple] = []
        #: lines of the `with tf.variable_creator_scope(...)` statements the walk is inside
        self.creator_scopes: list[int] = []
        #: lines of the `with tf.init_scope():` statements the walk is inside
        self.lifting_scopes: list[int] = []
        #: constructions applied at once (`Dense(3)(x)`: the inner call's id)
        self.applied: set[int] = set()
        #: def node id -> [(construction, what to do unless it is built elsewhere)]: Keras objects a
        #: staged function makes, decided at its end (`_built_elsewhere`), when all its calls are known
        self.pending: dict[int, list] = {}

    def visit_With(self, node: cst.With) -> None:
        line = self.ctx.position(node).line
        if any(isinstance(i.item, cst.Call) and self.ctx.qualified_names(i.item.func) & VARIABLE_CREATOR_SCOPES
               for i in node.items):
            self.creator_scopes.append(line)
        else:
            self.creator_scopes.append(0)
        self.lifting_scopes.append(line if self.ctx.is_lifting_scope(node) else 0)

    def leave_With(self, node: cst.With) -> None:
        self.creator_scopes.pop()
        self.lifting_scopes.pop()

    def visit_Call(self, node: cst.Call) -> None:
        ctx = self.ctx
        if ctx.function is None:
            return
        fw = ctx.framework
        names = ctx.qualified_names(node.func) if not isinstance(node.func, cst.Call) else set()
        creates = any(fw.creates_variables(q) for q in names) or (
            isinstance(node.func, cst.Attribute) and node.func.attr.value in fw.variable_creating_methods)
        if creates and ctx.function.facts.class_qualname:
            self.creating_classes.add(ctx.function.facts.class_qualname)
        if ctx.guard_depth or after_early_return_guard(ctx, ctx.function, node):
            return
        if isinstance(node.func, cst.Call):
            self.applied.add(id(node.func))
            return  # `Dense(3)(x)`: the construction inside is the one to report
        if any(fw.creates_variables(q) for q in names):
            # `critic = [Sequential([Conv2D(...)])]` in a builder that calls none of them: known at
            # the function's end (`leave_FunctionDef`), what this line does waits until then
            later = self._maybe_built_elsewhere(node, names)
            keywords, positional = _arguments(ctx, node, names)
            keywords = keywords if not positional else None  # (a positional argument: unknown)
            if any(fw.creates_no_variables(q, keywords) for q in names):
                return  # `Add()`, `Activation("relu")`, pooling, `Attention()`: a layer with no variables
            if self._functional_model(node, names):
                return  # `keras.Model(inputs, outputs)`: wires built layers, makes no variable itself
            if names & GET_OR_CREATE_VARIABLES and set(ctx.function.facts.decorators) & GET_OR_CREATE_DECORATORS:
                return  # `get_variable` under `track_tf1_style_variables`: the first call's variable again
            if node.args and any(q.rsplit(".", 1)[-1] in KERAS_WEIGHTLESS_WRAPPERS and fw.owns(q) for q in names):
                wrapper = (node, ctx.function, node.args[0].value)
                if later:
                    self.pending.setdefault(id(ctx.function.node), []).append((node, wrapper, None))
                else:
                    self.wrappers.append(wrapper)
                return
            fields = {"what": f"{short_code(node.func)}(...)", "_because": self._creation_facts(node, names)}
            if later:
                held = self.hold(node, **fields)
                if held is not None:
                    self.pending.setdefault(id(ctx.function.node), []).append((node, None, held))
            else:
                self.report(node, **fields)
        elif isinstance(node.func, cst.Attribute) and node.func.attr.value in fw.variable_creating_methods:
            self.report(node, what=f"{short_code(node.func)}(...)", _because=self._creation_facts(node, names))

    @staticmethod
    def _functional_model(node: cst.Call, names: set[str]) -> bool:
        """`node` constructs a functional Keras model (`frameworks.builds_at_construction`), which
        creates no variable itself (`KERAS_FUNCTIONAL_NAMES`)."""
        keywords = {a.keyword.value for a in node.args if a.keyword is not None}
        positional = sum(1 for a in node.args if a.keyword is None and not a.star)
        return any(builds_at_construction(q, keywords, positional) for q in names)

    def _maybe_built_elsewhere(self, node: cst.Call, names: set[str]) -> bool:
        """`node` constructs a Keras layer or model class (`frameworks.tensorflow`'s
        `KERAS_BUILDING_INPUTS` note: its weights are made when it is built, not here), not
        applied at once, in a function staged itself (`@tf.function`: what it returns or stores
        leaves the trace): whether the function builds what it makes is `_built_elsewhere`'s
        question, asked at its end."""
        if id(node) in self.applied or not names or not all(
                TENSORFLOW.is_layer_class_name(q) for q in names):
            return False
        keywords, positional = _arguments(self.ctx, node, names)
        if any(layer_state_at_construction(q, keywords, positional) for q in names):
            return False  # `Dropout(0.5)`, `LSTM(8)`: Keras 3 makes a seed-generator variable here
        # (a helper is not: its traced caller may call what it returns or stores)
        return bool(set(self.ctx.function.facts.decorators) & self.ctx.framework.staging_decorators)

    def leave_FunctionDef(self, node: cst.FunctionDef) -> None:
        """The constructions `_maybe_built_elsewhere` kept: reported (or, for a wrapper, judged at
        the end) unless the function builds nothing they make (`_built_elsewhere`)."""
        pending = self.pending.pop(id(node), None)
        if not pending:
            return
        func = self.ctx.function_infos[id(node)]
        building = self._may_build(func)
        held = containers(self.ctx, func) if building is not True else None
        for made, wrapper, report in pending:
            if self._built_elsewhere(building, held, made):
                continue
            if wrapper is not None:
                self.wrappers.append(wrapper)
            else:
                self.ctx.release(report)

    def _built_elsewhere(self, building, held, node: cst.Call) -> bool:
        """The function builds nothing the construction `node` makes (`_may_build`): its variables
        are made where the object is first called, not in this trace."""
        if building is True:
            return False
        # only a call that can meet the object this line makes builds it: one done before the
        # construction, in the same run, cannot (`analysis.meets`), so another line's call there
        # (a project class's constructor, `Encoder(self.units)`) decides nothing about this one
        stored = stored_on(self.ctx, node)
        return not any(can_meet(self.ctx, held, call, node, stored) for call in building)

    def _may_build(self, func):
        """The calls in `func` that may build a Keras object it makes (True: any object, or not
        known): a call of anything the function computes or holds (a local, a parameter, `self`,
        a call's result, an item), a method other than a list's or a string's
        (`LIST_BUILDING_METHODS`), an `Input` / `InputLayer`, or, where the function makes a Keras
        model, a layer given its input shape (`KERAS_INPUT_SHAPE_KEYWORDS`): such a `Sequential`
        builds when constructed (a Keras 3 layer constructor alone makes no variable,
        `frameworks.layer_state_at_construction`). Which of them can meet a given construction's
        object is `_built_elsewhere`'s question."""
        ctx = self.ctx
        if any(isinstance(n, (cst.FunctionDef, cst.ClassDef, cst.Lambda)) for n in in_body(ctx, func, func.inner)):
            return True  # (a nested function's calls are not followed)
        calls = in_body(ctx, func, func.calls)  # (recorded by the walk: code that never runs holds none)
        # a layer given its input shape builds only inside a model that is made (`Sequential`):
        # a Keras 3 layer constructor alone creates no variable (`KERAS3_LAYERS_STATE_AT_CONSTRUCTION`)
        makes_model = any(is_keras_model_class(q) for n in calls for q in ctx.qualified_names(n.func))
        building = []
        for n in calls:
            if makes_model and any(
                    a.keyword is not None and a.keyword.value in KERAS_INPUT_SHAPE_KEYWORDS for a in n.args):
                return True
            callee = n.func
            if isinstance(callee, cst.Attribute) and callee.attr.value in LIST_BUILDING_METHODS:
                pass
            else:
                root = callee
                while isinstance(root, cst.Attribute):
                    root = root.value
                qualified = ctx.qualified_names(callee)
                if not isinstance(root, cst.Name) or not qualified \
                        or ctx.binding_kind(root, func) in ("local", "param", "self", "closure", "unknown") \
                        or any(q.rsplit(".", 1)[-1] in KERAS_BUILDING_INPUTS for q in qualified) \
                        or (isinstance(callee, cst.Attribute) and not any(
                            fw_name.startswith(("tensorflow.", "keras.", "tf_keras.", "numpy.", "builtins."))
                            for fw_name in qualified)):
                    building.append(n)
        return building

    def _creation_facts(self, node: cst.Call, names: set[str]) -> list:
        """Why the call makes a variable each time it runs: known for the framework's variable
        constructors, the classes of its public API that own variables and `self.add_weight`; a
        guess (preview) for the rest, and under a scope whose creator decides what is made."""
        ctx, fw, span = self.ctx, self.ctx.framework, self.ctx.position(node)
        shown = short_code(node.func)
        scope = next((line for line in reversed(self.creator_scopes) if line), 0)
        if scope:
            return [fact(f"inside the `tf.variable_creator_scope` of line {scope}, whose creator decides what "
                         f"`{shown}` returns: one that returns a tensor makes no variable (TF 2.21)", span, HEURISTIC)]
        lifted = next((line for line in reversed(self.lifting_scopes) if line), 0)
        if lifted:
            # (tests/runtime/test_tf_variable_creation_facts.py: called eagerly it raises, called
            # while a graph is built, as a TFF computation does, it makes the variable once)
            return [fact(f"inside the `tf.init_scope()` of line {lifted}, `{shown}` is made in the outermost "
                         f"context: that raises only where the Function is called eagerly, not while a graph "
                         f"is built (a TF1 graph, a TFF computation); which one calls it is not known", span,
                         HEURISTIC)]
        if names & GET_OR_CREATE_VARIABLES:
            return [fact(f"`{shown}` makes a variable only when no variable store in effect holds one by that "
                         f"name (`track_tf1_style_variables`, a reusing `variable_scope`): which store is in "
                         f"effect here is not known", span, HEURISTIC)]
        if any(fw.public_variable_owner(q) for q in names):
            return [fact(f"`{shown}` makes a new variable, or an object that owns variables, each time it runs",
                         span, TRUE)]
        if any(fw.creates_variables(q) for q in names):
            return [fact(f"`{shown}` is taken to own variables only because its class is defined in a module "
                         f"of the framework's own code, not named by its public API", span, HEURISTIC)]
        receiver = node.func.value if isinstance(node.func, cst.Attribute) else None
        if isinstance(receiver, cst.Name) and ctx.binding_kind(receiver, ctx.function) == "self":
            return [fact(f"`{shown}` makes a new variable each time it runs", span, TRUE)]
        return [fact(f"`{shown}` is taken for a Keras layer's variable-making method by its name alone",
                     span, HEURISTIC)]

    def finish(self) -> None:
        for node, func, cell in self.wrappers:
            if self._cell_without_variables(cell, func):
                continue  # `RNN(CrfDecodeForwardRnnCell(...))`: the RNN owns only its cell's variables
            held = self._own_attribute(cell, func)
            self.report(node, function=func, what=f"{short_code(node.func)}(...)",
                        **({"_wrapped_attr": held} if held else {}))

    @staticmethod
    def _own_attribute(cell, func) -> list[str] | None:
        """[class, attribute] when the wrapped layer is `self.<attribute>` of the method's own class
        (decided in `confirm`, where every write of the attribute is known)."""
        if isinstance(cell, cst.Attribute) and isinstance(cell.value, cst.Name) and func.facts.class_qualname \
                and cell.value.value == func.self_name:
            return [func.facts.class_qualname, cell.attr.value]
        return None

    def _cell_without_variables(self, cell, func) -> bool:
        """The RNN's cell is an object of a class of this file whose methods create no variables
        and whose bases are the framework's (a Keras cell class, not one of the project)."""
        ctx = self.ctx
        if isinstance(cell, cst.Name):
            refs = ctx.reaching(cell, func) or ()
            values = [ctx.bound_values.get(id(getattr(r, "node", None))) for r in refs]
            if len(values) != 1:
                return False
            cell = values[0]
        if not isinstance(cell, cst.Call) or not isinstance(cell.func, cst.Name):
            return False
        classes = [getattr(b, "node", None) for b in ctx.bindings_of(cell.func)]
        if len(classes) != 1 or not isinstance(classes[0], cst.ClassDef):
            return False
        fw = ctx.framework
        for base in classes[0].bases:
            if not any(fw.owns(q) for q in ctx.qualified_names(base.value)):
                return False  # a project base class may create variables of its own
        return not (ctx.qualified_names(cell.func) & self.creating_classes)

    @classmethod
    def confirm(cls, candidate, project, module):
        held = candidate.fields.get("_wrapped_attr")
        if held and _set_up_once(project, module.module, *held):
            return False
        key = (module.module, candidate.function)
        return with_staging_certainty(key in project.unguarded, project, key)


def _set_up_once(project, module: str, cls: str, attr: str) -> bool:
    """`self.<attr>` of `cls` is written only in the set-up methods (`__init__`, `build`) of its
    class family, and nothing else the project shows may write it (a write on an object of
    unknown class counts): the layer it holds is made once per object, outside the traced calls,
    so a weightless wrapper (`KERAS_WEIGHTLESS_WRAPPERS`) made around it in each call makes no
    variable; the layer's own are made at its first build, once (`RNN(self.gru_cell)` in DIEN's
    `call`: tests/runtime/test_tf_thirteenth_audit_facts.py)."""
    found = project.class_near(cls, module)
    if found is None:
        return False
    family = project.class_family(found[1].qualname)

    def owner(write) -> str | None:
        found = project.resolve_class(write.owner) if write.owner else None
        return found[1].qualname if found is not None else None

    mine = [w for _, w in project.attr_writes(attr) if (o := owner(w)) is None or o in family]
    return bool(mine) and all(w.on_self and w.in_init and not w.augmented for w in mine)


class SharedFunctionStatefulObject(Rule):
    """
    ## What it does
    Flags a call of a `tf.function` that passes a Keras optimizer, model or layer different from
    the one an earlier call passed for the same parameter, when the new object has not been
    built before the call: two optimizers in turn (`train_step(w, x, y, opt1)`, then `opt2`), a
    loop over optimizers or models, an optimizer constructed in the call itself, or a model or
    optimizer constructed anew on each iteration of the loop that makes the call (a
    hyper-parameter sweep: `for lr in rates: opt = SGD(lr); train_step(model, opt, x)`).
    Also one level up: a function that makes a new optimizer or model on each of its calls and
    passes it to the same Function, when that function is itself called in a loop (`def
    train_once(x): opt = Adam(); train_step(w, x, opt)` called per epoch).

    Not flagged: the same object at every call; objects built before the call
    (`opt2.build(variables)`, `model.build(shape)`, a model already called or fitted, a
    functional model `tf.keras.Model(inputs=..., outputs=...)`, whose layers were built when
    called on its Keras inputs); a Keras 3 `keras.optimizers.SGD` without momentum, which makes
    its variables when it is made and none at its first apply (`tf.keras.optimizers.SGD`, Keras
    3 only by the environment's choice in TF 2.21, is reported with `--preview`); one
    Function per object (`tf.function(train_step)` made twice, or made inside the function that
    makes the object, or anew in the same loop iteration as the object: `step = get_train()`
    then `opt = Adam()` per outer iteration, the batches in an inner one; a `tf.Module` that
    holds its own optimizer, or `tf.function(train_step).get_concrete_function(..., opt)` per optimizer, the
    guide's workarounds); calls made while tracing another staged function; calls from two
    programs of the project (scripts nothing imports, each running its own top-level code), which
    run in two processes and so never meet one Function object (a test module is no program:
    pytest runs them all in one process).

    ## Why is this bad?
    Optimizers create their slot variables, and unbuilt models and layers their weights, the
    first time they run. The first object does so on the Function's first trace, which is
    allowed. A second object passed later retraces the function (objects are keyed by
    identity) and creates variables on a non-first call: `ValueError: tf.function only
    supports singleton tf.Variables created on the first call`. Eager mode works, so this
    appears only under staging.

    ## Example
    ```python
    @tf.function
    def train_step(w, x, y, optimizer):
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(tf.square(w * x - y))
        gradients = tape.gradient(loss, [w])
        optimizer.apply_gradients(zip(gradients, [w]))

    train_step(w, x, y, opt1)
    train_step(w, x, y, opt2)      # ValueError
    ```

    ## Use instead
    ```python
    train_step_1 = tf.function(train_step_impl)   # one Function per optimizer
    train_step_2 = tf.function(train_step_impl)
    train_step_1(w, x, y, opt1)
    train_step_2(w, x, y, opt2)
    ```
    Or build every optimizer (`opt2.build([w])`) or model (`model.build(input_shape)`) before
    the first call.
    """

    code = "STG403"
    name = "shared-function-stateful-object"
    message = "this call passes the {kind} `{value}` to {func}, which {earlier}: a new {kind} creates its variables on a non-first call of the same Function (ValueError); {instead}"
    valid = (
        """
        import tensorflow as tf

        def train_step(w, x, y, optimizer):
            with tf.GradientTape() as tape:
                loss = tf.reduce_sum(tf.square(w * x - y))
            gradients = tape.gradient(loss, [w])
            optimizer.apply_gradients(zip(gradients, [w]))

        opt1 = tf.keras.optimizers.Adam(learning_rate=1e-2)
        opt2 = tf.keras.optimizers.Adam(learning_rate=1e-3)
        w = tf.Variable(2.0)
        x = tf.constant([-1.0])
        y = tf.constant([2.0])
        train_step_1 = tf.function(train_step)
        train_step_2 = tf.function(train_step)
        for i in range(10):
            if i % 2 == 0:
                train_step_1(w, x, y, opt1)
            else:
                train_step_2(w, x, y, opt2)
        """,
        """
        import tensorflow as tf

        @tf.function
        def forward(model, x):
            return model(x)

        m1 = tf.keras.Sequential([tf.keras.layers.Dense(2)])
        m2 = tf.keras.Sequential([tf.keras.layers.Dense(2)])
        m2.build((None, 3))
        x = tf.ones([1, 3])
        forward(m1, x)
        forward(m1, x)
        forward(m2, x)
        """,
        """
        import tensorflow as tf

        w = tf.Variable(2.0)
        opt = tf.keras.optimizers.Adam(1e-2)     # one optimizer for every call

        @tf.function
        def train_step(x, optimizer):
            with tf.GradientTape() as tape:
                loss = tf.reduce_sum(tf.square(w * x))
            optimizer.apply_gradients(zip(tape.gradient(loss, [w]), [w]))

        def train_once(x):
            train_step(x, opt)

        for epoch in range(3):
            train_once(tf.ones([2]))
        """,
    )
    invalid = (
        """
        import tensorflow as tf

        opt1 = tf.keras.optimizers.Adam(learning_rate=1e-2)
        opt2 = tf.keras.optimizers.Adam(learning_rate=1e-3)

        @tf.function
        def train_step(w, x, y, optimizer):
            with tf.GradientTape() as tape:
                L = tf.reduce_sum(tf.square(w*x - y))
            gradients = tape.gradient(L, [w])
            optimizer.apply_gradients(zip(gradients, [w]))

        w = tf.Variable(2.)
        x = tf.constant([-1.])
        y = tf.constant([2.])
        train_step(w, x, y, opt1)
        print("Calling `train_step` with different optimizer...")
        train_step(w, x, y, opt2)  # STG403
        """,
        """
        import tensorflow as tf

        @tf.function
        def forward(model, x):
            return model(x)

        x = tf.ones([1, 3])
        for model in [tf.keras.Sequential([tf.keras.layers.Dense(2)]), tf.keras.Sequential([tf.keras.layers.Dense(4)])]:
            forward(model, x)  # STG403
        """,
        """
        import tensorflow as tf

        w = tf.Variable(2.0)

        @tf.function
        def train_step(x, optimizer):
            with tf.GradientTape() as tape:
                loss = tf.reduce_sum(tf.square(w * x))
            optimizer.apply_gradients(zip(tape.gradient(loss, [w]), [w]))

        def train_once(x):
            opt = tf.keras.optimizers.Adam(1e-2)
            train_step(x, opt)  # STG403

        for epoch in range(3):
            train_once(tf.ones([2]))
        """,
    )

    @classmethod
    def project_candidates(cls, project):
        out = []
        for key, calls in sorted(project.function_calls.items()):
            groups: dict[tuple[str, str], list] = {}
            for module, site, via in calls:
                if project.in_traced_code(module, site):
                    continue
                for param, arg in project.passed(site, key):
                    kind = _stateful_kind(project, arg)
                    if kind and arg.ident:
                        groups.setdefault((via, param), []).append((module, site, arg, kind))
            for (via, _), items in groups.items():
                items.sort(key=lambda item: (item[0], item[1].span.line, item[1].span.column))
                per_call = list(_made_per_call_of_a_repeated_caller(project, key, via, items))
                out.extend(per_call)
                said = {(module, c.span) for module, c in per_call}
                # (ident, text, module, line) of the object the Function was first traced with, one
                # per process the calls may run in: calls of two programs never meet (`Project.may_meet`)
                firsts: list[tuple[str, str, str, int]] = []
                for module, site, arg, kind in items:
                    for ident in _objects(arg, site):
                        first = next((f for f in firsts if project.may_meet(f[2], module)), None)
                        if first is None:
                            firsts.append((ident, arg.text, module, site.span.line))
                            continue
                        if ident == first[0] or _built_before(project, module, ident, site.span.line) \
                                or (module, site.span) in said:
                            continue
                        if ident.split("#")[0] == first[0].split("#")[0]:
                            earlier = ("gets a new one each time this line runs" if "(" in arg.text
                                       else "gets a new one on each iteration of the loop")
                        elif (first[2], first[3]) == (module, site.span.line):
                            earlier = "gets a different one on each iteration of the loop"
                        else:
                            where = f"line {first[3]}" if first[2] == module else f"{first[2]} line {first[3]}"
                            earlier = f"was already traced with `{first[1]}` ({where})"
                        instead = ("use one tf.function per optimizer, or build it first (`opt.build(variables)`)"
                                   if kind == "optimizer" else
                                   "build it before the first call (`model.build(input_shape)`), or use one tf.function per model")
                        out.append((module, F.Candidate(cls.code, site.caller, site.span, {
                            "kind": kind, "value": arg.text, "earlier": earlier, "instead": instead,
                            "_anchors": [list(key)], **_keras3_guess(project, module, ident, site.span.line, arg.text),
                        })))
                        break
        return out


def _made_per_call_of_a_repeated_caller(project, key, via: str, items):
    """Candidates for objects a function makes afresh on each of its calls and passes to the
    same Function, when that function is itself called from a loop: the Function's first call
    traces with the first object, the next call of the function brings a new one that creates
    its variables on a non-first call (ValueError; tests/test_keras_loops_and_helpers.py)."""
    for module, site, arg, kind in items:
        if (site.in_loop and arg.ident.startswith("new@")) or not _made_per_call(arg, site) \
                or _built_before(project, module, arg.ident, site.span.line):
            continue  # (made in the call, in a loop of the function itself: a new one per iteration, below)
        caller = (module, site.caller)
        if not _same_function_each_call(project, key, via, site, caller):
            continue
        repeat = _called_in_a_loop(project, caller, by_self=site.target[0] == "self")
        if repeat is None:
            continue
        where_module, loop_site = repeat
        shown = project.display(caller, module)
        where = f"line {loop_site.span.line}" if where_module == module else \
            f"{project.modules[where_module].path} line {loop_site.span.line}"
        made = arg.text if "(" in arg.text else f"`{arg.text}`"
        because = [fact(f"{made} is a new {kind} on each call of `{shown}`", site.span),
                   fact(f"`{shown}` is called in a loop" if where_module == module else f"`{shown}` is called in a loop ({where})",
                        loop_site.span if where_module == module else site.span)]
        instead = (f"make the {kind} once, outside `{shown}`, and pass it in"
                   + (", or build it first (`opt.build(variables)`)" if kind == "optimizer" else
                      ", or build it before the call (`model.build(input_shape)`)"))
        yield module, F.Candidate(SharedFunctionStatefulObject.code, site.caller, site.span, {
            "kind": kind, "value": arg.text, "_anchors": [list(key)], "instead": instead,
            "earlier": f"gets a new one on each call of `{shown}`, which is called in a loop ({where})",
            "_because": because + _keras3_guess(project, module, arg.ident, site.span.line, arg.text).get("_because", []),
        })


def _made_per_call(arg, site) -> bool:
    """The object is constructed in the calling function itself, on each of its calls: built right
    in the call (`new@`) or bound to a local name (`opt@12`, from a constructor: `value_of`)."""
    if site.caller is None or arg.root or "|" in arg.ident:
        return False
    name = arg.ident.split("@")[0]
    return name == "new" or (name.isidentifier() and arg.ident != "")


def _same_function_each_call(project, key, via: str, site, caller) -> bool:
    """Every call of `caller` calls the same Function object: a decorated module-level function,
    a name bound once at module level to `tf.function(...)`, or a decorated method called
    through `self` (one Function per instance) from a method itself called through `self`."""
    f = project.function(key)
    if f is None or "<locals>" in key[1] or "<locals>" in via:
        return False
    if via:
        return via.startswith("name:")
    if project.entries.get(key) != "decorator":
        return False
    return not f.class_qualname or site.target[0] == "self"


def _called_in_a_loop(project, caller, by_self: bool):
    """(module, site) of a call of `caller` made inside a loop, outside staged code (through
    `self` when the Function is a method: the same instance), or None."""
    for module, site in project.call_sites.get(caller, ()):
        if not site.in_loop or (by_self and site.target[0] != "self"):
            continue
        if project.in_traced_code(module, site):
            continue
        return module, site
    return None


def _stateful_kind(project, arg) -> str | None:
    """"optimizer", "model" or "layer" for a Keras object that creates variables on first use."""
    if arg.what in ("optimizer", "model", "layer"):
        return arg.what
    if arg.what == "object" and arg.cls:
        if project.is_layer_class(project.resolved_class_name(arg.cls)):
            return "model"
    return None


def _objects(arg, site) -> list[str]:
    """The objects a call passes over its executions: one, each element of a loop over a literal
    list, or a new one per execution when it is constructed in the call inside a loop, within the
    lines where the call runs the same Function again (`CallSite.loop`). An object made outside
    them, in an outer loop that also makes the Function anew (`step = get_train()`, then `opt =
    SGD(...)`, then the batches), is one per Function: tf.function allows variables on the first
    call of each Function object, and each new optimizer's first use is its new Function's first
    call (tests/runtime/test_tf_pooled_weak_rules_facts.py)."""
    idents = arg.ident.split("|")
    if len(idents) == 1 and idents[0].startswith("new@") and site.in_loop and _made_within(idents[0], site.loop):
        return [idents[0] + "#1", idents[0] + "#2"]
    return idents


def _made_within(ident: str, loop) -> bool:
    """`new@<line>:<column>` was made within the lines of `loop` (a position not shown: taken so)."""
    line = ident[4:].split(":")[0]
    return not line.isdigit() or loop.line <= int(line) <= loop.end_line


def _built_before(project, module: str, ident: str, line: int) -> bool:
    built = project.modules[module].built.get(ident.split("#")[0])
    return built is not None and built < line


def _keras3_guess(project, module: str, ident: str, line: int, text: str) -> dict:
    """The preview reason when the object is a `tf.keras` optimizer whose variables all exist once
    it is made where `tf.keras` is Keras 3 (`ModuleFacts.built_if_keras3`): which Keras runs is
    the environment's choice, so the ValueError is a guess."""
    built = project.modules[module].built_if_keras3.get(ident.split("#")[0])
    if built is None or built >= line:
        return {}
    return {"_because": [fact(f"`{text}` is a `tf.keras` SGD without momentum: where `tf.keras` is Keras 3 (TF 2.21's "
                              f"default) it makes its variables when it is made, none in the Function; taken to be "
                              f"Keras 2 (tf_keras), which makes them at its first apply", F.Span(built, 0, built, 0),
                              HEURISTIC)]}
