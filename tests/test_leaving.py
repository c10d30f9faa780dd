"""`trivia.holds_statement`: whether a statement of given kinds runs when a statement does, the
one search for "may leave the block early" (`trivia.LEAVING`: a flag guard's block,
`guards.clears_its_flag`; a loop's iteration, `FileContext._iteration_conversions`) and for "may
return" (the callee conversions of the walk, `jaxstaging.bound_axis_call`,
`context.read_on_every_return`)."""

from __future__ import annotations

import textwrap

import libcst as cst
import pytest

from stagelint.analysis.trivia import LEAVING, holds_statement


def _leaves(code: str) -> bool:
    return holds_statement(cst.parse_module(textwrap.dedent(code)).body[0], LEAVING)


@pytest.mark.parametrize("code", [
    "return x\n",
    "if p:\n    raise ValueError(p)\n",
    "for i in r:\n    break\n",  # (a loop nested in the block: may)
    "with c:\n    try:\n        pass\n    except E:\n        continue\n",
    # a class body runs when the class statement does
    "class Options:\n    if not ok:\n        raise ValueError(ok)\n",
    "if p:\n    class K:\n        raise E\n",
])
def test_what_runs_with_the_statement_may_leave(code):
    assert _leaves(code)


@pytest.mark.parametrize("code", [
    "x = f(lambda v: v)\n",
    # a def's body runs when it is called: its `return` leaves that call
    "def shape_of(v):\n    return v.shape\n",
    "if p:\n    def g():\n        raise E\n",
    "class K:\n    def m(self):\n        return 1\n",
    "async def g():\n    return 1\n",
])
def test_a_def_s_body_does_not_run_with_it(code):
    assert not _leaves(code)
