"""Where traced code writes to Python state that outlives the call (shared by STG102, STG201).

A write is external when its root object is not local to the call: a global or nonlocal name,
`self`, a parameter of an entry point (the caller's object; under `jax.jit` and the other JAX
transforms a copy JAX rebuilt: `JaxView.rebuilt_params`), an imported module, or a local
name that aliases one of those (`items = self.items`). A container created inside the call
(`acc = []`) is local, and so is everything reached from it. Writes under a first-call guard
(`if self.v is None:`), inside `tf.init_scope()`, and stores of newly created variables or
Keras objects (STG402's business) are not listed.
"""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from stagelint.analysis.guards import after_early_return_guard
from stagelint.analysis.objects import root_name, root_owner
from stagelint.analysis.values import python_option_param
from stagelint.frameworks import PER_CALL_MUTATORS, REPEAT_CHANGING_OPERATORS
from stagelint.analysis.context import FileContext, FunctionInfo, block_statements, code_of, short_code, \
    simple_statements_before
from stagelint.analysis.tensors import Tensorness, tensorness, value_of
from stagelint.analysis.trivia import LEAVING, holds_statement, inner_nodes, statement_parts


@dataclass
class StoreSite:
    func: FunctionInfo
    node: cst.CSTNode
    #: what is written, for messages: "global `x`", "`self.counter`", "`external_list`"
    place: str
    #: the write itself: "`external_list.append(...)`", "`self.counter += ...`"
    action: str
    value: cst.BaseExpression | None
    #: "global", "closure", "self", "param", "import"
    root_kind: str
    tensor: Tensorness
    #: what is written: the store's target, or the container a method changes (`acc` in
    #: `acc.append(x)`)
    target: cst.BaseExpression
    #: the name `root_kind` is bound to, through local aliases: the parameter for "param"
    #: (`runner_state` in `(params, time_state) = runner_state; time_state["n"] = ...`)
    owner: str = ""

    @property
    def root(self) -> str:
        """The name the written object is reached from (`acc` in `acc.append(x)`)."""
        return root_name(self.target)


#: Libraries whose module-level functions share names with container methods (`tf.add`,
#: `keras.ops.add`, `np.append`, `operator.add`): calling them mutates nothing.
_FUNCTION_LIBRARIES = ("numpy.", "math.", "operator.", "jax.", "torch.")


def _calls_a_function(ctx: FileContext, call: cst.Call, receiver: cst.BaseExpression) -> bool:
    """`tf.math.add(a, b)`, `ops.add(x, y)`: a library function, not a container's method."""
    names = ctx.qualified_names(call.func)
    if any(ctx.framework.owns(q) or q.startswith(_FUNCTION_LIBRARIES) for q in names):
        return True
    if isinstance(receiver, cst.Name):
        # `import mylib; mylib.add(...)`: a module's function
        return any(isinstance(getattr(b, "node", None), cst.Import) for b in ctx.bindings_of(receiver))
    return False


#: What a receiver may be for a container method to mutate Python state: a container, or unknown.
NOT_CONTAINERS = frozenset({"object", "model", "layer", "optimizer", "metric", "variable", "dataset",
                             "data-iterator", "rng", "tensor", "function", "class", "int", "float",
                             "complex", "str", "bool", "none"})


def store_sites(ctx: FileContext) -> list[StoreSite]:
    if ctx._store_sites is not None:
        return ctx._store_sites
    sites = []
    fw = ctx.framework
    for func, node, kind, target, value, guarded in ctx.raw_stores:
        if guarded or after_early_return_guard(ctx, func, node):
            continue
        if kind == "method":
            rk, owner = root_owner(ctx, func, target) or (None, "")
            if rk is None:
                continue
            if rk == "import" and _calls_a_function(ctx, node, target):
                continue
            if _is_self(ctx, func, target) or value_of(ctx, target, func).what in NOT_CONTAINERS:
                continue  # `self.add(x)`, `self._buffer.clear()` on a TFDeque: a method, not a list's
            if not _fits_container_method(node):
                continue  # `strategy.extended.update(var, fn, args=...)`: not `dict.update`
            method = node.func.attr.value
            args = [a.value for a in node.args]
            t = Tensorness()
            for a in args:
                t = t | tensorness(ctx, a, func)
            sites.append(StoreSite(func, node, f"`{short_code(target)}`", f"`{short_code(target)}.{method}(...)`",
                                   None, rk, t, target, owner))
            continue
        if isinstance(target, cst.Name):
            rk = "global" if func.declared.get(target.value) == "global" else "closure"
            place = f"{'global' if rk == 'global' else 'nonlocal'} `{target.value}`"
            owner = target.value
        else:
            rk, owner = root_owner(ctx, func, target, store=True) or (None, "")
            if rk is None:
                continue
            place = f"`{short_code(target)}`"
        if value is not None and isinstance(value, cst.Call):
            if any(fw.creates_variables(q) for q in ctx.qualified_names(value.func)):
                continue  # creating state is STG402's business, storing it on self is the point
        if code_of(target) in _restored(ctx, func):
            continue  # `old = nn.CALLBACK; nn.CALLBACK = f; ...; nn.CALLBACK = old`: nothing outlives the call
        if value is not None and (_static_metadata(value) or python_option_param(ctx, func, value)):
            # shapes and dtypes (`self._output_specs = {k: t.get_shape() ...}`), or a Python option
            # of the call (`self.training = training`): the same for every call that reuses the
            # trace, and a new value retraces, which stores it again
            continue
        action = f"`del {short_code(target)}`" if value is None else f"`{short_code(target)} {_op(node)} ...`"
        t = tensorness(ctx, value, func) if value is not None else Tensorness()
        sites.append(StoreSite(func, node, place, action, value, rk, t, target, owner))
    ctx._store_sites = sites
    return sites


def _restored(ctx: FileContext, func: FunctionInfo) -> set[str]:
    """The places a function sets for the length of the call and puts back: `old = nn.CALLBACK`,
    then `nn.CALLBACK = ...`, then `nn.CALLBACK = old` (dreamerv3's layer callback set while a
    jitted function traces its layers). After the call the place holds what it held before, on
    a call that traces as on one that reuses the trace (checked with JAX 0.10.2,
    tests/runtime/test_jax_fresh_facts.py), so no later call misses a change. Once per function."""
    memo = ctx.memo.setdefault("restored", {})
    found = memo.get(id(func.node))
    if found is not None:
        return found
    saved: dict[str, tuple[str, int]] = {}  # local name -> (the place it saved, line)
    restores = []  # (place, local name, line)
    raised, lowered = set(), set()  # (place, amount) of `place += amount` / `place -= amount`
    put_back = set()  # the `-=` statements in a `finally:`, or in a generator (a context manager)
    todo = list(statement_parts(func.node.body))  # all it looks for are statements
    generator = func.facts.is_generator
    while todo:
        node = todo.pop()
        if type(node) is cst.AugAssign and isinstance(node.target, (cst.Name, cst.Attribute, cst.Subscript)):
            change = (code_of(node.target), code_of(node.value))
            if isinstance(node.operator, cst.AddAssign):
                raised.add(change)
            elif isinstance(node.operator, cst.SubtractAssign) and (generator or id(node) in put_back):
                lowered.add(change)
        if isinstance(node, cst.Try) and node.finalbody is not None:
            put_back |= {id(n) for n in _all_nodes(node.finalbody)}
        if type(node) is cst.Assign and len(node.targets) == 1:
            target, value = node.targets[0].target, node.value
            line = ctx.position(node).line
            if type(target) is cst.Name and isinstance(value, (cst.Name, cst.Attribute)):
                saved[target.value] = (code_of(value), line)
            if type(value) is cst.Name and isinstance(target, (cst.Name, cst.Attribute)):
                restores.append((code_of(target), value.value, line))
        if not isinstance(node, (cst.FunctionDef, cst.ClassDef)):
            todo.extend(statement_parts(node))
    found = {place for place, name, line in restores
             if name in saved and saved[name][0] == place and saved[name][1] < line}
    # `depth += 1` then `depth -= 1` in `finally:` (or after a context manager's `yield`): a
    # nesting counter the call puts back (tests/runtime/test_jax_certainty_facts.py)
    found |= {place for place, amount in raised & lowered}
    memo[id(func.node)] = found
    return found


def put_back_writes(ctx: FileContext, func: FunctionInfo) -> frozenset[int]:
    """The assignments (ids of `cst.Assign`) a function makes to a place it puts back in the same
    block: `saved = self.mode`, then `self.mode = ...` (the write), then `self.mode = saved`, the
    three statements of one block, no statement from the write to the restore able to leave it
    (`return`, `raise`, `break`, `continue`, `trivia.LEAVING`) and the local not rebound between.
    Every run of the block that goes on past it leaves the place as it found it, so the place does
    not change from one call to the next: no flip for STG105 (keras-model-registry's
    `DistributionTransformLayer.call`; TF 2.21, tests/runtime/test_tf_pooled_weak_rules_facts.py).
    An exception raised by a call between write and restore ends the call (and a trace) there.
    Once per function."""
    memo = ctx.memo.setdefault("put_back", {})
    found = memo.get(id(func.node))
    if found is not None:
        return found
    out: set[int] = set()
    todo = list(statement_parts(func.node.body))
    while todo:
        node = todo.pop()
        if isinstance(node, (cst.FunctionDef, cst.ClassDef)):
            continue
        if type(node) is cst.IndentedBlock:
            _put_back_in(list(node.body), out)
        todo.extend(statement_parts(node))
    found = memo[id(func.node)] = frozenset(out)
    return found


def _single_assign(statement):
    if type(statement) is cst.SimpleStatementLine and len(statement.body) == 1:
        small = statement.body[0]
        if type(small) is cst.Assign and len(small.targets) == 1:
            return small
    return None


def _put_back_in(statements: list, out: set) -> None:
    saves = {}  # local name -> (the place it saved, index)
    for j, statement in enumerate(statements):
        small = _single_assign(statement)
        if small is None:
            continue
        target, value = small.targets[0].target, small.value
        if type(target) is cst.Name and isinstance(value, (cst.Name, cst.Attribute)):
            saves[target.value] = (code_of(value), j)
            continue
        if type(value) is not cst.Name or not isinstance(target, (cst.Name, cst.Attribute)):
            continue
        place, saved = code_of(target), saves.get(value.value)
        if saved is None or saved[0] != place:
            continue
        start = saved[1] + 1
        between = statements[start:j]
        if any(_rebinds(s, value.value) for s in between):
            continue
        out.add(id(small))
        for k in range(len(between)):
            if any(holds_statement(s, LEAVING) for s in between[k:]):
                continue
            for n in _all_nodes(between[k]):
                if type(n) is cst.Assign and any(code_of(t.target) == place for t in n.targets):
                    out.add(id(n))


def _rebinds(statement, name: str) -> bool:
    return any(type(n) in (cst.Assign, cst.AugAssign, cst.AnnAssign)
               and any(type(t) is cst.Name and t.value == name
                       for t in ([x.target for x in n.targets] if type(n) is cst.Assign else [n.target]))
               for n in _all_nodes(statement))


def _all_nodes(node):
    todo = [node]
    while todo:
        n = todo.pop()
        yield n
        todo.extend(inner_nodes(n))


def read_after(ctx: FileContext, site: StoreSite) -> str:
    """What the function does after the write with what it wrote: "returned" when a `return`
    hands back the object it starts from, whole (`return params`, `return params, stats`: the
    caller gets the changed object); "read" when it reads that object whole (`update(params)`)
    or the written part or a part of it (`params["w"]` after `params["w"] = ...`), not a sibling
    (`model.dim` after `model.hits[...] += 1`); "" when neither."""
    written = _path(site.target)
    if written is None:
        return ""
    end = ctx.position(site.node)
    after = (end.end_line, end.end_column)
    found = ""
    todo = list(inner_nodes(site.func.node.body))
    while todo:
        node = todo.pop()
        if isinstance(node, cst.Return) and node.value is not None and (
                written[0] in _whole_names(node.value) or _replaced(node.value, written[0])):
            if (ctx.position(node).line, ctx.position(node).column) > after:
                return "returned"
        path = _path(node) if isinstance(node, (cst.Name, cst.Attribute, cst.Subscript)) else None
        if path is not None and path[0] == written[0]:
            at = ctx.position(node)
            n = min(len(path[1]), len(written[1]))
            if (at.line, at.column) > after and path[1][:n] == written[1][:n]:
                found = "read"
            todo.extend(s.slice for s in _subscripts(node))  # `x[params["i"]]`: the index is read too
            continue
        todo.extend(inner_nodes(node))
    return found


def _replaced(value: cst.BaseExpression, root: str) -> bool:
    """`return state.replace(data=data)`: a dataclass's (flax.struct, chex) copy of `root` with
    some fields changed; the others, a dict written into included, are the same objects."""
    values = [e.value for e in value.elements] if isinstance(value, (cst.Tuple, cst.List)) else [value]
    return any(isinstance(v, cst.Call) and isinstance(v.func, cst.Attribute) and v.func.attr.value in _REPLACERS
               and isinstance(v.func.value, cst.Name) and v.func.value.value == root for v in values)


_REPLACERS = frozenset({"replace", "_replace"})


def _whole_names(value: cst.BaseExpression) -> set[str]:
    """The names a returned value hands back whole: `params`, or the items of `(params, stats)`."""
    if isinstance(value, cst.Name):
        return {value.value}
    if isinstance(value, (cst.Tuple, cst.List)):
        return {n for e in value.elements for n in _whole_names(e.value)}
    return set()


def _path(expr) -> tuple[str, tuple] | None:
    """`model.hits[...]` -> ("model", (".hits", "[...]")); None when it does not start from a name."""
    parts = []
    while isinstance(expr, (cst.Attribute, cst.Subscript)):
        parts.append(f".{expr.attr.value}" if isinstance(expr, cst.Attribute) else f"[{short_code(expr.slice[0])}]"
                     if len(expr.slice) == 1 else "[...]")
        expr = expr.value
    return (expr.value, tuple(reversed(parts))) if isinstance(expr, cst.Name) else None


def _subscripts(expr):
    while isinstance(expr, (cst.Attribute, cst.Subscript)):
        if isinstance(expr, cst.Subscript):
            yield from expr.slice
        expr = expr.value


#: (fewest, most) positional arguments, and the keywords allowed, of the container methods.
_SIGNATURES = {
    "append": (1, 1, ()), "extend": (1, 1, ()), "insert": (2, 2, ()), "update": (0, 1, None),
    "add": (1, 1, ()), "clear": (0, 0, ()), "remove": (1, 1, ()), "discard": (1, 1, ()),
    "sort": (0, 0, ("key", "reverse")), "reverse": (0, 0, ()), "pop": (0, 2, ()), "popitem": (0, 0, ()),
    "setdefault": (1, 2, ()), "appendleft": (1, 1, ()), "extendleft": (1, 1, ()), "popleft": (0, 0, ()),
}


def _fits_container_method(call: cst.Call) -> bool:
    """The call's arguments fit the list/dict/set method of that name (`dict.update` takes at most
    one positional argument; `list.append` exactly one, and no keywords)."""
    sig = _SIGNATURES.get(call.func.attr.value)
    if sig is None:
        return True
    low, high, keywords = sig
    if any(a.star for a in call.args):
        return True
    positional = sum(1 for a in call.args if a.keyword is None)
    named = [a.keyword.value for a in call.args if a.keyword is not None]
    if keywords is not None and any(k not in keywords for k in named):
        return False
    return low <= positional <= high


#: Attributes and methods that give a tensor's static metadata (Python values fixed per trace).
_STATIC_ATTRIBUTES = frozenset({"shape", "dtype", "rank", "ndim"})
_STATIC_METHODS = frozenset({"get_shape", "as_list", "as_numpy_dtype", "num_elements", "is_fully_defined"})


def _static_metadata(expr) -> bool:
    """Made only of tensors' static shapes and dtypes: `x.shape`, `t.get_shape()`,
    `{k: t.shape.as_list() for ...}`, `tf.nest.map_structure(lambda t: t.shape, result)`."""
    if isinstance(expr, cst.Attribute):
        return expr.attr.value in _STATIC_ATTRIBUTES or _static_metadata(expr.value)
    if isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute):
        if expr.func.attr.value in _STATIC_METHODS:
            return True
        if expr.func.attr.value == "map_structure" and expr.args and isinstance(expr.args[0].value, cst.Lambda):
            return _static_metadata(expr.args[0].value.body)
        return False
    if isinstance(expr, (cst.List, cst.Tuple)):
        return bool(expr.elements) and all(_static_metadata(e.value) for e in expr.elements)
    if isinstance(expr, cst.Dict):
        return bool(expr.elements) and all(isinstance(e, cst.DictElement) and _static_metadata(e.value) for e in expr.elements)
    if isinstance(expr, (cst.ListComp, cst.SetComp, cst.GeneratorExp)):
        return _static_metadata(expr.elt)
    if isinstance(expr, cst.DictComp):
        return _static_metadata(expr.value)
    return False


def _is_self(ctx: FileContext, func: FunctionInfo, expr: cst.BaseExpression) -> bool:
    return isinstance(expr, cst.Name) and expr.value == func.self_name and ctx.binding_kind(expr, func) == "self"


def _op(node: cst.CSTNode) -> str:
    return code_of(node.operator).strip() if isinstance(node, cst.AugAssign) else "="


def store_is_external(candidate, project, key) -> bool:
    """Project-phase checks shared by STG102 and STG201: the write runs on every trace (not only
    behind a first-call guard such as `if not self.built: self.build()`), and a parameter it
    writes into belongs to an eager caller: a `tf.function`'s own argument, or a helper's
    argument that some staged caller passes from outside the call (`fill(cache, x)` with a
    global `cache`); not a Keras `call`'s, whose callers are usually traced code passing their
    own local dict."""
    if key not in project.unguarded:
        return False
    root = candidate.fields.get("_root")
    if root == "param" and rebuilt_owner(candidate, project, key):
        return False  # JAX's copy, rebuilt from the caller's leaves (STG102 asks whether it is lost)
    if root in ("param", "closure") and not project.is_function_object(key):
        # a helper's parameter, or a nested helper's enclosing variable: the object belongs to
        # the code that calls it, traced with it (RetinaNet's `_update_decoded_results` updating
        # `outputs` of the `call` it is nested in), unless a caller passes it from outside
        return root == "param" and _passed_from_outside(project, key, candidate.fields.get("_root_name", ""))
    return True


def rebuilt_owner(candidate, project, key) -> bool:
    """The store writes into JAX's copy of an argument (`JaxView.rebuilt_params`): into the
    parameter itself, or into a part of it reached through local names (`(params, time_state) =
    runner_state`, the carry of a `lax.scan` body): JAX rebuilds every container of a non-static
    argument around its leaves, so each part is a copy the trace owns too."""
    fields = candidate.fields
    param = fields.get("_owner") or fields.get("_root_name", "")
    return fields.get("_root") == "param" and param in project.jax.rebuilt_params(key)


#: How an argument's object is bound at a call site (`ArgFacts.root`) for it to outlive the call.
_OUTSIDE = frozenset({"global", "self", "import"})


def _passed_from_outside(project, key, param: str, _depth: int = 0) -> bool:
    """Some caller that is itself staged passes, for `param`, an object that outlives its call:
    a global, an attribute of its object, or its own argument when it is a `tf.function`."""
    f = project.function(key)
    if not param or f is None or param not in f.params or _depth > 4:
        return False
    for module, site in project.call_sites.get(key, ()):
        arg = project.arg_passed(site, key, param)
        caller = (module, site.caller) if site.caller is not None else None
        if arg is None or caller is None or caller not in project.reached:
            continue
        root = getattr(arg, "root", "")
        if root in _OUTSIDE:
            return True
        if root == "param" and arg.param and arg.param not in project.jax.rebuilt_params(caller):
            if project.is_function_object(caller) or _passed_from_outside(
                    project, caller, arg.param, _depth + 1):
                return True
    return False


def stored_tensor_params(project, key, _depth: int = 0) -> set[str]:
    """Parameters of the writing function that are tensors, decided only from facts of its own
    module (its body's ops, Keras `call` inputs, call sites in the module, also through a caller
    that forwards its own argument), so STG102 and STG201 share one answer for a line whichever other
    files are checked with it."""
    f = project.function(key)
    if f is None:
        return set()
    # Staged only through other modules: a run that shows this line shows them too, and their
    # call sites count.
    everywhere = not _staged_by_own_module(project, key)
    out = set(f.tensor_params)
    entry = project.entries.get(key)
    python: set[str] = set()
    for module, site in project.call_sites.get(key, ()):
        if module != key[0] and not everywhere:
            continue
        for param, arg in project.passed(site, key):
            if arg.kind == "tensor":
                out.add(param)
            elif arg.kind == "python":
                python.add(param)
            elif (arg.param or arg.params) and site.caller is not None and _depth < 4:
                # the caller's own parameter, or a value built from its parameters (`x * 2`):
                # a tensor when they are, in the caller's summary
                if {arg.param, *arg.params} & stored_tensor_params(project, (module, site.caller), _depth + 1):
                    out.add(param)
    if entry == "keras":
        out |= {p for p in f.params[1:] if p not in f.literal_default_params and p not in python}
    out |= project.jax.traced_params(key)  # a jitted function's arguments are tracers
    return out - f.python_default_params


def stored_tensor(candidate, project, key) -> bool:
    """The value a store candidate writes is a tensor (STG201, not STG102): an op's result, a
    parameter shown to be one (`stored_tensor_params`), or the result of a project function in
    another file whose summary returns one, counted only when the writing function is staged
    through other modules (a run that shows this line shows that file too)."""
    fields = candidate.fields
    if fields.get("_definite"):
        return True
    if set(fields.get("_params", ())) & stored_tensor_params(project, key):
        return True
    from stagelint.analysis.values import KERAS_RESULT, calls_return_tensor

    calls = [tuple(c) for c in fields.get("_calls", ())]
    if KERAS_RESULT in calls:
        return True  # a layer's or model's result, seen in the file itself
    if calls and not _staged_by_own_module(project, key):
        return calls_return_tensor(project, key[0], calls)
    return False


def stored_tensor_fact(candidate, project, key) -> list | None:
    """Why the stored value is a tensor (`stored_tensor`'s reason, for the finding's proof), or
    None when it is not known to be one."""
    from stagelint.analysis.proof import fact

    fields = candidate.fields
    value = fields.get("value", "the value")
    if fields.get("_definite"):
        from stagelint.analysis.dependence import op_result_fact

        return op_result_fact(project, key, value, {*fields.get("_params", ()), *fields.get("_from", ())},
                              candidate.span)
    params = sorted(set(fields.get("_params", ())) & stored_tensor_params(project, key))
    if params:
        names = ", ".join(f"`{p}`" for p in params)
        return fact(f"`{value}` comes from parameter {names}, which the project shows is a tensor (what a caller "
                    f"passes, an op it is given to, or a Keras `call`'s input)",
                    candidate.span)
    if stored_tensor(candidate, project, key):
        return fact(f"`{value}` is what a layer, a model or a project function returns: a tensor", candidate.span)
    return None


#: How the object a store writes into is bound -> why it outlives the call.
_OUTLIVES = {
    "global": "`{root}` is a module global: it outlives the call",
    "closure": "`{root}` is a variable of an enclosing function: it outlives the call",
    "self": "`{root}` is the object the method belongs to: it outlives the call",
    "param": "`{root}` is the caller's object (passed as parameter `{owner}`), not a copy the staging makes: "
             "it outlives the call",
    "import": "`{root}` is an imported module or object: it outlives the call",
}


def outlives_fact(candidate) -> list | None:
    """Why the object a store candidate writes into outlives the call, for the proof."""
    from stagelint.analysis.proof import fact

    text = _OUTLIVES.get(candidate.fields.get("_root"))
    root = candidate.fields.get("_root_name")
    owner = candidate.fields.get("_owner") or root
    return fact(text.format(root=root, owner=owner), candidate.span) if text and root else None


def changes_every_call(node: cst.CSTNode) -> bool:
    """The write changes the state again on every call that runs it: an augmented assignment
    (`calls += 1`), a store of an arithmetic result over what the place holds (`state["total"] =
    state["total"] + x`; `frameworks.REPEAT_CHANGING_OPERATORS`), or a container method that grows
    or shrinks it (`frameworks.PER_CALL_MUTATORS`: `log.append(x)`); not a store a repeated call
    makes again with the same Python value, nor one whose repetition may give the same value
    (`flags |= seen`, `x = normalise(x)`, `x = x and flag`: `recomputed_from_itself`)."""
    if isinstance(node, cst.AugAssign):
        return _operator(node.operator).removesuffix("Assign") in REPEAT_CHANGING_OPERATORS
    if isinstance(node, cst.Call):
        return isinstance(node.func, cst.Attribute) and node.func.attr.value in PER_CALL_MUTATORS
    places = _places(node)
    return bool(places) and _changed_by_arithmetic(node.value, places)


def recomputed_from_itself(node: cst.CSTNode) -> bool:
    """A store of a value computed from what the place holds that need not change it again on a
    repeated call (`flags |= seen`, `layer.call = wrap(layer.call)`, `x = x or default`)."""
    if isinstance(node, cst.AugAssign):
        return not changes_every_call(node)
    places = _places(node)
    return bool(places) and _reads_any(node.value, places) and not changes_every_call(node)


def _assigned(node) -> list:
    """The targets of an assignment with a value (`a = b = v`, `x: T = v`); [] for anything else."""
    if not isinstance(node, (cst.Assign, cst.AnnAssign)) or node.value is None:
        return []
    return [t.target for t in node.targets] if isinstance(node, cst.Assign) else [node.target]


def _places(node) -> set[str]:
    return {code_of(t) for t in _assigned(node) if isinstance(t, (cst.Attribute, cst.Subscript, cst.Name))}


def _operator(op) -> str:
    return type(op).__name__


def _changed_by_arithmetic(value, places: set[str]) -> bool:
    """`value` is an arithmetic operation (`REPEAT_CHANGING_OPERATORS`, nested ones included) one
    of whose operands is the place itself: `x + 1`, `x * 2 + y`."""
    if not isinstance(value, cst.BinaryOperation) or _operator(value.operator) not in REPEAT_CHANGING_OPERATORS:
        return False
    for side in (value.left, value.right):
        if isinstance(side, (cst.Name, cst.Attribute, cst.Subscript)) and not side.lpar and code_of(side) in places:
            return True
        if _changed_by_arithmetic(side, places):
            return True
    return False


def stored_anew_above(ctx: FileContext, func: FunctionInfo, node: cst.CSTNode, target: cst.BaseExpression) -> int | None:
    """The line of a store that runs before `node` on every path through the same call and binds
    the place `node` changes, or the object holding it (`self.variables = model.trainable_variables`
    above `self.variables.extend(extra)`), to a value that does not read that place: each call then
    changes what it stored itself, so the change is made again on every call only if that value is
    the same object every call, which the store does not show (a Keras `trainable_variables` is a
    new list per access; `self.variables = self.base` is one list). Only the simple statements
    above `node` in its own block and in each block around it count: a store under an `if` may not
    run. A call of the class's own method (`self.reset_losses()`, Monodepth2) counts as the
    store its body makes in its own top-level simple statements (before any `return`)."""
    place = code_of(target)
    for statement in simple_statements_before(ctx, func, ctx.position(node).line):
        if _stores_place(statement, place, func) or _own_method_stores(ctx, statement, place, func):
            return ctx.position(statement).line
    return None


def scratch_attribute(ctx: FileContext, site: StoreSite) -> str:
    """The attribute a store site writes (`self.weights = ...` -> "weights"; an item store or a
    container method on it, `self.outs[i] = ...`, `self.outs.append(x)`, writes it too) when the
    site's file uses it only as the same call's scratch: every `.weights` of the top-level `def`
    or `class` holding the site and of the module-level code, on any object (the other top-level
    units of the file are the project's question, `scratch_only`: what an edit there changes
    leaves this one's facts as they are, which the language server's splice relies on), lies in
    the body of the site's function itself (not in a `def` or `lambda` inside it) and is that same
    place, stored there (also as one name of an unpacking, `out, self.state = cell(x, self.state)`),
    or read (once at least: a place stored and never read is kept for a reader elsewhere) after a
    store of it that runs before the read on every path through the call
    (`simple_statements_before`; an `if` whose every branch stores it counts); or is a store of it
    in the class's `__init__` (`self.state = None`: it runs before any call, and every read of the
    call comes after the call's own store); no string spells the name (`getattr(self, "weights")`);
    and the call works on it: stores it anew from its own value (`self.w = self.w + delta`), grows
    it (`self.outs.append(x)`, `frameworks.PER_CALL_MUTATORS`) or stores into it (`self.outs[i] =
    ...`): working state of the call's computation, not an output kept for a reader after the call
    (Model Garden's `self.left_logits = ...; return self.left_logits`, which a library's user may
    read). "" otherwise. Each trace then reads only the tensor or list its own graph made, and a
    call that reuses the trace needs none of what its skipped stores would have made (RecLearn's
    capsule routing logits, a recurrent model's `self.state`, a decoder's list of outputs;
    observed with TF 2.21, tests/runtime/test_tf_store_facts.py)."""
    target, func = site.target, site.func
    while isinstance(target, cst.Subscript):
        target = target.value  # `self.outs[i] = ...`: a write into the place `self.outs`
    if not isinstance(target, cst.Attribute) or site.root_kind not in ("self", "closure", "global", "param"):
        return ""
    name, place = target.attr.value, code_of(target)
    bodies = ctx.memo.setdefault("scratch_bodies", {})
    if id(func.node) not in bodies:
        # one walk of the function's own body for all its store sites: its nodes, its assignment
        # targets, and the places it works on (stores anew from their own value, grows, stores into)
        own, stores, updated, changed, aliased = set(), set(), set(), set(), set()
        # (only attribute places are asked: a name, or an item, is never `place`, so no code is made for them)
        for node in _direct_nodes(func.node.body):
            own.add(id(node))
            if type(node) is cst.Call and isinstance(node.func, cst.Attribute) \
                    and node.func.attr.value in PER_CALL_MUTATORS and type(node.func.value) is cst.Attribute:
                changed.add(code_of(node.func.value))
            for t in _assigned(node):
                for part in _unpacked(t):
                    if type(part) is cst.Subscript:
                        stores.add(id(part))
                        if type(part.value) is cst.Attribute:
                            changed.add(code_of(part.value))
                        continue
                    if type(part) is not cst.Attribute:
                        continue
                    stores.add(id(part))
                    code = code_of(part)
                    if _reads_any(node.value, {code}):
                        updated.add(code)
                    if not isinstance(node.value, _FRESH_CONTAINERS) or part is not t:
                        aliased.add(code)
        # a container changed in place is the call's own only when each store binds a new one
        # (`self.outs = []`): `self.variables = model.trainable_variables` may be one list every call
        updated |= changed - aliased
        bodies[id(func.node)] = (own, stores, updated)
    own, stores, updated = bodies[id(func.node)]
    if place not in updated:
        return ""  # (asked first: the file-wide search below is for the few places that qualify)
    at = ctx.position(func.node).line
    uses = ctx.memo.setdefault("attribute_uses", {})
    if (name, at) not in uses:
        scanned = [s for s in getattr(ctx.module_node, "body", ())
                   if not isinstance(s, (cst.FunctionDef, cst.ClassDef))
                   or ctx.position(s).line <= at <= ctx.position(s).end_line]
        found = uses[name, at] = []
        for node in (n for statement in scanned for n in _all_nodes(statement)):
            if type(node) is cst.Attribute and node.attr.value == name:
                found.append(node)
            elif type(node) is cst.SimpleString and node.evaluated_value == name:
                found.append(node)
    initial = _init_stores(ctx, func)
    reads = 0
    for node in uses[name, at]:
        if id(node) in initial and code_of(node) == place:
            continue
        if id(node) not in own or type(node) is not cst.Attribute or code_of(node) != place:
            return ""
        if id(node) in stores:
            continue
        line = ctx.position(node).line
        if not any(_stores_place(s, place, func) or _branches_store(s, place, func)
                   for s in simple_statements_before(ctx, func, line, compounds=True)):
            return ""
        reads += 1
    return name if reads else ""


#: Displays that make a new container every time they run.
_FRESH_CONTAINERS = (cst.List, cst.Dict, cst.Set, cst.ListComp, cst.DictComp, cst.SetComp)


def _unpacked(target):
    """The targets an assignment target binds: itself, or each element of a tuple or list it
    unpacks into (`out, self.state = ...`), nested ones included."""
    if isinstance(target, (cst.Tuple, cst.List)):
        for element in target.elements:
            yield from _unpacked(element.value)
    else:
        yield target


def _init_stores(ctx: FileContext, func: FunctionInfo) -> set[int]:
    """The assignment targets (unpacked) of the `__init__` of the class statement that holds
    `func` (its own body, not a `def` or `lambda` inside it); empty when there is none."""
    memo = ctx.memo.setdefault("scratch_init_stores", {})
    if id(func.node) not in memo:
        init = _sibling_method(ctx.module_node, func.node, "__init__") if func.self_name else None
        found = memo[id(func.node)] = set()
        if init is not None and init is not func.node:
            for node in _direct_nodes(init.body):
                for t in _assigned(node):
                    found.update(id(part) for part in _unpacked(t))
    return memo[id(func.node)]


def _direct_nodes(node):
    """The nodes under `node`, not those in the body of a `def`, `lambda` or `class` inside it."""
    todo = [node]
    while todo:
        n = todo.pop()
        yield n
        if not isinstance(n, (cst.FunctionDef, cst.Lambda, cst.ClassDef)):
            todo.extend(inner_nodes(n))


def _branches_store(statement, place: str, func: FunctionInfo) -> bool:
    """An `if` with an `else` whose every branch stores `place` in its own top-level simple
    statements (`_stores_place`)."""
    if not isinstance(statement, cst.If) or statement.orelse is None:
        return False
    if not any(_stores_place(s, place, func) for s in block_statements(statement.body)):
        return False
    rest = statement.orelse
    if isinstance(rest, cst.If):
        return _branches_store(rest, place, func)
    return any(_stores_place(s, place, func) for s in block_statements(rest.body))


def scratch_only(candidate, project, key) -> bool:
    """STG102's and STG201's step for a scratch attribute (`scratch_attribute`): its file reads it
    only later in the same call, after that call stored it, and no function the project analysed
    outside the site's function, in its file or another, reads the attribute on `self` or a
    parameter (`attr_reads`; when one does, the finding stays as it is). Then each trace reads
    what its own graph made, and nothing reads the place after the call: no stale value, no
    symbolic tensor out of its graph (observed with TF 2.21, tests/runtime/test_tf_store_facts.py)."""
    name = candidate.fields.get("_scratch")
    if not name:
        return False
    for module in project.modules.values():
        for qualname, f in module.functions.items():
            if (module.module, qualname) != key and any(attr == name for _, attr in f.attr_reads):
                return False
    return True


def _own_method_stores(ctx: FileContext, statement, place: str, func: FunctionInfo) -> bool:
    """`self.m()` alone on its line, where `m` is a method of the class statement that holds
    `func`, with the same name for `self`, whose top-level simple statements above its first
    `return` store `place` (`_stores_place`)."""
    if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1 or func.self_name is None:
        return False
    call = getattr(statement.body[0], "value", None)
    if not isinstance(statement.body[0], cst.Expr) or not isinstance(call, cst.Call) \
            or not isinstance(call.func, cst.Attribute) or not isinstance(call.func.value, cst.Name) \
            or call.func.value.value != func.self_name:
        return False
    method = _sibling_method(ctx.module_node, func.node, call.func.attr.value)
    params = method.params.params if method is not None else ()
    if method is None or method is func.node or not params or params[0].name.value != func.self_name:
        return False
    for stmt in block_statements(method.body):
        if not isinstance(stmt, cst.SimpleStatementLine):
            continue
        if any(isinstance(small, (cst.Return, cst.Raise)) for small in stmt.body):
            return False
        if _stores_place(stmt, place, _NO_DECLARED):
            return True
    return False


class _NoDeclared:
    """A function that declares no name `global`/`nonlocal` (for `_stores_place`)."""
    declared: dict = {}


_NO_DECLARED = _NoDeclared()


def _sibling_method(module, method: cst.FunctionDef, name: str) -> cst.FunctionDef | None:
    """The method `name` of the class statement (module-level, or nested in one) whose body
    holds `method`."""
    classes = [s for s in getattr(module, "body", ()) if isinstance(s, cst.ClassDef)]
    while classes:
        cls = classes.pop()
        body = block_statements(cls.body)
        if any(s is method for s in body):
            return next((s for s in body if isinstance(s, cst.FunctionDef) and s.name.value == name), None)
        classes.extend(s for s in body if isinstance(s, cst.ClassDef))
    return None


def _stores_place(statement, place: str, func: FunctionInfo) -> bool:
    """A simple statement that assigns `place` or what holds it (`self.variables` for
    `self.variables.extend`) a value that does not read it. A name counts only when the function
    declares it `global`/`nonlocal`: a local name bound above (`seen = self.calls`) is an alias of
    the outliving object, not a new value of it."""
    if not isinstance(statement, cst.SimpleStatementLine):
        return False
    for small in statement.body:
        for t in _assigned(small):
            if not isinstance(t, (cst.Attribute, cst.Subscript)) and not (
                    isinstance(t, cst.Name) and t.value in func.declared):
                continue
            code = code_of(t)
            if (place == code or place.startswith((code + ".", code + "["))) and not _reads_any(small.value, {code}):
                return True
    return False


def _reads_any(value: cst.BaseExpression, places: set[str]) -> bool:
    """A name, attribute or subscript in `value` whose code is one of `places`. The code of a
    name is its value, that of an attribute ends with its last name (without brackets around
    them): generated only when it can match."""
    todo = [value]
    while todo:
        n = todo.pop()
        kind = type(n)
        if kind is cst.Name and not n.lpar:
            if n.value in places:
                return True
        elif kind is cst.Attribute and not n.rpar:
            attr = n.attr.value
            if any(p.endswith(attr) for p in places) and code_of(n) in places:
                return True
        elif kind is cst.Name or kind is cst.Attribute or kind is cst.Subscript:
            if code_of(n) in places:
                return True
        todo.extend(inner_nodes(n))
    return False


def lost_under_jax_fact(candidate, project, key) -> list:
    """The step of STG102 under JAX: a user meets the write's loss (known true), or may (a
    heuristic fact: the preview tier). Known: a store on a bound Flax Linen / Equinox module
    (frozen: it raises, row 40), into an NNX Variable under plain `jax.jit` (row 41), or a change
    made again on every eager call (`+= 1`, `append`: only the tracing call runs it), or a write
    into JAX's copy of an argument the function neither returns nor reads again (its only effect
    is on the caller's object, which never sees it). A guess: a store a repeated call would make
    again with the same Python value (`self.ready = True`, `registry[name] = fn`): it differs from
    what eager code leaves only when that value changes between calls that reuse the trace."""
    from stagelint.analysis.proof import fact
    from stagelint.analysis.nnx import writes_module_state

    fields = candidate.fields
    action = fields.get("action", "the write")
    jax = project.jax
    if fields.get("_root") == "self" and jax.linen_method(key) and fields.get("_sets_attribute"):
        return fact(f"`{fields.get('_root_name') or 'self'}` is a bound Flax Linen or Equinox module, frozen outside "
                    f"`setup`: {action} raises", candidate.span)
    if writes_module_state(candidate, project, key):
        return fact(f"{action} changes a Flax NNX module or Variable the caller holds, which plain `jax.jit` does "
                    f"not carry out of the trace: the change is lost after the call", candidate.span)
    if rebuilt_owner(candidate, project, key):
        # (`_lost_update`: neither returned nor read again, so the caller's object is what it is for)
        return fact(f"{action} writes into JAX's copy of the caller's argument and the function neither returns it "
                    f"nor reads the write again: its only effect would be on the caller's object, which does not "
                    f"see it", candidate.span)
    return lost_on_reuse_fact(candidate, "JAX")


def lost_on_reuse_fact(candidate, staging: str = "`tf.function`") -> list:
    """The step of STG102 that a call reusing the trace leaves the state other than eager code
    would: known true of a change made again on every eager call (`calls += 1`, `log.append(x)`,
    `state["n"] = state["n"] + 1`): only the tracing call runs it, so the counter reads 1 after
    three calls (observed with TF 2.21, tests/runtime/test_tf_store_facts.py, and JAX 0.10.2),
    unless the same call first stored the place anew (`stored_anew_above`): a guess then.
    A guess of a store a repeated call would make again (`self.ready = True`,
    `self.dropout.rate = self.rate` of the same `tf.Variable`, `del d[k]`, `registry[name] = fn`):
    after any number of calls it holds what eager code leaves unless the value changes between
    calls that reuse the trace, which nothing here shows."""
    from stagelint.analysis.proof import HEURISTIC, fact

    fields = candidate.fields
    action, place = fields.get("action", "the write"), fields.get("place", "the state")
    anew = fields.get("_stored_anew")
    if fields.get("_per_call") and anew:
        return fact(f"{action} changes what line {anew} of the same call stored: each call starts from that value "
                    f"again, so {place} differs from what eager code leaves only if it is the same object every call "
                    f"(a guess)", candidate.span, HEURISTIC)
    if fields.get("_recomputed"):
        return fact(f"{action} computes {place} from what it holds, which need not change it again on a repeated "
                    f"call (`x | y`, a normalising call, `x or default` give the same value back): whether calls that "
                    f"reuse the trace leave {place} behind is a guess", candidate.span, HEURISTIC)
    if fields.get("_per_call"):
        return fact(f"{action} changes {place} again on every eager call; under {staging} only the call that traces "
                    f"runs it, so calls that reuse the trace leave {place} behind", candidate.span)
    return fact(f"{action} stores what a repeated call would store again: {place} differs from what eager code "
                f"leaves only if the value changes between calls that reuse the trace (a guess)",
                candidate.span, HEURISTIC)


def _staged_by_own_module(project, key) -> bool:
    """Reachable from an entry point of its own module (what a run on that file alone sees)."""
    own = project.__dict__.setdefault("_own_module_reach", {})
    module = key[0]
    if module not in own:
        seen: dict = {}
        for entry in sorted(e for e in project.entries if e[0] == module):
            project.reach_from(entry, seen, only_unguarded=False)
        own[module] = set(seen)
    return key in own[module]
