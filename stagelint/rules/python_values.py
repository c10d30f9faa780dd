"""Python values that tracing freezes: iterators, random draws and clocks, state guards (STG103-105)."""

from __future__ import annotations

import libcst as cst

from stagelint.analysis.guards import keras_built_test, runs_once
from stagelint.analysis.keras_models import built_before_call
from stagelint.analysis.proof import fact, verdict_fields, with_preview, with_staging_certainty, with_steps
from stagelint.analysis.repetition import reuse_shown
from stagelint.analysis.objects import root_kind
from stagelint.analysis.context import short_code
from stagelint.analysis.literals import constant_literal
from stagelint.frameworks import (
    FROZEN_VALUE_CALLS,
    FROZEN_VALUE_EXCEPTIONS,
    FROZEN_VALUE_PREFIXES,
    RNG_CONSTRUCTORS,
    RNG_NON_DRAW_METHODS,
    SEEDING_CALLS,
)
from stagelint.analysis.effects import call_rebinds, only_printed, runs_state_op, state_op
from stagelint.analysis.stores import put_back_writes
from stagelint.frameworks.tensorflow import STATEFUL_SEEDED_OPS, STATELESS_RANDOM_PREFIX
from stagelint.rules.base import Rule
from stagelint.analysis.tensors import PYTHON_ITERATORS, tensorness, value_of


class PythonIterator(Rule):
    """
    ## What it does
    Flags, in staged code, `next()` on a Python iterator or generator that outlives the call (a
    global, an attribute of `self`, or an argument whose callers pass `iter([...])`, a generator
    or another Python iterator), and a `for` loop over such an iterator. It also flags `yield` in
    a function that is itself a `tf.function`.

    Not flagged: `tf.data` iterators (`iter(dataset)`), which are graph state and advance on
    every call; iterators created inside the call (`it = iter(xs)`), which start afresh in eager
    mode too; arguments whose callers are not visible (nothing says they are Python iterators).

    Under JAX an argument whose callers pass an iterator is reported only with `--preview`: the
    helper is traced inside its caller's trace, and an iterator the caller makes per call (a
    generator of the call's items) is consumed by that call's own trace; that one iterator
    outlives two calls which reuse a trace is not shown. A global or closed-over iterator (JAX's
    "Common Gotchas": `next(iterator)` in a `fori_loop` body runs once) stays in the default.

    ## Why is this bad?
    A Python iterator is advanced while tracing and the element it produced is baked into the
    graph as a constant. The same iterator object does not cause a retrace, so every later call
    sees that first element: the guide's `buggy_consume_next` prints `Value: 1` three times where
    eager code prints 1, 2, 3. A generator looped over is exhausted by the first trace. A
    generator function decorated with `tf.function` fails: its result is a generator, not
    tensors (`TypeError`).

    ## Example
    ```python
    @tf.function
    def buggy_consume_next(iterator):
        tf.print("Value:", next(iterator))

    iterator = iter([1, 2, 3])
    buggy_consume_next(iterator)       # Value: 1, every time
    ```

    ## Use instead
    ```python
    @tf.function
    def good_consume_next(iterator):
        tf.print("Value:", next(iterator))

    iterator = iter(tf.data.Dataset.from_tensor_slices([1, 2, 3]))
    good_consume_next(iterator)        # Value: 1, then 2, then 3
    ```
    """

    code = "STG103"
    name = "python-iterator"
    message = "{what} advances a Python iterator ({source}) only while {func} is traced: every call that reuses the trace sees the same element; iterate a `tf.data` dataset instead (`iter(tf.data.Dataset...)`)"
    jax_message = "{what} advances a Python iterator ({source}) only while {func} is traced by JAX: every call that reuses the trace sees the same element; take the next element outside and pass it in"
    valid = (
        """
        import tensorflow as tf

        @tf.function
        def good_consume_next(iterator):
            tf.print("Value:", next(iterator))

        ds = tf.data.Dataset.from_tensor_slices([1, 2, 3])
        iterator = iter(ds)
        good_consume_next(iterator)
        good_consume_next(iterator)
        """,
        """
        import tensorflow as tf

        @tf.function
        def first_two(xs):
            it = iter([1, 2])
            return xs * next(it) + next(it)
        """,
    )
    invalid = (
        """
        import tensorflow as tf

        @tf.function
        def buggy_consume_next(iterator):
            tf.print("Value:", next(iterator))  # STG103

        iterator = iter([1, 2, 3])
        buggy_consume_next(iterator)
        buggy_consume_next(iterator)
        """,
        """
        import tensorflow as tf

        def batches():
            yield 1.0
            yield 2.0

        source = batches()

        def scale(x):
            return x * next(source)  # STG103

        @tf.function
        def step(x):
            return scale(x)
        """,
    )

    def visit_Call(self, node: cst.Call) -> None:
        ctx = self.ctx
        if ctx.function is None or not ctx.in_staged_context or not node.args:
            return
        if "builtins.next" not in ctx.qualified_names(node.func):
            return
        self._candidate(node, node.args[0].value, f"`next({short_code(node.args[0].value)})`")

    def visit_For(self, node: cst.For) -> None:
        ctx = self.ctx
        if ctx.function is None or not ctx.in_staged_context:
            return
        self._candidate(node, node.iter, f"`for ... in {short_code(node.iter)}`")

    def visit_Yield(self, node: cst.Yield) -> None:
        if self.ctx.function is not None:
            self.report(node, what="`yield`", source="a generator function", _entry_only=True)

    def _candidate(self, node, iterator: cst.BaseExpression, what: str) -> None:
        ctx = self.ctx
        func = ctx.function
        if isinstance(iterator, cst.Name) and ctx.binding_kind(iterator, func) == "param":
            self.report(node, what=what, source="", _param=iterator.value)
            return
        if root_kind(ctx, func, iterator) is None:
            return  # made inside the call: starts afresh on every call, in eager mode too
        value = value_of(ctx, iterator, func)
        if value.what in PYTHON_ITERATORS:
            kind = "a generator" if value.what == "generator" else "a Python iterator"
            self.report(node, what=what, source=f"`{short_code(iterator)}` is {kind}")

    @classmethod
    def confirm(cls, candidate, project, module):
        key = (module.module, candidate.function)
        if candidate.fields.get("_entry_only"):
            return project.is_function_object(key)
        param = candidate.fields.get("_param")
        if not param:
            return True
        for mod, site, arg in project.args_for(key, param):
            if project.in_traced_code(mod, site):
                continue  # made by a caller traced with it: a fresh iterator on every trace
            if arg.what in PYTHON_ITERATORS:
                kind = "a generator" if arg.what == "generator" else "a Python iterator"
                where = f"line {site.span.line}" if mod == module.module else f"{mod} line {site.span.line}"
                verdict = {"source": f"callers pass {kind}, `{arg.text}` ({where})"}
                if project.staged_by_jax(key):
                    # Under JAX the helper is traced inside its caller's trace: an iterator its
                    # caller makes per call (jaxls's generator of variables) is consumed by that
                    # call's own trace. That one iterator outlives two calls is not shown.
                    verdict["_preview"] = (f"whether one {kind[2:]} is passed to two calls that reuse a trace, "
                                           f"rather than one made per call, is not shown")
                return verdict
        return False


class FrozenPythonValue(Rule):
    """
    ## What it does
    Flags calls in staged code whose Python result is computed once, while tracing: Python's
    `random.*`, NumPy's `np.random.*` (module functions and the methods of `np.random.Generator`,
    `RandomState` and `random.Random` objects), `time.time()` and the other clocks,
    `datetime.now()`/`today()`, `uuid.uuid1()`/`uuid4()`, `os.urandom()` and `secrets.*`.

    Not flagged: seeding (`random.seed`, `np.random.seed`), TensorFlow's own `tf.random.*` and
    `tf.random.Generator`, and calls inside `tf.py_function` or `tf.init_scope()`, which run in
    Python on every call or on purpose once; and calls that run once per object or key eagerly
    too: under a first-call guard (`if self.noise is None:`), below an early-return guard or a
    memo test (`if key in cache: return cache[key]` where the function fills `cache[key]`), or
    in a helper only such code calls; and a draw of `np.random.*` / `random.*` after a seed of
    that generator with a constant earlier in the same function, in the draw's block or one
    enclosing it (`np.random.seed(1234)`, or `np.random.seed(seed)` with `seed = 0` bound only
    so): every eager call draws that same value, the constant the trace keeps; and a value bound
    to a local name only the function's own prints and logging read (`pref = "[" + time.ctime()
    + "]"` then `print(pref, *msg)`): those run while tracing, with the value of that moment, and
    no call or computation ever sees it (the print is STG101's).

    Default tier: code reached through calls, or through functions handed to a framework API
    that calls them while tracing; under TensorFlow, where the code also shows a later run that
    reuses the trace: the Function called twice, or in a loop (a `for`/`while` body or a
    comprehension's element; or a function calling it is, up to three callers up), a factory's
    Function called so through one binding of its result (`step = make_step()` outside the loop:
    each factory call makes a new Function), a `tf.data` function (traced once, run for every element), a Keras
    method of a class whose objects the code trains (`fit`, `evaluate`, `predict` trace the step
    once and run it per batch). Preview tier (`--preview`): a Function whose repeated calls the
    code does not show (called once, stored, made anew where it is called, a Keras layer no
    code trains: it may run eagerly); code reached only because a function is handed to something else
    (`multiprocessing.Process(target=f)`, a project function, a callee not resolved), the proof
    naming that hop; a draw passed as the `seed=` of a call that is not a stateful TensorFlow
    random op (a project helper: whether it fixes the values or seeds a stateful op is not
    shown); a draw that is all a helper returns (`def gen_int_seed(): return
    random.randrange(2**63 - 1)`), whose caller's use decides. Not flagged: a draw that is the
    `seed=` of a stateful random op (`tf.random.uniform(..., seed=np.random.randint(...))`),
    which still draws anew on every run of the trace (observed with TF 2.21); a draw (or what
    its methods make of it: `.astype(np.float32)`) bound to a local name nothing reads
    (`batch_z = np.random.uniform(...)` left over beside the `tf.random.normal` a step samples
    with): the one value the trace keeps reaches no call's result. A `tf.function`'s
    own `return random.random()` is a constant output: default.


    Under JAX the remedy is an explicit `jax.random` key passed in and split per call.

    ## Why is this bad?
    Tracing runs the Python call once and records its result as a constant in the graph. Every
    later call of the function reuses that constant: a "random" augmentation applies the same
    noise to every batch, a timestamp never moves, a UUID repeats. In eager mode each call
    draws anew, so the bug appears only once the function is staged.

    ## Example
    ```python
    @tf.function
    def np_random():
        a = np.random.randn(3, 3)    # the same matrix on every call
        tf.print(a)
    ```

    ## Use instead
    ```python
    @tf.function
    def tf_random():
        a = tf.random.normal((3, 3))  # a new draw on every call
        tf.print(a)
    ```
    For time, use `tf.timestamp()`; for values that must come from Python, compute them outside
    the function and pass them in as tensors.

    ## Fix
    `stagelint check --fix` rewrites a draw to the TensorFlow op with the same distribution,
    shape and parameters, spelled with the module's own import of TensorFlow:
    `np.random.randn(3, 3)` / `np.random.standard_normal((3, 3))` / `np.random.normal(0.0, 0.1,
    (3, 3))` to `tf.random.normal((3, 3), ...)`, `np.random.rand`, `random_sample`, `random` and
    `uniform(low, high, size)` to `tf.random.uniform(...)`, Python's `random.random()`,
    `random.gauss(mu, sigma)` and `random.normalvariate(...)` to a scalar draw, and
    `time.time()` to `tf.timestamp()`. Only where that is exact: sizes written as numbers or
    tuples, parameters written as numbers. The fix is unsafe (`--unsafe-fixes`): it changes what
    the value is. The draw becomes a float32 tensor (`tf.timestamp()` a float64 one), where NumPy
    gave a float64 array and Python a float, which TensorFlow converted to the dtype of the tensor
    they met; code that relied on float64 precision, or mixes the value with float64 tensors,
    needs a `dtype=`; and a parameter that must be a Python number refuses a tensor
    (`tf.image.random_contrast(img, lower, upper)` with a drawn `lower` raises
    OperatorNotAllowedInGraphError under `tf.function`). Integer draws, NumPy `Generator`
    methods and the other calls have no fix.
    """

    code = "STG104"
    name = "frozen-python-value"
    fixable = True
    fix_safe = False  # a Python number becomes a tensor: see "Fix"
    message = "`{call}` is evaluated once while {func} is traced and baked into the graph as a constant, so every call that reuses the trace gets the same value; use {instead}"
    jax_message = "`{call}` is evaluated once while {func} is traced by JAX and baked in as a constant, so every call that reuses the trace gets the same value; pass an explicit `jax.random` key (split per call), or the value, as an argument"
    valid = (
        """
        import numpy as np
        import tensorflow as tf

        @tf.function
        def tf_random():
            a = tf.random.normal((3, 3))
            tf.print(a, tf.timestamp())

        @tf.function
        def scaled(x):
            return x * np.pi + np.sqrt(2.0)
        """,
        """
        import random
        import tensorflow as tf

        g = tf.random.Generator.from_seed(1)

        @tf.function
        def noisy(x):
            random.seed(0)
            return x + g.normal(tf.shape(x))
        """,
        """
        import jax

        @jax.jit
        def noisy(x, key):
            return x + jax.random.normal(key, x.shape)   # JAX: an explicit key per call
        """,
    )
    invalid = (
        """
        import numpy as np
        import tensorflow as tf

        @tf.function
        def np_random():
            a = np.random.randn(3, 3)  # STG104
            tf.print(a)

        np_random()
        np_random()
        """,
        """
        import time
        import numpy as np
        import tensorflow as tf

        rng = np.random.default_rng(0)

        def jitter(x):
            return x + rng.normal()  # STG104

        @tf.function
        def step(x):
            started = time.time()  # STG104
            return jitter(x), started

        for x in tf.data.Dataset.range(3):
            step(tf.cast(x, tf.float32))
        """,
        """
        import numpy as np
        import jax

        @jax.jit
        def noisy(x):
            return x + np.random.normal()  # STG104
        """,
    )

    def __init__(self, ctx):
        super().__init__(ctx)
        #: per enclosing block, the global generators (`numpy.random`, `random`) an earlier
        #: statement of that block seeded with a literal
        self.seeded: list[set[str]] = []
        #: calls that are a `return`'s whole value (`return random.randrange(2**63 - 1)`)
        self.returned: set[int] = set()
        #: calls that are the `seed=` argument of another call -> that call's qualified names
        self.seeding: dict[int, set[str]] = {}
        #: calls whose value (or what its methods make of it) an assignment binds to one name ->
        #: that assignment: `t0 = time.perf_counter()`, `batch_z = np.random.uniform(...).astype(...)`
        #: (both calls); in insertion order, so the last one's target is the name being stored
        self.bound: dict[int, cst.Assign] = {}
        #: a reported draw bound to a name -> [function, candidate, the conditions on parameters each of
        #: its reads sit under, or None once a read is under none] (`leave_FunctionDef`)
        self.pending: dict[str, list[list]] = {}

    def visit_Name(self, node: cst.Name) -> None:
        entries = self.pending.get(node.value)
        if not entries or self._storing(node):
            return
        ctx = self.ctx
        for entry in entries:
            if entry[2] is None:
                continue
            when = set(ctx.conditions_of(entry[0])) if ctx.function is entry[0] and ctx.cond_stack else set()
            if when:
                entry[2].append(when)
            else:
                entry[2] = None  # read where a trace runs it (or in another function): it counts

    def leave_FunctionDef(self, node: cst.FunctionDef) -> None:
        func = self.ctx.function
        for name in list(self.pending):
            left = [e for e in self.pending[name] if e[0] is not func]
            for _, candidate, reads in (e for e in self.pending[name] if e[0] is func):
                # every read of the value is under conditions on parameters (`if verbose:`): it
                # reaches a trace only where they hold (`flags.untraced_branch`, asked for `_when`)
                common = set.intersection(*reads) if reads else set()
                if common:
                    candidate.fields["_when"] = sorted(common | set(candidate.fields.get("_when", ())))
            if left:
                self.pending[name] = left
            else:
                del self.pending[name]

    def visit_Return(self, node: cst.Return) -> None:
        if isinstance(node.value, cst.Call):
            self.returned.add(id(node.value))

    def visit_Assign(self, node: cst.Assign) -> None:
        # `batch_z = np.random.uniform(-1, 1, shape).astype(np.float32)`: the draw, and what its
        # methods make of it, are the name's value alone (whether anything reads it, and which
        # name a reported draw's reads are followed by: asked of a draw only, in visit_Call)
        if len(node.targets) != 1 or not isinstance(node.targets[0].target, cst.Name):
            return
        value = node.value
        while isinstance(value, cst.Call):
            self.bound[id(value)] = node
            value = value.func.value if isinstance(value.func, cst.Attribute) else None

    def _storing(self, node: cst.Name) -> bool:
        """`node` is the name an assignment of a call binds (`t0` of `t0 = time.perf_counter()`),
        not a read: visited right after that assignment, whose calls `bound` holds last."""
        bound = self.bound
        return bool(bound) and next(reversed(bound.values())).targets[0].target is node

    def visit_IndentedBlock(self, node: cst.IndentedBlock) -> None:
        self.seeded.append((self.ctx.function, set()))

    def leave_IndentedBlock(self, node: cst.IndentedBlock) -> None:
        self.seeded.pop()

    def leave_SimpleStatementLine(self, node: cst.SimpleStatementLine) -> None:
        if not self.seeded:
            return
        for stmt in node.body:
            call = stmt.value if isinstance(stmt, cst.Expr) else None
            if isinstance(call, cst.Call) and len(call.args) == 1 and call.args[0].keyword is None \
                    and constant_literal(self.ctx, call.args[0].value):
                for q in self.ctx.qualified_names(call.func):
                    if q in SEEDING_CALLS:
                        self.seeded[-1][1].add(SEEDING_CALLS[q])

    def _reseeded(self, node: cst.Call) -> bool:
        """A draw of a global generator this function seeded with a constant earlier, in the
        draw's block or one enclosing it (`np.random.seed(seed)` with `seed = 0`, then the draw
        in a loop below): every eager call draws the same sequence, so the trace's constants are
        what each call would compute (JAX 0.10.2: tests/runtime/test_jax_guard_facts.py)."""
        func = self.ctx.function
        generators = tuple(g for owner, seeded in self.seeded if owner is func for g in seeded)
        return bool(generators) and any(q.startswith(generators) for q in self.ctx.qualified_names(node.func))

    def visit_Call(self, node: cst.Call) -> None:
        ctx = self.ctx
        if ctx.function is None or not ctx.in_staged_context:
            return
        for arg in node.args:
            if arg.keyword is not None and arg.keyword.value == "seed" and isinstance(arg.value, cst.Call):
                self.seeding[id(arg.value)] = set(ctx.qualified_names(node.func))
        if runs_once(ctx, node):
            return
        instead = self._frozen(node)
        if instead is None:
            return
        assign = self.bound.get(id(node))
        if assign is not None and ctx.never_read(assign.targets[0].target, ctx.function):
            return  # the one value the trace keeps reaches no call's result
        seeds = self.seeding.get(id(node))
        if seeds is not None and seeds & STATEFUL_SEEDED_OPS:
            return  # `tf.random.uniform(..., seed=np.random.randint(...))`: the op draws anew per run
        if only_printed(ctx, ctx.function, node):
            # `pref = "[" + time.ctime() + "]"` read only by this function's own prints: the
            # value is used up by the trace-time output, no call or computation sees it
            return
        if self.seeded and self._reseeded(node):
            # `np.random.seed(1234)` earlier in the function: every eager call draws this same
            # value too, so the trace's constant is what each call would compute
            return
        fields = {"_returned": True} if id(node) in self.returned else {}
        if seeds is not None and not any(q.startswith(STATELESS_RANDOM_PREFIX) for q in seeds):
            fields["_seeds"] = short_code(node, 40)  # a stateless op's seed decides its values: known
        before = len(ctx.facts.candidates)
        self.report(node, call=f"{short_code(node.func)}(...)", instead=instead, **fields)
        if assign is not None and assign.value is node and len(ctx.facts.candidates) > before:
            # `t0 = time.perf_counter()`: the draw is the name's whole value; its reads decide `_when`
            name = assign.targets[0].target.value
            self.pending.setdefault(name, []).append([ctx.function, ctx.facts.candidates[-1], []])

    @classmethod
    def confirm(cls, candidate, project, module):
        # a helper only one-time set-up calls (`if key not in cache: cache[key] = build(key)`)
        # draws once eagerly too: nothing a trace freezes that eager code would draw again
        key = (module.module, candidate.function)
        verdict = with_staging_certainty(key in project.unguarded, project, key)
        if verdict and candidate.fields.get("_returned") and key not in project.entries:
            # `def gen_int_seed(): return random.randrange(2**63 - 1)`: the draw is all the helper
            # gives its caller, whose use decides whether a call sees a stale value (edward2 uses it
            # as the `seed=` of a stateful random op, which still draws anew on every call)
            return with_preview(verdict, "the draw is the helper's return value: whether the caller bakes it into "
                                         "values a call uses, or only seeds a stateful op (which draws anew per call), "
                                         "is a guess")
        if verdict and not project.staged_by_jax(key):
            # under TensorFlow the value differs from eager code only in a later run that reuses
            # the trace, and only if the value reaches what the run computes
            why = None
            reused = reuse_shown(project, key)
            if candidate.fields.get("_seeds"):
                why = ("the draw is a `seed=` argument of a call that is not a stateful TensorFlow random op: whether "
                       "it fixes the values a call computes, or seeds a stateful op that draws anew per call, is not shown")
            elif reused is None:
                why = "no second call of the Function, loop around its call, `tf.data` or Keras `fit` is shown: whether a later call reuses the trace is not shown"
            out = verdict_fields(verdict)
            if reused is not None:
                out = with_steps(out, candidate, fact(reused + ", reusing the trace", candidate.span))
            if why is not None:
                out = with_preview(out, why)
            return out or verdict
        return verdict

    def fix(self, node: cst.CSTNode, fields: dict):
        from stagelint.fix import tf_random_rewrite

        text = tf_random_rewrite(self.ctx, node)
        return [(node, text)] if text else None

    def _frozen(self, node: cst.Call) -> str | None:
        ctx = self.ctx
        for q in sorted(ctx.called_names(node.func)):  # (one draw, one finding: not its `.astype(...)`)
            if q in FROZEN_VALUE_CALLS:
                return FROZEN_VALUE_CALLS[q]
            if q in FROZEN_VALUE_EXCEPTIONS:
                return None
            for prefix, instead in FROZEN_VALUE_PREFIXES.items():
                if q.startswith(prefix):
                    return instead
        if isinstance(node.func, cst.Attribute) and node.func.attr.value not in RNG_NON_DRAW_METHODS:
            rng = value_of(ctx, node.func.value, ctx.function)
            if rng.what == "rng" and rng.cls in RNG_CONSTRUCTORS:
                return "`tf.random.*` or a `tf.random.Generator` (its draws are graph ops)"
        return None


class PythonStateGuard(Rule):
    """
    ## What it does
    Flags a Python `if` in staged code whose condition reads mutable Python state (an attribute
    of `self`, a global or an enclosing function's variable), whose body runs a TensorFlow state
    op (`.assign*()`, `apply_gradients`, `tf.print`, `tf.summary.*`, ...), itself or in a function
    it calls (`self._warm(x)`, a helper of another module), and which also changes
    the state it tests, itself or in a method or function of the file it calls
    (`self._initialize_weights(x)` setting `self._initialized = True`): the guide's "counter"
    pattern.

    A guard that looks set-once (`if not self.started:`, `if self.x is None:`) is no excuse
    when its block runs such ops and sets a Python flag: the ops run on every call, the flag
    flips once (STG102's preview tier reports the flag too).

    Not flagged: guards that create state once (`if self.v is None: self.v = tf.Variable(...)`,
    the lazy-creation pattern, whose block only creates variables); a test of `self.built` in a
    Keras layer's `call` (Keras runs `build` and sets `built` in `__call__` before `call` runs,
    eagerly or in the first trace: `if not self.built: self.build(None)` there is never taken),
    unless the module invokes `layer.call(x)` itself, which skips `__call__`; the same test after
    `super().build(input_shape)` in the `build` of a direct subclass of Keras's `Layer`, whose
    `build` sets `built`; conditions on tensors (AutoGraph makes them a `tf.cond`); and
    guards whose TensorFlow op is inside `with tf.init_scope():`, the guide's fix, which runs
    it once, at trace time, as intended; and state the block saves in a local, sets for its own
    work and puts back before anything can leave the block (`saved = self.mode`, `self.mode =
    "log"`, ..., `self.mode = saved`): it holds the same value at every call, so nothing flips.

    ## Why is this bad?
    The condition is decided once, while tracing. If it is true then, the TensorFlow op is
    recorded into the graph unconditionally and runs on every call, while the Python state is
    flipped only once: the guide's `Model` returns 1, 2, 3 where eager code returns 1, 1, 1. If it
    is false, the op never runs. Code ported from TF1 graph mode often has this shape, and it
    usually shows only as wrong numbers or unexpected slowness.

    ## Example
    ```python
    class Model(tf.Module):
        def __init__(self):
            self.v = tf.Variable(0)
            self.counter = 0

        @tf.function
        def __call__(self):
            if self.counter == 0:        # decided at trace time
                self.counter += 1
                self.v.assign_add(1)     # recorded unconditionally: runs on every call
            return self.v
    ```

    ## Use instead
    Keep the state in a `tf.Variable` and test it as a tensor (`if self.counter == 0:` with
    `self.counter = tf.Variable(0)` becomes a `tf.cond`), or, when the work must happen once,
    lift it out of the graph:
    ```python
            if self.counter == 0:
                with tf.init_scope():
                    self.counter += 1
                    self.v.assign_add(1)
    ```
    """

    code = "STG105"
    name = "python-state-guard"
    message = "this `if` on {state} is decided once while {func} is traced, but `{op}` in it is recorded into the graph and runs on every call (or never), while {state} changes only once; keep the state in a `tf.Variable`, or wrap the block in `tf.init_scope()`"
    jax_message = "this `if` on {state} is decided once while {func} is traced by JAX, but `{op}` in it runs on every call (or never), while {state} changes only once; pass the state in and return it"
    valid = (
        """
        import tensorflow as tf

        class Model(tf.Module):
            def __init__(self):
                self.v = tf.Variable(0)
                self.counter = 0

            @tf.function
            def __call__(self):
                if self.counter == 0:
                    with tf.init_scope():
                        self.counter += 1
                        self.v.assign_add(1)
                return self.v
        """,
        """
        import tensorflow as tf

        class Model(tf.Module):
            def __init__(self):
                self.v = tf.Variable(0)
                self.counter = tf.Variable(0)

            @tf.function
            def __call__(self):
                if self.counter == 0:
                    self.counter.assign_add(1)
                    self.v.assign_add(1)
                return self.v
        """,
    )
    invalid = (
        """
        import tensorflow as tf

        class Model(tf.Module):
            def __init__(self):
                self.v = tf.Variable(0)
                self.counter = 0

            @tf.function
            def __call__(self):
                if self.counter == 0:  # STG105
                    self.counter += 1  # STG102
                    self.v.assign_add(1)
                return self.v

        m = Model()
        for n in range(3):
            print(m().numpy())
        """,
        """
        import tensorflow as tf

        step = tf.Variable(0)
        announced = False

        def announce():
            global announced
            if not announced:  # STG105
                tf.print("training started")
                announced = True

        @tf.function
        def train_step(x):
            announce()
            step.assign_add(1)
            return x
        """,
    )

    def __init__(self, ctx):
        super().__init__(ctx)
        self.open: list[dict] = []

    def visit_If(self, node: cst.If) -> None:
        ctx = self.ctx
        func = ctx.function
        if func is None or not ctx.in_staged_context:
            return
        if tensorness(ctx, node.test, func).definite:
            return
        keys = self._state_read(node.test)
        if not keys:
            return
        record = {"node": node, "keys": keys, "op": None, "flips": False}
        built = keras_built_test(ctx, node, func) if len(keys) == 1 else None
        if built == "build":
            return  # after `super().build(...)`: `built` is True, and the block runs in no trace
        if built:
            record["built"] = func.facts.class_qualname  # Keras sets it before `call`: `confirm`
        self.open.append(record)

    def leave_If(self, node: cst.If) -> None:
        if self.open and self.open[-1]["node"] is node:
            record = self.open.pop()
            if not record["flips"]:
                return
            state = " and ".join(f"`{text}`" for text in sorted(record["keys"].values()))
            via = {"_because": [record["via"]]} if record.get("via") else {}
            if record.get("built"):
                via["_keras_built"] = record["built"]
            if record["op"]:
                self.report(node, state=state, op=record["op"], _test=sorted(record["keys"]), **via)
                return
            # No op in the block or in a helper of this file: a project function it calls may
            # run one (`warm(counter)` from another module), decided in the project phase.
            ctx = self.ctx
            where = ctx.position(node)
            calls = sorted({tuple(e.target) for e in ctx.function.facts.calls
                            if e.kind == "call" and where.line <= e.span.line <= where.end_line})
            if calls:
                self.report(node, state=state, _test=sorted(record["keys"]), _calls=[list(c) for c in calls], **via)

    @classmethod
    def confirm(cls, candidate, project, module):
        built = candidate.fields.get("_keras_built")
        if built and built_before_call(project, built, (module.module, candidate.function)):
            # `if not self.built:` in a Keras layer's `call`: Keras has built the layer and set
            # `built` before any run of `call`, so the test is the same in every trace and eagerly
            return False
        calls = candidate.fields.get("_calls")
        if not calls:
            return True
        from stagelint.analysis.effects import project_state_op

        for target in calls:
            key = project.resolve(module.module, tuple(target))
            if key is not None and key[0] != module.module and project_state_op(project, key):
                return {"op": f"{key[1].rsplit('.', 1)[-1]}(...)"}
        return False

    def visit_Call(self, node: cst.Call) -> None:
        if not self.open or not self.ctx.in_staged_context:
            return
        ctx = self.ctx
        # the op itself, or one a helper of this file runs (`self._warm(x)`): `analysis.effects`
        owner = (ctx.class_node_of(ctx.function), ctx.function.self_name if ctx.function else None)
        op = runs_state_op(ctx, node, owner)
        if op and not state_op(ctx, node):
            op = f"{short_code(node.func)}(...)"  # the helper call in the block, which runs `op`
        if op:
            for record in self.open:
                record["op"] = record["op"] or op
        # the flag flipped in a helper the block calls (`self._initialize_weights(x)` sets
        # `self._initialized = True`): `analysis.effects`
        flipped = call_rebinds(ctx, node, owner)
        for record in self.open:
            hit = sorted(flipped & record["keys"].keys())
            if hit and not record["flips"]:
                names = " and ".join(f"`{record['keys'][k]}`" for k in hit)
                record["via"] = fact(f"`{short_code(node.func)}(...)` sets {names} when it runs, and Python runs "
                                     f"it only while the function is traced", ctx.position(node))
            record["flips"] = record["flips"] or bool(hit)

    def visit_Assign(self, node: cst.Assign) -> None:
        for t in node.targets:
            self._flip(t.target, node.value, node)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._flip(node.target, None)

    def _flip(self, target, value, assign=None) -> None:
        if not self.open:
            return
        if isinstance(value, cst.Call):
            fw = self.ctx.framework
            if any(fw.creates_variables(q) for q in self.ctx.qualified_names(value.func)):
                return  # `if self.v is None: self.v = tf.Variable(...)` creates state once: STG402's guard
        key = self._key(target)
        if key is None or not any(key in record["keys"] for record in self.open):
            return
        if assign is not None and id(assign) in put_back_writes(self.ctx, self.ctx.function):
            return  # set for the block's own work and put back before it ends: `analysis.stores`
        for record in self.open:
            if key in record["keys"]:
                record["flips"] = True

    def _key(self, expr) -> tuple | None:
        ctx = self.ctx
        func = ctx.function
        if isinstance(expr, cst.Attribute) and isinstance(expr.value, cst.Name):
            kind = ctx.binding_kind(expr.value, func)
            if kind in ("self", "global", "closure"):
                return ("attr", expr.value.value, expr.attr.value)
        if isinstance(expr, cst.Name):
            kind = ctx.binding_kind(expr, func)
            if kind in ("global", "closure") or func.declared.get(expr.value):
                return ("name", expr.value)
        return None

    def _state_read(self, test: cst.BaseExpression) -> dict:
        """The mutable Python state a condition reads: key -> source text."""
        out = {}
        stack = [test]
        while stack:
            node = stack.pop()
            key = self._key(node) if isinstance(node, (cst.Attribute, cst.Name)) else None
            if key is not None:
                out[key] = short_code(node)
                continue
            if isinstance(node, cst.Call):
                stack.extend(a.value for a in node.args)  # `len(self.items)`, not the callee
                continue
            stack.extend(c for c in node.children if isinstance(c, cst.BaseExpression) or hasattr(c, "children"))
        return out
