"""Python effects that happen once per trace instead of once per call (STG1xx)."""

from __future__ import annotations

from dataclasses import replace

import libcst as cst

from stagelint.analysis.literals import keyword_constant
from stagelint.analysis.guards import runs_once, type_dispatch
from stagelint.analysis.repetition import no_reuse
from stagelint.analysis.context import short_code
from stagelint.analysis.proof import HEURISTIC, fact, with_staging_certainty, with_steps
from stagelint.frameworks import (
    JAX,
    LOGGER_FACTORIES,
    LOGGER_METHODS,
    LOGGING_NON_IO,
    LOGGING_PREFIXES,
    PYTHON_IO_CALLS,
    PYTHON_IO_PREFIXES,
)
from stagelint.fix import tensorflow_alias
from stagelint.frameworks import canonical_tf_name
from stagelint.analysis.jaxrules import writes_into_ref
from stagelint.analysis.jaxstaging import bound_axis_call
from stagelint.analysis.nnx import static_container, store_carried, store_fields, writes_variable
from stagelint.rules.base import Rule
from stagelint.analysis.stores import (
    changes_every_call,
    lost_on_reuse_fact,
    lost_under_jax_fact,
    outlives_fact,
    read_after,
    recomputed_from_itself,
    rebuilt_owner,
    scratch_attribute,
    scratch_only,
    store_is_external,
    store_sites,
    stored_anew_above,
    stored_tensor,
)
from stagelint.analysis.testing import is_test_module
from stagelint.analysis.values import FILE_METHODS
from stagelint.analysis.values import FILE, formatted_tensorness, kind_of, python_number
from stagelint.analysis.tensors import Tensorness, tensorness


class TraceTimeSideEffect(Rule):
    """
    ## What it does
    Flags Python I/O in staged code: `print`, `input`, files opened for writing, `subprocess`,
    `os.system`, `time.sleep` and the like; and `logging.*`, logger methods and `warnings.warn`
    when what they log includes a tensor (an argument, or a value formatted into the message).

    Also the methods of open Python file objects (`log.write(...)` on a file opened outside
    the function, `self.out.write(...)`), and logs or warnings under an `if` on a tensor:
    AutoGraph stages that `if` as a `tf.cond` and traces both branches, so the message is
    logged while tracing whatever the condition, and never when the condition holds later.

    Not flagged: logs and warnings made only of Python values (a message, shapes, options):
    `logging.warning("List inputs are discouraged")`, `logging.debug("shape %s", x.shape)`. They
    describe the trace, and are the same for every call that reuses it, so once per trace is
    what their authors mean (and Python shows a warning once per location anyway). Likewise a
    `print` of parameters holding Python values (`print(height, width)` from the configuration)
    in a `tf.data` function, which is traced once, when the pipeline is built. And warnings or
    errors logged in a branch that tests a value's type (`if not isinstance(images, list):
    logging.warning("expects a list, got %s", type(images))`): the type is fixed for a trace, so
    the diagnostic belongs to the trace. Nor effects that run once per object or key eagerly
    too: under a first-call guard (`if self._table is None:`), below an early-return guard or a
    memo test (`if path in _plugin_cache: return _plugin_cache[path]` in a function that fills
    `_plugin_cache[path]`: a compile-once step's prints and file operations), or in a helper
    only such code calls. Nor code that never runs while tracing: under `if
    tf.executing_eagerly():`, `if not isinstance(x, jax.core.Tracer):` or after `if isinstance(x,
    jax.core.Tracer): return` (every traced value is a tracer), or in a function handed to a host
    callback (`jax.pure_callback`, `io_callback`, `jax.debug.callback`,
    `jax.experimental.buffer_callback`), which runs it as Python on every call.

    Default tier: code reached from an entry point through calls, or through functions handed
    to a framework API that calls them while tracing (`tf.cond`, `tf.map_fn`, `jax.lax.scan`).
    Preview tier (`--preview`): code reached only because a function is handed to something
    else (`multiprocessing.Process(target=f)`, a project function, a callee not resolved), which
    may keep it, run it in another process, or never call it; the proof names that hop. Preview
    too: a log whose tensor is a parameter taken for one only from the function's own ops
    (`labels > label_threshold`, which a Python float passes too) where no call passes a tensor
    there. Not flagged: a log under `if key in features:`, which Python decides (`in` gives a
    Python bool; AutoGraph cannot make it a `tf.cond`). Preview only, for every rule: code under
    a flag kept on the object (`if self.debugPrint == True:` in a layer's `call`) that `__init__`
    sets from its parameter and nothing else writes, when every construction the project shows
    leaves it at its False default: the branch is in no trace of those objects, and a
    construction the project does not show (an importer of the class) may turn it on. Preview
    too: code of a layer's `call` under a parameter Keras never passes (`if not is_synthesis:
    return ...` with `is_synthesis=False`) that every call the project shows giving it by name
    gives from eager code: a traced call may still pass it by position. Preview too: code under
    `if DEBUG:` on a module-level constant its module binds only to `False` and never rebinds,
    when no file of the project assigns `DEBUG` on that module (`env.DEBUG = True`): Python runs
    it only if another module sets it, in a way the project does not show as such (`setattr`,
    `mock.patch`).


    Under JAX (`jax.jit`, `jax.pmap`, the bodies of `lax.cond`/`while_loop`/`scan`, Flax and Equinox
    modules) the same holds, and the message names `jax.debug.print` / `jax.debug.callback`. A
    helper a jitted function calls that the project also calls where nothing traces (module-level
    code, an eager training loop; tests apart) is reported only with `--preview`: there its print
    runs on every call as written, and under the jitted caller the helper's whole Python work
    (loading a dataset) runs at trace time with it, so whether that print misleads is a guess.

    Not traced either: what `tf.py_function` / `numpy_function` runs, as Python at every
    execution: the function given to it, and one handed to a project function that passes its
    parameter on to it (`new_py_function(lambda r: load(r), ...)`, whose nested def calling `func`
    is py_function's func).

    ## Why is this bad?
    `tf.function` runs the Python body only while tracing. The effect happens on the first
    call and again on each retrace, but not on the calls that reuse a trace, so a log that
    looks right in eager mode goes silent (or repeats at odd moments) once the function is
    staged. `tf.print` is an op in the graph and runs on every call.

    ## Example
    ```python
    @tf.function
    def train_step(x):
        print("step", x)          # printed once, while tracing
        return x * 2
    ```

    ## Use instead
    ```python
    @tf.function
    def train_step(x):
        tf.print("step", x)       # printed on every call
        return x * 2
    ```
    Deliberate trace-time messages ("Tracing with ...") are fine: mark the line `# noqa: STG101`.

    ## Fix
    `stagelint check --fix` rewrites `print(...)` to `tf.print(...)`, spelled with the module's
    own import of TensorFlow (`tf`, `tensorflow`, or whatever alias it uses), when the rewrite is
    exact: positional arguments (also `*args`), `sep=` and `end=` given as string literals, and
    `file=sys.stdout` / `file=sys.stderr` (which becomes `output_stream=`). Anything else (`flush=`,
    a computed `sep`, `**kwargs`, a module that does not import `tensorflow` as a module) is
    left for you. The fix is safe where the print names its stream (`file=sys.stdout` /
    `file=sys.stderr`) and every entry point that traces it is a plain `@tf.function` or a
    `tf.data` function; otherwise it is unsafe (`--unsafe-fixes`): `tf.print` writes to standard
    error unless told otherwise, where `print` wrote to standard output, and XLA has no
    `tf.print` op, so under `jit_compile=True` (or a Keras model, which Keras 3 compiles with
    XLA on a GPU by default) the fixed code raises. Code JAX stages gets no fix. Either way it prints a
    tensor's values where `print` printed its symbolic description, and a deliberate trace-time
    message becomes a per-call one: that is the point of the fix.
    Other Python I/O (logging, files) has no fix. Methods named like a file's on objects that
    are not files (`buffer.write(x)` of a class of your own) are not flagged.
    """

    code = "STG101"
    name = "trace-time-side-effect"
    fixable = True
    message = "`{call}` runs only while {func} is traced, not on every call; {instead}"
    jax_message = "`{call}` runs only while {func} is traced by JAX, not on every call; use `jax.debug.print` (or `jax.debug.callback` for other I/O)"
    valid = (
        """
        import tensorflow as tf

        @tf.function
        def f(x):
            tf.print("Executed with", x)
            return x + 1

        def eager_only(x):
            print("not staged", x)
        """,
        """
        import tensorflow as tf

        @tf.py_function(Tout=tf.float32)
        def py_plus(x, y):
            print("Executing eagerly.")   # tf.py_function runs Python on every call
            return x + y

        @tf.function
        def wrapper(x, y):
            return py_plus(x, y)
        """,
        """
        import logging
        import tensorflow as tf

        logger = logging.getLogger(__name__)

        @tf.function
        def f(x):
            logger.setLevel(logging.INFO)
            return x
        """,
        """
        import logging
        import warnings
        import tensorflow as tf

        @tf.function
        def call(inputs, training=False):
            if isinstance(inputs, list):
                logging.warning("List inputs are discouraged.")
                warnings.warn("pass a dict", DeprecationWarning)
                inputs = inputs[0]
            logging.debug("input shape %s", inputs.shape)
            return inputs * 2
        """,
        """
        import jax

        @jax.jit
        def step(x):
            jax.debug.print("x = {}", x)   # JAX: printed on every call
            return x * 2
        """,
    )
    invalid = (
        """
        import tensorflow as tf

        @tf.function
        def f(x):
            print("Traced with", x)  # STG101
            tf.print("Executed with", x)
        """,
        """
        import logging
        import warnings
        import tensorflow as tf

        log = logging.getLogger(__name__)

        def report(loss):
            logging.info("loss %s", loss)  # STG101
            log.warning("loss %s", loss)  # STG101

        @tf.function
        def train_step(x):
            loss = tf.reduce_sum(x)
            report(loss)
            warnings.warn(f"loss is {loss}")  # STG101
            return loss
        """,
        """
        from tensorflow import function as compile_fn

        def body(x):
            with open("log.txt", "a") as fh:  # STG101
                fh.write("called")
            return x

        step = compile_fn(body)
        """,
        """
        import jax

        @jax.jit
        def step(x):
            print("x =", x)  # STG101
            return x * 2
        """,
    )

    def visit_Call(self, node: cst.Call) -> None:
        ctx = self.ctx
        if ctx.function is None or not ctx.in_staged_context or runs_once(ctx, node):
            return
        names = ctx.qualified_names(node.func)
        for q in sorted(names):
            if q in LOGGING_NON_IO:
                return
            if q == "builtins.open":
                if _opens_for_writing(node):
                    self._report(node, "open(...)", "do file I/O outside the tf.function, or in `tf.py_function`")
                return
            if q in PYTHON_IO_CALLS or q.startswith(PYTHON_IO_PREFIXES):
                short = q.removeprefix("builtins.")
                if short == "print":
                    self._report_print(node)
                    return
                elif q.startswith(LOGGING_PREFIXES):
                    self.messages.append((ctx.function, node, f"{short}()", tuple(self.tests)))
                    return
                else:
                    instead = "move it outside the tf.function, or into `tf.py_function`"
                self._report(node, f"{short}()", instead)
                return
        if isinstance(node.func, cst.Attribute) and node.func.attr.value in LOGGER_METHODS and self._is_logger(node.func.value):
            self.messages.append((ctx.function, node, f"{short_code(node.func)}()", tuple(self.tests)))
        elif isinstance(node.func, cst.Attribute) and node.func.attr.value in FILE_METHODS:
            self.file_calls.append((ctx.function, node))

    def __init__(self, ctx):
        super().__init__(ctx)
        #: logging and warnings calls: decided at the end of the file, on their arguments, with
        #: the tests of the `if`s around them
        self.messages: list[tuple] = []
        #: `x.write(...)`, `x.read()`: Python I/O when `x` is an open file
        self.file_calls: list[tuple] = []
        self.tests: list = []
        #: per function node: what `_bound_axis` states of it (None: nothing)
        self._bound_axis: dict[int, str | None] = {}

    def report(self, node: cst.CSTNode, *, function=None, **fields) -> None:
        func = function if function is not None else self.ctx.function
        if func is not None:
            stated = self._bound_axis.get(id(func.node), False)
            if stated is False:
                found = bound_axis_call(self.ctx, func.node)
                stated = None if found is None else (
                    f"`{func.facts.name}` calls `{short_code(found[0], 60)}` on every run (line "
                    f"{self.ctx.position(found[0]).line}), which raises NameError where no transformation "
                    f"binds the axis `{found[2]}`: none of its calls runs as plain Python")
                self._bound_axis[id(func.node)] = stated
            if stated is not None:
                fields["_bound_axis"] = stated
        super().report(node, function=function, **fields)

    def visit_If(self, node: cst.If) -> None:
        if self.ctx.function is not None:
            self.tests.append(node.test)

    def leave_If(self, node: cst.If) -> None:
        if self.tests and self.tests[-1] is node.test:
            self.tests.pop()

    def finish(self) -> None:
        """A log or warning made only of Python values (a message, shapes, options) describes the
        trace and is the same for every call that reuses it: logging it once per trace is what
        the author meant (`logging.warning("List inputs are discouraged")`, `logging.debug("shape
        %s", x.shape)`), and Python shows a warning once per location anyway. One that formats a
        tensor logs a symbolic `Tensor("add:0")` once, where the author expected a value per call."""
        ctx = self.ctx
        for func, node, call, tests in self.messages:
            if tests and type_dispatch(ctx, tests[-1]) and _warns(node):
                # `if not isinstance(images, list): logging.warning("expects a list, got %s", ...)`:
                # a value's type is fixed for a trace, so a warning about it belongs to the trace
                continue
            t = Tensorness()
            for arg in node.args:
                t = t | formatted_tensorness(ctx, arg.value, func)
            if not (t.possible or t.calls) and tests:
                # `if loss > 10: logging.warning("diverging")`: AutoGraph stages a tensor `if` as a
                # `tf.cond` and traces both branches, so the message is logged at trace time
                # whatever the condition, and never when it holds later
                cond = Tensorness()
                for test in tests:
                    if not _membership_test(test):
                        cond = cond | tensorness(ctx, test, func)
                if cond.possible:
                    self.report(node, function=func, call=call, _definite=cond.definite, _params=sorted(cond.params),
                                _under_if=True, instead=_UNDER_TENSOR_IF)
                continue
            if t.possible or t.calls:
                self.report(node, function=func, call=call, _definite=t.definite, _params=sorted(t.params),
                            _calls=sorted(list(c) for c in t.calls), instead=_LOGS_TENSOR)

        for func, node in self.file_calls:
            receiver = node.func.value
            if kind_of(ctx, receiver, func) != FILE or _opened_here(ctx, receiver, func):
                continue
            self.report(node, function=func, call=f"{short_code(node.func)}()",
                        instead="file I/O in Python runs while tracing; move it outside the tf.function, or use `tf.io`")

    @classmethod
    def confirm(cls, candidate, project, module):
        verdict = cls._confirm_traced(candidate, project, module)
        key = (module.module, candidate.function)
        if verdict and key not in project.entries and project.staged_by_jax(key):
            eager = project.eager_call_site(key)
            if eager is not None and candidate.fields.get("_bound_axis"):
                # scenic's `contrastive_loss` (`jax.lax.all_gather(x, 'batch')`): the call where no
                # entry point is seen runs under a transformation binding the axis all the same
                verdict = with_steps(verdict, candidate, fact(candidate.fields["_bound_axis"], candidate.span))
            elif eager is not None:
                # aqt's `get_datasets`: a helper a jitted function calls and the project also calls
                # where nothing traces; there its print runs on every call, as written, and under the
                # jitted caller the helper's whole Python work runs at trace time with it: whether
                # the traced caller's print misleads anyone is a guess
                where, site = eager
                at = "" if where == module.module else f" in {project.modules[where].path}"
                verdict = with_steps(verdict, candidate, fact(
                    f"`{candidate.function}` is also called where nothing traces (line {site.span.line}{at}), "
                    f"where the print runs on every call: whether the traced caller's trace-time print "
                    f"misleads is a guess", candidate.span, HEURISTIC))
        return with_staging_certainty(verdict, project, key)

    @classmethod
    def _confirm_traced(cls, candidate, project, module):
        if (module.module, candidate.function) not in project.unguarded:
            return False  # a helper only one-time set-up calls: it runs once eagerly too
        if "_print_params" in candidate.fields:
            return not cls._prints_python_values_in_a_dataset_function(candidate, project, module)
        if "_params" not in candidate.fields or candidate.fields.get("_definite"):
            return True
        calls = candidate.fields.get("_calls")
        if calls:
            from stagelint.analysis.values import calls_return_tensor

            if calls_return_tensor(project, module.module, [tuple(c) for c in calls]):
                return True
        key = (module.module, candidate.function)
        params = set(candidate.fields["_params"])
        shown = params & project.tensor_params(key)
        if shown:
            guessed = sorted(p for p in shown if not _tensor_by_a_call(project, key, p))
            if len(guessed) < len(shown):
                return True
            # Taken for a tensor only from the function's own ops (`labels > label_threshold`), which
            # a Python number given there passes too: then the `if` and the log are Python's
            return {"_preview": f"`{guessed[0]}` is taken for a tensor from how `{candidate.function}` uses it; "
                                "no call shows a tensor passed there, and a Python value makes the log one of Python "
                                "values"}
        f = project.function(key)
        if project.is_function_object(key) and f is not None:
            # A tf.function's own arguments: tensors unless they default to a Python literal, or
            # every call the project shows passes a Python value (tf.function hands those to the
            # body as they are: one branch traced, the log made of Python values).
            unknown = params - f.literal_default_params
            if not unknown or all(_python_at_every_call(project, key, p) for p in unknown):
                return False
            # Not shown to be a tensor: the message says only what holds either way.
            return {"instead": _UNDER_IF if candidate.fields.get("_under_if") else _LOGS_ONCE}
        return False

    @staticmethod
    def _prints_python_values_in_a_dataset_function(candidate, project, module) -> bool:
        key = (module.module, candidate.function)
        entry = project.reached.get(key)
        if entry is None or project.entries.get(entry) != "dataset" or key in project.entries and key != entry:
            return False
        params = set(candidate.fields["_print_params"])
        if key == entry:
            # the dataset's elements arrive as the function's own parameters (not `partial`-bound ones)
            f = project.function(key)
            if f is None or params - project.dataset_bound.get(key, set()) - f.literal_default_params:
                return False
        if params & project.tensor_params(key):
            return False
        # a helper: every parameter shown must be a Python value at every call site that passes
        # it (a literal, a Python number), or left to its literal default
        f = project.function(key)
        for p in params:
            args = project.args_for(key, p)
            if not args and (f is None or p not in f.literal_default_params):
                return False
            for mod, site, a in args:
                if python_number(a):
                    continue
                if a.kind == "tensor":
                    return False
                if a.root in ("closure", "global", "self") and not a.param:
                    continue  # `lambda r: parse(r, image_size)`, `self.image_size`: configuration
                caller = (mod, site.caller) if site.caller is not None else None
                if not a.param or caller is None or caller in project.entries:
                    return False  # the dataset's element, or a value the caller computes
                # else: a parameter of an eager caller that no call site fills (configuration)
        return True

    def _report(self, node: cst.Call, call: str, instead: str) -> None:
        self.report(node, call=call, instead=instead)

    def _report_print(self, node: cst.Call) -> None:
        """`print(...)`, with what `confirm` needs to leave a print of Python values alone in a
        `tf.data` function (traced once, when the pipeline is built: it prints its configuration
        once, as meant). `print("Tracing!")` of literals alone is the trace counter it always was."""
        ctx = self.ctx
        func = ctx.function
        shown: list[str] = []
        for arg in node.args:
            if arg.keyword is not None or isinstance(arg.value, (cst.SimpleString, cst.ConcatenatedString)):
                continue
            if not (isinstance(arg.value, cst.Name) and ctx.binding_kind(arg.value, func) == "param"):
                shown = []  # a local, a call, a structure: judged as a value of the graph
                break
            shown.append(arg.value.value)
        fields = {"_print_params": sorted(shown)} if shown else {}
        self.report(node, call="print()", instead="use `tf.print()` to print on every call", **fields)

    def fix_is_safe(self, node: cst.CSTNode, fields: dict) -> bool:
        # Without `file=`, print wrote to standard output and tf.print writes to standard error.
        return any(arg.keyword is not None and arg.keyword.value == "file" for arg in node.args)

    def fix(self, node: cst.CSTNode, fields: dict):
        """`print(a, b)` -> `tf.print(a, b)`, only where the two mean the same."""
        ctx = self.ctx
        if not (isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value == "print"):
            return None
        if ctx.qualified_names(node.func) != {"builtins.print"}:
            return None
        alias = tensorflow_alias(ctx, node)
        if alias is None:
            return None
        edits = [(node.func, f"{alias}.print")]
        for arg in node.args:
            if arg.keyword is None:
                if arg.star == "**":  # might carry flush= or file=
                    return None
                continue
            keyword = arg.keyword.value
            if keyword in ("sep", "end"):
                # tf.print has both, with print's meaning, but not print's `None` default.
                if not isinstance(arg.value, (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString)):
                    return None
            elif keyword == "file" and ctx.qualified_names(arg.value) & {"sys.stdout", "sys.stderr"}:
                edits.append((arg.keyword, "output_stream"))
            else:
                return None
        return edits

    @classmethod
    def project_fix(cls, fix, candidate, project, key, jax: bool):
        """`tf.print` is no remedy in code JAX stages (it cannot print a tracer), so the fix goes.
        It is safe only where every entry point that traces the print is a plain `@tf.function`
        (no `jit_compile`) or a `tf.data` function: XLA has no PrintV2, so under
        `tf.function(jit_compile=True)` the fixed code raises InvalidArgumentError, and Keras 3
        compiles `fit`/`predict` with XLA on a GPU by default (`jit_compile="auto"`); a
        `tf.function(f, ...)` wrapper's options are not in the facts (observed with TF 2.21 in
        `tests/runtime/test_message_facts.py`)."""
        if jax:
            return None
        if fix.safe and not (key is not None and _plain_graph_only(project, key)):
            return replace(fix, safe=False)
        return fix

    def _is_logger(self, receiver: cst.BaseExpression) -> bool:
        ctx = self.ctx
        if isinstance(receiver, cst.Call):
            return bool(ctx.qualified_names(receiver.func) & LOGGER_FACTORIES)
        if isinstance(receiver, cst.Name):
            for binding in ctx.bindings_of(receiver):
                value = ctx.bound_values.get(id(getattr(binding, "node", None)))
                if isinstance(value, cst.Call) and ctx.qualified_names(value.func) & LOGGER_FACTORIES:
                    return True
        return False


#: The remedies of a log, by what is known of the values it involves. AutoGraph stages an `if` on a
#: tensor as a `tf.cond` and traces both branches; an `if` on a Python value traces one branch per
#: trace. Either way the log runs when its branch is traced, not when a call reuses the trace.
_UNDER_TENSOR_IF = ("under a tensor `if` AutoGraph traces both branches, so it logs while tracing whatever the "
                    "condition; use `tf.print()` in the branch")
_UNDER_IF = ("it logs when its branch is traced, not on the calls that reuse the trace; use `tf.print()` in "
             "the branch")
_LOGS_TENSOR = "it logs a symbolic tensor once per trace; use `tf.print()`, or log outside the tf.function"
_LOGS_ONCE = ("it logs once per trace, and a tensor as its symbolic description rather than its value; use "
              "`tf.print()`, or log outside the tf.function")


def _plain_graph_only(project, key) -> bool:
    """Every entry point whose tracing reaches `key` builds a TensorFlow graph without XLA: a
    `@tf.function` without `jit_compile`, or a `tf.data` function."""
    entries = project.entries_reaching(key)
    if not entries:
        return False
    for entry in entries:
        if entry in project.jax.entries:
            return False
        kind = project.entries[entry]
        if kind == "dataset":
            continue
        f = project.function(entry)
        if kind != "decorator" or f is None or f.xla or not any(
                canonical_tf_name(d) == "tensorflow.function" for d in f.decorators):
            return False
    return True


def _tensor_by_a_call(project, key, param: str) -> bool:
    """`param` is a tensor by more than the function's own ops (`FunctionFacts.tensor_params`,
    which a Python number given to the same op passes too): a call passes a tensor there, or the
    framework does (a Keras `call`'s inputs, a `tf.data` function's elements, a JAX-traced
    argument)."""
    f = project.function(key)
    if f is None or param not in f.tensor_params:
        return True
    if project.entries.get(key) == "keras" and param in f.params[1:]:
        return True
    if param in project.jax.traced_params(key) or (key in project.dataset_bound and param in f.passed_params):
        return True
    return any(arg.kind == "tensor" for _, _, arg in project.args_for(key, param))


def _python_at_every_call(project, key, param: str) -> bool:
    """Every call of `key` the project shows passes a Python value for `param` (and there is one)."""
    args = project.args_for(key, param)
    return bool(args) and all(python_number(a) for _, _, a in args)


def _opened_here(ctx, receiver, func) -> bool:
    """The file was opened by the function itself (`with open(p, "w") as fh:`): its `open(...)`
    is the finding, when it writes."""
    if not isinstance(receiver, cst.Name):
        return False
    return any(getattr(b, "scope", None) is ctx.scope(func.node.body) for b in ctx.bindings_of(receiver))


def _opens_for_writing(node: cst.Call) -> bool:
    mode = None
    for i, arg in enumerate(node.args):
        if (arg.keyword is not None and arg.keyword.value == "mode") or (arg.keyword is None and i == 1):
            mode = arg.value
    if mode is None:
        return False
    if isinstance(mode, cst.SimpleString):
        return any(c in mode.evaluated_value for c in "wax+")
    return True  # a computed mode: assume it may write


def _marker(node) -> bool:
    """`calls.append(True)`: a list that records that the code ran, with no value of its own
    (True, False, None). Under `tf.function` it records each trace, which is what such lists are
    for (tests count traces with them); values lost to a stale trace are what STG102 is about,
    and a number or a string may be one."""
    return (
        isinstance(node, cst.Call)
        and isinstance(node.func, cst.Attribute)
        and node.func.attr.value == "append"
        and len(node.args) == 1
        and keyword_constant(node.args[0].value)
    )


class ExternalStateMutation(Rule):
    """
    ## What it does
    Flags staged code that changes Python state living outside the call: `global`/`nonlocal`
    rebinding, `.append()`/`.update()`/`.pop()`/... on a container that is not local to the call,
    and stores into attributes or items of non-local objects, such as `self.counter += 1`.

    Default tier under TensorFlow: a change made again on every call (`self.counter += 1`,
    `log.append(x)`, `state["n"] = state["n"] + 1`, `.pop()`/`.remove()`): eagerly three calls
    count three, the traced Function counts its one trace (observed with TF 2.21). Preview tier
    (`--preview`): a store a repeated call makes again (`self.ready = True`,
    `self.dropout.rate = self.rate` with the same `tf.Variable` every call, `del d[k]`,
    `registry[name] = fn`): after any number of calls it holds what eager code leaves unless the
    value changes between calls that reuse the trace, which the code does not show; a store
    computed from what the place holds that a repeated call may leave as it is (`flags |= seen`,
    `layer.call = wrap(layer.call)`, `x = x or default`); and a change
    to a place the same call first stored anew (`self.variables = model.trainable_variables` then
    `self.variables.extend(extra)`): each call changes what it stored itself, lost only if that is
    the same object every call (a Keras `trainable_variables` is a new list per access). A parameter
    the call rebinds to what another call returned (`inputs = prepare(inputs)` then
    `inputs[k] = ...; return inputs`) no longer holds the caller's object: not flagged. Nor is
    an attribute that is the same call's scratch (`self.outs = []`, grown and read later in the
    same call, read by no other function of the project; `stores.scratch_only`): a call reusing
    the trace needs none of what its skipped stores would have made (observed with TF 2.21).

    Under JAX: a `nonlocal` counter, an outer list, a Flax NNX module mutated under plain `jax.jit`
    (not under `nnx.jit`, which carries the update out), `self.x = ...` in a Flax Linen `__call__` or
    an Equinox module (frozen: it raises). A `jax.Ref` updated in place (`ref[...] += x`) is fine,
    and so is a hijax NNX Variable (`nnx.var_defaults(hijax=True)`, `nnx.Variable(x, hijax=True)`)
    under plain `jax.jit`, unless the object holds that Variable under two names (`self.b = self.a`:
    no update comes out). Under `nnx.jit`, a static list or dict of a module changed in place
    (`model.history.append(x)`) is flagged: it changes once, at trace time; a Python attribute
    changed on every call (`model.steps += 1`) is STG501. `jax.jit`, `vmap`, `grad` and the bodies
    of `lax` control flow pass each non-static argument as JAX's own copy, rebuilt around the
    tracers down to its inner containers (`params, stats = carry` in a `lax.scan` body unpacks
    copies too): a store into it is flagged only when it was meant for the caller, who never sees it
    (the function neither returns the object nor reads what it wrote again, or what it wrote is
    an NNX Variable: `counter.count[...] += 1`); `params["w"] = ...; return params` is fine.
    The default tier reports under JAX only a loss a user meets (`stores.lost_under_jax_fact`,
    observed with JAX 0.10.2): a change made again on every eager call (`calls += 1`,
    `log.append(x)`, `state["n"] = state["n"] + 1`: the tracing call alone runs it, so the
    counter reads 1 after three steps), `self.x = ...` on a frozen Linen or Equinox module (it
    raises; an item store into a dict the module holds does not),
    into a Flax NNX module or Variable under plain `jax.jit`, or into JAX's copy of an argument
    that the function neither returns (also as `state.replace(...)`) nor reads again. A store that a repeated call would make
    again with the same Python value (`self.ready = True`, `registry.update(name=fn)`, a global
    set to a new callback) leaves what eager code leaves unless that value changes between calls
    that reuse the trace: the preview tier. A counter raised and lowered again in `finally:` (or
    around a context manager's `yield`) is put back after every call: not flagged.

    ## Why is this bad?
    The change happens while tracing. Calls that reuse the trace skip it, so a list that should
    grow by one per call grows once, and a Python counter stops counting. (A tensor stored
    this way is also a leak: see STG201.)

    ## Example
    ```python
    external_list = []

    @tf.function
    def side_effect(x):
        external_list.append(x)    # happens once, at trace time
    ```

    Not flagged: containers created inside the call (also through a name that is sometimes one:
    `processed = []` in one branch), the call's own `*args`/`**kwargs`, lambda parameters;
    library functions named like container methods (`keras.ops.add`, `tf.math.add`, `np.append`);
    markers appended to a list (`calls.append(True)`: it records that a trace ran, what tests
    use such lists for), and a test double in a test module keeping an argument it was called
    with (`self.mask = mask`) for the test to assert on; a pop by key unpacked into two names
    (`rest, value = state.pop("params")`: Flax's `FrozenDict.pop`, which mutates nothing);
    methods of objects that are not containers (`self.add(x)`, a
    variable-backed deque's `.clear()`), and `x.update(...)` whose result is used (an
    optax-style optimizer, not a dict);
    writes under a first-call guard, also in a helper only a guarded call reaches (`if not
    self.built: self.build()`), behind a guard method that returns such a test (`if
    self._needs_init():`) or after an early-return guard (`if self._table is not None:
    return`), or a memo test (`if name not in self._modules: self._modules[name] = ctor()`,
    `if key in cache: return cache[key]` in a function that fills `cache[key]`, `if name not in
    seen: seen.append(name)`: the entry
    outlives the trace, and eager calls skip the fill too); writes into a dict the call copied
    (`obs = obs.copy(); obs["image"] = ...`); and writes into a parameter of a Keras `call` or a helper, whose caller (usually
    traced code) owns the object, unless a staged caller passes an object that outlives it (a
    global, an attribute of its object, a `tf.function`'s own argument: `fill(cache, x)`).
    `if not <parameter>:` or `if <local> is None:` is no first-call guard (it decides per call),
    and neither is a set-once guard whose block runs TensorFlow state ops (see STG105).
    Under TensorFlow, nothing where no call of the Function reuses a trace (observed with TF
    2.21): a `@tf.function` method is one Function per object, so one that the project calls once
    per object, from `__init__` alone (in no loop, never on an object, by no other name), and a
    `@tf.function def __init__`, trace on their one call per object; and a method every call of
    which passes a Python int new at each call (a global step set once before the loop and raised
    before the call in each iteration, from a function that runs once) retraces on every call.
    Either way every call runs the change, as eager code does (the cost of retracing is
    STG501's business).

    Flagged as STG201 instead when the value stored is a tensor: an op's result, or a parameter
    that is a tensor by the facts of the writing function's own module (the body's ops, a Keras
    `call`'s inputs, the module's call sites), so a line gets the same code whichever files are
    checked with it.

    ## Use instead
    Return values from the function and update Python state outside it, or keep the state in
    a `tf.Variable` and update it with `.assign()`/`.assign_add()`, or accumulate in a
    `tf.TensorArray`. Containers created inside the call may be mutated freely.
    """

    code = "STG102"
    preview_under = {
        "jax": "Held back on repositories nobody here tuned on (bench/fresh_audit_notes.md), "
               "it was right 0 times in 18 findings in JAX code: the writes were to pytrees JAX "
               "rebuilds, trace-time registries and restored state.",
    }
    name = "external-state-mutation"
    message = "{action} changes {place} only while {func} is traced, and calls that reuse the trace skip it; return the value or keep the state in a `tf.Variable`"
    jax_message = "{action} changes {place} only while {func} is traced by JAX, and calls that reuse the trace skip it; return the new state from the function instead"
    valid = (
        """
        import tensorflow as tf

        @tf.function
        def f(x):
            parts = []
            parts.append(x)
            parts.append(x * 2)
            return tf.add_n(parts)
        """,
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

        class Model(tf.Module):
            def __init__(self):
                self.v = tf.Variable(0)
                self.counter = 0

            @tf.function
            def __call__(self):
                with tf.init_scope():
                    self.counter += 1
                    self.v.assign_add(1)
                return self.v
        """,
    )
    invalid = (
        """
        import tensorflow as tf

        external_list = []

        @tf.function
        def side_effect(x):
            external_list.append(x)  # STG102

        side_effect(1)
        side_effect(1)
        """,
        """
        import tensorflow as tf

        log = []

        def record(entry, quiet=False):
            if not quiet:          # a per-call test, not a first-call guard
                log.append(entry)  # STG102

        @tf.function
        def step(x):
            record("step")
            return x
        """,
        """
        import tensorflow as tf

        calls = 0

        def count():
            global calls
            calls += 1  # STG102

        class Model(tf.Module):
            def __init__(self):
                self.steps = 0

            @tf.function
            def __call__(self, x):
                count()
                self.steps += 1  # STG102
                return x
        """,
    )

    def __init__(self, ctx):
        super().__init__(ctx)
        self.pairs: set[int] = set()  # `rest, value = d.pop("k")`: calls whose result is unpacked in two

    def visit_Assign(self, node: cst.Assign) -> None:
        if isinstance(node.value, cst.Call) and any(
            isinstance(t.target, (cst.Tuple, cst.List)) and len(t.target.elements) == 2 for t in node.targets
        ):
            self.pairs.add(id(node.value))

    def _functional_pop(self, node) -> bool:
        """`rest, params = state.pop("params")`: a `dict.pop` returns the value alone, so a key's
        pop unpacked into two names is Flax's `FrozenDict.pop`, which returns a new dict and the
        value and changes nothing."""
        return (isinstance(node, cst.Call) and id(node) in self.pairs and isinstance(node.func, cst.Attribute)
                and node.func.attr.value == "pop" and len(node.args) == 1
                and isinstance(node.args[0].value, (cst.SimpleString, cst.ConcatenatedString)))

    def finish(self) -> None:
        # An argument may be JAX's copy of the caller's object (`JaxView.rebuilt_params`) only
        # where JAX can stage code: elsewhere the walk after each store is not needed.
        jax_reach = JAX.name not in getattr(self.ctx, "absent", ())
        for site in store_sites(self.ctx):
            if writes_into_ref(self.ctx, site):
                continue  # a `jax.Ref` updated in place: state JAX keeps
            maybe_copy = jax_reach and site.root_kind == "param"
            if site.tensor.definite and not maybe_copy:
                continue  # STG201 (an argument's may be JAX's copy: no leak, a lost update)
            if _marker(site.node) or _records_its_argument(self.ctx, site) or self._functional_pop(site.node):
                continue
            read = {"_read_after": read_after(self.ctx, site), "_definite": site.tensor.definite} if maybe_copy else {}
            per_call = changes_every_call(site.node)
            self.report(site.node, action=site.action, place=site.place, _root=site.root_kind,
                        _per_call=per_call, _recomputed=recomputed_from_itself(site.node),
                        _stored_anew=per_call and stored_anew_above(self.ctx, site.func, site.node, site.target),
                        # `self.x = ...` itself: what a frozen module refuses (an item store does not)
                        _sets_attribute=isinstance(site.target, cst.Attribute) and not isinstance(site.node, cst.Call)
                        and isinstance(site.target.value, cst.Name) and site.target.value.value == site.func.self_name,
                        _root_name=site.root, _owner=site.owner, _params=sorted(site.tensor.params), **read,
                        _calls=sorted(list(c) for c in site.tensor.calls), function=site.func,
                        _scratch=scratch_attribute(self.ctx, site), **store_fields(self.ctx, site))

    @classmethod
    def confirm(cls, candidate, project, module):
        verdict = cls._confirm(candidate, project, module)
        key = (module.module, candidate.function)
        if not verdict or not project.staged_by_jax(key):
            return verdict
        # Under JAX the finding also rests on the loss being one a user meets (`stores.lost_under_jax_fact`)
        return with_steps(verdict, candidate, lost_under_jax_fact(candidate, project, key))

    @classmethod
    def _confirm(cls, candidate, project, module):
        key = (module.module, candidate.function)
        if project.jax.linen_setup(key):
            return False  # Flax Linen's `setup` assigns submodules and params to `self` by design
        root = candidate.fields.get("_root")
        if store_carried(candidate, project, key):
            return False  # Flax NNX state: `nnx.jit` carries module updates out, hijax Variables propagate
        if project.jax.mode_of(key) == "python" and (root != "self" or not project.jax.linen_method(key)):
            return False  # a Linen method run as Python (`init`/`apply` outside jit): only the frozen module raises
        if project.jax.linen_method(key) and root == "self":
            # a bound Linen module is frozen outside `setup`: any store raises, but a Linen variable's
            # `.value` (`self.variable("counter", ...)`) is a mutable collection
            return not candidate.fields.get("place", "").endswith(".value`")
        if root == "param" and project.staged_by_jax(key) and candidate.fields.get("action", "").endswith("(...)`") \
                and not static_container(candidate, project, key):
            return False  # `state.pop("params")`: jit passes pytrees rebuilt from their leaves (a FrozenDict's `pop` is functional)
        if _lost_update(candidate, project, key):
            return True  # (tensor or not: STG201 has no leak to report, JAX's copy dies with the trace)
        if candidate.fields.get("_definite"):
            return False  # STG201
        if not store_is_external(candidate, project, key):
            return False
        if scratch_only(candidate, project, key):
            return False  # the same call's scratch: a call reusing the trace needs none of what its skipped stores made
        if stored_tensor(candidate, project, key):
            return False  # a tensor: STG201
        outlives = outlives_fact(candidate)
        stated = [outlives] if outlives is not None else []
        if project.staged_by_jax(key):
            return with_steps(True, candidate, *stated)  # `confirm` adds JAX's step
        if no_reuse(project, key):
            return False  # every call traces and makes the change, as eager code does
        # Under TensorFlow the loss rests on the store changing the state again per call
        return with_steps(True, candidate, *stated, lost_on_reuse_fact(candidate))


def _lost_update(candidate, project, key) -> bool:
    """A write into JAX's copy of an argument (`jaxstaging.JaxView.rebuilt_params`) meant for the
    caller, who never sees it under `jax.jit`: the function neither returns the object nor reads
    what it wrote again, or what it wrote is module state (an NNX Variable: row 41's
    `counter.count[...] += 1`, hijax.ipynb's `has_shared.a[...] = 5`). Returned (rlax's
    `params_["online"] = ...; return params_`) or read back (`batch["x"] = batch["x"] / 255`
    before the model reads it), the write serves the call itself."""
    fields = candidate.fields
    if key not in project.unguarded or not rebuilt_owner(candidate, project, key):
        return False
    read = fields.get("_read_after", "returned")
    return not read or (read == "read" and writes_variable(candidate, project, key))


def _membership_test(test: cst.BaseExpression) -> bool:
    """`if KEY in features:` (or `not in`, `not (k in d)`): Python makes `in` a Python bool
    (`bool(__contains__(...))`), and bool of a symbolic tensor raises, so AutoGraph never stages
    such an `if` as a `tf.cond`: it is decided at trace time (observed with TF 2.21,
    tests/runtime/test_tf_store_facts.py)."""
    while isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        test = test.expression
    return isinstance(test, cst.Comparison) and all(
        isinstance(c.operator, (cst.In, cst.NotIn)) for c in test.comparisons)


def _warns(node: cst.Call) -> bool:
    """A warning or an error (`logging.warning`, `logger.error`, `warnings.warn`), not an info log."""
    func = node.func
    name = func.attr.value if isinstance(func, cst.Attribute) else getattr(func, "value", "")
    return name in ("warn", "warning", "error", "fatal", "critical", "exception")


def _records_its_argument(ctx, site) -> bool:
    """A test double (in a test module) keeping on `self` an argument it was called with, as is
    (`self.mask = mask`), so the test can assert on what it received: the test runs it eagerly
    and reads it back; were it traced, the assertion would see the trace's value and fail there."""
    node = site.node
    if not is_test_module(ctx.module) or site.root_kind != "self" or not isinstance(node, cst.Assign):
        return False
    if not all(isinstance(t.target, cst.Attribute) and isinstance(t.target.value, cst.Name)
               and t.target.value.value == site.func.self_name for t in node.targets):
        return False
    return isinstance(node.value, cst.Name) and ctx.binding_kind(node.value, site.func) == "param"
