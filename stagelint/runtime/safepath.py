"""Start Python processes whose standard library cannot be shadowed by the user's working directory.

`python -m module` puts the working directory first on `sys.path`, before the standard library, so
a `random.py` or `timeit.py` of the user's project would be imported by `tempfile`, NumPy or
TensorFlow in place of the real one (and run). The `pytest` command does not do that, and
`stagelint run` must not either. Its processes start with `python -c BOOTSTRAP`, which, before
any other import, takes that first entry off and puts the directories the run needs (the working
directory, so the project's own modules import as they do under `python -m pytest`, and where
this stagelint comes from) right after the standard library, ahead of site-packages, then runs
the module as `python -m` would.
"""

from __future__ import annotations

import os
import sys

# Only `sys` (built in) is used before the path is fixed; everything else is imported after.
BOOTSTRAP = """\
import sys
if not getattr(sys.flags, "safe_path", False):
    del sys.path[0]
n = int(sys.argv[1])
extra, module, args = sys.argv[2:2 + n], sys.argv[2 + n], sys.argv[3 + n:]
prefixes = (sys.base_prefix, sys.base_exec_prefix)
std = [i for i, p in enumerate(sys.path)
       if p.startswith(prefixes) and "site-packages" not in p and "dist-packages" not in p]
at = std[-1] + 1 if std else len(sys.path)
sys.path[at:at] = [p for p in dict.fromkeys(extra) if p not in sys.path]
sys.argv = [module, *args]
import runpy
runpy.run_module(module, run_name="__main__", alter_sys=True)
"""


def stagelint_root() -> str:
    """The directory that holds this `stagelint` package (a checkout or site-packages)."""
    import stagelint

    return os.path.dirname(os.path.dirname(os.path.abspath(stagelint.__file__)))


def python_command(module: str, args: list[str], cwd: str | None = None) -> list[str]:
    """`python -m module args`, with the working directory and stagelint's own location placed
    after the standard library instead of before it."""
    extra = [os.path.abspath(cwd or os.getcwd()), stagelint_root()]
    return [sys.executable, "-c", BOOTSTRAP, str(len(extra)), *extra, module, *args]


def demote_first_entry() -> None:
    """For `python -m stagelint`: move the working directory that `-m` put first on `sys.path`
    after the standard library (it stays importable: stagelint itself may come from there)."""
    if getattr(sys.flags, "safe_path", False) or not sys.path:
        return
    first = sys.path.pop(0)
    prefixes = (sys.base_prefix, sys.base_exec_prefix)
    std = [i for i, p in enumerate(sys.path)
           if p.startswith(prefixes) and "site-packages" not in p and "dist-packages" not in p]
    at = std[-1] + 1 if std else len(sys.path)
    if first not in sys.path:
        sys.path.insert(at, first)
