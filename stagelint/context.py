"""The one traversal of a file, and the questions rules ask while it runs.

`analyze_module` parses nothing itself: it takes a parsed module, resolves the metadata the
rules use (qualified names, scopes, positions) once, and walks the tree once. During the walk
`FileContext` keeps its own stack of functions, classes, first-call guards and lifting scopes
(cheaper than ParentNodeProvider), records the facts the project phase needs (functions,
calls, staging markers), and dispatches every node to the rules' `visit_*` / `leave_*`.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field

import libcst as cst
from libcst.metadata import (
    BuiltinAssignment,
    ClassScope,
    FunctionScope,
    GlobalScope,
    ImportAssignment,
    QualifiedNameSource,
)

from libcst._nodes.internal import CodegenState

from stagelint import facts as F
from stagelint.fastmeta import Metadata, fast_traversal, walk
from stagelint.frameworks import size_argument
from stagelint.trivia import TRIVIA as _TRIVIA, inner_nodes
from stagelint.frameworks import (
    BUILDING_METHODS,
    CONFIG_KEYWORDS,
    CONVERSION_OPS,
    LIST_TAKING_OPS,
    MAPPING_TYPES,
    MUTATING_METHODS,
    EAGER_TESTS,
    GET_OR_CREATE_CALLS,
    KERAS_SETUP_HOOKS,
    KERAS_STEP_METHODS,
    KERAS_TRAINING_METHODS,
    PARTIAL_CALLS,
    PYTHON_CONTAINER_TYPES,
    PYTHON_OPTION_TYPES,
    PYTHON_SCALAR_TYPES,
    SEQUENCE_TESTS,
    TRACING_TESTS,
    VARIABLE_LIST_ATTRIBUTES,
    Framework,
)

_EMPTY = cst.Module([])

#: Framework calls that take tensors without returning one.
TENSOR_CHECKS = ("tensorflow.debugging.", "tensorflow.print", "tensorflow.summary.")

#: Methods that set an object up: attributes first assigned there are not "reassigned elsewhere".
#: (`compile` too: Keras drops its traced train/test functions when a model is compiled again.)
SETUP_METHODS = frozenset({"__init__", "__post_init__", "build", "compile", "setUp", "setup", "__setstate__",
                           # variable-creation hooks (Keras 2 optimizers, TF-Agents networks): run once
                           "_create_slots", "_create_hypers", "_create_all_weights", "create_variables",
                           "_create_variables"})


def is_setup_method(name: str) -> bool:
    """`__init__`, `build` and its helpers (`_build_head`, `int8_build`): they run before tracing."""
    return (name in SETUP_METHODS or name in KERAS_SETUP_HOOKS or name.startswith(("build", "_build"))
            or name.endswith("_build"))


def code_of(node: cst.CSTNode) -> str:
    return _EMPTY.code_for_node(node)


def short_code(node: cst.CSTNode, limit: int = 40) -> str:
    """The node's code on one line (whitespace runs made one space), cut to `limit` characters.
    Only as much code is generated as the cut needs: a statement's text (`AttrWrite.text`, a
    call's argument) is often long, its code generation was a twentieth of a file's analysis."""
    code = _plain_code(node)
    if code is None:
        state = _PrefixState(default_indent=_EMPTY.default_indent, default_newline=_EMPTY.default_newline)
        state.limit = limit
        try:
            node._codegen(state)
        except _Enough:
            pass
        code = "".join(state.tokens)
    # A prefix's words are the whole text's first words (its last one maybe cut short), so the
    # cut of a prefix longer than `limit` is the cut of the whole text.
    text = " ".join(code.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


_ATOMS = frozenset({cst.Name, cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString})


def _plain_code(node: cst.CSTNode) -> str | None:
    """The code of a name, a number, a string or a dotted name (`tf.keras.layers`), unparenthesized,
    as libcst generates it, or None for any other node. Two thirds of `short_code`'s questions:
    libcst's code generation for them (a context manager per node for its parentheses) cost ten
    times the string concatenation."""
    kind = type(node)
    if kind in _ATOMS:
        return None if node.lpar else node.value
    if kind is not cst.Attribute or node.lpar:
        return None
    value = _plain_code(node.value)
    before, after = node.dot.whitespace_before, node.dot.whitespace_after
    if value is None or type(before) is not cst.SimpleWhitespace or type(after) is not cst.SimpleWhitespace:
        return None  # `(x)\n    .y`: a line break inside brackets
    return value + before.value + "." + after.value + node.attr.value


class _Enough(Exception):
    """Code generation for `short_code` stops: enough text for the cut."""


class _PrefixState(CodegenState):
    limit = 0
    size = 0  # characters generated so far
    check_at = 0  # `size` past which the text may be long enough

    def add_token(self, value: str) -> None:
        self.tokens.append(value)
        self._grown(len(value))

    def add_indent_tokens(self) -> None:
        self.tokens.extend(self.indent_tokens)
        self._grown(sum(map(len, self.indent_tokens)))

    def _grown(self, by: int) -> None:
        self.size += by
        if self.size > max(self.limit, self.check_at):
            words = len(" ".join("".join(self.tokens).split()))
            if words > self.limit:
                raise _Enough
            # the one-line text grows by at most what is generated: no need to look before then
            self.check_at = self.size + (self.limit - words)


@dataclass
class FunctionInfo:
    """A function being walked. `facts` is what survives the walk."""

    node: cst.FunctionDef
    facts: F.FunctionFacts
    parent: FunctionInfo | None
    is_method: bool
    self_name: str | None
    defaults: dict[str, cst.BaseExpression] = field(default_factory=dict)
    #: names declared `global` / `nonlocal` in this function -> "global" / "nonlocal"
    declared: dict[str, str] = field(default_factory=dict)
    #: names the function tests for being a list/tuple (`isinstance(x, (list, tuple))`,
    #: `tree.is_nested(x)`): they may hold a structure of tensors rather than one tensor
    sequence_names: set[str] = field(default_factory=set)
    #: the expressions its own `return` statements return (for its summary, `analysis.values`)
    returns: list = field(default_factory=list)

    @property
    def qualname(self) -> str:
        return self.facts.qualname

    @property
    def self_class(self) -> str | None:
        """The class `self` belongs to: a method's, or for a lambda, its enclosing method's."""
        if self.facts.class_qualname:
            return self.facts.class_qualname
        if isinstance(self.node, cst.Lambda) and self.parent is not None:
            return self.parent.self_class
        return None


class FileContext:
    def __init__(self, path: str, module: str, is_package: bool, settings, framework: Framework):
        self.path = path
        self.module = module
        self.is_package = is_package
        self.settings = settings
        self.framework = framework
        self.facts = F.ModuleFacts(path=path, module=module, is_package=is_package)
        #: (scope id, name) -> {Name node id: its access} (`referents`)
        self._access_index: dict[tuple, dict] = {}
        #: (Name id, FunctionInfo id) -> (name, function, `binding_kind`'s answer)
        self._kind_memo: dict[tuple, tuple] = {}
        #: Name id -> (name, `referents`' answer)
        self._referents_memo: dict[int, tuple] = {}
        #: Names of this tree that are no variable (`x.attr`'s attr, `f(key=...)`'s key): libcst's
        #: scope analysis records no access for them, and rules ask about every Name they meet.
        self._never_accessed: set[int] = set()
        #: module scope id -> names bound by `import tensorflow [as tf]` (`fix.tensorflow_alias`)
        self.tf_import_names: dict[int, set[str]] = {}
        self.functions: list[FunctionInfo] = []  # the walk's function stack
        self.classes: list[F.ClassFacts] = []
        self._class_nodes: list[cst.ClassDef] = []
        self.guard_depth = 0
        self.lifted_depth = 0
        self.loop_depth = 0  # Python loops of the current function (reset per function)
        self._loop_stack: list[int] = []
        self._guarded_blocks: set[int] = set()
        self._lifted_blocks: set[int] = set()
        #: Blocks that never run while tracing: the body of `if tf.executing_eagerly():`, the `else:`
        #: of `if in_tf_function():`. Block id -> "" (certainly) or the target of a project predicate
        #: that decides it (`self._use_tf_workflow()`); `eager_stack` holds the enclosing ones.
        self._eager_blocks: dict[int, object] = {}
        self.eager_stack: list = []
        self._saved_eager: list[list] = []
        self._escaped_lambdas: set[int] = set()
        self.escaped_depth = 0
        #: Lambdas a `tf.data` transformation traces: walked as functions of their own.
        self._dataset_lambdas: set[int] = set()
        #: functions whose decorators are being walked (taken off `functions` meanwhile)
        self._decorated: list[FunctionInfo] = []
        self.module_node: cst.Module | None = None
        #: Name node (target of a binding) -> the expression bound to it.
        self.bound_values: dict[int, cst.BaseExpression] = {}
        #: Name node of a module-level binding -> the if/try branches it sits in.
        self.branch_paths: dict[int, tuple] = {}
        self._branch_stack: list[tuple[int, str]] = []
        self._branch_of: dict[int, tuple[int, str]] = {}
        #: Name nodes bound by a `for` target or an augmented assignment (always rebinding).
        self.rebinding_targets: set[int] = set()
        #: Binding Name nodes bound inside loops (a closure over them sees the last value).
        self.loop_bound: set[int] = set()
        self._meta = None
        self._rules = []
        self._saved_depths: list[tuple] = []
        #: (function, node, kind, target, value, guarded) for stores/mutations in traced code
        self.raw_stores: list[tuple] = []
        self._store_sites = None
        #: Per-file memos of the shared inferences (tensors.py), keyed by what they answer.
        self.memo: dict[str, dict] = {}
        self._class_fn_depth: list[int] = []
        #: Top-level package names of the files being checked: calls into them are call sites.
        self.project_roots: frozenset[str] = frozenset()
        #: The loops (For/While nodes) enclosing the current node, in the current function only.
        self.loops: list[cst.For | cst.While] = []
        self._saved_loops: list[list] = []
        #: Regions rules mark on nodes before the walk reaches them (`mark_region`); `regions` is
        #: the stack of the marks enclosing the current node, innermost last.
        self.regions: list[str] = []
        self._region_of: dict[int, str] = {}
        #: `self.attr = value` in methods of this file: (class qualname, attr) -> values bound.
        self.self_attr_values: dict[tuple[str, str], list[cst.BaseExpression]] = {}
        #: Staging calls whose Function is used once, right away: `tf.function(f)(x)`.
        self._fresh_staging_calls: set[int] = set()
        #: Attribute nodes that are assignment targets (stores, not reads).
        self._store_attributes: set[int] = set()
        #: Call sites whose arguments are described at the end of the walk.
        self._pending_sites: list[tuple] = []
        #: Every function's walk record, by its def node (for summaries asked after the walk).
        self.function_infos: dict[int, FunctionInfo] = {}
        #: Name nodes bound by a comprehension's `for` -> that CompFor (a value per element).
        self.comprehension_targets: dict[int, cst.CompFor] = {}

    # Metadata -------------------------------------------------------------------------------

    def position(self, node: cst.CSTNode) -> F.Span:
        line, column, end_line, end_column = self._meta.position(node)
        return F.Span(line, column + 1, end_line, end_column + 1)

    def scope(self, node: cst.CSTNode):
        return self._meta.scope(node)

    def qualified_names(self, node: cst.CSTNode) -> set[str]:
        """Absolute qualified names of an expression: aliases undone, relative imports and
        module-local names made absolute (`helper` in pkg/mod.py is `pkg.mod.helper`).
        Asked of the same node by many rules: resolved once per node (a fresh set each time,
        callers may change theirs)."""
        memo = self.__dict__.get("_qualified_memo")
        if memo is None:
            memo = self.__dict__["_qualified_memo"] = {}
        key = id(node)
        known = memo.get(key)
        if known is not None and known[0] is node:
            return set(known[1])
        out = self._absolute_names(node)
        memo[key] = (node, frozenset(out))
        return out

    def _absolute_names(self, node: cst.CSTNode) -> set[str]:
        names = self._meta.qualified_names(node)
        out = set()
        for q in names:
            if q.source == QualifiedNameSource.IMPORT and q.name.startswith("."):
                out.add(self.absolute_import(q.name))
            elif q.source == QualifiedNameSource.LOCAL:
                out.add(f"{self.module}.{q.name}" if self.module else q.name)
            else:
                out.add(q.name)
        return out

    def absolute_import(self, dotted: str) -> str:
        level = len(dotted) - len(dotted.lstrip("."))
        parts = self.module.split(".") if self.module else []
        package = parts if self.is_package else parts[:-1]
        if level > 1:
            package = package[: len(package) - (level - 1)]
        rest = dotted[level:]
        return ".".join([*package, rest] if rest else package)

    def resolves_to(self, node: cst.CSTNode, names) -> str | None:
        for q in self.qualified_names(node):
            if q in names:
                return q
        return None

    def is_framework_call(self, node: cst.Call) -> str | None:
        """The framework qualified name a call resolves to, if any."""
        for q in self.qualified_names(node.func):
            if self.framework.owns(q):
                return q
        return None

    def referents(self, name: cst.Name):
        """The bindings a Name load refers to (libcst scope analysis), or None if unknown; in
        source order (libcst keeps them in a set, whose order follows object addresses and so
        changes from one analysis to the next: a rule that takes the first would not be
        deterministic)."""
        if id(name) in self._never_accessed:
            return None
        known = self._referents_memo.get(id(name))
        if known is not None and known[0] is name:
            return known[1]
        refs = self._referents(name)
        self._referents_memo[id(name)] = (name, refs)
        return refs

    def _referents(self, name: cst.Name):
        scope = self.scope(name)
        if scope is None:
            return None
        # Indexed once per scope and name: a search through every access of `tf` at module
        # level, once per decorator, made a file of N functions cost N^2 (issue 12).
        key = (id(scope), getattr(name, "value", None) if isinstance(name, cst.Name) else id(name))
        index = self._access_index.get(key)
        if index is None:
            index = self._access_index[key] = {id(a.node): a for a in scope.accesses[name]}
        access = index.get(id(name))
        if access is None or access.node is not name:
            return None
        refs = access.referents
        return tuple(sorted(refs, key=self._binding_order)) if len(refs) > 1 else tuple(refs)

    def reaching(self, name: cst.Name, func: FunctionInfo | None):
        """The bindings of a local Name load that reach it in program order: when a plain
        assignment of the name comes before the load in the same straight-line code (its block,
        or an enclosing one, with no loop or branch binding it in between), only that one; all of
        libcst's referents otherwise (`x = embeddings` ... `x = layer(x)`; `x, s = x` sees the
        second)."""
        refs = self.referents(name)
        if refs is None or len(refs) < 2 or func is None:
            return refs
        memo = self.memo.setdefault("reaching", {})
        key = id(name)
        if key not in memo:
            memo[key] = self._reaching(name, func, refs)
        return memo[key]

    def _reaching(self, name: cst.Name, func: FunctionInfo, refs):
        nodes = {id(getattr(r, "node", None)): r for r in refs}
        where = self._meta.position(name)[:2]
        path = []  # (statements, index of the one holding the load), outermost first
        block = func.node.body
        while isinstance(block, cst.IndentedBlock):
            stmts = block.body
            index = next((i for i, st in enumerate(stmts) if _holds(self, st, where)), None)
            if index is None:
                return refs
            path.append((stmts, index))
            stmt = stmts[index]
            inner = None
            for child in _blocks_of(stmt):
                if _holds(self, child, where):
                    inner = child
                    break
            block = inner
        for stmts, index in reversed(path):
            if stmts is not path[-1][0] and isinstance(stmts[index], (cst.For, cst.While)):
                return refs  # not bound earlier in the loop's body: a later binding in it reaches
            for st in reversed(stmts[:index]):
                if isinstance(st, cst.SimpleStatementLine):
                    for small in reversed(st.body):
                        targets = ()
                        if isinstance(small, cst.Assign):
                            targets = [t.target for t in small.targets]
                        elif isinstance(small, cst.AnnAssign) and small.value is not None:
                            targets = [small.target]
                        for t in targets:
                            for n in target_names(t):
                                if n.value == name.value and id(n) in nodes:
                                    return (nodes[id(n)],)
                    continue
                if any(_within(self, getattr(r, "node", None), st) for r in refs):
                    return refs  # bound in a branch or loop before it: several may reach
        return refs

    def _binding_order(self, binding) -> tuple:
        node = getattr(binding, "node", None)
        try:
            where = self._meta.position(node) if node is not None else (0, 0, 0, 0)
        except KeyError:
            where = (0, 0, 0, 0)
        return (where, type(binding).__name__, getattr(binding, "name", ""))

    # Where a name lives -----------------------------------------------------------------------

    def binding_kind(self, name: cst.Name, func: FunctionInfo | None = None) -> str:
        """"local", "param", "self", "global", "closure", "import", "builtin" or "unknown"."""
        if id(name) in self._never_accessed:
            return "unknown"  # what `_binding_kind` says of a name without referents
        func = func or self.function
        # Asked about the same Name by many rules and by the value model (three times per
        # (name, function) on tf-models-official): answered once. The answer depends only on the
        # scope analysis and the function, both fixed for the file; the memo keeps the node and
        # the function alive, so their ids are not reused by other objects.
        memo = self._kind_memo
        key = (id(name), id(func))
        known = memo.get(key)
        if known is not None and known[0] is name and known[1] is func:
            return known[2]
        kind = self._binding_kind(name, func)
        memo[key] = (name, func, kind)
        return kind

    def _binding_kind(self, name: cst.Name, func: FunctionInfo | None) -> str:
        refs = self.referents(name)
        if not refs:
            return "unknown"
        # Exact type tests against the classes and their subclasses: libcst's scopes and
        # assignments are ABCs, whose failed `isinstance` is a Python call (a sixth of this).
        own = self.scope(func.node.body) if func is not None else None
        if func is not None and type(func.node) is cst.Lambda and func.parent is not None:
            if not any(r.scope is own or _nested_in(r.scope, own) for r in refs if type(r) not in _BUILTIN_BINDINGS):
                # a lambda walked as a function of its own (`ds.map(lambda x: self._parse(x))`):
                # what the enclosing function binds is a closure to it, `self` still `self`
                kind = self.binding_kind(name, func.parent)
                return "closure" if kind in ("local", "param") else kind
        kinds = set()
        for r in refs:
            binding = type(r)
            scope = type(r.scope)
            if binding in _BUILTIN_BINDINGS:
                kinds.add("builtin")
            elif binding in _IMPORT_BINDINGS:
                kinds.add("import")
            elif scope in _GLOBAL_SCOPES:
                kinds.add("global")
            elif scope in _FUNCTION_SCOPES and func is not None and r.scope is own:
                if type(r.node) is cst.Param:
                    kinds.add("self" if func.self_name == name.value else "param")
                else:
                    kinds.add("local")
            elif scope in _CLASS_SCOPES:
                kinds.add("unknown")
            elif func is not None and _nested_in(r.scope, own):
                kinds.add("local")  # a lambda's parameter, a comprehension's variable
            else:
                kinds.add("closure")
        for k in ("self", "global", "closure", "param", "import", "builtin", "local"):
            if k in kinds:
                return k
        return "unknown"

    def bindings_of(self, name: cst.Name) -> list:
        refs = self.referents(name) or ()
        return [r for r in refs if type(r) not in _BUILTIN_BINDINGS]

    def exclusive(self, a: cst.CSTNode, b: cst.CSTNode) -> bool:
        """Two module-level bindings in different branches of one if/else or try/except."""
        pa, pb = self.branch_paths.get(id(a)), self.branch_paths.get(id(b))
        if pa is None or pb is None:
            return False
        for x, y in zip(pa, pb):
            if x != y:
                return x[0] == y[0]
        return False

    # Reporting --------------------------------------------------------------------------------

    @property
    def function(self) -> FunctionInfo | None:
        return self.functions[-1] if self.functions else None

    def report(self, rule, node: cst.CSTNode, fields: dict, function: FunctionInfo | None = None) -> None:
        func = function if function is not None else self.function
        if func is None and not rule.always and not fields.get("_anchors"):
            return  # module-level code is never staged, unless the finding names what it concerns
        self.facts.candidates.append(
            F.Candidate(rule.code, func.qualname if func else None, self.position(node), dict(fields))
        )

    @property
    def in_staged_context(self) -> bool:
        """False inside `tf.init_scope()` or a `tf.py_function` lambda: that code is not in the graph."""
        return self.lifted_depth == 0 and self.escaped_depth == 0

    # The walk's own bookkeeping ---------------------------------------------------------------

    def _enter_function(self, node: cst.FunctionDef) -> None:
        cls = self.current_class_for_methods()
        parent = self.function if cls is None else None
        if parent is not None:
            qualname = f"{parent.qualname}.<locals>.{node.name.value}"
        elif cls is not None:
            qualname = f"{self.relative(cls.qualname)}.{node.name.value}"
        else:
            qualname = node.name.value
        all_params = (*node.params.posonly_params, *node.params.params, *node.params.kwonly_params)
        params = [p.name.value for p in all_params]
        defaults = {p.name.value: p.default for p in all_params if p.default is not None}
        decorator_names = set()
        signature, autograph = False, True
        for dec in node.decorators:
            target = dec.decorator.func if isinstance(dec.decorator, cst.Call) else dec.decorator
            names = self.qualified_names(target)
            decorator_names |= names
            if isinstance(dec.decorator, cst.Call) and names & self.framework.staging_decorators:
                signature, autograph = staging_options(dec.decorator)
        from stagelint.jaxstaging import decorated_api, record_decorated

        jax_api = decorated_api(self, node) if node.decorators else None
        if jax_api is not None:
            decorator_names.add(jax_api)  # `@partial(jax.jit, ...)` stages too
            autograph = False  # JAX has no AutoGraph
        is_method = cls is not None and "builtins.staticmethod" not in decorator_names
        facts = F.FunctionFacts(
            qualname=qualname,
            name=node.name.value,
            span=self.position(node.name),
            class_qualname=cls.qualname if is_method else None,
            params=params,
            literal_default_params={n for n, d in defaults.items() if _is_literal_default(d)},
            python_default_params={n for n, d in defaults.items() if _is_python_option(d)}
            | {p.name.value for p in all_params if p.annotation is not None
               and self._python_option_type(p.annotation.annotation)},
            python_container_params={p.name.value for p in all_params if p.annotation is not None
                                     and self._python_container_type(p.annotation.annotation)},
            decorators=sorted(decorator_names),
            input_signature=signature,
            autograph=autograph,
        )
        star = node.params.star_arg
        if isinstance(star, cst.Param):
            facts.varargs = star.name.value
            facts.varargs_at = len(node.params.posonly_params) + len(node.params.params)
        if decorator_names & (self.framework.staging_decorators | set(self.settings.staging_decorators)):
            facts.staged_by = "decorator"
            for dec in node.decorators:
                if isinstance(dec.decorator, cst.Call):
                    facts.tensor_params |= self._spec_params(dec.decorator, params[1:] if is_method else params)
        if decorator_names & self.framework.eager_escapes:
            facts.escape = True
        info = FunctionInfo(node, facts, parent, is_method, params[0] if is_method and params else None, defaults)
        if parent is None and cls is None:
            self._redefining(qualname)
        self.facts.functions[qualname] = facts
        if jax_api is not None:
            record_decorated(self, node, qualname)
        self.function_infos[id(node)] = info
        self.functions.append(info)
        facts.tracing_test = tracing_test(self, node)
        self._open_body()

    def _open_body(self) -> None:
        """A function's body starts afresh: no enclosing loops, guards or eager branches (they
        are the caller's, restored by `_leave_function`)."""
        self._saved_eager.append(self.eager_stack)
        self.eager_stack = []
        self._saved_depths.append((self.loop_depth, self.guard_depth, self._loop_stack))
        self.loop_depth = 0
        self.guard_depth = 0
        self._loop_stack = []
        self._saved_loops.append(self.loops)
        self.loops = []

    def _redefining(self, name: str) -> None:
        """A module-level `def name` / `class name` about to bind a name an earlier def or class
        holds (notebooks and guides redefine `train`, `f`, `Model` cell after cell): the earlier
        definition keeps its facts under `name@line`, its own location, and everything recorded
        so far that named it (calls, Function wrappers, methods, attribute writes) now names it
        there: code before the redefinition reaches the earlier one, as Python runs it. What
        comes after binds to the new definition, which takes the plain name."""
        earlier = self.facts.functions.get(name)
        absolute = f"{self.module}.{name}" if self.module else name
        if earlier is not None:
            line = earlier.span.line
        elif absolute in self.facts.classes and self.facts.classes[absolute].span is not None:
            line = self.facts.classes[absolute].span.line
        else:
            return
        F.relocate(self.facts, name, f"{name}@{line}", self.module)
        for (cls, attr), values in list(self.self_attr_values.items()):
            moved = F.moved_name(cls, absolute, f"{absolute}@{line}")
            if moved != cls:
                self.self_attr_values[(moved, attr)] = self.self_attr_values.pop((cls, attr))

    def _enter_lambda(self, node: cst.Lambda) -> None:
        """A lambda a `tf.data` transformation traces, walked as a function of its own (its own
        findings, staged as an entry point of its own)."""
        parent = self.function
        where = self.position(node)
        name = f"<lambda:{where.line}:{where.column}>"
        qualname = f"{parent.qualname}.<locals>.{name}" if parent is not None else name
        all_params = (*node.params.posonly_params, *node.params.params, *node.params.kwonly_params)
        params = [p.name.value for p in all_params]
        defaults = {p.name.value: p.default for p in all_params if p.default is not None}
        facts = F.FunctionFacts(
            qualname=qualname, name="<lambda>", span=where, params=params,
            literal_default_params={n for n, d in defaults.items() if _is_literal_default(d)},
            python_default_params={n for n, d in defaults.items() if _is_python_option(d)},
        )
        info = FunctionInfo(node, facts, parent, False, parent.self_name if parent is not None else None, defaults)
        self.facts.functions[qualname] = facts
        self.functions.append(info)
        self._open_body()

    def relative(self, absolute: str) -> str:
        """`pkg.mod.Class` -> `Class` for names of this module."""
        prefix = self.module + "."
        return absolute[len(prefix):] if self.module and absolute.startswith(prefix) else absolute

    def _leave_function(self) -> None:
        self.functions.pop()
        self.eager_stack = self._saved_eager.pop()
        self.loop_depth, self.guard_depth, self._loop_stack = self._saved_depths.pop()
        self.loops = self._saved_loops.pop()

    def _enter_class(self, node: cst.ClassDef) -> None:
        outer = self.classes[-1].qualname if self.current_class_for_methods() else self.module
        if self.functions:
            qualname = f"{self.module}.{self.function.qualname}.<locals>.{node.name.value}"
        else:
            qualname = f"{outer}.{node.name.value}" if outer else node.name.value
        bases = []
        for arg in node.bases:
            bases.extend(sorted(self.qualified_names(arg.value)))
        if not self.functions and not self.classes:
            self._redefining(node.name.value)
        cf = F.ClassFacts(qualname=qualname, bases=bases, span=self.position(node.name))
        self.facts.classes[qualname] = cf
        self.classes.append(cf)
        self._class_nodes.append(node)
        self._class_fn_depth.append(len(self.functions))

    def _leave_class(self) -> None:
        self.classes.pop()
        self._class_nodes.pop()
        self._class_fn_depth.pop()

    def class_node_of(self, func: FunctionInfo | None) -> cst.ClassDef | None:
        """The class statement (being walked) whose method `func` is, or holds it as a closure."""
        cls = func.self_class if func is not None else None
        for facts, node in zip(reversed(self.classes), reversed(self._class_nodes)):
            if facts.qualname == cls:
                return node
        return None

    def current_class_for_methods(self) -> F.ClassFacts | None:
        if self.classes and self._class_fn_depth[-1] == len(self.functions):
            return self.classes[-1]
        return None

    def first_call_guard(self, test: cst.BaseExpression, _depth: int = 0) -> str | None:
        """"body" if `test` guards the if-body as run-once creation (`if self.v is None:`,
        `if not self.built:`, `if not hasattr(self, "v"):`, or a method of the class that returns
        such a test: `if self._needs_init():` with `return not self._receivers`), "orelse" for
        the inverse. What is tested must be state that outlives the call: `if not <parameter>:`
        or `if x is None:` on a local decides per call, so it guards nothing."""
        if self._per_call(test):
            return None
        if isinstance(test, cst.Call) and _depth < 2:
            returned = self._returned_by_own_method(test)
            return self.first_call_guard(returned, _depth + 1) if returned is not None else None
        if isinstance(test, cst.Comparison) and len(test.comparisons) == 1:
            comp = test.comparisons[0]
            if isinstance(comp.comparator, cst.Name) and comp.comparator.value == "None":
                if isinstance(comp.operator, cst.Is):
                    return "body"
                if isinstance(comp.operator, cst.IsNot):
                    return "orelse"
        if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
            inner = test.expression
            if isinstance(inner, (cst.Attribute, cst.Name)):
                return "body"
            if isinstance(inner, cst.Call) and isinstance(inner.func, cst.Name) and inner.func.value == "hasattr":
                return "body"
        if isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.Or):
            if self.first_call_guard(test.left) == "body" or self.first_call_guard(test.right) == "body":
                return "body"
        return None

    def _returned_by_own_method(self, call: cst.Call) -> cst.BaseExpression | None:
        """`self._needs_init()`: what the class's method of that name returns, when its body is
        one `return` (after a docstring)."""
        func = self.function
        if call.args or not isinstance(call.func, cst.Attribute) or func is None or func.self_name is None \
                or not isinstance(call.func.value, cst.Name) or call.func.value.value != func.self_name:
            return None
        cls = self.class_node_of(func)
        body = cls.body.body if cls is not None and isinstance(cls.body, cst.IndentedBlock) else ()
        for stmt in body:
            if isinstance(stmt, cst.FunctionDef) and stmt.name.value == call.func.attr.value \
                    and isinstance(stmt.body, cst.IndentedBlock):
                lines = [s for s in stmt.body.body if not (
                    isinstance(s, cst.SimpleStatementLine) and len(s.body) == 1 and isinstance(s.body[0], cst.Expr)
                    and isinstance(s.body[0].value, (cst.SimpleString, cst.ConcatenatedString)))]
                if len(lines) == 1 and isinstance(lines[0], cst.SimpleStatementLine) and len(lines[0].body) == 1 \
                        and isinstance(lines[0].body[0], cst.Return) and lines[0].body[0].value is not None:
                    return lines[0].body[0].value
        return None

    def _per_call(self, test: cst.BaseExpression) -> bool:
        """The tested object is the function's own parameter or local (`not training`, `mask is
        None`): a value of this call, not state that is set once."""
        func = self.function
        if func is None:
            return False
        kinds = ("param", "local")
        if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
            test = test.expression
        elif isinstance(test, cst.Comparison) and len(test.comparisons) == 1:
            # `if transition_params is None: transition_params = tf.Variable(...)` fills a default
            # the staged callers usually pass: left to the guard's reading; a local is per call
            test, kinds = test.left, ("local",)
        return isinstance(test, cst.Name) and self.binding_kind(test, func) in kinds

    def runs_ops_then_flips(self, node: cst.If, block) -> bool:
        """A set-once guard whose block runs TensorFlow state ops (`v.assign(...)`, `tf.print`)
        and sets a Python flag: the ops are recorded into every call's graph, the flag flips only
        while tracing; not TensorFlow's create-variables-once idiom (STG105 and STG102 stand)."""
        from stagelint.analysis.effects import runs_state_op

        op = flips = False
        owner = (self.class_node_of(self.function), self.function.self_name if self.function else None)
        stack = [block]
        while stack and not (op and flips):
            n = stack.pop()
            if isinstance(n, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
                continue
            if isinstance(n, cst.With) and self.is_lifting_scope(n):
                continue  # `with tf.init_scope():` runs it once, as meant
            if isinstance(n, cst.Call):
                # the op itself, or one a helper of this file runs (`self._warm(x)`)
                op = op or bool(runs_state_op(self, n, owner))
            elif isinstance(n, (cst.Assign, cst.AugAssign)):
                value = n.value
                if isinstance(n, cst.AugAssign) or _is_literal(value):
                    flips = True
            stack.extend(inner_nodes(n))
        return op and flips

    def mark_region(self, node: cst.CSTNode | None, kind: str) -> None:
        """While the walk is inside `node` (not yet visited), `kind` is on `self.regions`."""
        if node is not None:
            self._region_of[id(node)] = kind

    def is_lifting_scope(self, node: cst.With) -> bool:
        for item in node.items:
            expr = item.item
            if isinstance(expr, cst.Call) and self.resolves_to(expr.func, self.framework.lifting_scopes):
                return True
        return False

    def _python_option_type(self, annotation: cst.BaseExpression) -> bool:
        """`dtype: tf.DType`, `name: str`, `Optional[str]`, `str | None`: a Python option."""
        if isinstance(annotation, cst.BinaryOperation) and isinstance(annotation.operator, cst.BitOr):
            sides = [annotation.left, annotation.right]
            return all(self._python_option_type(x) or (isinstance(x, cst.Name) and x.value == "None") for x in sides)
        if isinstance(annotation, cst.Subscript) and len(annotation.slice) == 1 \
                and self.qualified_names(annotation.value) & {"typing.Optional"} \
                and isinstance(annotation.slice[0].slice, cst.Index):
            return self._python_option_type(annotation.slice[0].slice.value)
        return bool(self.qualified_names(annotation) & PYTHON_OPTION_TYPES) or self._python_container_type(annotation)

    def _python_container_type(self, annotation: cst.BaseExpression) -> bool:
        """`List[int]`, `Sequence[str]`, `tuple[int, ...]`: a container of Python scalars."""
        if not (isinstance(annotation, cst.Subscript) and self.qualified_names(annotation.value) & PYTHON_CONTAINER_TYPES):
            return False
        items = [e.slice.value for e in annotation.slice if isinstance(e.slice, cst.Index)]
        return bool(items) and all(isinstance(x, cst.Ellipsis) or self.qualified_names(x) & PYTHON_SCALAR_TYPES
                                   for x in items)

    def _spec_params(self, call: cst.Call, params: list[str]) -> set[str]:
        """Parameters an `input_signature=[tf.TensorSpec(...), ...]` fixes to one tensor each (a
        nested structure of specs is a structure, whose elements Python may iterate)."""
        for arg in call.args:
            if arg.keyword is None or arg.keyword.value != "input_signature":
                continue
            if not isinstance(arg.value, (cst.List, cst.Tuple)):
                return set()
            return {
                param
                for param, el in zip(params, arg.value.elements)
                if isinstance(el.value, cst.Call) and self.qualified_names(el.value.func) & TENSOR_SPECS
            }
        return set()


#: Calls that open a Python file object (`with open(p) as fh:` binds a file).
FILE_OPENERS = frozenset({"builtins.open", "io.open", "codecs.open", "gzip.open", "bz2.open",
                          "tensorflow.io.gfile.GFile", "tensorflow.gfile.GFile", "tensorflow.compat.v1.gfile.GFile",
                          "tensorflow.gfile.Open", "tensorflow.compat.v1.gfile.Open"})

KERAS_DRIVING_METHODS = KERAS_STEP_METHODS | KERAS_TRAINING_METHODS
TENSOR_SPECS = frozenset({"tensorflow.TensorSpec", "tensorflow.compat.v2.TensorSpec"})


def staging_options(call: cst.Call) -> tuple[bool, bool]:
    """(has an input_signature, autograph on) from the keywords of `tf.function(...)`."""
    signature, autograph = False, True
    for arg in call.args:
        if arg.keyword is None:
            continue
        key = arg.keyword.value
        value = arg.value
        if key == "input_signature":
            signature = not (isinstance(value, cst.Name) and value.value == "None")
        elif key == "autograph":
            autograph = not (isinstance(value, cst.Name) and value.value == "False")
    return signature, autograph


def _eager_unless(ctx) -> object:
    """For a call edge: None when the call may run while tracing, "" when it never does, or the
    target of the predicate whose truth while tracing keeps it out (innermost eager block)."""
    if not ctx.eager_stack or ctx.function is None:
        return None
    return ctx.eager_stack[-1]


def tracing_test(ctx, node: cst.FunctionDef):
    """Whether a function returns True while tracing: "yes" (`return not tf.executing_eagerly()`,
    `if tf.inside_function(): return True`), the target of the predicate it defers to
    (`if in_tf_function(): return True`, `return in_tf_function()`), or None."""
    body = node.body.body if isinstance(node.body, cst.IndentedBlock) else ()
    for stmt in body:
        if isinstance(stmt, cst.SimpleStatementLine) and stmt.body and isinstance(stmt.body[0], cst.Return):
            return _tracing_value(ctx, stmt.body[0].value)
        if isinstance(stmt, cst.If) and stmt.orelse is None and isinstance(stmt.body, cst.IndentedBlock):
            first = stmt.body.body[0] if stmt.body.body else None
            if (
                isinstance(first, cst.SimpleStatementLine) and first.body and isinstance(first.body[0], cst.Return)
                and isinstance(first.body[0].value, cst.Name) and first.body[0].value.value == "True"
            ):
                found = _tracing_value(ctx, stmt.test)
                if found is not None:
                    return found
            continue  # `if tf is None: return False`: a case that cannot hold while tracing
        if isinstance(stmt, (cst.SimpleStatementLine,)) and all(isinstance(s, (cst.Expr, cst.Pass)) for s in stmt.body):
            continue  # docstring
        return None
    return None


def _tracing_call(ctx, expr):
    """A test that may be of whether code is traced: (the call, negated by `not`, the names it
    calls, and its value while tracing: True/False for TensorFlow's own tests such as
    `tf.executing_eagerly()`, None for any other call); None when it is no call."""
    negated = False
    if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Not):
        expr, negated = expr.expression, True
    if not isinstance(expr, cst.Call):
        return None
    names = _eager_names(ctx, expr.func)
    traced = negated if names & EAGER_TESTS else (not negated) if names & TRACING_TESTS else None
    return expr, negated, names, traced


def _tracing_value(ctx, expr):
    found = _tracing_call(ctx, expr) if expr is not None else None
    if found is None:
        return None
    expr, negated, names, traced = found
    if traced is not None:
        return "yes" if traced else None
    if negated:
        return None
    func = ctx.function
    if isinstance(expr.func, cst.Attribute) and isinstance(expr.func.value, cst.Name) and func is not None \
            and func.self_name == expr.func.value.value and func.facts.class_qualname:
        return ("self", func.facts.class_qualname, expr.func.attr.value)
    if len(names) == 1:
        (q,) = names
        if not q.startswith("builtins."):
            return ("name", q)
    return None


def _exits(block) -> bool:
    stmts = block.body if isinstance(block, cst.IndentedBlock) else [block]
    last = stmts[-1] if stmts else None
    return isinstance(last, (cst.SimpleStatementLine, cst.SimpleStatementSuite)) and any(
        isinstance(s, (cst.Return, cst.Raise)) for s in last.body)


def _eager_names(ctx, func) -> set[str]:
    """Qualified names of a call's function; `<anything>.executing_eagerly` counts as TensorFlow's
    (keras-hub binds `tf = try_import_tensorflow()`, which no import analysis follows)."""
    names = set(ctx.qualified_names(func))
    if isinstance(func, cst.Attribute) and func.attr.value in ("executing_eagerly", "inside_function"):
        names.add("tensorflow." + func.attr.value)
    return names


def _holds(ctx, node, where) -> bool:
    line, column, end_line, end_column = ctx._meta.position(node)
    return (line, column) <= where <= (end_line, end_column)


def _within(ctx, node, stmt) -> bool:
    if node is None:
        return False
    try:
        return _holds(ctx, stmt, ctx._meta.position(node)[:2])
    except KeyError:
        return False


def _blocks_of(stmt):
    """The indented blocks of a compound statement (an `if`'s body, `elif`s and `else`, a
    `try`'s handlers, `else` and `finally`, a `with`'s body)."""
    if isinstance(stmt, cst.If):
        node = stmt
        while node is not None:
            if isinstance(node, cst.If):
                yield node.body
                node = node.orelse
            else:
                yield node.body
                node = None
        return
    body = getattr(stmt, "body", None)
    if isinstance(body, cst.IndentedBlock):
        yield body
    for handler in getattr(stmt, "handlers", ()):
        yield handler.body
    for attr in ("orelse", "finalbody"):
        child = getattr(stmt, attr, None)
        if child is not None and isinstance(getattr(child, "body", None), cst.IndentedBlock):
            yield child.body


def _with_subclasses(cls: type) -> frozenset:
    out, queue = set(), [cls]
    while queue:
        k = queue.pop()
        if k not in out:
            out.add(k)
            queue.extend(k.__subclasses__())
    return frozenset(out)


_BUILTIN_BINDINGS = _with_subclasses(BuiltinAssignment)
_IMPORT_BINDINGS = _with_subclasses(ImportAssignment)
_GLOBAL_SCOPES = _with_subclasses(GlobalScope)
_FUNCTION_SCOPES = _with_subclasses(FunctionScope)
_CLASS_SCOPES = _with_subclasses(ClassScope)


def _nested_in(scope, outer) -> bool:
    """`scope` is a lambda or comprehension scope inside `outer` (not `outer` itself)."""
    if outer is None or scope is outer:
        return False
    while scope is not None and not isinstance(scope, (GlobalScope, ClassScope)):
        if scope is outer:
            return True
        if isinstance(scope, FunctionScope) and not isinstance(getattr(scope, "node", None), cst.Lambda):
            return False  # a nested def: its bindings are a closure to the code that reads them
        scope = getattr(scope, "parent", None)
    return False


def at_indexer(node: cst.BaseExpression) -> bool:
    """`x.at[i]`: JAX's functional update (`x.at[i].add(v)` returns a new array, mutates nothing)."""
    return isinstance(node, cst.Subscript) and isinstance(node.value, cst.Attribute) and node.value.attr.value == "at"


def _is_literal(node: cst.BaseExpression | None) -> bool:
    if isinstance(node, (cst.Integer, cst.Float, cst.SimpleString, cst.ConcatenatedString, cst.Imaginary)):
        return True
    if isinstance(node, cst.Name) and node.value in ("None", "True", "False"):
        return True
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
        return _is_literal(node.expression)
    return False


is_literal = _is_literal


def _is_literal_default(node: cst.BaseExpression | None) -> bool:
    """A default a caller that leaves the argument out gets as a Python value: a literal, or a
    tuple or list of literals (`broadcast_dims=()`, `axes=(1, 2)`)."""
    if isinstance(node, (cst.Tuple, cst.List)):
        return all(isinstance(el, cst.Element) and _is_literal(el.value) for el in node.elements)
    return _is_literal(node)


def _is_python_option(node: cst.BaseExpression | None) -> bool:
    """A string or bool default (`mode="CONSTANT"`, `training=False`): a Python option, not a tensor."""
    if isinstance(node, (cst.SimpleString, cst.ConcatenatedString)):
        return True
    return isinstance(node, cst.Name) and node.value in ("True", "False")


def _tests_for_sequence(ctx: FileContext, node: cst.Call, names: set[str]) -> bool:
    """`isinstance(x, (list, tuple))`, `tree.is_nested(x)`, `tf.nest.is_nested(x)`."""
    if "builtins.isinstance" in names and len(node.args) > 1:
        kinds = node.args[1].value
        elements = [e.value for e in kinds.elements] if isinstance(kinds, cst.Tuple) else [kinds]
        return any(ctx.qualified_names(e) & ({"builtins.list", "builtins.tuple"} | MAPPING_TYPES) for e in elements)
    return bool(names & SEQUENCE_TESTS)


def _operands(expr: cst.BaseExpression):
    """Names an op argument is computed from by arithmetic (`x`, `x * 2`, `x > 0`); not `x[0]`,
    which is as likely an element of a list of tensors."""
    if isinstance(expr, cst.Name):
        yield expr
    elif isinstance(expr, cst.BinaryOperation):
        if any(isinstance(side, (cst.List, cst.ListComp, cst.Tuple)) for side in (expr.left, expr.right)):
            return  # `[np.int32(0)] + loop_vars`: a list concatenated, not arithmetic on tensors
        yield from _operands(expr.left)
        yield from _operands(expr.right)
    elif isinstance(expr, cst.UnaryOperation) and not isinstance(expr.operator, cst.Not):
        yield from _operands(expr.expression)
    elif isinstance(expr, cst.Comparison):
        yield from _operands(expr.left)
        for c in expr.comparisons:
            yield from _operands(c.comparator)


def target_names(target: cst.BaseExpression):
    """Names bound by an assignment target (tuples unpacked); attributes/subscripts are not names."""
    if isinstance(target, cst.Name):
        yield target
    elif isinstance(target, (cst.Tuple, cst.List)):
        for el in target.elements:
            yield from target_names(el.value)
    elif isinstance(target, cst.StarredElement):
        yield from target_names(target.value)


#: The node types `_Walker.on_visit` records something for (its chain of `t is ...` tests):
#: every other node skips the chain with one set test.
_RECORDED = frozenset({
    cst.FunctionDef, cst.ClassDef, cst.If, cst.With, cst.Try, cst.Global, cst.Nonlocal, cst.Lambda,
    cst.Decorator, cst.For, cst.While, cst.Call, cst.Assign, cst.AnnAssign, cst.AugAssign, cst.Attribute,
    cst.Yield, cst.Return, cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.DictComp, cst.Del,
    cst.NamedExpr, cst.Import, cst.ImportFrom,
})
#: The same for `_Walker.on_leave`.
_LEFT = frozenset({cst.FunctionDef, cst.ClassDef, cst.Lambda, cst.Decorator, cst.For, cst.While})


#: rule classes -> the trivia none of them has a `visit_`/`leave_` handler for
_SKIPS: dict[frozenset, frozenset] = {}


def _skipped(rules) -> frozenset:
    """The node types the walk need not enter for these rules: trivia (`stagelint.trivia`), less
    any a rule handles or the walk records."""
    classes = frozenset(type(r) for r in rules)
    skip = _SKIPS.get(classes)
    if skip is None:
        handled = {k for k in _TRIVIA for c in classes
                   if hasattr(c, "visit_" + k.__name__) or hasattr(c, "leave_" + k.__name__)}
        skip = _SKIPS[classes] = _TRIVIA - handled - _RECORDED - _LEFT
    return skip


class _Walker(cst.CSTVisitor):
    # Metadata (`fastmeta.Metadata`) is resolved by `analyze_module`, not by libcst's wrapper.

    def __init__(self, ctx: FileContext, rules):
        super().__init__()
        self.ctx = ctx
        self.rules = rules
        self._visits: dict[type, list] = {}
        self._leaves: dict[type, list] = {}
        self.failed: set = set()

    def _handlers(self, table, prefix, node_type):
        handlers = table.get(node_type)
        if handlers is None:
            name = prefix + node_type.__name__
            handlers = [(r, getattr(r, name)) for r in self.rules if hasattr(r, name)]
            table[node_type] = handlers
        return handlers

    def _dispatch(self, table, prefix, node) -> None:
        self._call(self._handlers(table, prefix, type(node)), node)

    def _call(self, handlers, node) -> None:
        """`_dispatch` with the handlers of the node's type already looked up."""
        for rule, handler in handlers:
            if rule in self.failed:
                continue
            try:
                handler(node)
            except Exception:
                self._fail(rule)

    def _fail(self, rule) -> None:
        """A rule that raises loses this file; the walk and every other rule go on."""
        import traceback

        self.failed.add(rule)
        self.ctx.facts.errors.append((rule.code, traceback.format_exc(limit=-4)))
        self.ctx.facts.candidates = [c for c in self.ctx.facts.candidates if c.code != rule.code]

    def on_visit(self, node: cst.CSTNode) -> bool:
        ctx = self.ctx
        t = type(node)
        if ctx._region_of:
            region = ctx._region_of.get(id(node))
            if region is not None:
                ctx.regions.append(region)
        if t not in _RECORDED:
            pass  # most nodes (names, operators, whitespace): one set test, not the chain below
        elif t is cst.FunctionDef:
            ctx._enter_function(node)
            self._record_eager_tail(node)
        elif t is cst.ClassDef:
            ctx._enter_class(node)
        elif t is cst.If:
            if ctx.functions:
                self._record_eager_branch(node)
            guard = ctx.first_call_guard(node.test)
            if guard == "body" and not ctx.runs_ops_then_flips(node, node.body):
                ctx._guarded_blocks.add(id(node.body))
            elif guard == "orelse" and node.orelse is not None and not ctx.runs_ops_then_flips(node, node.orelse):
                ctx._guarded_blocks.add(id(node.orelse))
            if not ctx.functions:
                ctx._branch_of[id(node.body)] = (id(node), "body")
                if node.orelse is not None:
                    ctx._branch_of[id(node.orelse)] = (id(node), "else")
        elif t is cst.With:
            if ctx.functions and ctx.is_lifting_scope(node):
                ctx._lifted_blocks.add(id(node.body))
        elif t is cst.Try:
            if not ctx.functions:
                ctx._branch_of[id(node.body)] = (id(node), "body")
                for i, handler in enumerate(node.handlers):
                    ctx._branch_of[id(handler)] = (id(node), f"except{i}")
        elif t is cst.Global or t is cst.Nonlocal:
            if ctx.functions:
                kind = "global" if t is cst.Global else "nonlocal"
                ctx.function.declared.update((n.name.value, kind) for n in node.names)
        elif t is cst.Lambda:
            if id(node) in ctx._escaped_lambdas:
                ctx.escaped_depth += 1
            if id(node) in ctx._dataset_lambdas:
                ctx._enter_lambda(node)
        elif t is cst.Decorator:
            if ctx.functions and any(d is node for d in getattr(ctx.functions[-1].node, "decorators", ())):
                # A decorator's expression runs once, where the def is, not in the function.
                ctx._decorated.append(ctx.functions.pop())
        elif t is cst.For or t is cst.While:
            ctx._loop_stack.append(id(node))
            ctx.loop_depth += 1
            ctx.loops.append(node)
        elif t is cst.Call:
            for arg in node.args:
                if arg.keyword is not None:
                    ctx._never_accessed.add(id(arg.keyword))
            self._record_call(node)
            if ctx.functions and ctx.in_staged_context and isinstance(node.func, cst.Attribute):
                if node.func.attr.value in MUTATING_METHODS and not at_indexer(node.func.value):
                    ctx.raw_stores.append(
                        (ctx.function, node, "method", node.func.value, node, ctx.guard_depth > 0)
                    )
        elif t is cst.Assign:
            for tgt in node.targets:
                self._record_binding(tgt.target, node.value)
                self._record_store(node, tgt.target, node.value)
                self._record_attr_write(node, tgt.target, node.value)
                self._record_wrapper_binding(tgt.target, node.value)
        elif t is cst.AnnAssign:
            if not ctx.functions and ctx.classes and isinstance(node.target, cst.Name):
                from stagelint.nnx import declared_kind

                declared_kind(ctx, node)  # `x: int = nnx.static()` in an NNX class body
            if node.value is not None:
                self._record_binding(node.target, node.value)
                self._record_store(node, node.target, node.value)
                self._record_attr_write(node, node.target, node.value)
                self._record_wrapper_binding(node.target, node.value)
        elif t is cst.AugAssign:
            self._record_binding(node.target, node, rebinding=True)
            self._record_store(node, node.target, node.value)
            self._record_attr_write(node, node.target, node.value)
        elif t is cst.Attribute:
            ctx._never_accessed.add(id(node.attr))
            self._record_attr_read(node)
        elif t is cst.Yield:
            if ctx.functions:
                ctx.function.facts.is_generator = True
        elif t is cst.Return:
            if ctx.functions:
                ctx.function.returns.append(node.value)
        elif t is cst.ListComp or t is cst.SetComp or t is cst.GeneratorExp or t is cst.DictComp:
            # Registered on entering the comprehension, before its element (`f(x, k)` in
            # `[f(x, k) for k in range(3)]`) is visited: a rule asking about `k` there must not
            # get (and memoise) an answer made before the `for` clause is known.
            comp = node.for_in
            while comp is not None:
                for name in target_names(comp.target):
                    ctx.comprehension_targets[id(name)] = comp
                comp = comp.inner_for_in
        elif t is cst.With:
            for item in node.items:
                if item.asname is not None and isinstance(item.asname.name, cst.Name) and isinstance(item.item, cst.Call) \
                        and ctx.qualified_names(item.item.func) & FILE_OPENERS:
                    self._record_binding(item.asname.name, item.item)  # `with open(p) as fh:`
        elif t is cst.Del:
            self._record_store(node, node.target, None)
        elif t is cst.NamedExpr:
            self._record_binding(node.target, node.value)
        elif t is cst.Import or t is cst.ImportFrom:
            if not ctx.functions and not ctx.classes:
                self._record_import(node)
        if id(node) in ctx._branch_of:
            ctx._branch_stack.append(ctx._branch_of[id(node)])
        if ctx._eager_blocks and id(node) in ctx._eager_blocks:
            ctx.eager_stack.append(ctx._eager_blocks[id(node)])
        if t is cst.IndentedBlock or t is cst.SimpleStatementSuite or t is cst.Else:
            if id(node) in ctx._guarded_blocks:
                ctx.guard_depth += 1
            if id(node) in ctx._lifted_blocks:
                ctx.lifted_depth += 1
        if t is cst.For and isinstance(node, cst.For):
            self._record_binding(node.target, node, rebinding=True)
        # The rules' handlers of a node type, looked up once per type; most types have none.
        handlers = self._visits.get(t)
        if handlers is None:
            handlers = self._handlers(self._visits, "visit_", t)
        if handlers:
            self._call(handlers, node)
        return True

    def on_leave(self, original_node: cst.CSTNode) -> None:
        ctx = self.ctx
        t = type(original_node)
        handlers = self._leaves.get(t)
        if handlers is None:
            handlers = self._handlers(self._leaves, "leave_", t)
        if handlers:
            self._call(handlers, original_node)
        if ctx._eager_blocks and id(original_node) in ctx._eager_blocks:
            ctx.eager_stack.pop()
        if t is cst.IndentedBlock or t is cst.SimpleStatementSuite or t is cst.Else:
            if id(original_node) in ctx._guarded_blocks:
                ctx.guard_depth -= 1
            if id(original_node) in ctx._lifted_blocks:
                ctx.lifted_depth -= 1
        if t not in _LEFT:
            pass
        elif t is cst.FunctionDef:
            ctx._leave_function()
        elif t is cst.ClassDef:
            ctx._leave_class()
        elif t is cst.Lambda:
            if id(original_node) in ctx._escaped_lambdas:
                ctx.escaped_depth -= 1
            if id(original_node) in ctx._dataset_lambdas:
                ctx._leave_function()
        elif t is cst.Decorator:
            if ctx._decorated and any(d is original_node for d in ctx._decorated[-1].node.decorators):
                ctx.functions.append(ctx._decorated.pop())
        elif t is cst.For or t is cst.While:
            ctx._loop_stack.pop()
            ctx.loop_depth -= 1
            ctx.loops.pop()
        if id(original_node) in ctx._branch_of:
            ctx._branch_stack.pop()
        if ctx._region_of and id(original_node) in ctx._region_of:
            ctx.regions.pop()
        if t is cst.Module:
            self._describe_call_sites()
            self._summarise()
            # Rules that decide with whole-file knowledge do so while metadata is still bound.
            for rule in self.rules:
                if rule in self.failed:
                    continue
                try:
                    rule.finish()
                except Exception:
                    self._fail(rule)

    # Facts ------------------------------------------------------------------------------------

    def _record_binding(self, target, value, rebinding: bool = False) -> None:
        ctx = self.ctx
        if (
            isinstance(target, (cst.Tuple, cst.List))
            and isinstance(value, (cst.Tuple, cst.List))
            and len(target.elements) == len(value.elements)
            and not any(isinstance(e, cst.StarredElement) for e in (*target.elements, *value.elements))
        ):
            # `a, b = [], {}`: each name is bound to its own element
            for t, v in zip(target.elements, value.elements):
                self._record_binding(t.value, v.value, rebinding)
            return
        for name in target_names(target):
            ctx.bound_values[id(name)] = value
            if rebinding:
                ctx.rebinding_targets.add(id(name))
            if ctx.loop_depth:
                ctx.loop_bound.add(id(name))
            if not ctx.functions:
                ctx.branch_paths[id(name)] = tuple(ctx._branch_stack)

    def _record_eager_branch(self, node: cst.If) -> None:
        """`if tf.executing_eagerly(): A else: B`: A never runs while tracing; `if in_tf_function():`
        (a project predicate, decided in the project phase): its `else:` never does."""
        found = self._eager_test(node.test)
        if found is None:
            return
        eager_in_body, mark = found
        block = node.body if eager_in_body else node.orelse
        if block is not None:
            self.ctx._eager_blocks[id(block)] = mark

    def _record_eager_tail(self, func: cst.FunctionDef) -> None:
        """`if in_tf_function(): return self._call_tf(x)` then `return self._call_python(x)`: the
        statements after a tracing test that returns never run while tracing."""
        body = func.body.body if isinstance(func.body, cst.IndentedBlock) else ()
        for i, stmt in enumerate(body):
            if isinstance(stmt, cst.If) and stmt.orelse is None and _exits(stmt.body):
                found = self._eager_test(stmt.test)
                if found is not None and not found[0]:
                    for later in body[i + 1:]:
                        if not isinstance(later, (cst.FunctionDef, cst.ClassDef)):
                            self.ctx._eager_blocks[id(later)] = found[1]
                    return

    def _eager_test(self, test):
        """(the body is the eager branch, mark) for a test of whether code is being traced."""
        found = _tracing_call(self.ctx, test)
        if found is None:
            return None
        test, negated, _, traced = found
        if traced is not None:
            return not traced, ""
        target = self._target_of(test.func)
        if target is None or not self._is_project_target(target):
            return None
        return negated, target

    def _record_store(self, stmt, target, value) -> None:
        ctx = self.ctx
        if not ctx.functions or not ctx.in_staged_context:
            return
        targets = target.elements if isinstance(target, (cst.Tuple, cst.List)) else (target,)
        for tgt in targets:
            tgt = getattr(tgt, "value", tgt) if isinstance(tgt, (cst.Element, cst.StarredElement)) else tgt
            if isinstance(tgt, (cst.Attribute, cst.Subscript)) or (
                isinstance(tgt, cst.Name) and tgt.value in ctx.function.declared
            ):
                ctx.raw_stores.append((ctx.function, stmt, "store", tgt, value, ctx.guard_depth > 0))

    def _record_import(self, node) -> None:
        ctx = self.ctx
        if isinstance(node, cst.Import):
            for alias in node.names:
                local = alias.evaluated_alias or alias.evaluated_name.split(".")[0]
                full = alias.evaluated_name if alias.evaluated_alias else local
                ctx.facts.imports[local] = full
            return
        if isinstance(node.names, cst.ImportStar):
            return
        module = code_of(node.module) if node.module is not None else ""
        dots = "." * len(node.relative)
        base = ctx.absolute_import(dots + module) if dots else module
        for alias in node.names:
            local = alias.evaluated_alias or alias.evaluated_name
            ctx.facts.imports[local] = f"{base}.{alias.evaluated_name}" if base else alias.evaluated_name

    def _record_escaped_param(self, node: cst.Call) -> None:
        """`tf.py_function(func, ...)` where `func` is a parameter of this or an enclosing function:
        that function is a decorator keeping what it decorates eager."""
        ctx = self.ctx
        first = node.args[0] if node.args else None
        if first is None or not isinstance(first.value, cst.Name):
            return
        if first.keyword is not None and first.keyword.value not in ("func", "fn"):
            return
        info = ctx.function
        while info is not None:
            if ctx.binding_kind(first.value, info) == "param":
                info.facts.escapes_param = True
                return
            info = info.parent

    def _record_call(self, node: cst.Call) -> None:
        ctx = self.ctx
        fw = ctx.framework
        func = ctx.function
        names = ctx.qualified_names(node.func)
        staging = set(fw.staging_decorators) | set(ctx.settings.staging_decorators)
        self._record_one_shot_and_built(node, staging)
        if func is not None and node.args and isinstance(node.args[0].value, cst.Name):
            if _tests_for_sequence(ctx, node, names):
                func.sequence_names.add(node.args[0].value.value)
        escapes = bool(names & fw.eager_escapes) or (
            # `tf.py_function(...)` with `tf = try_import_tensorflow()` (keras-hub): by its name
            isinstance(node.func, cst.Attribute) and node.func.attr.value in ("py_function", "numpy_function")
        )
        if escapes:
            for arg in node.args:
                if isinstance(arg.value, cst.Lambda):
                    ctx._escaped_lambdas.add(id(arg.value))
            self._record_escaped_param(node)
        elif isinstance(node.func, cst.Attribute) or names:
            self._record_dataset_functions(node, names)
        if isinstance(node.func, cst.Attribute) and node.func.attr.value in ("apply", "init", "init_with_output", "lazy_init"):
            from stagelint.jaxstaging import record_linen_run

            record_linen_run(self, node.func.value, None)
        if names and any(q.startswith(("jax.", "flax.", "equinox.")) for q in names):
            from stagelint.jaxstaging import record_call

            record_call(self, node, names)
        if names & staging and node.args:
            first = node.args[0]
            if first.keyword is None or first.keyword.value in ("func", "fn", "python_function"):
                if (
                    func is not None
                    and isinstance(first.value, cst.Name)
                    and ctx.binding_kind(first.value, func) == "param"
                ):
                    func.facts.wraps_param = True  # a decorator of the project's own
                else:
                    target = self._target_of(first.value)
                    if target is not None:
                        ctx.facts.wrapped.append(target)
                        if id(node) in ctx._fresh_staging_calls:
                            ctx.facts.fresh_wrapped.append(target)
        if func is not None:
            if escapes:
                return  # the wrapped function runs eagerly: not traced into the graph
            if not func.facts.state_op and ctx.lifted_depth == 0:
                from stagelint.analysis.effects import state_op

                func.facts.state_op = state_op(ctx, node) or ""
            target = self._target_of(node.func)
            if target is not None and not (names and all(fw.owns(n) for n in names)):
                func.facts.calls.append(
                    F.CallEdge(target, ctx.position(node), guarded=ctx.guard_depth > 0 or ctx.lifted_depth > 0,
                               eager_unless=_eager_unless(ctx))
                )
            once = bool(names & GET_OR_CREATE_CALLS)  # the factory runs on the first call only
            for arg in node.args:
                ref = self._function_reference(arg.value)
                if ref is not None:
                    func.facts.calls.append(F.CallEdge(ref, ctx.position(arg.value), kind="ref",
                                                       guarded=once or ctx.guard_depth > 0))
            if names and not names & CONVERSION_OPS and any(
                fw.returns_tensor(n) or n.startswith(TENSOR_CHECKS) for n in names
            ):
                # An op computing a tensor (or checking one) takes tensors; configuration,
                # `tf.nest` and Keras utilities take anything, and so do conversions
                # (`tf.convert_to_tensor(x)` says x may be a Python value).
                list_taking = bool(names & LIST_TAKING_OPS)
                for i, arg in enumerate(node.args):
                    if list_taking and i == 0 and arg.keyword is None:
                        continue  # `tf.concat(parts, 0)`: a list of tensors, not a tensor
                    if arg.keyword is not None and arg.keyword.value in CONFIG_KEYWORDS:
                        continue  # `tf.pad(x, p, mode=mode)`: a Python option
                    if size_argument(names, i, arg.keyword.value if arg.keyword is not None else None):
                        continue  # `tf.nn.top_k(x, k=k)`: a Python int as often as a tensor
                    for name in _operands(arg.value):
                        if ctx.binding_kind(name, func) == "param":
                            func.facts.tensor_params.add(name.value)
        if func is None and not ctx.functions:
            self._record_object_call(node)
        callee = node.func
        concrete = isinstance(callee, cst.Attribute) and callee.attr.value == "get_concrete_function"
        if concrete:
            callee = callee.value  # `f.get_concrete_function(args)` traces f with args
        if func is not None and isinstance(callee, cst.Name) and ctx.binding_kind(callee, func) == "param":
            # `def measure(f, *args): f.get_concrete_function(*args)`: calls what its callers
            # pass for `f`, with what they pass for `args` (the project phase follows them)
            target = ("param", callee.value)
        else:
            target = self._target_of(node.func)
            concrete = concrete and target is None
            if concrete:
                target = self._target_of(callee)
        if target is not None and self._is_project_target(target):
            site = F.CallSite(target, ctx.position(node), func.qualname if func else None,
                              in_loop=bool(ctx._loop_stack), concrete=concrete)
            self._record_refs(site, node, func)
            ctx.facts.call_sites.append(site)
            # Arguments are described at the end of the file, when every binding is known (a
            # counter bumped after the call, `lr *= 0.9`, is still a counter).
            ctx._pending_sites.append((site, node, func, tuple(ctx.loops)))

    def _module_loop(self) -> list[int]:
        """[first line, last line] of the outermost loop around a module-level statement, or []."""
        ctx = self.ctx
        if not ctx.loops:
            return []
        p = ctx.position(ctx.loops[0])
        return [p.line, p.end_line]

    def _object_class(self, expr: cst.BaseExpression) -> str:
        """The qualified name of the class the object `expr` is an instance of, or ""."""
        from stagelint.tensors import value_of

        value = value_of(self.ctx, expr, self.ctx.function)
        return value.cls if value.what == "object" and value.cls else ""

    def _record_object_call(self, node: cst.Call) -> None:
        """A module-level call of a method of an object whose class the module shows (`m.fit()`,
        `m(x)`, `m = Model()` before): where, in program order, that method runs."""
        ctx = self.ctx
        if isinstance(node.func, cst.Attribute) and isinstance(node.func.value, cst.Name):
            receiver, method = node.func.value, node.func.attr.value
        elif isinstance(node.func, cst.Name):
            receiver, method = node.func, "__call__"
        else:
            return
        from stagelint.tensors import value_of

        value = value_of(ctx, receiver, None)
        if value.what == "object" and value.cls:
            ctx.facts.object_calls.append((ctx.position(node).line, value.cls, method))

    def _record_refs(self, site: F.CallSite, node: cst.Call, func) -> None:
        """The project functions a call passes (by position or keyword), and a `*args` of the
        caller's own forwarded whole: named now, where the definitions that reach the call are
        the ones a name means (a later `def train` must not capture them)."""
        position = 0
        for arg in node.args:
            if arg.star:
                if (arg.star == "*" and func is not None and isinstance(arg.value, cst.Name)
                        and arg.value.value == func.facts.varargs and self.ctx.binding_kind(arg.value, func) == "param"):
                    site.star = arg.value.value
                continue
            ref = self._function_reference(arg.value)
            key = arg.keyword.value if arg.keyword is not None else str(position)
            if arg.keyword is None:
                position += 1
            if ref is not None and ref[0] == "name":
                site.refs[key] = ref

    def _summarise(self) -> None:
        """Every function's return summary, for the project phase (`analysis.values.Summaries`)."""
        from stagelint.analysis.values import summarise_returns

        for info in self.ctx.function_infos.values():
            if info.returns:
                summary = summarise_returns(self.ctx, info)
                if summary.definite or summary.params or summary.calls:
                    info.facts.returns = (summary.definite, list(summary.params), [list(c) for c in summary.calls])

    def _record_dataset_functions(self, node: cst.Call, names: set[str]) -> None:
        """Functions a `tf.data` transformation traces (`stagelint.datasets`): entry points."""
        from stagelint.datasets import function_arguments

        ctx = self.ctx
        for expr in function_arguments(ctx, node, names):
            bound, positional = (), 0
            if isinstance(expr, cst.Call) and ctx.qualified_names(expr.func) & PARTIAL_CALLS and expr.args:
                rest = expr.args[1:]
                bound = tuple(a.keyword.value for a in rest if a.keyword is not None)
                positional = sum(1 for a in rest if a.keyword is None and not a.star)
                expr = expr.args[0].value
            if isinstance(expr, cst.Lambda):
                ctx._dataset_lambdas.add(id(expr))
                where = ctx.position(expr)
                name = f"<lambda:{where.line}:{where.column}>"
                qualname = f"{ctx.function.qualname}.<locals>.{name}" if ctx.function is not None else name
                target = ("name", f"{ctx.module}.{qualname}" if ctx.module else qualname)
            else:
                target = self._target_of(expr)
            if target is not None:
                ctx.facts.dataset_functions.append(F.DatasetFunction(target, ctx.position(expr), bound, positional))

    def _describe_call_sites(self) -> None:
        from stagelint.tensors import arg_facts

        ctx = self.ctx
        for site, node, func, loops in ctx._pending_sites:
            site.args = [arg_facts(ctx, a.value, func, loops) for a in node.args if a.keyword is None and not a.star]
            site.kwargs = {a.keyword.value: arg_facts(ctx, a.value, func, loops) for a in node.args if a.keyword is not None}
        ctx._pending_sites = []

    def _record_one_shot_and_built(self, node: cst.Call, staging: set[str]) -> None:
        """`tf.function(f)(x)` / `tf.function(f).get_concrete_function(x)` (a Function used once),
        and objects whose variables a call creates (`opt.build(...)`, `model.fit(...)`, `model(x)`)."""
        ctx = self.ctx
        inner = node.func
        if isinstance(inner, cst.Attribute) and inner.attr.value == "get_concrete_function":
            inner = inner.value
        if isinstance(inner, cst.Call) and ctx.qualified_names(inner.func) & staging:
            ctx._fresh_staging_calls.add(id(inner))
        if isinstance(node.func, cst.Attribute) and node.func.attr.value in KERAS_DRIVING_METHODS:
            from stagelint.tensors import value_of

            value = value_of(ctx, node.func.value, ctx.function)
            ctx.facts.keras_drives.append(
                (node.func.attr.value, value.cls, value.ident, ctx.function.qualname if ctx.function else None))
        receiver = None
        if isinstance(node.func, cst.Attribute) and node.func.attr.value in BUILDING_METHODS:
            receiver = node.func.value
        elif isinstance(node.func, cst.Name):
            receiver = node.func
        if isinstance(receiver, cst.Name):
            from stagelint.tensors import value_of

            if receiver is node.func:
                value = value_of(ctx, receiver, ctx.function)
                if value.what not in ("model", "layer", "object"):
                    return  # calling a model or layer builds it
                ident = value.ident
            else:
                ident = value_of(ctx, receiver, ctx.function).ident
            if ident:
                line = ctx.position(node).line
                ctx.facts.built[ident] = min(line, ctx.facts.built.get(ident, line))

    def _record_wrapper_binding(self, target: cst.BaseExpression, value: cst.BaseExpression) -> None:
        """`g = tf.function(f)` / `self.step = tf.function(self._step, input_signature=...)`."""
        ctx = self.ctx
        if (
            isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute)
            and value.func.attr.value == "get_concrete_function" and isinstance(target, cst.Name)
            and not ctx.functions
        ):
            traced = self._target_of(value.func.value)
            names = ctx.qualified_names(target)
            if traced is not None and len(names) == 1:
                ctx.facts.concrete_bindings[next(iter(names))] = traced
            return
        if not isinstance(value, cst.Call) or not value.args:
            return
        fw = ctx.framework
        if not ctx.qualified_names(value.func) & (fw.staging_decorators | set(ctx.settings.staging_decorators)):
            return
        first = value.args[0]
        if first.keyword is not None and first.keyword.value not in ("func", "fn", "python_function"):
            return
        wrapped = self._target_of(first.value)
        if wrapped is None:
            return
        signature, _ = staging_options(value)
        key = None
        if isinstance(target, cst.Name):
            names = ctx.qualified_names(target)
            if len(names) == 1:
                key = "name:" + next(iter(names))
        else:
            self_target = self._target_of(target) if isinstance(target, cst.Attribute) else None
            if self_target is not None and self_target[0] == "self":
                key = f"self:{self_target[1]}:{self_target[2]}"
        if key is not None:
            ctx.facts.wrapper_bindings[key] = F.WrapperBinding(wrapped, signature)

    def _record_attr_write(self, stmt, target: cst.BaseExpression, value: cst.BaseExpression | None) -> None:
        """`obj.attr = value` anywhere: the owner class, whether it is set-up code, what is stored."""
        ctx = self.ctx
        targets = target.elements if isinstance(target, (cst.Tuple, cst.List)) else (target,)
        for tgt in targets:
            tgt = tgt.value if isinstance(tgt, (cst.Element, cst.StarredElement)) else tgt
            if not isinstance(tgt, cst.Attribute):
                continue
            ctx._store_attributes.add(id(tgt))
            if not isinstance(tgt.value, cst.Name):
                continue
            func = ctx.function
            attr = tgt.attr.value
            owner = ""
            on_self = False
            if func is not None and func.self_name == tgt.value.value and func.facts.class_qualname:
                if ctx.binding_kind(tgt.value, func) == "self":
                    owner = func.facts.class_qualname
                    on_self = True
                    if value is not None and not isinstance(stmt, cst.AugAssign):
                        ctx.self_attr_values.setdefault((owner, attr), []).append(value)
            if not on_self:
                from stagelint.tensors import value_of

                owner = value_of(ctx, tgt.value, func).cls
            nnx_kind = ""
            if on_self and is_setup_method(func.facts.name) and not isinstance(stmt, cst.AugAssign):
                from stagelint.nnx import imports_flax, stored_kind
                from stagelint.tensors import tensorness

                if imports_flax(ctx):  # what the attribute is if the class is a Flax NNX module
                    nnx_kind = stored_kind(ctx, value, func, lambda v: tensorness(ctx, v, func).definite)
            ctx.facts.attr_writes.append(F.AttrWrite(
                attr=attr,
                span=ctx.position(stmt),
                owner=owner,
                function=func.qualname if func else None,
                in_init=func is not None and is_setup_method(func.facts.name),
                guarded=ctx.guard_depth > 0,
                value=self._stored_kind(value, isinstance(stmt, cst.AugAssign)),
                text=short_code(stmt, 60),
                augmented=isinstance(stmt, cst.AugAssign),
                on_self=on_self,
                loop=self._module_loop() if func is None else [],
                nnx=nnx_kind,
            ))

    def _stored_kind(self, value: cst.BaseExpression | None, augmented: bool) -> str:
        ctx = self.ctx
        if value is None:
            return "unknown"
        if isinstance(value, cst.Name) and value.value == "None":
            return "none"
        if isinstance(value, cst.Call):
            names = ctx.qualified_names(value.func)
            if names & ctx.framework.variable_constructors:
                return "variable"
            if any(ctx.framework.creates_variables(q) for q in names):
                return "keras"  # a layer, model, metric or optimizer (it owns variables)
            func = value.func
            if isinstance(func, cst.Attribute) and func.attr.value in ctx.framework.variable_creating_methods:
                return "variable"  # `self.w = self.add_weight(...)`
        if isinstance(value, cst.Attribute) and value.attr.value in VARIABLE_LIST_ATTRIBUTES:
            return "variables"  # `self._weights = model.trainable_variables`: a list of variables
        if (
            isinstance(value, cst.ListComp) and isinstance(value.elt, cst.Call)
            and isinstance(value.elt.func, cst.Attribute) and value.elt.func.attr.value in ("get_slot", "add_slot")
        ):
            return "variables"  # `[self.get_slot(v, "average") for v in weights]`: slot variables
        from stagelint.tensors import tensorness

        if not augmented and tensorness(ctx, value, ctx.function).definite:
            return "tensor"
        if _is_literal(value) or augmented:
            return "python"
        return "unknown"

    def _record_attr_read(self, node: cst.Attribute) -> None:
        """`self.attr` / `param.attr` loads in a function (which attributes staged code reads)."""
        ctx = self.ctx
        func = ctx.function
        if func is None or id(node) in ctx._store_attributes or not isinstance(node.value, cst.Name):
            return
        recv = node.value.value
        if recv != func.self_name and recv not in func.facts.params:
            return
        kind = ctx.binding_kind(node.value, func)
        if kind not in ("self", "param"):
            return
        pair = ("self" if kind == "self" else recv, node.attr.value)
        if pair not in func.facts.attr_reads:
            func.facts.attr_reads.append(pair)

    def _is_project_target(self, target: F.Target) -> bool:
        if target[0] != "name":
            return True
        root = target[1].split(".", 1)[0]
        return root in self.ctx.project_roots or root == self.ctx.module.split(".", 1)[0]

    def _function_reference(self, expr: cst.BaseExpression) -> F.Target | None:
        """A function passed as an argument (`tf.cond(p, self._a, helper)`): the callee may call it."""
        if isinstance(expr, cst.Attribute):
            ref = self._target_of(expr)
            return ref if ref is not None and ref[0] == "self" else None
        if isinstance(expr, cst.Name) and self._names_function(expr):
            return self._target_of(expr)
        return None

    def _names_function(self, expr: cst.BaseExpression) -> bool:
        """A Name argument that refers to a def (so passing it may call it)."""
        if not isinstance(expr, cst.Name):
            return False
        for b in self.ctx.bindings_of(expr):
            if isinstance(getattr(b, "node", None), cst.FunctionDef):
                return True
            if isinstance(b, ImportAssignment) and isinstance(b.node, cst.ImportFrom):
                return True
        return False

    def _target_of(self, expr: cst.BaseExpression) -> F.Target | None:
        ctx = self.ctx
        func = ctx.function
        if isinstance(expr, cst.Attribute) and isinstance(expr.value, cst.Name) and func is not None:
            if func.self_name and expr.value.value == func.self_name and ctx.binding_kind(expr.value, func) == "self":
                return ("self", func.self_class, expr.attr.value)
        if (
            isinstance(expr, cst.Attribute)
            and isinstance(expr.value, cst.Call)
            and isinstance(expr.value.func, cst.Name)
            and expr.value.func.value == "super"
            and func is not None
            and func.facts.class_qualname
        ):
            return ("super", func.facts.class_qualname, expr.attr.value)
        if isinstance(expr, (cst.Name, cst.Attribute)):
            names = ctx.qualified_names(expr)
            if len(names) == 1:
                (q,) = names
                if not q.startswith("builtins."):
                    return ("name", q)
        return None


def analyze_module(module: cst.Module, ctx: FileContext, rule_classes, metadata=Metadata, fast: bool = True) -> F.ModuleFacts:
    """Resolve metadata once, walk once; return the file's facts with the rules' candidates.
    (`metadata=LibcstMetadata, fast=False` is the slow reference, all libcst's own providers and
    traversals: tests compare the two.)"""
    with fast_traversal() if fast else contextlib.nullcontext():
        ctx._meta = metadata(module)
        ctx.module_node = module
        rules = [cls(ctx) for cls in rule_classes]
        walker = _Walker(ctx, rules)
        ctx._rules = rules
        if fast:
            # as module.visit(walker), without rebuilding nodes, and without entering trivia
            walk(module, walker.on_visit, walker.on_leave, _skipped(rules))
        else:
            module.visit(walker)
    return ctx.facts
