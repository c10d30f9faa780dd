"""Literals: what a piece of code is whatever runs around it.

`True`, `False` and `None` are keywords (Python 3): no assignment, import or scope can rebind
them, so a `Name` spelled so is the constant, read off the source alone. A number or a string
written out is one too. Every analysis step and rule that asks "is this a literal?" asks here.
"""

from __future__ import annotations

import ast
import operator
import re

import libcst as cst

#: The keyword constants: names no binding can change.
KEYWORD_CONSTANTS = frozenset({"True", "False", "None"})
BOOLS = frozenset({"True", "False"})
#: The literals, as written, that leave `if <name>:` untaken: what a flag parameter's default or a
#: caller's argument is when the branch it guards does not run.
OFF_LITERALS = frozenset({"False", "None", "0"})


def off_literal(node: cst.BaseExpression | None) -> bool:
    """`False`, `None` or `0` written out (`OFF_LITERALS`): a value that leaves `if <name>:` untaken."""
    return isinstance(node, (cst.Name, cst.Integer)) and node.value in OFF_LITERALS


def keyword_constant(node: cst.BaseExpression | None, *spellings: str) -> bool:
    """`True`, `False` or `None`; with spellings, one of those (`keyword_constant(x, "None")`)."""
    return isinstance(node, cst.Name) and node.value in (spellings or KEYWORD_CONSTANTS)


def bool_constant(node: cst.BaseExpression | None) -> bool:
    """`True` or `False`."""
    return isinstance(node, cst.Name) and node.value in BOOLS


def is_literal(node: cst.BaseExpression | None) -> bool:
    """A number, a string (not an f-string), `True`, `False` or `None`, or a negated one (`-1`)."""
    if isinstance(node, (cst.Integer, cst.Float, cst.SimpleString, cst.ConcatenatedString, cst.Imaginary)):
        return True
    if keyword_constant(node):
        return True
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
        return is_literal(node.expression)
    return False


def literal_truth(test) -> bool | None:
    """The truth of a test spelled as a literal (`False`, `True`, `None`, `0`, `1`, in
    parentheses or not), or None. Python itself folds these: `if False:`/`if 0:` compiles to no
    code at all, `while False:` to none for its body, and `if True:` to none for its `else`
    (tests/rules/test_tf_eighth_audit.py checks it with `dis`)."""
    if keyword_constant(test):
        return test.value == "True"
    if isinstance(test, cst.Integer):
        return test.evaluated_value != 0
    return None


def _bindings_truth(ctx, name: cst.Name) -> bool | None:
    """The one truth of the literals every binding of `name` the walk has met binds, else None."""
    truths = set()
    for value in _bound_values(ctx, name):
        known = literal_truth(value) if isinstance(value, cst.BaseExpression) else None
        if known is None:
            return None
        truths.add(known)
    return truths.pop() if len(truths) == 1 else None


def constant_truth(ctx, test) -> bool | None:
    """`literal_truth`, and the truth of a local name every binding of which its function has
    made so far is one literal (`use_jit = False` on the line above `if use_jit:`): a local name
    holds what its function last bound to it, and nothing else can rebind it (a binding the walk
    has not reached yet, below or in a later loop turn, leaves it unknown). Python's own meaning:
    `if use_jit:` then never runs its body, whatever the code around it does."""
    truth = literal_truth(test)
    if truth is not None or not isinstance(test, cst.Name) or ctx.function is None \
            or ctx.binding_kind(test) != "local":
        return truth
    return _bindings_truth(ctx, test)


def module_constant_truth(ctx, test) -> bool | None:
    """The truth of `if DEBUG:` on a module-level name every binding of which in its module
    (`global DEBUG` rebindings in functions included) is a literal of one truth (`DEBUG = False`),
    or of `if MODE == "eval":` on one bound only to literals that decide it one way (`_compared_truth`):
    within the module nothing else can rebind it. Another module still can (`cfg.DEBUG = True`):
    the walk marks what such a test leaves unrun (`facts.FLAG_DEAD_FIELD`) and the project phase
    holds it a guess (the preview tier) when no file of the project writes an attribute of that
    name (`flags.module_flag_fact`). None when unknown: a binding from a call, an import, a loop,
    or one the walk has not reached yet (a function below the read declaring `global DEBUG`)."""
    if isinstance(test, cst.Comparison):
        return _compared_truth(ctx, test)
    if not isinstance(test, cst.Name) or ctx.binding_kind(test) != "global":
        return None
    return _bindings_truth(ctx, test)


def spelled_otherwise(code: str, name: str) -> bool:
    """The module may rebind `name` without binding it as a name: it spells it in a string
    (`globals()["DEBUG"] = True`, `setattr(sys.modules[__name__], "DEBUG", True)`), stores it
    as an attribute (`sys.modules[__name__].DEBUG = True`), or reaches its namespace as a dict
    (`globals()`, `vars()`, `__dict__`). Read off the text: a spelling in a comment counts too
    (the safe side)."""
    return re.search(r"""["'][\w.]*\b%s["']|\.\s*%s\s*(?:[-+*/@%%&|^]|//|\*\*|>>|<<)?=(?!=)"""
                     r"|\b(?:globals|vars)\s*\(|__dict__" % (name, name), code) is not None


def constant_name(test) -> cst.Name | None:
    """The module constant `module_constant_truth` decides the test on (`DEBUG` in `if DEBUG:`,
    `option` in `if option == "function":`), else None."""
    if isinstance(test, cst.Name):
        return test
    if isinstance(test, cst.Comparison) and len(test.comparisons) == 1:
        for side in (test.left, test.comparisons[0].comparator):
            if isinstance(side, cst.Name) and side.value not in KEYWORD_CONSTANTS:
                return side
    return None


#: The comparisons of a name with literals Python decides from the values alone: equality (the
#: name on either side), membership in a tuple, list or set of literals written out (the name left).
_EQUALITY = {cst.Equal: operator.eq, cst.NotEqual: operator.ne}
_MEMBERSHIP = {cst.In: lambda a, b: a in b, cst.NotIn: lambda a, b: a not in b}


def _compared_truth(ctx, test: cst.Comparison) -> bool | None:
    """`option == "function"`, `!=`, `in ("a", "b")` / `not in` on a module-level name every
    binding of which in its module is a scalar literal (`option = "function"`): Python compares
    the values, so it is decided when every binding decides it the same way; None otherwise (a
    binding from anything else: a call, `args.option`)."""
    name = constant_name(test)
    if name is None or ctx.binding_kind(name) != "global":
        return None
    kind = type(test.comparisons[0].operator)
    other = test.comparisons[0].comparator if name is test.left else test.left
    if kind in _EQUALITY:
        compare = _EQUALITY[kind]
        ok, against = literal_value(other)
    elif kind in _MEMBERSHIP and name is test.left and isinstance(other, (cst.Tuple, cst.List, cst.Set)):
        compare = _MEMBERSHIP[kind]
        read = [(False, None) if isinstance(e, cst.StarredElement) else literal_value(e.value) for e in other.elements]
        ok, against = all(known for known, _ in read), tuple(v for _, v in read)
    else:
        return None
    if not ok:
        return None
    truths = set()
    for value in _bound_values(ctx, name):
        known, held = literal_value(value) if isinstance(value, cst.BaseExpression) else (False, None)
        if not known:
            return None
        truths.add(bool(compare(held, against)))
    return truths.pop() if len(truths) == 1 else None


def constant_literal(ctx, expr) -> bool:
    """A literal (`is_literal`), or a name whose every binding the walk has met so far binds
    the one same literal (`seed = 0` at module level, then `np.random.seed(seed)`): whatever
    runs around it, the name holds that value (or is unbound), on every call alike."""
    if is_literal(expr):
        return True
    if not isinstance(expr, cst.Name) or ctx.binding_kind(expr) not in ("global", "local"):
        return False
    spelled = set()
    for value in _bound_values(ctx, expr):
        if not isinstance(value, cst.BaseExpression) or not is_literal(value):
            return False
        spelled.add(value.value if isinstance(value, (cst.Integer, cst.Float, cst.SimpleString, cst.Name))
                    else id(value))
    return len(spelled) == 1


def constant_text(ctx, expr) -> str:
    """The source of the scalar literal `expr` is (`literal_text`), written out or held by a name
    whose every binding binds that one literal (`constant_literal`: `RATE = 0.0` at module level,
    then `Dropout(RATE)`); "" otherwise."""
    text = literal_text(expr)
    if text or not isinstance(expr, cst.Name) or not constant_literal(ctx, expr):
        return text
    values = _bound_values(ctx, expr)
    return literal_text(values[0]) if values else ""


def _bound_values(ctx, name: cst.Name) -> list:
    """What every binding of the name in the scope that binds it assigns (the walk's
    `bound_values`; None where it records none), above the read or below it (the scope
    analysis' referents of a read leave out those below it in the same scope, which a later
    loop turn or a later call still sees)."""
    bindings = ctx.bindings_of(name)
    scope = getattr(bindings[0], "scope", None) if bindings else None
    if scope is None:
        return []
    return [ctx.bound_values.get(id(getattr(b, "node", None))) for b in scope.assignments[name.value]]


#: The Python types a literal argument or default is read as (a value a Python `if` decides on).
SCALARS = (bool, int, float, str, type(None))


def literal_text(node) -> str:
    """The source of a scalar literal written out (`True`, `None`, `3`, `-1.5`, `"train"`), for
    `literal_value`'s reading later (parsing is left to whoever needs the value); "" otherwise."""
    if isinstance(node, cst.Name):
        return node.value if node.value in KEYWORD_CONSTANTS else ""
    if isinstance(node, (cst.Integer, cst.Float, cst.SimpleString)):
        return node.value
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus) \
            and isinstance(node.expression, (cst.Integer, cst.Float)):
        return "-" + node.expression.value
    return ""


def parse_literal(text: str) -> tuple[bool, object]:
    """(True, the value) when `text` is the source of a scalar literal (`literal_text`, a
    default's or an argument's text, a condition's `repr`), else (False, what it evaluates to or
    None): Python's own reading, `ast.literal_eval`."""
    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return False, None  # (`inf`: a float no literal spells)
    return isinstance(value, SCALARS), value


def literal_value(node) -> tuple[bool, object]:
    """(True, the value) of a scalar literal written out (`True`, `None`, `3`, `-1.5`, `"train"`),
    else (False, None)."""
    text = literal_text(node)
    return parse_literal(text) if text else (False, None)
