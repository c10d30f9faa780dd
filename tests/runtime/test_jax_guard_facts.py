"""The facts behind the tenth fresh JAX audit's read classes (tests/rules/test_jax_tenth_audit.py),
observed with the real JAX 0.10.2: a Tracer test tells tracing from eager calls, every host
callback (`frameworks.JAX_EAGER_ESCAPES`) runs its function as Python on every call, a wrapper
never called traces nothing, and a draw after a constant reseed is the same value on every call."""

from __future__ import annotations

import time

import numpy as np
import pytest

jax = pytest.importorskip("jax")
jnp = jax.numpy

from stagelint.frameworks import JAX_EAGER_ESCAPES, JAX_TRACER_TYPES  # noqa: E402


def _resolve(qualified: str):
    module, _, name = qualified.rpartition(".")
    obj = __import__(module, fromlist=[name])
    return getattr(obj, name)


def test_the_tracer_types_are_what_every_traced_value_is_and_no_concrete_array_is():
    """`frameworks.JAX_TRACER_TYPES`: under jit, the `lax` loops, grad and vmap each value derived
    from the arguments is an instance; an eager array, a NumPy array or a Python number is not.
    So a branch under `not isinstance(x, jax.core.Tracer)` runs on eager calls only."""
    tracer_types = {_resolve(q) for q in JAX_TRACER_TYPES}
    assert tracer_types == {jax.core.Tracer}
    ran = []

    def solver(x):
        if not isinstance(x, jax.core.Tracer):
            ran.append("check")  # eager only
        else:
            ran.append("traced")
        return x * 2

    solver(jnp.ones(2))
    assert ran == ["check"]
    ran.clear()
    jax.jit(solver)(jnp.ones(2))
    jax.lax.while_loop(lambda c: c[0] < 3, lambda c: solver(c) + 1, jnp.zeros(2))
    jax.lax.scan(lambda c, x: (solver(c), x), jnp.zeros(2), jnp.arange(3.0))
    jax.grad(lambda x: solver(x).sum())(jnp.ones(2))
    jax.vmap(solver)(jnp.ones((3, 2)))
    assert ran == ["traced"] * 5
    assert getattr(jax, "core").Tracer is jax.core.Tracer  # jax_utils' spelling for pyright
    assert not isinstance(np.ones(2), jax.core.Tracer) and not isinstance(1.0, jax.core.Tracer)


def test_code_after_an_early_return_on_a_tracer_runs_on_eager_calls_only():
    """`if isinstance(x, jax.core.Tracer): return ...`: what follows never runs while tracing."""
    ran = []

    def is_tracer(x):
        return isinstance(x, jax.core.Tracer)

    def report(x):
        if is_tracer(x):
            return x
        ran.append(float(x.sum()))
        return x

    f = jax.jit(report)
    for _ in range(3):
        f(jnp.ones(2))
    assert ran == []
    report(jnp.ones(2))
    assert ran == [2.0]


def test_every_host_callback_runs_its_function_on_every_call_of_the_jitted_caller():
    """`frameworks.JAX_EAGER_ESCAPES`: each API exists in JAX 0.10.2 and runs its function as
    Python with concrete values on every call of the jitted caller (one trace, three calls):
    `jax.pure_callback`, `jax.experimental.io_callback`, `jax.debug.callback` and
    `jax.experimental.buffer_callback.buffer_callback` (fea-in-jax's solver bridges)."""
    present = {q for q in JAX_EAGER_ESCAPES if not q.startswith("jax.experimental.host_callback")}
    for q in present:
        assert callable(_resolve(q)), q
    from jax.experimental.buffer_callback import buffer_callback

    runs = {"pure": 0, "io": 0, "debug": 0, "buffer": 0}
    traces = []

    def pure(x):
        runs["pure"] += 1
        return np.asarray(x) * 2

    def io(x):
        runs["io"] += 1
        return np.asarray(x)

    def debug(x):
        runs["debug"] += 1

    def impl(ctx, out, x):
        runs["buffer"] += 1
        np.asarray(out)[...] = np.asarray(x) * 2

    @jax.jit
    def f(x):
        traces.append(1)
        shape = jax.ShapeDtypeStruct(x.shape, x.dtype)
        y = jax.pure_callback(pure, shape, x)
        y = jax.experimental.io_callback(io, shape, y)
        jax.debug.callback(debug, y)
        return buffer_callback(impl, shape)(y)

    for i in range(3):
        out = f(jnp.arange(3.0) + i)
    assert float(out[1]) == (1.0 + 2) * 4
    assert len(traces) == 1
    assert runs == {"pure": 3, "io": 3, "debug": 3, "buffer": 3}


def test_a_draw_after_a_constant_reseed_is_the_same_value_on_every_call_eager_and_jitted():
    """`np.random.seed(seed)` with `seed = 0` at the top of the function, then draws in a loop
    below: every eager call draws the same sequence, and the jitted function's frozen constants
    are that sequence; a reseed with a value that changes between calls is not."""
    seed = 0

    def rollout(p):
        np.random.seed(seed)
        for _ in range(3):
            p = p + np.random.choice(4)
        return p

    eager = [float(rollout(jnp.float32(1.0))) for _ in range(3)]
    f = jax.jit(rollout)
    jitted = [float(f(jnp.float32(1.0))) for _ in range(3)]
    assert eager == jitted and len(set(eager)) == 1

    seeds = iter(range(100))

    def moving(p):
        np.random.seed(next(seeds))
        return p + np.random.rand()

    eager = [float(moving(jnp.float32(1.0))) for _ in range(3)]
    g = jax.jit(moving)
    jitted = [float(g(jnp.float32(1.0))) for _ in range(3)]
    assert len(set(eager)) == 3 and len(set(jitted)) == 1


def test_a_clock_read_only_by_the_trace_time_print_is_used_up_there(capsys):
    """`pref = "[" + time.ctime() + "]"` read only by the function's own `print`: the print runs
    while tracing (once), with the value of that moment; no call and no output of the jitted
    function ever sees the value. A lambda handed to `jax.debug.callback` does run per call,
    with the value frozen at trace time."""
    calls = []

    def log(x):
        pref = "[" + str(time.monotonic_ns()) + "]"
        print(pref, "step")
        jax.debug.callback(lambda v: calls.append(pref), x)
        return x + 1

    f = jax.jit(log)
    outs = [float(f(jnp.float32(i))) for i in range(3)]
    assert outs == [1.0, 2.0, 3.0]
    printed = capsys.readouterr().out.splitlines()
    assert len(printed) == 1 and printed[0].endswith("step")
    assert len(calls) == 3 and len(set(calls)) == 1  # the callback's copy is frozen: a true finding


def test_a_jit_wrapper_nothing_calls_traces_nothing_and_the_function_runs_eagerly():
    """rl_with_jax's `jit_jax_rollout2 = jax.jit(jax_rollout2)`, its call commented out, and
    fea-in-jax's `jax.jit` under `if is_homogeneous:` with `is_homogeneous = False` on the line
    before: the function runs as Python on every call, its prints and draws each time."""
    ran = []

    def rollout(x):
        ran.append("python")
        return x + 1

    jit_rollout = jax.jit(rollout)  # noqa: F841 (never called)
    for i in range(3):
        rollout(jnp.float32(i))
    is_homogeneous = False
    inner = rollout
    if is_homogeneous:
        inner = jax.jit(rollout)
    for i in range(3):
        inner(jnp.float32(i))
    assert ran == ["python"] * 6
