"""Which traces a Python value passed to a `tf.function` adds, given the other arguments of the same calls.

A Function keys its traces on every Python argument of the call together (`frameworks.TF_TRACE_KEY`:
a function by identity, a number, a string or a bool by value): one trace per distinct tuple. So a
number whose value the other Python arguments of the same calls decide adds no trace of its own:
`random_apply(color_jitter, p=0.8)`, `random_apply(color_drop, p=0.2)`, `random_apply(random_blur,
p=1.0)`, each function always with its own `p`, trace 3 times whether `p` is a Python number or a
tensor (TensorFlow 2.21, tests/runtime/test_tf_trace_key_facts.py). Only partners that stay Python
count (`frameworks.TF_TRACE_KEY_PARTNERS`: a `def` of the program, a string, a bool); a number
beside another number is not decided away, since both may become tensors. What a call shows nothing
of (a parameter or a computed value passed as the function, a name bound to a number elsewhere) is
unknown, and unknown decides nothing.
"""

from __future__ import annotations

import ast

from stagelint.analysis.bounds import literal
from stagelint.frameworks.tensorflow import TF_TRACE_KEY, TF_TRACE_KEY_PARTNERS

_UNKNOWN = object()


def decided_beside(project, key, module: str, param: str) -> list[str]:
    """The parameters of `key` (a `tf.function`'s function) whose arguments decide the Python number
    passed for `param` at every call of it in `module`: each distinct value of theirs comes with one
    value of `param`, so `param`'s values add no trace (`TF_TRACE_KEY`). Empty when not shown: a call
    passing `param` something other than a number literal or a tensor (a name, an expression), a call
    leaving it out with no literal default, a call spreading `*args`/`**kwargs`, a partner the calls do
    not all pass as a known Python value, or one of its values coming with two values of `param`."""
    f = project.function(key)
    if f is None:
        return []
    rows = []
    for m, site, _ in project.function_calls.get(key, ()):
        if m != module:
            continue  # another script or notebook is another program (STG501's literals are per module)
        if site.spread or site.star:
            return []
        passed = project.passed(site, key)
        given = [a for p, a in passed if p == param]
        if given and given[0].kind == "tensor":
            continue  # keyed by its spec, apart from every Python value of `param`
        value = literal(given[0].text) if given else literal(f.scalar_defaults.get(param, ""))
        if value is None:
            return []
        partners = {}
        for p, a in passed:
            if p != param:
                k = _python_key(project, m, a)
                if k is not _UNKNOWN:
                    partners[p] = k
        rows.append((partners, value))
    if len(rows) < 2:
        return []
    common = sorted(set.intersection(*(set(partners) for partners, _ in rows)))
    if not common:
        return []
    decided: dict[tuple, float] = {}
    for partners, value in rows:
        if decided.setdefault(tuple(partners[p] for p in common), value) != value:
            return []
    return common


def _python_key(project, module: str, arg):
    """What of `arg` keys the trace (`TF_TRACE_KEY`), when it is a partner that stays Python
    (`TF_TRACE_KEY_PARTNERS`): ("function", the def) for a module-level or imported `def` of the
    program (distinct defs are distinct objects; an alias or any other name is unknown), ("str" or
    "bool", the value) for a literal; else `_UNKNOWN`."""
    if arg.function.startswith("same:") and "@" not in arg.function:
        resolved = project.resolve(module, ("name", arg.function[len("same:"):]))
        if resolved is not None and project.function(resolved) is not None:
            return _keyed("function", resolved)
        return _UNKNOWN
    if arg.kind != "python":
        return _UNKNOWN
    try:
        value = ast.literal_eval(arg.text)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return _UNKNOWN
    kind = "bool" if isinstance(value, bool) else "str" if isinstance(value, str) else ""
    return _keyed(kind, value) if kind else _UNKNOWN


def _keyed(kind: str, what):
    if kind not in TF_TRACE_KEY_PARTNERS:
        return _UNKNOWN
    return (kind, TF_TRACE_KEY[kind], what)
