"""`fastmeta.walk` passing over tokens (whitespace, comments, operators, brackets) keeps libcst's
order for the rest, and a rule with a handler for a token still sees every one (what the walk
skips is `analysis.walk._skipped`: `stagelint.analysis.trivia` less what a rule handles)."""

from __future__ import annotations


import libcst as cst

from stagelint.analysis import context as C
from stagelint.analysis import walk as W
from stagelint.config import Settings
from stagelint.analysis.fastmeta import _TOKEN_KINDS, walk
from stagelint.frameworks import TENSORFLOW
from stagelint.rules.base import Rule

SOURCE = "import tensorflow as tf\n\n@tf.function\ndef f(x, y):  # c\n    return tf.add(x, -y)[0:1]\n"


def test_walk_passing_over_tokens_visits_the_other_nodes_in_libcst_s_order():
    module = cst.parse_module(SOURCE)

    class Order(cst.CSTVisitor):
        def __init__(self):
            super().__init__()
            self.events = []

        def on_visit(self, node):
            self.events.append(("visit", id(node), type(node)))
            return True

        def on_leave(self, original_node):
            self.events.append(("leave", id(original_node), type(original_node)))

    theirs = Order()
    module.visit(theirs)
    ours = Order()
    walk(module, ours.on_visit, ours.on_leave, _TOKEN_KINDS)
    assert ours.events == [e for e in theirs.events if e[2] not in _TOKEN_KINDS]
    assert len(ours.events) < len(theirs.events) / 2  # most nodes are tokens


def test_a_rule_with_a_token_handler_sees_every_token_in_the_analysis():
    class Commas(Rule):  # no `code`: not registered
        seen: list = []

        def visit_Comma(self, node):
            self.seen.append(node)

    ctx = C.FileContext("m.py", "m", False, Settings(), TENSORFLOW)
    ctx.source_digest = ""
    W.analyze_module(cst.parse_module(SOURCE), ctx, [Commas])
    assert len(Commas.seen) == 2  # `x, y` and `x, -y`
