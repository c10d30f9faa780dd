"""The lattice of `analysis.values`: one abstract value per expression, one question per kind.

A probe rule asks the model about the argument of each `probe(...)` call of a small module, as
the rules do; every kind of the lattice has a case here.
"""

from __future__ import annotations

import textwrap

import libcst as cst

from stagelint.analysis import values as V
from stagelint.config import Settings
from stagelint.analysis.walk import analyze_module
from stagelint.analysis.context import FileContext
from stagelint.frameworks import TENSORFLOW
from stagelint.rules.base import Rule


class _Probe(Rule):
    """Asks `question` about the argument of each `probe(...)` call, at the end of the file (when
    every binding is known, as rules that decide in `finish` do). No `code`: never registered."""

    question = None
    answers: list = []

    def __init__(self, ctx):
        super().__init__(ctx)
        self.calls = []

    def visit_Call(self, node: cst.Call) -> None:
        if isinstance(node.func, cst.Name) and node.func.value == "probe":
            self.calls.append((node, self.ctx.function, tuple(self.ctx.loops)))

    def finish(self) -> None:
        for node, func, loops in self.calls:
            _Probe.answers.append(_Probe.question(self.ctx, node.args[0].value, func, loops))


def _probe(source: str, question=lambda ctx, expr, func, loops: V.abstract(ctx, expr, func, loops).kind) -> list:
    _Probe.question, _Probe.answers = staticmethod(question), []
    ctx = FileContext("probe.py", "probe", False, Settings(), TENSORFLOW)
    analyze_module(cst.parse_module(textwrap.dedent(source)), ctx, [_Probe])
    return _Probe.answers


def test_every_kind_of_the_lattice():
    kinds = _probe("""
        import tensorflow as tf
        import keras

        data = tf.data.Dataset.range(3)
        model = keras.Sequential([keras.layers.Dense(2)])

        def helper():
            return 1

        @tf.function
        def f(x):
            y = tf.abs(x)
            probe(y)                                   # tensor
            probe(tf.unique(y))                        # tensors
            probe(3)                                   # constant
            probe(helper)                              # function
            probe(tf.Variable(1.0))                    # variable
            probe(model)                               # keras
            probe(model(y))                            # nest: a model may return a structure
            probe(iter([1, 2]))                        # iterator
            probe(open("log.txt"))                     # file
            probe(data)                                # dataset
            probe(x)                                   # unknown: a parameter
            return y
    """)
    assert kinds == [V.TENSOR, V.TENSORS, V.CONSTANT, V.FUNCTION, V.VARIABLE, V.KERAS, V.NEST,
                     V.ITERATOR, V.FILE, V.DATASET, V.UNKNOWN]


def test_python_numbers_that_vary_per_call_negative_twin():
    kinds = _probe("""
        import tensorflow as tf

        @tf.function
        def f(x, n):
            return x

        for i in range(3):
            probe(i)
        probe(3)
    """)
    assert kinds == [V.VARYING, V.CONSTANT]


def test_one_tensor_is_not_a_structure_of_tensors():
    definite = _probe("""
        import tensorflow as tf

        @tf.function
        def f(x):
            y = tf.abs(x)
            parts = tf.unstack(y)
            probe(y)
            probe(parts)
            probe([y, y])
            return y
    """, lambda ctx, expr, func, loops: V.one_tensor(ctx, expr, func).definite)
    assert definite == [True, False, False]
