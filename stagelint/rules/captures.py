"""Python state captured at trace time (STG3xx)."""

from __future__ import annotations

import builtins

import libcst as cst
from libcst.metadata import ImportAssignment

from stagelint.analysis.literals import keyword_constant
from stagelint.analysis import facts as F
from stagelint.analysis.batch_keyed import fed_batches_of
from stagelint.analysis.rebinding import remakes_function_first
from stagelint.analysis.dependence import name_loads, same_each_iteration
from stagelint.analysis.order import (between_calls, called_between_calls, calls_readers_around, remade_after,
                                      set_before_first_call, writes_between)
from stagelint.analysis.proof import HEURISTIC, fact, with_preview
from stagelint.analysis.repetition import no_reuse
from stagelint.analysis.testing import is_test_module
from stagelint.analysis.context import (binds_only_from_call, code_of, is_setup_method, mutates_container,
                                        read_on_every_return, short_code)
from stagelint.rules.base import Rule
from stagelint.analysis.stores import NOT_CONTAINERS
from stagelint.analysis.tensors import value_of
from stagelint.analysis.varying_shapes import call_signatures
from stagelint.frameworks import KERAS_SLOT_CREATING_METHODS


_BUILTIN_NAMES = frozenset(dir(builtins))


class StaleGlobal(Rule):
    """
    ## What it does
    Flags staged code that reads a module-level or enclosing-scope Python variable which is
    rebound (`foo = 100`, `global foo; foo = ...`, `foo += 1`) or mutated in place
    (`foo.append(...)`, `foo[k] = v`) somewhere else.

    ## Why is this bad?
    The value is captured when the function is traced and baked into the graph as a constant.
    Later changes are not seen: eager code returns 101 where the staged function still
    returns 2. Only a new trace (for example a new input dtype) picks the new value up.

    Not flagged: names bound once (constants), imports, functions and classes, names bound in
    exclusive branches (`if ...: X = 1 else: X = 2`), and `tf.Variable`s or Keras objects,
    which are read at run time (a name bound to an int first and to a `tf.Variable` later is
    judged on its Python bindings). A module-level rebinding counts only in program order: when
    a module-level call runs the reading code before it (directly, or through a function that
    calls it) and another call runs it after it; a rebinding before the Function is defined or
    first called, or after its last call, changes nothing a trace sees. A call that builds a
    `tf.data` pipeline mapping the reading function (`make_dataset()` running
    `ds.map(format_dataset)`) traces it anew with the binding of that moment (TF 2.21 traces a map
    function once per `map()` call): in a loop only such a call above the rebinding in the same
    pass (not in the other arm of its `if`) builds a dataset that keeps the old value. A function that rebinds
    (`global x`) or mutates the global counts when the module calls it between two such calls,
    when the reading code calls it, or when it calls the Function itself above its write and
    again below it (`step(x); scale = 2.0; step(x)`, or `model.train_step(x)` on an object
    whose method is the Function: the second call reuses the first one's trace). In a module that never calls the reading code itself (a
    library) nothing shows when such a function runs: at any time, or only at import (a registry
    its decorators fill before anything is traced); that finding is in the preview tier. An enclosing function's
    variable counts only across a Function boundary (a nested `tf.function`, not a helper traced
    with its enclosing function), and only when it changes after the nested function is defined
    and the Function may run both before and after the change (a call above it and one below,
    a loop around both; an escape, below, is preview): a rebinding after its last call (a test
    rebinding `metrics` for the next Function), before a Function defined afresh in each loop
    iteration, or after the def but before its first call (`Wi = promote(Wi)` above
    `lax.scan(step, ...)`: a closure reads its cell when it runs, and it first runs, so traces,
    after the rebinding) changes nothing a trace sees; so does a change in place
    (`metrics.update({...})`) filled in after the def but before the first call: it is set-up.
    Nor is a nested Function that is only called in its enclosing function, each call with an
    input shape no other call passes (literal shapes, or a loop over a literal list of them:
    `for s in [[10, 20], [10, 30]]: x = tf.zeros(s); i = make(); run(x)`): every call traces
    anew and reads the variable as it is then, so no trace is reused stale. Nor is a Function
    made by a staging decorator on a def nested in a function that only calls it there (never
    returns, stores or passes it), when neither that function nor anything nested in it changes
    the variable: it is a new object on every run of its enclosing function, the only place that
    calls it, so the calls that reuse one of its traces all fall within one run, while the change
    is made by the enclosing function's own enclosing function (`train_state` rebound in `main`
    between runs of `run_simulation`, whose `@jax.jit def iter` reads it), at module level, or by
    a function the run does not call (`RD_adi`'s `@jax.jit def update` reading globals
    `assembly_RDmatrix` sets; nothing traces the enclosing function itself). A global rebound only by a function that set-up code calls
    (`set_random_seeds()` from a task's `__init__`) is configuration, not a change between calls.

    A module-level call above the reading function's `def` does not run it (Python makes the
    function when the `def` runs: it runs an earlier definition, or none), and a Function
    defined in a module-level loop below the rebinding is a new object each iteration, traced
    afresh with that iteration's value (a notebook re-making `step` per configuration). A
    statement binding the global from a call of the reading function itself (`params, loss =
    train_step(params, x)`, an exercise whose body, left blank, returns `loss`), with nothing
    bound before it, binds nothing when that function reads the global on every path that
    returns: the call's first trace reads it unbound and raises NameError, so the call never
    returns; such bindings are left out, and a global bound by nothing else is never read at all.

    Default tier: the order the code shows, as above: a change that falls between two calls of
    the same Function object, which the module's own calls, the rebinding function's own calls,
    or the enclosing function's calls of the nested Function put on either side of it. Preview
    (`--preview`), since the order is not shown: a global whose only binding is made inside a
    function (`global optimize` in `main()`, most often a configure-once global set before the
    first call); an enclosing variable a lambda reads, rebound after it (a lambda's calls are not
    tracked: it may have run only before the change, and a new lambda be jitted after it); an
    enclosing variable changed where the nested Function only escapes on one side of the change
    (stored or passed on above it: called when, is not shown; returned below it, it cannot have
    run before and traces with the new value, so that is not reported at all); an enclosing
    variable mutated by another function (`record(v)`), whose calls are not placed against the
    Function's. Under JAX, a rebinding is not known to change the value when every binding is
    the same call of an imported function with literal arguments (a notebook's cells each
    running `optim = optax.adam(1e-4)`), or when, the first binding apart, every binding is in a
    loop and evaluates the same call with the same arguments on each iteration (a seed search's
    `opt_init, opt_update, get_params = opti(lr)` with `lr = args.lr`): preview too. So is a
    global a loop rebinds together with the batch size of the data it hands the Function
    (`BATCH_SIZE = bs`, `ds = ....batch(bs)`, then `train(ds)` or `for x in ds: step(x)`, every
    call of the Function in the loop given that data): a Function is keyed on its inputs' shapes,
    so each new batch size traces anew and reads the new value; only a shape traced before under
    another value (a smaller last batch), or an input_signature serving every size, reuses a trace
    with the old value, which the code does not show (`analysis.batch_keyed`). A function that
    first binds the Function's own name anew (`global train_step; train_step =
    tf.function(train_step.python_function)`, or `train_step.python_function`, at its body's top
    level or in both branches of a `try`) and then rebinds the global does not count by running
    between two of the module's calls: later calls run a new Function, traced with the new value,
    or the plain function (`analysis.rebinding.remakes_function_first`). A function whose every
    call is a module-level statement, in no loop, above the `def` or `class` statement that makes
    the reader (`train = prepare_data(ds)` above `class Model`, which reads the global it sets)
    counts for nothing either: the module runs its statements in order, so every write is made
    before the reader exists and every trace reads the last value written.
    Under JAX, where the rule was right 2 times in 6 on the held-back halves of repositories
    nobody here had tuned on (most false ones set-up before the first trace, or an equal object
    rebound in a later notebook cell), the default tier keeps only the orders one function's body
    or a loop shows: a loop that changes the value and calls the Function (`for epoch in ...:
    train_step(...); label_smoothing = ...`, at module level or in a function), a function that
    calls the Function on each side of its change, and an enclosing function's variable changed
    between two runs of its nested Function. An order only module-level statements or calls show
    (a rebinding between two cells' calls, a function the module calls between them, one the
    Function itself calls) is in the preview tier there.
    Methods of objects that are not containers (`replay_buffer.clear()`, a module's
    `_context_stack.pop()` on an object it binds further down) are not mutations, nor is a
    container method's namesake whose result the code uses (`updates, state =
    optimizer.update(grads, state)`: optax's pure update; `dict.update` returns None).

    ## Example
    ```python
    foo = 1

    @tf.function
    def buggy_add():
        return 1 + foo

    foo = 100      # buggy_add() still returns 2
    ```

    ## Use instead
    ```python
    @tf.function
    def recommended_add(foo):
        return 1 + foo

    foo = tf.Variable(1)   # or a tf.Variable updated with foo.assign(100)
    ```
    """

    code = "STG301"
    preview_under = {
        "jax": "Held back on repositories nobody here tuned on (bench/fresh_audit_notes.md), "
               "it was right 8 times in 21 findings in JAX code at each half's latest reading (3 in 6 "
               "at the ninth audit's): the globals were rebound to equal values, bound before the "
               "first trace, or read by exercise stubs and demonstrations.",
    }
    name = "stale-global"
    message = "{func} reads {scope} `{name}`, which is {change}; its value is frozen at trace time, so pass it as an argument or keep it in a `tf.Variable`"
    jax_message = "{func} reads {scope} `{name}`, which is {change}; jit bakes its value in at trace time, and calls that reuse the trace keep it, so pass it as an argument"
    valid = (
        """
        import tensorflow as tf

        SCALE = 2
        LAYERS = (1, 2)

        @tf.function
        def f(x):
            return x * SCALE + len(LAYERS)
        """,
        """
        import tensorflow as tf

        foo = tf.Variable(1)

        @tf.function
        def variable_add():
            return 1 + foo

        foo.assign(100)
        """,
        """
        import tensorflow as tf

        try:
            import scipy
            HAVE_SCIPY = True
        except ImportError:
            HAVE_SCIPY = False

        if HAVE_SCIPY:
            MODE = "fast"
        else:
            MODE = "slow"

        @tf.function
        def f(x):
            if MODE == "fast" and HAVE_SCIPY:
                return x
            return -x
        """,
    )
    invalid = (
        """
        import tensorflow as tf

        @tf.function
        def buggy_add():
            return 1 + foo  # STG301

        foo = 1
        print(buggy_add())
        foo = 100
        print(buggy_add())
        """,
        """
        import tensorflow as tf

        history = []

        def record(value):
            history.append(value)

        @tf.function
        def f(x):
            return x * len(history)  # STG301

        f(tf.constant(1.0))
        record(3)
        f(tf.constant(1.0))
        """,
        """
        import tensorflow as tf

        def train(data):
            scale = 1.0

            @tf.function
            def scaled(x):
                return x * scale  # STG301

            scaled(data)
            scale = 2.0
            return scaled(data)  # reuses the first trace: still multiplies by 1.0
        """,
    )

    def __init__(self, ctx):
        super().__init__(ctx)
        self.reads = []  # (function, Name node, bindings)
        self.mutated: dict[int, set[str]] = {}  # binding node id -> functions that mutate it
        self.loops: list[cst.CSTNode] = []  # every for/while loop, for "bound in a loop around the def"
        self.ifs: list[cst.If] = []  # every if statement, for "in the other branch"
        self.trys: list[cst.Try] = []  # every try statement, for "may not have run"
        self.mutation_sites: dict[int, list] = {}  # binding node id -> (function, node) of each mutation
        self.holders: dict[int, str] = {}  # Name target bound in a function -> that function's qualname
        self.holder_infos: dict[int, object] = {}  # the same -> that function's FunctionInfo
        self.method_calls: list = []  # (function, receiver) of each `x.append(...)`-like call
        self.run_refs: set[int] = set()  # Name nodes called or passed to a call (not escaping)
        self.calls_of: dict[int, cst.Call] = {}  # Name node called -> its call (`step(x)`)

    def visit_Name(self, node: cst.Name) -> None:
        ctx = self.ctx
        func = ctx.function
        if func is None or not ctx.in_staged_context:
            return
        kind = ctx.binding_kind(node, func)
        if kind not in ("global", "closure"):
            return
        if func.declared.get(node.value):
            return  # the function writes it itself: STG102/STG201
        self.reads.append((func, node, ctx.bindings_of(node), kind))

    def visit_For(self, node: cst.For) -> None:
        self.loops.append(node)

    def visit_While(self, node: cst.While) -> None:
        self.loops.append(node)

    def visit_If(self, node: cst.If) -> None:
        self.ifs.append(node)

    def visit_Try(self, node: cst.Try) -> None:
        self.trys.append(node)

    def _exclusive(self, a: cst.CSTNode, b: cst.CSTNode) -> bool:
        """`a` and `b` sit in the two branches of one `if`, and no loop holds both: one run of
        the enclosing function takes only one of them (a Function called in the `jit` branch
        never runs after a rebinding made in the `else` branch)."""
        ctx = self.ctx
        if any(ctx.inside(a, loop) and ctx.inside(b, loop) for loop in self.loops):
            return False  # a loop around both takes one branch, then the other
        for node in self.ifs:
            if node.orelse is None:
                continue
            if (ctx.inside(a, node.body) and ctx.inside(b, node.orelse)) or \
                    (ctx.inside(b, node.body) and ctx.inside(a, node.orelse)):
                return True
        return False

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        for expr in (node.func, *(a.value for a in node.args)):
            if isinstance(expr, cst.Name):
                self.run_refs.add(id(expr))  # `step(x)`, `strategy.run(step, ...)`: runs it here
        if isinstance(func, cst.Name):
            self.calls_of[id(func)] = node
        if mutates_container(self.ctx, node):
            if self.ctx.function is not None:
                # judged in `finish`: the receiver's binding may come later in the file
                # (`_context_stack = _ContextStack()` below the class whose methods push/pop it)
                self.method_calls.append((self.ctx.function, func.value))

    def visit_Assign(self, node: cst.Assign) -> None:
        for t in node.targets:
            if isinstance(t.target, cst.Subscript):
                self._mutated(t.target.value)
            self._hold(t.target)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        if isinstance(node.target, cst.Subscript):
            self._mutated(node.target.value)
        self._hold(node.target)

    def _hold(self, target) -> None:
        """Which function a binding of a name is made in (`global x; x = ...` in `reset`)."""
        if self.ctx.function is None:
            return
        names = target.elements if isinstance(target, (cst.Tuple, cst.List)) else (target,)
        for t in names:
            if isinstance(t, (cst.Element, cst.StarredElement)):
                t = t.value
            if isinstance(t, cst.Name):
                self.holders[id(t)] = self.ctx.function.qualname
                self.holder_infos[id(t)] = self.ctx.function

    def _mutated(self, obj: cst.BaseExpression, function=None) -> None:
        """Record that a function changes the object a name is bound to (in place)."""
        ctx = self.ctx
        function = function or ctx.function
        if function is None:
            return  # module-level setup runs at import, before anything is traced
        while isinstance(obj, cst.Subscript):
            obj = obj.value
        if isinstance(obj, cst.Name):
            for b in ctx.referents(obj) or ():
                node = getattr(b, "node", None)
                if node is not None:
                    self.mutated.setdefault(id(node), set()).add(function.qualname)
                    self.mutation_sites.setdefault(id(node), []).append((function.qualname, obj))

    def finish(self) -> None:
        ctx = self.ctx
        fw = ctx.framework
        for function, receiver in self.method_calls:
            if _not_a_container(ctx, receiver, function):
                continue  # `replay_buffer.clear()`: a method of an object, not a list's
            self._mutated(receiver, function)
        reported = set()
        for func, name, bindings, kind in self.reads:
            if (func.qualname, name.value) in reported or not bindings:
                continue
            self._reading = func
            nodes = []
            skip = False
            objects = 0
            for b in bindings:
                node = getattr(b, "node", None)
                if isinstance(b, ImportAssignment) or not isinstance(node, cst.Name):
                    skip = True  # imports, defs, classes, parameters of an enclosing function
                    break
                value = ctx.bound_values.get(id(node))
                if isinstance(value, cst.Call):
                    names = ctx.qualified_names(value.func)
                    if any(fw.creates_variables(q) for q in names):
                        objects += 1  # a tf.Variable / Keras object: read at run time
                nodes.append(node)
            if skip or not nodes or objects == len(nodes) or (objects and kind != "global"):
                continue
            if kind == "global" and objects:
                # `foo = 1 ... foo = 100 ... foo = tf.Variable(1)`: the Python values the staged
                # code may have read, in the order the module binds them, are judged on their own
                nodes = [n for n in nodes if not _creates_object(ctx, fw, ctx.bound_values.get(id(n)))]
            chain = self._chain(func, bindings) if kind == "closure" else []
            if kind == "closure" and not chain:
                continue
            ordered = self._ordered(nodes, name) if kind == "global" else None
            self._guess = self._same_value(nodes) if ordered is not None else ""
            self._shown = False  # `_change` sets it: a loop changes the variable and runs the Function
            change = self._change(func, nodes, kind, chain) if ordered is None else ""
            if change is None or (ordered is not None and not ordered["rebinds"] and not ordered["writers"]):
                continue
            reported.add((func.qualname, name.value))
            self.report(name, function=func, name=name.value, change=change,
                        scope="global" if kind == "global" else "the enclosing function's variable",
                        _chain=[f.qualname for f in chain], _order=ordered, _guess=self._guess,
                        _loop_known=self._shown, _per_run=self._made_per_run(func, nodes, chain, kind))

    def _made_per_run(self, func, nodes, chain, kind) -> str:
        """The function a run of which makes the reading Function anew and keeps it (its qualified
        name), or "": `func` is a def decorated with a staging API, nested in a function that only
        calls it, directly in its own body (never returns, stores or passes it: ml4dynamics'
        `RD_adi` defining `@jax.jit def update` and looping over `update(u, v)`), and neither that
        function nor anything nested in it rebinds or mutates the variable read: every change of
        it falls outside the Function's life (`order.lives_in_one_run`). For a closure, only where
        the variable belongs to a function further out (`chain` holds the enclosing one)."""
        ctx = self.ctx
        parent = func.parent
        if func.facts.staged_by != "decorator" or parent is None or (kind == "closure" and len(chain) < 2):
            return ""
        refs = self._references(func.node)
        where = ctx.scope(func.node)
        if not refs or any(self.calls_of.get(id(r)) is None or ctx.scope(r) is not where for r in refs):
            return ""
        changes = list(nodes) + [n for node in nodes for _, n in self.mutation_sites.get(id(node), ())]
        if any(ctx.inside(n, parent.node) for n in changes):
            return ""
        return parent.qualname

    def _same_value(self, nodes) -> str:
        """Why a rebinding may not change the value, or "": every binding evaluates one and the
        same call of an imported function with literal arguments (a notebook's cells each running
        `optim = optax.adam(1e-4)`): a new object, but whether it computes anything else than the
        one a trace baked in is not shown."""
        ctx = self.ctx
        values = [ctx.bound_values.get(id(n)) for n in nodes]
        looped = self._same_each_iteration(nodes)
        if looped:
            return looped
        if len(values) < 2 or not all(isinstance(v, cst.Call) for v in values):
            return ""
        texts = {ctx.module_node.code_for_node(v) for v in values}
        if len(texts) != 1:
            return ""
        value = values[0]
        if any(ctx.binding_kind(n, None) != "import" for n in name_loads(value.func)) or not all(
                _literal(a.value) for a in value.args):
            return ""
        return f"every binding is `{short_code(value, 40)}`: whether the new object computes anything else is not shown"

    def _same_each_iteration(self, nodes) -> str:
        """Why a rebinding in a module-level loop may not change the value, or "": the first
        binding apart, every binding is in a loop and evaluates a call of the same callee with
        the same arguments on each iteration (`opt_init, opt_update, get_params = opti(lr)` with
        `lr = args.lr` in a seed search): a new object per iteration, but whether it computes
        anything else than the one a trace baked in is not shown."""
        ctx = self.ctx
        ordered = sorted(nodes, key=lambda n: (ctx.position(n).line, ctx.position(n).column))
        shown = ""
        for i, node in enumerate(ordered):
            loop = _outermost_loop(ctx, self.loops, node)
            if loop is None:
                if i == 0 and id(node) not in ctx.rebinding_targets:
                    continue  # the first binding
                return ""
            value = ctx.bound_values.get(id(node))
            if not isinstance(value, cst.Call) or not same_each_iteration(ctx, value, loop):
                return ""
            shown = shown or (f"each iteration of the loop on line {ctx.position(loop).line} rebinds it to "
                              f"`{short_code(value, 40)}`, the same call with the same arguments")
        return f"{shown}: whether the new object computes anything else is not shown" if shown else ""

    def _ordered(self, nodes, read) -> dict | None:
        """For a global: its module-level rebindings in program order (line, and the module-level
        loop around it), and the functions that rebind or mutate it; decided in the project phase
        by the calls around them (`analysis.order`). None when a rebinding's function is unknown.
        With them, every module-level binding in program order (line, the lines of its statement
        when it binds from a call, whether it is plain: outside loops, not augmented), and
        whether the reading function reads the global on every path that returns
        (`order.bindings_made`)."""
        ctx = self.ctx
        ordered = sorted(nodes, key=lambda n: (ctx.position(n).line, ctx.position(n).column))
        rebinds, writers = [], set()
        branches = []  # [line, its module-level branches (`CallSite.branch`)] of each rebinding
        fixed = []  # [line, the value's code] of loop rebindings binding one value each time (`_fixed_in_loop`)
        lines: dict[str, list[int]] = {}  # writer -> the lines it rebinds the global on
        loops: dict[str, list[list[int]]] = {}  # writer -> the spans of its loops that hold a write
        # rebindings a loop makes together with the batch size of the data it hands on
        # (`analysis.batch_keyed`): writer ("" at module level) -> [line, loop span, fed call lines]
        keyed: dict[str, list] = {}

        def batch_keyed(holder, node, func):
            loop = _outermost_loop(ctx, self.loops, node)
            fed = fed_batches_of(ctx, node, loop, func) if loop is not None else []
            if fed:
                p = ctx.position(loop)
                keyed.setdefault(holder, []).append([ctx.position(node).line, [p.line, p.end_line], fed])

        def in_loop(holder, node):
            loop = _outermost_loop(ctx, self.loops, node)
            if loop is not None:
                p = ctx.position(loop)
                loops.setdefault(holder, []).append([p.line, p.end_line])
        module_level = [n for n in ordered if id(n) in ctx.branch_paths]
        for node in ordered:
            if id(node) not in ctx.branch_paths:
                holder = self.holders.get(id(node))
                if holder is None:
                    return None
                writers.add(holder)
                lines.setdefault(holder, []).append(ctx.position(node).line)
                in_loop(holder, node)
                batch_keyed(holder, node, self.holder_infos.get(id(node)))
                continue
            i = module_level.index(node)
            loop = _outermost_loop(ctx, self.loops, node)
            augmented = id(node) in ctx.rebinding_targets
            if i == 0 and loop is None and not augmented:
                continue  # the first binding
            if i > 0 and all(ctx.exclusive(node, other) for other in module_level[:i]) and loop is None:
                continue  # `if ...: X = 1 else: X = 2`
            span = None
            if loop is not None:
                p = ctx.position(loop)
                span = [p.line, p.end_line]
                batch_keyed("", node, None)
                value = _fixed_in_loop(ctx, self.loops, node, loop)
                if value is not None:
                    fixed.append([ctx.position(node).line, value])
            rebinds.append([ctx.position(node).line, span])
            branches.append([ctx.position(node).line, [list(b) for b in ctx.branch_paths[id(node)]]])
        for node in nodes:
            for q, site in self.mutation_sites.get(id(node), ()):
                if q != self._reading.qualname:
                    writers.add(q)
                    lines.setdefault(q, []).append(ctx.position(site).line)
                    in_loop(q, site)
        bindings = []
        for node in module_level:
            fed = binds_only_from_call(ctx, node)
            plain = id(node) not in ctx.rebinding_targets and not any(ctx.inside(node, lp) for lp in self.loops)
            bindings.append([ctx.position(node).line, list(fed) if fed else None, plain])
        # a builtin of that name, or a star import, answers the read where no binding has yet
        always = any(fed for _, fed, _ in bindings) and read.value not in _BUILTIN_NAMES \
            and not ctx.star_import and read_on_every_return(ctx, self._reading, read)
        # writers that bind the reading Function's own name anew before their writes (`analysis.
        # rebinding.remakes_function_first`): later calls run a Function with no earlier trace
        reader = self._reading
        remade = sorted(w for w in writers if "." not in reader.qualname and lines.get(w) and any(
            remakes_function_first(ctx, info, reader.facts.name, min(lines[w]))
            for info in {id(i): i for n in ordered if self.holders.get(id(n)) == w
                         for i in [self.holder_infos.get(id(n))]}.values()))
        return {"rebinds": rebinds, "writers": sorted(writers), "lines": lines, "loops": loops,
                "bindings": bindings, "always": always, "fixed": fixed, "keyed": keyed, "remade": remade,
                "branches": branches}

    def _chain(self, func, bindings) -> list:
        """The reading function and the functions around it, up to (not including) the one whose
        variable it reads: `[inner, middle]` for `outer.<locals>.middle.<locals>.inner`."""
        scopes = {id(getattr(b, "scope", None)) for b in bindings}
        chain = []
        info = func
        while info is not None:
            if id(self.ctx.scope(info.node.body)) in scopes:
                return chain
            chain.append(info)
            info = info.parent
        return []

    @classmethod
    def confirm(cls, candidate, project, module):
        verdict = cls._stale(candidate, project, module)
        shown = (isinstance(verdict, dict) and verdict.pop("_loop_shown", False)) or candidate.fields.get("_loop_known")
        if verdict and not shown and project.staged_by_jax((module.module, candidate.function)) and not (
                isinstance(verdict, dict) and verdict.get("_preview")):
            # Under JAX a trace reused stale is known where one function's body shows the order (a
            # loop that changes the value and calls the Function, a call on each side of the
            # change, a closure's enclosing function) or a module-level loop does; an order only
            # module-level statements or calls show (notebook cells, a configure-once `main`, an
            # import-time registry) was mostly set-up on held-back code: 2 of 6 right.
            verdict = with_preview(verdict, "held back under JAX: only module-level statements or calls show the "
                                            "order (notebook cells, a configure-once function, an import-time "
                                            "registry), which on repositories nobody here tuned on was mostly set-up "
                                            "before the first trace (2 of 6 right)")
        return verdict

    @classmethod
    def _stale(cls, candidate, project, module):
        if project.traced_only_afresh((module.module, candidate.function)):
            return False  # `jax.jit(lambda ...)(x)` alone reaches it: traced with the value of the moment
        ordered = candidate.fields.get("_order")
        per_run = candidate.fields.get("_per_run")
        if per_run:
            from stagelint.analysis.order import lives_in_one_run, may_run_during

            run = (module.module, per_run)
            if lives_in_one_run(project, run):
                if ordered is None:
                    return False  # an enclosing function's rebinding never runs within that run
                # module-level rebindings never run within it; a writer only if the run calls it
                writers = [w for w in ordered["writers"] if may_run_during(project, run, (module.module, w))]
                if not writers:
                    return False
                ordered = {**ordered, "rebinds": [], "writers": writers}
        if ordered is not None:
            from stagelint.analysis.order import bindings_made, call_lines, calls_readers_in_loops, \
                one_value_each_call, reader_call_lines, stale_between, writes_between

            # a binding from the reading Function's own call, with nothing bound before: NameError
            ordered = bindings_made(project, module.module, (module.module, candidate.function), ordered)
            if ordered is None:
                return False

            readers = [(module.module, candidate.function)]
            fixed = {line: value for line, value in ordered.get("fixed", ())}
            keyed = ordered.get("keyed", {})
            shape_keyed = None  # (change, why): the only change is a rebinding made with the batch size
            module_calls = None
            for line, loop in ordered["rebinds"]:
                if loop and not ordered["writers"] and one_value_each_call(
                        project, module.module, readers, tuple(loop), ordered["rebinds"], fixed):
                    continue  # every call of the Function sees the value it traced with
                branch = next((b for at, b in ordered.get("branches", ()) if at == line), ())
                if stale_between(project, module.module, readers, line, tuple(loop) if loop else None, branch):
                    if module_calls is None:
                        module_calls = call_lines(project, module.module, readers)
                    found = _batch_keyed(keyed.get("", ()), [line], module_calls)
                    if found:
                        shape_keyed = shape_keyed or (f"rebound in a loop (line {line}) between calls", found, line)
                        continue
                    where = f"rebound in a loop (line {line})" if loop else f"rebound on line {line}"
                    verdict = {"change": f"{where} between calls"}
                    if loop and any(loop[0] <= c <= loop[1] for c in call_lines(project, module.module, readers)):
                        verdict["_loop_shown"] = True  # the loop rebinds it and calls the Function
                    if candidate.fields.get("_guess") and project.staged_by_jax((module.module, candidate.function)):
                        verdict["_preview"] = candidate.fields["_guess"]
                    return verdict
            unknown = None
            for writer in ordered["writers"]:
                if _set_up_only(project, (module.module, writer)):
                    continue  # `set_random_seeds()` called from a task's `__init__`: configuration
                if _runs_before_reader_exists(project, module, (module.module, writer), candidate.function):
                    continue  # `prepare_data(...)` at the top, above the model's class: set-up
                write_lines = ordered["lines"].get(writer, ())
                # a writer that first binds the Function's name anew: calls after its run trace anew
                module_order = writer not in ordered.get("remade", ())
                between = writes_between(project, module.module, readers, (module.module, writer), write_lines,
                                         module_order)
                if between and keyed.get(writer):
                    calls = reader_call_lines(project, readers, (module.module, writer))
                    found = _batch_keyed(keyed[writer], write_lines, calls)
                    at = next((w for w in write_lines if _batch_keyed(keyed[writer], [w], calls)), 0)
                    rest = [w for w in write_lines if not _batch_keyed(keyed[writer], [w], calls)]
                    if found and not writes_between(project, module.module, readers, (module.module, writer), rest,
                                                    module_order):
                        shape_keyed = shape_keyed or (f"changed by `{writer}`", found, at)
                        continue
                if between:
                    # shown by the writer's own body: a loop that writes and calls, or a call on each side
                    shown = calls_readers_in_loops(project, readers, (module.module, writer),
                                                   ordered.get("loops", {}).get(writer, ())) \
                        or calls_readers_around(project, readers, (module.module, writer), ordered["lines"].get(writer, ()))
                    return {"change": f"changed by `{writer}`", "_loop_shown": shown}
                if between is None and unknown is None:
                    unknown = writer
            if unknown is not None:
                # A library: no module-level code shows when `unknown` runs against the Function's
                # calls (a registry its decorators fill at import runs before any trace).
                return {"change": f"changed by `{unknown}`",
                        "_preview": f"when `{unknown}` runs relative to the Function's calls is not shown"}
            if shape_keyed:
                change, why, line = shape_keyed
                return {"change": change, "_preview": why,
                        "_because": [fact(why, F.Span(line, 1, line, 1), HEURISTIC)]}
            return False
        guess = candidate.fields.get("_guess")
        if guess:
            # the order is the step that decides, and the code does not show it (issue 23's
            # per-step split: a guess), under either framework
            verdict = cls._closure_verdict(candidate, project, module)
            return {"_preview": guess} if verdict else verdict
        return cls._closure_verdict(candidate, project, module)

    @staticmethod
    def _closure_verdict(candidate, project, module):
        chain = candidate.fields.get("_chain")
        if not chain:
            return True
        if any(project.staged_afresh((module.module, q)) for q in chain):
            return False  # `jax.jit(lambda: ...)(x)`: traced anew at each use, with the values of the moment
        # A closure is stale only across a Function boundary: a nested helper called while its
        # enclosing function is traced reads the enclosing variable's value of that same trace.
        # A `tf.data` function is traced where it is given to the dataset, with the values of that
        # moment; later rebindings in its enclosing function are left alone.
        return any(project.entries.get((module.module, q), "dataset") != "dataset" for q in chain)

    def _change(self, func, nodes, kind, chain) -> str | None:
        ctx = self.ctx
        if kind == "global":
            for node in nodes:
                if id(node) not in ctx.branch_paths:
                    # (a configure-once `main()` binds it before the first call: the order is not shown)
                    self._guess = "when the function that rebinds it runs relative to the Function's calls is not shown"
                    return "rebound inside a function"
        if kind == "closure":
            # Bindings made before the nested def, outside any loop around it, are done by the
            # time it can be traced: the closure sees their final value.
            outer_def = chain[-1].node
            if self._traces_every_call(chain[-1]):
                return None  # no call reuses a trace: each reads the variable as it is then
            # A closure reads its cell when it runs: a Function first run (so traced) after the
            # rebinding sees the new value, so the rebinding counts only between two runs.
            runs = {id(n): self._between_runs(n, outer_def) for n in nodes
                    if not self._before(n, outer_def) and not self._made_afresh_after(n, outer_def)}
            # the rebindings a call of the Function above and below shows first: they are known
            after = sorted((n for n in nodes if runs.get(id(n))), key=lambda n: -runs[id(n)])
            if after and len(after) < len(nodes):
                line = ctx.position(after[0]).line
                if self._references(outer_def) is None:
                    # a lambda's calls are not tracked: it may have run only before the rebinding,
                    # and a new Function made after it (a test's `k_jit = jit(lambda: ...)` again)
                    self._guess = f"whether the lambda is called again after line {line}, reusing an earlier trace, is not shown"
                elif runs[id(after[0])] < _CALLED:
                    self._guess = _escape_guess(chain[-1].facts.name, line)
                # the enclosing function's own body shows the order: a run before, one after
                self._shown = self._references(outer_def) is not None
                return f"rebound on line {line}, after `{chain[-1].facts.name}` is defined"
            if not after:
                owner = chain[-1].parent
                return self._mutation(func, nodes, outer_def, owner.qualname if owner is not None else None)
            if runs[id(after[0])] < _CALLED:
                self._guess = _escape_guess(chain[-1].facts.name, ctx.position(after[0]).line)
            self._shown = self._references(outer_def) is not None  # (its body shows the order)
            nodes = after
        for node in nodes:
            if id(node) in ctx.rebinding_targets or id(node) in ctx.loop_bound:
                return "rebound in a loop or by an augmented assignment"
        for i, a in enumerate(nodes):
            for b in nodes[i + 1:]:
                if not ctx.exclusive(a, b):
                    if kind == "global" and not self._call_between(a, b):
                        continue  # both at import time, before anything could be traced
                    line = ctx.position(b).line
                    return f"rebound on line {line}"
        if kind == "closure":
            owner = chain[-1].parent
            return self._mutation(func, nodes, outer_def, owner.qualname if owner is not None else None)
        return self._mutation(func, nodes)

    def _mutation(self, func, nodes, outer_def=None, owner: str | None = None) -> str | None:
        for node in nodes:
            sites = [(q, n) for q, n in self.mutation_sites.get(id(node), ()) if q != func.qualname]
            if outer_def is not None:
                # an enclosing variable filled before the nested def (set-up) is final when traced,
                # and so is one the enclosing function fills after the def but before any call
                # of the Function can run (`metrics.update(...)` above the training loop): a
                # trace only sees a change made after it, read by a later call of the same object
                runs = {id(n): self._between_runs(n, outer_def) if q == owner else 0 for q, n in sites}
                sites = [(q, n) for q, n in sites if not self._before(n, outer_def)
                         and (q != owner or runs[id(n)])]
                if sites and not any(runs[id(n)] == _CALLED for _, n in sites):
                    # another function's change (`record(v)` in a helper) runs whenever that one is
                    # called, and a change between escapes only may fall before the first call
                    q, n = sites[0]
                    line = self.ctx.position(n).line
                    if q != owner:
                        self._guess = f"when `{q}` runs relative to the Function's calls is not shown"
                    elif isinstance(outer_def, cst.Lambda):
                        # a lambda's calls are not tracked, as for a rebinding above
                        self._guess = f"whether the lambda is called again after line {line}, reusing an earlier trace, is not shown"
                    else:
                        self._guess = _escape_guess(outer_def.name.value, line)
            if sites:
                self._shown = outer_def is not None and any(
                    q == owner or self._loop_runs_around(n, outer_def) for q, n in sites)
                return f"mutated in `{sorted(q for q, _ in sites)[0]}`"
        return None

    def _traces_every_call(self, info) -> bool:
        """The nested Function (a staging-decorated def, shapes not relaxed, no input signature)
        is only called, directly in its enclosing function's body, and every call passes an
        input signature no other call passes (`analysis.varying_shapes.call_signatures`: literal
        shapes, or a loop over literal shapes): each call traces anew and reads the enclosing
        variable as it is at that call, so a rebinding between calls is never read stale (the
        pattern of Sionna's interleaver test, re-making `i` before each call with a new input
        shape; TF 2.21: tests/runtime/test_tf_new_shape_closure_facts.py). The enclosing function makes a new
        Function object on each run, so only the calls of one run meet in its trace cache."""
        facts = info.facts
        if facts.staged_by != "decorator" or facts.input_signature or facts.relaxed_shapes or info.parent is None:
            return False
        ctx = self.ctx
        refs = self._references(info.node)
        if not refs:
            return False
        where = ctx.scope(info.node)
        seen = set()
        for ref in refs:
            call = self.calls_of.get(id(ref))
            if call is None or ctx.scope(ref) is not where:
                return False  # escapes, or runs in a comprehension or a nested function
            signatures = call_signatures(ctx, call, info.parent, self.loops)
            if signatures is None:
                return False
            for signature in signatures:
                if signature in seen:
                    return False
                seen.add(signature)
        return True

    def _loop_runs_around(self, change: cst.CSTNode, outer_def) -> bool:
        """A loop of the enclosing function holds the change and a call of the nested Function but
        not its def: every iteration after the first calls the Function traced before that
        iteration's change (jax-fem's time loop rebinding `eps2_x` before `phase_field(...)`)."""
        refs = self._references(outer_def)
        return bool(refs) and any(
            id(ref) in self.run_refs and self.ctx.inside(change, lp) and self.ctx.inside(ref, lp)
            and not self.ctx.inside(outer_def, lp) for ref in refs for lp in self.loops)

    def _before(self, binding: cst.CSTNode, outer_def: cst.FunctionDef) -> bool:
        """The binding is made before the def starts, and no loop holds both (which would rebind
        it after the def on the next iteration)."""
        ctx = self.ctx
        b, d = ctx.position(binding), ctx.position(outer_def)
        if (b.line, b.column) >= (d.line, d.column):
            return False
        return not any(ctx.inside(binding, loop) and ctx.inside(outer_def, loop) for loop in self.loops)

    def _made_afresh_after(self, binding: cst.CSTNode, outer_def: cst.CSTNode) -> bool:
        """A loop holds both the binding and the def (or lambda), the def after it: each
        iteration binds the variable, then makes a new function object, which a JIT traces
        anew (`frameworks.JAX_TRACE_CACHE`: a lambda or nested def made anew traces every time;
        `tf.function` keeps traces per Function object), so each one's trace reads its own
        iteration's value (synjax: `for algorithm in ...: f = jax.jit(lambda x: ...algorithm...)`)."""
        ctx = self.ctx
        b, d = ctx.position(binding), ctx.position(outer_def)
        if (b.line, b.column) >= (d.line, d.column):
            return False
        return any(ctx.inside(binding, loop) for loop in self.loops if ctx.inside(outer_def, loop))

    def _run_after(self, binding: cst.CSTNode, outer_def: cst.FunctionDef) -> int:
        """Whether the nested Function may run after `binding` rebinds the variable it reads:
        `_CALLED` when its name is called (or handed to a call: `strategy.run(step_fn, ...)`)
        after the binding, or in a loop around the binding that does not define the Function
        afresh; `_ESCAPES` when it only escapes (returned, stored: it may be called at any time)
        or its calls are not tracked (a lambda); 0 otherwise. A rebinding after its last call
        changes nothing a trace sees (a test that rebinds `metrics` for the next `step_fn_b`)."""
        ctx = self.ctx
        refs = self._references(outer_def)
        if refs is None:
            return _ESCAPES
        value = ctx.bound_values.get(id(binding))
        b, d = ctx.position(binding), ctx.position(outer_def)
        # bound before the def in a loop that defines the Function afresh: each iteration's
        # Function is traced after that iteration's binding
        fresh = (b.line, b.column) < (d.line, d.column)
        found = 0
        for ref in refs:
            if self._exclusive(ref, binding):
                continue  # the other branch of an `if`: never in the same run as the binding
            if id(ref) not in self.run_refs:
                found = max(found, _ESCAPES)
                continue
            if fresh:
                continue
            if isinstance(value, cst.BaseExpression) and ctx.inside(ref, value):
                continue  # `text = strategy.run(fn)`: runs before the name is rebound
            r = ctx.position(ref)
            if (r.line, r.column) > (b.line, b.column):
                return _CALLED
            if any(ctx.inside(binding, lp) and ctx.inside(ref, lp) and not ctx.inside(outer_def, lp)
                   for lp in self.loops):
                return _CALLED  # a later iteration calls the same Function after the rebinding
        return found

    def _references(self, outer_def) -> list | None:
        """Where the enclosing function names the nested def; None when that is not tracked (a
        lambda, no scope)."""
        if not isinstance(outer_def, cst.FunctionDef):
            return None
        scope = self.ctx.scope(outer_def)
        if scope is None:
            return None
        name = outer_def.name.value
        # another def of the name: a new function object (an assignment may hold this one still:
        # `run = jax.jit(run)` calls it through the wrapper)
        later = [a.node for a in scope.assignments[name]
                 if isinstance(getattr(a, "node", None), cst.FunctionDef) and a.node is not outer_def
                 and self.ctx.raw_position(a.node)[:2] > self.ctx.raw_position(outer_def)[:2]]
        return [a.node for assignment in scope.assignments[name]
                if getattr(assignment, "node", None) is outer_def for a in assignment.references
                if not any(self._rebinds_before(other, outer_def, a.node) for other in later)]

    def _rebinds_before(self, other: cst.CSTNode, outer_def: cst.CSTNode, ref: cst.CSTNode) -> bool:
        """`other` binds the def's name again after the def and before `ref` on every path that
        reaches `ref` (no `if` branch, loop body or `try` part holds it without holding `ref`
        too): Python rebinds the name at each `def`, so `ref`
        names the later object, and a call there is not a run of this Function (a test that
        defines `@tf.function def run` again after rebinding what it reads; checked with TF 2.21:
        each `run` traces with the value bound before its own def)."""
        ctx = self.ctx
        o, r = ctx.raw_position(other)[:2], ctx.raw_position(ref)[:2]
        if not (ctx.raw_position(outer_def)[:2] < o < r) or ctx.inside(ref, other):
            return False
        parts = [p for node in self.ifs for p in (node.body, node.orelse)]
        parts += [p for node in self.loops for p in (node.body, node.orelse)]
        parts += [p for node in self.trys for p in (node.body, *node.handlers, node.orelse, node.finalbody)]
        return not any(p is not None and ctx.inside(other, p) and not ctx.inside(ref, p) for p in parts)

    def _between_runs(self, change: cst.CSTNode, outer_def: cst.FunctionDef) -> int:
        """Whether the enclosing function's change can fall between two runs of the nested
        Function, one before it (a call above it, or in a loop holding both) and one after it:
        `_CALLED` when calls show both, `_ESCAPES` when an escape stands for one, 0 when not."""
        return min(self._run_after(change, outer_def), self._run_before(change, outer_def))

    def _run_before(self, change: cst.CSTNode, outer_def: cst.FunctionDef) -> int:
        """Whether the nested Function may run (and so trace) before `change`: `_CALLED` when its
        name is called above the change, or in a loop holding both the call and the change but
        not the def; `_ESCAPES` when it escapes above the change (stored, returned, passed: it
        may be called at any time after that), or its calls are not tracked (a lambda). An
        object is named nowhere before its first reference: a `return step` below the change
        hands out a Function nobody could call before it (it traces with the new value)."""
        ctx = self.ctx
        refs = self._references(outer_def)
        if refs is None:
            return _ESCAPES
        c = ctx.position(change)
        found = 0
        for ref in refs:
            if self._exclusive(ref, change):
                continue  # the other branch of an `if`: never in the same run as the change
            r = ctx.position(ref)
            looped = any(ctx.inside(change, lp) and ctx.inside(ref, lp) and not ctx.inside(outer_def, lp)
                         for lp in self.loops)
            if (r.line, r.column) >= (c.line, c.column) and not looped:
                continue
            if id(ref) not in self.run_refs:
                found = _ESCAPES
                continue
            return _CALLED
        return found

    def _call_between(self, a: cst.CSTNode, b: cst.CSTNode) -> bool:
        """A module-level call of a project function between two module-level bindings: the only
        way a trace can happen before the second one (the guide's `print(buggy_add())`)."""
        ctx = self.ctx
        lo, hi = sorted((ctx.position(a).line, ctx.position(b).line))
        return any(site.caller is None and lo < site.span.line < hi for site in ctx.facts.call_sites)


#: How a nested Function's runs around an enclosing function's change are shown
#: (`StaleGlobal._run_before`/`_run_after`): by a call of its name, or only by an escape.
_CALLED, _ESCAPES = 2, 1


def _batch_keyed(keyed, write_lines, calls) -> str:
    """Why the rebindings on `write_lines` are read anew rather than stale, or "": each is made in
    a loop (`keyed`: [line, loop span, fed call lines], `analysis.batch_keyed`) whose every call
    running the Function (`calls`, lines) is handed data batched by the new value. A Function is
    keyed on its inputs' shapes: a new batch size traces anew and reads the new value; only a
    shape traced before (a smaller last batch), or an input_signature serving every size, would
    reuse a trace with the old value, which the code does not show."""
    for line, (start, end), fed in keyed:
        inside = [c for c in calls if start <= c <= end]
        if line in write_lines and inside and all(c in fed for c in inside):
            return (f"the loop on line {start} rebinds it (line {line}) together with the batch size of the "
                    f"data it hands the Function (line {inside[0]}): a Function is keyed on its inputs' "
                    f"shapes, so each new batch size traces anew and reads the new value; only a shape "
                    f"traced before under another value (a smaller last batch), or an input_signature or "
                    f"reduce_retracing serving every size, reuses a trace with the old value, which is not shown")
    return ""


def _escape_guess(name: str, line: int) -> str:
    return (f"`{name}` escapes (returned, stored or passed on): whether it is called before the change "
            f"on line {line} and again after it is not shown")


def _outermost_loop(ctx, loops, node):
    """The outermost of `loops` (every for/while loop of the file, in the order the walk met
    them) that holds `node`, or None."""
    return next((lp for lp in loops if ctx.inside(node, lp)), None)


def _fixed_in_loop(ctx, loops, node, loop) -> str | None:
    """The code of the value a rebinding binds on every iteration of the module-level `loop`, when
    it is a plain `name = value` statement at the top level of the loop's body (run once on every
    iteration, not under an `if`) and the value is the same object each time: a literal, or a name
    the module binds once, outside the loop (`optimizer = optimizer_conv`). None otherwise (a
    counter, `beta += beta_step`; a loop variable; a call, which may make a new object)."""
    body = getattr(getattr(loop, "body", None), "body", ())
    if id(node) in ctx.rebinding_targets or id(node) in ctx.unpacked_names:
        return None
    value = ctx.bound_values.get(id(node))
    if value is None or not any(isinstance(stmt, cst.SimpleStatementLine) and ctx.inside(node, stmt) for stmt in body):
        return None
    if _literal(value):
        return code_of(value)
    if not isinstance(value, cst.Name):
        return None
    refs = ctx.referents(value)
    if not refs or len(refs) != 1:
        return None
    bound = getattr(next(iter(refs)), "node", None)
    if bound is None or id(bound) not in ctx.branch_paths or any(ctx.inside(bound, lp) for lp in loops):
        return None  # bound in a function (`global`), or anew by a loop
    return value.value


def _literal(expr) -> bool:
    """A number, string, bool or None literal (`1e-4`, `-1`, `"adam"`)."""
    if isinstance(expr, cst.UnaryOperation):
        expr = expr.expression
    if isinstance(expr, cst.Name):
        return keyword_constant(expr)
    return isinstance(expr, (cst.Integer, cst.Float, cst.SimpleString))


#: Why an attribute replaced where no code shows the order is a preview step of STG303: a trace
#: keeps the variable it read, so only a replacement after a trace and before a later call of the
#: same Function is stale; one made in a method or a test before the first call is not.
_UNORDERED_REBINDING = ("the rebinding runs in a function: whether it runs between two calls of the Function "
                        "that reads the variable is not shown")
_UNORDERED_REPLACEMENT = ("no code of the project shows the replacement between two calls of the "
                          "Function that reads the attribute (one before the first call is seen)")


def _creates_variables(project, key) -> bool:
    """The method creates variables on its own object (`self.add_slot(...)`, `self.add_weight`):
    like `build`, it sets the object up; calling it again would make new variables, not change
    a value a trace read."""
    f = project.function(key)
    # a layer's `add_weight` / `add_variable` (`Framework.variable_creating_methods`), an optimizer's `add_slot`
    makers = project.framework.variable_creating_methods | KERAS_SLOT_CREATING_METHODS
    return f is not None and any(
        e.kind == "call" and e.target[0] == "self" and e.target[-1] in makers
        for e in f.calls
    )


def _builds_parts_in_setup(project, module: str, function: str) -> bool:
    """The method makes Keras objects (layers, metrics) and binds them on its own object
    (`self.head = tf.keras.layers.Dense(...)` in `create_vars`), and only set-up code calls it
    (`__init__`, `build` and their helpers, public or not): it builds the object's parts while
    the object is made, before anything can trace it; calling it again would make new layers,
    not change a value a trace read."""
    key = (module, function)
    facts = project.modules.get(module)
    if facts is None or not any(w.on_self and w.function == function and w.value == "keras"
                                for w in facts.attr_writes):
        return False
    if function.rpartition(".")[2] in project.names_called_on_objects():
        return False  # `model.create_vars()` somewhere: not only while the object is made
    callers = project.callers(key)
    return bool(callers) and all(
        (f := project.function(caller)) is not None
        and (is_setup_method(f.name) or project.runs_only_in_setup(caller, is_setup_method))
        for caller in callers)


def _set_up_only(project, writer) -> bool:
    """Every call of the function that rebinds the global is made in set-up (`__init__`, `build`
    and their helpers): it runs when objects are configured, before their pipelines and Functions
    exist, not between two calls of a trace."""
    sites = project.call_sites.get(tuple(writer), ())
    return bool(sites) and all(
        site.caller is not None and is_setup_method(site.caller.rsplit(".", 1)[-1]) for _, site in sites
    )


def _runs_before_reader_exists(project, module, writer, reader: str) -> bool:
    """Every call of the function that rebinds the global is a module-level statement of the
    reader's module, in no loop, above the top-level `def` or `class` statement that makes the
    reader (`train_ds = prepare_mnist_data(ds, subtask=2)` on line 41, `class Model` on line 52):
    a module runs its statements in order, so every write is made before the reader exists, and
    every trace of it, the first included, reads the last value written."""
    sites = project.call_sites.get(tuple(writer), ())
    top = reader.split(".", 1)[0]
    made = module.functions.get(top) or module.classes.get(f"{module.module}.{top}" if module.module else top)
    span = getattr(made, "span", None)
    return bool(sites) and span is not None and all(
        mod == module.module and site.caller is None and site.loop is None and site.span.line < span.line
        for mod, site in sites)


def _not_a_container(ctx, receiver, function) -> bool:
    """The receiver of `x.pop()` is an object, not a list. A global's value is asked of its
    bindings here, after the walk: a method that runs before the module binds the name (its
    `_stack = _ContextStack()` is further down) was asked about it before the binding was seen."""
    if value_of(ctx, receiver, function).what in NOT_CONTAINERS:
        return True
    if not isinstance(receiver, cst.Name) or ctx.binding_kind(receiver, function) != "global":
        return False
    values = []
    for b in ctx.referents(receiver) or ():
        bound = ctx.bound_values.get(id(getattr(b, "node", None)))
        if not isinstance(bound, cst.Call):
            return False
        values.append(value_of(ctx, bound, None).what)
    return bool(values) and all(v in NOT_CONTAINERS for v in values)


def _creates_object(ctx, fw, value) -> bool:
    return isinstance(value, cst.Call) and any(fw.creates_variables(q) for q in ctx.qualified_names(value.func))



def _owner_class(project, write) -> str | None:
    """The class of the object an attribute write changes (the method's class for `self.x`,
    the constructed class for `model.x`), resolved in the project; None when unknown."""
    if not write.owner:
        return None
    found = project.resolve_class(write.owner)
    return found[1].qualname if found is not None else None


def _attr_writes(project, attr: str):
    yield from project.attr_writes(attr)


def _where(module: str, here: str, w) -> str:
    place = f"line {w.span.line}" if module == here else f"{module} line {w.span.line}"
    return f"`{w.text}`, {place}"


def _between_calls(project, reader, module: str, w) -> bool | None:
    """Program order where the module shows it (`analysis.order`): a module-level write
    (`m.scale = 2.0`), or a call of the method that writes (`m.configure(2.0)`), made between two
    calls of the reading code is seen stale (True); made only before the first call or only
    after the last, it changes nothing a trace sees (False). When the module does not show the
    calls (a library's setter, a method its users call), the order is unknown (None)."""
    from stagelint.analysis.order import shows_order, stale_between, writes_between

    readers = [reader]
    if w.function is None:
        if not shows_order(project, module, readers):
            return None
        return stale_between(project, module, readers, w.span.line, tuple(w.loop) if w.loop else None)
    writer = (module, w.function)
    if not shows_order(project, module, readers, writer):
        # the writer's own calls may show it: `f(x); m.v = ...; f(x)` in one function
        return True if calls_readers_around(project, readers, writer, [w.span.line]) else None
    return writes_between(project, module, readers, writer, [w.span.line])


def _reader_families(project, key, recv: str, cls: str | None) -> set[str]:
    """The classes an attribute read's object may belong to: `self`'s class family, or the
    families of the classes callers construct the argument from."""
    if recv == "self":
        return project.class_family(cls) if cls else set()
    family: set[str] = set()
    for _, _, arg in project.args_for(key, recv):
        if arg.cls and project.resolve_class(arg.cls) is not None:
            family |= project.class_family(project.resolved_class_name(arg.cls))
    return family


class StaleAttribute(Rule):
    """
    ## What it does
    Flags staged code that reads a plain Python attribute of `self` or of an argument object
    (`model.bias`, `self.scale`) when the project changes that attribute after a call of the
    same object has traced and before a later call reads it: `simple_model.bias += 5.0`
    between two `evaluate(simple_model, x)` at module level, `m.set_scale(2.0)` between two
    `m(x)` in a function (or in a loop that calls both on one object).

    A change the project's code does not order after a call (a public `set_scale()` method a
    library leaves to its users, a write in a function the project never calls between two
    calls) is in the preview tier (`--preview`): stale only if some caller does, which the code
    does not show (issue 23).

    Not flagged: attributes set only in `__init__`/`build` (and other set-up hooks such as
    `_create_slots`), or in helpers only set-up code calls (`self._check_axis(axis)` from
    `__init__`; a public one named as set-up too, `self.setup_propagator()` from `setup()` from
    `__init__`, when no code calls it on an object), or in a method that then binds the reading wrapper anew
    (`self.data = d; self.loglik = jax.jit(self._loglik)`: the new wrapper traces with the new
    value), or in a method that creates the object's variables (`shadow_copy` adding the
    slots whose list it keeps) or that makes the object's Keras layers or metrics and only set-up
    code calls (`self.create_vars()` from `__init__`, public or not, never called on an object), or lazily under
    `if self.x is None:`; attributes holding a `tf.Variable`, a list
    of variables (`model.trainable_variables`), a Keras object or a dict, list or tuple of Keras
    objects made there (`{"loss": tf.keras.metrics.Mean()}`; read at run time; replacing one
    is STG303); method calls and attribute chains (`self.dense(x)`, `self.v.assign(...)`); reassignments inside staged code itself
    (STG102/STG105 report those); functions staged afresh for each use, the guide's workaround
    (`tf.function(evaluate).get_concrete_function(model, x)` after each change); argument objects
    whose class the callers do not show; in program order, a module-level change (`m.scale = 2.0`,
    `m.configure(2.0)`) made only before the first call of the reading code or only after its last;
    a method whose every call in the project is made on an object the caller has just constructed,
    before any other use of it (`est = Estimator(); est.prepare(data)`, then `est.train_step()`:
    the object's first call, which traces, comes after the write);
    a TensorFlow Function no call of which reuses a trace (STG102 says when: a `@tf.function`
    method `__init__` alone calls once per object, a `@tf.function def __init__`, a method
    retraced on every call by a global step), which reads the value of the moment on every call;
    for code outside test modules, a change a test module makes (a test flipping a flag to
    exercise both branches says nothing of how the library is used). Under JAX, a `self` the
    jitted method receives as an argument (`@jax.jit def apply(self, x)`, and the methods it calls
    on `self`): JAX flattens it on every call, its children traced and its aux data keying the
    cache, so nothing of it is stale; a static (`static_argnums=0`) or bound
    (`jax.jit(self.step)`) `self` is flagged.

    ## Why is this bad?
    tf.function keys a trace on an object's identity, not on its attributes. Changing an
    attribute of the same object does not retrace, so later calls run the old graph with the
    value read at trace time: the guide's `evaluate(simple_model, x)` still returns 20.0 after
    `simple_model.bias += 5.0`, where eager code returns 25.0.

    ## Example
    ```python
    class SimpleModel(tf.Module):
        def __init__(self):
            self.bias = 0.
            self.weight = 2.

    @tf.function
    def evaluate(model, x):
        return model.weight * x + model.bias

    simple_model = SimpleModel()
    evaluate(simple_model, x)
    simple_model.bias += 5.0       # evaluate still uses 0.0
    ```

    ## Use instead
    ```python
    class BetterModel:
        def __init__(self):
            self.bias = tf.Variable(0.)
            self.weight = tf.Variable(2.)

    better_model.bias.assign_add(5.0)   # read by the graph on every call
    ```
    Or pass the changing value as a (tensor) argument.
    """

    code = "STG302"
    preview_under = {
        "jax": "Held back on repositories nobody here tuned on (bench/fresh_audit_notes.md), "
               "it was right 0 times in 26 findings in JAX code: the attributes were set before the "
               "first trace or were pytree fields JAX reads afresh.",
    }
    name = "stale-attribute"
    message = "{func} reads `{obj}`, a plain Python attribute that is reassigned elsewhere ({where}); the object is keyed by identity, so a call that reuses the trace keeps the old value; keep it in a `tf.Variable` updated with `.assign()`, or pass it as an argument"
    jax_message = "{func} reads `{obj}`, a plain Python attribute that is reassigned elsewhere ({where}); a static object is keyed by its hash, so a call that reuses the trace keeps the old value; pass the value as a traced argument, or make the object a pytree"
    valid = (
        """
        import tensorflow as tf

        class BetterModel:
            def __init__(self):
                self.bias = tf.Variable(0.)
                self.weight = tf.Variable(2.)

        @tf.function
        def evaluate(model, x):
            return model.weight * x + model.bias

        better_model = BetterModel()
        x = tf.constant(10.)
        evaluate(better_model, x)
        better_model.bias.assign_add(5.0)
        evaluate(better_model, x)
        """,
        """
        import tensorflow as tf

        class SimpleModel(tf.Module):
            def __init__(self):
                self.bias = 0.
                self.weight = 2.

        def evaluate(model, x):
            return model.weight * x + model.bias

        new_model = SimpleModel()
        x = tf.constant(10.)
        evaluate_no_bias = tf.function(evaluate).get_concrete_function(new_model, x)
        new_model.bias += 5.0
        evaluate_with_bias = tf.function(evaluate).get_concrete_function(new_model, x)
        """,
    )
    invalid = (
        """
        import tensorflow as tf

        class SimpleModel(tf.Module):
            def __init__(self):
                self.bias = 0.
                self.weight = 2.

        @tf.function
        def evaluate(model, x):
            return model.weight * x + model.bias  # STG302

        simple_model = SimpleModel()
        x = tf.constant(10.)
        print(evaluate(simple_model, x))
        simple_model.bias += 5.0
        print(evaluate(simple_model, x))
        """,
        """
        import tensorflow as tf

        class Scaler(tf.Module):
            def __init__(self):
                self.factor = 1.0

            def set_factor(self, factor):
                self.factor = factor

            @tf.function
            def __call__(self, x):
                return self._scale(x)

            def _scale(self, x):
                return x * self.factor  # STG302

        scaler = Scaler()
        scaler(tf.ones([2]))
        scaler.set_factor(2.0)
        scaler(tf.ones([2]))
        """,
    )

    def __init__(self, ctx):
        super().__init__(ctx)
        self._callees: set[int] = set()  # attribute nodes that are called or dereferenced further
        self._seen: set[tuple] = set()
        self._guarded: set[int] = set()  # blocks under `if self.x is None:` and the like
        self._guard_depth = 0

    def visit_Call(self, node: cst.Call) -> None:
        self._callees.add(id(node.func))

    def visit_If(self, node: cst.If) -> None:
        guard = self.ctx.first_call_guard(node.test)
        if not guard:
            return
        attributes = []
        stack = [node.test]
        while stack:
            n = stack.pop()
            if isinstance(n, cst.Attribute):
                attributes.append(n)
            stack.extend(n.children)
        func = self.ctx.function
        on_self = any(isinstance(a.value, cst.Name) and a.value.value == func.self_name for a in attributes) if func else False
        if func is not None and not on_self:
            # `getattr(self, "cache", None) is None`, `not hasattr(self, "table")`
            stack = [node.test]
            while stack and not on_self:
                n = stack.pop()
                if (
                    isinstance(n, cst.Call) and isinstance(n.func, cst.Name) and n.func.value in ("getattr", "hasattr")
                    and n.args and isinstance(n.args[0].value, cst.Name) and n.args[0].value.value == func.self_name
                ):
                    on_self = True
                stack.extend(n.children)
        if not on_self:
            return  # `if length is None:` on a local: not a set-once guard of the object
        # `if self._table is None:` / `if not self.built:`: a set-once check, not a use; and the
        # set-up it guards reads attributes once
        for a in attributes:
            self._callees.add(id(a))
        block = node.body if guard == "body" else node.orelse
        if block is not None:
            self._guarded.add(id(block))

    def visit_IndentedBlock(self, node) -> None:
        if id(node) in self._guarded:
            self._guard_depth += 1

    def leave_IndentedBlock(self, node) -> None:
        if id(node) in self._guarded:
            self._guard_depth -= 1

    visit_Else = visit_IndentedBlock
    leave_Else = leave_IndentedBlock

    def visit_Attribute(self, node: cst.Attribute) -> None:
        ctx = self.ctx
        self._callees.add(id(node.value))  # `self.v.assign(...)`: `self.v` is a receiver, not a value
        func = ctx.function
        if func is None or id(node) in self._callees or ctx.is_store_target(node):
            return
        if not ctx.in_staged_context or not isinstance(node.value, cst.Name) or self._guard_depth:
            return  # (under a first-call guard of the object: read by one-time set-up)
        kind = ctx.binding_kind(node.value, func)
        if kind not in ("self", "param"):
            return
        recv = "self" if kind == "self" else node.value.value
        seen = (func.qualname, recv, node.attr.value)
        if seen in self._seen:
            return
        self._seen.add(seen)
        self.report(node, obj=short_code(node), _attr=node.attr.value, _recv=recv,
                    _cls=func.facts.class_qualname if kind == "self" else None)

    @classmethod
    def confirm(cls, candidate, project, module):
        key = (module.module, candidate.function)
        if key not in project.unguarded:
            return False  # read only by one-time set-up behind a first-call guard
        if project.traced_only_afresh(key):
            return False  # a new Function per use sees the attribute's current value
        if no_reuse(project, key):
            return False  # each call traces and sees the attribute's current value
        if project.staged_by_jax(key) and not _jax_static_receiver(candidate, project, key):
            return False
        attr = candidate.fields["_attr"]
        family = _reader_families(project, key, candidate.fields["_recv"], candidate.fields.get("_cls"))
        writes = list(_attr_writes(project, attr))
        if not family:
            return False
        # A write on an object of unknown class counts when only this family declares the attribute.
        declarers = {_owner_class(project, w) for _, w in writes if w.on_self}
        unique = bool(declarers) and None not in declarers and declarers <= family
        changes, unordered = [], []
        library = not is_test_module(module.module)
        for mod, w in writes:
            owner = _owner_class(project, w)
            if owner is None:
                if w.owner or not unique:
                    continue
            elif owner not in family:
                continue
            if w.value in ("variable", "variables", "keras"):
                return False  # a variable (or a list of them) or Keras object attribute: read at run time
            if library and is_test_module(mod):
                continue  # a test toggling an attribute to exercise the library: not the library's use
            if w.in_init or w.guarded or (w.function is not None and (mod, w.function) in project.reached):
                continue  # set up once (`__init__`, `build`, `if self.x is None:`), or staged (STG102)
            if w.function is not None and project.runs_only_in_setup((mod, w.function), is_setup_method):
                continue  # a helper of `__init__`/`build`: `self._check_axis(axis)`
            if w.function is not None and w.on_self and _creates_variables(project, (mod, w.function)):
                continue  # `shadow_copy` adds the slots whose list it keeps: set-up by another name
            if w.function is not None and w.on_self and _builds_parts_in_setup(project, mod, w.function):
                continue  # `create_vars()` from `__init__` makes the layers: set-up by another name
            if w.function is not None and w.on_self and set_before_first_call(project, key, (mod, w.function), family):
                continue  # `est = Estimator(); est.prepare(data)` before `est.train_step()`
            if w.function is not None and w.on_self and remade_after(project, key, (mod, w.function), w.span.line):
                continue  # `self.data = d; self.loglik = jit(self._loglik)`: the new wrapper traces anew
            if w.around and owner is not None and between_calls(project, key, owner, *w.around, mod):
                changes.append((mod, w, f"`{w.function}` ({mod}) changes the attribute on an object after a call "
                                        f"of the Function that runs the reading code and before another one"))
                continue
            if w.function is not None and w.on_self:
                shown = called_between_calls(project, key, (mod, w.function), family)
                if shown is not None:
                    caller, at = shown
                    changes.append((mod, w, f"{caller or 'module-level code'} ({at}) calls "
                                            f"`{w.function.rsplit('.', 1)[-1]}` on an object after a call that runs "
                                            f"the reading code and before another one"))
                    continue
            between = _between_calls(project, key, mod, w)
            if between is False:
                continue  # made before the first call or after the last: no trace sees it stale
            if between:
                changes.append((mod, w, f"{_where(mod, module.module, w)} runs between two calls of the reading "
                                        f"code, in the module's own order"))
            else:
                unordered.append((mod, w))
        if changes:
            mod, w, order = changes[0]
            return {"where": _where(mod, module.module, w), "_because": [fact(
                f"{order}: the later call reuses the trace, made with the old value", candidate.span)]}
        if unordered:
            # A setter the project never calls between two calls of the Function (a library's
            # public method, a write its users may make): stale only if some caller does, which
            # the code does not show (issue 23, class 5).
            mod, w = unordered[0]
            where = _where(mod, module.module, w)
            return {"where": where, "_because": [fact(
                f"{where} may run between two calls of the reading code, but no code of the project "
                f"shows a call after a trace", candidate.span, HEURISTIC)]}
        return False


def _jax_static_receiver(candidate, project, key) -> bool:
    """Under JAX an argument object is a pytree (its attributes are traced, or static and hashed:
    a change retraces) unless it is a static argument; `self` is stale when static or bound
    (`jax.jit(self.step)`), not when passed to the transformation (`JaxView.traced_self`), in a
    frozen Flax Linen / Equinox module nor under `nnx.jit`."""
    jax = project.jax
    if key in jax.nnx_only:
        return False
    recv = candidate.fields["_recv"]
    if recv != "self":
        return recv in jax.static_params(key)
    if key in jax.traced_self:
        return False  # a pytree flattened on every call: its children are traced, its aux data keys the cache
    cls = candidate.fields.get("_cls")
    return not (cls and project.resolved_class_name(cls) in jax.frozen_modules)


class VariableRebinding(Rule):
    """
    ## What it does
    Flags code that replaces a `tf.Variable` staged code reads, instead of updating it: a global
    or enclosing-scope variable rebound (`v = v + 1`, `v += 1`, `v = tf.Variable(4)`), and an
    attribute that holds a variable (set up in `__init__`) reassigned elsewhere
    (`better_model.bias += 5`, `self.v = tf.Variable(0.)` in a `reset()` method).

    Not flagged: `.assign()`, `.assign_add()`, `.assign_sub()` (in-place updates, seen by the
    graph); variables never read by staged code; lazy creation under a first-call guard;
    rebinding inside staged code itself, which STG102/STG201/STG402 report; module-level
    bindings before the variable is created (`foo = 1` ... `foo = tf.Variable(1)`), and
    module-level rebindings that no call of one Function object reading it precedes and follows
    (made before the first call, or after the last: `traced = f.get_concrete_function(x)` and
    `traced(x)` count as calls; a Function defined below the rebinding, as in a notebook cell making
    `x = tf.Variable(6.0)` and then `@tf.function def add_print` reading `x`, closes over the new
    variable, however many older Functions read the old one). The same order holds for an attribute:
    replaced at module level before the first call or after the last, nothing is reported; replaced
    in a method or function that no code of the project shows between two calls of the Function (a
    `reset()` its users may call, a test that builds a layer and swaps its variable before any
    traced call), the finding is in the preview tier (`--preview`), since the default cannot tell
    when it runs. A name rebound in a function (`global step; step = tf.Variable(0)` in `reset()`, a
    closure variable rebound after its reader is made) follows the same order: reported when the
    code shows the function run between two calls of the Function (`f(x); reset(); f(x)` at module
    level, or the function calling it above and below the rebinding, or in a loop), not reported
    when the module calls the Function and that function only outside its calls, and in the preview
    tier when no code shows when it runs (a library); rebound above the `def` of the nested readers,
    outside any loop, it is not reported (each run binds it, then makes readers whose first trace
    reads it). `obj.v += 1` on a variable attribute is reported wherever it runs: it raises
    `RuntimeError`.

    ## Why is this bad?
    A traced function captures the variable object itself. Rebinding the name or the attribute
    to a new variable or tensor does not change what the graph reads: the function keeps using
    the old variable and returns stale results (with old TensorFlow versions, the old variable
    may be garbage collected and the call fails). `v += 1` on a variable raises `RuntimeError`
    in TensorFlow 2.21.

    ## Example
    ```python
    external_var = tf.Variable(3)

    @tf.function
    def f(x):
        return x * external_var

    external_var = tf.Variable(4)      # f keeps multiplying by 3
    ```

    ## Use instead
    ```python
    external_var.assign(4)             # f sees 4
    ```
    """

    code = "STG303"
    name = "variable-rebinding"
    message = "`{text}` replaces the tf.Variable `{name}` that {func} reads: {consequence}; update it in place with `{fix}`"
    jax_message = "`{text}` rebinds `{name}` that {func} reads: the compiled function keeps the old one; update it in place, or pass it as an argument"
    valid = (
        """
        import tensorflow as tf

        foo = tf.Variable(1)

        @tf.function
        def variable_add():
            return 1 + foo

        print(variable_add())
        foo.assign(100)
        print(variable_add())
        """,
        """
        import tensorflow as tf

        class BetterModel:
            def __init__(self):
                self.bias = tf.Variable(0.)
                self.weight = tf.Variable(2.)

            def reset(self):
                self.bias.assign(0.)

        @tf.function
        def evaluate(model, x):
            return model.weight * x + model.bias

        better_model = BetterModel()
        evaluate(better_model, tf.constant(10.))
        better_model.bias.assign_add(5.0)
        """,
    )
    invalid = (
        """
        import tensorflow as tf

        external_var = tf.Variable(3)

        @tf.function
        def f(x):
            return x * external_var

        print(f(4))
        external_var = tf.Variable(4)  # STG303
        print(f(4))
        """,
        """
        import tensorflow as tf

        class BetterModel:
            def __init__(self):
                self.bias = tf.Variable(0.)
                self.weight = tf.Variable(2.)

        @tf.function
        def evaluate(model, x):
            return model.weight * x + model.bias

        better_model = BetterModel()
        x = tf.constant(10.)
        print(evaluate(better_model, x))
        better_model.bias += 5  # STG303
        print(evaluate(better_model, x))
        """,
    )

    def __init__(self, ctx):
        super().__init__(ctx)
        self.reads: dict[tuple, list] = {}  # (name, its binding scopes) -> [(function, Name node)]
        self.holders: dict[int, object] = {}  # Name target -> the function holding the binding
        self._loops: list = []  # every for/while loop, for "rebound in a module-level loop"

    def visit_Name(self, node: cst.Name) -> None:
        ctx = self.ctx
        func = ctx.function
        if func is None or not ctx.in_staged_context or func.declared.get(node.value):
            return
        if ctx.binding_kind(node, func) in ("global", "closure"):
            # one group per variable: the same name bound in two functions is two variables
            scopes = tuple(sorted({id(b.scope) for b in ctx.bindings_of(node) if getattr(b, "scope", None) is not None}))
            self.reads.setdefault((node.value, scopes), []).append((func, node))

    def visit_Assign(self, node: cst.Assign) -> None:
        for t in node.targets:
            if isinstance(t.target, cst.Name):
                self.holders[id(t.target)] = self.ctx.function

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        if isinstance(node.target, cst.Name):
            self.holders[id(node.target)] = self.ctx.function

    def finish(self) -> None:
        ctx = self.ctx
        fw = ctx.framework
        for (name, _), reads in self.reads.items():
            func, node = reads[0]
            bindings = ctx.bindings_of(node)
            scopes = {id(b.scope): b.scope for b in bindings if getattr(b, "scope", None) is not None}
            assignments = [a for s in scopes.values() for a in s.assignments[name]
                           if isinstance(getattr(a, "node", None), cst.Name)]
            if any(isinstance(a, ImportAssignment) for a in assignments):
                continue
            assignments.sort(key=lambda a: (ctx.position(a.node).line, ctx.position(a.node).column))
            creations = [a for a in assignments if _creates_variable(ctx, fw, ctx.bound_values.get(id(a.node)))]
            if not creations:
                continue
            original = creations[0]
            anchors = sorted({(ctx.module, f.qualname) for f, _ in reads})
            first = ctx.position(original.node)
            for a in assignments:
                if a is original or ctx.exclusive(a.node, original.node):
                    continue
                holder = self.holders.get(id(a.node))
                order = None
                if holder is None and id(a.node) in ctx.branch_paths:
                    # module level, in program order: `foo = 1` before `foo = tf.Variable(1)`
                    # replaces no variable; after it, only a rebinding between a trace and a
                    # later call is seen stale (`analysis.order`)
                    here = ctx.position(a.node)
                    loop = _outermost_loop(ctx, self._loops, a.node)
                    if (here.line, here.column) < (first.line, first.column) and loop is None:
                        continue
                    span = None
                    if loop is not None:
                        p = ctx.position(loop)
                        span = [p.line, p.end_line]
                    order = [here.line, span]
                value = ctx.bound_values.get(id(a.node))
                augmented = isinstance(value, cst.AugAssign)
                unordered = None  # under TensorFlow (`confirm`): a rebinding in a function
                if holder is not None and not augmented:
                    unordered = "before readers" if self._before_readers_exist(a.node, holder, reads) else "unordered"
                text = short_code(value, 50) if augmented else f"{name} = {short_code(value, 40)}" if value is not None else name
                self.report(a.node, function=holder, text=text, name=name,
                            consequence=_consequence(augmented), fix=_fix(value), _order=order,
                            _anchors=[list(k) for k in anchors], _holder=holder.qualname if holder else None,
                            _unordered=unordered)

    def _before_readers_exist(self, node, holder, reads) -> bool:
        """`node`, a rebinding in `holder`, runs before any of the staged readers exists: each is a
        function nested in `holder` whose `def` comes below `node`, and no loop of `holder` holds
        `node` (`if seed: gen = from_seed(seed)` / `else: gen = ...` then `def pick(x):` reading
        `gen`): each run of `holder` makes new readers that first trace with the last binding."""
        ctx = self.ctx
        here = ctx.position(node)
        if any(ctx.inside(node, lp) and ctx.inside(lp, holder.node) for lp in self._loops):
            return False
        for func, _ in reads:
            if func.parent is not holder:
                return False
            at = ctx.position(func.node)
            if (at.line, at.column) <= (here.line, here.column):
                return False
        return True

    def visit_For(self, node: cst.For) -> None:
        self._loops.append(node)

    def visit_While(self, node: cst.While) -> None:
        self._loops.append(node)

    @classmethod
    def confirm(cls, candidate, project, module):
        holder = candidate.fields.get("_holder")
        if holder and (module.module, holder) in project.reached:
            return False  # staged writes: STG102/201
        unordered = candidate.fields.get("_unordered")
        if unordered and not any(project.staged_by_jax(tuple(a)) for a in candidate.fields.get("_anchors", ())):
            if unordered == "before readers":
                return False  # the readers are defined below it, in the same run: no trace holds the old one
            readers = [tuple(a) for a in candidate.fields.get("_anchors", ())]
            # `f(x); v = tf.Variable(4); f(x)` in one function, a writer the readers call, a writer
            # called between two module-level calls: the later call reuses the trace (True); the
            # module calls the readers and the writer only outside them (False); a library (None)
            between = writes_between(project, module.module, readers, (module.module, holder), [candidate.span.line])
            if between is None:
                return {"_preview": _UNORDERED_REBINDING}
            return between
        order = candidate.fields.get("_order")
        if order is not None:
            from stagelint.analysis.order import stale_between

            line, loop = order
            readers = [tuple(a) for a in candidate.fields.get("_anchors", ()) if a[0] == module.module]
            return stale_between(project, module.module, readers, line, tuple(loop) if loop else None)
        return True

    @classmethod
    def project_candidates(cls, project):
        """Variable attributes reassigned outside set-up code, read by staged code."""
        readers: dict[str, list] = {}
        for key in sorted(project.reached):
            f = project.function(key)
            if f is None:
                continue
            for recv, attr in f.attr_reads:
                readers.setdefault(attr, []).append((key, recv, f.class_qualname))
        out = []
        for mod in sorted(project.modules):
            for w in project.modules[mod].attr_writes:
                if w.in_init or w.attr not in readers:
                    continue
                if w.function is not None and (mod, w.function) in project.reached:
                    continue
                owner = _owner_class(project, w)
                if owner is None:
                    continue
                family = project.class_family(owner)
                created = any(
                    w2 is not w and w2.value == "variable" and _owner_class(project, w2) in family
                    and (w2.in_init or (w2.function is not None and (m2, w2.function) in project.reached))
                    for m2, w2 in _attr_writes(project, w.attr)
                )
                if not created:
                    continue
                anchors = [list(key) for key, recv, cls_ in readers[w.attr]
                           if owner in _reader_families(project, key, recv, cls_)]
                if not anchors:
                    continue
                # `v += 1` raises RuntimeError on a variable wherever it runs; a replacement is
                # stale only between two calls of the Function
                order = [True] if w.augmented else [_between_calls(project, tuple(key), mod, w) for key in anchors]
                if not any(order) and None not in order:
                    continue  # replaced before the first call or after the last: no trace holds the old one
                fields = {
                    "text": w.text, "name": w.attr, "consequence": _consequence(w.augmented),
                    "fix": ".assign_add(...)" if w.augmented else ".assign(...)", "_anchors": anchors,
                }
                if not any(order):
                    fields["_preview"] = _UNORDERED_REPLACEMENT
                out.append((mod, F.Candidate(cls.code, w.function, w.span, fields)))
        return out


def _creates_variable(ctx, fw, value) -> bool:
    return isinstance(value, cst.Call) and any(q in fw.variable_constructors for q in ctx.qualified_names(value.func))


def _consequence(augmented: bool) -> str:
    if augmented:
        return "`+=` on a tf.Variable raises RuntimeError, and a rebound variable is never seen by the traced function"
    return "the traced function keeps reading the old variable"


def _fix(value) -> str:
    if isinstance(value, cst.AugAssign):
        op = {cst.AddAssign: "assign_add", cst.SubtractAssign: "assign_sub"}.get(type(value.operator), "assign")
        return f".{op}(...)"
    return ".assign(...)"
