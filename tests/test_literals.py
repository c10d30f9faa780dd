"""The one literal question (`stagelint.analysis.literals`): keywords are read off the source."""

import libcst as cst

from stagelint.analysis.literals import OFF_LITERALS, bool_constant, is_literal, keyword_constant, literal_truth


def _expr(code: str) -> cst.BaseExpression:
    return cst.parse_expression(code)


def test_keyword_constants_and_their_spellings():
    assert all(keyword_constant(_expr(c)) for c in ("True", "False", "None"))
    assert not keyword_constant(_expr("true")) and not keyword_constant(_expr("x")) and not keyword_constant(None)
    assert keyword_constant(_expr("None"), "None") and not keyword_constant(_expr("False"), "None")
    assert bool_constant(_expr("False")) and not bool_constant(_expr("None"))


def test_literals_and_their_truth():
    assert all(is_literal(_expr(c)) for c in ("1", "-1.5", "'a'", "'a' 'b'", "2j", "None", "-True"))
    assert not any(is_literal(_expr(c)) for c in ("x", "f'{x}'", "(1,)", "not True", "+1"))
    assert [literal_truth(_expr(c)) for c in ("True", "False", "None", "0", "1", "x")] == [
        True, False, False, False, True, None]
    assert OFF_LITERALS == {"False", "None", "0"}
