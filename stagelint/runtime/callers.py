"""Who is calling: the user's function behind a decorator's wrapper, and the project frame that
made a call. Shared by the TensorFlow and JAX recorders (stagelint.runtime.recorder, jaxmode)."""

from __future__ import annotations

import inspect

from stagelint.runtime import linetrace

_VARARGS, _VARKEYWORDS = inspect.CO_VARARGS, inspect.CO_VARKEYWORDS


def user_function(target):
    """The user's function behind generic decorator wrappers.

    `inspect.unwrap` follows `__wrapped__`; a decorator that does not set it leaves a wrapper
    taking `(*args, **kwargs)` whose closure holds the decorated function: the wrapper is not
    where the user's code is, so findings and line counts would land on the decorator.
    """
    for _ in range(5):
        target = inspect.unwrap(target)
        code = getattr(target, "__code__", None)
        cells = getattr(target, "__closure__", None) or ()
        if code is None or not (code.co_flags & _VARARGS and code.co_flags & _VARKEYWORDS):
            return target
        inner = []
        for cell in cells:
            try:
                value = cell.cell_contents
            except ValueError:
                continue
            if inspect.isfunction(value) or inspect.ismethod(value):
                inner.append(value)
        if len(inner) != 1:
            return target
        target = inner[0]
    return target


def call_site() -> tuple[str, int] | None:
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
