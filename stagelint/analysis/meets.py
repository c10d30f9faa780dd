"""Within a function: can a call meet the object a construction in the same function makes?

Python evaluates a call after its arguments and a statement after the ones before it, so a call
that is done before a construction runs, in the same run of the function, cannot be given,
return to, or otherwise touch the object that construction is about to make: it does not exist
yet. Such a call can meet it only on a later run, where the object outlives the run that made
it: stored on an attribute of an object that is still there (`self.head = Dense(...)`), which a
later run's call reaches through that owner (`self.helper()`, `f(self)`). A call in the same loop
as the construction runs after it on the next iteration; a call in a lambda, a nested def or a
generator expression runs whenever that is called or consumed. A Keras layer creates its weights
when it is first called (built), so which calls can meet it decides whether a trace that makes it
also makes its variables (STG402)."""

from __future__ import annotations

import libcst as cst

_DEFERRED = (cst.Lambda, cst.FunctionDef, cst.ClassDef, cst.GeneratorExp)
_LOOPS = (cst.For, cst.While, cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp)


def stored_on(ctx, node: cst.Call):
    """Where the function's body stores what `node` makes: ("local", name) for `x = node`,
    ("attribute", owner) for `owner.attr = node` (`owner` a plain name), None when it is used
    otherwise (passed on, put in a list, returned: where it goes is not followed). Read from the
    assignments the walk records (`FileContext.assigned_calls`), not from the body again."""
    target = ctx.assigned_calls.get(id(node))
    if isinstance(target, cst.Name):
        return ("local", target.value)
    if isinstance(target, cst.Attribute) and isinstance(target.value, cst.Name):
        return ("attribute", target.value.value)
    return None


def _gives_owner(call: cst.Call, owner: str) -> bool:
    """`call` is handed `owner` itself: as an argument (`f(self)`) or as the object whose method
    it calls (`self.helper()`, `self.head(x)`)."""
    callee = call.func
    if isinstance(callee, cst.Attribute) and isinstance(callee.value, cst.Name) and callee.value.value == owner:
        return True
    return any(isinstance(a.value, cst.Name) and a.value.value == owner for a in call.args)


def in_body(ctx, func, recorded: list) -> list:
    """The nodes of `recorded` (a function's `FunctionInfo.calls` or `.inner`, in the order the
    walk visited them) inside its body: not its parameters' defaults."""
    body = func.node.body
    return [n for n in recorded if ctx.inside(n, body)]


def containers(ctx, func) -> tuple[list, list]:
    """(the deferred nodes, the loops and comprehensions) of the function's body (`func` a
    `FunctionInfo` the walk has gone through), for `can_meet`."""
    inner = in_body(ctx, func, func.inner)
    return [n for n in inner if isinstance(n, _DEFERRED)], [n for n in inner if isinstance(n, _LOOPS)]


def can_meet(ctx, held: tuple[list, list], call: cst.Call, node: cst.CSTNode, stored=None) -> bool:
    """`call`, a call in a function whose `containers` are `held`, may run when the object `node` (a construction
    in the same function) makes exists and reach it: it is deferred (in a lambda, a nested def, a
    generator expression), it ends after the construction ends (runs after it, or takes it as an
    argument), it shares a loop of the function with it, or, done before it, it is handed the
    owner whose attribute keeps an earlier run's object (`stored`, from `stored_on`); where the
    object is kept is not known (`stored` None), a call before it counts too."""
    deferred, loops = held
    if any(ctx.inside(call, d) for d in deferred):
        return True
    c, n = ctx.raw_position(call), ctx.raw_position(node)
    if (c[2], c[3]) > (n[2], n[3]):
        return True
    if any(ctx.inside(call, lp) and ctx.inside(node, lp) for lp in loops):
        return True
    if stored is None:
        return True
    kind, name = stored
    return kind == "attribute" and _gives_owner(call, name)

