"""Child side: what a test observes of staging itself, recorded so that the eager run failing such a
test is not taken for a divergence of the code (`modeasserts` judges it in the parent).

- A test that reads a function's trace count (`tf.function`'s `experimental_get_tracing_count()`,
  a jitted function's `_cache_size()`) reads 0 in the eager run, where the body runs instead of
  being traced: a `reads` record names the function and what was read.
- An error raised where the staged code checks that a value is a tracer (`isinstance(x,
  jax.core.Tracer)`, TensorFlow's `SymbolicTensor`): under tracing it is one, in the eager run it
  is a concrete array. The check's type is resolved in the raising frame, not read by its spelling.
"""

from __future__ import annotations

import ast
import gc
import inspect
import linecache
import sys
import warnings

#: What a test may read of a jitted function's trace count (JAX).
JAX_TRACE_COUNT_ATTRIBUTES = ("_cache_size",)


def watch_tracing_count(pf, recorder) -> None:
    """Record the tests' reads of `Function.experimental_get_tracing_count` (not the recorder's own)."""
    original = pf.Function.experimental_get_tracing_count
    if getattr(original, "_stagelint", False):
        return

    def experimental_get_tracing_count(self):
        if not sys._getframe(1).f_globals.get("__name__", "").startswith("stagelint."):
            name = getattr(getattr(self, "python_function", None), "__qualname__", None) or getattr(self, "_name", "")
            recorder.read_traces(name, "experimental_get_tracing_count()")
        return original(self)

    experimental_get_tracing_count._stagelint = True
    pf.Function.experimental_get_tracing_count = experimental_get_tracing_count


def tracer_check(error: BaseException, jax: bool = False) -> str | None:
    """What the check that raised `error` tests of tracing, or None: the tracer type it checks on the
    line (`isinstance(x, Tracer)`), qualified (`jax._src.core.Tracer`); in a JAX call (`jax`), also a
    type check (`isinstance`, `assertIsInstance`, `assertNotIsInstance`) of an argument that holds a
    Python number, which `jit` passes to the function as a tracer unless static."""
    tb = error.__traceback__
    if tb is None:
        return None
    frames = []
    while tb is not None:
        frames.append((tb.tb_frame, tb.tb_lineno))
        tb = tb.tb_next
    from stagelint.runtime import linetrace

    # The line of the project's code that checked (unittest's assertNotIsInstance raises inside unittest).
    frame, lineno = next(((f, n) for f, n in reversed(frames) if linetrace.is_project_file(f.f_code.co_filename)),
                         frames[-1])
    text = linecache.getline(frame.f_code.co_filename, lineno).strip()
    try:
        tree = ast.parse(text.removesuffix(":") if text.startswith(("if ", "elif ", "while ")) else text)
    except SyntaxError:
        return None
    tracers = _tracer_types()
    with warnings.catch_warnings():
        # A deprecated alias the code names (`jax.core.Tracer`) warns again: not the tests' warning.
        warnings.simplefilter("ignore")
        try:
            return _checked_type(tree, frame, tracers) or (_traced_argument_checked(tree, frame) if jax else None)
        except Exception:  # noqa: BLE001 - a name that does not resolve is no check we know
            return None


def _type_checks(tree: ast.AST):
    """(value, type) of the type checks on a line: `isinstance(v, T)`, `self.assertIsInstance(v, T)`."""
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or len(node.args) < 2:
            continue
        func = node.func
        if (isinstance(func, ast.Name) and func.id == "isinstance") or (
                isinstance(func, ast.Attribute) and func.attr in TYPE_CHECKS):
            yield node.args[0], node.args[1]


def _checked_type(tree: ast.AST, frame, tracers: tuple[type, ...]) -> str | None:
    for _, kinds in _type_checks(tree):
        for kind in (kinds.elts if isinstance(kinds, ast.Tuple) else [kinds]):
            cls = _resolve(kind, frame)
            if inspect.isclass(cls) and tracers and issubclass(cls, tracers):
                return f"{cls.__module__}.{cls.__qualname__}"
    return None


def _traced_argument_checked(tree: ast.AST, frame) -> str | None:
    """`arg` is a Python int here... when the line checks the type of an argument of its function
    that holds a Python number, which `jit` passes as a tracer (and the eager run as the number,
    as the Python-scalar facts of `modeasserts` say). A NumPy argument is no such case: code that
    needs a `jax.Array` there diverges for NumPy inputs (fx_staging_asserts' twin)."""
    code = frame.f_code
    arguments = code.co_varnames[:code.co_argcount + code.co_kwonlyargcount]
    for value, _ in _type_checks(tree):
        if isinstance(value, ast.Name) and value.id in arguments:
            held = frame.f_locals.get(value.id)
            if isinstance(held, _JIT_TRACED_SCALARS):
                return f"`{value.id}` is a Python {type(held).__name__} here, which jit passes as a tracer"
    return None


def _tracer_types() -> tuple[type, ...]:
    """The classes of values that exist only while tracing, of the frameworks loaded."""
    out = []
    core = sys.modules.get("jax._src.core")
    if core is not None:
        out.append(core.Tracer)
    ops = sys.modules.get("tensorflow.python.framework.ops")
    if ops is not None and hasattr(ops, "SymbolicTensor"):
        out.append(ops.SymbolicTensor)
    return tuple(out)


def _resolve(node: ast.expr, frame):
    """A dotted name (`core.Tracer`) looked up in the frame: attributes of modules and classes only,
    so nothing of the user's runs."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    value = frame.f_locals.get(node.id, frame.f_globals.get(node.id))
    for attr in reversed(parts):
        if not (inspect.ismodule(value) or inspect.isclass(value)):
            return None
        value = inspect.getattr_static(value, attr, None) if inspect.isclass(value) else getattr(value, attr, None)
    return value


# A failing assertion of the eager run ---------------------------------------------------------------

#: Methods of an array that observe its buffer, which only a jitted call with donation deletes.
BUFFER_METHODS = ("is_deleted", "unsafe_buffer_pointer")
#: Methods that change the container they are called on (a witness list a staged body appends to).
MUTATING_METHODS = frozenset({"append", "extend", "insert", "add", "update", "setdefault", "appendleft", "pop"})
#: unittest's type checks: (value, type) as their first two arguments.
TYPE_CHECKS = ("assertIsInstance", "assertNotIsInstance")
#: Python numbers: `jax.jit` passes them to the function as tracers unless static.
_JIT_TRACED_SCALARS = (bool, int, float, complex)


def failed_assertion(tb, staged: list) -> dict:
    """What the failing assertion of a test reads that staging decides (eager run): `writes`, the
    variables it reads that a staged function of the test writes, [name, function index in `staged`,
    line of the write]; `buffers`, the buffer methods it calls (`x.is_deleted()`). `staged`:
    (function, the objects its calls were bound to) of the staged functions the test called; `warns`,
    the pattern of the warning a `pytest.warns` that saw none expected."""
    out: dict = {}
    warns = _expected_warning(tb)
    if warns is not None:
        out["warns"] = warns
    found = _project_frame(tb)
    tree = _statement(found[0].f_code, found[1]) if found is not None else None
    if tree is None:
        return out
    frame = found[0]
    buffers = sorted({node.func.attr for node in ast.walk(tree) if isinstance(node, ast.Call)
                      and isinstance(node.func, ast.Attribute) and node.func.attr in BUFFER_METHODS})
    if buffers:
        out["buffers"] = buffers
    writes = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            hit = _variable_written(node.id, frame, staged)
            if hit is None and node.id in frame.f_code.co_varnames and node.id not in frame.f_code.co_cellvars:
                # A local counted from the variable (`n = len(seen)`, then `assertEqual(n, 1)`): one step back.
                hit = next(filter(None, (_variable_written(read, frame, staged)
                                         for read in _assigned_from(frame, node.id))), None)
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            hit = _attribute_written(node.value.id, node.attr, frame, staged)
        else:
            continue
        if hit is not None and hit not in writes:
            writes.append(hit)
    if writes:
        out["writes"] = writes[:5]
    return out


def _expected_warning(tb) -> str | None:
    """The `match` pattern of the `pytest.warns` whose exit failed the test ("DID NOT WARN")."""
    while tb is not None:
        checker = tb.tb_frame.f_locals.get("self")
        if type(checker).__name__ == "WarningsChecker" and type(checker).__module__ == "_pytest.recwarn":
            match = getattr(checker, "match_expr", None)
            return getattr(match, "pattern", match) if match is not None else ""
        tb = tb.tb_next
    return None


def _project_frame(tb):
    """The deepest frame of the project's code in a traceback (the assertion, not unittest's
    `assertLess`), with its last instruction."""
    from stagelint.runtime import linetrace

    found = None
    while tb is not None:
        if linetrace.is_project_file(tb.tb_frame.f_code.co_filename):
            found = (tb.tb_frame, tb.tb_lasti)
        tb = tb.tb_next
    return found


def _statement(code, lasti: int) -> ast.AST | None:
    """The expression or statement the instruction at `lasti` belongs to, parsed from its source
    position (an `assert`, a `self.assertEqual(...)` call spanning lines)."""
    positions = list(code.co_positions())
    index = lasti // 2
    if not 0 <= index < len(positions):
        return None
    start, end, col, end_col = positions[index]
    if start is None:
        return None
    lines = [linecache.getline(code.co_filename, n) for n in range(start, (end or start) + 1)]
    if col is not None and end_col is not None:
        lines[-1] = lines[-1][:end_col]
        lines[0] = lines[0][col:]
    text = "".join(lines).strip()
    for candidate in (text, text.removeprefix("assert ")):
        try:
            return ast.parse(candidate)
        except SyntaxError:
            continue
    return None


def _assigned_from(frame, name: str) -> list[str]:
    """The names read by the last plain assignment to the local `name` before the frame's current
    line, in its function's source (`n = len(seen)` -> ["len", "seen"])."""
    code = frame.f_code
    try:
        tree = ast.parse("".join(linecache.getlines(code.co_filename)))
    except (SyntaxError, ValueError):
        return []
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and code.co_firstlineno == min(
                [node.lineno, *(d.lineno for d in node.decorator_list)]):
            assigns = [a for a in ast.walk(node) if isinstance(a, ast.Assign) and a.lineno < frame.f_lineno
                       and any(isinstance(t, ast.Name) and t.id == name for t in a.targets)]
            if assigns:
                last = max(assigns, key=lambda a: a.lineno)
                return [n.id for n in ast.walk(last.value) if isinstance(n, ast.Name)]
            return []
    return []


def _written_names(code) -> dict[str, tuple[str, int]]:
    """name -> (how, line) of the names a function's code (its nested lambdas and comprehensions
    too) writes outside itself: `nonlocal` and `global` stores, mutating method calls on them
    (`seen.append(...)`), stores to attributes (keyed `.attr`)."""
    import dis

    out: dict[str, tuple[str, int]] = {}
    loaded = None
    line = code.co_firstlineno
    for ins in dis.get_instructions(code):
        if ins.positions is not None and ins.positions.lineno:
            line = ins.positions.lineno
        if ins.opname in ("STORE_DEREF", "STORE_GLOBAL") and ins.argval not in code.co_cellvars:
            out.setdefault(ins.argval, ("deref" if ins.opname == "STORE_DEREF" else "global", line))
        elif ins.opname == "STORE_ATTR":
            out.setdefault("." + ins.argval, ("attr", line))
        elif ins.opname in ("LOAD_METHOD", "LOAD_ATTR") and loaded is not None and ins.argval in MUTATING_METHODS:
            out.setdefault(loaded[1], ("deref" if loaded[0] == "LOAD_DEREF" else "global", line))
        loaded = (ins.opname, ins.argval) if ins.opname in ("LOAD_DEREF", "LOAD_GLOBAL") else None
    for const in code.co_consts:
        if inspect.iscode(const) and const.co_name in ("<lambda>", "<listcomp>", "<genexpr>", "<dictcomp>",
                                                       "<setcomp>"):
            for name, where in _written_names(const).items():
                out.setdefault(name, where)
    return out


def _variable_written(name: str, frame, staged: list):
    """[name, index, line] when the variable `name` the frame reads is one a staged function writes:
    the same closure cell, or the same module global."""
    code = frame.f_code
    if name in code.co_varnames and name not in code.co_cellvars:
        return None  # a local of the frame: not what a staged body can write
    for index, (function, _) in enumerate(staged):
        fcode = getattr(function, "__code__", None)
        if fcode is None:
            continue
        how, line = _written_names(fcode).get(name, (None, 0))
        if how == "global" and name not in code.co_freevars and name not in code.co_cellvars:
            if getattr(function, "__globals__", None) is frame.f_globals:
                return [name, index, line]
        elif how == "deref" and name in fcode.co_freevars:
            cell = function.__closure__[fcode.co_freevars.index(name)]
            if name in code.co_cellvars:
                # The frame owns the cell: the staged function is defined inside it, in its file.
                if (fcode.co_filename == code.co_filename
                        and fcode.co_qualname.startswith(code.co_qualname + ".<locals>.")):
                    return [name, index, line]
            elif name in code.co_freevars and any(r is frame for r in gc.get_referrers(cell)):
                return [name, index, line]
    return None


def _attribute_written(base: str, attr: str, frame, staged: list):
    """[base.attr, index, line] when the object `base` names in the frame is one a staged function
    of the test was bound to (`self`) and its code stores that attribute."""
    value = frame.f_locals.get(base, frame.f_globals.get(base))
    if value is None:
        return None
    for index, (function, instances) in enumerate(staged):
        fcode = getattr(function, "__code__", None)
        how, line = _written_names(fcode).get("." + attr, (None, 0)) if fcode is not None else (None, 0)
        if how == "attr" and any(obj is value for obj in instances):
            return [f"{base}.{attr}", index, line]
    return None
