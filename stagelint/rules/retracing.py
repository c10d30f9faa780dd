"""Retracing cost: Python values that key traces, Functions made anew, unrolled loops (STG5xx)."""

from __future__ import annotations

import libcst as cst

from stagelint.analysis.literals import keyword_constant
from stagelint.analysis import facts as F
from stagelint.analysis.context import TENSOR_CHECKS, short_code
from stagelint.analysis.dependence import name_loads
from stagelint.frameworks import (
    EQUINOX_EQUAL_WRAPPERS,
    JAX,
    JAX_ARRAY_METHODS,
    JAX_CACHES_TRACES,
    JAX_FILTERING_JIT,
    JAX_FUNCTION_BUILDERS,
    JAX_RUNS_AT_ONCE,
    JAX_TRACES_WITHOUT_COMPILING,
    PARTIAL_CALLS,
    PYTHON_COMPUTING_MODULES,
    PYTHON_IO_CALLS,
    PYTHON_IO_PREFIXES,
    PYTHON_SHOWING_CALLS,
    PYTHON_VALUE_METHODS,
    REQUEST_HANDLER_DECORATORS,
    STATEFUL_METHODS,
    STRUCTURE_PARAMETER_NAMES,
    TRACE_CACHE,
    canonical_tf_name,
)
from stagelint.analysis.jaxrules import confirm_loop_unrolled
from stagelint.analysis.jaxstaging import JAX_STAGING, api_mode
from stagelint.analysis.nnx import changes_every_call, imports_flax, python_attribute_retrace, store_fields
from stagelint.rules.base import Rule
from stagelint.analysis.stores import store_sites
from stagelint.analysis.bounds import LARGE_BOUND, literal, varying_bound
from stagelint.analysis.guards import resets_its_flag
from stagelint.analysis.functions import (
    BOUND,
    NEW,
    SAME,
    Identity,
    binding_error,
    bound_method_shadowed,
    held_in_loop,
    bound_per_iteration,
    calls_over,
    closure_names,
    configuration_per_iteration,
    held_uses,
    new_keras_object,
    new_keras_object_each_iteration,
    new_value_each_iteration,
    identity,
    memoized,
    identity_keyed_objects_held,
    python_values_held,
    returns_new_function,
)
from stagelint.analysis.proof import HEURISTIC, TRUE, fact, with_steps
from stagelint.analysis.repetition import DatasetTrace, MappedCall, caller_in_loop, eager_calls, serialized
from stagelint.analysis.testing import is_test_module
from stagelint.analysis.trace_key import decided_beside
from stagelint.analysis.varying_shapes import new_length_each_iteration, new_shape_each_iteration
from stagelint.analysis.values import python_number
from stagelint.analysis.tensors import (
    NUMBERS, Tensorness, leading_dimension_of, range_iterated, same_file_function, structure_unshown, tensorness,
    value_of,
)

#: How a parameter use counts for STG501: a tensor would do the same ("tensor"), it only shows
#: the value ("neutral": print, f-strings), or the Python value shapes the graph ("structure").
_RANK = {"neutral": 0, "tensor": 1, "structure": 2}


class PythonScalarArgument(Rule):
    """
    ## What it does
    Flags a call of a `tf.function` that passes a Python number (int or float) which changes from
    call to call, for a parameter the function uses only where a tensor would do the same (as
    an operand of TensorFlow ops and arithmetic on tensors, a `tf.range` bound, an argument of
    `tf.print`). A number changes when it is the variable of an enclosing loop (`for step in
    range(1000): train(step)`), a counter (`epoch += 1`), or a literal that differs between call
    sites of one program (`train(num_steps=10)` and `train(num_steps=20)` in one module; in a test
    module, in one test: another script, notebook or test passing its own constant runs apart).
    The number may reach the `tf.function` through helpers that hand their own parameter on
    unchanged (`for epoch in range(n): run_epoch(epoch)`, where `run_epoch(e)` calls
    `train_step(x, e)`): the finding is then at the call that passes the changing number, and
    its proof names each helper. A helper that converts the value first (`e = tf.constant(e)`)
    passes a tensor, and is not flagged.

    Where the line is drawn, and why: a Python argument is part of the trace key, so each new
    value builds a new graph. That is right when the value shapes the graph, and wasted when a
    tensor would compute the same. So stagelint stays silent when the parameter selects graph
    structure: it is tested in Python control flow (`if`, `while`, `assert`), bounds a Python
    `range` (unrolling; see STG503), is used as a Python value (indexing a list, a shape attribute,
    an argument of another Python function), or is a `bool` or `str` (`training=True`,
    `mode="train"`; a flag or mode is a genuine graph choice); when the parameter is named like
    one (`training`, `mode`); when the function has an `input_signature`; when every call passes
    the same value; and for calls made while tracing another staged function. `get_concrete_function`
    pins Python values on purpose and is not a call.

    Nor when the other Python arguments of the same calls decide the number: a Function keys its
    traces on all its Python arguments together (a function by identity, a string or a bool by
    value), so `random_apply(color_jitter, x, p=0.8)`, `random_apply(color_drop, x, p=0.2)` and
    `random_apply(random_blur, x, p=1.0)`, each function always passed with its own `p`, trace 3
    times whether `p` is a number or a tensor (TensorFlow 2.21): the number adds no trace, and a
    tensor would save none. Where one function comes with two values, or what a call passes is not
    shown (a function passed in, a name bound to a function or a number elsewhere, a number beside
    another number, which may become a tensor too), it is reported as before.


    Under JAX, only where JAX retraces: arguments in `static_argnums`/`static_argnames`, Python
    scalars passed to `eqx.filter_jit`, and, under `flax.nnx.jit`, a plain Python attribute of an
    NNX module changed on every call (`model.steps += 1`, `self.calls = self.calls + 1`): the
    module's Python attributes are part of the graph definition nnx.jit caches on, so each new
    value traces again (keep such a counter in an `nnx.Variable`). A Python number passed to plain
    `jax.jit` is one weak-typed trace for every value, and is not flagged; nor are an
    `nnx.Variable`'s updates (`model.count[...] += 1`) and an attribute set to a constant.
    A static argument keys the trace by value: each distinct value traces once and is reused
    afterwards. So a fixed set of literals across call sites (`split_axis=0` in one call,
    `split_axis=1` in another) is flagged only where a traced value would do the same (the
    parameter is only an operand): where the function needs the Python value (`x.shape[axis]`, a
    reshape size) each value's trace is needed, and `jnp.asarray(1)` would break it. The same holds
    for a loop variable over `range` of integer literals or a literal tuple (`for axis in range(3)`:
    three values, three traces, each reused when the loop runs again). Values the code does not fix
    (a loop over `range(n)`, a counter) are flagged wherever they are static.

    Under JAX the proof (`because`) states the chain: the parameter is static (`static_argnums`,
    `static_argnames`, a pmap's `static_broadcasted_argnums`, an `eqx.filter_jit` Python scalar:
    JAX keys its traces on the value, one trace per value, observed with JAX 0.10.2), the value
    changes from call to call, and the parameter is only an operand of array operations, where a
    traced value computes the same with one trace: the default tier. Two steps are guesses, in the
    preview tier: a fixed set of literals across the calls (`split_on_devices(rng, 2)`, `(rng, 3)`:
    a few traces, each reused afterwards, nothing known to be lost), and a parameter handed to a
    JAX function (`jax.random.split(rng, num)`, `jax.random.normal(key, (n,))`), which may need it
    as a Python value: a count, a shape or an axis that fails traced. A third: a static argument whose
    new values come with new values of another static argument of the same call, computed from the
    same loop variable (`update_task(state, task, examples_per_epoch, active_classes)`, the last two
    grown from `task` on each task): JAX keys a trace on all static values together, so each new
    value of the other traces and compiles again whatever `task` is (4 traces in 4 tasks, `task`
    static or not; `frameworks.JAX_TRACE_KEY`), and `task` adds a compilation only where its values
    outnumber the other's, which the code does not show.

    ## Why is this bad?
    tf.function keys traces on Python values: `f(1)`, `f(2)`, `f(3)` trace three times, where
    `f(tf.constant(1))`... trace once. Tracing costs milliseconds to seconds, so a training loop
    that passes its step number retraces on every step and runs slower than eager code, and
    TensorFlow warns that "N out of the last M calls triggered tf.function retracing".

    ## Example
    ```python
    @tf.function
    def train(num_steps):
        for _ in tf.range(num_steps):
            train_one_step()

    train(num_steps=10)
    train(num_steps=20)     # traces again
    ```

    ## Use instead
    ```python
    train(num_steps=tf.constant(10))
    train(num_steps=tf.constant(20))   # reuses the trace
    ```
    Or fix the signature: `@tf.function(input_signature=[tf.TensorSpec([], tf.int32)])`.
    """

    code = "STG501"
    preview_under = {
        "jax": "Held back on repositories nobody here tuned on (bench/fresh_audit_notes.md), "
               "it was right 0 times in 10 findings in JAX code at each half's latest reading: the "
               "static values were fixed per run, or came with new shapes or other static values "
               "that trace again anyway.",
    }
    severity = "warning"
    repeated_cost = True
    name = "python-scalar-argument"
    message = "this call passes the Python number `{value}` for `{param}` of {func} ({reason}): each new value traces the function again; pass a tensor (`tf.constant({value})`) or give it an `input_signature`"
    jax_message = "{jax_what}: each new value traces and compiles {func} again; {jax_instead}"
    valid = (
        """
        import tensorflow as tf

        @tf.function
        def train(num_steps):
            for _ in tf.range(num_steps):
                tf.print("step")

        train(num_steps=tf.constant(10))
        train(num_steps=tf.constant(20))
        """,
        """
        import tensorflow as tf

        @tf.function
        def block(x, depth, training):
            if depth > 2:
                x = tf.nn.relu(x)
            if training:
                x = tf.nn.dropout(x, 0.5)
            return x

        x = tf.ones([2, 2])
        for epoch in range(3):
            block(x, 2, training=True)
            block(x, 3, training=False)
        """,
        """
        import tensorflow as tf

        @tf.function
        def random_apply(func, x, p):
            return tf.cond(tf.random.uniform([]) < p, lambda: func(x), lambda: x)

        def color_jitter(image):
            return image * 0.9

        def color_drop(image):
            return tf.image.rgb_to_grayscale(image)

        def augment(image):
            image = random_apply(color_jitter, image, p=0.8)   # each function keys its own trace,
            return random_apply(color_drop, image, p=0.2)      # always with one `p`: 2 traces either way
        """,
        """
        import tensorflow as tf

        @tf.function(input_signature=[tf.TensorSpec([], tf.float32)])
        def scale(factor):
            return factor * 2.0

        for factor in (0.5, 1.0, 2.0):
            scale(factor)
        """,
        """
        import tensorflow as tf

        @tf.function
        def train_step(x, epoch):
            return x * tf.cast(epoch, tf.float32)

        def run_epoch(x, e):
            return train_step(x, tf.constant(e))   # converted before the tf.function sees it

        for epoch in range(10):
            run_epoch(tf.ones([2]), epoch)
        """,
        """
        import jax

        @jax.jit
        def scale(x, factor):
            return x * factor

        for step in range(10):
            scale(1.0, step)               # JAX: one weak-typed trace for every Python number
        """,
        """
        import functools
        import jax

        @functools.partial(jax.jit, static_argnames="split_axis")
        def split(x, split_axis):
            return x.reshape(x.shape[split_axis], -1)   # needs the Python value

        def shard(x, y):
            return split(x, split_axis=0), split(y, split_axis=1)   # one trace per axis, reused
        """,
        """
        import jax.numpy as jnp
        from flax import nnx

        class Model(nnx.Module):
            def __init__(self):
                self.steps = nnx.Variable(jnp.array(0))

        @nnx.jit
        def train_step(model, x):
            model.steps[...] += 1          # an nnx.Variable: state nnx.jit carries out
            return x

        train_step(Model(), jnp.ones(2))
        """,
    )
    invalid = (
        """
        import tensorflow as tf

        def train_one_step():
            pass

        @tf.function
        def train(num_steps):
            print("Tracing with num_steps = ", num_steps)  # STG101
            tf.print("Executing with num_steps = ", num_steps)
            for _ in tf.range(num_steps):
                train_one_step()

        train(num_steps=10)  # STG501
        train(num_steps=20)  # STG501
        train(num_steps=tf.constant(10))
        """,
        """
        import tensorflow as tf

        class Trainer(tf.Module):
            def __init__(self):
                self.w = tf.Variable(1.0)

            def _step(self, x, lr):
                self.w.assign_sub(lr * tf.reduce_sum(x))
                return self.w

            def fit(self, batches):
                step = tf.function(self._step)
                lr = 0.1
                for x in batches:
                    step(x, lr)  # STG501
                    lr *= 0.9
        """,
        """
        import tensorflow as tf

        @tf.function
        def train_step(x, epoch):
            return x * tf.cast(epoch, tf.float32)

        def run_epoch(x, e):
            return train_step(x, e)

        for epoch in range(10):
            run_epoch(tf.ones([2]), epoch)  # STG501
        """,
        """
        import functools
        import jax

        @functools.partial(jax.jit, static_argnames="rate")
        def dropout(x, rate):
            return x * (1 - rate)

        for step in range(10):
            dropout(1.0, rate=step / 10)  # STG501
        """,
        """
        import jax.numpy as jnp
        from flax import nnx

        class Model(nnx.Module):
            def __init__(self):
                self.steps = 0

        @nnx.jit
        def train_step(model, x):
            model.steps += 1  # STG501
            return x

        train_step(Model(), jnp.ones(2))
        """,
    )

    # Parameter uses (recorded for every function; the project phase asks about staged ones).

    def _mark(self, node, kind: str) -> None:
        self.ctx.mark_region(node, kind)

    def visit_If(self, node: cst.If) -> None:
        self._mark(node.test, "structure")

    def visit_While(self, node: cst.While) -> None:
        self._mark(node.test, "structure")

    def visit_IfExp(self, node: cst.IfExp) -> None:
        self._mark(node.test, "structure")

    def visit_Assert(self, node: cst.Assert) -> None:
        self._mark(node.test, "structure")

    def visit_BooleanOperation(self, node: cst.BooleanOperation) -> None:
        self._mark(node.left, "structure")
        self._mark(node.right, "structure")

    def visit_CompFor(self, node: cst.CompFor) -> None:
        self._mark(node.iter, "structure")

    def visit_Attribute(self, node: cst.Attribute) -> None:
        self._mark(node.value, "structure")  # `n.shape`, `n.numpy()`: not a number's use

    def visit_Subscript(self, node: cst.Subscript) -> None:
        indexes_tensor = tensorness(self.ctx, node.value, self.ctx.function).possible
        for element in node.slice:
            self._mark(element, "tensor" if indexes_tensor else "structure")

    def visit_BinaryOperation(self, node: cst.BinaryOperation) -> None:
        ctx, func = self.ctx, self.ctx.function
        if tensorness(ctx, node.left, func).possible:
            self._mark(node.right, "tensor")
        if tensorness(ctx, node.right, func).possible:
            self._mark(node.left, "tensor")

    def visit_Comparison(self, node: cst.Comparison) -> None:
        ctx, func = self.ctx, self.ctx.function
        operands = [node.left, *(c.comparator for c in node.comparisons)]
        possible = [tensorness(ctx, o, func).possible for o in operands]
        for i, o in enumerate(operands):
            if any(p for j, p in enumerate(possible) if j != i):
                self._mark(o, "tensor")  # compared with a tensor: a tensor would do

    def visit_Return(self, node: cst.Return) -> None:
        self._mark(node.value, "tensor")  # returned as a tensor either way

    def visit_Assign(self, node: cst.Assign) -> None:
        self._mark(node.value, "structure")  # an alias: its own uses are not followed
        for t in node.targets:
            self._mark(t.target, "structure")

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._mark(node.target, "structure")
        target_is_tensor = tensorness(self.ctx, node.target, self.ctx.function).possible
        self._mark(node.value, "tensor" if target_is_tensor else "structure")

    def visit_FormattedStringExpression(self, node: cst.FormattedStringExpression) -> None:
        self._mark(node.expression, "neutral")

    def visit_Call(self, node: cst.Call) -> None:
        ctx = self.ctx
        fw = ctx.framework
        names = ctx.qualified_names(node.func)
        self._mark(node.func, "structure")
        if any(q in PYTHON_IO_CALLS or q.startswith(PYTHON_IO_PREFIXES) for q in names) or names & PYTHON_SHOWING_CALLS:
            kind = "neutral"
        elif names & {"builtins.range"}:
            kind = "structure"
        elif any(fw.returns_tensor(q) or q.startswith(TENSOR_CHECKS) or q == "tensorflow.range" for q in names):
            kind = "tensor"
        elif isinstance(node.func, cst.Attribute) and node.func.attr.value in STATEFUL_METHODS:
            kind = "tensor"
        else:
            kind = "structure"  # Keras constructors, project helpers, builtins: may use it as Python
        for arg in node.args:
            self._mark(arg.value, kind)
        func = ctx.function
        if kind == "tensor" and func is not None and any(q.startswith("jax.") for q in names):
            for param in _params_in(ctx, func, [a.value for a in node.args]):
                if param not in func.facts.param_jax_args:
                    func.facts.param_jax_args.append(param)

    def visit_Name(self, node: cst.Name) -> None:
        ctx = self.ctx
        func = ctx.function
        if func is None or node.value not in func.facts.params or node.value == func.self_name:
            return
        if ctx.binding_kind(node, func) != "param":
            return
        use = ctx.regions[-1] if ctx.regions else "structure"
        uses = func.facts.param_uses
        previous = uses.get(node.value)
        if previous is None or _RANK[use] > _RANK[previous]:
            uses[node.value] = use

    # The project phase: call sites of Function objects.

    @classmethod
    def project_candidates(cls, project):
        out = []
        for key, calls in sorted(project.function_calls.items()):
            f = project.function(key)
            # JAX: a Python number passed to `jax.jit` is one weak-typed trace (row 27); only static
            # arguments, and `eqx.filter_jit`'s Python scalars, trace per value (rows 29, 30)
            jax_entry = project.jax.entry(key)
            jax_static = set() if jax_entry is None else (
                set(f.params) if jax_entry.apis & JAX_FILTERING_JIT else jax_entry.static)
            groups: dict[tuple[str, str], list] = {}
            for module, site, via in calls:
                if project.in_traced_code(module, site):
                    continue  # called while tracing another function: traced with it
                if project.has_signature(key, via):
                    continue
                for param, arg in project.passed(site, key):
                    if jax_entry is not None:
                        if param not in jax_static:
                            continue
                    elif param in STRUCTURE_PARAMETER_NAMES or f.param_uses.get(param) != "tensor":
                        continue
                    if arg.what in NUMBERS:
                        groups.setdefault((via, param), []).append((module, site, arg, ()))
                    elif arg.param and site.caller is not None:
                        # a helper's own parameter, passed on (`def run_epoch(e): train_step(x, e)`):
                        # what the helper's callers pass is what keys the trace
                        for outer, outer_site, outer_arg, _, hops in project.args_through((module, site.caller), arg.param):
                            chain = (*hops, (module, site))
                            if outer_arg.what in NUMBERS and not any(
                                    project.in_traced_code(m, s) for m, s in ((outer, outer_site), *chain)):
                                groups.setdefault((via, param), []).append((outer, outer_site, outer_arg, chain))
            for (via, param), items in sorted(groups.items()):
                # module -> literal value -> its spellings: another script or notebook passing its own
                # constant is another program (test modules, where several tests are not a loop,
                # are left out of the whole family: `Rule.repeated_cost`)
                literals: dict[str, dict] = {}
                decided: dict[str, list] = {}  # module -> the parameters deciding `param` there
                for module, site, arg, _ in items:
                    value = literal(arg.text)
                    if value is not None:
                        literals.setdefault(module, {}).setdefault(value, []).append(arg.text)
                for module, site, arg, chain in items:
                    reason = arg.varies
                    steps = []  # the guesses of a JAX static argument's chain (the preview tier)
                    if reason and jax_entry is not None and 0 < arg.values < LARGE_BOUND \
                            and f.param_uses.get(param) != "tensor":
                        # a loop over `range(3)`: a fixed set of values, one trace each, reused
                        # afterwards, as a fixed set of literals (below), needed where the function
                        # uses the Python value (`x.shape[axis]`)
                        continue
                    value = literal(arg.text)
                    mine = literals.get(module, {})
                    if not reason and value is not None and len(mine) > 1:
                        if jax_entry is not None and f.param_uses.get(param) != "tensor":
                            # a static argument that takes a fixed set of literals: one trace per
                            # value, each reused afterwards (`frameworks.jax`, static arguments); the
                            # function may need the Python value (`x.shape[axis]`)
                            continue
                        if jax_entry is None and not chain:
                            if module not in decided:  # (a number handed on by a helper: its pairs are not shown)
                                decided[module] = [] if any(c for m, _, _, c in items if m == module) else \
                                    decided_beside(project, key, module, param)
                            if decided[module]:
                                # `random_apply(color_jitter, p=0.8)`, `(color_drop, p=0.2)`: each
                                # function keys its own trace and always comes with one `p`, so a
                                # tensor `p` traces as often (`frameworks.TF_TRACE_KEY`)
                                continue
                        others = sorted({texts[0] for v, texts in mine.items() if v != value})
                        reason = "other calls pass " + ", ".join(f"`{t}`" for t in others[:3])
                        if jax_entry is not None:
                            # deepqmc's `split_on_devices(rng, 2)` / `(rng, 3)`: a few traces in all,
                            # each reused by every later call of that value
                            steps.append(fact(
                                f"the calls pass a fixed set of values for `{param}` ({len(mine)} in this "
                                f"module): one trace per value, each reused afterwards; whether those few "
                                f"traces cost anything is a guess", site.span, HEURISTIC))
                    if not reason:
                        continue
                    if jax_entry is not None and param in f.param_jax_args:
                        # `jax.random.split(rng, num)`: traced, `num` fails (JAX 0.10.2,
                        # tests/runtime/test_jax_shape_static_facts.py)
                        steps.append(fact(
                            f"`{param}` is passed to a JAX function in `{project.display(key, module)}`, which may need "
                            f"its Python value (a count, a shape, an axis): whether a traced value would do is a "
                            f"guess", site.span, HEURISTIC))
                    if jax_entry is not None and not chain:
                        steps.extend(_static_beside(project, module, site, key, param, arg, jax_static,
                                                    bool(jax_entry.apis & JAX_FILTERING_JIT)))
                    extra = _forwarding(project, module, chain, key, param) if chain else {}
                    if jax_entry is not None:
                        extra["_because"] = [*_static_facts(project, module, site, key, param, arg.text, reason,
                                                            f.param_uses.get(param) == "tensor"
                                                            and param not in f.param_jax_args),
                                             *extra.get("_because", ()), *steps]
                    if chain:
                        reason += ", handed on by " + " and ".join(
                            f"`{project.display((m, s.caller), module)}`" for m, s in chain)
                    out.append((module, F.Candidate(cls.code, site.caller, site.span, {
                        **extra, "value": arg.text, "param": param, "reason": reason, "_anchors": [list(key)],
                        "jax_what": f"this call passes the Python value `{arg.text}` for `{param}` ({reason}), "
                                    "a static argument there",
                        "jax_instead": f"make it a traced argument (`jnp.asarray({arg.text})`, not in `static_argnums`)"
                        if f.param_uses.get(param) == "tensor" else
                        f"pass a traced value where one would do, or keep the values `{param}` takes few "
                        f"where the function needs a Python value (a shape, an axis)",
                    })))
        return out

    # Flax NNX: a module's Python attribute changed under `nnx.jit` (row 42; `stagelint.analysis.nnx`).

    def finish(self) -> None:
        if not imports_flax(self.ctx):
            return  # an NNX module's attribute is changed where Flax is imported (the class, the jitted step)
        for site in store_sites(self.ctx):
            if site.root_kind in ("param", "self") and changes_every_call(site):
                fields = store_fields(self.ctx, site)
                if fields and fields["_nnx"][1] == "attr":
                    self.report(site.node, function=site.func, action=site.action, _root=site.root_kind,
                                _root_name=site.root, **fields)

    @classmethod
    def confirm(cls, candidate, project, module):
        if "_nnx" not in candidate.fields:
            return True  # a call site (`project_candidates`): decided there
        return python_attribute_retrace(candidate, project, (module.module, candidate.function))


def _forwarding(project, module: str, chain, key, param: str) -> dict:
    """The proof of a number that reaches `key`'s `param` through helpers: one fact per helper
    call that passes its own parameter on, each where the call is (in `module`, the finding's
    file; a call in another module is named, at the finding)."""
    facts = []
    for i, (m, site) in enumerate(chain):
        helper = project.display((m, site.caller), module)
        callee = project.display(key, module) if i == len(chain) - 1 else \
            project.display((chain[i + 1][0], chain[i + 1][1].caller), module)
        where = "" if m == module else f" ({project.modules[m].path}:{site.span.line})"
        facts.append((f"`{helper}` passes its parameter on to `{callee}` unchanged{where}", site.span if m == module else None))
    return {"_because": [fact(text, span or chain[0][1].span) for text, span in facts]}


def _static_facts(project, module: str, site, key, param: str, value: str, reason: str, operand: bool) -> list:
    """The known chain of a Python value passed for a JAX static argument: static arguments key the
    trace cache by value (`jax.jit`'s `static_argnums`, `jax.pmap`'s `static_broadcasted_argnums`, an
    `eqx.filter_jit` Python scalar: JAX 0.10.2, tests/runtime/test_jax_shape_static_facts.py); the
    value changes; the parameter is only an operand where a traced value computes the same."""
    name = project.display(key, module)
    out = [fact(f"`{param}` is a static argument of `{name}`: JAX keys its traces on the value, so each new "
                f"value traces and compiles again", site.span, TRUE),
           fact(f"`{value}` changes between calls ({reason})", site.span, TRUE)]
    if operand:
        out.append(fact(f"`{param}` is used in `{name}` only where a traced value computes the same (an operand "
                        f"of array operations, a result)", site.span, TRUE))
    return out


def _static_beside(project, module: str, site, key, param: str, arg, static: set, filtering: bool) -> list:
    """A static argument's new values that come with new values of another static argument
    (`update_task(state, task, examples_per_epoch, active_classes)`, the last two computed from
    `task` in the loop over tasks): each new value of the other is a new trace and compilation
    whatever `param` is, so `param` adds one only where its values outnumber the other's (JAX keys
    its traces on all static values together, `frameworks.JAX_TRACE_KEY`), which the code does not
    show; nor does making `param` alone traced save a trace: the preview tier. (`eqx.filter_jit`
    keys on its non-array arguments only: there the other must be a Python value.)"""
    if not arg.from_loops:
        return []
    beside = [other for p, other in project.passed(site, key) if p != param and p in static
              and set(other.from_loops) & set(arg.from_loops) and (not filtering or other.kind == "python")]
    if not beside:
        return []
    shown = ", ".join(f"`{o.text}`" for o in beside[:3])
    loops = ", ".join(f"`{n}`" for n in arg.from_loops)
    return [fact(f"{shown}, also static in `{project.display(key, module)}`, "
                 f"{'is' if len(beside) == 1 else 'are'} computed from {loops} on each iteration, as `{arg.text}` "
                 f"is: each new value of {'it' if len(beside) == 1 else 'them'} traces and compiles "
                 f"again whatever `{param}` is, so whether `{param}` adds any compilation is not shown",
                 site.span, HEURISTIC)]


def _params_in(ctx, func, exprs) -> list[str]:
    """The parameters of `func` read in the expressions (`dependence.name_loads`: not inside a
    nested lambda, nor an attribute's or a keyword's name)."""
    out: list[str] = []
    for e in exprs:
        for name in name_loads(e):
            if name.value in func.facts.params and name.value != func.self_name \
                    and ctx.binding_kind(name, func) == "param" and name.value not in out:
                out.append(name.value)
    return out


class FunctionRecreated(Rule):
    """
    ## What it does
    Flags code that makes a new `tf.Function` and calls it each time it runs: `tf.function(f)`
    called inside a loop (`tf.function(f)(x)`, or bound to a name the loop then calls), or in a
    comprehension (`[tf.function(f)(x) for x in xs]`), also when `f` is a lambda; a
    `@tf.function` defined and called inside a function that itself runs repeatedly (its call
    sites are in loops, or there are several); `tf.function(f)(x)` inside such a function; and
    the same function wrapped and called at once more than once in one scope; a factory that
    returns a new Function, called and its result called at once in a loop
    (`make_step(s)(x)`); a Function made in a web request handler (a function registered with
    `@app.route`, `@app.post`, ...: it runs once per request).

    Not flagged: Functions made once and kept (`step = tf.function(f)` at module level, in
    `__init__`, or stored in a dict inside a loop for later reuse); Functions a driver makes
    once per run and calls in its own loop or comprehension (`train_step = tf.function(train_step)`
    then `for ...: train_step()`: one trace per run), unless a loop is shown to run the driver again (a
    call of it in a loop, or of a caller of it up to three callers up, through `self` too): each
    run traces once, and whether the runs stage one program again or each sets up another (a
    sweep's arm) is not shown, the preview tier; Functions made while the enclosing function is itself traced, or only
    when not executing eagerly (made once per trace of the caller); calls from test modules, which
    do not make a function "run repeatedly"; one-shot wrappers that run
    once (`tf.function(f)(x)` in a test or a script); `tf.function(f).get_concrete_function(...)`,
    the guide's way to build one concrete function per optimizer or per mutated object; factories
    that return the Function instead of calling it, whose result the caller keeps
    (`step = make_step(model)`, `{k: make_step(k) for k in keys}`); a Function made in a loop
    under a flag its block clears (`if need_compile: step = jax.jit(partial(update, n=n));
    need_compile = False`), which the loop sets again only under a test of its own (when `n`
    changes): it is made on those iterations, not on each one; likewise one made under `if step is
    None: step = jax.jit(...)` (made on the first iteration, reused by the later ones); a Function
    made only when a memo lacks the key the function then stores it under (`fn = cache.get(key)`,
    `if fn is None: fn = jax.jit(...); cache[key] = fn`, or `if key not in cache:`): one per key,
    every later call with that key reusing its trace; one made by a memoized function
    (`functools.lru_cache`, `functools.cache`), whose body runs once per argument key; and one
    made in the body of a TensorFlow Federated computation (`@tff.tensorflow.computation(...)`,
    `tff.tf_computation`, `tff.federated_computation`) or in a function only such a body calls:
    TFF runs that body once per parameter type, when it builds the computation, and a call runs
    the serialized computation, never the body again.


    Under JAX and its libraries it depends on what is wrapped, because their trace caches are
    keyed on the function object (each fact observed with the real frameworks,
    `stagelint/frameworks/`):

    | wrapped anew, in a loop | `jax.jit` | `eqx.filter_jit`, `jax.pmap` | `tf.function`, `nnx.jit`, `nn.jit` |
    |---|---|---|---|
    | the same function (module-level `f`, imported, bound before the loop, `self.fn` set in `__init__`, `net.apply` of a Haiku transform made once) | 1 trace | 1 trace | a trace per wrap |
    | a bound method (`self.update`, `model.loss`) | a trace per wrap | 1 trace | a trace per wrap |
    | a lambda, `functools.partial(...)`, a nested `def`, `jax.vmap(f)`, `hk.transform(f).apply`, a factory's new function | a trace per wrap | a trace per wrap | a trace per wrap |

    | an Equinox transformation of the same function or bound method (`eqx.filter_vmap(model.setup)`, literal options) | a trace per wrap | 1 trace | a trace per wrap |

    `jax.jit` finds the traces again through any equal function while one is alive: bound methods
    of one object compare equal, but `jax.jit(self.update)(x)` drops its bound method, and the
    traces with it, at the end of each step. Equinox holds the function, so an equal bound method
    reuses them. So STG502 reports `jax.jit(self.update)` made on every `step()` and stays silent
    on `eqx.filter_jit(self.update)`, on `jax.jit(f)` of the same module-level `f`, and on
    `jax.vmap`/`jax.grad` made anew (they trace on every use anyway: nothing cached to lose). A
    bound method of a parameter (`jax.jit(model.loss)` with `model` passed in) is most likely a
    new object per access, but may be a field holding a function: that step is in the preview tier.
    Where the object is unknown, nothing is reported.

    A def or lambda built over a parameter of the enclosing function that holds a function
    (`def init(fn, x): def wrapper(v): return fn(v)` then `jax.jit(wrapper)(x)`, also through a
    default `inner=fn` or a local wrapper `fn = wrap(fn)`) is another program for each object
    passed there: its trace repeats an earlier one only when callers pass the same object again.
    It is reported when they are known to: a module-level or imported function, or a module's
    function read through its module (`jnp.linalg.norm`, `pkg.losses.l2`), passed in a loop or at
    two calls. Different objects (`init(model.init_train)`, `init(model.train)`), a new one per
    call (a lambda) or unknown ones: nothing; the same attribute passed at two calls
    (`init(self.model.train)` twice) is most likely the same function: the preview tier.

    "Runs repeatedly" means: a loop or comprehension around the wrapper, a function whose call
    sites are in loops, or a caller's up to three callers up (`score_matrix` loops over
    `self.eval_vector(...)`, which calls `self.run_predictions(...)`) (several sites, none in a
    loop: the preview tier), a method this module calls in a loop (`trainer.step(x)`), a
    request handler. A function handed to a pytree map (`jax.tree_util.tree_map(_pjit, tree)`,
    `jax.tree.map`, `tf.nest.map_structure`) is called once per leaf in that call, as in a loop;
    a function a `tf.data` transformation traces (`ds.map(lambda x: parse(x))`) runs once per
    call of the transformation, which traces it anew each time, so a `ds.map` in a loop runs it
    per iteration. A helper some trace reaches (a jitted function calls it) runs there once per
    trace, but its calls from code no trace reaches run it each time: those calls are counted
    (interpax's `approx_df`, called by the jitted `interp1d` and by `Interpolator1D.__init__`).
    A Function re-created once per iteration of an outer loop and called in an
    inner loop traces once per outer iteration, not on every call, and the message says so.
    Under TensorFlow a function called from several places, none of them in a loop, is in the
    preview tier: the sites show it runs more than once, not that any of them runs per step (a
    setup that wraps each of its functions once has as many). `tf.function(input_signature=s)(f)`
    applies the decorator: it makes a Function from `f` and does not call it. A Function made each
    time its function runs that reads a Python value computed in that run (`end = batch *
    (len(video) // batch)`, then `return x[0:end]` in the nested def) has that value baked into its
    graph: a run with another value needs a graph of its own, and a Function made once outside
    would keep the first value (a stale closure); whether the values repeat is not shown, so that
    step is in the preview tier. Where two iterations are shown to differ, they could not share
    one trace whatever the function object: a Function made in a loop whose every call there passes
    a Keras layer or model the iteration makes anew (`model = build_model()`, a Keras class of the
    project called, `strip_pruning(model)`) is not reported, since a tf.function keys such an
    argument by identity and one made before the loop would trace once per iteration as well (a
    `tf.Variable` is keyed by its shape and dtype: a new one costs no trace). So it is for a
    Function made in a loop around a Keras model the iteration makes (`tf.function(Net())`, or
    `tf.function(model)` and a lambda over `model` with `model = build_model()` in the loop): not
    reported; nor is one that closes over a Keras optimizer or metric the iteration makes
    (`optimizer = tf.optimizers.Adam()`, `tf.keras.metrics.Mean()` in a loop over targets, each
    with a new model): a Function keys those by identity too (3 new optimizers, 3 traces), and one
    made once could not make a new optimizer's variables on a later trace (ValueError). A loss
    object made per iteration owns no variables: a Function made once closing over one computes
    the same, so that one is reported. One made around what a call of the iteration's values gives, or a name the loop
    binds (`tf.function(self.create_G_model(res))` for each resolution, traced once between
    `tf.summary.trace_on` and `trace_export`), may wrap another callable each iteration, whose
    trace no Function made once could share; whether the call gives the same object again is not
    shown: the preview tier, as under JAX. So it is, per call, for a Function made each time its
    function runs that closes over a `tf.random.Generator` or a Keras model made in that run (`g =
    tf.random.Generator.from_seed(seed)`, then `@tf.function def draw(): return g.uniform(...)`):
    a Function keys such an object by identity (4 generators, 4 traces), so one made once and
    taking it traces once per run as well, and one closing over a single generator would share
    its state (seeded runs would no longer repeat): not reported. Over a `tf.Variable` made in the
    run it is reported: a Function keys a variable by its shape and dtype, so one taking it traces once.

    Under JAX the default tier keeps the repetition the code shows. That a new function object
    traces again is JAX's behaviour; that the same program is traced again and again is known
    only for a wrapper made in a loop or comprehension of nothing its iterations bind (a lambda
    or nested def over the batch counts: what it closes over is a value baked into the trace),
    and for a wrapper made in a function the project calls in a loop (or a method this module
    calls in a loop on one object) when it reads nothing of that function's run: only module-level
    names, builtins, the same `self`, or a function object its callers are shown to pass again
    (`jax.pmap(lambda x: jax.lax.all_gather(x, "batch"))` in a helper called per eval step: the
    same program, traced anew on every call). Three steps are guesses and are reported only
    with `--preview`: a function called at several places, none in a loop (set-up code, one call
    per experiment arm: each call may trace its own program once); a loop whose iterations wrap
    what they bind themselves (`env = make(game); jax.jit(jax.vmap(env.init))`, a jit per layer
    with that layer's `out_shardings`, a factory called with each element: each iteration may be
    another program, which no cache could reuse); and a wrapper, made in a function called in a
    loop, that reads that call's own values (a nested def over `self`, the current `params`, a
    model, a benchmark's configuration: each call may stage another program, one per arm or
    set-up). On the held-back halves of repositories nobody here had tuned on, that last class
    was right 11 times in 21 (0.52), while the wraps in a loop of the same scope were right 18
    times in 21. JAX keys a trace on more than the function object: on the static arguments'
    values, the other arguments' shapes and structures, and the Python values the function holds
    (`frameworks.JAX_TRACE_KEY`). Where each iteration or call brings another of those, one jitted
    function traces and compiles as often, and the new object costs nothing extra (a kernel
    tuner's `jax.jit(functools.partial(kernel, block_tokens=bt))` per candidate `bt`: 4 traces in 4
    candidates either way). So two more steps are guesses (the preview tier): a wrapper made in a
    loop that holds a value the iteration binds (`block_tokens=bt`, a benchmark case's graph
    definition, a lambda's `reshape(-1, n)`), unless that value is known to be an array or is used
    only as an operand (`lambda v: mse(v, x)` with `mse`'s `x` an operand of array arithmetic: a
    constant of the same program, whose new trace one jitted function taking `x` would save); a
    wrapper made in a loop that holds what the body makes of a slice whose length the loop makes
    new on every iteration (`cw = sources[:M]` for `M` in `[1, 2, 5, M_MAX]`, then `gp, cfg =
    build(data, cw)`: a value of another number of items may be another structure, another
    program for one jitted function too, but whether `build` keeps the structure is not shown;
    a script's module-level loop variable counts as the iteration's own, `model = Model(g)` for
    `g` of `for g in g_list:`); and
    a wrapper made in a function that calls it with static arguments the function's own parameters
    give (`wrap(x, page_size, blocks)` in a benchmark run once per configuration). Not reported at
    all: a wrapper made in a loop that holds the loop's own variable over `range(...)` or a literal
    list of different values where the program needs a Python value (a shape, `range`'s bound,
    `lax.scan`'s length, a Python `if`): each iteration is another program, which one jitted
    function with the value static would trace as often; nor one whose iterations each pass, or
    close over, an array whose shape the loop's values make new on every iteration (`x =
    jnp.ones((m, k))` for three literal sizes, an array of `int(c * (step + 1))` rows over
    `range`, `jnp.linspace(0, 1, n)` or `jnp.arange(n)` for each `n`, `jax.nn.one_hot(y, k)` for
    each `k`, an array whose shape the iteration asserts, `assert labels.shape == (n, k)`, in a
    loop over `range(5, 51, 5)`, through a name or a progress bar): JAX keys a trace on the
    arguments' shapes, and a closed-over array is a constant of the program, so one jit made
    before the loop compiles once per iteration as well. `jax.eval_shape` of a new function
    (`jax.eval_shape(lambda _: carry, x)` per iteration) traces it again but compiles nothing:
    what that costs is one run of the function's Python, which matters only for a function
    costly to trace, not shown: the preview tier. Nor a
    wrapper whose every call the
    function cannot bind (`jax.jit(self.calc)(x, c, i)` of a method taking four arguments, a
    missing or extra positional argument, a keyword it lacks): the call raises TypeError before
    anything is traced, so nothing is compiled. A name wrapped
    at several lines of one run (`jax.jit(_shard,
    out_shardings=s)` six times) is one object: JAX's trace cache, keyed on the function object
    whatever the jit options, serves every wrap after the first, so only the first is a retrace,
    and only when the function runs repeatedly.

    ## Why is this bad?
    Traces belong to the Function object: separate Function objects never share traces, even
    for the same Python function and the same arguments. A Function made anew on every step
    traces on every call, and tracing is slow (milliseconds to seconds), so the "compiled"
    code runs slower than eager code. TensorFlow warns that this is "creating @tf.function
    repeatedly in a loop".

    ## Example
    ```python
    def train_step(model, x):
        @tf.function
        def forward(x):
            return model(x)
        return forward(x)             # a new Function, and a new trace, on every step

    for x in batches:
        train_step(model, x)
    ```

    ## Use instead
    ```python
    @tf.function
    def forward(x):
        return model(x)

    for x in batches:
        forward(x)                    # traced once, reused
    ```
    """

    code = "STG502"
    severity = "warning"
    repeated_cost = True
    name = "function-recreated"
    message = "{what} {made} {when}: {why}, so {cost}; {remedy}"
    valid = (
        """
        import tensorflow as tf

        def f(x):
            return x * 2

        step = tf.function(f)
        functions = {}
        for name in ("a", "b"):
            functions[name] = tf.function(f)

        def make_step():
            @tf.function
            def inner(x):
                return x + 1
            return inner

        def test_graph_mode():
            assert tf.function(f)(tf.constant(1)) == 2

        for x in range(3):
            step(tf.constant(x))
        """,
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
        train_step_1 = tf.function(train_step).get_concrete_function(w, x, y, opt1)
        train_step_2 = tf.function(train_step).get_concrete_function(w, x, y, opt2)
        """,
        """
        import jax

        def mse(w, x):
            return ((x * w) ** 2).mean()

        def train(w, batches):
            for x in batches:
                w = w - jax.jit(mse)(w, x)  # JAX: the same function object, one cache
            return w
        """,
        """
        import jax

        def double(v):
            return v * 2

        def triple(v):
            return v * 3

        def init(fn, x):
            def wrapper(v):
                return fn(v)
            return jax.jit(wrapper)(x)   # another program for each function passed

        init(double, 1.0)
        init(triple, 1.0)
        """,
        """
        import equinox as eqx
        import jax

        class Trainer:
            def __init__(self):
                self._update = jax.jit(self.update)  # jitted once, kept

            def update(self, x):
                return x * 2

            def step(self, x):
                y = self._update(x)
                return eqx.filter_jit(self.update)(y)  # Equinox: an equal bound method, one cache

        trainer = Trainer()
        for x in range(3):
            trainer.step(x)
        """,
    )
    invalid = (
        """
        import tensorflow as tf

        def f():
            print("Tracing!")  # STG101
            tf.print("Executing")

        tf.function(f)()  # STG502
        tf.function(f)()  # STG502
        """,
        """
        import tensorflow as tf

        model = tf.keras.Sequential([tf.keras.layers.Dense(2)])

        def train_step(x):
            @tf.function  # STG502
            def forward(x):
                return model(x)
            return forward(x)

        for x in tf.data.Dataset.range(3).map(lambda i: tf.ones([1, 2])):
            train_step(x)
        """,
        """
        import tensorflow as tf

        def double(x):
            return x * 2

        results = []
        for i in range(10):
            results.append(tf.function(double)(tf.constant(i)))  # STG502
        """,
        """
        import jax

        def mse(w, x):
            return ((x * w) ** 2).mean()

        def train(w, batches):
            for x in batches:
                w = w - jax.jit(lambda v: mse(v, x))(w)  # STG502
            return w
        """,
        """
        import jax

        class Trainer:
            def update(self, x):
                return x * 2

            def step(self, x):
                return jax.jit(self.update)(x)  # STG502

        trainer = Trainer()
        for x in range(3):
            trainer.step(x)
        """,
    )

    def __init__(self, ctx):
        super().__init__(ctx)
        #: one record per Function creation: dict(node, target, scope, loop, used, kind, api, ...)
        self.made: list[dict] = []
        self._by_binding: dict[int, dict] = {}
        self._by_def: dict[int, dict] = {}
        #: blocks that run only while tracing: `if not tf.executing_eagerly():` and the `else:` of
        #: `if tf.executing_eagerly():` (a Function made there is made once per outer trace)
        self._graph_only: list[cst.CSTNode] = []
        #: comprehensions around the walk: their element runs once per item, like a loop body
        self._comprehensions: list[cst.CSTNode] = []
        #: the `if` statements around the walk
        self._ifs: list[cst.If] = []
        #: `factory(...)(x)` inside a loop: (qualnames the factory may be, the loop)
        self._factory_calls: list[tuple[set[str], cst.CSTNode, cst.Call]] = []
        #: this module's functions that return a new nested function (`analysis.functions`)
        self._new_factories: set[str] = set()
        #: methods this module calls in a loop, on an object whose class it shows (`trainer.step(x)`
        #: with `trainer = Trainer()`, `self.step(x)`): (class qualname, method) -> the loop
        self._method_loops: dict[tuple[str, str], cst.CSTNode] = {}

    def visit_ListComp(self, node) -> None:
        self._comprehensions.append(node)

    def leave_ListComp(self, node) -> None:
        self._comprehensions.pop()

    visit_SetComp = visit_DictComp = visit_GeneratorExp = visit_ListComp
    leave_SetComp = leave_DictComp = leave_GeneratorExp = leave_ListComp

    def leave_If(self, node: cst.If) -> None:
        self._ifs.pop()

    def visit_If(self, node: cst.If) -> None:
        self._ifs.append(node)
        test, negated = node.test, False
        if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
            test, negated = test.expression, True
        if isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.Or) and not negated:
            test = test.left  # `if tf.executing_eagerly() or not xla_available():` ... `else:`
        if isinstance(test, cst.Call) and any(
            q.rsplit(".", 1)[-1] == "executing_eagerly" and self.ctx.framework.owns(q)
            for q in self.ctx.qualified_names(test.func)
        ):
            block = node.body if negated else node.orelse
            if block is not None:
                self._graph_only.append(block)

    def visit_Return(self, node: cst.Return) -> None:
        if self.ctx.function is not None and returns_new_function(self.ctx, node):
            self._new_factories.add(self.ctx.function.qualname)

    def _in_graph_only(self, node) -> bool:
        return any(self.ctx.inside(node, block) for block in self._graph_only)

    def _staging_api(self, node) -> str | None:
        """The staging API (qualified name) `node` names, or None."""
        ctx = self.ctx
        api = ctx.resolves_to(node, ctx.staging_decorators())
        return canonical_tf_name(api) if api is not None else None  # `tf.compat.v2.function` is `tf.function`

    def _staging(self, node) -> bool:
        return self._staging_api(node) is not None

    def _jax(self, api: str | None) -> bool:
        """`api` is JAX's or one of its libraries' (the split of issue 23 is per framework)."""
        return bool(api) and (api in JAX_STAGING or (not api.startswith("tensorflow.")
                                                     and api not in self.ctx.settings.staging_decorators))

    def _runs_at_once(self, call: cst.Call) -> bool:
        """`call` is a staging API that traces its first argument in the call itself and keeps
        that trace per function object (`jax.eval_shape(f, x)`: `frameworks.JAX_RUNS_AT_ONCE`)."""
        if not call.args or call.args[0].keyword is not None or call.args[0].star \
                or JAX.name in getattr(self.ctx, "absent", ()):  # (`screen.framework_reach`)
            return False
        api = self._staging_api(call.func)
        return api is not None and api in JAX_RUNS_AT_ONCE and api in JAX_CACHES_TRACES

    def _makes_function(self, call: cst.Call) -> bool:
        """`call` makes a Function from its first positional argument: `tf.function(f, ...)`, or
        `tf.function(input_signature=s)(f)`: called with options only, tf.function returns a
        decorator, and applying it makes the Function (`tests/runtime/test_tf_retracing_facts.py`)."""
        if not call.args or call.args[0].keyword is not None or call.args[0].star:
            return False
        if self._staging(call.func):
            return True
        inner = call.func
        return isinstance(inner, cst.Call) and self._staging(inner.func) and all(
            a.keyword is not None for a in inner.args)

    def _made_once_per_key(self, call: cst.Call, loop) -> bool:
        """`call` runs only when a memo of its function lacks the key the function then fills
        (`fn = cache.get(k)`, `if fn is None: fn = jax.jit(...); cache[k] = fn`, or `if k not in
        cache:`), with no loop of its own inside that test: one wrapper per key, whose trace
        every later call with that key reuses (`FileContext.memo_guard`)."""
        ctx = self.ctx
        func = ctx.function
        if func is None:
            return False
        for test in reversed(self._ifs):
            if not ctx.inside(test, func.node) or (loop is not None and not ctx.inside(test, loop)):
                return False
            branch = ctx.memo_guard(test.test, func)
            block = test.body if branch == "body" else test.orelse if branch == "orelse" else None
            if block is not None and ctx.inside(call, block):
                return True
        return False

    def _cache(self, api: str) -> str | None:
        """How `api`'s trace cache treats the function when the wrapper is made again
        (`frameworks.TRACE_CACHE`); a configured staging decorator is "treated like tf.function"."""
        if api in TRACE_CACHE:
            return TRACE_CACHE[api]
        if api in self.ctx.settings.staging_decorators:
            return TRACE_CACHE["tensorflow.function"]
        return None

    def _wrap(self, call: cst.Call, kind: str) -> dict | None:
        """The record of `call`, a staging API wrapping `call.args[0]`, made where the walk is,
        when each run of that place makes a wrapper whose first call traces again; else None."""
        ctx = self.ctx
        api = self._staging_api(call.func.func if isinstance(call.func, cst.Call) else call.func)
        if api is None or (api in JAX_STAGING and api not in JAX_CACHES_TRACES):
            return None  # `jax.vmap(f)`, `jax.grad(f)`: traced on every use, no cache to lose
        cache = self._cache(api)
        target = call.args[0].value
        keyed = _equality_key(ctx, target) if cache == "equal" else target
        loop = self._comprehensions[-1] if self._comprehensions else (ctx.loops[-1] if ctx.loops else None)
        if self._made_once_per_key(call, loop):
            return None
        ident = identity(ctx, keyed, loop, self._new_factories)
        if loop is not None and not self._comprehensions and any(
                resets_its_flag(ctx, guard, loop) for guard in self._ifs):
            # `if need_compile: step = jax.jit(...); need_compile = False`: made when the loop
            # sets the flag, not on every iteration: once per run of this scope at least
            loop = None
            ident = identity(ctx, keyed, None, self._new_factories) if ctx.function is not None else None
        if loop is not None and not _retraces(cache, ident):
            # the same object on every iteration (`jax.jit(step)`, a name bound before the loop):
            # made again once per run of this scope, with what the scope binds then
            loop = None
            ident = identity(ctx, keyed, None, self._new_factories) if ctx.function is not None else None
        record = {"node": call, "target": target, "scope": ctx.function, "loop": loop, "used": None,
                  "kind": kind, "api": api, "cache": cache, "identity": ident, "keyed": keyed}
        if loop is not None:
            # what the wrapper is made of that each iteration binds (`jax.jit(jax.vmap(env.init))`,
            # `tf.function(self.create_G_model(res))`): each iteration may wrap another callable,
            # under either framework (`analysis.functions.bound_per_iteration`)
            record["varies"] = bound_per_iteration(ctx, call.args, loop)
        if loop is not None and self._jax(api):
            record["configured"] = [n for n in configuration_per_iteration(ctx, [target], loop, ctx.function)
                                    if n not in record["varies"]]
        if not _retraces(cache, ident) and not (ident is None and isinstance(keyed, cst.Call)):
            return None  # (a factory's result is known once the module's functions are: `finish`)
        self.made.append(record)
        return record

    def visit_Call(self, node: cst.Call) -> None:
        ctx = self.ctx
        inner = node.func
        if isinstance(inner, cst.Call) and not self._staging(inner.func) and (ctx.loops or self._comprehensions):
            # `make_step(s)(x)` in a loop: the factory's Function is made and used once per iteration
            names = {ctx.relative(q) for q in ctx.qualified_names(inner.func)}
            loop = self._comprehensions[-1] if self._comprehensions else ctx.loops[-1]
            self._factory_calls.append((names, loop, inner))
        if isinstance(inner, cst.Attribute) and isinstance(inner.value, cst.Name) and (ctx.loops or self._comprehensions):
            func = ctx.function
            if func is not None and inner.value.value == func.self_name and func.facts.class_qualname:
                cls = func.facts.class_qualname
            else:
                value = value_of(ctx, inner.value, func)
                cls = value.cls if value.what == "object" else None
            if cls:
                loop = self._comprehensions[-1] if self._comprehensions else ctx.loops[-1]
                self._method_loops.setdefault((cls, inner.attr.value), loop)
        if isinstance(inner, cst.Call) and self._staging(inner.func) and not self._makes_function(inner):
            return  # `tf.function(input_signature=s)(f)`: the decorator applied, a Function made, not called
        if isinstance(inner, cst.Call) and self._makes_function(inner):
            record = self._wrap(inner, "immediate")
            if record is not None:
                record["used"] = record["loop"] if record["loop"] is not None else "scope"
                record["calls"] = [node]
            return
        if self._runs_at_once(node):
            # `jax.eval_shape(partial(f, ...), x)`: traced in the call itself, cached per function
            record = self._wrap(node, "immediate")
            if record is not None:
                record["used"] = record["loop"] if record["loop"] is not None else "scope"
            return
        if isinstance(node.func, cst.Name):
            for b in ctx.bindings_of(node.func):
                record = self._by_binding.get(id(getattr(b, "node", None))) or self._by_def.get(
                    id(getattr(b, "node", None)))
                if record is not None and record["scope"] is ctx.function:
                    loop = record["loop"]
                    record.setdefault("calls", []).append(node)
                    if loop is None or any(lp is loop for lp in ctx.loops):
                        record["used"] = loop if loop is not None else "scope"
                        # the innermost loop or comprehension around the call, in the scope that
                        # made the wrapper (a comprehension's element runs once per item, as a
                        # loop body does: `[float(step(x)) for x in xs]` reuses one trace)
                        around = next((c for c in reversed(self._comprehensions) if record["scope"] is None
                                       or ctx.inside(c, record["scope"].node)), None) \
                            or (ctx.loops[-1] if ctx.loops else None)
                        if loop is None and around is not None and record.get("reused") is None:
                            record["reused"] = around  # called in a loop of the scope that made it
                        if loop is not None and around is not None and around is not loop:
                            record["inner"] = around  # made per outer iteration, called in an inner loop

    def visit_Assign(self, node: cst.Assign) -> None:
        value = node.value
        if not (isinstance(value, cst.Call) and self._makes_function(value)) or self._runs_at_once(value):
            return  # (`out = jax.eval_shape(f, x)` binds a result, not a wrapper: `visit_Call`)
        if self.ctx.function is None and not self.ctx.loops:
            return  # made once at import
        if not any(isinstance(t.target, cst.Name) for t in node.targets):
            return
        record = self._wrap(value, "bound")
        if record is None:
            return
        for t in node.targets:
            if isinstance(t.target, cst.Name):
                self._by_binding[id(t.target)] = record

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        ctx = self.ctx
        info = ctx.function  # the walk has entered `node` already
        if info is None or info.node is not node or info.facts.staged_by != "decorator":
            return
        outer_loops = ctx.loops_around_function()
        if info.parent is None and not outer_loops:
            return
        decorator = next((d for d in node.decorators if self._staging(
            d.decorator.func if isinstance(d.decorator, cst.Call) else d.decorator)), node.decorators[0])
        api = self._staging_api(decorator.decorator.func if isinstance(decorator.decorator, cst.Call)
                                else decorator.decorator)
        if api is not None and api in JAX_STAGING and api not in JAX_CACHES_TRACES:
            return
        where = f"`{info.parent.facts.name}` runs" if info.parent is not None else "this line runs"
        record = {"node": decorator, "target": None, "scope": info.parent, "def": node,
                  "loop": outer_loops[-1] if outer_loops else None, "used": None, "kind": "def",
                  "key": info.qualname, "api": api, "cache": self._cache(api) if api else None,
                  "identity": Identity(NEW, f"`{info.facts.name}` is a nested def, a new function each time {where}")}
        if outer_loops and self._jax(api):
            # what the def holds that each iteration binds anew (a benchmark case's graph definition)
            record["configured"] = configuration_per_iteration(ctx, [node], outer_loops[-1], info.parent)
        self.made.append(record)
        self._by_def[id(node)] = record

    def finish(self) -> None:
        ctx = self.ctx
        for record in self.made:
            keyed = record.get("keyed", record["target"])
            if record["identity"] is None and isinstance(keyed, cst.Call):
                record["identity"] = identity(ctx, keyed, None, self._new_factories)
        made = [r for r in self.made if _retraces(r["cache"], r["identity"])
                and not bound_method_shadowed(ctx, r["identity"] or Identity(SAME, ""))]
        immediate_per_scope: dict[tuple, list[dict]] = {}
        for record in made:
            if record["kind"] == "immediate" and record["loop"] is None:
                scope = record["scope"].qualname if record["scope"] else None
                immediate_per_scope.setdefault((scope, self._key(record) or id(record["target"])), []).append(record)
        for record in made:
            scope = record["scope"]
            if record["used"] is None and scope is not None and record["loop"] is None:
                # a factory that returns its Function, called and its result called at once, in
                # a loop: a new Function per iteration
                call = next(((lp, c) for names, lp, c in self._factory_calls if scope.qualname in names), None)
                if call is not None:
                    record["used"] = "factory"
                    record["factory_loop"] = loop = call[0]
                    if self._jax(record["api"]):  # `make_metric(t)(x)` for each `t`: another program each
                        record["varies"] = bound_per_iteration(ctx, call[1].args, loop)
        for record in made:
            if record["used"] is None or self._never_binds(record):
                continue
            if record["loop"] is None and record["scope"] is not None and memoized(ctx, record["scope"]):
                continue  # made once per argument key of a memoized function (`@functools.lru_cache`)
            fields = self._fields(record)
            if fields is None:
                continue
            scope = record["scope"]
            loop = record.get("factory_loop") if record.get("factory_loop") is not None else record["loop"]
            if loop is not None:
                if record.get("factory_loop") is None and self._new_program_each_iteration(record, loop):
                    continue
                kind = "loop" if isinstance(loop, (cst.For, cst.While)) else "comprehension"
                line = ctx.position(loop).line
                sized = self._held_of_new_length(record, loop) if record.get("factory_loop") is None \
                    and self._jax(record["api"]) else None
                fields["when"] = f"on every iteration of the {kind} on line {line}"
                if record.get("factory_loop") is not None:
                    fields["when"] += f" (`{scope.facts.name}(...)(...)`)"
                inner = record.get("inner")
                if inner is not None:
                    fields["cost"] = (f"it {fields['_traces']} once per iteration of the {kind} on line {line} "
                                      f"(the calls in the {_loop_kind(inner)} on line {ctx.position(inner).line} "
                                      f"reuse that trace)")
                else:
                    fields["cost"] = f"it {fields['_traces']} again on every iteration"
                fields["remedy"] = fields["remedy"].format(outside=f" before the {kind}")
                fields["_because"].append(fact(
                    f"the {kind} on line {line} runs {fields['what']} on each iteration", ctx.position(loop)))
                if sized is not None:
                    held, sliced = sized
                    fields["_because"].append(fact(
                        f"the function made here holds `{held}`, made on each iteration from `{short_code(sliced)}`, "
                        f"a slice the {kind} on line {line} makes of another length on every iteration: a value "
                        f"made of another number of items may have another structure or shape, another program "
                        f"that one jitted function taking it would trace as well; whether it does is not shown",
                        ctx.position(sliced), HEURISTIC))
                varies = record.get("varies")
                if varies:
                    shown = ", ".join(f"`{n}`" for n in varies)
                    fields["_because"].append(fact(
                        f"the {kind} on line {line} binds or changes {shown} on each iteration, and the wrapper "
                        f"is made of {'it' if len(varies) == 1 else 'them'}: each iteration may stage another program "
                        f"(another function or model, other options), so whether a trace repeats an earlier one is "
                        f"not shown", ctx.position(record["node"]), HEURISTIC))
                configured = record.get("configured")
                if configured and record.get("factory_loop") is None:
                    # decided in `confirm`, where the uses of the parameters it is passed to are known
                    shown = ", ".join(f"`{n}`" for n in configured)
                    made_of = _made_of(record)
                    uses = held_uses(ctx, made_of, configured)
                    if any("python" in uses[n] and new_value_each_iteration(ctx, n, loop) for n in configured):
                        # a new value each iteration where the program needs a Python value: each
                        # iteration is another program, one jitted function would trace as often
                        continue
                    fields["_held"] = {"uses": uses, "_because": [fact(
                        f"the function made here holds {shown}, which the {kind} on line {line} binds anew on "
                        f"each iteration, not known to be an array and used there where the program needs "
                        f"a Python value or in a way not shown (a shape, a block size, a graph definition): "
                        f"such a value is the program's configuration, each new one traced and compiled with "
                        f"one jitted function too, and whether the values repeat is not shown",
                        ctx.position(record["node"]), HEURISTIC)]}
                self._emit(record["node"], scope, fields)
            elif record["kind"] == "immediate" and len(group := immediate_per_scope.get(
                    (scope.qualname if scope else None, self._key(record) or id(record["target"])), ())) > 1 \
                    and not (record["api"] in JAX_STAGING and scope is None) \
                    and not (record["cache"] != "per wrap" and isinstance(record.get("keyed"), cst.Name)):
                # (a notebook's `print(jit(grad(f))(3.))` lines under JAX: each runs once; and a
                # name wrapped at several places is one object in one run of the scope, whose
                # traces JAX's cache, keyed on the function object, serves to every wrap of it,
                # whatever the jit options: tests/runtime/test_jax_certain_steps_facts.py)
                others = ", ".join(str(ctx.position(r["node"]).line) for r in group if r is not record)
                fields.update(when=f"here and again on line {others}", cost=f"each of them {fields['_traces']} anew",
                              remedy=fields["remedy"].format(outside=""))
                self._emit(record["node"], scope, fields)
            elif scope is not None:
                same = immediate_per_scope.get((scope.qualname, self._key(record) or id(record["target"])), ())
                if record["cache"] != "per wrap" and isinstance(record.get("keyed"), cst.Name) \
                        and record["kind"] == "immediate" and same and same[0] is not record:
                    continue  # the object an earlier line of this run wrapped: its traces serve this one
                if self._in_graph_only(record["node"]):
                    continue  # a Function made only while tracing is made once per trace of the caller
                fields.update(when=f"each time `{scope.facts.name}` runs",
                              cost=f"it {fields['_traces']} again on every call of `{scope.facts.name}`",
                              remedy=fields["remedy"].format(outside=f" outside `{scope.facts.name}`"))
                reused = record.get("reused")
                if reused is not None:
                    # `step = tf.function(step)` then `for ...: step()`: each run of the scope makes
                    # one Function, traces it once and reuses that trace in its loop; a driver run
                    # once costs one trace, so it is reported only when the scope itself is shown
                    # to run repeatedly (`_repeated`: its call sites), once per run
                    line, kind = ctx.position(reused).line, _loop_kind(reused)
                    fields["cost"] = (f"it {fields['_traces']} once per call of `{scope.facts.name}` (the calls "
                                      f"in the {kind} on line {line} reuse that trace)")
                    fields["_because"].append(fact(
                        f"the {kind} on line {line} calls the new function on each iteration: one trace per run "
                        f"of `{scope.facts.name}`, reused within that run only", ctx.position(reused)))
                    fields["_reused"] = True
                caller_loop = self._method_loops.get((scope.facts.class_qualname, scope.facts.name)) \
                    if scope.facts.class_qualname else None
                if caller_loop is not None:
                    # `trainer.step(x)` in a loop of this module: each iteration runs `step`
                    line = ctx.position(caller_loop).line
                    fields["cost"] += f" (called in the loop on line {line})"
                    fields["_because"].append(fact(f"the loop on line {line} calls `{scope.facts.name}` on each "
                                                   f"iteration", ctx.position(caller_loop)))
                    fields["_looped"] = True
                over = self._over(record)
                if over:
                    fields["_over"] = over  # decided by what the callers pass (`confirm`)
                if record["api"] is None or self._jax(record["api"]):
                    # each run may stage another program when the wrapper reads the run's own values
                    # (asked in `confirm` of JAX code only: `@partial(jax.pmap, ...)` names no API here)
                    made_of = _made_of(record)
                    # (a method this module calls in a loop on one object: the same `self` each time)
                    known = set(over) | ({scope.self_name} if fields.get("_looped") and scope.self_name else set())
                    held = closure_names(ctx, made_of, known)
                    if held:
                        fields["_closure"] = held
                else:
                    made_of = _made_of(record)
                    if identity_keyed_objects_held(ctx, made_of, scope):
                        # it closes over a generator (or Keras model) this run makes: a Function
                        # keys such an object by identity, so one made once and taking it would
                        # trace once per run as well; nothing to save
                        continue
                    # TensorFlow bakes a Python value the new Function reads of this run into its
                    # graph: each run with another value needs a graph of its own
                    held = python_values_held(ctx, made_of, scope)
                    if held:
                        shown = ", ".join(f"`{n}`" for n in held[:4]) + (" ..." if len(held) > 4 else "")
                        fields["_python_held"] = {"_because": [fact(
                            f"the function made here reads {shown}, a Python value computed in each run of "
                            f"`{scope.facts.name}`: TensorFlow bakes it into the graph as a constant, so a run "
                            f"with another value needs a graph of its own (a Function made once outside "
                            f"`{scope.facts.name}` would keep the first value); whether a trace repeats an "
                            f"earlier one is not shown", ctx.position(record["node"]), HEURISTIC)]}
                        fields["remedy"] = (f"create it once outside `{scope.facts.name}` and pass {shown} to it as "
                                            f"a tensor argument (a closure would keep the first value)")
                self.report(record["node"], function=scope, _enclosing=scope.qualname, **fields)

    def _new_program_each_iteration(self, record, loop) -> bool:
        """Two iterations of `loop` could not share one trace whatever the function object, so a
        wrapper made once before the loop would trace as often and the new one costs nothing.
        Under JAX: the function holds an array the iteration binds with a shape new on every
        iteration, or every call of the wrapper in the loop passes one
        (`analysis.varying_shapes.new_shape_each_iteration`: JAX keys its traces on the
        arguments' shapes, and a closed-over array is a constant of the program). Under
        TensorFlow: every call of the Function in the loop passes a Keras layer or model the
        iteration makes anew (`analysis.functions.new_keras_object_each_iteration`: a tf.function
        keys such an argument by identity). A Function made per run of its function that reads a
        Python value of that run follows the same fact where the values differ; that they do is
        not shown there (`python_values_held`, a preview step)."""
        ctx, scope = self.ctx, record["scope"]
        if not isinstance(loop, cst.For):
            return False  # (a comprehension's or a `while`'s values are not spelled out)
        jax = self._jax(record["api"])
        made_of = _made_of(record)
        new_each = new_shape_each_iteration if jax else new_keras_object_each_iteration
        if any(all(new_each(ctx, node, loop, scope) for node in nodes)
               for _, nodes in held_in_loop(ctx, made_of, loop)):
            return True  # (TensorFlow: `model = build_model()`, then `tf.function(model)` or a lambda over it)
        if not jax and isinstance(record["target"], cst.Call) and new_keras_object(ctx, record["target"], scope):
            return True  # `tf.function(Model())`: another model, and its trace, on every iteration
        calls = [c for c in record.get("calls") or () if ctx.inside(c, loop)]

        def new_key(arg) -> bool:
            if (jax and arg.keyword is not None) or arg.star or not isinstance(arg.value, cst.Name):
                return False
            refs = ctx.reaching_in_order(arg.value, scope)
            return bool(refs) and len(refs) == 1 and new_each(ctx, getattr(refs[0], "node", None), loop, scope)

        return bool(calls) and all(any(new_key(a) for a in call.args) for call in calls)

    def _held_of_new_length(self, record, loop):
        """(name, slice) when the function made per iteration of `loop` holds a value the body
        makes, by a call, of a slice whose length is new on every iteration (`cw = injectors[:M]`
        for `M` in `[1, 2, 5]`, then `gp, cfg = build(data, cw)`:
        `analysis.varying_shapes.new_length_each_iteration`), or that slice itself; else None."""
        ctx, scope = self.ctx, record["scope"]
        if not isinstance(loop, cst.For):
            return None
        made_of = _made_of(record)
        for name, nodes in held_in_loop(ctx, made_of, loop):
            for node in nodes:
                if new_length_each_iteration(ctx, node, loop, scope):
                    return name, ctx.bound_values.get(id(node))
                value = ctx.bound_values.get(id(node))
                if not isinstance(value, cst.Call):
                    continue
                for arg in value.args:
                    if arg.star or not isinstance(arg.value, cst.Name):
                        continue
                    refs = ctx.reaching_in_order(arg.value, scope)
                    if refs and len(refs) == 1 and new_length_each_iteration(
                            ctx, getattr(refs[0], "node", None), loop, scope):
                        return name, ctx.bound_values.get(id(refs[0].node))
        return None

    def _never_binds(self, record) -> bool:
        """Every call of the wrapper the scope makes passes arguments its function cannot bind
        (`analysis.functions.binding_error`: `jax.jit(self.calc_meas)(x, c, i)` of a method taking
        four): each raises TypeError before anything is traced, so nothing is compiled, let alone
        again. Read for a def of this file, undecorated (or decorated by the staging API alone),
        and a lambda; for `self.method` only where no other class of the file defines that method."""
        ctx, calls = self.ctx, record.get("calls")
        if not calls:
            return False
        if record["kind"] == "def":
            info = ctx.function_infos.get(id(record["def"]))
            node, bound = record["def"], False
            if info is None or info.facts.class_qualname or len(node.decorators) != 1:
                return False
        elif isinstance(record["target"], cst.Lambda):
            node, bound = record["target"], False
        else:
            target = record["target"]
            info = same_file_function(ctx, target, record["scope"])
            if info is None or info.node.decorators:
                return False
            node, bound = info.node, isinstance(target, cst.Attribute)
            if bound and sum(1 for other in ctx.function_infos.values()
                             if other.facts.class_qualname and other.facts.name == info.facts.name) != 1:
                return False  # a subclass here may override it with another signature
        return all(binding_error(node.params, call, bound) for call in calls)

    def _over(self, record) -> list[str]:
        """The parameters of the scope whose function objects the wrapped nested def or lambda
        calls (`analysis.functions.calls_over`)."""
        ctx, scope, target = self.ctx, record["scope"], record["target"]
        if record["kind"] == "def":
            nodes = [record["def"]]
        elif isinstance(target, cst.Lambda):
            nodes = [target]
        elif isinstance(target, cst.Name):
            nodes = [b.node for b in ctx.bindings_of(target) if isinstance(getattr(b, "node", None), cst.FunctionDef)]
        else:
            nodes = []
        return sorted({p for n in nodes for p in calls_over(ctx, n, scope)})

    def _emit(self, node, scope, fields: dict) -> None:
        if scope is None and fields.get("_stages_itself"):
            # module-level code: the wrapper stages what it wraps, so the finding stands alone
            self.ctx.facts.candidates.append(F.Candidate(self.code, None, self.ctx.position(node), dict(fields)))
        else:
            self.report(node, function=scope, **fields)

    def _fields(self, record) -> dict | None:
        """The message's fields and the proof of a record that retraces, or None when the
        function it stages is not one a finding can stand for."""
        ctx = self.ctx
        target, ident, api, cache = record["target"], record["identity"], record["api"], record["cache"]
        key = self._key(record)
        tf_like = cache == "per wrap"
        if record["kind"] == "def":
            what = f"`@{short_code(record['node'].decorator)}` on `{key.rsplit('.', 1)[-1]}`"
        elif api == "tensorflow.function":
            what = f"`tf.function({short_code(target)})`"
        else:
            what = f"`{short_code(record['node'], 60)}`"
        shown = "`tf.function`" if api == "tensorflow.function" else f"`{api}`" if api else "the staging decorator"
        fields: dict = {"what": what, "_because": []}
        if ident is not None and ident.kind != SAME:
            fields["_because"].append(fact(ident.phrase, ctx.position(target if target is not None else record["node"]),
                                           ident.certainty))
        if tf_like:
            fields["made"] = "makes a new Function" if api == "tensorflow.function" else f"makes a new {shown} wrapper"
            fields["why"] = "a new Function never reuses another's traces" if api == "tensorflow.function" \
                else f"each {shown} wrapper keeps its own traces"
            fields["_because"].append(fact(f"{shown} returns a new wrapper with its own trace cache each time it runs",
                                           ctx.position(record["node"])))
            fields["_traces"] = "traces"
            fields["remedy"] = "create it once{outside} and reuse it"
        elif ident is not None and ident.kind == BOUND:
            fields["made"] = f"jits `{short_code(target)}`, a new bound method,"
            fields["why"] = f"{shown} keeps a function's traces only while an equal one is alive"
            fields["_because"].append(fact(f"{shown} keys its trace cache on the function object, and a bound "
                                           f"method dies with its wrapper", ctx.position(record["node"])))
            fields["_traces"] = "traces and compiles"
            method = target.attr.value if isinstance(target, cst.Attribute) else "method"
            scope = record["scope"]
            if isinstance(target, cst.Attribute) and isinstance(target.value, cst.Name) and scope is not None \
                    and target.value.value == scope.self_name:
                fields["remedy"] = (f"jit it once in `__init__` (`self._{method} = {shown.strip('`')}(self.{method})`), "
                                    f"or jit a module-level function that takes the object's state as arguments")
            else:
                fields["remedy"] = (f"jit it once{{outside}} (`{method} = {shown.strip('`')}({short_code(target)})`) "
                                    f"and reuse it")
        else:
            at_once = api in JAX_RUNS_AT_ONCE  # `jax.eval_shape(f, x)` traces there; nothing is compiled
            fields["made"] = "traces a new function" if at_once else "jits a new function"
            fields["why"] = f"{shown} caches traces per function object"
            fields["_because"].append(fact(f"{shown} keys its trace cache on the function object",
                                           ctx.position(record["node"])))
            fields["_traces"] = "traces" if at_once else "traces and compiles"
            fields["remedy"] = ("make the function once{outside}" if at_once else "jit it once{outside}") \
                + " and pass what changes as arguments"
            if api in JAX_TRACES_WITHOUT_COMPILING:
                # `jax.eval_shape(lambda _: carry, x)`: a trace, no compile; what one costs is the
                # function's Python, which the code does not show to matter
                fields["_because"].append(fact(
                    f"{shown} traces the function and compiles nothing: each new function costs one run of "
                    f"its Python on abstract values, which matters only for a function costly to trace "
                    f"(not shown)", ctx.position(record["node"]), HEURISTIC))
        if self._jax(api):
            fields["_jax_api"] = api
        if key is None or isinstance(target, cst.Lambda) or (ident is not None and ident.kind == BOUND) \
                or (api in JAX_CACHES_TRACES and api in JAX_STAGING and api_mode(api) == "trace"):
            # the wrapper stages what it wraps, reached or not (`jax.eval_shape(partial(f, ...), x)`
            # traces `f` in the call, whatever else stages `f`)
            fields["_stages_itself"] = True
        else:
            fields["_anchors"] = [[ctx.module, key]]
        return fields

    def _key(self, record) -> str | None:
        """The qualname (in this module) of the function the Function is made from."""
        if record["kind"] == "def":
            return record["key"]
        ctx = self.ctx
        target = record["target"]
        scope = record["scope"]
        if isinstance(target, cst.Call) and ctx.qualified_names(target.func) & PARTIAL_CALLS and target.args:
            target = target.args[0].value  # `jax.jit(partial(f, n=2))`: a new partial object each time
        while isinstance(target, cst.Call) and target.args and ctx.resolves_to(target.func, JAX_STAGING):
            target = target.args[0].value  # `jax.jit(jax.grad(f))`
        if isinstance(target, cst.Lambda):
            pos = ctx.position(target)
            return f"<lambda>@{pos.line}:{pos.column}"  # each lambda is its own function
        if isinstance(target, cst.Attribute) and isinstance(target.value, cst.Name) and scope is not None:
            if target.value.value == scope.self_name and scope.facts.class_qualname:
                qual = f"{ctx.relative(scope.facts.class_qualname)}.{target.attr.value}"
                return qual if qual in ctx.facts.functions else None
        names = ctx.qualified_names(target) if isinstance(target, (cst.Name, cst.Attribute)) else set()
        for q in names:
            rel = ctx.relative(q)
            if rel in ctx.facts.functions:
                return rel
        return None

    @classmethod
    def confirm(cls, candidate, project, module) -> bool:
        verdict = cls._repeated(candidate, project, module)
        if verdict and candidate.fields.get("_reused"):
            # a driver that makes its Function and reuses it in its own loop traces once per run;
            # its runs may each set up another program (a sweep's arm, another model): a guess
            name = project.display((module.module, candidate.fields["_enclosing"]), module.module)
            verdict = with_steps(verdict, candidate, fact(
                f"each run of `{name}` traces the new function once and its own loop reuses that trace: "
                f"whether its runs stage the same program again, or each sets up another (a sweep's "
                f"arm, another model), is not shown", candidate.span, HEURISTIC))
        static = _static_from_run(candidate, project, module) if verdict else None
        if static is not None:
            verdict = verdict if isinstance(verdict, dict) else {}
            verdict["_because"] = [*verdict.get("_because", candidate.fields.get("_because", ())), static]
        configured = candidate.fields.get("_held")
        if verdict and configured and not _held_as_operands(project, module, configured["uses"]):
            verdict = verdict if isinstance(verdict, dict) else {}
            verdict["_because"] = [*verdict.get("_because", candidate.fields.get("_because", ())),
                                   *configured["_because"]]
        python_held = candidate.fields.get("_python_held")
        if verdict and python_held:
            verdict = with_steps(verdict, candidate, *python_held["_because"])
        held = candidate.fields.get("_closure")
        if not verdict or not held or not (candidate.fields.get("_jax_api") or any(
                project.staged_by_jax(tuple(a)) for a in candidate.fields.get("_anchors", ()))):
            return verdict
        # Under JAX a wrapper made each time its function runs traces again each time (a new
        # object); a repeat of the same program, which a cache could have served, is known only
        # when it reads nothing of that run. Reading the run's own values (a model, a
        # configuration, a function passed in: a one-shot set-up or one trace per experiment arm
        # on held-back code, right 11 times in 21 there) it may be another program each time.
        shown = ", ".join(f"`{n}`" for n in held[:4]) + (" ..." if len(held) > 4 else "")
        return with_steps(verdict, candidate, fact(
            f"the function made here reads {shown} of the function that makes it: each run may stage "
            f"another program (another model, configuration or function), which no cache could reuse, "
            f"so whether its traces repeat is not shown", candidate.span, HEURISTIC))

    @classmethod
    def _repeated(cls, candidate, project, module):
        """Whether the function that makes the wrapper runs repeatedly (its call sites, a request
        handler): falsy, True, or a dict of message fields and proof."""
        enclosing = candidate.fields.get("_enclosing")
        if not enclosing:
            return True
        key = (module.module, enclosing)
        eager = None
        if key in project.reached:
            if (project.entries.get(key) not in (None, "dataset")
                    or not eager_calls(project, key) and caller_in_loop(project, key) is None):
                return False  # made while the enclosing function is traced: once per trace, not per call
            # a helper a trace reaches that is also called outside any trace (those calls run it),
            # or traced by a `tf.data` transformation called in a loop (each call traces it again)
            eager = [(m, s) for m, s in eager_calls(project, key) if not isinstance(s, MappedCall)]
        if serialized(project, (module.module, enclosing)):
            return False  # a TFF computation's body: run once per parameter type, never by a call
        f = project.function((module.module, enclosing))
        if f is not None and any(d.rsplit(".", 1)[-1] in REQUEST_HANDLER_DECORATORS for d in f.decorators):
            traces = candidate.fields.get("_traces", "traces")
            return {"when": f"each time `{f.name}` runs (it handles every request)",
                    "cost": f"it {traces} again on every request"}
        # Tests call a driver once each; several tests are not a loop.
        sites = [(mod, site) for mod, site in project.call_sites.get((module.module, enclosing), ())
                 if not is_test_module(mod)] if eager is None else eager  # (a traced function: its other runs)
        if candidate.fields.get("_over"):
            return _same_program_again(candidate, project, module, (module.module, enclosing), sites)
        if candidate.fields.get("_looped") or any(site.in_loop for _, site in sites):
            return True
        chain = caller_in_loop(project, (module.module, enclosing))
        if chain is not None:
            # `score_matrix` calls `eval_vector` in a loop, which calls `run_predictions`: each
            # iteration runs the function that makes the wrapper
            callee = project.display((module.module, enclosing), module.module)
            steps = []
            for mod, site in chain:
                caller = project.display((mod, site.caller), mod) if site.caller else f"module `{mod}`"
                where = f"{project.modules[mod].path}:{site.span.line}"
                loop = " in a loop" if site.in_loop else ""
                # (a lambda is displayed "the lambda on line N", a module "module `m`": no quotes)
                quoted = caller if caller.startswith(("the lambda", "module `")) else f"`{caller}`"
                shown = callee if callee.startswith("the lambda") else f"`{callee}`"
                if isinstance(site, DatasetTrace):
                    steps.append(fact(f"{quoted} gives {shown} to a `tf.data` transformation{loop}, which traces "
                                      f"it anew on each call ({where})", candidate.span))
                elif isinstance(site, MappedCall):
                    api = site.api.rsplit(".", 1)[-1]
                    steps.append(fact(f"{quoted} hands {shown} to `{api}`, which calls it once per element of "
                                      f"its input ({where})", candidate.span))
                else:
                    steps.append(fact(f"{quoted} calls {shown}{loop} ({where})", candidate.span))
                callee = caller
            return with_steps(True, candidate, *steps)
        if candidate.fields.get("_reused"):
            # a driver that makes its Function and reuses it in its own loop, called at several
            # places none in a loop: one trace per run, and its runs (a script's each) may be
            # set-up, one per program (tf-models' `run_customized_training_loop`): nothing shown
            return False
        if len(sites) > 1:
            # Several calls make several wrappers, but whether they stage one program again or
            # run once each (set-up, one call per experiment arm; under TensorFlow a set-up that
            # wraps each of its functions once, `self.forward = self._wrap(self._forward)`) the
            # code does not show: the preview tier under both frameworks.
            shown = ", ".join(f"{project.modules[mod].path}:{site.span.line}" if mod != module.module
                              else f"line {site.span.line}" for mod, site in sites[:4])
            more = f" and {len(sites) - 4} more" if len(sites) > 4 else ""
            name = project.display((module.module, enclosing), module.module)
            return with_steps(True, candidate, fact(
                f"`{name}` is called at {len(sites)} places ({shown}{more}), none in a loop: how often it "
                f"runs, and whether its calls stage the same program, is not shown", candidate.span, HEURISTIC))
        return False


def _made_of(record) -> list:
    """What the function a wrapper record stands for is made of: the nested def it decorates or
    wraps, else the target the staging call is given (a name, a lambda, `self.method`)."""
    return [record["def"]] if record["kind"] == "def" else [record["target"]]


def _loop_kind(node) -> str:
    """What a message calls `node`, a loop or a comprehension around a call."""
    return "loop" if isinstance(node, (cst.For, cst.While)) else "comprehension"


def _held_as_operands(project, module, uses: dict) -> bool:
    """Every value a function made in a loop holds from the iteration (`analysis.functions.held_uses`)
    is used only where a traced value computes the same: an operand, or an argument for a
    parameter of a project function that uses it as one (`FunctionFacts.param_uses`, STG501's
    reading): a constant of the same program each iteration, so the new function's trace repeats
    the last one's (`lambda v: mse(v, x)` over each batch)."""
    for reads in uses.values():
        for use in reads:
            if use == "operand":
                continue
            if not isinstance(use, list) or use[0] != "arg":
                return False
            keys = [k for q in use[1] for k in [project.split_qualified(q, module.module)] if k is not None]
            f = project.function(keys[0]) if len(keys) == 1 else None
            if f is None:
                return False
            slot = use[2]
            position = int(slot[1:]) if slot.startswith("#") else None
            if position is not None and not 0 <= position < len(f.params):
                return False
            param = f.params[position] if position is not None else slot
            if f.param_uses.get(param) != "tensor":
                return False
    return True


def _static_from_run(candidate, project, module):
    """The wrapper made in a function is called there with static arguments the function's own
    parameters give (`wrap(new_value, cache, page_size, num_slices_per_block)` with the last two
    static, in a benchmark called once per configuration): each run may bring other static values,
    a new trace and compilation with one jitted function too (JAX keys its traces on the static
    values, `frameworks.JAX_TRACE_KEY`), and whether they repeat the callers decide: the proof's
    step (HEURISTIC), or None."""
    enclosing = candidate.fields.get("_enclosing")
    if not enclosing:
        return None
    for anchor in candidate.fields.get("_anchors", ()):
        key = tuple(anchor)
        static = project.jax.static_params(key)
        if not static:
            continue
        given = []
        for mod, site, _ in project.function_calls.get(key, ()):
            if mod != module.module or site.caller != enclosing:
                continue
            given += [(p, arg.param) for p, arg in project.passed(site, key)
                      if p in static and arg.param and (p, arg.param) not in given]
        if given:
            shown = ", ".join(f"`{p}`" if p == a else f"`{p}` (`{a}`)" for p, a in given[:4])
            name = project.display(key, module.module)
            return fact(f"the static arguments {shown} of `{name}` are given parameters of "
                        f"`{project.display((module.module, enclosing), module.module)}`: each of its runs may "
                        f"bring other static values, which one jitted function would trace and compile "
                        f"anew too, so whether a trace repeats is not shown", candidate.span, HEURISTIC)
    return None


def _same_program_again(candidate, project, module, key, sites):
    """A function built over the enclosing function's parameters holding functions (`_over`)
    is another program for each object passed there: its new trace repeats an earlier one only
    when the same objects are passed again, by a call in a loop or by two calls
    (`facts.ArgFacts.function`). Known the same: reported; the same attribute read twice: most
    likely the same object (preview); different or unknown: silence."""
    over = candidate.fields["_over"]
    seen: dict[tuple, F.CallSite] = {}
    guess = None
    for mod, site in sites:
        passed = dict(project.passed(site, key))
        objects = tuple(passed[p].function if p in passed else "" for p in over)
        if not all(o.startswith(("same:", "attr:")) for o in objects):
            continue  # a new object (a lambda, `Model().train`) or an unknown one
        # an attribute read is matched within one caller only (`self.model` is another object elsewhere)
        known = all(o.startswith("same:") for o in objects)
        mark = objects if known else (mod, site.caller, objects)
        earlier = seen.get(mark)
        if not site.in_loop and earlier is None:
            seen[mark] = site
            continue
        shown = ", ".join(f"`{passed[p].text}`" for p in over)
        where = f"in the loop on line {site.span.line}" if site.in_loop else \
            f"on lines {earlier.span.line} and {site.span.line}"
        if mod != module.module:
            where += f" of {project.modules[mod].path}"
        proof = fact(f"`{project.display(key, module.module)}` is called with the same {shown} {where}"
                     + ("" if known else " (an attribute read again: most likely the same function)")
                     + ", so the same program is traced again",
                     site.span if mod == module.module else candidate.span, TRUE if known else HEURISTIC)
        verdict = with_steps(True, candidate, proof)
        if known:
            return verdict
        guess = guess or verdict
    return guess or False


def _equality_key(ctx, target: cst.BaseExpression) -> cst.BaseExpression:
    """What decides whether `target`, wrapped anew by a cache keyed on equality (`eqx.filter_jit`),
    equals the last one: the function an Equinox transformation wraps (`eqx.filter_vmap(f)`, its
    options literals: `frameworks.EQUINOX_EQUAL_WRAPPERS`), else `target` itself."""
    while isinstance(target, cst.Call) and target.args and target.args[0].keyword is None \
            and not target.args[0].star and ctx.qualified_names(target.func) & EQUINOX_EQUAL_WRAPPERS \
            and all(_constant(a.value) for a in target.args[1:]):
        target = target.args[0].value
    return target


def _constant(expr: cst.BaseExpression) -> bool:
    """A literal option (`in_axes=(0, None)`, `out_axes=0`, `has_aux=True`)."""
    if isinstance(expr, cst.Name):
        return keyword_constant(expr)
    if isinstance(expr, (cst.Integer, cst.SimpleString)):
        return True
    if isinstance(expr, cst.Tuple):
        return all(_constant(e.value) for e in expr.elements)
    return False


def _retraces(cache: str | None, ident: Identity | None) -> bool:
    """A wrapper made again, around what `ident` says, traces again on its first call: always for
    a cache per wrapper (`tf.function`, `nnx.jit`); for a cache keyed on the function, when the
    function is new and unequal, or a bound method whose equal predecessor died with its wrapper
    (`jax.jit`'s "equal while alive"); unknown (silence) when the object is (`frameworks.TRACE_CACHE`)."""
    if cache == "per wrap":
        return True
    if ident is None:
        return False
    if ident.kind == NEW:
        return True
    return ident.kind == BOUND and cache == "equal while alive"


class PythonLoopUnrolled(Rule):
    """
    ## What it does
    Flags a Python `for` loop in staged code over `range(<parameter>)` or `range(len(<parameter>))`
    when the parameter is a Python value, and over a parameter that callers pass as a Python
    list, tuple or NumPy array. Callers count directly and through helpers that call (or trace,
    `f.get_concrete_function(*args)`) the function they are handed with the arguments they are
    given (the guide's `measure_graph_size(train, small_data)`).

    Not flagged: `range(<tensor>)` (AutoGraph turns it into `tf.range`), `tf.range`, tensors and
    datasets; loops over model structure (`for layer in self.layers`, and its index form `for l
    in range(start, end): x = self.layers[l](x)`, whose variable only picks which element of a
    Python container to call: each iteration applies another layer, and no graph loop can pick
    a Python object by a tensor index), module-level constants and
    literal sequences (`for k in (1, 2, 3)`, `range(4)`), which are deliberate, fixed unrolling;
    loops whose body adds no graph ops (building an einsum equation, a NumPy table, the k vectors
    of an FFT over the axes of a Python shape list: `np.fft.fftfreq`, `kd *= 2 * np.pi`, and the
    methods of the NumPy array it gives, `kd.reshape(...)`, which NumPy computes; `kd *= x` of a
    tensor `x` makes `kd` a tensor, and the body graph work); `range(n)`
    where callers pass one small fixed number (a model's size, below 32), or nothing visible,
    or different small numbers from call sites that are themselves staged code
    (`self._patch(x, 2)` in one traced function, `self._patch(x, 3)` in another: each unrolls
    once, at a fixed size) or from eager code calling a plain helper rather than a Function
    (`crop(x, output_size=7)`, `crop(x, output_size=14)` in a model's build code: those calls
    run eagerly, and traced ones unroll at their own fixed size); lists of structure rather than data (tensors, layers, callbacks); loops over parameters
    whose callers are not visible or pass tensors or datasets.


    Under JAX: `range(<static argument>)` and a `for` over a traced array's rows (a list of layer
    parameters, `for w, b in params:`, is left alone), also written `range(x.shape[0])` (or
    `reversed(range(...))`): as many iterations as `x` has rows, the same unrolled program (another
    dimension, `x.shape[1]`, is not a row count); `range(<traced value>)` fails instead (STG602).
    A Python container of arrays (a dict, a list display, the list `jnp.split` or `jnp.meshgrid`
    returns) is iterated once per element the code made, not per row, and is left alone, and so is
    the gradient of one (`jax.grad(f)(params)` has the structure of `params`: a list of layers
    gives a list of layers) or of a value not known to be an array, and so is the aux a
    `has_aux=True` differentiation hands back (`(_, aux), grads = jax.value_and_grad(f,
    has_aux=True)(x)`: what `f` returns second, a dict stays a dict), and so is what JAX's loops
    and maps give back in a container the code made (`_, trajs = lax.scan(step, c, xs)` with
    `step` returning a list of per-agent values as its per-step output: ys keeps the list, each
    leaf stacked; a scan's carry, `fori_loop`/`while_loop` from a list `init`; `lax.map`/`jax.vmap`
    of a function returning a list; `lax.cond`/`lax.switch` one of whose branches returns a list
    or its operand, `lambda x: x` of a list: every branch returns one structure); a loop over
    what `jax.vmap(f)(x)` or `jax.jit(f)(x)` returns (or an element unpacked from it) where `f`'s
    returns are not shown (`fake_pred, _ = jax.vmap(disc)(y)` with `disc` a parameter, a
    multi-discriminator returning a list of predictions) is reported only with `--preview`: the
    call returns the pytree `f` returns, an array or a list of them; so is a
    body that only builds functions or module classes (`module = nn.vmap(module, ...)`, `jax.jit(f)`:
    a transformation emits no operation until what it built is called); a body
    whose only possible JAX operation is a call of a project function (which may be shape checks
    or bookkeeping) is reported only with `--preview`, as is a loop over a parameter annotated as a
    Python container (`slots: list[int]`: jit hands a list over as a list of its leaves, one
    iteration per element) that the body does not use as an array. A jitted parameter is a pytree:
    a dict is iterated over its keys, a list over its items, an array over its rows. The loop is
    known to run per row where the parameter shows it is an array (an operation on it, `xs.shape`)
    or where each row is an operand of a JAX operation (`jnp.maximum(best, x)`: a dict's string key
    fails there); a loop whose variable is only used as a key or in Python code (`for name in
    grads: out[name] = grads[name]`) is reported only with `--preview`. A loop in no trace is not
    reported: one after `if use_scan: return lax.scan(...)` (or under `if not use_scan:`) where
    every traced call passes `use_scan=True` (written out, through a `**` spread of a dict display
    bound once and never changed, a `**kwargs` handed on, or bound by `functools.partial`), and one
    after a call that raises in every trace (`.tolist()` of a JAX op's result in a function only
    `jax.jit` and `lax` bodies reach).

    ## Why is this bad?
    A Python loop runs while tracing, and each iteration adds a copy of the body's ops to the
    graph: `for _ in range(100)` with a matmul builds 100 matmuls; a training loop over a Python
    list of batches builds one copy of the model per batch (the guide's example grows from 11 to
    32 nodes for 3 and 10 items). The graph, the trace time and the memory grow with the data,
    and a new length, or a new Python value for `n`, traces again.

    ## Example
    ```python
    @tf.function
    def train(dataset):
        loss = tf.constant(0)
        for x, y in dataset:          # a Python list: unrolled
            loss += tf.abs(y - x)
        return loss

    train([(1, 1)] * 10)
    ```

    ## Use instead
    ```python
    train(tf.data.Dataset.from_tensor_slices(([1] * 10, [1] * 10)))   # a graph loop
    ```
    and `for i in tf.range(n)` with `n` passed as a tensor.
    """

    code = "STG503"
    whole_loop = True
    severity = "warning"
    repeated_cost = True
    name = "python-loop-unrolled"
    message = "this Python `for` over `{iter}` runs while {func} is traced, so it is unrolled into the graph ({detail}): the graph grows with every iteration and a new {length} traces again; {instead}"
    jax_message = "this Python `for` over `{iter}` runs while {func} is traced by JAX, so it is unrolled ({detail}): the program and its compile time grow with every iteration; use `lax.fori_loop` / `lax.scan`"
    valid = (
        """
        import tensorflow as tf

        class Stack(tf.keras.Model):
            def __init__(self):
                super().__init__()
                self.blocks = [tf.keras.layers.Dense(4) for _ in range(3)]

            def call(self, x):
                for layer in self.blocks:
                    x = layer(x)
                for scale in (1.0, 0.5):
                    x = x * scale
                for _ in range(2):
                    x = tf.nn.relu(x)
                return x
        """,
        """
        import tensorflow as tf

        @tf.function
        def train(num_steps, dataset):
            total = tf.constant(0)
            for _ in range(num_steps):
                total += 1
            for x in dataset:
                total += x
            return total

        train(tf.constant(10), tf.data.Dataset.range(3))
        """,
        """
        import tensorflow as tf

        def tile(x, n):
            parts = []
            for _ in range(n):
                parts.append(tf.identity(x))
            return tf.concat(parts, 0)

        @tf.function
        def mosaic(x):
            return tile(x, 2) + tile(x, 3)[:2]
        """,
        """
        import jax
        from jax import lax

        @jax.jit
        def smooth(x, n):
            return lax.fori_loop(0, n, lambda i, v: v * 0.5, x)
        """,
    )
    invalid = (
        """
        import tensorflow as tf

        def power(x, y):
            result = tf.eye(10, dtype=tf.dtypes.int32)
            for _ in range(y):  # STG503
                result = tf.matmul(x, result)
            return result

        x = tf.ones([10, 10], dtype=tf.int32)
        power_as_graph = tf.function(power)
        power_as_graph(x, 100)
        """,
        """
        import tensorflow as tf

        @tf.function
        def train(dataset):
            loss = tf.constant(0)
            for x, y in dataset:  # STG503
                loss += tf.abs(y - x)
            return loss

        small_data = [(1, 1)] * 3
        big_data = [(1, 1)] * 10
        train(small_data)
        train(big_data)
        """,
        """
        import tensorflow as tf

        @tf.function
        def unrolled(x, n):
            for _ in range(n):  # STG503
                x = x + 1
            return x

        for n in (2, 4, 8):
            unrolled(tf.constant(0), n)
        """,
        """
        import functools
        import jax

        @functools.partial(jax.jit, static_argnums=1)
        def smooth(x, n):
            for _ in range(n):  # STG503
                x = x * 0.5
            return x
        """,
    )

    def visit_For(self, node: cst.For) -> None:
        ctx = self.ctx
        func = ctx.function
        if func is None or not ctx.in_staged_context:
            return
        it = node.iter
        if isinstance(it, cst.Name) and ctx.binding_kind(it, func) == "param":
            self._candidate(node, iter=short_code(it), _param=it.value, _how="data", _rows=_used_as_rows(node),
                            _row_op=_row_given_to_op(ctx, node, func))
            return
        counted = range_iterated(ctx, it)
        if counted is None:
            # JAX unrolls over a traced array's first axis; a Python container of arrays (a dict,
            # a list display, `jnp.split`'s list) is iterated as Python, as long as the code wrote it
            if _an_array(ctx, it, func):
                # what `jax.vmap(f)(x)` returns is the pytree `f` returns: where `f`'s returns are
                # not shown (a parameter), an array is a guess (a list of arrays is iterated as Python)
                self._candidate(node, iter=short_code(it), _param="", _how="array", _jax_only=True,
                                _structure_unshown=structure_unshown(ctx, it, func) or "")
            return
        if _calls_by_index(node):
            # `for l in range(a, b): x = self.layers[l](x)` applies one callable of a Python
            # container per iteration, as `for layer in self.layers[a:b]` does (no candidate): the
            # unrolled copies are the network, and no graph loop can pick a Python object by a
            # tensor index (TypeError; tests/runtime/test_tf_loop_facts.py)
            return
        for arg in counted.args:
            value = arg.value
            rows_of = leading_dimension_of(value)
            if rows_of is not None:
                # `range(x.shape[0])`: a loop over the rows of `x`, as `for row in x` is (JAX)
                if isinstance(rows_of, cst.Name) and ctx.binding_kind(rows_of, func) == "param":
                    self._candidate(node, iter=short_code(it), _param=rows_of.value, _how="data", _jax_only=True,
                                    _counts_rows=short_code(value))
                elif _an_array(ctx, rows_of, func):
                    self._candidate(node, iter=short_code(it), _param="", _how="array", _jax_only=True,
                                    _counts_rows=short_code(value))
                return
            if isinstance(value, cst.Name) and ctx.binding_kind(value, func) == "param":
                self._candidate(node, iter=short_code(it), _param=value.value, _how="range")
                return
            if (
                isinstance(value, cst.Call)
                and "builtins.len" in ctx.qualified_names(value.func)
                and value.args
                and isinstance(value.args[0].value, cst.Name)
                and ctx.binding_kind(value.args[0].value, func) == "param"
            ):
                self._candidate(node, iter=short_code(it), _param=value.args[0].value.value, _how="data")
                return

    def __init__(self, ctx):
        super().__init__(ctx)
        self.loops: list[tuple] = []  # (function, For node, fields): decided with the whole file

    def _candidate(self, node, **fields) -> None:
        ctx = self.ctx
        when = ctx.conditions_of(ctx.function) if ctx.cond_stack else []
        if when:
            # reported once the file is walked (`finish`), when the walk is past the branches:
            # the conditions on parameters the loop runs under, read now (`flags.untraced_branch`:
            # `if use_scan: return lax.scan(...)` then the loop, under a jit every call of which
            # passes `use_scan=True`, is in no trace)
            fields["_when"] = when
        self.loops.append((ctx.function, node, fields))

    def finish(self) -> None:
        for func, node, fields in self.loops:
            ops = _body_ops(self.ctx, node, func)
            if ops.possible:
                framework = _body_ops(self.ctx, node, func, calls_add_ops=False).definite
                self.report(node, function=func, _ops_definite=ops.definite, _ops_params=sorted(ops.params),
                            _ops_framework=framework, **fields)

    @classmethod
    def confirm(cls, candidate, project, module):
        key = (module.module, candidate.function)
        if project.staged_by_jax(key):
            return confirm_loop_unrolled(candidate, project, key)
        if candidate.fields.get("_jax_only"):
            return False
        param = candidate.fields["_param"]
        tensors = project.tensor_params(key)
        # A body that builds no graph ops (an einsum equation, a NumPy table, shape checks) costs
        # nothing to unroll.
        if not candidate.fields.get("_ops_definite") and not (set(candidate.fields.get("_ops_params", ())) & tensors) - {param}:
            return False
        args = project.args_for(key, param)
        if candidate.fields["_how"] == "range":
            if param in tensors or any(a.kind == "tensor" for _, _, a in args):
                return False  # range(<tensor>) becomes tf.range
            # `n` from `for n in (2, 4, 8)` is no literal, but a Python number all the same.
            shown = [a for _, _, a in args if python_number(a)]
            # Different literals at call sites inside staged code (`self._patch(x, 2)` in one
            # traced function, `self._patch(x, 3)` in another) unroll once each, at a fixed size:
            # only calls from outside the graph make a new trace per value.
            # Calls from eager code count only when they call a Function (an entry point): a
            # helper called eagerly runs eagerly, and each traced call site unrolls at its own size.
            eager = [a for mod, site, a, callee in project.args_with_callee(key, param)
                     if python_number(a)
                     and not project.in_traced_code(mod, site)
                     and callee in project.entries]
            reason = varying_bound(shown, eager)
            if reason is None:
                return False  # a fixed, small bound (a model's size): deliberate unrolling
            return {"detail": f"callers pass `{param}` as {reason}", "length": f"`{param}`",
                    "instead": f"loop over `tf.range({param})` and pass `{param}` as a tensor"}
        for mod, site, arg in args:
            if arg.what == "ndarray" or (arg.what in _PYTHON_DATA and arg.elements in _DATA_ELEMENTS):
                where = f"line {site.span.line}" if mod == module.module else f"{mod} line {site.span.line}"
                kind = "a NumPy array" if arg.what == "ndarray" else f"a Python {arg.what}"
                return {"detail": f"callers pass {kind}, `{arg.text}` ({where}): one copy of the body per element",
                        "length": "length",
                        "instead": "pass a `tf.data.Dataset` (or a tensor) and iterate over it"}
        return False


def _used_as_rows(loop: cst.For) -> bool:
    """The loop's one target is used as a value (`total + row`), never as a structure (`layer["w"]`,
    `layer.kernel`, `for w, b in params`): what a loop over an array's rows looks like in JAX code,
    where a loop over a pytree of parameters is the common other case."""
    if not isinstance(loop.target, cst.Name):
        return False
    name = loop.target.value
    stack = [loop.body]
    while stack:
        node = stack.pop()
        if isinstance(node, cst.Subscript) and isinstance(node.value, cst.Name) and node.value.value == name:
            if any(isinstance(getattr(el.slice, "value", None), cst.SimpleString) for el in node.slice):
                return False
        if isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name) and node.value.value == name \
                and node.attr.value not in ("shape", "dtype", "ndim", "size", "T"):
            return False
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value == name:
            return False  # `for layer in layers: x = layer(x)`
        stack.extend(node.children)
    return True


def _an_array(ctx, expr, func) -> bool:
    """`expr` is known a tensor and not a Python container of them (a dict, a list display,
    `jnp.split`'s list), which a loop iterates as Python: a loop over it runs once per row."""
    return tensorness(ctx, expr, func).definite and value_of(ctx, expr, func).what not in _CONTAINERS


def _calls_by_index(loop: cst.For) -> bool:
    """Every use of the loop's one target in its body is the only index of a subscript the body
    calls (`self.layers[l](x)`, `blocks[i](x, training)`): each iteration applies another element
    of a Python container, which is iterating the container itself."""
    if not isinstance(loop.target, cst.Name):
        return False
    name = loop.target.value
    uses = called = 0
    for node in _body_nodes(loop):
        if isinstance(node, cst.Name) and node.value == name:
            uses += 1
        elif isinstance(node, cst.Call) and isinstance(node.func, cst.Subscript) and len(node.func.slice) == 1:
            index = getattr(node.func.slice[0].slice, "value", None)
            if isinstance(index, cst.Name) and index.value == name:
                called += 1
    return called > 0 and uses == called


def _row_given_to_op(ctx, loop: cst.For, func) -> bool:
    """The loop's one target is an operand of a JAX operation in the body (`jnp.maximum(best, x)`,
    `x.sum()`, `total + x` with `total` an array): an array, so the loop runs a copy of that
    operation per row or item. A dict's key (a string) there raises TypeError; used only as a key
    (`params[k]`) or in Python code, it may be one."""
    if not isinstance(loop.target, cst.Name):
        return False
    name = loop.target.value

    def is_row(expr) -> bool:
        return isinstance(expr, cst.Name) and expr.value == name

    for node in _body_nodes(loop):
        if isinstance(node, cst.Call):
            if any(is_row(a.value) for a in node.args) and any(
                    q.startswith("jax.") and ctx.framework.returns_tensor(q) for q in ctx.qualified_names(node.func)):
                return True
            if isinstance(node.func, cst.Attribute) and is_row(node.func.value) \
                    and node.func.attr.value in JAX_ARRAY_METHODS:
                return True
        elif isinstance(node, cst.BinaryOperation) and (is_row(node.left) or is_row(node.right)):
            other = node.right if is_row(node.left) else node.left
            if tensorness(ctx, other, func).definite:
                return True
    return False


def _body_nodes(loop):
    """The nodes of a loop's body, outside the defs, classes and lambdas it holds (those run when
    called, not per iteration)."""
    stack = [loop.body]
    while stack:
        node = stack.pop()
        if isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
            continue
        yield node
        stack.extend(node.children)


_PYTHON_DATA = frozenset({"list", "tuple", "ndarray", "range", "dict", "set"})
#: Elements that make a list data (examples, numbers), not structure (layers, tensors, callbacks).
_DATA_ELEMENTS = frozenset({"int", "float", "complex", "tuple", "list", "ndarray", "dict"})




#: Values whose methods NumPy or Python compute (`frameworks.NUMPY_ARRAY_METHODS`, a string's
#: `format`): a call of one adds no op to a graph.
NUMPY_VALUES = frozenset({"ndarray", "str", "int", "float", "complex", "bool"})

#: What a loop iterates as Python whatever it holds; and a pytree not known to be an array
#: (`jax.grad(f)(params)` of a parameter: its structure), which is not known to unroll.
_CONTAINERS = frozenset({"list", "tuple", "dict", "set", "str", "pytree"})


def _body_ops(ctx, loop, func, calls_add_ops: bool = True) -> Tensorness:
    """Whether a loop's body adds graph ops: definitely (a framework op, a call of a function or
    a layer that may add some), or if some parameters are tensors (arithmetic on them). With
    `calls_add_ops=False`, only what is known to add one: a framework op, arithmetic on a tensor
    (a project function's call may add ops, or may be Python only: shape checks, bookkeeping)."""
    fw = ctx.framework
    out = Tensorness()
    for node in _body_nodes(loop):
        if isinstance(node, cst.Call):
            names = ctx.qualified_names(node.func)
            if isinstance(node.func, cst.Call) and ctx.qualified_names(node.func.func) & JAX_FUNCTION_BUILDERS:
                return Tensorness(True)  # `jax.vmap(f)(x)`: what was built, called
            if names & JAX_FUNCTION_BUILDERS:
                # `nn.vmap(module, ...)`, `jax.jit(f)`: a function or class built, no operation
                # emitted until it is called (`frameworks.JAX_FUNCTION_BUILDERS`); its arguments are
                # read on, as any node's children
                continue
            if any(fw.owns(q) for q in names):
                return Tensorness(True)
            method = node.func.attr.value if isinstance(node.func, cst.Attribute) else None
            if method is not None and value_of(ctx, node.func.value, func).what in NUMPY_VALUES:
                continue  # `kd.reshape(shape)` of a NumPy array: NumPy computes it, as Python
            if method not in PYTHON_VALUE_METHODS and not (names and all(q.startswith(PYTHON_COMPUTING_MODULES) for q in names)) \
                    and calls_add_ops:
                return Tensorness(True)  # `layer(x)`, `self._block(x)`, `callback(grads)`
        elif isinstance(node, (cst.BinaryOperation, cst.Subscript)):
            out = out | tensorness(ctx, node, func)
        elif isinstance(node, cst.AugAssign):
            out = out | tensorness(ctx, node.value, func)
            if isinstance(node.target, cst.Name):  # `acc += x` with `acc = tf.constant(0.0)`
                scope = ctx.scope(node.target)
                for a in (scope.assignments[node.target.value] if scope is not None else ()):
                    bound = ctx.bound_values.get(id(getattr(a, "node", None)))
                    if bound is not None and not isinstance(bound, (cst.AugAssign, cst.For)):
                        out = out | tensorness(ctx, bound, func)
    return out
