"""Branches on a parameter left at its default. A transformation calls the function with the
arguments its caller gives, so a parameter no traced call passes holds its default, a Python value:
`if debug_mode:` with `debug_mode=False` is not taken while traced, and what only that branch calls
is not traced (observed with JAX 0.10.2: tests/runtime/test_jax_traced_values.py). A call under
such a branch (`facts.CallEdge.flag`) is known traced only when a traced call passes the parameter;
where the project shows none (the traced calls are `jax.vmap(f, ...)(a, b, c)` it does not follow,
or only eager calls pass it: a test calling `f(..., debug_mode=True)`), the step is a guess.

Code written under such a branch itself (`if verbose: print(...)`, a candidate's `_flag`), or a value
read only there (`t0 = time.perf_counter()` ... `if verbose: log(t1 - t0)`), is in no trace when the
function is no entry point (the framework's caller, out of sight, may pass anything), some traced
call of it is shown, and none passes the parameter (or spreads `*args`/`**kwargs` into the call)
anything but False, None or 0 (`untraced_branch`): no rule reports there. A Python `if` on a Python
value is decided while tracing, under `jax.jit` and `tf.function` alike (observed with JAX 0.10.2
and TensorFlow 2.21: tests/runtime/test_jax_eleventh_audit_facts.py).
"""

from __future__ import annotations

from collections import deque

from stagelint.analysis.literals import OFF_LITERALS
from stagelint.analysis.memo import once
from stagelint.analysis.proof import HEURISTIC, fact, with_steps

def _passes(project, key, param: str) -> bool:
    """Some call that traces `key` passes `param` (anything but False/None/0): a call from
    traced code, any call of a function staged itself (`@jax.jit`), or a call of a Function made
    from it (`step = jax.jit(f); step(x, debug=True)`)."""
    f = project.function(key)
    if f is None or param not in f.params:
        return True  # (nothing to go by: keep the step)
    # decorated with a staging API: its direct calls are traced calls (`jax.vmap(f)(x)` makes
    # the entry too, but then a direct call `f(x, debug=True)` runs eagerly)
    staged_itself = f.staged_by == "decorator" or bool(
        set(f.decorators) & project.framework.staging_decorators)

    def given(site, key) -> bool:
        arg = project.arg_passed(site, key, param)
        return arg is not None and not (arg.kind == "python" and arg.text in OFF_LITERALS)

    for module, site in project.call_sites.get(key, ()):
        traced_caller = project.in_traced_code(module, site)
        if (traced_caller or staged_itself) and given(site, key):
            return True
    return any(given(site, key) for _, site, _ in project.function_calls.get(key, ()))


def untraced_branch(project, key, param: str) -> bool:
    """`if <param>:` in `key` is in no trace: see the module's docstring."""
    if key is None or key in project.entries or project.function(key) is None:
        return False
    traced = [site for module, site in project.call_sites.get(key, ()) if project.in_traced_code(module, site)]
    if not traced or any(site.spread for site in traced):
        return False
    return not _passes(project, key, param)


def _flag_free(project) -> tuple[set, dict]:
    """What the entry points reach without a call under an `if <flag>:` no traced call turns on,
    and for a function such a call leads to, the first one seen: (caller, flag, line)."""
    return once(project, "_flag_free_reach", lambda: _reach_without_flags(project))


def _reach_without_flags(project) -> tuple[set, dict]:
    passes: dict = {}
    blocked: dict = {}
    seen: set = set(project.entries)
    queue = deque(sorted(project.entries))
    while queue:
        key = queue.popleft()
        for edge, callee in project.call_edges(key):
            if callee in seen:
                continue
            flag = getattr(edge, "flag", "")
            if flag:
                if (key, flag) not in passes:
                    passes[(key, flag)] = _passes(project, key, flag)
                if not passes[(key, flag)]:
                    blocked.setdefault(callee, (key, flag, edge.span.line))
                    continue
            seen.add(callee)
            queue.append(callee)
    return seen, blocked


def default_flag_fact(project, key, span) -> list | None:
    """The step "the function is traced" as a guess (`proof.HEURISTIC`) when every way the entry
    points reach it goes through a call under `if <flag>:` on a parameter no traced call passes;
    None when it is reached otherwise (or not at all)."""
    seen, blocked = _flag_free(project)
    if key not in project.reached or key in seen:
        return None
    shown = f"`{project.display(key, key[0])}`"
    if key in blocked:
        caller, flag, line = blocked[key]
        module = project.modules.get(caller[0])
        where = f"{module.path}:{line}" if module is not None else f"line {line}"
        how = f"`{project.display(caller, key[0])}` calls {shown} only under `if {flag}:` ({where}), and `{flag}` " \
              f"defaults to False, None or 0"
    else:
        how = f"{shown} is reached only through a call under `if <flag>:` on a parameter that defaults to False, None or 0"
    return fact(f"{how}; no traced call the project shows passes it, so a transformation keeps the default and the "
                f"branch may never be traced", span, HEURISTIC)


def with_flag_step(verdict, candidate, project, key):
    """A rule's `confirm` verdict with the step above added to the proof when it is a guess."""
    if not verdict or not project.staged_by_jax(key):
        return verdict
    step = default_flag_fact(project, key, candidate.span)
    if step is None:
        return verdict
    return with_steps(verdict, candidate, step)
