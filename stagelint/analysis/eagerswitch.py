"""Programs that run their `tf.function`s eagerly: `tf.config.run_functions_eagerly(True)` set at
import, before any of their Functions can run.

The switch is one for the process and read at each call of a Function
(`frameworks.EAGER_FUNCTION_SWITCHES`): with it on, a `tf.function` runs its Python body on every
call and traces nothing. Code cannot tell which program imports it, but a module's own
module-level code runs before anything it defines can be called: a Function defined in a module
that sets the switch unconditionally at module level above the definition (directly, in a
module-level function it calls unconditionally there, or in a module it imports there, at that
module's import) runs eagerly in every program. Such a Function is no entry point
(`eager_entries`), so what only it reaches is in no trace.

Unknown, and nothing dropped, when a module of the project sets the switch any other way than
literally True (False later, a variable: `run_functions_eagerly(args.eager)`), or traces
Functions whatever the switch says (`get_concrete_function`, a SavedModel export). A switch set
only on some paths (`if args.debug:`), in a function not called at module level, or in a module
nothing imports at module level above the definition is not known to be on in every program.
Where each program of the project that imports the Function's module sets it before it can call
anything (at module level above its first call, or first thing in its driver function when its
module level calls nothing: `driver_eager_entries`), the project's own programs run the Function
eagerly, and only a program outside the project could trace it: a guess, so what only such
Functions reach goes to the preview tier. Otherwise today's findings stand. `tf.data` functions
stay traced (the switch does not reach them), and so do Keras methods, which Keras also runs on
symbolic inputs when it builds a functional model.

The Keras side of the same fact, one class at a time (`keras_dynamic`): a layer or model whose
`__init__` passes `dynamic=True` to its Keras base has its `call` never traced by Keras
(`frameworks.KERAS_DYNAMIC_KEYWORD`): Keras 2 runs it eagerly (and a model holding it runs eagerly
under `fit`), Keras 3 refuses the keyword. A `tf.function` around a call of it still traces it.

TensorFlow 1's graph mode, one program at a time (`graph_classes`): a program that turns eager
execution off (`frameworks.GRAPH_MODE_SWITCHES`) builds one default graph, and a Keras layer it
calls runs its `call` once, on graph tensors valid for every step the session runs: no Keras loop
makes a Function of it, so its code is in no trace (`staging.Project.keras_in_graph`); a
`tf.function` still traces. Known where the layer's module (or one it imports above the class)
switches at its import; shown for the project's own programs where each of them switches
(TensorFlow 1's own spelling anywhere at module level, else above its first call): then what
Keras's own loops show traced stays, and the preview tier's guess that Keras traces the rest is
not made.

Multi-backend Keras (`keras.engine.topology.Layer`, `keras.backend.tensorflow_backend`: the
standalone `keras` before 2.4) has no eager execution at all: a class built on it runs in graph
mode in every program (`multi_backend_classes`, `frameworks.MULTI_BACKEND_KERAS_MODULES`).
"""

from __future__ import annotations

import libcst as cst

from stagelint.analysis.fastmeta import walk
from stagelint.analysis.graphs import reachable
from stagelint.analysis.literals import keyword_constant
from stagelint.frameworks import (EAGER_FUNCTION_SWITCHES, EAGER_MODE_SWITCHES, GRAPH_MODE_SWITCHES, GRAPH_MODE_TF1_ONLY,
                                  GRAPH_MODE_WORDS, KERAS_DYNAMIC_KEYWORD, STANDALONE_KERAS_PREFIX, TENSORFLOW,
                                  multi_backend_keras, tf1_only)

Key = tuple[str, str]

#: What traces a Function whatever the switch says (tests/runtime/test_tf_eager_switch_facts.py):
#: a module spelling one makes the fact unknown for the project.
_TRACING_ANYWAY = (b"get_concrete_function", b"saved_model.save")


def unknown_in(source: bytes) -> bool:
    """Whether a file left unanalysed makes the fact unknown: it spells the switch or what traces
    Functions anyway (the screen analyses a file spelling the switch first: `screen.entry_pattern`)."""
    return b"functions_eagerly" in source or any(t in source for t in _TRACING_ANYWAY)


def traces_anyway(source: bytes) -> list[tuple[int, str, str]]:
    """[(0, "traces", "")] when the file spells what traces Functions whatever the switch says."""
    return [(0, "traces", "")] if any(t in source for t in _TRACING_ANYWAY) else []


def module_events(ctx, module: cst.Module, source: bytes | None) -> list[tuple[int, str, str]]:
    """The module's switch events in module order, for `facts.ModuleFacts.eager_switch`: (line, "import",
    dotted name) for each unconditional module-level import (and (line, "graph", "tf1") when it
    imports a module only TensorFlow 1.x has, `frameworks.TF1_ONLY_MODULES`: a TensorFlow 1
    program, in graph mode from its start), (line, "on", "") where module-level
    code sets the switch True unconditionally, (0, "off", "") once when the module sets it any
    other way, (0, "traces", "") when it spells what traces Functions anyway (`traces_anyway`); then,
    in a module spelling the switch, its drivers and its first module-level call (`_driver_events`);
    last, in a module spelling a graph-mode switch, its graph events (`_graph_events`)."""
    events: list[tuple[int, str, str]] = []
    spelled = source is None or b"functions_eagerly" in source
    helpers: set[str] = set()
    if spelled:
        calls = _switch_calls(ctx, module)
        if any(not on for _, on in calls):
            events.append((0, "off", ""))
        for stmt in module.body:
            if isinstance(stmt, cst.FunctionDef) and any(_is_switch_stmt(s, calls) for s in stmt.body.body):
                helpers.add(stmt.name.value)
    if source is not None:
        events += traces_anyway(source)
    for stmt in module.body:
        if not isinstance(stmt, cst.SimpleStatementLine) or not (
                spelled or isinstance(stmt.body[0], (cst.Import, cst.ImportFrom))):
            continue
        line = ctx.position(stmt).line
        for small in stmt.body:
            names: list[str] = []
            if isinstance(small, cst.Import):
                names = [alias.evaluated_name for alias in small.names]
            elif isinstance(small, cst.ImportFrom) and not isinstance(small.names, cst.ImportStar):
                dotted = _dotted(small.module) if small.module is not None else ""
                dots = "." * len(small.relative)
                base = ctx.absolute_import(dots + (dotted or "")) if dots else (dotted or "")
                names = [base] if base else []
                names += [f"{base}.{alias.evaluated_name}" if base else alias.evaluated_name for alias in small.names]
            elif spelled and _is_switch_small(small, calls, helpers):
                events.append((line, "on", ""))
            events += [(line, "import", name) for name in names]
            if any(tf1_only(name) for name in names):
                events.append((line, "graph", "tf1"))  # a TensorFlow 1 program: graph mode by default
    if spelled:  # (after the events in module order, which `eager_entries` reads up to a line)
        events += _driver_events(ctx, module, calls, helpers)
    if source is None or any(word in source for word in GRAPH_MODE_WORDS):
        events += _graph_events(ctx, module)
    return events


def _graph_events(ctx, module: cst.Module) -> list[tuple[int, str, str]]:
    """The module's switches to graph mode (`frameworks.GRAPH_MODE_SWITCHES`), after its other
    events: (line, "graph", "tf1" for a TensorFlow 1-only spelling, else "") for each one called as a
    statement of its own at module level, unconditionally; (line, "graph calls", "") once, for the
    first module-level statement making any other call (imports apart); (0, "eager", "") once when
    the module turns eager execution on anywhere (`frameworks.EAGER_MODE_SWITCHES`): not known
    where graph mode holds; else (0, "graph elsewhere", "") once when it calls a graph switch
    elsewhere than so (in a function, under an `if` or `try`), which only turns graph mode on."""
    events: list[tuple[int, str, str]] = []
    switches: dict[int, str] = {}  # id of the call -> "tf1" / ""
    eager = [False]

    def on_visit(node) -> bool:
        if isinstance(node, cst.Call):
            names = ctx.called_names(node.func)
            if names & GRAPH_MODE_SWITCHES:
                switches[id(node)] = "tf1" if names & GRAPH_MODE_TF1_ONLY else ""
            elif names & EAGER_MODE_SWITCHES:
                eager[0] = True
        return True

    walk(module, on_visit, lambda node: None)
    if not switches and not eager[0]:
        return events
    first_call, placed = None, 0
    for stmt in module.body:
        smalls = stmt.body if isinstance(stmt, cst.SimpleStatementLine) else None
        line = ctx.position(stmt).line
        if smalls is not None and all(isinstance(s, cst.Expr) and id(s.value) in switches for s in smalls):
            for s in smalls:
                events.append((line, "graph", switches[id(s.value)]))
                placed += 1
            continue
        if first_call is None and not (smalls is not None and all(isinstance(s, (cst.Import, cst.ImportFrom))
                                                                  for s in smalls)) and _makes_call(stmt):
            first_call = line
    if first_call is not None:
        events.append((first_call, "graph calls", ""))
    if eager[0]:
        events.append((0, "eager", ""))
    elif placed < len(switches):
        # a switch in a function or under an `if`/`try` turns graph mode on where it runs, never
        # eager execution: it shows no program switching, and unsettles no module that switches
        # at its own import (TF 2.21, tests/runtime/test_tf_graph_mode_facts.py)
        events.append((0, "graph elsewhere", ""))
    return events


def _switched_before(project, modules, switch: str):
    """`on_before(module, line, seen)`: whether `module` sets the switch the way `switch` names
    (`module_events`' kinds) at module level above `line`, or imports above it a module that does
    at its import (through the modules it imports in turn; `seen` the modules on the way)."""
    memo: dict[str, bool] = {}

    def on_before(module: str, line: float, seen: frozenset) -> bool:
        for at, kind, name in modules[module].eager_switch:
            if at >= line:
                continue  # (not `break`: the events the project phase adds, at line 0, follow the module's own)
            if kind == switch:
                return True
            if kind == "import":
                other = imported_module(project, name, module)
                if other is not None and other not in seen and on_at_import(other, seen | {other}):
                    return True
        return False

    def on_at_import(module: str, seen: frozenset) -> bool:
        if module not in memo:
            memo[module] = on_before(module, float("inf"), seen)
        return memo[module]

    return on_before


def graph_classes(project) -> dict[str, tuple[bool, str]]:
    """The Layer and Model classes whose Keras methods (entry points of kind "keras") run in graph
    mode (`frameworks.GRAPH_MODE_SWITCHES`), each with whether that is known for every program and
    how. Known when the class's module, or a module it imports at module level above the class,
    switches at module level, unconditionally, above the class: a module's module-level code runs
    before anything it defines can be called. Shown for the project's own programs when every
    module imported by none (a program) that imports the class's module, directly or through
    others, at module level (or the class's module itself, imported by none) switches at module
    level, unconditionally: with TensorFlow 1's own spelling anywhere there (the program runs TF
    1.x, whose default is graph mode), else above its first statement making a call; a program
    outside the project, or one importing the module inside a function, may differ. None of these
    when a module of the project turns eager execution on (a graph switch in a function or under
    an `if` only turns graph mode on: it unsettles nothing). Known, whatever the switches, for a
    class built on multi-backend Keras (`multi_backend_classes`)."""
    modules = project.modules
    out: dict[str, tuple[bool, str]] = multi_backend_classes(project)
    events = [kind for m in modules.values() for _, kind, _ in m.eager_switch]
    if "graph" not in events or "eager" in events:
        return out
    on_before = _switched_before(project, modules, "graph")

    importers: dict[str, set[str]] = {}
    for m in modules.values():
        for _, kind, name in m.eager_switch:
            if kind == "import":
                other = imported_module(project, name, m.module)
                if other is not None and other != m.module:
                    importers.setdefault(other, set()).add(m.module)

    def program_switches(module: str) -> str | None:
        graph = [(at, name) for at, kind, name in modules[module].eager_switch if kind == "graph"]
        calls = next((at for at, kind, _ in modules[module].eager_switch if kind == "graph calls"), None)
        for at, name in graph:
            if name == "tf1":
                return f"`{module}` at line {at}, a TensorFlow 1 spelling"
            if calls is None or at < calls:
                return f"`{module}` at line {at}, before any other call"
        return None

    verdicts: dict[str, str | None] = {}
    for key, kind in project.entries.items():
        f = project.function(key)
        if kind != "keras" or f is None or not f.class_qualname or f.span is None:
            continue
        cls = project.resolved_class_name(f.class_qualname)
        if out.get(cls, (False,))[0]:
            continue
        module = key[0]
        if on_before(module, f.span.line, frozenset({module})):
            out[cls] = (True, f"`{module}` switches to graph mode at its import, before the class can run")
            continue
        if module not in verdicts:
            seen = reachable(module, importers)
            hows = [program_switches(m) for m in sorted(m for m in seen if not importers.get(m))]
            verdicts[module] = "; ".join(hows) if hows and all(hows) else None
        if verdicts[module] is not None and cls not in out:
            out[cls] = (False, verdicts[module])
    return out


def multi_backend_classes(project) -> dict[str, tuple[bool, str]]:
    """The Layer and Model classes built on multi-backend Keras, each (True, how): a class
    deriving from a standalone `keras` base (`frameworks.STANDALONE_KERAS_PREFIX`) that is named
    in a module only multi-backend Keras has (`keras.engine.topology.Layer`), or whose module
    imports one at module level (`import keras.backend.tensorflow_backend as KTF`): one
    environment holds one `keras`, and that one has no eager execution and no `tf.function`
    (`frameworks.MULTI_BACKEND_KERAS_MODULES`), so Keras builds the class into the backend's
    graph once, in every program. A class on `tensorflow.keras` beside it is not one of them."""
    out: dict[str, tuple[bool, str]] = {}
    for key, kind in project.entries.items():
        f = project.function(key)
        if kind != "keras" or f is None or not f.class_qualname:
            continue
        cls = project.resolved_class_name(f.class_qualname)
        if cls in out:
            continue
        bases: list[str] = []

        def standalone(base: str) -> bool:
            if base.startswith(STANDALONE_KERAS_PREFIX) and TENSORFLOW.is_layer_base(base):
                bases.append(base)
                return True
            return False

        if not project.derives(cls, standalone):
            continue
        marker = next((b for b in bases if multi_backend_keras(b)), None)
        module = project.modules.get(key[0])
        if marker is None and module is not None:
            marker = next((name for _, k, name in module.eager_switch if k == "import" and multi_backend_keras(name)),
                          None)
        if marker is not None:
            out[cls] = (True, f"`{cls}` is built on multi-backend Keras (`{marker}`), which builds it into the "
                              "backend's graph once and has no `tf.function`")
    return out


def _driver_events(ctx, module: cst.Module, calls, helpers) -> list[tuple[int, str, str]]:
    """What says whether the module, run as a program, sets the switch before anything it runs can
    call a Function (`driver_eager_entries`): (line, "driver", name) for each module-level
    function whose body sets the switch (`_is_switch_stmt`) as a statement of its own before any
    statement that makes a call (`train()`'s first statement), and (line, "calls", "") once, for
    the first module-level statement making a call other than an import, the switch itself or a
    call of a driver (`if __name__ == "__main__": main()`; a `def` or `class` statement runs its
    decorators, defaults and bases, a class its body)."""
    events: list[tuple[int, str, str]] = []
    drivers: set[str] = set()
    for stmt in module.body:
        if isinstance(stmt, cst.FunctionDef) and isinstance(stmt.body, cst.IndentedBlock):
            for inner in stmt.body.body:
                if _is_switch_stmt(inner, calls):
                    events.append((ctx.position(stmt).line, "driver", stmt.name.value))
                    drivers.add(stmt.name.value)
                    break
                if _makes_call(inner):
                    break

    def other_call(node) -> bool:
        # a call other than a driver's (`if __name__ == "__main__": main()`: the switch comes first)
        return _makes_call(node, drivers)

    first_call = None
    for stmt in module.body:
        if isinstance(stmt, cst.SimpleStatementLine):
            if any(not isinstance(small, (cst.Import, cst.ImportFrom)) and not _is_switch_small(small, calls, helpers)
                   and other_call(small) for small in stmt.body):
                first_call = ctx.position(stmt).line
        elif isinstance(stmt, cst.FunctionDef):
            if other_call(stmt.decorators) or other_call(stmt.params):
                first_call = ctx.position(stmt).line
        elif isinstance(stmt, cst.ClassDef):
            body = stmt.body.body if isinstance(stmt.body, cst.IndentedBlock) else [stmt.body]
            if other_call(stmt.decorators) or other_call(stmt.bases) or other_call(stmt.keywords) or any(
                    other_call(inner.decorators) or other_call(inner.params) if isinstance(inner, cst.FunctionDef)
                    else other_call(inner) for inner in body):
                first_call = ctx.position(stmt).line
        elif other_call(stmt):
            first_call = ctx.position(stmt).line
        if first_call is not None:
            break
    if first_call is not None:
        events.append((first_call, "calls", ""))
    return events


def _makes_call(node, drivers=()) -> bool:
    """A call anywhere in `node` (a node, or a sequence of them), lambdas' bodies included, other
    than a call of one of `drivers` by name (whose arguments are searched still)."""
    stack = list(node) if isinstance(node, (list, tuple)) else [node]
    while stack:
        n = stack.pop()
        if isinstance(n, cst.Call):
            if not (isinstance(n.func, cst.Name) and n.func.value in drivers):
                return True
            stack.extend(n.args)
            continue
        stack.extend(n.children)
    return False


def _dotted(node) -> str:
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        return f"{_dotted(node.value)}.{node.attr.value}"
    return ""


def _switch_calls(ctx, module: cst.Module) -> list[tuple[cst.Call, bool]]:
    """Every call of the switch in the module, with whether it sets it literally True."""
    found: list[tuple[cst.Call, bool]] = []

    def on_visit(node) -> bool:
        if isinstance(node, cst.Call) and ctx.called_names(node.func) & EAGER_FUNCTION_SWITCHES:
            arg = node.args[0].value if len(node.args) == 1 else None
            found.append((node, keyword_constant(arg, "True")))
        return True

    walk(module, on_visit, lambda node: None)
    return found


def _is_switch_stmt(stmt, calls) -> bool:
    return isinstance(stmt, cst.SimpleStatementLine) and any(_is_switch_small(s, calls, ()) for s in stmt.body)


def _is_switch_small(small, calls, helpers) -> bool:
    """`tf.config.run_functions_eagerly(True)` as a statement of its own, or a call of a helper of
    the module whose body sets it so (`reset_gpu()`, `_ = setup()`)."""
    value = small.value if isinstance(small, (cst.Expr, cst.Assign)) else None
    if not isinstance(value, cst.Call):
        return False
    if any(value is call and on for call, on in calls):
        return True
    return isinstance(value.func, cst.Name) and value.func.value in helpers and not value.args


def _switch_known_on(modules, kinds) -> bool:
    """Some module sets the switch one of the ways `kinds` names, and none sets it another way or
    traces Functions whatever it says (then what runs eagerly is not known)."""
    events = [kind for m in modules.values() for _, kind, _ in m.eager_switch]
    return any(kind in kinds for kind in events) and not any(kind in ("off", "traces") for kind in events)


def eager_entries(project) -> set[Key]:
    """The entry points the project stages with `tf.function` (decorated or wrapped) that run
    eagerly in every program: defined below a module-level switch of their module or of a module
    it imports above them (see the module's docstring). Empty when the project sets the switch
    any other way, or traces Functions whatever it says."""
    modules = project.modules
    if not _switch_known_on(modules, ("on",)):
        return set()
    on_before = _switched_before(project, modules, "on")

    traced_anyway = set()
    for m in modules.values():
        for target in [*m.fresh_wrapped, *m.concrete_bindings.values()]:
            key = project.resolve(m.module, target)
            if key is not None:
                traced_anyway.add(key)
    return {key for key, f in _tf_function_entries(project, traced_anyway)
            if on_before(key[0], f.span.line, frozenset({key[0]}))}


def _tf_function_entries(project, skip):
    """The project's entry points that `tf.function` stages, decorated or wrapped (not a tf.data
    function's, not JAX's; not in `skip`), each with its function."""
    for key, kind in project.entries.items():
        f = project.function(key)
        if (kind not in ("decorator", "wrapper") or f is None or key in skip
                or key in project.dataset_bound or key in project.jax.modes or key in project.jax.entries):
            continue
        if kind == "decorator" and not set(f.decorators) & TENSORFLOW.staging_decorators:
            continue  # a project decorator wrapping `tf.function`, a configured one: not known
        yield key, f


def driver_eager_entries(project, eager: set[Key]) -> dict[Key, str]:
    """The entry points the project stages with `tf.function` (decorated or wrapped; not in
    `eager`) that every program of the project runs with the switch on, each with why: every
    module of the project that is imported by none (a program: a script, a test) and imports the
    Function's module, directly or through others, at module level sets the switch before
    anything it runs can call the Function: at module level above its first statement making a
    call (`distdeepq/main.py`: the imports, a config class, the switch, then the run), or its
    module level makes no call and a function of it sets the switch first (`basic_dqn/main.py`'s
    `train()`, called by whoever runs the experiment). The Function's module must be imported by
    the project (its use is shown). The switch is read at each call, so the Function runs eagerly
    in those programs; a program outside the project (or one importing the module inside a
    function, or calling the Function at another module's import) may call it with the switch
    off: a guess, the preview tier (`staging.Project.staging_unshown`). Empty under the same
    conditions as `eager_entries`."""
    modules = project.modules
    if not _switch_known_on(modules, ("on", "driver")):
        return {}
    imports: dict[str, set[str]] = {}  # module -> the project modules it imports at module level
    for m in modules.values():
        out = imports[m.module] = set()
        for _, kind, name in m.eager_switch:
            if kind == "import":
                other = imported_module(project, name, m.module)
                if other is not None and other != m.module:
                    out.add(other)
    importers: dict[str, set[str]] = {}
    for module, targets in imports.items():
        for target in targets:
            importers.setdefault(target, set()).add(module)

    def switch_first(module: str) -> str | None:
        """How the program `module` sets the switch before it can call anything, or None."""
        events = modules[module].eager_switch
        on = next((at for at, kind, _ in events if kind == "on"), None)
        calls = next((at for at, kind, _ in events if kind == "calls"), None)
        if on is not None and (calls is None or on < calls):
            return f"`{module}` at line {on}"
        drivers = [name for _, kind, name in events if kind == "driver"]
        if calls is None and drivers:
            return f"`{module}`'s `{drivers[0]}()` first"  # (its module level calls drivers at most)
        return None

    verdicts: dict[str, str | None] = {}
    out: dict[Key, str] = {}
    for key, f in _tf_function_entries(project, eager):
        module = key[0]
        if module not in verdicts:
            verdicts[module] = None
            if importers.get(module):
                seen = reachable(module, importers)
                programs = sorted(m for m in seen if not importers.get(m))
                hows = [switch_first(m) for m in programs]
                if programs and all(hows):
                    verdicts[module] = "; ".join(hows)
        if verdicts[module] is not None:
            out[key] = verdicts[module]
    return out


def imported_module(project, name: str, near: str) -> str | None:
    """The project module an import of the dotted `name` in `near` binds or imports from."""
    parts = name.split(".")
    for i in range(len(parts), 0, -1):
        found = project.module_named(".".join(parts[:i]), near)
        if found is not None:
            return found
    return None


def keras_dynamic(ctx, node: cst.ClassDef) -> tuple[int, bool]:
    """Where the class's own `__init__` passes `dynamic=True` to its base (`super().__init__(...,
    dynamic=True)`, for `ClassFacts.dynamic_line`), and whether the True is a default a caller may
    override (`dynamic = kwargs.pop("dynamic", True)`, a parameter `dynamic=True`, either bound
    once): (0, False) when it does not, unconditionally at the top of `__init__`."""
    init = next((s for s in node.body.body if isinstance(s, cst.FunctionDef) and s.name.value == "__init__"), None)
    if init is None or not isinstance(init.body, cst.IndentedBlock):
        return 0, False
    popped: set[str] = set()  # names bound before the call to `kwargs.pop("dynamic", True)`
    params = init.params
    kwargs = params.star_kwarg.name.value if isinstance(params.star_kwarg, cst.Param) else None
    for stmt in init.body.body:
        if not isinstance(stmt, cst.SimpleStatementLine):
            continue
        for small in stmt.body:
            if (isinstance(small, cst.Assign) and len(small.targets) == 1 and isinstance(small.targets[0].target, cst.Name)
                    and _popped_true(small.value, kwargs)):
                popped.add(small.targets[0].target.value)
            call = small.value if isinstance(small, cst.Expr) else None
            if not (isinstance(call, cst.Call) and isinstance(call.func, cst.Attribute)
                    and call.func.attr.value == "__init__" and isinstance(call.func.value, cst.Call)
                    and isinstance(call.func.value.func, cst.Name) and call.func.value.func.value == "super"):
                continue
            # the base's own `__init__` runs here: only this call counts
            arg = next((a.value for a in call.args if a.keyword is not None
                        and a.keyword.value == KERAS_DYNAMIC_KEYWORD), None)
            if keyword_constant(arg, "True"):
                return ctx.position(stmt).line, False
            if isinstance(arg, cst.Name) and _bound_once_true(init, arg.value, popped):
                return ctx.position(stmt).line, True
            return 0, False
    return 0, False


def _bound_once_true(init: cst.FunctionDef, name: str, popped: set[str]) -> bool:
    """`name` is True unless the caller says otherwise: a parameter defaulting to True the body
    never binds, or a name the body binds once, to `kwargs.pop("dynamic", True)`."""
    bound = [0]

    def on_visit(n) -> bool:
        targets = []
        if isinstance(n, (cst.AssignTarget, cst.AnnAssign, cst.AugAssign, cst.NamedExpr, cst.For)):
            targets = [n.target]
        elif isinstance(n, (cst.WithItem, cst.ExceptHandler)) and n.asname is not None:
            targets = [n.asname.name]
        elif isinstance(n, (cst.Global, cst.Nonlocal)):
            targets = [x.name for x in n.names]
        for t in targets:  # any binding spelling the name (also inside a tuple target)
            found = [False]
            walk(t, lambda m: found.__setitem__(0, found[0] or (isinstance(m, cst.Name) and m.value == name)) or True,
                 lambda m: None)
            bound[0] += found[0]
        return True

    walk(init.body, on_visit, lambda n: None)
    if name in popped:
        return bound[0] == 1
    params = init.params
    return bound[0] == 0 and any(p.name.value == name and keyword_constant(p.default, "True")
                                 for p in [*params.params, *params.kwonly_params])


def _popped_true(value, kwargs: str | None) -> bool:
    """`kwargs.pop("dynamic", True)` / `kwargs.get("dynamic", True)` of the `**kwargs` parameter."""
    return (kwargs is not None and isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute)
            and value.func.attr.value in ("pop", "get") and isinstance(value.func.value, cst.Name)
            and value.func.value.value == kwargs and len(value.args) == 2
            and all(a.keyword is None and not a.star for a in value.args)
            and isinstance(value.args[0].value, cst.SimpleString)
            and value.args[0].value.evaluated_value == KERAS_DYNAMIC_KEYWORD
            and keyword_constant(value.args[1].value, "True"))
