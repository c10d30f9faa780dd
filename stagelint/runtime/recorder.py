"""The child-side recorder: one JSON line per staged call, flushed as it is written.

It patches `polymorphic_function.Function.__call__`, which sees every call of every
`tf.function` (plain functions, per-instance methods, Keras's own train functions) and gives
the trace count before and after. Only top-level calls are records; a `tf.function` called from
inside another one is part of the outer call (in graph mode it runs only while the outer traces).

Record kinds (field `ev`): `start`, `collected`, `test`, `fn`, `call`, `outcome`, `end`,
`reads` (the test read a trace count: `modeprobe`), `internal` (a recorder failure: the test goes
on unrecorded rather than failing).

The run's mode is held per call, not through TensorFlow's global flag: the eager run makes a
Function run its Python body only where TensorFlow's own flag would be honoured *and* useful, a
call made while executing eagerly. A call made inside a graph (a `Dataset.map` function, a
SavedModel signature being traced, another graph) stays staged in both runs, as tf.data does for
its own functions; the global flag itself is left to the tests (a test or fixture that calls
`tf.config.run_functions_eagerly` no longer swaps the runs' modes), and Keras 2 (`tf_keras`), which
builds no `tf.function` for `fit` when that flag is on, builds the same train function in both
runs. Each call records the mode it really ran in (`ran`), whether it was made inside a graph
(`ig`), and the mode the test had asked for when that differs from the run's (`asked`).
"""

from __future__ import annotations

import inspect
import json
import os
import threading
import time
import traceback
import warnings
import weakref
from collections.abc import Callable

from stagelint.runtime import linetrace, modeprobe, onimport
from stagelint.runtime.callers import call_site as _call_site, user_function
from stagelint.runtime.capture import OutputCapture
from stagelint.runtime.records import clip_message


class Identities:
    """Small indexes (0, 1, 2...) for objects told apart by identity, while they live: a finalizer
    drops an object's entry when it goes, so its id, reused by a later object, is not taken for it."""

    __slots__ = ("_index", "_next")

    def __init__(self):
        self._index: dict[int, int] = {}
        self._next = 0

    def of(self, obj) -> int | None:
        """`obj`'s index (None when it is not weak-referenceable: its id could be reused unseen)."""
        key = id(obj)
        index = self._index.get(key)
        if index is None:
            try:
                weakref.finalize(obj, self._index.pop, key, None)
            except TypeError:
                return None
            index = self._index[key] = self._next
            self._next += 1
        return index


class FunctionInfo:
    """What the recorder knows about the Python function behind a tf.function (per code object)."""

    __slots__ = ("id", "func", "binder", "project", "objects", "instances")

    def __init__(self, fid: int, func, project: bool, method: bool):
        from stagelint.runtime.values import Binder

        self.id = fid
        self.func = func
        self.binder = Binder(func, method)
        self.project = project
        #: The function objects (Functions, jitted functions) made from this code.
        self.objects = Identities()
        #: The instances a method was bound to.
        self.instances = Identities()


def _code_span(code) -> tuple[int, int]:
    last = code.co_firstlineno
    for _, _, line in code.co_lines():
        if line is not None and line > last:
            last = line
    for const in code.co_consts:
        if inspect.iscode(const):
            last = max(last, _code_span(const)[1])
    return code.co_firstlineno, last


def _clean_qualname(qualname: str) -> str:
    return qualname.replace(".<locals>", "")


class Recorder:
    def __init__(self, path: str, mode: str):
        self.mode = mode
        self._file = open(path, "a", encoding="utf-8")
        self._lock = threading.Lock()
        self._main_thread = threading.get_ident()
        self._infos: dict[object, FunctionInfo] = {}
        self._files: dict[str, int] = {}
        self._depth = 0
        self._capture = OutputCapture()
        self.test_index = -1
        self._call_index: dict[int, int] = {}
        #: (function, what) the current test read of a trace count.
        self._reads: set[tuple[str, str]] = set()
        self._object_ids = None
        #: Identity indexes of object arguments.
        self._identities = Identities()
        #: What the tests last passed to tf.config.run_functions_eagerly (None: never called).
        self.asked: bool | None = None
        #: Assertion contexts (pytest.raises, assertRaises) open now: the exception types each expects.
        self.expecting: list[tuple] = []
        #: Eager run: argument signatures of eager calls per Function, traced when a SavedModel asks.
        self.untraced = weakref.WeakKeyDictionary()
        #: The staged functions the current test called: info id -> (the user's function and the
        #: function staged for it, weak references to the objects their calls were bound to), what a
        #: failing assertion may read (`modeprobe`).
        self._staged: dict[int, tuple[list, list]] = {}
        #: Whether the current test has had its `staging-error` record (one per test).
        self._staging_error = False
        #: Whether the current test has had its `staged` record (one per test).
        self._staged_outside = False

    # Writing -----------------------------------------------------------------------------

    def emit(self, record: dict) -> None:
        line = json.dumps(record, separators=(",", ":"), default=str)
        with self._lock:
            self._file.write(line + "\n")
            self._file.flush()

    def _file_id(self, filename: str) -> int:
        fid = self._files.get(filename)
        if fid is None:
            fid = self._files[filename] = len(self._files)
            self.emit({"ev": "file", "id": fid, "path": os.path.abspath(filename)})
        return fid

    def lines_by_file(self, counts: dict[tuple[str, int], int]) -> dict[int, dict[int, int]]:
        """Line execution counts of the project's files, keyed by file id then line."""
        per_file: dict[int, dict[int, int]] = {}
        for (filename, line), n in counts.items():
            if linetrace.is_project_file(filename):
                per_file.setdefault(self._file_id(filename), {})[line] = n
        return per_file

    def add_lines(self, record: dict, counts: dict[tuple[str, int], int]) -> None:
        """The call's line counts (`lines`) and the project functions each line called (`calls`:
        [caller file, line, callee file, callee's first line])."""
        if counts:
            record["lines"] = self.lines_by_file(counts)
        edges = linetrace.collect_calls()
        if edges:
            record["calls"] = sorted([self._file_id(a), la, self._file_id(b), lb] for a, la, b, lb in edges)

    # Tests ---------------------------------------------------------------------------------

    def begin_test(self, nodeid: str, path: str | None = None, line: int | None = None,
                   span: tuple[int, int] | None = None) -> None:
        self.test_index += 1
        self._call_index = {}
        self._reads = set()
        self._staged = {}
        self._staging_error = self._staged_outside = False
        record = {"ev": "test", "i": self.test_index, "nodeid": nodeid}
        if path is not None:
            record["loc"] = [os.path.abspath(path), line]
        if span is not None:
            record["span"] = list(span)
        self.emit(record)

    def read_traces(self, name: str, api: str) -> None:
        """The test read a staged function's trace count (`modeprobe`): once per test and function."""
        if self._depth or (name, api) in self._reads:
            return
        self._reads.add((name, api))
        self.emit({"ev": "reads", "t": self.test_index, "name": name, "api": api})

    def note_staged(self, info: FunctionInfo, instance, staged=None) -> None:
        """A staged call of the current test, bound to `instance` (or None); `staged`: the function
        the framework stages when it is not the user's function itself (a counting wrapper)."""
        functions, instances = self._staged.setdefault(info.id, ([info.func], []))
        for function in inspect.unwrap(staged), staged:
            if function is not None and inspect.isfunction(function) and function not in functions:
                functions.append(function)
        if instance is not None and len(instances) < 8 and not any(r() is instance for r in instances):
            try:
                instances.append(weakref.ref(instance))
            except TypeError:
                pass

    def note_body(self, function) -> None:
        """A project function a control-flow primitive of the current test runs (`lax.switch`'s
        branches): staged under jit, run as Python with jit disabled."""
        code = getattr(function, "__code__", None)
        if code is None or not inspect.isfunction(function) or not linetrace.is_project_file(code.co_filename):
            return
        functions, _ = self._staged.setdefault(-1, ([], []))
        if len(functions) < 32 and function not in functions:
            functions.append(function)

    def staged_outside(self, via: str, functions: list) -> None:
        """Graph run: a control-flow primitive (`lax.cond` in a test's own code, outside any recorded
        call) stages project functions, which the eager run runs as Python: a test the eager run
        must run again (`eagercover`). Once per test."""
        if self._staged_outside:
            return
        for function in functions:
            code = getattr(function, "__code__", None)
            if code is not None and linetrace.is_project_file(code.co_filename):
                self._staged_outside = True
                self.emit({"ev": "staged", "t": self.test_index, "via": via})
                return

    def staging_error(self, via: str, error: BaseException) -> None:
        """Graph run: a control-flow primitive (`lax.cond`) raised, as it staged the functions it was
        given, an error an open `pytest.raises`/`assertRaises` expects: once per test."""
        if not any(_is_instance(error, expected) for expected in self.expecting) or self._staging_error:
            return
        self._staging_error = True
        self.emit({"ev": "staging-error", "t": self.test_index, "via": via, "type": type(error).__name__,
                   "msg": clip_message(str(error), 300)})

    def failed(self, tb) -> None:
        """The current test failed in the eager run: record what its failing assertion reads that
        staging decides (a counter a staged body writes, a donated buffer), for `modeasserts`."""
        staged, ids = [], []
        for fid, (functions, refs) in self._staged.items():
            instances = [obj for r in refs if (obj := r()) is not None]
            for function in functions:
                staged.append((function, instances))
                ids.append(fid)
        try:
            found = modeprobe.failed_assertion(tb, staged)
        except Exception:  # noqa: BLE001 - a failure we cannot read stays a failure
            self.emit({"ev": "internal", "where": "failed", "error": traceback.format_exc(limit=3)})
            return
        if found:
            for hit in found.get("writes", ()):
                function = staged[hit[1]][0]
                hit[1] = ids[hit[1]]
                hit.append(_clean_qualname(getattr(function, "__qualname__", "")))
            self.emit({"ev": "asserts", "t": self.test_index, **found})

    # Functions -----------------------------------------------------------------------------

    def _info(self, function) -> tuple[FunctionInfo, object]:
        """(info, instance) for a Function object; instance is `self` for a bound method."""
        python_function = function.python_function
        target = inspect.unwrap(python_function)
        instance = None
        if inspect.ismethod(target):
            owner = target.__self__
            # tf.function binds methods through a TfMethodTarget holding a weakref to the instance.
            instance = getattr(owner, "target", owner)
            target = target.__func__
        target = user_function(target)
        if inspect.ismethod(target):
            target = target.__func__
        return self.function_info(target, instance is not None), instance

    def function_info(self, target, method: bool, framework: str = "tf") -> FunctionInfo:
        """The info of a staged Python function (per code object), announced by an `fn` record."""
        code = getattr(target, "__code__", None)
        key = code if code is not None else target
        info = self._infos.get(key)
        if info is None:
            filename = code.co_filename if code is not None else "<unknown>"
            first, last = _code_span(code) if code is not None else (0, 0)
            info = FunctionInfo(len(self._infos), target, linetrace.is_project_file(filename), method)
            self._infos[key] = info
            self.emit({
                "ev": "fn", "id": info.id, "path": os.path.abspath(filename), "line": first, "end": last,
                "qualname": _clean_qualname(getattr(target, "__qualname__", repr(target))),
                "module": getattr(target, "__module__", None) or "", "project": info.project,
                "method": method, **({"fw": framework} if framework != "tf" else {}),
            })
        return info

    def identify(self, bound, summary: list) -> None:
        """Give the object arguments (compared by identity in a trace key) an identity index `o`."""
        for (_, value), (_, s) in zip(bound, summary):
            if s.get("k") != "obj":
                continue
            index = self._identities.of(value)
            if index is not None:
                s["o"] = index

    # The call ------------------------------------------------------------------------------

    def call(self, original, function, args, kwargs):
        if self._depth or threading.get_ident() != self._main_thread:
            return original(function, *args, **kwargs)
        try:
            info, instance = self._info(function)
            before = function.experimental_get_tracing_count()
            eager = bool(function._run_functions_eagerly)
            in_graph = not _executing_eagerly()
        except Exception:  # noqa: BLE001 - never let the recorder break the user's call
            self.emit({"ev": "internal", "where": "info", "error": traceback.format_exc(limit=3)})
            return original(function, *args, **kwargs)
        try:
            self._capture.start()
        except OSError:
            self.emit({"ev": "internal", "where": "capture", "error": traceback.format_exc(limit=3)})
            return original(function, *args, **kwargs)
        self._depth = 1
        result = error = None
        linetrace.begin_call()
        # A call that runs eagerly runs the Python body every time; a staged one only while
        # tracing, where the hook installed by `install` switches line counting on.
        if eager:
            linetrace.enable()
        started = time.perf_counter()
        try:
            result = original(function, *args, **kwargs)
            return result
        except BaseException as e:
            error = e
            raise
        finally:
            elapsed = time.perf_counter() - started
            if eager:
                linetrace.disable()
            counts = linetrace.collect()
            output = self._capture.stop()
            self._depth = 0
            try:
                self._record(info, instance, function, args, kwargs, before, result, error, counts, output, elapsed,
                             eager, in_graph)
            except Exception:  # noqa: BLE001
                self.emit({"ev": "internal", "where": "record", "error": traceback.format_exc(limit=3)})

    def _record(self, info, instance, function, args, kwargs, before, result, error, counts, output, elapsed,
                eager, in_graph):
        from stagelint.runtime import summaries

        traced = function.experimental_get_tracing_count() - before
        index = self._call_index.get(info.id, 0)
        self._call_index[info.id] = index + 1
        bound = info.binder.bind(args, kwargs)
        self.note_staged(info, instance, getattr(function, "python_function", None))
        record = {
            "ev": "call", "t": self.test_index, "fn": info.id, "i": index,
            "obj": info.objects.of(function), "traced": traced, "dur": round(elapsed, 6),
            "args": [[name, summaries.summarize_arg(value)] for name, value in bound],
        }
        self.identify(bound, record["args"])
        inst = None if instance is None else info.instances.of(instance)
        if inst is not None:
            record["inst"] = inst
        site = _call_site()
        if site is not None:
            record["site"] = [self._file_id(site[0]), site[1]]
        if eager != (self.mode == "eager"):
            record["ran"] = "eager" if eager else "graph"
        if in_graph:
            record["ig"] = 1
        if self.asked and self.mode == "graph":
            # The test set tf.config.run_functions_eagerly(True); the graph run held its mode.
            record["asked"] = "eager"
        if error is None:
            record["res"] = summaries.summarize_result(result) if not in_graph else []
        else:
            record["exc"] = {"type": type(error).__name__, "msg": clip_message(str(error))}
            if any(_is_instance(error, expected) for expected in self.expecting):
                # The test asserts this very error (pytest.raises, assertRaises).
                record["exc"]["asserted"] = 1
            checked = modeprobe.tracer_check(error)
            if checked:
                record["exc"]["tracer"] = checked
        if eager and error is None and not in_graph:
            self._remember_signature(function, args, kwargs, record["args"])
        self.add_lines(record, counts)
        if output:
            record["out"] = output
        if traced and self.mode == "graph":
            concretes = function._list_all_concrete_functions()
            if concretes:
                newest = concretes[-1]
                record["ops"] = len(newest.graph.get_operations())
                record["rnd"] = any(summaries.has_stateful_random(c) for c in concretes[-traced:])
            if info.project:
                leaks = summaries.find_leaks(info.func, instance, bound)
                if leaks:
                    record["leaks"] = leaks
        self.emit(record)

    def _remember_signature(self, function, args, kwargs, summary) -> None:
        """Keep the argument signature of an eager call (tensors as TensorSpecs), so a SavedModel
        saved in the eager run finds the concrete functions the graph run traced."""
        import tensorflow as tf

        key = repr([(name, s.get("s")) for name, s in summary])
        known = self.untraced.setdefault(function, {})
        if key in known or len(known) >= 8:
            return

        def spec(value):
            return tf.TensorSpec.from_tensor(value) if isinstance(value, tf.Tensor) else value

        try:
            known[key] = tf.nest.map_structure(spec, (args, kwargs))
        except Exception:  # noqa: BLE001 - a structure nest cannot walk: no signature kept
            pass

    def trace_remembered(self, function) -> None:
        """Trace the signatures eager calls of `function` had, once (SavedModel export)."""
        pending = self.untraced.pop(function, None)
        if not pending:
            return
        depth, self._depth = self._depth, 1  # calls made while tracing are not the test's calls
        try:
            for args, kwargs in pending.values():
                try:
                    function.get_concrete_function(*args, **kwargs)
                except Exception:  # noqa: BLE001 - the export reports what it cannot trace
                    pass
        finally:
            self._depth = depth


def _is_instance(error, types: tuple) -> bool:
    try:
        return isinstance(error, types)
    except TypeError:  # not a tuple of classes (a pytest.RaisesGroup, ...)
        return False


def _executing_eagerly() -> bool:
    from tensorflow.python.eager import context

    return context.executing_eagerly()


_recorder: Recorder | None = None


def install(path: str, mode: str, frameworks: frozenset[str] = frozenset(),
            on_load: Callable[[str], None] | None = None) -> Recorder:
    """Patch what stages functions; `mode` is "graph" or "eager". `frameworks` names those to import
    and patch now (the session imports them as it starts): "tf" (tf.function, run_functions_eagerly),
    "jax" (jax.jit and co., jax_disable_jit; with "flax" and "equinox" their own jit decorators).
    Any other is patched when the tests import it, and never imported otherwise. `on_load(name)`
    is called once a framework is patched (the plugin seeds it)."""
    global _recorder
    recorder = _recorder = Recorder(path, mode)
    _watch_assertions(recorder)

    def tensorflow(_module) -> None:
        _install_tensorflow(recorder, mode)

    from stagelint.runtime import jaxmode  # imports no JAX itself

    jax_calls: list = []

    def jax(_module=None):
        if not jax_calls:
            jax_calls.append(jaxmode.install(recorder, mode))
        return jax_calls[0]

    def library(module) -> None:
        # Flax and Equinox import JAX before their own code runs: its recorder is installed by then.
        jax().patch(module)

    for name, module, patch in (("tf", "tensorflow", tensorflow), ("jax", "jax", jax)):
        if name in frameworks:
            __import__(module)
        onimport.after_import(module, _guarded(recorder, name, patch, on_load))
    for module in jaxmode.LIBRARIES:
        # Watched from the start, so the hook runs when the library's own code has run (registered
        # while JAX is imported, in the middle of the library's import, it would run too early).
        onimport.after_import(module, _guarded(recorder, "jax", library, None))
        if module.split(".")[0] in frameworks:
            try:
                __import__(module)
            except ImportError:
                pass
    return recorder


def _guarded(recorder: Recorder, name: str, patch: Callable, on_load: Callable[[str], None] | None) -> Callable:
    """`patch` run as the tests import the framework: a failure is the recorder's (recorded), never
    the import's."""

    def run(module) -> None:
        try:
            with warnings.catch_warnings():
                # What patching touches may warn (a deprecated alias): not the tests' warning, and an
                # error where the project sets `filterwarnings = error`.
                warnings.simplefilter("ignore")
                patch(module)
            if on_load is not None:
                on_load(name)
        except Exception:  # noqa: BLE001
            recorder.emit({"ev": "internal", "where": f"install-{name}", "error": traceback.format_exc(limit=3)})

    return run


def _install_tensorflow(recorder: Recorder, mode: str) -> None:
    import tensorflow as tf
    from tensorflow.python.eager.polymorphic_function import polymorphic_function as pf

    original = pf.Function.__call__

    def __call__(self, *args, **kwargs):
        return recorder.call(original, self, args, kwargs)

    pf.Function.__call__ = __call__
    modeprobe.watch_tracing_count(pf, recorder)
    _hold_mode(pf, mode)
    _watch_mode_requests(tf, recorder)
    if mode == "eager":
        original_list = pf.Function._list_all_concrete_functions

        def _list_all_concrete_functions(self):
            recorder.trace_remembered(self)
            return original_list(self)

        pf.Function._list_all_concrete_functions = _list_all_concrete_functions
    linetrace.install_autograph_hook()
    linetrace.install_trace_hook(lambda: recorder._depth > 0)


def _hold_mode(pf, mode: str) -> None:
    """Whether a Function runs its Python body: in the eager run, when called while executing
    eagerly; never in the graph run. TensorFlow's global flag is not consulted (the tests own it);
    subclasses with their own rule (a restored SavedModel function never runs eagerly) keep it."""
    from tensorflow.python.eager import context

    if mode == "eager":
        pf.Function._run_functions_eagerly = property(lambda self: context.executing_eagerly())
    else:
        pf.Function._run_functions_eagerly = property(lambda self: False)


def _watch_mode_requests(tf, recorder: Recorder) -> None:
    """Remember what the tests ask of tf.config.run_functions_eagerly (it still sets the flag,
    which libraries such as Keras 2 read; the runs' modes do not follow it)."""
    for name in ("run_functions_eagerly", "experimental_run_functions_eagerly"):
        original = getattr(tf.config, name, None)
        if original is None or getattr(original, "_stagelint", False):
            continue

        def asked(run_eagerly, _original=original):
            recorder.asked = bool(run_eagerly)
            return _original(run_eagerly)

        asked._stagelint = True
        setattr(tf.config, name, asked)


def _watch_assertions(recorder: Recorder) -> None:
    """Track the open pytest.raises / assertRaises contexts and the exception types they expect."""
    import unittest.case

    targets = [(unittest.case._AssertRaisesContext, "expected")]
    for module, cls in (("_pytest.raises", "RaisesExc"), ("_pytest.python_api", "RaisesContext")):
        try:
            found = getattr(__import__(module, fromlist=[cls]), cls, None)
        except ImportError:
            found = None
        if found is not None:
            targets.append((found, "expected_exceptions" if cls == "RaisesExc" else "expected_exception"))
    for cls, attr in targets:
        if getattr(cls.__enter__, "_stagelint", False):
            continue
        enter, exit_ = cls.__enter__, cls.__exit__

        def __enter__(self, _enter=enter, _attr=attr):
            expected = getattr(self, _attr, None) or ()
            recorder.expecting.append(expected if isinstance(expected, tuple) else (expected,))
            return _enter(self)

        def __exit__(self, *exc, _exit=exit_):
            if recorder.expecting:
                recorder.expecting.pop()
            return _exit(self, *exc)

        __enter__._stagelint = True
        cls.__enter__, cls.__exit__ = __enter__, __exit__
