"""Does the code show a TensorFlow trace reused: a second run of the same traced program?

A value frozen into a trace (STG104's Python draw, clock, UUID) differs from eager code only when
a later run reuses that trace. TensorFlow does so (tests/runtime/test_tf_capture_order_facts.py):
- a `tf.data` function is traced once, where it is given to the dataset, and run for every element;
- a `tf.function` (decorated or wrapped) keeps its traces on the Function object: a second call of
  that object with the same signature runs the first trace;
- Keras's `fit`/`evaluate`/`predict` trace a model's step once and run it once per batch.
What the code shows: the call sites of the Function (two of them, or one in a loop: a `for` or
`while` body, a comprehension's element), or of a function that calls it (whose caller loops), and
the Keras running methods called on an object of the layer's own class family. A factory's
Function (`step = make_step()`, `make_step` returning its local `@tf.function def step`) is a new
object per factory call: calls through one binding of it call one object, calls through two
bindings two objects (`_object_of`). A Function passed away or stored is called when, the code
does not show.

The other way round, under either framework: a function the code shows running once per
process (`runs_once`: called once by its module's top-level code, read nowhere else), whose
each call would make a new static object or a new program, makes it once.
"""

from __future__ import annotations

from dataclasses import dataclass

from stagelint.analysis import facts as F
from stagelint.analysis.memo import once
from stagelint.analysis.testing import is_test_module
from stagelint.frameworks.tensorflow import (KERAS_RUNNING_METHODS, TF_FUNCTION_DECORATORS,
                                             TFF_SERIALIZING_DECORATORS)

#: How far up the callers a loop or a second call is looked for (`train()` -> `epoch()` -> `step()`).
_DEPTH = 3


def reuse_shown(project, key) -> str | None:
    """Why a later run reuses the trace that runs `key` (a sentence), or None when the code does
    not show one."""
    entry = project.reached.get(tuple(key), tuple(key))
    kind = project.entries.get(entry)
    name = project.display(entry, entry[0])
    name = name if name.startswith("the lambda") else f"`{name}`"
    if kind == "dataset":
        return f"{name} is a `tf.data` function: traced once, run for every element"
    if kind in ("decorator", "wrapper"):
        return _called_again(project, entry, name, _DEPTH, set())
    if kind == "keras":
        return _trained(project, entry, name)
    return None


def _called_again(project, key, name: str, depth: int, seen: set) -> str | None:
    """`key` is called in a loop, or twice, or by a function that is (up to `depth` callers up)."""
    if key in seen:
        return None
    seen.add(key)
    sites = [(module, site) for module, site in project.call_sites.get(key, ()) if not site.concrete]
    for module, site in sites:
        if site.in_loop:
            where = "" if module == key[0] else f" of `{module}`"
            return f"{name} is called in a loop (line {site.span.line}{where})"
    objects: dict[tuple, list] = {}
    for module, site in sites:
        objects.setdefault(_object_of(module, site), []).append(site)
    again = next((calls for calls in objects.values() if len(calls) >= 2), None)
    if again is not None:
        lines = ", ".join(str(site.span.line) for site in again[:2])
        return f"{name} is called more than once (lines {lines})"
    methods = _method_call_lines(project, key)
    if methods and len(methods) + len(objects.get((), ())) >= 2:
        lines = sorted(set(methods + [site.span.line for site in objects.get((), ())]))
        if len(lines) == 1:  # the same object's call of it again, in a loop turn
            return f"{name} is called in a loop (line {lines[0]})"
        return f"{name} is called more than once (lines {lines[0]}, {lines[1]})"
    if depth <= 0:
        return None
    for module, site in sites:
        if site.caller is not None and not _made_by_caller(site):
            caller = project.display((module, site.caller), module)
            why = _called_again(project, (module, site.caller), f"`{caller}` (which calls {name})", depth - 1, seen)
            if why is not None:
                return why
    return None


def _object_of(module: str, site) -> tuple:
    """Which Function object a call site calls: () for the one a decorated def or a wrapper
    binding makes; for what a factory returned (`step = make_step()` ... `step(x)`:
    `facts.CallSite.made_by`), the binding's place, since each call of
    the factory makes a new object with traces of its own."""
    return (module, site.made_by[0]) if site.made_by else ()


def _made_by_caller(site) -> bool:
    """The call's function binds the object it calls itself (`f = make_step(); f(x)`): another
    run of that function calls another object, so its callers' repetition reuses no trace."""
    return bool(site.made_by) and site.made_by[0].startswith("local@")


def _method_call_lines(project, key) -> list[int]:
    """Lines of `obj.method(...)` calls, on objects of a known project class, whose method is the
    Function `key` (`model.train_step(x)`, `aug(x)`: `ModuleFacts.method_calls`); a call that the
    same object's calls of that method precede or follow (a loop turn, or a second call) counts
    twice."""
    f = project.function(key)
    if f is None or not f.class_qualname:
        return []
    name = key[1].rsplit(".", 1)[-1]
    family = project.class_family(project.resolved_class_name(f.class_qualname))
    lines = []
    for facts in project.modules.values():
        for _, cls, method, _, before, after, span in getattr(facts, "method_calls", ()):
            if method == name and project.resolved_class_name(cls) in family:
                lines += [span.line] * (2 if name in before or name in after else 1)
    return lines


def _trained(project, key, name: str) -> str | None:
    """A Keras running method (`fit`, `evaluate`, `predict`) is called on an object of the class
    whose method `key` is, or of its family: Keras traces the step once and runs it per batch."""
    f = project.function(key)
    if f is None or not f.class_qualname:
        return None
    family = project.class_family(project.resolved_class_name(f.class_qualname))
    for facts in project.modules.values():
        for method, cls, _, _ in getattr(facts, "keras_drives", ()):
            if method in KERAS_RUNNING_METHODS and cls and project.resolved_class_name(cls) in family:
                return f"{name} runs under Keras `{method}`, which traces it once and runs it for every batch"
    return None


def serialized(project, key) -> str | None:
    """The decorator, when the project function `key` is a TensorFlow Federated computation
    (`frameworks.TFF_SERIALIZING_DECORATORS`: `@tff.tensorflow.computation(...)`): its body runs
    once per parameter type, when the computation is built, and a call runs what was serialized,
    so no call, in a loop or not, runs the body again. None otherwise."""
    f = project.function(tuple(key))
    return next((d for d in f.decorators if d in TFF_SERIALIZING_DECORATORS), None) if f is not None else None


def caller_in_loop(project, key, depth: int = _DEPTH) -> list | None:
    """The chain of call sites, `[(module, site), ...]` from a call of `key` up to a call in a
    loop, when a function that calls `key` (up to `depth` callers up: `score_matrix()` loops over
    `self.eval_vector(...)`, which calls `self.run_predictions(...)`) is called in a loop: each
    iteration runs `key` again. None when no such loop is shown. Test modules' calls are left
    out (a test runs once) and so are callers run only while traced (once per trace) or while a
    TensorFlow Federated computation is built (`serialized`: once per parameter type); of a
    function a trace reaches that is also called outside any trace, only those calls
    (`eager_calls`), and the calls a `tf.data` function makes, followed up to the transformations
    that trace it, once per call (`dataset_traces`). A function handed to a per-element map is
    called in a loop (`mapped_calls`)."""
    def up(key, depth, seen):
        if key in seen or serialized(project, key):
            return None
        seen.add(key)
        traced = []  # calls made while a `tf.data` function is traced: once per trace, followed up
        kind = project.entries.get(key)
        if kind == "dataset":
            sites = dataset_traces(project, key)
        elif kind is not None:
            return None
        elif key in project.reached:
            sites = eager_calls(project, key)
            traced = [(m, s) for m, s in project.call_sites.get(key, ()) if s.caller is not None
                      and project.entries.get((m, s.caller)) == "dataset" and not is_test_module(m) and not s.concrete]
        else:
            sites = [(m, s) for m, s in [*project.call_sites.get(key, ()), *mapped_calls(project, key)]
                     if not is_test_module(m) and not s.concrete]
        for m, s in sites:
            if s.in_loop:
                return [(m, s)]
        if depth <= 0:
            return None
        for m, s in [*sites, *traced]:
            if s.caller is not None:
                chain = up((m, s.caller), depth - 1, seen)
                if chain is not None:
                    return [(m, s), *chain]
        return None

    return up(tuple(key), depth, set())


@dataclass(frozen=True)
class MappedCall:
    """A project function handed to a per-element map (`jax.tree_util.tree_map(f, tree)`,
    `tf.nest.map_structure(f, s)`: `facts.CallEdge.per_element`), which calls it once per element
    in that call, as a loop over the elements would: a call site in a loop, for `caller_in_loop`."""

    span: F.Span
    caller: str
    api: str
    concrete: bool = False
    made_by: tuple = ()

    @property
    def loop(self) -> F.Span:
        return self.span

    @property
    def in_loop(self) -> bool:
        return True


def mapped_calls(project, key) -> list:
    """[(module, MappedCall)] for each place the project hands the function `key` to a
    per-element map."""
    def build() -> dict:
        index: dict = {}
        for m in project.modules.values():
            for q, f in m.functions.items():
                for edge in f.calls:
                    if edge.kind == "ref" and edge.per_element:
                        callee = project.resolve_call((m.module, q), edge.target, edge.span)
                        if callee is not None:
                            index.setdefault(callee, []).append((m.module, MappedCall(edge.span, q, edge.per_element)))
        return index
    return once(project, "_mapped_calls", build).get(tuple(key), [])


@dataclass(frozen=True)
class DatasetTrace:
    """A `tf.data` transformation's call that traces the project function it is given
    (`ds.map(parse)`, `ds.map(lambda x: parse(x, n))`: `facts.DatasetFunction`). Each such call
    traces the function anew, the same function object too (TF 2.21: three `ds.map(f)` calls, three
    traces; tests/runtime/test_per_element_call_facts.py), so the function's body, and what it makes
    anew, runs once per call: a call site, in a loop when the transformation's call is, for
    `caller_in_loop`. One whose receiver is a dataset only as a guess is left out."""

    span: F.Span
    caller: str | None
    loop: F.Span | None
    concrete: bool = False
    made_by: tuple = ()

    @property
    def in_loop(self) -> bool:
        return self.loop is not None


def dataset_traces(project, key) -> list:
    """[(module, DatasetTrace)] for each `tf.data` transformation call that traces `key`."""
    def build() -> dict:
        index: dict = {}
        for m in project.modules.values():
            if is_test_module(m.module):
                continue
            for df in m.dataset_functions:
                fkey = project.resolve(m.module, df.target) if not df.guess else None
                if fkey is not None:
                    index.setdefault(fkey, []).append((m.module, DatasetTrace(df.span, df.caller, df.loop)))
        return index
    return once(project, "_dataset_traces", build).get(tuple(key), [])


def eager_calls(project, key) -> list:
    """[(module, site)]: the calls of the project function `key` that run it outside any trace the
    code shows: made by module-level code or by a function no trace reaches (`project.reached`),
    a per-element map's calls (`mapped_calls`) among them; test modules' and `concrete` ones left
    out. A function some trace reaches (a helper of a jitted function) runs there once per trace,
    but each of these calls runs its Python body, and makes what it makes anew, again (interpax's
    `approx_df`, called by the jitted `interp1d` and by `Interpolator1D.__init__`)."""
    return [(m, s) for m, s in [*project.call_sites.get(tuple(key), ()), *mapped_calls(project, key)]
            if not is_test_module(m) and not s.concrete and (s.caller is None or (m, s.caller) not in project.reached)]


def _one_call(project, key):
    """The one call site of the project function `key` (`concrete` ones apart), when there is one,
    in its own module and in no loop; None otherwise."""
    sites = [(m, s) for m, s in project.call_sites.get(tuple(key), ()) if not s.concrete]
    if len(sites) != 1 or sites[0][0] != key[0] or sites[0][1].in_loop:
        return None
    return sites[0][1]


def runs_once(project, key) -> str | None:
    """Why the project function `key` runs once per process (a sentence), or None when the code
    does not show it. Shown for a module-level def, undecorated, that its own module's top-level
    code calls once, in a statement of its own outside any loop (`if __name__ == "__main__":
    test_search()`), its name read nowhere else in that module (`FunctionFacts.top_calls`), and
    that no other module imports (by name, `from m import *`, or the module whole) or calls: a
    module's top-level code runs once per process (Python keeps an imported module in
    `sys.modules`; a script's `__main__` block runs once per run). A function no code of the
    project calls has callers it does not show (a public function: users, a test runner): not
    once. What the function makes anew on each call it makes once, then; what it makes in a loop
    of its own is made per iteration still."""
    f = project.function(key)
    module, qualname = key
    if f is None or f.top_calls != 1 or "." in qualname or f.class_qualname or f.decorators:
        return None
    site = _one_call(project, key)
    if site is None or site.caller is not None:
        return None
    if _imported_elsewhere(project, key):
        return None
    name = project.display(tuple(key), module)
    return (f"`{name}` is called once, by the top-level code of its module (line {site.span.line}, in no "
            f"loop), and read nowhere else in the project: it runs once per process")


def no_reuse(project, key) -> str | None:
    """Why no call of a TensorFlow Function that runs `key` reuses a trace (a sentence), or None
    when the code does not show it. Then each call traces, and the body's Python effects run on
    every call, as eagerly (TF 2.21, tests/runtime/test_tf_no_reuse_facts.py). Shown for a
    `@tf.function` method that runs once per object (`_once_per_object`) or that every call
    retraces with a new Python int (`_retraced_every_call`), for every entry point that reaches
    `key`: a Function reached also from one that may be called again is not shown."""
    key = tuple(key)
    memo = project.__dict__.setdefault("_no_reuse", {})
    if key not in memo:
        memo[key] = None if project.staged_by_jax(key) else _no_reuse(project, key)
    return memo[key]


def _no_reuse(project, key) -> str | None:
    entries = project.entries_reaching(key)
    whys = []
    for entry in sorted(entries):
        why = (_once_per_object(project, entry) or _retraced_every_call(project, entry)) \
            if project.entries.get(entry) == "decorator" else None
        if why is None:
            return None
        whys.append(why)
    return "; ".join(whys) or None


def _once_per_object(project, key) -> str | None:
    """A `@tf.function` on a def in a class body is one Function per object: `obj.method` binds a
    copy keyed by the object, with traces of its own (TF 2.21). It runs once per object when it
    is `__init__` (construction calls it once; a subclass's `super().__init__(...)` or
    `Base.__init__(self, ...)` from its own `__init__` once more for the same object only from a
    loop), or when the project's one call of the method by its name, across the class's family
    (`self.m(...)` in a base, the class or a subclass: an override runs there too), is
    `self.m(...)` in an `__init__`, in no loop, and nothing calls it on an object, passes it or
    wraps it. A call by the name on an object of unknown class (`policy.update(...)`) may be a call
    of it: not shown then."""
    f = _method(project, key)
    sites = _sites_by_name(project, f) if f is not None else None
    if sites is None:
        return None
    for _, site in sites:
        caller = site.caller.rpartition(".")[2] if site.caller else ""
        if caller != "__init__" or site.in_loop:
            return None
    if not _init_runs_once_per_object(project):
        return None
    module, qualname = key
    cls = f.class_qualname.rpartition(".")[2]
    if f.name == "__init__":
        return (f"`{qualname}` is a `@tf.function` `__init__`: each object's construction calls its own copy once, "
                f"so no call reuses a trace")
    if len(sites) != 1 or f.name in project.names_called_on_objects():
        return None
    site_module, site = sites[0]
    where = project.display((site_module, site.caller), module)
    return (f"`{qualname}` is a `@tf.function` method, one Function per `{cls}` object, and the project calls it "
            f"once per object: only from `{where}` (line {site.span.line}, in no loop), never on an object; so no "
            f"call reuses a trace")


def _retraced_every_call(project, key) -> str | None:
    """Every call that may run the `@tf.function` method `key` passes a Python int that is new at
    each call (`update(replay_buffer, steps, ...)` with the global step: a counter set once before
    the loop and raised before the call in each iteration, `tensors.rises_every_execution`), from
    a function that runs once per process: a Python scalar is part of the Function's cache key
    (also with `reduce_retracing=True`), so each call traces anew (TF 2.21). Calls by the name
    that could not bind the method's parameters (`log.update(other)`) are not calls of it."""
    f = _method(project, key)
    if f is None or f.input_signature or f.name == "__init__":
        return None
    sites = _sites_by_name(project, f)
    if not sites:
        return None
    sites = [(m, s) for m, s in sites if _may_bind(f, s)]
    if not sites:
        return None
    counters = []
    for module, site in sites:
        if site.caller is None or site.spread:
            return None
        # (whichever parameter it fills: every Python argument is part of the key)
        counter = next((f"`{a.text}` (line {site.span.line})" for a in [*site.args, *site.kwargs.values()]
                        if a.rises), None)
        if counter is None or not runs_once_chain(project, (module, site.caller)):
            return None
        counters.append(counter)
    return (f"every call of `{key[1]}` passes a Python int new at each call, {', '.join(counters)}, from a "
            f"function that runs once: a Python argument is part of the Function's key, so each call traces anew "
            f"and no call reuses a trace")


def _method(project, key):
    """The facts of `key` when it is a def in a class body decorated with `tf.function`, bound
    per object (no static or class method), else None."""
    f = project.function(key)
    if f is None or not f.class_qualname or "<locals>" in key[1] or any(
            d.rpartition(".")[2] in ("staticmethod", "classmethod") for d in f.decorators) \
            or not TF_FUNCTION_DECORATORS.intersection(f.decorators):
        return None
    return f


def _sites_by_name(project, f) -> list | None:
    """The project's calls that may run the method `f` on an object: `self.m(...)` /
    `super().m(...)` in its class's family, and every call of an attribute so named on anything
    else (`obj.m(...)`, `Base.m(self)`, on an object of unknown class). None when an attribute so
    named is read anywhere else (`agents[0].m(...)`, `fn = obj.m`: `ModuleFacts.uncalled_attribute_reads`),
    or the method is wrapped (`tf.function(self.m)`), passed on as a value, or traced by
    `get_concrete_function` (a later call reuses that trace): called when, not shown. Only the
    modules analysed are seen: a file the screen left out that calls it on an object it was
    handed, importing nothing of the class's, is not."""
    name = f.name
    index = _name_index(project)
    if name in index["unshown"]:
        return None
    family = project.class_family(project.resolved_class_name(f.class_qualname))
    sites = []
    for module, site in index["sites"].get(name, ()):
        target = site.target
        if target[0] in ("self", "super") and project.resolved_class_name(target[1]) not in family:
            continue
        if site.concrete:
            return None
        sites.append((module, site))
    return sites


def _name_index(project) -> dict:
    """Once per project: the call sites by the last part of what they call, and the names read,
    wrapped or passed on where no call site shows it."""
    def build() -> dict:
        sites: dict[str, list] = {}
        unshown: set[str] = set()
        for m in project.modules.values():
            unshown.update(m.uncalled_attribute_reads)
            unshown.update(str(t[-1]).rpartition(".")[2] for t in m.wrapped if t)
            for g in m.functions.values():
                unshown.update(str(e.target[-1]).rpartition(".")[2] for e in g.calls if e.kind == "ref" and e.target)
            for site in m.call_sites:
                if site.target:
                    sites.setdefault(str(site.target[-1]).rpartition(".")[2], []).append((m.module, site))
        return {"sites": sites, "unshown": unshown}
    return once(project, "_call_name_index", build)


def _may_bind(f, site) -> bool:
    """The call's arguments can bind the method's parameters, with `self` bound by the attribute
    (`obj.m(a, b)`) or passed (`Base.m(obj, a, b)`): a call that can do neither (too many or too
    few positional arguments) raises TypeError before any trace, so it is no call of the method.
    Keywords are not judged (a `**kwargs` parameter takes any)."""
    if site.spread or f.varargs:
        return True
    for given in (len(site.args) + 1, len(site.args)):
        missing = [p for p in f.required_positional[given:] if p not in site.kwargs]
        if given <= len(f.params) and not missing:
            return True
    return False


def runs_once_chain(project, key, depth: int = _DEPTH) -> bool:
    """`key` runs once per process: `runs_once`, or its one call (in no loop) is made by a
    function that runs once, up to `depth` callers up (`train(...)` called by `main()`, itself
    called once by the module's `if __name__ == "__main__":`), no other module imports it and no
    code passes it on."""
    if runs_once(project, key):
        return True
    f = project.function(key)
    module, qualname = key
    if depth <= 0 or f is None or "." in qualname or f.class_qualname or f.decorators or f.top_calls \
            or key in project.entries:
        return False
    site = _one_call(project, key)
    if site is None or site.caller is None:
        return False
    caller = (module, site.caller)
    if project.callers(tuple(key)) != {caller} or _imported_elsewhere(project, key):
        return False
    return runs_once_chain(project, caller, depth - 1)


def _init_runs_once_per_object(project) -> bool:
    """No code calls `__init__` on an object again: every call by the name (`super().__init__(...)`,
    `Base.__init__(self, ...)`) is made from an `__init__` in no loop, for the object it makes."""
    def build() -> bool:
        for m in project.modules.values():
            for site in m.call_sites:
                target = site.target
                if target and str(target[-1]).rpartition(".")[2] == "__init__" and (
                        site.in_loop or not site.caller or site.caller.rpartition(".")[2] != "__init__"):
                    return False
        return True
    return once(project, "_init_once", build)


def _imported_elsewhere(project, key) -> bool:
    """Another module imports the function (by name, `from m import *` for a public name, or the
    module whole): it has callers there."""
    module, qualname = key
    for m in project.modules.values():
        if m.module == module:
            continue
        if not qualname.startswith("_") and any(project.module_named(s, m.module) == module for s in m.star_from):
            return True
        for imported in m.imports.values():
            if project.module_named(imported, m.module) == module \
                    or project.resolve(m.module, ("name", imported)) == tuple(key):
                return True
    return False
