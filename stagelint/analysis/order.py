"""Program order at module level: is a Function traced before a rebinding and called after it?

The same holds for an attribute of an object (`m.scale = 2.0` at module level, or a method that
sets `self.scale` called there): the calls of the object's methods (`m(x)`, `m.configure()`) are
module-level calls of the class's methods.

Module-level code runs top to bottom (a notebook converted to a module is one such run). A
rebinding of a global can make a trace stale only if some call traces the staged code that reads
it before the rebinding and some call runs that code again after it: a rebinding made before the
Function is defined or first called, or after its last call, changes nothing any trace sees.
Calls count when they are made at module level and reach the reading function through the
project's call graph (`train()` at module level, which calls the Function that reads the global).
"""

from __future__ import annotations


def _reach(project, start) -> set:
    """What a call of `start` runs: itself and every project function it reaches."""
    memo = project.__dict__.setdefault("_order_reach", {})
    found = memo.get(start)
    if found is None:
        found = {}
        project.reach_from(start, found, only_unguarded=False)
        found = memo[start] = set(found)
    return found


def _reaches(project, start, goal) -> bool:
    return goal in _reach(project, start)


def lives_in_one_run(project, enclosing) -> bool:
    """A Function made by a staging decorator on a def nested in `enclosing` and only called
    there (`RawCapture._made_per_run`) is a new function object on every run of `enclosing`, and
    JAX and TensorFlow keep traces per function object (`frameworks.JAX_TRACE_CACHE`: a nested def
    made anew traces anew), so the calls that reuse one of its traces all fall within one run of
    `enclosing`: true when nothing traces `enclosing` itself (then its runs are Python calls, and a
    trace of the outer function would hold what the nested one read)."""
    return enclosing not in project.reached


def may_run_during(project, enclosing, writer) -> bool:
    """`writer` may run while `enclosing` runs: it is `enclosing` or a project function that
    `enclosing` reaches through the calls the project shows. Code outside those (another
    function's body, module-level statements, the enclosing function's own enclosing function)
    does not run until the run of `enclosing` returns."""
    return _reaches(project, enclosing, writer)


def _module_calls(project, module: str) -> list[tuple[int, tuple]]:
    """(line, resolved callee) of the module-level calls of project functions in `module`."""
    memo = project.__dict__.setdefault("_order_calls", {})
    if module not in memo:
        calls = []
        for key, sites in project.call_sites.items():
            for m, site in sites:
                if m == module and site.caller is None:
                    calls.append((site.span.line, key))
        facts = project.modules.get(module)
        concrete = getattr(facts, "concrete_bindings", None) or {}
        for site in facts.call_sites if concrete else ():
            # `traced = f.get_concrete_function(x)` ... `traced(x)`: runs f's trace
            if site.caller is None and site.target[0] == "name" and site.target[1] in concrete:
                key = project.resolve(module, concrete[site.target[1]])
                if key is not None:
                    calls.append((site.span.line, key))
        for line, cls, method in getattr(facts, "object_calls", ()):
            # `m.configure(2.0)`, `m(x)` on an object of a project class: that method runs here
            key = project.method_of(cls, method)
            if key is not None:
                calls.append((line, key))
        memo[module] = sorted(calls)
    return memo[module]


def _def_line(project, module: str, key) -> int | None:
    """The line of the module-level `def` that makes `key`'s function object, when `key` is a
    module-level function of `module` (a redefinition keeps its own key, `step@351`)."""
    if key[0] != module or "." in key[1] or key[1].startswith("<"):
        return None
    f = project.function(key)
    return f.span.line if f is not None else None


def call_lines(project, module: str, readers) -> list[int]:
    """Lines of the module-level calls that run (and so may trace) one of `readers`. A call above
    a reader's module-level `def` cannot run it: Python makes the function object when the `def`
    statement runs, so such a call runs an earlier definition of the name (its own key), or none."""
    return [line for line, _ in _reader_module_calls(project, module, readers)]


def _reader_module_calls(project, module: str, readers) -> list[tuple[int, tuple]]:
    """(line, callee) of the module-level calls that run one of `readers` (`call_lines`)."""
    readers = [tuple(r) for r in readers]
    calls = []
    for line, key in _module_calls(project, module):
        for r in readers:
            start = _def_line(project, module, r)
            if (key == r or _reaches(project, key, r)) and (start is None or line > start):
                calls.append((line, key))
                break
    return calls


def _defined_in(project, module: str, readers, loop) -> list[int] | None:
    """The lines of the readers' `def`s when every reader is a Function defined (`@tf.function
    def`, `@jax.jit def`) in the module-level loop `loop`, or a def nested in one's body (the
    Function's line): each iteration makes a new Function
    object there, and a Function object keeps its own traces (a new one traces afresh, with the
    values of that moment: tests/runtime/test_tf_fresh_facts.py). None otherwise."""
    start, end = loop
    lines = []
    for r in readers:
        # a def nested in a Function's body (`true_fun` of a `lax.cond` in `step`) is made anew
        # each time that body runs, at each trace of the Function: it is traced with the
        # Function's traces only, so the Function's `def` decides
        r = (r[0], r[1].split(".<locals>.", 1)[0])
        line = _def_line(project, module, r)
        if line is None or not (start <= line <= end) or project.entries.get(r) != "decorator":
            return None
        lines.append(line)
    return lines


def _functions_run(project, key, readers) -> frozenset | None:
    """The Function objects a call of `key` runs that trace one of `readers`: the entry points
    the code stages into an object it calls (`@tf.function def`, `g = tf.function(f)`, `jax.jit`),
    each its own object (a redefinition keeps its own key, `step@351`). Empty when the call
    reaches the readers through none: it runs them as Python, reading the binding of the moment,
    and traces nothing. None when one of them is traced by the framework itself (a Keras method,
    a `tf.data` function): which object keeps that trace is not known here."""
    memo = project.__dict__.setdefault("_order_runs", {})
    readers = tuple(sorted(tuple(r) for r in readers))
    if (key, readers) not in memo:
        found: set | None = set()
        for entry in sorted(_reach(project, key)):
            kind = project.entries.get(entry)
            if kind is None or not any(entry == r or _reaches(project, entry, r) for r in readers):
                continue
            if not project.is_function_object(entry):
                found = None
                break
            found.add(entry)
        memo[(key, readers)] = None if found is None else frozenset(found)
    return memo[(key, readers)]


def _maps_anew(project, key, readers) -> bool:
    """A call of `key` traces the readers only through `tf.data` functions whose every (non-guessed)
    transformation call it runs itself (`make_dataset()` calling `ds.map(format_dataset)`): TF 2.21
    traces a map function once per `map()` call, the same function object too
    (`repetition.dataset_traces`; tests/runtime/test_per_element_call_facts.py), with the globals
    bound at that moment. Such a call makes a new trace each time it runs, reading the binding of
    the moment; only the dataset it returns keeps that trace."""
    from stagelint.analysis.repetition import dataset_traces

    readers = [tuple(r) for r in readers]
    ran = _reach(project, key)
    found = False
    for entry in ran:
        kind = project.entries.get(entry)
        if kind is None or not any(entry == r or _reaches(project, entry, r) for r in readers):
            continue
        if kind != "dataset":
            return False
        sites = dataset_traces(project, entry)
        if not sites or any(s.caller is None or (m, s.caller) not in ran for m, s in sites):
            return False
        found = True
    return found


def _traced_calls(project, module: str, readers) -> list[tuple[int, frozenset | None]]:
    """(line, the Function objects it runs: `_functions_run`) of the module-level calls that run
    one of `readers` (`call_lines`), without the calls that run them only as Python. A call that
    makes the `tf.data` transformations tracing them (`_maps_anew`) runs a trace of its own: its
    own object, `("<map>", line)`."""
    out = []
    for line, key in _reader_module_calls(project, module, readers):
        runs = _functions_run(project, key, readers)
        if runs is None and _maps_anew(project, key, readers):
            runs = frozenset({("<map>", line)})
        if runs is None or runs:
            out.append((line, runs))
    return out


def _call_branch(project, module: str, line: int) -> tuple:
    """The branches (`CallSite.branch`) of the module-level call on `line`."""
    for sites in project.call_sites.values():
        for m, site in sites:
            if m == module and site.caller is None and site.span.line == line:
                return site.branch
    return ()


def _exclusive(a, b) -> bool:
    """Two module-level branch paths ((line of the `if`/`try`, arm), ...) part in two arms of one
    statement: one pass over it runs only one of them."""
    for x, y in zip(a, b):
        if tuple(x) != tuple(y):
            return x[0] == y[0]
    return False


def _fresh_map(runs) -> bool:
    """`runs` (`_traced_calls`) is a call's own `tf.data` trace (`_maps_anew`)."""
    return runs is not None and len(runs) == 1 and next(iter(runs))[0] == "<map>"


def _same_function_around(before, after) -> bool:
    """One Function object is called in `before` and again in `after` ((line, objects) pairs,
    `_traced_calls`): its later call reuses the trace made before. A Function defined after the
    rebinding (`x = tf.Variable(6.0)`, then `@tf.function def add_print` reading `x`, then
    `add_print(a)`) closes over the new binding, and an older Function reading the old one that
    is never called again shows no stale value (TF 2.21: tests/runtime/test_tf_capture_order_facts.py).
    An object not known (None) may be any of them."""
    for _, a in before:
        for _, b in after:
            if a is None or b is None or a & b:
                return True
    return False


def stale_between(project, module: str, readers, rebinding: int, loop=None, branch=()) -> bool:
    """A rebinding on line `rebinding` can be seen stale by `readers`: one Function object that
    traces them is called (and traced) before the rebinding, and called again after it. In a
    module-level loop (`loop` = (first line, last line)) a call inside the loop runs both before
    and after the rebinding of the next iteration, except a call that makes the `tf.data`
    transformations tracing them anew (`_maps_anew`) below the rebinding: it traces with the new
    binding. One above it, on a path of the same iteration (not in the other branch of an
    `if`/`try` the rebinding is in: `branch`, `CallSite.branch`), builds a dataset that keeps the
    old binding after it."""
    calls = _traced_calls(project, module, readers)
    lines = [line for line, _ in calls]
    if loop is not None:
        start, end = loop
        made = _defined_in(project, module, [tuple(r) for r in readers], loop)
        if made is not None:
            # one iteration's Function is traced before the rebinding only when it is defined and
            # called above it, and reused only by a call below it in that same iteration (or after
            # the loop); the next iteration calls a new Function
            return any(max(made) < line < rebinding for line in lines) and any(line > rebinding for line in lines)
        # a call below the rebinding in the loop that maps anew traces with the new binding; one
        # above it builds a dataset the rest of the iteration may iterate after the rebinding
        if any(start <= line <= end and not (_fresh_map(runs) and (
                line > rebinding or _exclusive(_call_branch(project, module, line), branch))) for line, runs in calls):
            return True
        return _same_function_around([c for c in calls if c[0] < start], [c for c in calls if c[0] > end])
    return _same_function_around([c for c in calls if c[0] < rebinding], [c for c in calls if c[0] > rebinding])


def one_value_each_call(project, module: str, readers, loop, rebinds, fixed) -> bool:
    """Every call of the readers' Functions sees one value of the global: each call is in the
    module-level loop `loop` ((first line, last line)) below a rebinding at the top level of its
    body that binds the same object every time (`fixed`: line -> the value's code,
    `StaleGlobal._ordered`), the nearest such rebinding above every call of one Function binds the
    same value, every rebinding of the global in the loop (`rebinds`: (line, loop) pairs) is such a
    rebinding, and no call runs outside the loop. A Function is then always called with the value
    it traced with, and a per-Function switch (`optimizer = optimizer_conv; step_conv(x)`,
    `optimizer = optimizer_fc; step_fc(x)`) leaves nothing stale (TF 2.21:
    tests/runtime/test_tf_switch_facts.py)."""
    if not fixed:
        return False
    start, end = loop
    here = sorted(line for line, span in rebinds if span and tuple(span) == (start, end))
    if not here or any(line not in fixed for line in here):
        return False
    seen: dict = {}
    for line, runs in _traced_calls(project, module, readers):
        if runs is None or not start <= line <= end:
            return False
        above = [r for r in here if r < line]
        if not above:
            return False  # the first iteration's call sees the value from before the loop
        value = fixed[above[-1]]
        for function in runs:
            if seen.setdefault(function, value) != value:
                return False
    return bool(seen)


def shows_order(project, module: str, readers, writer=None) -> bool:
    """The module's own code calls the readers (and the writer, when given) at module level:
    the order of the calls, not a guess, decides whether a write is stale."""
    if not call_lines(project, module, readers):
        return False
    return writer is None or bool(call_lines(project, module, [writer]))


def writes_between(project, module: str, readers, writer, write_lines=(), module_order: bool = True) -> bool | None:
    """A function that rebinds or mutates a global the `readers` read runs between two calls of
    them: True when the readers call it (every call writes), when one of its own writes (on
    `write_lines`) runs after one of its calls of a reader and before another (in the loop around
    the call, or between two calls: `first = f(x); SCALE = 5.0; f(x)`), or
    when module-level calls show it between two of theirs. A module that never calls the readers
    at module level (a library) cannot show the order: its functions may run at any time, or only
    at import (a registry its decorators fill), so the order is unknown (None). Without
    `module_order` (the writer binds the Function's name anew before its writes: later calls run
    a new object), the writer's run between two calls of the module counts for nothing: False."""
    if _called_from_readers(project, readers, writer) or _calls_readers_in_loop(project, readers, writer, write_lines) \
            or calls_readers_around(project, readers, writer, write_lines):
        return True
    if not module_order:
        return False
    lines = call_lines(project, module, readers)
    if not lines:
        return None
    writes = call_lines(project, module, [writer])
    return any(lines[0] < w < lines[-1] for w in writes)


def _reader_calls(project, readers, writer) -> list:
    """The call sites in the writer's own body of a function that runs (and so may trace) one of
    the `readers`."""
    writer = tuple(writer)
    readers = [tuple(r) for r in readers]
    return [site for callee, sites in project.call_sites.items()
            if any(callee == r or _reaches(project, callee, r) for r in readers)
            for module, site in sites if site.caller is not None and (module, site.caller) == writer]


def _calls_readers_in_loop(project, readers, writer, write_lines) -> bool:
    """The writer calls a reader in a loop that holds one of its writes (`for t in temps:
    temperature = t; step(x)`): the second iteration's call reuses the trace the first made
    before the write. A write is between two calls of one Function only when it can run after
    one and before another: in the loop around a call (from its header to the end of its body,
    `facts.CallSite.loop`), or between two calls in straight-line order (`calls_readers_around`).
    A write after the loop (`out = [step(x) for x in xs]; temperature = 2.0`) or before it
    precedes or follows every call the loop makes."""
    return any(site.loop.line <= w <= site.loop.end_line
               for site in _reader_calls(project, readers, writer) if site.loop is not None
               for w in write_lines)


def calls_readers_in_loops(project, readers, writer, loops) -> bool:
    """The writer calls a reader inside one of `loops`, line spans of its own loops that hold a
    write (`for t in temps: temperature = t; step(x)`): every iteration after the first calls the
    Function traced before that iteration's write, so the rebinding is seen stale, a fact of the
    order alone (tests/data/jax_table r05, r06)."""
    calls = [site.span.line for site in _reader_calls(project, readers, writer)] \
        + _reader_method_lines(project, readers, writer)
    return any(start <= line <= end for line in calls for start, end in loops)


def reader_call_lines(project, readers, writer) -> list[int]:
    """The lines of the writer's own calls that run one of the `readers` (`_reader_calls`, and
    its calls of a Function method of an object it holds), in order."""
    return sorted([site.span.line for site in _reader_calls(project, readers, writer)]
                  + _reader_method_lines(project, readers, writer))


def calls_readers_around(project, readers, writer, write_lines) -> bool:
    """The writer calls a reader on a line above one of its writes and again below it: the second
    call reuses the first one's trace. Its calls are those of functions (`step(x)`) and of the
    Function methods of objects it holds (`model.train_step(x)`)."""
    if not write_lines:
        return False
    calls = sorted([site.span.line for site in _reader_calls(project, readers, writer)]
                   + _reader_method_lines(project, readers, writer))
    return bool(calls) and any(calls[0] < w < calls[-1] for w in write_lines)


def _reader_method_lines(project, readers, writer) -> list[int]:
    """Lines of the writer's own calls of a method, on an object of a project class, that calls the
    Function tracing one of the `readers` (`ModuleFacts.method_calls`, the object's class known
    from its binding: `model = Model()` ... `model.train_step(x)`)."""
    module, qualname = writer
    facts = project.modules.get(module)
    return [span.line for caller, cls, method, _, _, _, span in getattr(facts, "method_calls", ())
            if caller == qualname and any(_runs(project, cls, method, r, module) for r in readers)]


def _called_from_readers(project, readers, writer) -> bool:
    """The writer runs inside the readers' own calls (a helper of theirs): every call writes."""
    return any(_reaches(project, tuple(r), tuple(writer)) for r in readers)


def set_before_first_call(project, reader, writer, family) -> bool:
    """Every call of the method `writer` (a method of a class of `family`) that the project
    shows is made on an object its caller has just constructed, before any other use of it
    (`est = Estimator(); est.prepare(data)`, then `est.train_step()`), and the class's
    constructor does not run `reader`: a `tf.function` keyed on the object traces at the
    object's first call, so no trace precedes the write. Calls through the call graph
    (`self.prepare(...)` in another method) are other calls, made at any time; a writer no code
    calls (a library's setter) shows nothing."""
    writer = tuple(writer)
    if project.callers(writer):
        return False
    name = writer[1].rsplit(".", 1)[-1]
    shown = False
    for facts in project.modules.values():
        for _, cls, method, fresh, *_ in getattr(facts, "method_calls", ()):
            if method != name or project.resolved_class_name(cls) not in family:
                continue
            if not fresh:
                return False
            init = project.method_of(cls, "__init__")
            if init is not None and (init == tuple(reader) or _reaches(project, init, tuple(reader))):
                return False  # the constructor itself calls (traces) the reader first
            shown = True
    return shown


def _runs(project, cls: str, method: str, reader, module: str | None = None) -> bool:
    """Calling `method` on an object of `cls` calls the Function object that traces `reader`: its
    entry point is a `tf.function` / `jax.jit` (decorated or wrapped), and the method is it or
    reaches it. A Keras layer's `call` is not one: `layer(x)` outside a Function runs eagerly
    (tests/runtime/test_tf_fresh_facts.py); Keras's own Function of `fit` is asked apart
    (`_keras_kept`)."""
    entry = project.reached.get(tuple(reader))
    if entry is None or not project.is_function_object(entry):
        return False
    if method.startswith("()"):  # `apply(model, x)`: the object handed to a function
        key = project.resolve(module, tuple(method[2:].split("|"))) if module else None
    else:
        key = project.method_of(cls, method)
    return key is not None and (key == entry or _reaches(project, key, entry))


def _keras_kept(project, cls: str, reader, before, after) -> bool:
    """`model.fit(...)` before and after the change on a model whose Keras-traced method reaches
    `reader`, no `compile` after it: the second `fit` reuses the Function the first made
    (`frameworks.tensorflow.KERAS_KEPT_FUNCTION_METHODS`)."""
    from stagelint.frameworks.tensorflow import KERAS_KEPT_FUNCTION_METHODS

    entry = project.reached.get(tuple(reader))
    if entry is None or project.entries.get(entry) != "keras" or "compile" in after:
        return False
    f = project.function(entry)
    if f is None or not f.class_qualname or project.resolved_class_name(cls) not in project.class_family(f.class_qualname):
        return False
    return any(m in KERAS_KEPT_FUNCTION_METHODS and project.method_of(cls, m) is None for m in set(before) & set(after))


def between_calls(project, reader, cls: str, before, after, module: str | None = None) -> bool:
    """A change made on an object of `cls` after a call of it that runs the Function tracing
    `reader` and before another call of that Function (`before`/`after`: the methods called on
    the same object, `ModuleFacts.method_calls`, `AttrWrite.around`)."""
    return (any(_runs(project, cls, m, reader, module) for m in before)
            and any(_runs(project, cls, m, reader, module) for m in after)) \
        or _keras_kept(project, cls, reader, before, after)


def called_between_calls(project, reader, writer, family) -> tuple | None:
    """A call of the method `writer` (of a class of `family`) that the project makes on an object
    after a call of that object which runs `reader` and before another one (`m.step(x);
    m.retune(2.0); m.step(x)`, or both in a loop over the same object): the later call reuses
    the trace the first made, with the old value. (calling function, module) of the first such
    call, or None."""
    name = tuple(writer)[1].rsplit(".", 1)[-1]
    for module, facts in project.modules.items():
        for caller, cls, method, _, before, after, _ in getattr(facts, "method_calls", ()):
            if method != name or project.resolved_class_name(cls) not in family:
                continue
            if between_calls(project, reader, cls, before, after, module):
                return caller, module
    return None


def bindings_made(project, module: str, reader, ordered: dict) -> dict | None:
    """The program order of a global's rebindings, without the module-level bindings that can
    never be made: a statement that binds the global from a call of the reading Function itself
    (`net_params, loss = train_step(net_params, x)`) binds it only once that call returns, and
    the call's first trace reads the global on every path that returns (`ordered["always"]`):
    with no binding made before, the read raises NameError (plain Python, and tracing runs the
    body as Python: tests/runtime/test_jax_fresh_facts.py), so the call never returns and the
    statement binds nothing. Such statements above the first binding from anything else bind
    nothing; that binding is the global's first. None when every binding is such a statement:
    the global is never bound, no trace ever reads a value. `ordered` itself when nothing is
    dropped (a function that writes the global may run first: `ordered["writers"]`)."""
    if not ordered.get("always") or ordered["writers"] or not ordered.get("bindings"):
        return ordered
    direct = [line for line, key in _module_calls(project, module) if key == tuple(reader)]
    loops = {line: loop for line, loop in ordered["rebinds"]}
    dropped = set()
    first = None
    for line, fed, plain in ordered["bindings"]:
        if fed and any(fed[0] <= c <= fed[1] for c in direct):
            dropped.add(line)
            continue
        first = (line, plain)
        break
    if first is None:
        return None
    if not dropped:
        return ordered
    if any(loops.get(line) and loops[line][0] <= first[0] <= loops[line][1] for line in dropped):
        return ordered  # a loop runs the first binding, then the call again: the next turn's call may return
    rebinds = [[line, loop] for line, loop in ordered["rebinds"]
               if line not in dropped and not (line == first[0] and first[1])]
    return {**ordered, "rebinds": rebinds}


def remade_after(project, reader, writer, write_line: int) -> bool:
    """The writer, below its write on `write_line`, binds an attribute of `self` to a new JAX
    wrapper whose calls trace `reader` (JAXtronomy's `update_data`: `self.data = image_data`, then
    `self.log_likelihood = jit(self._log_likelihood)`): the calls after it go to the new wrapper,
    and a new wrapper of a bound method traces on its first call, the old one's traces dying with
    it, so it reads the value just written (jax 0.10.2: tests/runtime/test_jax_setup_order_facts.py;
    the trace cache, `frameworks.JAX_TRACE_CACHE`). Read from the module's JAX staging records and
    attribute writes, which meet on the line (a TensorFlow Function re-made so is not recorded
    with its place: not asked)."""
    module, qualname = tuple(writer)
    entry = project.reached.get(tuple(reader))
    facts = project.modules.get(module)
    if entry is None or facts is None:
        return False
    lines = {record.span.line for record in facts.jax_staged
             if record.uncalled != "never" and record.span.line > write_line and record.target[:1] == ("self",)
             and project.resolve(module, record.target) == entry}
    return bool(lines) and any(w.function == qualname and w.on_self and w.span.line in lines
                               for w in facts.attr_writes)
