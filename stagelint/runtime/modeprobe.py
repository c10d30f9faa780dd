"""Child side: what a test observes of staging itself, recorded so that the eager run failing such a
test is not taken for a divergence of the code (`modeasserts` judges it in the parent).

- A test that reads a function's trace count (`tf.function`'s `experimental_get_tracing_count()`,
  a jitted function's `_cache_size()`) reads 0 in the eager run, where the body runs instead of
  being traced: a `reads` record names the function and what was read.
- An error raised where the staged code checks that a value is a tracer (`isinstance(x,
  jax.core.Tracer)`, TensorFlow's `SymbolicTensor`): under tracing it is one, in the eager run it
  is a concrete array. The check's type is resolved in the raising frame, not read by its spelling.
"""

from __future__ import annotations

import ast
import inspect
import linecache
import sys
import warnings

#: What a test may read of a jitted function's trace count (JAX).
JAX_TRACE_COUNT_ATTRIBUTES = ("_cache_size",)


def watch_tracing_count(pf, recorder) -> None:
    """Record the tests' reads of `Function.experimental_get_tracing_count` (not the recorder's own)."""
    original = pf.Function.experimental_get_tracing_count
    if getattr(original, "_stagelint", False):
        return

    def experimental_get_tracing_count(self):
        if not sys._getframe(1).f_globals.get("__name__", "").startswith("stagelint."):
            name = getattr(getattr(self, "python_function", None), "__qualname__", None) or getattr(self, "_name", "")
            recorder.read_traces(name, "experimental_get_tracing_count()")
        return original(self)

    experimental_get_tracing_count._stagelint = True
    pf.Function.experimental_get_tracing_count = experimental_get_tracing_count


def tracer_check(error: BaseException) -> str | None:
    """The tracer type checked on the line that raised `error` (`isinstance(x, Tracer)`), qualified
    (`jax._src.core.Tracer`), or None."""
    tb = error.__traceback__
    if tb is None:
        return None
    while tb.tb_next is not None:
        tb = tb.tb_next
    frame = tb.tb_frame
    text = linecache.getline(frame.f_code.co_filename, tb.tb_lineno).strip()
    try:
        tree = ast.parse(text.removesuffix(":") if text.startswith(("if ", "elif ", "while ")) else text)
    except SyntaxError:
        return None
    tracers = _tracer_types()
    with warnings.catch_warnings():
        # A deprecated alias the code names (`jax.core.Tracer`) warns again: not the tests' warning.
        warnings.simplefilter("ignore")
        try:
            return _checked_type(tree, frame, tracers)
        except Exception:  # noqa: BLE001 - a name that does not resolve is no check we know
            return None


def _checked_type(tree: ast.AST, frame, tracers: tuple[type, ...]) -> str | None:
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "isinstance"
                and len(node.args) == 2):
            continue
        for kind in (node.args[1].elts if isinstance(node.args[1], ast.Tuple) else [node.args[1]]):
            cls = _resolve(kind, frame)
            if inspect.isclass(cls) and tracers and issubclass(cls, tracers):
                return f"{cls.__module__}.{cls.__qualname__}"
    return None


def _tracer_types() -> tuple[type, ...]:
    """The classes of values that exist only while tracing, of the frameworks loaded."""
    out = []
    core = sys.modules.get("jax._src.core")
    if core is not None:
        out.append(core.Tracer)
    ops = sys.modules.get("tensorflow.python.framework.ops")
    if ops is not None and hasattr(ops, "SymbolicTensor"):
        out.append(ops.SymbolicTensor)
    return tuple(out)


def _resolve(node: ast.expr, frame):
    """A dotted name (`core.Tracer`) looked up in the frame: attributes of modules and classes only,
    so nothing of the user's runs."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    value = frame.f_locals.get(node.id, frame.f_globals.get(node.id))
    for attr in reversed(parts):
        if not (inspect.ismodule(value) or inspect.isclass(value)):
            return None
        value = inspect.getattr_static(value, attr, None) if inspect.isclass(value) else getattr(value, attr, None)
    return value
