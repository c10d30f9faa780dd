"""A Function traces anew for an input shape it has not traced, and that trace reads what its
closure holds at that moment (STG301: `StaleGlobal._traces_every_call`,
`analysis.varying_shapes.call_signatures`), observed with the real TensorFlow 2.21 (Sionna's
Turbo3GPP interleaver test: bench/fresh_audit_notes.md, "Eleventh TensorFlow audit")."""

from __future__ import annotations

import pytest

tf = pytest.importorskip("tensorflow")


class _Scale:
    def __init__(self, k):
        self.k = k

    def __call__(self, x):
        return x * self.k


def test_every_call_with_a_new_shape_traces_and_reads_the_rebound_closure():
    traces = []

    @tf.function()
    def run_graph(x):
        traces.append(i.k)
        return i(x)

    got = []
    for n, s in enumerate([[10, 20, 30], [10, 22, 33, 44], [20, 10, 10, 10, 9]]):
        x = tf.ones(tf.constant(s, dtype=tf.int32))
        i = _Scale(n + 1.0)
        got.append(float(tf.reduce_max(run_graph(x))))
    i = _Scale(7.0)
    x = tf.ones(tf.constant((10, 100), dtype=tf.int32))
    got.append(float(tf.reduce_max(run_graph(x))))
    assert traces == [1.0, 2.0, 3.0, 7.0]
    assert got == pytest.approx([1.0, 2.0, 3.0, 7.0])


def test_a_call_with_a_shape_traced_before_keeps_the_first_binding():
    """The negative twin: one shape on every iteration, one trace, the first object for good."""
    traces = []

    @tf.function()
    def run_graph(x):
        traces.append(i.k)
        return i(x)

    got = []
    for n in range(3):
        x = tf.ones([10, 20])
        i = _Scale(n + 1.0)
        got.append(float(tf.reduce_max(run_graph(x))))
    assert traces == [1.0]
    assert got == [1.0, 1.0, 1.0]
