"""The fact behind `analysis.order.one_value_each_call` (STG301): a module-level loop that rebinds a
global before each call of two Functions, each time to the value that Function is about to read
(`optimizer = optimizer_conv; step_conv(x)`, `optimizer = optimizer_fc; step_fc(x)`), hands every
call of a Function the value it traced with: each Function traces once and never reads a stale
value. Its negative twin: one Function called after each of the two rebindings reuses its first
trace with the old value. Observed with the real TensorFlow 2.21."""

from __future__ import annotations

import pytest

tf = pytest.importorskip("tensorflow")


def test_two_functions_reading_one_global_set_alternately_see_their_own_value_each_call():
    ns: dict = {"tf": tf}
    exec(  # module-level code: the global lives in `ns`, as in a script
        "traces = {'conv': 0, 'fc': 0}\n"
        "conv_n, fc_n = 3.0, 4.0\n"
        "@tf.function\n"
        "def step_conv(x):\n"
        "    traces['conv'] += 1\n"
        "    return x * n_actions\n"
        "@tf.function\n"
        "def step_fc(x):\n"
        "    traces['fc'] += 1\n"
        "    return x * n_actions\n"
        "seen = []\n"
        "for i in range(4):\n"
        "    n_actions = conv_n\n"
        "    a = float(step_conv(tf.constant(1.0)))\n"
        "    n_actions = fc_n\n"
        "    b = float(step_fc(tf.constant(1.0)))\n"
        "    seen.append((a, b, n_actions))\n", ns)
    assert ns["seen"] == [(3.0, 4.0, 4.0)] * 4
    assert ns["traces"] == {"conv": 1, "fc": 1}


def test_one_function_called_after_each_of_two_rebindings_reuses_the_old_value():
    ns: dict = {"tf": tf}
    exec(
        "traces = []\n"
        "conv_n, fc_n = 3.0, 4.0\n"
        "@tf.function\n"
        "def step(x):\n"
        "    traces.append(n_actions)\n"
        "    return x * n_actions\n"
        "seen = []\n"
        "for i in range(2):\n"
        "    n_actions = conv_n\n"
        "    a = float(step(tf.constant(1.0)))\n"
        "    n_actions = fc_n\n"
        "    seen.append((a, float(step(tf.constant(1.0)))))\n", ns)
    assert ns["seen"] == [(3.0, 3.0)] * 2  # the fc value is never read: the first trace kept 3.0
    assert ns["traces"] == [3.0]
