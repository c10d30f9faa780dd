"""Whitespace, comments, newlines, operators and brackets: what the analysis passes by.

They are two thirds of a file's nodes and hold nothing but more of the same; no rule and no
record of the walk is about them (what a rule asks of an operator it reads off its parent:
`isinstance(test.operator, cst.Not)`). The walk does not enter them (`analysis.walk.analyze_module`),
nor do scans of a subtree (`inner_nodes`).
"""

from __future__ import annotations

import inspect

import libcst as cst
from libcst._nodes import op, whitespace

from stagelint.analysis.fastmeta import children_past


def _trivia() -> frozenset:
    kinds = {cst.LeftParen, cst.RightParen, cst.LeftSquareBracket, cst.RightSquareBracket,
             cst.LeftCurlyBrace, cst.RightCurlyBrace, cst.Asynchronous}
    for module in (op, whitespace):
        for value in vars(module).values():
            if (inspect.isclass(value) and issubclass(value, cst.CSTNode) and not inspect.isabstract(value)
                    and value.__module__ == module.__name__ and value is not cst.ImportStar):
                kinds.add(value)
    return frozenset(kinds)


TRIVIA = _trivia()


def inner_nodes(node: cst.CSTNode) -> list:
    """`node.children` less the trivia, for scans of a subtree that look for statements and
    expressions: a third of the nodes to go through, and the fields holding only trivia unread."""
    return children_past(node, TRIVIA)


def _expressions() -> frozenset:
    kinds, queue = set(), [cst.BaseExpression]
    while queue:
        kind = queue.pop()
        kinds.add(kind)
        queue.extend(kind.__subclasses__())
    return frozenset(kinds)


#: Trivia and expressions: no statement is inside an expression (a lambda's body is one).
_NOT_STATEMENTS = TRIVIA | _expressions()


def statement_parts(node: cst.CSTNode) -> list:
    """The nodes under `node` that may hold a statement, for scans that look for statements
    only: `inner_nodes` less the expressions, whose fields (`If.test`, `Assign.value`) are not
    read at all. In no order."""
    return children_past(node, _NOT_STATEMENTS)


#: The statements that may end a block's run before its last line: `break` and `continue` end a
#: loop's iteration (one of a loop nested in the block counts too: may).
LEAVING = (cst.Return, cst.Raise, cst.Continue, cst.Break)


def holds_statement(node: cst.CSTNode, kinds: tuple) -> bool:
    """A statement of `kinds` (`return`, `raise`; `LEAVING`: the block holding `node` may end
    there) runs when `node` does: it lies under `node`, not in a def (nor in `node` itself when it
    is one: a def's body runs when it is called, and its `return` leaves that call), but maybe in
    a class body, which runs when the class statement does (a `raise` there raises; no `return`,
    `break` or `continue` can stand there). Searched through `statement_parts` alone."""
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, cst.FunctionDef):
            continue
        if isinstance(n, kinds):
            return True
        stack.extend(statement_parts(n))
    return False
