"""The per-file context: what the one traversal (`stagelint.analysis.walk`) knows about where it
is, and the questions rules ask while it runs.

`FileContext` keeps its own stack of functions, classes, first-call guards and lifting scopes
(cheaper than ParentNodeProvider), the bindings and values the file shows, and answers binding
questions ("is this name a parameter, a global, `self`?"). It knows nothing of the value model
above it (`stagelint.analysis.tensors`, `analysis.values`, `stores`): those ask it, never the reverse.
"""

from __future__ import annotations

import bisect
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
from libcst.helpers import get_full_name_for_node

from stagelint.analysis import facts as F
from stagelint.analysis.fastmeta import walk
from stagelint.analysis.trivia import LEAVING, TRIVIA, holds_statement, inner_nodes
from stagelint.analysis.literals import bool_constant, is_literal, keyword_constant, literal_text
from stagelint.frameworks import (
    EAGER_TESTS,
    JAX,
    JAX_CONCRETIZING_FUNCTIONS,
    JAX_CONCRETIZING_METHODS,
    JAX_SEQUENCE_INDEX,
    JAX_JIT_DISABLING,
    JAX_TRACER_MODULES,
    JAX_TRACER_TYPES,
    JAX_VALUE_SHAPED_FUNCTIONS,
    JAX_VALUE_SHAPED_ONE_ARGUMENT,
    KERAS_SETUP_HOOKS,
    KERAS_UNBUILT,
    MUTATING_METHODS,
    NONE_RETURNING_MUTATORS,
    PYTHON_CONTAINER_TYPES,
    PYTHON_OPTION_TYPES,
    PYTHON_SCALAR_TYPES,
    SHAPE_RELAXING_OPTIONS,
    TEST_FUNCTION_PREFIX,
    NONE_EQUALITY_NOT_IDENTITY,
    TF_INTERNAL_NAMES,
    TF_SAME_MODULE_PREFIXES,
    TRACE_RAISING_METHODS,
    TRACING_TESTS,
    Framework,
)

_EMPTY = cst.Module([])
#: Container methods that put their one argument itself in (`seen.append(name)`): after them
#: `name in seen` holds, as `key in cache` does after `cache[key] = ...`.
_MEMBER_FILLS = frozenset({"append", "add", "appendleft"})

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
    plain = _plain_code(node)  # (a name or a dotted name: most questions, without code generation)
    return plain if plain is not None else _EMPTY.code_for_node(node)


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


class _NoRecord:
    """`CodegenState.record_syntactic_position`'s context for a state that records nothing,
    without a generator: libcst enters one for every expression it generates."""

    __slots__ = ()

    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc) -> bool:
        return False


_NO_RECORD = _NoRecord()


class _PrefixState(CodegenState):
    limit = 0
    size = 0  # characters generated so far
    check_at = 0  # `size` past which the text may be long enough

    def record_syntactic_position(self, node, *, start_node=None, end_node=None) -> _NoRecord:
        return _NO_RECORD

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


_UNSEARCHED = object()


#: The last part of each concretizing function's name (`float`, `asarray`): a call spelled with
#: none of them is no such call, and its qualified names are not looked up.
_VALUE_SHAPED_NAMES = frozenset(q.rsplit(".", 1)[-1] for q in JAX_VALUE_SHAPED_FUNCTIONS)
_CONVERSION_NAMES = frozenset(q.rsplit(".", 1)[-1] for q in JAX_CONCRETIZING_FUNCTIONS) | _VALUE_SHAPED_NAMES


def trace_raising_call(node) -> bool:
    """`node` is a `x.numpy()` call (`TRACE_RAISING_METHODS`, no arguments): under a trace it
    raises on a tensor or a variable."""
    return isinstance(node, cst.Call) and not node.args and isinstance(node.func, cst.Attribute) \
        and node.func.attr.value in TRACE_RAISING_METHODS


def _raising_calls_in(ctx, statement) -> tuple:
    """In one pass over a simple statement (outside the lambdas it defines; past the trivia,
    which hold no call: `inner_nodes`): its first `x.numpy()` call (`TRACE_RAISING_METHODS`, no
    arguments), or None; and its first JAX concretizing call, (call, value, conversion)
    (`frameworks.JAX_CONCRETIZING_FUNCTIONS` given a value, `JAX_CONCRETIZING_METHODS` called on
    one with no arguments), among the parts that run whenever the statement does (not under a
    conditional expression, `and`/`or` or a comprehension: `_CONDITIONAL_PARTS`), else (call,
    None, "") of the first call of a name there, which may be a plain function of the module
    that raises so itself (`concretizing_callee`); with neither, the first index of a name or a
    list or tuple display that is no literal, (subscript, index, `JAX_SEQUENCE_INDEX`): whether
    it indexes a Python sequence is read with the function (`walk._converted`); or None."""
    if JAX.name in getattr(ctx, "absent", ()):
        # (a file JAX stages nothing in, `screen.framework_reach`: no conversion of a tracer there)
        return _first_trace_raising_call(statement), None
    numpy_call = conversion = callee = index = None
    stack = [(statement, False)]
    while stack:
        n, maybe = stack.pop()
        if isinstance(n, cst.Lambda):
            continue
        if isinstance(n, cst.Call):
            func = n.func
            if isinstance(func, cst.Attribute):
                attr = func.attr.value
                if numpy_call is None and trace_raising_call(n):
                    numpy_call = n
                if not maybe and conversion is None:
                    if attr in JAX_CONCRETIZING_METHODS:
                        if not n.args:
                            conversion = n, func.value, attr
                    elif attr in _CONVERSION_NAMES:
                        conversion = _conversion(ctx, n)
            elif isinstance(func, cst.Name) and not maybe and conversion is None:
                if func.value in _CONVERSION_NAMES:
                    conversion = _conversion(ctx, n)
                elif callee is None and not any(a.star for a in n.args):
                    callee = n, None, ""
        elif isinstance(n, cst.Subscript) and not maybe and index is None and len(n.slice) == 1 \
                and isinstance(n.value, (cst.Name, cst.List, cst.Tuple)) and isinstance(n.slice[0].slice, cst.Index) \
                and not is_literal(n.slice[0].slice.value):
            index = n, n.slice[0].slice.value, JAX_SEQUENCE_INDEX
        maybe = maybe or isinstance(n, _CONDITIONAL_PARTS)
        stack.extend((c, maybe) for c in reversed(inner_nodes(n)))
    return numpy_call, conversion or callee or index


#: Compound statements every path through which may call `x.numpy()` (`compound_raising`).
_RAISING_COMPOUNDS = (cst.If, cst.For, cst.While)


def _first_trace_raising_call(statement) -> cst.Call | None:
    """`_raising_calls_in`'s first `x.numpy()` call alone, the search ending there."""
    stack = [statement]
    while stack:
        n = stack.pop()
        if isinstance(n, cst.Lambda):
            continue
        if trace_raising_call(n):
            return n
        stack.extend(reversed(inner_nodes(n)))
    return None


def _conversion(ctx, call: cst.Call):
    args = call.args
    if args and args[0].keyword is None and not args[0].star:
        func = call.func
        last = func.attr.value if isinstance(func, cst.Attribute) else func.value
        if last in _VALUE_SHAPED_NAMES:  # `jnp.unique(x)`: without `size=` only, `jnp.where` of one argument
            if (last in JAX_VALUE_SHAPED_ONE_ARGUMENT and len(args) != 1) or \
                    any(a.keyword is not None and a.keyword.value == "size" for a in args):
                return None
            names = ctx.qualified_names(func) & JAX_VALUE_SHAPED_FUNCTIONS
        else:
            names = ctx.qualified_names(func) & JAX_CONCRETIZING_FUNCTIONS
        if names:
            return call, args[0].value, min(names)
    return None


def concretizing_call(ctx, statement):
    """`_raising_calls_in`'s concretizing call of a simple statement (or the call of a name)."""
    return ctx.raising_calls(statement)[1]


def concretizing_callee(ctx, call: cst.Call) -> cst.FunctionDef | None:
    """The plain function of the module (`_module_function`) the call of a name calls, or None
    (looked up once per call)."""
    memo = ctx.memo.setdefault("concretizing_callee", {})
    if id(call) not in memo:
        memo[id(call)] = (call, _module_function(ctx, call.func))
    return memo[id(call)][1]


#: The statements that end a block's run: what follows the block in its enclosing one runs only
#: when the block did not end in one.
RETURN_OR_RAISE = (cst.Return, cst.Raise)
#: The conversion an `if` or `while` makes of its test's value (`after_trace_raising_call`).
TRUTH_TEST = "builtins.bool"


def ends_leaving(block, kinds: tuple = RETURN_OR_RAISE) -> bool:
    """The block's last line (an indented block's last statement, or a one-line suite) holds one
    of `kinds`: `if scan: return run_jax(x)`, `if p: raise ValueError(...)`; with `continue` and
    `break` among them for the rest of a loop's body."""
    stmts = block.body if isinstance(block, cst.IndentedBlock) else [block]
    return bool(stmts) and leaves(stmts[-1], kinds)


def leaves(statement, kinds: tuple = RETURN_OR_RAISE) -> bool:
    """The line `statement` (a simple statement line or a one-line suite) holds one of `kinds`
    (`return x`, `x = f(); raise E`): whenever it runs, the rest of its block does not."""
    return isinstance(statement, (cst.SimpleStatementLine, cst.SimpleStatementSuite)) and any(
        isinstance(s, kinds) for s in statement.body)


def unreachable_tail(block, kinds: tuple = RETURN_OR_RAISE) -> list:
    """The statements of an indented block after its first line that always leaves it (`leaves`:
    `raise ValueError("Refusing to compile")`, then a loop): Python never runs them, traced or
    not. [] where none leaves, or where the tail holds a `yield` (which makes the function a
    generator whether it runs or not: `return` then `yield` is an empty generator)."""
    stmts = block_statements(block)
    for i, statement in enumerate(stmts[:-1]):
        if leaves(statement, kinds):
            tail = stmts[i + 1:]
            return [] if any(holds_kind(s, (cst.Yield,)) for s in tail) else tail
    return []


def block_statements(suite) -> list:
    """The statements of an indented block ([] for a one-line suite, or none)."""
    return list(suite.body) if isinstance(suite, cst.IndentedBlock) else []


def block_holding(ctx, statement, line: int) -> list:
    """The statements of the block of the compound `statement` (its body, `elif`, `else`,
    `except`, `finally`) that holds `line`."""
    blocks = [block_statements(getattr(statement, "body", None))]
    for name in ("orelse", "finalbody"):
        part = getattr(statement, name, None)
        if isinstance(part, cst.If):
            blocks.append([part])  # `elif`: one statement of its own
        elif part is not None:
            blocks.append(block_statements(part.body))
    blocks += [block_statements(h.body) for h in getattr(statement, "handlers", ())]
    for block in blocks:
        # (`raw_position`: no Span built for each statement asked)
        if any(ctx.raw_position(s)[0] <= line <= ctx.raw_position(s)[2] for s in block):
            return block
    return []


def statements_down_to(ctx, statements, line: int):
    """The way down from `statements` (a block) to the statement holding `line`: each statement
    of the block above the one that holds it, as (statement, False), then that one, (statement,
    True); then the same in the block of it that holds `line` (`block_holding`), and so on down
    to a simple statement line. Ends where no statement of a block holds `line`. The caller stops
    where it has its answer (a generator: the blocks below are not searched)."""
    while statements:
        holding = None
        for statement in statements:
            first, _, last, _ = ctx.raw_position(statement)  # (no Span built for each statement)
            if getattr(statement, "decorators", None):
                # a decorated def or class begins at its first decorator (libcst's position
                # starts at `def`): a finding on `@tf.function` is in that statement
                first = ctx.raw_position(statement.decorators[0])[0]
            if first <= line <= last:
                holding = statement
                break
            yield statement, False
        if holding is None:
            return
        yield holding, True
        if isinstance(holding, cst.SimpleStatementLine):
            return
        statements = block_holding(ctx, holding, line)


def simple_statements_before(ctx, func, line: int, into_definitions: bool = True, compounds: bool = False):
    """The simple statements of `func`'s body that run before `line` on every path through it:
    those above it in its own block and in each block around it, outermost first (a statement in
    a block that does not hold `line`, under an `if` above it, may not run). With
    `into_definitions` False, none in the body of a `def` or `class` statement holding `line`.
    With `compounds`, the compound statements above it in those blocks too (whole: which of their
    parts run is the caller's question)."""
    for statement, holds in statements_down_to(ctx, block_statements(getattr(func.node, "body", None)), line):
        if not holds:
            if compounds or isinstance(statement, cst.SimpleStatementLine):
                yield statement
        elif not into_definitions and isinstance(statement, (cst.FunctionDef, cst.ClassDef)):
            return


def module_statement_at(ctx, line: int):
    """The simple statement line of module-level code (in any block of it, not in a def or class)
    that holds `line`, or None."""
    for statement, holds in statements_down_to(ctx, ctx.module_node.body, line):
        if holds and isinstance(statement, (cst.SimpleStatementLine, cst.FunctionDef, cst.ClassDef)):
            return statement if isinstance(statement, cst.SimpleStatementLine) else None
    return None


def binds_only_from_call(ctx, name: cst.Name):
    """(first line, last line) of the module-level statement binding `name`, when it is alone on
    its lines and binds it from a call evaluated whole (`params, loss = step(params, x)`): the
    name is bound only once that call has returned. None otherwise."""
    value = ctx.bound_values.get(id(name))
    if not isinstance(value, cst.Call) or id(name) in ctx.rebinding_targets or not evaluated_whole(value):
        return None
    statement = module_statement_at(ctx, ctx.position(name).line)
    if statement is None or len(statement.body) != 1 or not isinstance(statement.body[0], (cst.Assign, cst.AnnAssign)) \
            or statement.body[0].value is not value:
        return None
    at = ctx.position(statement)
    return at.line, at.end_line


#: What may leave part of an expression unevaluated: a conditional expression, `and`/`or`, a
#: lambda or comprehension (run later, or once per element, maybe never), a `yield`.
_CONDITIONAL_PARTS = (cst.IfExp, cst.BooleanOperation, cst.Lambda, cst.ListComp, cst.SetComp, cst.DictComp,
                      cst.GeneratorExp, cst.Yield, cst.Await)


def holds_kind(node: cst.CSTNode, kinds: tuple) -> bool:
    """A node of `kinds` lies under `node`, not looking into nested defs or classes (their
    `return`s leave their own bodies); for statement kinds alone, `trivia.holds_statement` says
    the same past the expressions. Walked past the trivia (`fastmeta.walk`), without libcst's
    visitor machinery: the same nodes, a fraction of the cost."""
    found = []

    def on_visit(n) -> bool:
        if found or isinstance(n, (cst.FunctionDef, cst.ClassDef)):
            return False
        if isinstance(n, kinds):
            found.append(n)
            return False
        return True

    walk(node, on_visit, _left, TRIVIA)
    return bool(found)


def _left(node) -> None:
    pass


def evaluated_whole(node: cst.CSTNode) -> bool:
    """Every part of the expression (or simple statement) `node` is evaluated whenever it runs:
    no conditional expression, `and`/`or`, lambda or comprehension in it."""
    return not holds_kind(node, _CONDITIONAL_PARTS)


def read_on_every_return(ctx, func, node: cst.CSTNode) -> bool:
    """`node` is evaluated on every path through `func`'s body that returns normally: it lies in
    a simple statement of the body's own block, evaluated whole, with no `return` above it, in a
    function that is no generator (`def step(p, x): ...; return p, loss`: a call that returns
    has read `loss`)."""
    body = getattr(func.node, "body", None)
    if body is None or func.facts.is_generator:
        return False  # calling a generator function runs none of its body (the walk saw its `yield`)
    line = ctx.position(node).line
    for statement in block_statements(body):
        first, _, last, _ = ctx.raw_position(statement)  # (no Span built for each statement)
        if first <= line <= last:
            return isinstance(statement, cst.SimpleStatementLine) and ctx.inside(node, statement) and \
                evaluated_whole(statement)
        if holds_statement(statement, (cst.Return,)):
            return False
    return False


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
    #: the calls the walk visits while this function is the one walked (its body, its parameters'
    #: defaults, lambdas and class bodies in it; a nested def's are the nested def's), in the
    #: order it visits them; the loops, comprehensions, generator expressions, lambdas, nested
    #: defs and classes; the assignments (`=`, `+=`, annotated) and `del` statements: read once
    #: the walk has gone through the function (`analysis.meets`, `analysis.flatten_loops`)
    #: instead of walking its body again
    calls: list = field(default_factory=list)
    inner: list = field(default_factory=list)
    stores: list = field(default_factory=list)

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
        #: for a notebook (its code cells read as one module, `pipeline.perfile`), the names in
        #: the code left out of that module (`notebooks.Notebook.hidden_names`: `%timeit f(x)`);
        #: None for a module. No module imports a notebook: its cells hold every read of its names.
        self.notebook_hidden: frozenset[str] | None = None
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
        #: the loops (`for`, `while`, comprehensions) whose repeated part the walk is in, outermost
        #: first, within the current function (`_repeated`: part id -> its loop)
        self._loop_stack: list[cst.CSTNode] = []
        self._repeated: dict[int, cst.CSTNode] = {}
        self._guarded_blocks: set[int] = set()
        self._lifted_blocks: set[int] = set()
        #: The bodies of `with jax.disable_jit():` (`JAX_JIT_DISABLING`), and how many of them
        #: enclose the walk's position in the current function's own body (reset per function: a
        #: def in the block runs when it is called, maybe outside it)
        self._jit_disabled_blocks: set[int] = set()
        self.jit_disabled_depth = 0
        #: Blocks that never run while tracing: the body of `if tf.executing_eagerly():`, the `else:`
        #: of `if in_tf_function():`. Block id -> "" (certainly) or the target of a project predicate
        #: that decides it (`self._use_tf_workflow()`); `eager_stack` holds the enclosing ones.
        self._eager_blocks: dict[int, object] = {}
        #: (block, target, function) of those a project predicate decides (`eager_predicates`)
        self._predicate_blocks: list[tuple] = []
        #: Blocks Python never runs (`walk.never_runs`; the statements after a line that always
        #: leaves its block, `unreachable_tail`): the walk does not enter them.
        self._dead_blocks: set[int] = set()
        #: (span, name) of the blocks an `if` on a module constant never rebound in the module
        #: leaves unrun (`walk.module_flag_dead`), unless another module writes it
        self._flag_dead: list = []
        #: (candidate, function, `after_trace_raising_call`'s answer) of candidates reported
        #: after a `.numpy()` call in their block
        self.after_raising: list = []
        #: ids of the functions the walk has met a `x.numpy()` call in so far, and (edge, function,
        #: `after_trace_raising_call`'s answer) of each call edge recorded after one
        self.raising_functions: set[int] = set()
        self.after_raising_edges: list = []
        #: id of a simple statement -> its first `x.numpy()` call and its `concretizing_call` (each
        #: or None): each statement is searched once per file, not once per candidate below it
        #: (`after_trace_raising_call`)
        self._raising_calls: dict[int, tuple] = {}
        self._header_conversions: dict[int, tuple] = {}  # (`header_conversions`, once per statement)
        self._compound_raising: dict[int, object] = {}  # (`compound_raising`, once per statement)
        #: (candidate, function, `after_trace_raising_call`'s concretizing calls) of candidates
        #: reported after a `float(x)`, `np.asarray(x)`, `x.item()` in their block
        self.after_concretizing: list = []
        self.eager_stack: list = []
        self._saved_eager: list[list] = []
        self._escaped_lambdas: set[int] = set()
        self.escaped_depth = 0
        #: lambdas handed as an argument to a call: id -> (that call's target, position or keyword)
        self._argument_lambdas: dict[int, tuple] = {}
        #: those around the node walked: (id of the function they are in, (target, key)) (`CallEdge.within`)
        self.argument_lambdas: list[tuple[int, tuple]] = []
        #: `partial(f, ...)` calls handed to a host callback as its function (`jax.debug.callback(
        #: partial(f, n=n), x)`): f runs as Python when JAX calls it back, not while tracing; the
        #: Names handed to one (`jax.debug.callback(cb, x)`); and (function, ref edge, Name) of each
        #: `cb = partial(f, ...)` in a function, decided once the walk is over (`_callback_partials`)
        self._escaped_partials: set[int] = set()
        #: a notebook's top-level `test*` defs (node, facts), and the Names (ids, and their
        #: names) module-level code calls in a statement of their own outside any loop
        #: (`walk._notebook_tests`, `walk._called_once_at_top`)
        self._notebook_tests: list = []
        self._top_calls: set[int] = set()
        self._top_called: set[str] = set()
        #: the module's own defs (not nested, no method): name -> (node, facts), the last one
        self._top_defs: dict[str, tuple] = {}
        self._callback_names: set[int] = set()
        self._named_partials: list = []
        #: Lambdas a `tf.data` transformation traces: walked as functions of their own.
        self._dataset_lambdas: set[int] = set()
        #: functions whose decorators are being walked (taken off `functions` meanwhile)
        self._decorated: list[FunctionInfo] = []
        self.module_node: cst.Module | None = None
        #: The module runs `from m import *` (Python allows it only at module level, where the walk
        #: records every import): it may bind any name. Complete once the walk has left the module.
        self.star_import = False
        #: Name node (target of a binding) -> the expression bound to it.
        self.bound_values: dict[int, cst.BaseExpression] = {}
        #: Name node bound by unpacking a call's result (`images, size = self._scale(...)`) ->
        #: (its position, how many names the target unpacks into).
        self.unpacked_at: dict[int, tuple[int, int]] = {}
        #: Name node bound by a nested target unpacking a call's result (`(_, aux), grads =
        #: jax.value_and_grad(f, has_aux=True)(x)`) -> its path: (position, count) per level.
        self.unpacked_path: dict[int, tuple[tuple[int, int], ...]] = {}
        #: Name nodes bound by unpacking (`a, b = pair`, `for i, r in ...`): each holds a part of the value bound.
        self.unpacked_names: set[int] = set()
        #: Calls that are expression statements (their result is thrown away).
        self.statement_calls: set[int] = set()
        #: Name node of a module-level binding -> the if/try branches it sits in.
        self.branch_paths: dict[int, tuple] = {}
        self._branch_stack: list[tuple[int, str]] = []
        self._branch_of: dict[int, tuple[int, str]] = {}
        #: Blocks and statements that run only under conditions on parameters of their function
        #: (`flags.param_conditions`) -> [(the function's id, condition)]; `cond_stack` holds the
        #: enclosing ones (`facts.CallEdge.when`, a candidate's `_when`). Bodies of `if <param>:`
        #: on a parameter with a False/None/0 default hold (the function's id, `facts.FLAG_MARK` +
        #: the parameter) too (`facts.CallEdge.flag`).
        self._cond_blocks: dict[int, list[tuple[int, str]]] = {}
        self.cond_stack: list[tuple[int, str]] = []
        #: `if` statements of a function's blocks whose body always leaves the block -> the block
        self._enclosing_block: dict[int, cst.IndentedBlock] = {}
        #: Name nodes bound by a `for` target or an augmented assignment (always rebinding).
        self.rebinding_targets: set[int] = set()
        #: Binding Name nodes bound inside loops (a closure over them sees the last value).
        self.loop_bound: set[int] = set()
        self._meta = None
        self._rules = []
        self._saved_depths: list[tuple] = []
        #: (function, node, kind, target, value, guarded) for stores/mutations in traced code
        self.raw_stores: list[tuple] = []
        #: a store's node (`raw_stores`) -> the conditions on its function's parameters it runs
        #: under (`conditions_of`), for the rules that report stores once the walk is over
        self.store_when: dict[int, list[str]] = {}
        self._store_sites = None
        #: Per-file memos of the shared inferences (tensors.py), keyed by what they answer.
        self.memo: dict[str, dict] = {}
        self._class_fn_depth: list[int] = []
        #: Top-level package names of the files being checked: calls into them are call sites.
        self.project_roots: frozenset[str] = frozenset()
        #: The loops (For/While nodes) enclosing the current node, in the current function only.
        self.loops: list[cst.For | cst.While] = []
        self._saved_loops: list[list] = []
        #: the lines of the module-level statements that build a functional model (`keras.Input`,
        #: `Model(inputs, outputs)`), in walk order: `_redefining` asks which a class's binding spans
        self.module_builds: list[int] = []
        #: Regions rules mark on nodes before the walk reaches them (`mark_region`); `regions` is
        #: the stack of the marks enclosing the current node, innermost last.
        self.regions: list[str] = []
        self._region_of: dict[int, str] = {}
        #: `self.attr = value` in methods of this file: (class qualname, attr) -> values bound.
        self.self_attr_values: dict[tuple[str, str], list[cst.BaseExpression]] = {}
        #: Staging calls whose Function is used once, right away: `tf.function(f)(x)`.
        self._fresh_staging_calls: set[int] = set()
        #: Wrapper-binding keys (`name:...`, `self:...`) bound more than once to different values:
        #: which one a call reaches depends on order the model does not follow (`walk`).
        self._rebound_wrappers: set[str] = set()
        #: Attribute nodes that are assignment targets (stores, not reads).
        self._store_attributes: set[int] = set()
        #: the `obj.m` callees of recorded call sites (`ModuleFacts.uncalled_attribute_reads` leaves them out)
        self._site_callees: set[int] = set()
        #: Name nodes called as a project function's call site's callee (`compiled(x)`):
        #: `jaxstaging.mark_uncalled`'s wrappers whose every read is a call
        self._site_callee_names: set[int] = set()
        #: the attributes read other than as such a callee (`ModuleFacts.uncalled_attribute_reads`)
        self._uncalled_reads: list = []
        #: The names of the attributes the module reads (`obj.attr` anywhere, not as a store target).
        self.attribute_loads: set[str] = set()
        #: A call assigned by a one-target assignment (`g = jax.jit(f)`) -> the target it binds.
        self.assigned_calls: dict[int, cst.BaseExpression] = {}
        #: JAX wrappers bound by an assignment: (record, the target, the function it is made in),
        #: whose uses are read at the end of the walk (`jaxstaging.mark_uncalled`).
        self.staged_bindings: list[tuple] = []
        #: such a call -> the index of the target it appended to `facts.wrapped`
        self.wrapped_at: dict[int, int] = {}
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

    def staging_decorators(self) -> frozenset[str]:
        """What stages the function it is given or decorates, in this file: the frameworks' staging
        APIs and the project's own (the `staging-decorators` setting)."""
        return self.framework.staging_decorators | set(self.settings.staging_decorators)

    def raw_position(self, node: cst.CSTNode) -> tuple[int, int, int, int]:
        """(line, column, end line, end column), columns from 0, as the metadata holds them: for a
        scan comparing many positions (no Span built per node)."""
        return self._meta.position(node)

    def inside(self, node: cst.CSTNode, container: cst.CSTNode) -> bool:
        """The node lies within the container's span, both ends (the container itself counts)."""
        line, column, end_line, end_column = self._meta.position(node)
        outer = self._meta.position(container)
        return (outer[0], outer[1]) <= (line, column) and (end_line, end_column) <= (outer[2], outer[3])

    def is_store_target(self, node: cst.Attribute) -> bool:
        """The attribute is an assignment's target (`self.x = ...`): a store, not a read."""
        return id(node) in self._store_attributes

    def loops_around_function(self) -> list:
        """The loops enclosing the current function's def (or walked lambda) in the code around it:
        the enclosing function's, or the module's ([] when none)."""
        return self._saved_loops[-1] if self._saved_loops else []

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

    def called_names(self, func: cst.BaseExpression) -> set[str]:
        """The qualified names of the function a call's `func` names: those of a dotted name
        (`np.random.choice`), none for an attribute of a value the expression computes
        (`np.random.choice(...).astype`, `xs[0].numpy`). libcst names such a chain through the
        call (`numpy.random.choice.astype`), but it is a method of the value the inner call
        returns: the inner call is a call of its own."""
        node = func
        while isinstance(node, cst.Attribute):
            node = node.value
        return self.qualified_names(func) if isinstance(node, cst.Name) else set()

    def _absolute_names(self, node: cst.CSTNode) -> set[str]:
        names = self._meta.qualified_names(node)
        if len(names) > 1:
            names = self._names_reaching(node, names)
        out = set()
        for q in names:
            if q.source == QualifiedNameSource.IMPORT and q.name.startswith("."):
                out.add(self.absolute_import(q.name))
            elif q.source == QualifiedNameSource.LOCAL:
                out.add(f"{self.module}.{q.name}" if self.module else q.name)
            elif q.name.startswith(TF_SAME_MODULE_PREFIXES):  # `tf.compat.v2.X` is `tf.X`
                out.add("tensorflow." + q.name.split(".", 3)[3])
            else:  # `array_ops.split` is `tf.split`: the one name the data lists
                out.add(TF_INTERNAL_NAMES.get(q.name, q.name))
        return out

    def _names_reaching(self, node: cst.CSTNode, names):
        """`names` (libcst's qualified names of `node`: one per binding of its name anywhere in
        the scope) less those of module bindings no run can see at `node`: `import numpy as tf`
        then `import tensorflow as tf`, and `tf.strings.lower(x)` after both is TensorFlow's.
        A module binding A is overwritten for good by a binding B of the same name made by a
        module-level statement that always runs (an import, an assignment, a def or class
        line, not under an `if`/`try`/loop) after A's statement and before the statement that
        holds the use: A's statement runs once, before B's; and code in that later statement
        (a def's body, a class's) runs only once the statement has, so after B. Bindings inside
        functions (`global`) are kept: they can run at any time."""
        base = node
        while isinstance(base, cst.Attribute):
            base = base.value
        scope = self.scope(node)
        full = get_full_name_for_node(node)
        module = self.module_node
        if not isinstance(base, cst.Name) or scope is None or full is None or module is None:
            return names
        prefix, assignments = full, ()
        while prefix:
            if prefix in scope:
                assignments = scope[prefix]
                break
            prefix = prefix.rpartition(".")[0]
        if len(assignments) < 2 or any(
            not isinstance(a.scope, GlobalScope) or not isinstance(getattr(a, "node", None), cst.CSTNode)
            or a.node is node for a in assignments
        ):
            return names
        body = module.body
        starts = [self.position(stmt).line for stmt in body]

        def statement(n):
            i = bisect.bisect_right(starts, self.position(n).line) - 1
            return i, (body[i] if i >= 0 else None)

        use, _ = statement(base)
        placed = {a: statement(a.node) for a in assignments}

        def always(a) -> bool:
            i, stmt = placed[a]
            if a.node is stmt:
                return isinstance(stmt, (cst.FunctionDef, cst.ClassDef))
            if not isinstance(stmt, cst.SimpleStatementLine):
                return False
            return any(small is a.node or (isinstance(small, cst.Assign)
                                            and any(t.target is a.node for t in small.targets))
                       for small in stmt.body)

        def once(a) -> bool:  # A's binding runs where its module-level statement is, once
            i, stmt = placed[a]
            return not isinstance(stmt, (cst.FunctionDef, cst.ClassDef)) or a.node is stmt

        later = [placed[b][0] for b in assignments if always(b) and placed[b][0] < use]
        live = [a for a in assignments if not (once(a) and any(placed[a][0] < i for i in later))]
        if len(live) == len(assignments) or not live:
            return names
        kept = set()
        for a in live:
            kept |= a.get_qualified_names_for(a.name if isinstance(node, cst.Name) else full)
        return (names & kept) or names

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

    def framework_op(self, qualified_name: str) -> bool:
        """The name is an operation of the file's framework that returns a tensor (an array):
        under its roots and not listed as returning anything else (`Framework.returns_tensor`),
        and not a function of the project itself (the framework's own source checked as a
        project: its functions are project functions, asked as such)."""
        return (self.framework.returns_tensor(qualified_name)
                and qualified_name.split(".", 1)[0] not in self.project_roots)

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

    def reaching_in_order(self, name: cst.Name, func: FunctionInfo | None, at: cst.CSTNode | None = None):
        """`reaching`, also at module level (a script's `ds = ds.padded_batch(8)` after
        `ds = make()`: the module's straight-line code is in program order as a function's is),
        and, given `at`, a statement holding the load that binds none of the name (a loop), the
        bindings that reach `at`: those reach the load too."""
        if at is None and (func is not None or self.module_node is None):
            return self.reaching(name, func)
        refs = self.referents(name)
        if refs is None or len(refs) < 2 or (func is None and self.module_node is None):
            return refs
        memo = self.memo.setdefault("reaching_in_order", {})
        key = (id(name), id(at))
        if key not in memo:
            where = self._meta.position(at)[:2] if at is not None else None
            memo[key] = self._reaching(name, func, refs, where)
        return memo[key]

    def _reaching(self, name: cst.Name, func: FunctionInfo | None, refs, where=None):
        nodes = {id(getattr(r, "node", None)): r for r in refs}
        where = where or self._meta.position(name)[:2]
        path = []  # (statements, index of the one holding the load), outermost first
        others = []  # the blocks of an `if`/`elif`/`else` chain the load is not in
        looped = False
        block = func.node.body if func is not None else cst.IndentedBlock(body=self.module_node.body)
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
                elif isinstance(stmt, cst.If) and not looped:
                    others.append(child)
            looped = looped or isinstance(stmt, (cst.For, cst.While))
            block = inner
        if others:
            # `if u0 is None: u0 = jnp.zeros(n) else: assert u0.dim == 2`: one branch's binding
            # never reaches a load in another (outside a loop, where an earlier turn's could)
            kept = tuple(r for r in refs if not any(_within(self, getattr(r, "node", None), b) for b in others))
            refs = kept or refs
        for stmts, index in reversed(path):
            if (stmts is not path[-1][0] and isinstance(stmts[index], (cst.For, cst.While))
                    and any(_within(self, getattr(r, "node", None), stmts[index]) for r in refs)):
                return refs  # not bound earlier in the loop's body: a later binding in it reaches
            for st in reversed(stmts[:index]):
                if isinstance(st, cst.SimpleStatementLine):
                    for small in reversed(st.body):
                        targets = ()
                        if isinstance(small, cst.Assign):
                            targets = [t.target for t in small.targets]
                        elif isinstance(small, cst.AnnAssign) and small.value is not None:
                            targets = [small.target]
                        elif isinstance(small, cst.AugAssign):
                            # `a *= x` rebinds `a` (NumPy's in-place operator defers to a tensor
                            # `x` and gives a tensor): the load sees this binding, which reads on
                            targets = [small.target]
                        for t in targets:
                            for n in target_names(t):
                                if n.value == name.value and id(n) in nodes:
                                    return (nodes[id(n)],)
                    continue
                if isinstance(st, (cst.FunctionDef, cst.ClassDef)) and st.name.value == name.value and id(st) in nodes:
                    return (nodes[id(st)],)  # `def fn(...)` binds `fn` as an assignment does
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

    def never_read(self, target: cst.Name, func: FunctionInfo | None) -> bool:
        """`target` (a name an assignment binds) is a local of `func` that no code reads: no
        load of the name in the function or the functions it holds refers to any of its
        bindings, and it is not declared `global` / `nonlocal`. A module's names are never so:
        other modules may import them."""
        if func is None or target.value in func.declared:
            return False
        return self.unreferenced(target)

    def unreferenced(self, target: cst.Name) -> bool:
        """No load of the name in its scope (or the scopes it holds) refers to any of its bindings."""
        scope = self.scope(target)
        if scope is None or target.value not in scope.assignments:
            return False
        return not any(a.references for a in scope.assignments[target.value])

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

    def argument_lambdas_of(self, func) -> tuple:
        """The lambdas around the node walked that `func`'s body hands as arguments to a call:
        ((that call's target, the argument's position or keyword), ...) (`CallEdge.within`)."""
        return tuple(t for owner, t in self.argument_lambdas if owner == id(func)) if self.argument_lambdas else ()

    # Reporting --------------------------------------------------------------------------------

    @property
    def function(self) -> FunctionInfo | None:
        return self.functions[-1] if self.functions else None

    def hold(self, rule, node: cst.CSTNode, fields: dict, function: FunctionInfo | None = None):
        """A rule's candidate at `node` (`Rule.report`), made with what the walk knows there (the
        conditions and eager blocks around it, the `.numpy()` calls before it) and added by
        `release`: at once, or, for a rule that can decide only at the end of the function
        whether to report what it saw in it (STG402: which calls can meet the object a
        construction makes), then. None where nothing is recorded."""
        func = function if function is not None else self.function
        if func is None and not rule.always and not fields.get("_anchors"):
            return None  # module-level code is never staged, unless the finding names what it concerns
        candidate = F.Candidate(rule.code, func.qualname if func else None, self.position(node), dict(fields))
        if func is not None and func is self.function and self.cond_stack:
            # under conditions on parameters of its own function (`if verbose:`): in no trace
            # where no value a trace gives them satisfies one (`flags.untraced_branch`)
            when = self.conditions_of(func)
            if when:
                candidate.fields["_when"] = when
        elif func is not None and id(node) in self.store_when:
            # a store reported once the walk is over (STG201's `finish`): the conditions it ran under
            candidate.fields["_when"] = self.store_when[id(node)]
        unless = self.eager_predicates() if func is not None and func is self.function \
            else self.eager_predicates(node, func) if func is not None else None
        if unless:
            # in a block a project predicate keeps out of every trace (the `else:` of `if
            # in_tf_function():`), decided in the project phase (`Project.in_eager_block`)
            candidate.fields["_eager_unless"] = unless
        raising, concretizing = None, None
        if func is not None and not rule.always:
            raising, concretizing = self.after_trace_raising_call(func, candidate.span.line,
                                                                  node if rule.whole_loop else None)
        return candidate, func, raising, concretizing

    def release(self, held) -> None:
        """Adds a candidate `hold` made."""
        candidate, func, raising, concretizing = held
        self.facts.candidates.append(candidate)
        if raising is not None:  # its step is added once the walk is over (`walk._after_raising`)
            self.after_raising.append((candidate, func, raising))
        if concretizing:  # its origin is read once the walk is over (`walk._after_concretizing`)
            self.after_concretizing.append((candidate, func, concretizing))

    def raising_calls(self, statement) -> tuple:
        """`_raising_calls_in` of a simple statement, searched once per file (`_raising_calls`)."""
        found = self._raising_calls.get(id(statement), _UNSEARCHED)
        if found is _UNSEARCHED:
            found = self._raising_calls[id(statement)] = _raising_calls_in(self, statement)
        return found

    def note_store(self, node: cst.CSTNode) -> None:
        """A store in the function being walked (`raw_stores`): keep the conditions on its
        parameters it runs under (`store_when`)."""
        if self.cond_stack and self.function is not None:
            when = self.conditions_of(self.function)
            if when:
                self.store_when[id(node)] = when

    def eager_predicates(self, node: cst.CSTNode | None = None, within=None) -> list[list[str]]:
        """The targets of the project predicates whose truth while tracing keeps the code being
        walked out of every trace (`eager_stack`: the `else:` of `if in_tf_function():`), outermost
        first; [] when none does. With `node` (a rule reporting once the walk is over), those of
        the blocks of the function `within` holding it (`_predicate_blocks`)."""
        if node is None:
            return [list(mark) for mark in self.eager_stack if mark] if self.eager_stack else []
        if not self._predicate_blocks:
            return []
        at = self.position(node)
        return [list(mark) for block, mark, func in self._predicate_blocks
                if func is within and _holds(self, block, (at.line, at.column))]

    def conditions_of(self, func: FunctionInfo) -> list[str]:
        """The conditions on `func`'s parameters the code being walked runs under (`cond_stack`)."""
        return sorted({c for f, c in self.cond_stack if f == id(func) and c[0] != F.FLAG_MARK})

    def after_trace_raising_call(self, func: FunctionInfo, line: int, loop=None, numpy_only: bool = False):
        """(line, call, receiver) of a `x.numpy()` call (`TRACE_RAISING_METHODS`) in a simple
        statement that runs before `line` on every path through `func`: above it in its own block,
        or in a block around it (Monodepth2's debug block: `dispmap = outputs[...][0].numpy()`,
        then its prints), or None. Under a trace that call raises when `x` is a tensor or a
        variable, so the code after it runs while tracing only when `x` is something else: it is
        written for eager execution (with tf.function turned off to debug, as Monodepth2's comment
        says). Beside it, the (line, call, value, conversion) of each JAX concretizing call
        (`float(x)`, `np.asarray(x)`, `x.item()`, `range(n)`: `concretizing_call`) in such
        statements and in the headers evaluated before `line` (`header_conversions`: of the
        compound statements above it in those blocks and of those holding it, `for _ in
        range(all_omgs[i]):`; an `if` or `while` test is a `bool` of its value): on a tracer it
        raises while tracing, and the code after it is never traced (`tracers.raises_while_traced`).
        With `loop` (a finding about a loop as a whole, `Rule.whole_loop`), those of its own header
        and of every iteration (`_iteration_conversions`) too: no iteration completes in a trace.
        With `numpy_only` (a call edge after a `.numpy()`, `walk`), the `x.numpy()` call alone: the
        search ends there, and no header is read ([] beside it). A compound statement above `line`
        whose every path calls `x.numpy()` before it ends (`compound_raising`: each branch of an
        `if` with an `else`, the body of a loop) counts too: (line, first call, its receiver, (every
        such call, the loop header or None)) — a loop's body raises only if it runs once."""
        raising, concretizing = None, []
        jax = JAX.name not in getattr(self, "absent", ()) and not numpy_only
        compounds = id(func) in self.raising_functions
        for statement, holds in statements_down_to(self, block_statements(getattr(func.node, "body", None)), line):
            if compounds and raising is None and not holds and isinstance(statement, _RAISING_COMPOUNDS):
                found = self.compound_raising(statement)
                if found is not None:
                    calls, loop = found
                    raising = self.raw_position(statement)[0], calls[0], calls[0].func.value, (calls, loop)
                    if numpy_only:
                        break
            if isinstance(statement, cst.SimpleStatementLine):
                if not holds:
                    call, conversion = self.raising_calls(statement)
                    if call is not None and raising is None:
                        raising = self.position(statement).line, call, call.func.value
                        if numpy_only:
                            break
                    if conversion is not None and not numpy_only:
                        concretizing.append((self.position(statement).line, *conversion))
            elif isinstance(statement, (cst.FunctionDef, cst.ClassDef)):
                if holds:
                    break  # (the body of a def or class holding `line` runs when it is called)
            elif jax and not (holds and self.raw_position(statement)[0] == line):
                found = self.header_conversions(statement)  # (not the header `line` is on)
                if found:
                    concretizing += found
        if jax and isinstance(loop, (cst.For, cst.While)):
            concretizing += self._iteration_conversions(loop)
        return raising, concretizing

    def compound_raising(self, statement):
        """(the `x.numpy()` calls, the loop header or None) when every path through the compound
        `statement` calls `x.numpy()` (`TRACE_RAISING_METHODS`) before it ends: each branch of an
        `if` that has an `else` (AX2's `value`: `results.append(result.numpy()[0])` in both
        branches), or the body of a `for`/`while`, which runs only if the loop makes an iteration
        (the header, for the guess); None when one path may not, or may leave the statement first
        (`return`, `break`, `continue`, `raise`). Under a trace each such call raises on a tensor or
        a variable (AttributeError, NotImplementedError: TF 2.21, tests/runtime/test_tf_pooled_facts.py),
        so what follows the statement runs while tracing only where none does (once per statement)."""
        found = self._compound_raising.get(id(statement), _UNSEARCHED)
        if found is _UNSEARCHED:
            found = self._compound_raising[id(statement)] = self._search_compound(statement)
        return found

    def _search_compound(self, statement):
        found = self._paths_raising(statement)
        # (what may leave the statement first is looked for only where every path raises)
        return None if found is None or holds_statement(statement, LEAVING) else found

    def _paths_raising(self, statement):
        if isinstance(statement, cst.If):
            calls, loop, at = [], None, statement
            while True:
                found = self._block_raising(at.body)
                if found is None:
                    return None
                calls += found[0]
                loop = loop or found[1]
                orelse = at.orelse
                if orelse is None:
                    return None  # (no `else`: a path runs none of the branches)
                if isinstance(orelse, cst.If):
                    at = orelse
                    continue
                found = self._block_raising(orelse.body)
                if found is None:
                    return None
                return calls + found[0], loop or found[1]
        found = self._block_raising(statement.body)
        if found is None:
            return None
        header = statement.iter if isinstance(statement, cst.For) else statement.test
        return found[0], found[1] or header

    def _block_raising(self, block):
        """(calls, loop) of the first statement of `block` every path through which calls
        `x.numpy()` (a simple statement holding one, or `compound_raising`), or None."""
        for statement in block_statements(block):
            if isinstance(statement, cst.SimpleStatementLine):
                call = self.raising_calls(statement)[0]
                if call is not None:
                    return [call], None
            elif isinstance(statement, _RAISING_COMPOUNDS):
                found = self.compound_raising(statement)
                if found is not None:
                    return found
        return None

    def header_conversions(self, statement) -> list:
        """The concretizing calls (`after_trace_raising_call`'s tuples) of the parts of a compound
        statement evaluated whenever it runs: a `for`'s iterable, a `with`'s items, an `if`'s or a
        `while`'s test, and that test's truth (`bool` of its value: `while should_continue(v):`),
        and of an `or` / `and` test, its first operand's truth too (`if type == 0 or None:`)."""
        found = self._header_conversions.get(id(statement))
        if found is not None and found[0] is statement:
            return found[1]
        t = type(statement)
        if t is cst.If or t is cst.While:
            parts, test = [statement.test], statement.test
        elif t is cst.For:
            parts, test = [statement.iter], None
        elif t is cst.With:
            parts, test = [item.item for item in statement.items], None
        else:
            parts, test = (), None
        out = []
        if parts:
            at = self.raw_position(statement)[0]  # (no Span built for each statement)
            for part in parts:
                conversion = self.raising_calls(part)[1]
                if conversion is not None:
                    out.append((at, *conversion))
            if test is not None:
                out.append((at, None, test, TRUTH_TEST))
                first = test
                while isinstance(first, cst.BooleanOperation):
                    first = first.left
                if first is not test:
                    # `if type == 0 or None:`: `or` / `and` tests the truth of its left operand
                    # whatever follows (TracerBoolConversionError on a tracer: JAX 0.10.2,
                    # tests/runtime/test_jax_fourteenth_audit_az_facts.py)
                    out.append((at, None, first, TRUTH_TEST))
        self._header_conversions[id(statement)] = (statement, out)
        return out

    def _iteration_conversions(self, loop) -> list:
        """The concretizing calls every iteration of `loop` makes before it can end early: its
        header's, then those of the statements of its body in order, up to the first that may
        leave the iteration (a `continue`, `break`, `return` or `raise` in it), whose own header
        is evaluated still."""
        out = list(self.header_conversions(loop))
        for statement in block_statements(loop.body):
            if isinstance(statement, cst.SimpleStatementLine):
                conversion = self.raising_calls(statement)[1]
                if conversion is not None:
                    out.append((self.position(statement).line, *conversion))
            elif not isinstance(statement, (cst.FunctionDef, cst.ClassDef)):
                out += self.header_conversions(statement)
            if holds_statement(statement, LEAVING):
                break
        return out

    @property
    def in_staged_context(self) -> bool:
        """False inside `tf.init_scope()` or a `tf.py_function` lambda: that code is not in the
        graph; nor in a block that never runs while tracing (`if tf.executing_eagerly():`, `if not
        isinstance(x, jax.core.Tracer):`, what follows `if isinstance(x, jax.core.Tracer): return`:
        `truth_while_tracing`), which runs only on eager calls. The one question every rule asks."""
        return self.lifted_depth == 0 and self.escaped_depth == 0 and "" not in self.eager_stack

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
        signature, autograph, relaxed, xla = False, True, False, False
        for dec in node.decorators:
            target = dec.decorator.func if isinstance(dec.decorator, cst.Call) else dec.decorator
            names = self.qualified_names(target)
            decorator_names |= names
            if isinstance(dec.decorator, cst.Call) and names & self.framework.staging_decorators:
                signature, autograph = staging_options(dec.decorator)
                relaxed = relaxes_shapes(dec.decorator)
                xla = compiles_with_xla(dec.decorator)
        from stagelint.analysis.jaxstaging import decorated_api, record_decorated

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
            required_positional=[p.name.value for p in (*node.params.posonly_params, *node.params.params)
                                 if p.default is None],
            default_params=set(defaults),
            literal_default_params={n for n, d in defaults.items() if _is_literal_default(d)},
            scalar_defaults={n: t for n, d in defaults.items() if (t := literal_text(d))},
            python_default_params={n for n, d in defaults.items() if _is_python_option(d)}
            | {p.name.value for p in all_params if p.annotation is not None
               and self._python_option_type(p.annotation.annotation)},
            python_container_params={p.name.value for p in all_params if p.annotation is not None
                                     and self._python_container_type(p.annotation.annotation)},
            decorators=sorted(decorator_names),
            input_signature=signature,
            relaxed_shapes=relaxed,
            autograph=autograph,
            xla=xla,
        )
        star = node.params.star_arg
        if isinstance(star, cst.Param):
            facts.varargs = star.name.value
        if isinstance(star, (cst.Param, cst.ParamStar)):
            # (a bare `*` too: the keyword-only parameters after it take no positional argument)
            facts.varargs_at = len(node.params.posonly_params) + len(node.params.params)
        if decorator_names & self.staging_decorators():
            facts.staged_by = "decorator"
            for dec in node.decorators:
                if isinstance(dec.decorator, cst.Call):
                    facts.tensor_params |= self._spec_params(dec.decorator, params[1:] if is_method else params)
        if decorator_names & self.framework.eager_escapes:
            facts.escape = True
        if parent is None and cls is None:
            self._top_defs[node.name.value] = (node, facts)  # (`walk._called_once_at_top`)
            if self.notebook_hidden is not None and node.name.value.startswith(TEST_FUNCTION_PREFIX) \
                    and node.name.value not in self.notebook_hidden:
                self._notebook_tests.append((node, facts))  # (`walk._notebook_tests`)
        info = FunctionInfo(node, facts, parent, is_method, params[0] if is_method and params else None, defaults)
        if cls is None:  # a module's or a function body's own name (a class body's are methods)
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
        self._saved_depths.append((self.loop_depth, self.guard_depth, self._loop_stack, self.jit_disabled_depth))
        self.loop_depth = 0
        self.guard_depth = 0
        self.jit_disabled_depth = 0
        self._loop_stack = []
        self._saved_loops.append(self.loops)
        self.loops = []

    def _redefining(self, name: str) -> None:
        """A `def name` / `class name` at module level, or a `def name` in a function's body, about
        to bind a name an earlier def or class holds (notebooks and guides redefine `train`, `f`,
        `Model` cell after cell; a `main` defines a jitted `eval_step`, wraps it with `jax.pmap`,
        then defines the Python driver `eval_step`): the earlier
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
            if not self.functions and not any(built >= line for built in self.module_builds):
                # no module-level functional build ran while the name was bound to this class: the
                # module's builds call the layers of other classes (relocated with it below)
                self.facts.keras_drives.append((KERAS_UNBUILT, absolute, "", None))
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
            default_params=set(defaults),
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
        self.loop_depth, self.guard_depth, self._loop_stack, self.jit_disabled_depth = self._saved_depths.pop()
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

    def first_call_guard(self, test: cst.BaseExpression, _depth: int = 0, func: FunctionInfo | None = None) -> str | None:
        """"body" if `test` guards the if-body as run-once creation (`if self.v is None:`,
        `if not self.built:`, `if not hasattr(self, "v"):`, or a method of the class that returns
        such a test: `if self._needs_init():` with `return not self._receivers`), "orelse" for
        the inverse. What is tested must be state that outlives the call: `if not <parameter>:`
        or `if x is None:` on a local decides per call, so it guards nothing. A memo test (`if key
        in cache:` where the function fills `cache[key]`) guards the same way, and so does the test of
        a local the look-up of such a memo gave (`fn = cache.get(key)`, then `if fn is None:`)."""
        memo = self.memo_guard(test, func or self.function)
        if memo is not None:
            return memo
        if self._per_call(test):
            return None
        if isinstance(test, cst.Call) and _depth < 2:
            returned = self._returned_by_own_method(test)
            return self.first_call_guard(returned, _depth + 1) if returned is not None else None
        if isinstance(test, cst.Comparison) and len(test.comparisons) == 1:
            comp = test.comparisons[0]
            if keyword_constant(comp.comparator, "None"):
                if isinstance(comp.operator, cst.Is):
                    return "body"
                if isinstance(comp.operator, cst.IsNot):
                    return "orelse"
                if isinstance(comp.operator, (cst.Equal, cst.NotEqual)) and self._none_equality_is_identity(test.left):
                    return "body" if isinstance(comp.operator, cst.Equal) else "orelse"
        if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
            inner = test.expression
            if isinstance(inner, (cst.Attribute, cst.Name)):
                return "body"
            if isinstance(inner, cst.Subscript) and self._outlives_the_call(inner.value):
                return "body"  # `if not mod[0]: mod[0] = make()` on a closure's list: a slot filled once
            if isinstance(inner, cst.Call) and isinstance(inner.func, cst.Name) and inner.func.value == "hasattr":
                return "body"
        if isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.Or):
            if self.first_call_guard(test.left) == "body" or self.first_call_guard(test.right) == "body":
                return "body"
        return None

    def _none_equality_is_identity(self, tested: cst.BaseExpression) -> bool:
        """`tested == None` answers as `tested is None` (and `!=` as `is not`): no store of the
        tested expression in the function makes a value whose `== None` is not identity (a
        `tf.Variable`, which raises ValueError there; a numpy array; a TensorShape:
        `NONE_EQUALITY_NOT_IDENTITY`). None, Python scalars, a Keras layer, a tensor answer as `is`."""
        func = self.function
        if func is None:
            return True
        stack = [func.node]  # (only for a `== None` test: rare, one function's statements)
        while stack:
            node = stack.pop()
            stack.extend(node.children)
            if isinstance(node, cst.Assign) and isinstance(node.value, cst.Call) and any(
                    t.target.deep_equals(tested) for t in node.targets) \
                    and self.qualified_names(node.value.func) & NONE_EQUALITY_NOT_IDENTITY:
                return False
        return True

    def memo_guard(self, test: cst.BaseExpression, func: FunctionInfo | None) -> str | None:
        """"body" if `test` lets its block run only when a memo the function fills lacks the key
        it fills (`if key not in cache:`, `fn = cache.get(key)` then `if fn is None:`), "orelse"
        for the inverse: what that block makes is made once per key."""
        if isinstance(test, cst.Comparison) and len(test.comparisons) == 1 \
                and isinstance(test.comparisons[0].operator, (cst.In, cst.NotIn)) \
                and self._memo_fill(test.left, test.comparisons[0].comparator, func):
            return "orelse" if isinstance(test.comparisons[0].operator, cst.In) else "body"
        return self._memo_lookup(test, func)

    def _memo_lookup(self, test: cst.BaseExpression, func: FunctionInfo | None) -> str | None:
        """"body" for `if fn is None:` / `if not fn:` (and "orelse" for `is not None`) where the
        one binding of the local `fn` that reaches the test is `fn = cache.get(key)` (no default,
        or `None`) of a memo the function fills (`cache[key] = ...`, `_memo_fill`): the block runs
        only when the key is missing, and it fills the key, so once per key (a `jax.jit` made
        there is one object per key, whose trace every later call with that key reuses:
        tests/runtime/test_jax_thirteenth_audit_facts.py)."""
        if func is None:
            return None
        branch = "body"
        if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
            test = test.expression
        elif isinstance(test, cst.Comparison) and len(test.comparisons) == 1 \
                and keyword_constant(test.comparisons[0].comparator, "None") \
                and isinstance(test.comparisons[0].operator, (cst.Is, cst.IsNot)):
            branch = "body" if isinstance(test.comparisons[0].operator, cst.Is) else "orelse"
            test = test.left
        else:
            return None
        if not isinstance(test, cst.Name) or self.binding_kind(test, func) != "local":
            return None
        refs = list(self.reaching(test, func) or ())
        if len(refs) != 1:
            return None
        value = self.bound_values.get(id(getattr(refs[0], "node", None)))
        if not (isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute)
                and value.func.attr.value == "get" and 1 <= len(value.args) <= 2
                and all(a.keyword is None and not a.star for a in value.args)):
            return None
        if len(value.args) == 2 and not keyword_constant(value.args[1].value, "None"):
            return None
        return branch if self._memo_fill(value.args[0].value, value.func.value, func) else None

    def _memo_fill(self, key: cst.BaseExpression, container: cst.BaseExpression, func: FunctionInfo | None) -> bool:
        """`if cuda_file in _plugin_cache: return _plugin_cache[cuda_file]` / `if name not in
        self._modules:` in a function that itself sets `container[key] = ...` (or adds the key
        itself: `seen.append(name)`, `names.add(name)`): a memo. The
        container outlives the call (a global, an enclosing function's name, an attribute of
        `self`), so once an entry is filled, eager calls with that key skip the block as the
        calls that reuse a trace do, and a later trace finds the entry too: what follows the
        test runs once per key either way (tests/runtime/test_tf_fresh_facts.py)."""
        if func is None:
            return False
        if isinstance(container, cst.Name):
            if self.binding_kind(container, func) not in ("global", "closure"):
                return False
        elif not (isinstance(container, cst.Attribute) and isinstance(container.value, cst.Name)
                  and func.self_name and container.value.value == func.self_name
                  and self.binding_kind(container.value, func) == "self"):
            return False
        wanted = (code_of(container), code_of(key))
        memo = self.memo.setdefault("memo_fills", {})
        fills = memo.get(id(func.node))
        if fills is None or fills[0] is not func.node:
            found = set()
            stack = [func.node.body]
            while stack:
                n = stack.pop()
                if isinstance(n, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
                    continue  # another function's body: not this call's fill
                if isinstance(n, cst.Assign):
                    for t in n.targets:
                        if isinstance(t.target, cst.Subscript) and len(t.target.slice) == 1 \
                                and isinstance(t.target.slice[0].slice, cst.Index):
                            found.add((code_of(t.target.value), code_of(t.target.slice[0].slice.value)))
                elif isinstance(n, cst.Call) and isinstance(n.func, cst.Attribute) and len(n.args) == 1 \
                        and n.func.attr.value in _MEMBER_FILLS and n.args[0].keyword is None and not n.args[0].star:
                    # `if name not in seen: seen.append(name)`: the key itself is the entry
                    found.add((code_of(n.func.value), code_of(n.args[0].value)))
                stack.extend(n.children)
            fills = memo[id(func.node)] = (func.node, found)
        return wanted in fills[1]

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

    def _outlives_the_call(self, container: cst.BaseExpression) -> bool:
        """A global or an enclosing function's name, or an attribute of `self`: a container whose
        slots keep what a call stores in them."""
        func = self.function
        if func is None:
            return False
        if isinstance(container, cst.Name):
            return self.binding_kind(container, func) in ("global", "closure")
        return (isinstance(container, cst.Attribute) and isinstance(container.value, cst.Name)
                and bool(func.self_name) and container.value.value == func.self_name
                and self.binding_kind(container.value, func) == "self")

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

    def mark_region(self, node: cst.CSTNode | None, kind: str) -> None:
        """While the walk is inside `node` (not yet visited), `kind` is on `self.regions`."""
        if node is not None:
            self._region_of[id(node)] = kind

    def disables_jit(self, node: cst.With) -> bool:
        """`with jax.disable_jit():` (`JAX_JIT_DISABLING`): the block runs JAX's jit and `lax`
        control flow as Python."""
        return any(isinstance(item.item, cst.Call) and self.resolves_to(item.item.func, JAX_JIT_DISABLING)
                   for item in node.items)

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
            return all(self._python_option_type(x) or keyword_constant(x, "None") for x in sides)
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

TENSOR_SPECS = frozenset({"tensorflow.TensorSpec", "tensorflow.compat.v2.TensorSpec"})


def relaxes_shapes(call: cst.Call) -> bool:
    """`tf.function(..., reduce_retracing=True)` (or the older `experimental_relax_shapes=True`):
    the Function generalises the shapes it traces for (`frameworks.SHAPE_RELAXING_OPTIONS`). Also
    true for `**options` the call does not show, so that a rule about shapes stays silent there."""
    for arg in call.args:
        if arg.star == "**":
            return True
        if arg.keyword is not None and arg.keyword.value in SHAPE_RELAXING_OPTIONS:
            return not keyword_constant(arg.value, "False", "None")
    return False


def staging_options(call: cst.Call) -> tuple[bool, bool]:
    """(has an input_signature, autograph on) from the keywords of `tf.function(...)`."""
    signature, autograph = False, True
    for arg in call.args:
        if arg.keyword is None:
            continue
        key = arg.keyword.value
        value = arg.value
        if key == "input_signature":
            signature = not keyword_constant(value, "None")
        elif key == "autograph":
            autograph = not keyword_constant(value, "False")
    return signature, autograph


def compiles_with_xla(call: cst.Call) -> bool:
    """`tf.function(jit_compile=...)` (or its old name `experimental_compile`) with anything but
    a literal False / None: the Function may be compiled with XLA."""
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value in ("jit_compile", "experimental_compile"):
            return not keyword_constant(arg.value, "False", "None")
    return False


def tracing_test(ctx, node: cst.FunctionDef):
    """What a function returns whenever it runs while traced: "yes" (True: `return not
    tf.executing_eagerly()`, `if tf.inside_function(): return True`), "no" (False: `return not
    isinstance(x, jax.core.Tracer)`), the target of the predicate it defers to (`if
    in_tf_function(): return True`, `return in_tf_function()`: True while tracing when that one
    is "yes"), or None.

    Read statement by statement down to its first top-level `return`, past a docstring and
    early returns `if T: return V`. An early return of a literal whose test is True while tracing
    decides; one whose test is False while tracing is never taken then (for a `V` not a literal,
    read only when the last `return` is a test). Any other early return must give the value the last `return` gives while tracing (a
    literal True above a "yes"), or be a test that the module whose graph test the last
    `return` calls is absent, returning what that test says of eager code (`if tf is None:
    return False` above `return not tf.executing_eagerly()`: keras-hub binds `tf` to None when
    TensorFlow cannot be imported, and TensorFlow traces only where it is imported, so the
    branch is never taken under its trace; TF 2.21: tests/runtime/test_tf_guard_helper_facts.py).
    A helper that returns a parameter, tests something else (`tf.config.functions_run_eagerly()`)
    or returns False on a condition of its own above a "yes" is no such test: None."""
    body = node.body.body if isinstance(node.body, cst.IndentedBlock) else ()
    early: list[tuple] = []  # (test, returned expression or block) of the early returns not decided
    for stmt in body:
        if isinstance(stmt, cst.SimpleStatementLine) and stmt.body and isinstance(stmt.body[0], cst.Return):
            value = stmt.body[0].value
            return _agreeing(ctx, _tracing_value(ctx, value), early, value)
        if isinstance(stmt, cst.If) and stmt.orelse is None and isinstance(stmt.body, cst.IndentedBlock):
            first = stmt.body.body[0] if stmt.body.body else None
            if not (isinstance(first, cst.SimpleStatementLine) and first.body and isinstance(first.body[0], cst.Return)):
                early.append((stmt.test, stmt.body))  # (`if tf is None: raise ImportError(...)`)
                continue
            returned = first.body[0].value
            if not keyword_constant(returned, "True", "False"):
                early.append((stmt.test, returned))  # (its test read only if the last return is a test)
                continue
            test = _tracing_value(ctx, stmt.test)
            if test == "no":
                continue  # never taken while tracing (`if tf.executing_eagerly(): return False`)
            if test == "yes":
                return "yes" if keyword_constant(returned, "True") else "no"  # taken whenever traced
            if test is not None and keyword_constant(returned, "True"):
                return test  # `if in_tf_function(): return True`: "yes" where that one is
            early.append((stmt.test, returned))
            continue
        if isinstance(stmt, (cst.SimpleStatementLine,)) and all(isinstance(s, (cst.Expr, cst.Pass)) for s in stmt.body):
            continue  # docstring
        return None
    return None


def _agreeing(ctx, final, early: list[tuple], value):
    """`final` (what the last `return` gives while tracing) when each early return in `early`
    gives the same while tracing (a literal of that truth; True above a deferred target) or
    tests that the module the last `return` tests with is absent and returns what its test says
    of eager code (False above "yes", True above "no"); else None."""
    if final is None:
        return None
    agree = "True" if final != "no" else "False"
    absent_value = "False" if final == "yes" else "True" if final == "no" else None
    module = _test_receiver(value)
    for test, returned in early:
        if isinstance(returned, cst.IndentedBlock):
            if holds_statement(returned, (cst.Return,)):
                return None  # (a block that does more than return)
            continue  # `if tf is None: raise ImportError(...)`: returns nothing
        if not keyword_constant(returned, "True", "False"):
            if _tracing_value(ctx, test) == "no":
                continue  # `if tf.executing_eagerly(): return compute()`: never taken while tracing
            return None
        if keyword_constant(returned, agree):
            continue
        if absent_value is not None and module is not None and keyword_constant(returned, absent_value) \
                and _absent_test(test) == module:
            continue
        return None
    return final


def _test_receiver(expr) -> str | None:
    """`tf` of `tf.executing_eagerly()` / `not tf.inside_function()`: the name the graph test
    is called on, or None."""
    if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Not):
        expr = expr.expression
    if isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute) and isinstance(expr.func.value, cst.Name):
        return expr.func.value.value
    return None


def _absent_test(test) -> str | None:
    """`tf` of `tf is None` / `not tf`: the name a test finds unbound to a module, or None."""
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not) and isinstance(test.expression, cst.Name):
        return test.expression.value
    if isinstance(test, cst.Comparison) and isinstance(test.left, cst.Name) and len(test.comparisons) == 1:
        target = test.comparisons[0]
        if isinstance(target.operator, cst.Is) and keyword_constant(target.comparator, "None"):
            return test.left.value
    return None


def tracing_call(ctx, expr):
    """A test that may be of whether code is traced: (the call, negated by `not`, the names it
    calls, and its value while tracing: True/False for TensorFlow's own tests such as
    `tf.executing_eagerly()` and for `isinstance(x, jax.core.Tracer)`, None for any other call);
    None when it is no call."""
    negated = False
    if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Not):
        expr, negated = expr.expression, True
    if not isinstance(expr, cst.Call):
        return None
    names = _eager_names(ctx, expr.func)
    if "builtins.isinstance" in names and len(expr.args) == 2 and _names_tracer(ctx, expr.args[1].value):
        return expr, negated, names, not negated
    traced = negated if names & EAGER_TESTS else (not negated) if names & TRACING_TESTS else None
    return expr, negated, names, traced


def truth_while_tracing(ctx, test, _depth: int = 0) -> bool | None:
    """The truth of an `if` test whenever the code runs while traced, when the test decides it:
    True/False for the tests `tracing_call` knows, for a function of this module whose whole body
    returns one (`def is_tracer(x): return isinstance(x, jax.core.Tracer)`: `tracing_test`), and
    for `not`, `and`, `or` over them (`if DEBUG and not (isinstance(a, jax.core.Tracer) or ...)`:
    False, whatever `DEBUG` is); None when it depends on anything else."""
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        inner = truth_while_tracing(ctx, test.expression, _depth)
        return None if inner is None else not inner
    if isinstance(test, cst.BooleanOperation):
        left = truth_while_tracing(ctx, test.left, _depth)
        right = truth_while_tracing(ctx, test.right, _depth)
        if isinstance(test.operator, cst.And):
            return False if False in (left, right) else True if left is True and right is True else None
        return True if True in (left, right) else False if left is False and right is False else None
    found = tracing_call(ctx, test)
    if found is None:
        return None
    call, negated, _, traced = found
    if traced is None and _depth < 2 and isinstance(call.func, cst.Name):
        helper = _module_function(ctx, call.func)
        if helper is not None:
            memo = ctx.memo.setdefault("tracing_helper", {})  # (each helper read once per file)
            known = memo.get(id(helper))
            if known is None or known[0] is not helper:
                known = memo[id(helper)] = (helper, tracing_test(ctx, helper))
            if known[1] in ("yes", "no"):
                # `if not is_tracer(x):`, `if _is_concrete(x) and ...` with the helper above
                traced = negated != (known[1] == "yes")
    return traced


def _module_function(ctx, name: cst.Name) -> cst.FunctionDef | None:
    """The module-level def `name` reads (its only binding), or None."""
    if ctx.binding_kind(name) != "global":
        return None
    bindings = ctx.bindings_of(name)
    node = getattr(bindings[0], "node", None) if len(bindings) == 1 else None
    return node if type(node) is cst.FunctionDef and not node.decorators else None


def _names_tracer(ctx, expr, _depth: int = 0) -> bool:
    """`jax.core.Tracer` (or a tuple holding it), also spelled `getattr(jax, "core").Tracer`
    or through a module-level alias bound to one (`Tracer = jax.core.Tracer`)."""
    if isinstance(expr, cst.Tuple):
        return any(_names_tracer(ctx, e.value, _depth) for e in expr.elements)
    if ctx.qualified_names(expr) & JAX_TRACER_TYPES:
        return True
    if isinstance(expr, cst.Attribute) and expr.attr.value == "Tracer":
        base = expr.value
        if isinstance(base, cst.Call) and ctx.qualified_names(base.func) & {"builtins.getattr"} and len(base.args) == 2:
            module = base.args[1].value
            prefix = ".".join(sorted(ctx.qualified_names(base.args[0].value)))
            return isinstance(module, cst.SimpleString) and f"{prefix}.{module.evaluated_value}" in JAX_TRACER_MODULES
        return bool(ctx.qualified_names(base) & JAX_TRACER_MODULES)
    if isinstance(expr, cst.Name) and _depth == 0 and ctx.binding_kind(expr) == "global":
        bindings = ctx.bindings_of(expr)
        values = [ctx.bound_values.get(id(getattr(b, "node", None))) for b in bindings]
        return bool(values) and all(v is not None and _names_tracer(ctx, v, 1) for v in values)
    return False


def _tracing_value(ctx, expr):
    found = tracing_call(ctx, expr) if expr is not None else None
    if found is None:
        return None
    expr, negated, names, traced = found
    if traced is not None:
        return "yes" if traced else "no"
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


def mutates_container(ctx: FileContext, call: cst.Call) -> bool:
    """`x.append(v)`, `d.update(...)`: a method that changes in place the container it is called
    on (`frameworks.MUTATING_METHODS`). Not `x.at[i].add(v)` (JAX's functional update), and not a
    method that returns None on every container when the code uses its result
    (`updates, state = optimizer.update(grads, state)`: optax's pure update, not `dict.update`)."""
    func = call.func
    if not isinstance(func, cst.Attribute) or func.attr.value not in MUTATING_METHODS or at_indexer(func.value):
        return False
    return func.attr.value not in NONE_RETURNING_MUTATORS or id(call) in ctx.statement_calls


def at_indexer(node: cst.BaseExpression) -> bool:
    """`x.at[i]`: JAX's functional update (`x.at[i].add(v)` returns a new array, mutates nothing)."""
    return isinstance(node, cst.Subscript) and isinstance(node.value, cst.Attribute) and node.value.attr.value == "at"


def _is_literal_default(node: cst.BaseExpression | None) -> bool:
    """A default a caller that leaves the argument out gets as a Python value: a literal, or a
    tuple or list of literals (`broadcast_dims=()`, `axes=(1, 2)`)."""
    if isinstance(node, (cst.Tuple, cst.List)):
        return all(isinstance(el, cst.Element) and is_literal(el.value) for el in node.elements)
    return is_literal(node)


def _is_python_option(node: cst.BaseExpression | None) -> bool:
    """A string or bool default (`mode="CONSTANT"`, `training=False`): a Python option, not a tensor."""
    if isinstance(node, (cst.SimpleString, cst.ConcatenatedString)):
        return True
    return bool_constant(node)


def target_names(target: cst.BaseExpression):
    """Names bound by an assignment target (tuples unpacked); attributes/subscripts are not names."""
    if isinstance(target, cst.Name):
        yield target
    elif isinstance(target, (cst.Tuple, cst.List)):
        for el in target.elements:
            yield from target_names(el.value)
    elif isinstance(target, cst.StarredElement):
        yield from target_names(target.value)
