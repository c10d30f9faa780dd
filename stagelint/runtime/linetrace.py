"""Per-line execution counts of project code, restricted to the duration of staged calls.

Python 3.11 has no `sys.monitoring`, so this uses `sys.settrace`, switched on only while a
top-level staged call runs. The global trace function returns a local tracer only for frames whose
file belongs to the project (not the standard library, not site-packages, not stagelint) and
returns None for everything else, so TensorFlow's and Keras's own Python pays one cheap call per
frame and no line events.

Under graph mode AutoGraph converts the function: the code that runs is a generated copy
(`tf__f` in `/tmp/__autograph_generated_file*.py`) with its own line numbers. AutoGraph keeps
a source map on the converted function (`ag_source_map`, generated line -> original line); we
register it when the conversion happens (wrapping `api._convert_actual`) and map the generated
lines back as they run, so both modes count lines of the user's source. A generated line that
maps nowhere (AutoGraph's own scaffolding) is dropped, and consecutive generated lines of one
source line count once (`_GeneratedFrame`). Control-flow lines converted to `tf.cond` /
`tf.while_loop` still run in several generated frames (the loop test, the state accessors), so
they can overcount in graph mode; plain statements (print, append, next(...)) count one to one.
"""

from __future__ import annotations

import os
import sys
import sysconfig

_STAGELINT_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep

#: generated file -> {generated line: (original file, original line)}
SOURCE_MAPS: dict[str, dict[int, tuple[str, int]]] = {}

_project_cache: dict[str, bool] = {}
_counts: dict[tuple[str, int], int] = {}
#: (caller file, caller line, callee file, callee's first line): the project functions each project
#: line called (the verdicts resolve a condition's call, `is_new(a, b)`, to the function that ran).
_edges: set[tuple[str, int, str, int]] = set()


def _library_prefixes() -> tuple[str, ...]:
    paths = sysconfig.get_paths()
    prefixes = {paths.get(k) for k in ("stdlib", "platstdlib", "purelib", "platlib")}
    prefixes.update({os.path.join(sys.base_prefix, "lib"), os.path.join(sys.prefix, "lib")})
    return tuple(os.path.abspath(p) + os.sep for p in prefixes if p)


_LIBRARY = _library_prefixes()


def is_project_file(filename: str) -> bool:
    known = _project_cache.get(filename)
    if known is not None:
        return known
    if filename in SOURCE_MAPS:
        mapped = next(iter(SOURCE_MAPS[filename].values()), None)
        result = mapped is not None and is_project_file(mapped[0])
    elif filename.startswith("<") or not filename.endswith(".py"):
        result = False
    else:
        path = os.path.abspath(filename)
        result = not (
            path.startswith(_LIBRARY)
            or path.startswith(_STAGELINT_DIR)
            or f"{os.sep}site-packages{os.sep}" in path
            or f"{os.sep}dist-packages{os.sep}" in path
        )
    _project_cache[filename] = result
    return result


def _local(frame, event, arg):
    if event == "line":
        key = (frame.f_code.co_filename, frame.f_lineno)
        _counts[key] = _counts.get(key, 0) + 1
    return _local


class _GeneratedFrame:
    """Line tracer for one frame of AutoGraph-generated code: counts source lines, not generated ones.

    AutoGraph expands one statement into several generated lines that map to the same source line
    (`return x` becomes `do_return = True` and `retval_ = x`; an `if` becomes four `def`s and the
    `if_stmt` call), so counting generated lines would say the line ran 2-5 times in one trace.
    Consecutive generated lines of the same source line are one execution of it; the same generated
    line again (a jump back) is another. Lines that map nowhere are AutoGraph's scaffolding.
    """

    __slots__ = ("smap", "origin", "line")

    def __init__(self, smap: dict[int, tuple[str, int]]) -> None:
        self.smap = smap
        self.origin: tuple[str, int] | None = None
        self.line = 0

    def __call__(self, frame, event, arg):
        if event == "line":
            line = frame.f_lineno
            origin = self.smap.get(line)
            if origin is not None:
                if origin != self.origin or line == self.line:
                    key = (_MAPPED, origin)
                    _counts[key] = _counts.get(key, 0) + 1
                self.origin, self.line = origin, line
        return self


#: The file name under which counts already mapped back to the source are kept.
_MAPPED = "<mapped>"


def _global(frame, event, arg):
    filename = frame.f_code.co_filename
    wanted = _project_cache.get(filename)
    if wanted is None:
        wanted = is_project_file(filename)
    if not wanted:
        return None
    smap = SOURCE_MAPS.get(filename)
    if smap is not None:
        return _GeneratedFrame(smap)
    back = frame.f_back
    if back is not None:
        caller = back.f_code.co_filename
        if caller not in SOURCE_MAPS and (_project_cache.get(caller) or is_project_file(caller)):
            _edges.add((caller, back.f_lineno, filename, frame.f_code.co_firstlineno))
    return _local


_active = 0
_previous = None


def begin_call() -> None:
    """Forget the counts of the previous call."""
    _counts.clear()
    _edges.clear()


def enable() -> None:
    """Count lines from here until the matching `disable` (calls nest)."""
    global _active, _previous
    if _active == 0:
        _previous = sys.gettrace()
        sys.settrace(_global)
    _active += 1


def disable() -> None:
    global _active
    _active -= 1
    if _active == 0:
        sys.settrace(_previous)


def collect() -> dict[tuple[str, int], int]:
    """{(original file, line): count} for the call, AutoGraph's generated lines mapped back."""
    counts: dict[tuple[str, int], int] = {}
    for (filename, line), n in _counts.items():
        if filename == _MAPPED:
            filename, line = line
            counts[(filename, line)] = counts.get((filename, line), 0) + n
            continue
        smap = SOURCE_MAPS.get(filename)
        if smap is not None:
            origin = smap.get(line)
            if origin is None:
                continue
            filename, line = origin
        key = (filename, line)
        counts[key] = counts.get(key, 0) + n
    _counts.clear()
    return counts


def collect_calls() -> set[tuple[str, int, str, int]]:
    """The project-to-project calls of the call (not AutoGraph's generated code): (caller file,
    caller line, callee file, callee's first line)."""
    edges = set(_edges)
    _edges.clear()
    return edges


def install_trace_hook(is_recording) -> None:
    """Graph mode: count lines only while a function is being traced.

    The user's Python runs only while tracing; the rest of a graph call is TensorFlow's dispatch,
    which would pay for the trace hook (about 160 us a call) for nothing. Every trace goes through
    `func_graph.func_graph_from_py_func`, looked up on the module at call time.
    """
    from tensorflow.python.framework import func_graph

    original = func_graph.func_graph_from_py_func
    if getattr(original, "_stagelint", False):
        return

    def traced(*args, **kwargs):
        if not is_recording():
            return original(*args, **kwargs)
        enable()
        try:
            return original(*args, **kwargs)
        finally:
            disable()

    traced._stagelint = True
    func_graph.func_graph_from_py_func = traced


def install_autograph_hook() -> None:
    """Record the source map of every function AutoGraph converts from now on."""
    from tensorflow.python.autograph.impl import api

    original = api._convert_actual
    if getattr(original, "_stagelint", False):
        return

    def convert_and_register(entity, program_ctx):
        converted = original(entity, program_ctx)
        try:
            smap = {loc.lineno: (origin.loc.filename, origin.loc.lineno)
                    for loc, origin in converted.ag_source_map.items()}
            SOURCE_MAPS[converted.ag_module.__file__] = smap
            _project_cache.pop(converted.ag_module.__file__, None)
        except Exception:  # noqa: BLE001 - a missing map only loses graph-mode line counts
            pass
        return converted

    convert_and_register._stagelint = True
    api._convert_actual = convert_and_register
