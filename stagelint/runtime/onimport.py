"""Run a function right after a module is imported for the first time, before the import statement
that asked for it gets the module.

The recorder patches a framework the test session did not import at start (`frameworks.py`) when
the tests import it: `jax.jit` must be replaced before a test module's `from jax import jit` binds
the original. A finder first on `sys.meta_path` lets the other finders find the module, and runs
the function when the module's code has run.
"""

from __future__ import annotations

import sys
from collections.abc import Callable


class _After:
    """`sys.meta_path` entry: for each watched module name, the functions to call once it is loaded."""

    def __init__(self):
        self.watched: dict[str, list[Callable]] = {}

    def find_spec(self, name, path=None, target=None):
        if name not in self.watched:
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(name, path, target)
            if spec is not None:
                break
        else:
            return None
        loader = spec.loader
        if loader is None or not hasattr(loader, "exec_module"):
            return spec
        hooks = self.watched.pop(name)
        execute = loader.exec_module

        def exec_module(module):
            execute(module)
            for hook in hooks:
                hook(module)

        # The loader is this spec's own (a file loader per module), so the patch touches nothing else.
        loader.exec_module = exec_module
        return spec


_finder: _After | None = None


def after_import(name: str, hook: Callable) -> None:
    """Call `hook(module)` once module `name` is imported: now if it already is, else right after
    its code runs. The hook's exceptions are the hook's to handle."""
    global _finder
    if name in sys.modules:
        hook(sys.modules[name])
        return
    if _finder is None:
        _finder = _After()
        sys.meta_path.insert(0, _finder)
    _finder.watched.setdefault(name, []).append(hook)
