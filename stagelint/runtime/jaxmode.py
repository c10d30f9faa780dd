"""The child-side recorder for JAX: one record per top-level call of a jitted function.

The eager run sets `jax_disable_jit` (what `JAX_DISABLE_JIT=1` sets): `jax.jit` and the control
flow primitives (`lax.cond`, `while_loop`, `scan`, `fori_loop`) run as plain Python. `vmap`, `grad`
and `pmap` still trace there; a call whose function the eager run traced (it saw tracers) is marked
"not compared" (`nc`) instead of being judged against a run that was not eager either.

What `jax.jit` returns is native code (a `PjitFunction`): its `__call__` cannot be patched, as
TensorFlow's `Function.__call__` is. So the decorators themselves (`jax.jit`, `jax.pmap`,
`flax.nnx.jit`, `equinox.filter_jit`) are replaced before the tests are collected. For a project
function the replacement hands the original decorator a counting shim around the function (it runs
only while JAX traces, so its calls are the traces) and wraps what comes back in `Jitted`, whose
`__call__` records the call and whose attributes are the jitted object's. One shim per function,
so jitting the same function again reuses JAX's cache as it would without stagelint. Library
functions (what Flax and Equinox jit inside) get the original decorator untouched.

Retrace explanations come from JAX itself (`jax_explain_cache_misses`, logged on
`jax._src.interpreters.partial_eval`): the graph run keeps what it says about project functions
during a recorded call (`why`).
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import logging
import re
import threading
import time
import traceback
import weakref

from stagelint.runtime import linetrace, modeprobe
from stagelint.runtime.callers import call_site, user_function
from stagelint.runtime.records import clip_message
from stagelint.runtime.values import (digest, find_staged_values, numeric_leaf, spec_text, summarize_container,
                                      summarize_scalar, SCALARS)

#: (module, attribute, kind) of the decorators that stage a function; kind names it in records.
DECORATORS = (("jax", "jit", "jit"), ("jax", "pmap", "pmap"), ("flax.nnx", "jit", "nnx.jit"),
              ("equinox", "filter_jit", "filter_jit"))
#: The libraries whose own staging decorators are patched when they are imported.
LIBRARIES = tuple(dict.fromkeys(m for m, _, _ in DECORATORS if m != "jax"))
#: The logger `jax_explain_cache_misses` writes to.
EXPLAIN_LOGGER = "jax._src.interpreters.partial_eval"
#: Libraries whose own jitted wrapper stands for the user's function in a cache-miss message.
WRAPPER_FILES = ("/equinox/", "/flax/nnx/")


class Shim:
    """Counts the traces of one Python function: JAX calls it only while tracing (graph run), or
    on every call with jit disabled (eager run), where only calls seeing tracers are traces."""

    __slots__ = ("fun", "traces", "__weakref__")

    def __init__(self, fun):
        self.fun = fun
        self.traces = 0


class CallableShim:
    """The shim of a callable object (an Equinox `filter_grad` wrapper, a partial): a callable object
    too, not a function. Code that takes a function for a JAX transform's result (Equinox follows its
    `__wrapped__` when one is assigned to a Module field, and warns on array leaves) sees what it saw
    without stagelint; `__wrapped__` keeps the object's signature for `inspect.signature`."""

    def __init__(self, call, fun):
        self._call = call
        functools.update_wrapper(self, fun, updated=())

    def __call__(self, *args, **kwargs):
        return self._call(*args, **kwargs)


class TreeShim:
    """The shim of a function that is a pytree with array leaves (`filter_jit(m.method)`, an Equinox
    bound method of a Module holding an array): a pytree of that function, so `filter_jit` passes its
    arrays as arguments of the trace as it does without stagelint, and two such functions equal but
    for their arrays share one trace (their static part, `run`, is one object). A shim holding the
    function would make each a static value of its own: one trace more per instance."""

    def __init__(self, run, fun):
        self._run, self.fun = run, fun
        functools.update_wrapper(self, fun, updated=())

    def __call__(self, *args, **kwargs):
        return self._run(self.fun, *args, **kwargs)


def _register_tree_shim(jax) -> None:
    if not getattr(TreeShim, "_registered", False):
        jax.tree_util.register_pytree_node(TreeShim, lambda shim: ((shim.fun,), shim._run),
                                           lambda run, children: TreeShim(run, children[0]))
        TreeShim._registered = True


class JaxCalls:
    """Records the calls of `Jitted` objects through the shared `Recorder` (its file, test index,
    function ids, output capture and nesting depth)."""

    def __init__(self, recorder, mode: str, jax):
        self.recorder, self.mode, self.jax = recorder, mode, jax
        #: kind -> the installed replacement decorator (for `jax.jit(static_argnums=...)` without fun).
        self._patched: dict = {}
        self.shims: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
        #: The shims of the decorators that cache by equality (`filter_jit`), held as long as their cache.
        self.equal_shims: dict = {}
        #: During a top-level call: did the eager run trace the function (a transformation)?
        self.traced_in_eager = False
        #: During a top-level call: JAX's explanations of its cache misses.
        self.misses: list[str] = []
        #: The graph run's context in which JAX explains its cache misses: the recorded calls only
        #: (explaining every miss of the session, jnp's own functions included, costs 5-10% of a run).
        self.explaining = contextlib.nullcontext

    # Decorating ---------------------------------------------------------------------------------

    def patch(self, module) -> None:
        """Replace the staging decorators `module` defines (`DECORATORS`) by recording ones."""
        for module_name, attr, kind in DECORATORS:
            original = getattr(module, attr, None) if module_name == module.__name__ else None
            if original is None or getattr(original, "_stagelint", False):
                continue

            def patched(*args, _original=original, _kind=kind, **kwargs):
                return self.decorate(_original, _kind, args, kwargs)

            functools.update_wrapper(patched, original)
            patched._stagelint = True
            self._patched[kind] = patched
            setattr(module, attr, patched)

    def decorate(self, original, kind: str, args: tuple, kwargs: dict):
        fun = args[0] if args else None
        if fun is None or not callable(fun):
            # `jax.jit(static_argnums=1)`, `partial(nnx.jit, ...)`: a decorator still waiting for fun.
            if not args:
                return functools.partial(self._patched[kind], **kwargs)
            return original(*args, **kwargs)
        target = _user_target(fun)
        code = getattr(target, "__code__", None)
        if code is None or not linetrace.is_project_file(code.co_filename):
            return original(*args, **kwargs)
        shim, counter = self._shim(fun, target, by_equality=kind == "filter_jit")
        jitted = original(shim, *args[1:], **kwargs)
        return _JITTED[kind](jitted, fun, target, counter, kind, self, _donation(kwargs))

    def _shim(self, fun, target, by_equality: bool = False):
        """The shim of `fun` (`target`: the user's function behind it). `by_equality`: the decorator
        caches on an equal function as on the same one (Equinox's `filter_jit` hashes the static part
        of its function, `filter_jit(filter_vmap(f))` made twice is one trace; the arrays of a pytree
        function, `filter_jit(m.method)` of a Module holding arrays, are arguments of its trace)."""
        key = arrays = None
        try:
            if by_equality:
                key, arrays = self._static_key(fun)
                found = self.equal_shims[key]
                if arrays:
                    run, counter = found
                    return TreeShim(run, fun), counter
                return found
            shim, counter = self.shims[fun]
            # Keyed by equality, but JAX caches per function object: an equal bound method
            # (`self.update` accessed again) is a new object, and JAX traces it anew.
            if counter.fun is fun:
                return shim, counter
        except (KeyError, TypeError):
            pass
        counter = Shim(fun)
        calls, jax = self, self.jax

        def run(fun, *args, **kwargs):
            if not jax.config.jax_disable_jit:
                counter.traces += 1
            elif _has_tracer(jax, (args, kwargs)):
                counter.traces += 1
                calls.traced_in_eager = True
            if not calls.recorder._depth:
                return fun(*args, **kwargs)
            linetrace.enable()
            try:
                return fun(*args, **kwargs)
            finally:
                linetrace.disable()

        if arrays:
            _register_tree_shim(jax)
            shim, entry = TreeShim(run, fun), (run, counter)
        else:
            @functools.wraps(fun)
            def shim(*args, **kwargs):
                return run(fun, *args, **kwargs)

            if not (inspect.isfunction(fun) or inspect.ismethod(fun)):
                shim = CallableShim(shim, fun)
            entry = (shim, counter)
        try:
            if by_equality:
                if key is not None:
                    # The decorator's cache holds the equal function as long: so does this one.
                    self.equal_shims[key] = entry
            else:
                self.shims[fun] = entry
        except TypeError:  # not hashable or not weak-referenceable: a fresh shim (and cache) per jit
            pass
        return shim, counter

    def _static_key(self, fun) -> tuple:
        """(`fun` as `filter_jit` caches it, whether it has array leaves): its pytree structure and
        leaves, an array leaf standing for any array (`filter_jit` passes those as arguments)."""
        leaves, treedef = self.jax.tree_util.tree_flatten(fun)
        is_array = [hasattr(leaf, "shape") and hasattr(leaf, "dtype") for leaf in leaves]
        key = (treedef, tuple(None if array else leaf for array, leaf in zip(is_array, leaves)), any(is_array))
        hash(key)
        return key, any(is_array)

    # Calling ------------------------------------------------------------------------------------

    def call(self, jitted: Jitted, instance, args: tuple, kwargs: dict):
        recorder = self.recorder
        call_args = (instance, *args) if instance is not None else args
        if recorder._depth or threading.get_ident() != recorder._main_thread:
            return jitted._jitted(*call_args, **kwargs)
        try:
            info, self_object = self._info(jitted, instance)
            before = jitted._counter.traces
            in_transform = _has_tracer(self.jax, (args, kwargs))
            # Before the call: a donated argument has no value after it.
            bound = info.binder.bind(args, kwargs)
            summary = [[name, self.summarize_arg(value)] for name, value in bound]
            recorder._capture.start()
        except Exception:  # noqa: BLE001 - never let the recorder break the user's call
            recorder.emit({"ev": "internal", "where": "jax-info", "error": traceback.format_exc(limit=3)})
            return jitted._jitted(*call_args, **kwargs)
        recorder._depth = 1
        self.traced_in_eager, self.misses = False, []
        linetrace.begin_call()
        result = error = None
        started = time.perf_counter()
        try:
            with self.explaining():
                result = jitted._jitted(*call_args, **kwargs)
            return result
        except BaseException as e:
            error = e
            raise
        finally:
            elapsed = time.perf_counter() - started
            try:
                # jax.debug.print and other callbacks may still be writing.
                self.jax.effects_barrier()
            except Exception:  # noqa: BLE001
                pass
            counts = linetrace.collect()
            output = recorder._capture.stop()
            recorder._depth = 0
            try:
                self._record(info, jitted, self_object, bound, summary, before, result, error, counts, output,
                             elapsed, in_transform)
            except Exception:  # noqa: BLE001
                recorder.emit({"ev": "internal", "where": "jax-record", "error": traceback.format_exc(limit=3)})

    def _info(self, jitted: Jitted, instance):
        """The recorder's FunctionInfo for the user's function, and the object it is bound to."""
        recorder = self.recorder
        self_object = instance
        bound_to = inspect.unwrap(jitted._fun)
        if inspect.ismethod(bound_to):
            self_object = bound_to.__self__
        target = jitted._target
        # Either way the arguments come without the instance: the signature drops `self`.
        return recorder.function_info(target, self_object is not None, "jax"), self_object

    def _record(self, info, jitted, self_object, bound, summary, before, result, error, counts, output, elapsed,
                in_transform):
        recorder = self.recorder
        traced = jitted._counter.traces - before
        index = recorder._call_index.get(info.id, 0)
        recorder._call_index[info.id] = index + 1
        record = {
            "ev": "call", "t": recorder.test_index, "fn": info.id, "i": index,
            "obj": info.objects.of(jitted), "traced": traced, "dur": round(elapsed, 6),
            "args": summary,
        }
        recorder.identify(bound, summary)
        recorder.note_staged(info, self_object, jitted._fun)
        inst = None if self_object is None else info.instances.of(self_object)
        if inst is not None:
            record["inst"] = inst
        if jitted._kind != "jit":
            record["via"] = jitted._kind
        if jitted._donates:
            record["don"] = jitted._donates
        site = _call_site()
        if site is not None:
            record["site"] = [recorder._file_id(site[0]), site[1]]
        if in_transform:
            record["nc"] = "called under a JAX transformation (vmap, grad, scan, ...), which traces it in both runs"
        elif self.traced_in_eager:
            what = "pmap" if jitted._kind == "pmap" else "a JAX transformation (vmap, grad, ...)"
            record["nc"] = f"{what} traced it in the eager run too (JAX cannot run it eagerly)"
        if error is None:
            record["res"] = [] if in_transform else self.summarize_result(result)
        else:
            record["exc"] = {"type": type(error).__name__, "msg": clip_message(str(error))}
            if any(_is_instance(error, expected) for expected in recorder.expecting):
                record["exc"]["asserted"] = 1
            checked = modeprobe.tracer_check(error, jax=True)
            if checked:
                record["exc"]["tracer"] = checked
        recorder.add_lines(record, counts)
        if output:
            record["out"] = output
        if self.misses:
            record["why"] = self.misses[:3]
        if traced and self.mode == "graph" and info.project:
            leaks = find_staged_values(info.func, self_object, bound, self.is_tracer, (self.jax.Array,))
            if leaks:
                record["leaks"] = leaks
        recorder.emit(record)

    # Values -------------------------------------------------------------------------------------

    def is_tracer(self, value) -> bool:
        return isinstance(value, self.jax.core.Tracer)

    def summarize_arg(self, value, depth: int = 0) -> dict:
        jax = self.jax
        if isinstance(value, SCALARS):
            return summarize_scalar(value)
        if isinstance(value, jax.core.Tracer):
            return {"k": "tensor", "s": "tracer " + spec_text(value.dtype, value.shape)}
        if isinstance(value, jax.Array):
            out = {"k": "tensor", "s": spec_text(value.dtype, value.shape)}
            try:
                out["d"] = digest(_host(jax, value))
            except Exception:  # noqa: BLE001 - a deleted (donated) array has no value left
                pass
            return out
        import numpy as np

        if isinstance(value, np.ndarray):
            return {"k": "array", "s": "ndarray " + spec_text(value.dtype.name, list(value.shape)),
                    "d": digest(value)}
        if isinstance(value, np.generic):
            return {"k": "py", "ty": type(value).__name__, "s": repr(value.item())}
        return summarize_container(value, depth, self.summarize_arg) or {"k": "obj", "s": type(value).__name__}

    def summarize_result(self, result) -> list[dict]:
        jax = self.jax
        try:
            leaves = jax.tree_util.tree_leaves(result, is_leaf=lambda x: x is None)
        except Exception:  # noqa: BLE001 - not a pytree JAX can walk: one leaf
            leaves = [result]
        out = []
        for leaf in leaves[:64]:
            if isinstance(leaf, jax.core.Tracer):
                out.append({"t": "symbolic", "s": str(leaf)[:100]})
            elif isinstance(leaf, jax.Array):
                try:
                    out.append(numeric_leaf(_host(jax, leaf), py=False))
                except Exception:  # noqa: BLE001 - a deleted array
                    out.append({"t": "obj", "v": "deleted Array"})
            else:
                out.append(numeric_leaf(leaf))
        return out

    # Retrace explanations -----------------------------------------------------------------------

    def explained(self, message: str) -> None:
        """A cache-miss explanation from JAX: kept when it concerns the recorded call's function."""
        if not self.recorder._depth or "never seen function" in message:
            return
        defined = re.search(r"defined at (\S+?):\d+", message)
        if defined is None:
            return
        path = defined.group(1)
        if not (linetrace.is_project_file(path) or any(part in path for part in WRAPPER_FILES)):
            return  # a jnp function JAX jits inside the user's code
        lines = [ln.strip() for ln in message.splitlines()]
        reasons = [_plain(ln.lstrip("* ")) for ln in lines if ln.startswith(("*", "different", "never"))
                   and not ln.startswith("different input pytree")]
        reason = "; ".join(reasons) or (lines[-1] if lines else "")
        reason = reason if len(reason) <= 300 else reason[:297] + "..."
        if reason and reason not in self.misses:
            self.misses.append(reason)


class Jitted:
    """What a patched decorator returns for a project function: calls are recorded, everything else
    is the jitted object's (`lower`, `trace`, `eval_shape`, `_cache_size`, `__wrapped__`, ...)."""

    def __init__(self, jitted, fun, target, counter: Shim, kind: str, calls: JaxCalls, donates: str | None = None):
        self._jitted, self._fun, self._target = jitted, fun, target
        self._counter, self._kind, self._calls = counter, kind, calls
        self._donates = donates
        functools.update_wrapper(self, jitted, updated=())

    def __call__(self, *args, **kwargs):
        return self._calls.call(self, None, args, kwargs)

    def __get__(self, instance, owner=None):
        # A jitted method: bound like the jitted object binds itself (the instance is the first argument).
        if instance is None:
            return self
        return functools.partial(self._call_bound, instance)

    def _call_bound(self, instance, *args, **kwargs):
        return self._calls.call(self, instance, args, kwargs)

    def __getattr__(self, name):
        if name in modeprobe.JAX_TRACE_COUNT_ATTRIBUTES:
            self._calls.recorder.read_traces(getattr(self._fun, "__qualname__", repr(self._fun)), f"{name}()")
        return getattr(self.__dict__["_jitted"], name)

    def __repr__(self) -> str:
        return repr(self._jitted)


#: One `Jitted` class per decorator: what `jax.jit` and `equinox.filter_jit` return are objects of
#: different types, and code tells them apart by `type(...)` (Equinox takes `type(jax.jit(f))` at
#: import as the type of a jitted function, to warn when one is assigned to a Module field, which a
#: `filter_jit` wrapper may be).
_JITTED = {kind: type(f"Jitted_{kind.replace('.', '_')}", (Jitted,), {"__slots__": ()}) for _, _, kind in DECORATORS}


def _donation(kwargs: dict) -> str | None:
    """The donation a staging decorator was asked for: `donate_argnums=(0,)` (jax.jit, pmap,
    nnx.jit), `donate='all'` (equinox.filter_jit); None when none."""
    asked = [f"{name}={kwargs[name]!r}" for name in ("donate_argnums", "donate_argnames") if kwargs.get(name)
             not in (None, (), [])]
    if kwargs.get("donate") not in (None, "none"):
        asked.append(f"donate={kwargs['donate']!r}")
    return ", ".join(asked) or None


def _plain(reason: str) -> str:
    """JAX's wording of a static argument's change, shortened: `now static 2 and before static 1`."""
    reason = re.sub(r"<class '[\w.]+Static'> with pytree metadata Static\(val=(.*?)\)(?= and before|, so|$)",
                    r"static \1", reason)
    return reason.replace(", so the pytree node metadata does not match", "")


def _host(jax, array):
    import numpy as np

    if jax.dtypes.issubdtype(array.dtype, jax.dtypes.prng_key):
        array = jax.random.key_data(array)
    return np.asarray(array)


def _has_tracer(jax, tree) -> bool:
    try:
        return any(isinstance(leaf, jax.core.Tracer) for leaf in jax.tree_util.tree_leaves(tree))
    except Exception:  # noqa: BLE001 - an argument JAX cannot flatten holds no tracer it made
        return False


def _call_site():
    # A frame of its own, like the TF recorder's caller: call_site() counts its frames from here.
    return call_site()


def _user_target(fun):
    target = user_function(inspect.unwrap(fun))
    if inspect.ismethod(target):
        target = target.__func__
    return target


def _is_instance(error, types: tuple) -> bool:
    try:
        return isinstance(error, types)
    except TypeError:
        return False


class _ExplainHandler(logging.Handler):
    def __init__(self, calls: JaxCalls):
        super().__init__(logging.DEBUG)
        self.calls = calls

    def emit(self, record: logging.LogRecord) -> None:
        try:
            self.calls.explained(record.getMessage())
        except Exception:  # noqa: BLE001 - an explanation is evidence, never a failure
            pass


def install(recorder, mode: str) -> JaxCalls:
    """Patch JAX's staging decorators; `mode` "eager" disables jit, "graph" asks JAX to explain its
    cache misses. Flax's and Equinox's (`LIBRARIES`) are patched with `JaxCalls.patch` when they are
    imported (`recorder.install`): importing them costs seconds a run that does not use them should
    not pay."""
    import jax

    calls = JaxCalls(recorder, mode, jax)
    if mode == "eager":
        jax.config.update("jax_disable_jit", True)
    else:
        explain = getattr(jax, "explain_cache_misses", None)
        if explain is not None:
            calls.explaining = functools.partial(explain, True)
        else:
            jax.config.update("jax_explain_cache_misses", True)
        logger = logging.getLogger(EXPLAIN_LOGGER)
        logger.addHandler(_ExplainHandler(calls))
        # The explanations are the recorder's evidence, not the tests' output.
        logger.propagate = False
    calls.patch(jax)
    _watch_control_flow(jax, recorder, mode)
    return calls


#: `jax.lax` functions that stage the functions they are given whenever jit is enabled, inside a
#: jitted function or not: they trace every branch (a loop body once) and check that the branches'
#: outputs agree in pytree structure and type (`TypeError: cond branch outputs must have the same
#: pytree structure`). With jit disabled they run them as Python: only the branch taken, the body
#: once per step, no such check.
CONTROL_FLOW = ("cond", "switch", "while_loop", "fori_loop", "scan")


def _watch_control_flow(jax, recorder, mode: str) -> None:
    """Eager run: the project functions a test hands `lax.cond`/`switch`/loops are staged functions
    of the test (what a failing assertion may read they write: `Recorder.failed`). Graph run: an
    error such a primitive raises that the test expects (`pytest.raises`, `assertRaises`) is an
    error of staging (`Recorder.staging_error`), which the eager run does not raise."""
    for name in CONTROL_FLOW:
        original = getattr(jax.lax, name, None)
        if original is None or getattr(original, "_stagelint", False):
            continue

        def noted(*args, _original=original, **kwargs):
            if recorder.test_index >= 0:
                for fun in _functions(args, kwargs):
                    recorder.note_body(fun)
            return _original(*args, **kwargs)

        def watched(*args, _original=original, _name=name, **kwargs):
            if recorder.test_index >= 0 and not recorder._depth:
                recorder.staged_outside(f"lax.{_name}", _functions(args, kwargs))
            try:
                return _original(*args, **kwargs)
            except Exception as error:
                if recorder.test_index >= 0:
                    recorder.staging_error(f"lax.{_name}", error)
                raise

        wrapper = noted if mode == "eager" else watched
        functools.update_wrapper(wrapper, original)
        wrapper._stagelint = True
        setattr(jax.lax, name, wrapper)


def _functions(args: tuple, kwargs: dict) -> list:
    """The functions handed to a control-flow primitive (`lax.switch` takes a list of branches)."""
    return [inspect.unwrap(fun) for arg in (*args, *kwargs.values())
            for fun in (arg if isinstance(arg, (list, tuple)) else (arg,)) if callable(fun)]
