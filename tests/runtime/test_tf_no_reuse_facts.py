"""When no call of a `tf.function` reuses a trace (`analysis.repetition.no_reuse`), observed with
TensorFlow 2.21: the Python effects of the body then run on every call, as eager code runs them.

- A `@tf.function` method is one Function per instance: `obj.method` binds a copy keyed by the
  object, with traces of its own, so a method that `__init__` calls once is traced once per
  object and called once per object (the seventeenth audit's BN-P1: Reflect's `create_vars`).
  Called twice on one object, the second call reuses the first's trace (the twin).
- `@tf.function def __init__`: construction calls it once per object, each object tracing it;
  a subclass's `super().__init__(...)` does too, and `Base.__init__(self, ...)` calls the class's
  own Function with the new object as an argument, which is part of the key: a trace per object.
- A `@tf.function` made inside a function and called once there is a new Function per call of
  the enclosing function: each is traced by its one call.
- A Python scalar argument is part of the cache key: a value that differs on every call (a global
  step) retraces on every call, so the body's Python writes run on every call (BN2: the
  eligibility-traces agents' `update(replay_buffer, steps, ...)`). The same value again reuses.
"""

from __future__ import annotations

import pytest

tf = pytest.importorskip("tensorflow")


class _Model(tf.Module):
    def __init__(self, twice=False):
        self.traces = 0
        self.layers = []
        self.create_vars()
        if twice:
            self.create_vars()

    @tf.function
    def create_vars(self):
        self.traces += 1
        self.layers.append(1)


def test_a_tf_function_method_is_one_function_per_instance():
    a, b = _Model(), _Model()
    assert (a.traces, b.traces) == (1, 1)
    assert a.create_vars is not b.create_vars
    assert (len(a.layers), len(b.layers)) == (1, 1)
    # the twin: a second call on the same object reuses its trace and skips the Python writes
    c = _Model(twice=True)
    assert (c.traces, len(c.layers)) == (1, 1)


class _Wrapper:
    @tf.function
    def __init__(self, scale):
        self.scale = scale
        self.made = True


class _Sub(_Wrapper):
    def __init__(self, scale):
        _Wrapper.__init__(self, scale)  # through the class: the shared Function, `self` in its key


class _Sub2(_Wrapper):
    def __init__(self, scale):
        super().__init__(scale)


def test_a_tf_function_init_runs_its_python_for_every_object():
    objects = [_Wrapper(2.0) for _ in range(3)] + [_Sub(3.0) for _ in range(3)] + [_Sub2(4.0) for _ in range(3)]
    assert all(o.made for o in objects)
    assert [o.scale for o in objects] == [2.0] * 3 + [3.0] * 3 + [4.0] * 3
    # `Base.__init__(self, ...)` calls the class's Function with a new object each time: a trace each
    assert _Wrapper.__init__.experimental_get_tracing_count() == 3


def test_a_function_made_per_call_of_its_maker_is_traced_by_its_one_call():
    log = []

    def create():
        @tf.function
        def _create():
            log.append(1)
        _create()

    for _ in range(3):
        create()
    assert len(log) == 3


class _Agent(tf.Module):
    def __init__(self):
        self.writes = 0
        self.v = tf.Variable(0.0)

    @tf.function
    def update(self, steps, step_count):
        self.writes += 1
        self.v.assign_add(1.0)
        return self.v


def test_a_python_argument_new_on_every_call_retraces_every_call():
    agent = _Agent()
    steps = 0
    for _ in range(5):
        steps += 1
        agent.update(steps, 1)
    assert agent.writes == 5
    assert agent.update.experimental_get_tracing_count() == 5
    # the twin: the same Python value on every call reuses the first trace
    other = _Agent()
    for _ in range(5):
        other.update(7, 1)
    assert other.writes == 1


def test_a_python_int_retraces_also_under_reduce_retracing():
    traces = []

    @tf.function(reduce_retracing=True)
    def step(x, steps):
        traces.append(steps)
        return x

    for steps in range(1, 6):
        step(tf.constant(1.0), steps)
    assert traces == [1, 2, 3, 4, 5]
