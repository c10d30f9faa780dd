"""Literals: what a piece of code is whatever runs around it.

`True`, `False` and `None` are keywords (Python 3): no assignment, import or scope can rebind
them, so a `Name` spelled so is the constant, read off the source alone. A number or a string
written out is one too. Every analysis step and rule that asks "is this a literal?" asks here.
"""

from __future__ import annotations

import libcst as cst

#: The keyword constants: names no binding can change.
KEYWORD_CONSTANTS = frozenset({"True", "False", "None"})
BOOLS = frozenset({"True", "False"})
#: The literals, as written, that leave `if <name>:` untaken: what a flag parameter's default or a
#: caller's argument is when the branch it guards does not run.
OFF_LITERALS = frozenset({"False", "None", "0"})


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
