"""The child-side recorder: one JSON line per staged call, flushed as it is written.

It patches `polymorphic_function.Function.__call__`, which sees every call of every
`tf.function` (plain functions, per-instance methods, Keras's own train functions) and gives
the trace count before and after. Only top-level calls are records; a `tf.function` called from
inside another one is part of the outer call (in graph mode it runs only while the outer traces).

Record kinds (field `ev`): `start`, `collected`, `test`, `fn`, `call`, `outcome`, `end`,
`internal` (a recorder failure: the test goes on unrecorded rather than failing).
"""

from __future__ import annotations

import inspect
import json
import os
import threading
import time
import traceback
import weakref

from stagelint.runtime import linetrace
from stagelint.runtime.capture import OutputCapture
from stagelint.runtime.records import clip_message


class FunctionInfo:
    """What the recorder knows about the Python function behind a tf.function (per code object)."""

    __slots__ = ("id", "func", "binder", "project", "objects", "next_object")

    def __init__(self, fid: int, func, project: bool, method: bool):
        from stagelint.runtime.summaries import Binder

        self.id = fid
        self.func = func
        self.binder = Binder(func, method)
        self.project = project
        self.objects: dict[int, int] = {}
        self.next_object = 0


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
        self._object_ids = None

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

    # Tests ---------------------------------------------------------------------------------

    def begin_test(self, nodeid: str, path: str | None = None, line: int | None = None,
                   span: tuple[int, int] | None = None) -> None:
        self.test_index += 1
        self._call_index = {}
        record = {"ev": "test", "i": self.test_index, "nodeid": nodeid}
        if path is not None:
            record["loc"] = [os.path.abspath(path), line]
        if span is not None:
            record["span"] = list(span)
        self.emit(record)

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
        code = getattr(target, "__code__", None)
        key = code if code is not None else target
        info = self._infos.get(key)
        if info is None:
            filename = code.co_filename if code is not None else "<unknown>"
            first, last = _code_span(code) if code is not None else (0, 0)
            info = FunctionInfo(len(self._infos), target, linetrace.is_project_file(filename), instance is not None)
            self._infos[key] = info
            self.emit({
                "ev": "fn", "id": info.id, "path": os.path.abspath(filename), "line": first, "end": last,
                "qualname": _clean_qualname(getattr(target, "__qualname__", repr(target))),
                "module": getattr(target, "__module__", None) or "", "project": info.project,
                "method": instance is not None,
            })
        return info, instance

    def _object_index(self, info: FunctionInfo, function) -> int:
        # Function objects are weak-referenceable; a finalizer keeps ids from being reused silently.
        key = id(function)
        index = info.objects.get(key)
        if index is None:
            index = info.objects[key] = info.next_object
            info.next_object += 1

            weakref.finalize(function, info.objects.pop, key, None)
        return index

    # The call ------------------------------------------------------------------------------

    def call(self, original, function, args, kwargs):
        if self._depth or threading.get_ident() != self._main_thread:
            return original(function, *args, **kwargs)
        try:
            info, instance = self._info(function)
            before = function.experimental_get_tracing_count()
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
        # Eager mode runs the Python body on every call; graph mode only while tracing, where
        # the hook installed by `install` switches line counting on.
        if self.mode == "eager":
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
            if self.mode == "eager":
                linetrace.disable()
            counts = linetrace.collect()
            output = self._capture.stop()
            self._depth = 0
            try:
                self._record(info, instance, function, args, kwargs, before, result, error, counts, output, elapsed)
            except Exception:  # noqa: BLE001
                self.emit({"ev": "internal", "where": "record", "error": traceback.format_exc(limit=3)})

    def _record(self, info, instance, function, args, kwargs, before, result, error, counts, output, elapsed):
        from stagelint.runtime import summaries

        traced = function.experimental_get_tracing_count() - before
        index = self._call_index.get(info.id, 0)
        self._call_index[info.id] = index + 1
        bound = info.binder.bind(args, kwargs)
        record = {
            "ev": "call", "t": self.test_index, "fn": info.id, "i": index,
            "obj": self._object_index(info, function), "traced": traced, "dur": round(elapsed, 6),
            "args": [[name, summaries.summarize_arg(value)] for name, value in bound],
        }
        site = _call_site()
        if site is not None:
            record["site"] = [self._file_id(site[0]), site[1]]
        if error is None:
            record["res"] = summaries.summarize_result(result)
        else:
            record["exc"] = {"type": type(error).__name__, "msg": clip_message(str(error))}
        if counts:
            per_file: dict[int, dict[int, int]] = {}
            for (filename, line), n in counts.items():
                if linetrace.is_project_file(filename):
                    per_file.setdefault(self._file_id(filename), {})[line] = n
            record["lines"] = per_file
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


def _call_site() -> tuple[str, int] | None:
    """The nearest project frame that made the call (skipping TensorFlow's dispatch frames)."""
    import sys

    frame = sys._getframe(3)
    for _ in range(8):
        if frame is None:
            return None
        if linetrace.is_project_file(frame.f_code.co_filename):
            return frame.f_code.co_filename, frame.f_lineno
        frame = frame.f_back
    return None


_recorder: Recorder | None = None


def install(path: str, mode: str) -> Recorder:
    """Patch tf.function globally; `mode` is "graph" or "eager" (run_functions_eagerly)."""
    global _recorder
    import tensorflow as tf
    from tensorflow.python.eager.polymorphic_function import polymorphic_function as pf

    _recorder = Recorder(path, mode)
    original = pf.Function.__call__
    recorder = _recorder

    def __call__(self, *args, **kwargs):
        return recorder.call(original, self, args, kwargs)

    pf.Function.__call__ = __call__
    linetrace.install_autograph_hook()
    if mode == "graph":
        linetrace.install_trace_hook(lambda: recorder._depth > 0)
    if mode == "eager":
        tf.config.run_functions_eagerly(True)
    return _recorder
