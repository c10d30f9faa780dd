"""Which function objects are new per call, by the identity rule each framework's trace cache
uses (`frameworks.TRACE_CACHE`), observed with the real TensorFlow 2.21, JAX 0.10.2, Equinox
0.13.8, Flax 0.12.8 and Haiku 0.0.17; and STG502 reporting exactly the modules that retrace.

Each case is a small program that wraps a function again and again and counts its traces (a
Python `TRACES.append` runs once per trace). The test runs it for real, asserts the count, and
checks that STG502 marks exactly the lines the `# STG502` markers say: a positive module and its
negative twin, the same shape of code, one retracing on every iteration and one tracing once.
"""

from __future__ import annotations

import textwrap

import pytest

from stagelint.config import Settings
from stagelint.engine import check_source
from stagelint.rules.base import expected_findings

pytest.importorskip("jax")

#: (name, program, traces it makes when run). Every loop runs 4 times.
CASES = [
    # JAX: `jax.jit` keys traces on the function; the same object made again traces once.
    ("jit of a module function in a loop", """
        import jax
        import jax.numpy as jnp

        TRACES = []

        def double(x):
            TRACES.append(1)
            return x * 2

        for _ in range(4):
            jax.jit(double)(jnp.ones(3))
    """, 1),
    ("jit of a lambda in a loop", """
        import jax
        import jax.numpy as jnp

        TRACES = []

        def double(x):
            TRACES.append(1)
            return x * 2

        for _ in range(4):
            jax.jit(lambda v: double(v))(jnp.ones(3))  # STG502
    """, 4),
    ("jit of a partial in a loop", """
        import functools
        import jax
        import jax.numpy as jnp

        TRACES = []

        def scale(x, k):
            TRACES.append(1)
            return x * k

        for _ in range(4):
            jax.jit(functools.partial(scale, k=2.0))(jnp.ones(3))  # STG502
    """, 4),
    # `jax.eval_shape` keeps traces per function object like `jax.jit` (`frameworks.
    # JAX_TRACE_CACHE`): the same function evaluated again traces once, a new `functools.partial`
    # or lambda on every iteration traces every time (jax bcoo's abstract evaluation);
    # `jax.make_jaxpr` too, left to the reader (`test_make_jaxpr_caches_but_is_not_reported`);
    # `jax.linear_transpose` keeps none (`test_linear_transpose_keeps_no_trace_cache`). eval_shape
    # compiles nothing (`frameworks.JAX_TRACES_WITHOUT_COMPILING`): whether its repeated trace
    # costs enough to matter is not shown, so its finding is in the preview tier.
    ("eval_shape of a module function in a loop", """
        import jax
        import jax.numpy as jnp

        TRACES = []

        def scale(x, k=2.0):
            TRACES.append(1)
            return x * k

        for _ in range(4):
            jax.eval_shape(scale, jnp.ones(3))
    """, 1),
    ("eval_shape of a partial in a loop (preview under JAX)", """
        import functools
        import jax
        import jax.numpy as jnp

        TRACES = []

        def scale(x, k):
            TRACES.append(1)
            return x * k

        for _ in range(4):
            out = jax.eval_shape(functools.partial(scale, k=2.0), jnp.ones(3))  # STG502
    """, 4),
    ("jit of a bound method per step", """
        import jax
        import jax.numpy as jnp

        TRACES = []

        class Trainer:
            def update(self, x):
                TRACES.append(1)
                return x * 2

            def step(self, x):
                return jax.jit(self.update)(x)  # STG502

        trainer = Trainer()
        for _ in range(4):
            trainer.step(jnp.ones(3))
    """, 4),
    ("jit of a bound method made once in __init__", """
        import jax
        import jax.numpy as jnp

        TRACES = []

        class Trainer:
            def __init__(self):
                self._update = jax.jit(self.update)

            def update(self, x):
                TRACES.append(1)
                return x * 2

            def step(self, x):
                return self._update(x)

        trainer = Trainer()
        for _ in range(4):
            trainer.step(jnp.ones(3))
    """, 1),
    ("jit of a field holding a function, per step", """
        import jax
        import jax.numpy as jnp

        TRACES = []

        def double(x):
            TRACES.append(1)
            return x * 2

        class Trainer:
            def __init__(self, fn):
                self.fn = fn

            def step(self, x):
                return jax.jit(self.fn)(x)

        trainer = Trainer(double)
        for _ in range(4):
            trainer.step(jnp.ones(3))
    """, 1),
    ("jit of a bound method of a local object in a loop", """
        import jax
        import jax.numpy as jnp

        TRACES = []

        class Model:
            def loss(self, x):
                TRACES.append(1)
                return x * 2

        def run(xs):
            model = Model()
            for x in xs:
                jax.jit(model.loss)(x)  # STG502

        run([jnp.ones(3)] * 4)
    """, 4),
    ("jit of vmap(f) in a loop", """
        import jax
        import jax.numpy as jnp

        TRACES = []

        def double(x):
            TRACES.append(1)
            return x * 2

        for _ in range(4):
            jax.jit(jax.vmap(double))(jnp.ones((2, 3)))  # STG502
    """, 4),
    ("jit of vmap(f) made once before the loop", """
        import jax
        import jax.numpy as jnp

        TRACES = []

        def double(x):
            TRACES.append(1)
            return x * 2

        batched = jax.vmap(double)
        for _ in range(4):
            jax.jit(batched)(jnp.ones((2, 3)))
    """, 1),
    ("jit of a nested def per call of a function called in a loop", """
        import jax
        import jax.numpy as jnp

        TRACES = []

        def evaluate(x):
            def loss(v):
                TRACES.append(1)
                return v * 2
            return jax.jit(loss)(x)  # STG502

        for _ in range(4):
            evaluate(jnp.ones(3))
    """, 4),
    ("jit of a nested def made before the loop of a function called once", """
        import jax
        import jax.numpy as jnp

        TRACES = []

        def evaluate(xs):
            def loss(v):
                TRACES.append(1)
                return v * 2
            for x in xs:
                jax.jit(loss)(x)

        evaluate([jnp.ones(3)] * 4)
    """, 1),
    ("jit of a factory's new function in a loop", """
        import jax
        import jax.numpy as jnp

        TRACES = []

        def make_loss(k):
            def loss(v):
                TRACES.append(1)
                return v * k
            return loss

        for _ in range(4):
            jax.jit(make_loss(2.0))(jnp.ones(3))  # STG502
    """, 4),
    ("jit of a factory's function made once before the loop", """
        import jax
        import jax.numpy as jnp

        TRACES = []

        def make_loss(k):
            def loss(v):
                TRACES.append(1)
                return v * k
            return loss

        loss = make_loss(2.0)
        for _ in range(4):
            jax.jit(loss)(jnp.ones(3))
    """, 1),
    # Equinox keys on equality and holds the function: an equal bound method reuses the traces.
    ("filter_jit of a bound method per step", """
        import equinox as eqx
        import jax.numpy as jnp

        TRACES = []

        class Trainer:
            def update(self, x):
                TRACES.append(1)
                return x * 2

            def step(self, x):
                return eqx.filter_jit(self.update)(x)

        trainer = Trainer()
        for _ in range(4):
            trainer.step(jnp.ones(3))
    """, 1),
    ("filter_jit of a lambda in a loop", """
        import equinox as eqx
        import jax.numpy as jnp

        TRACES = []

        def double(x):
            TRACES.append(1)
            return x * 2

        for _ in range(4):
            eqx.filter_jit(lambda v: double(v))(jnp.ones(3))  # STG502
    """, 4),
    # Flax NNX's jit keeps traces in the wrapper, as tf.function does.
    ("nnx.jit of a module function in a loop", """
        import jax.numpy as jnp
        from flax import nnx

        TRACES = []

        def double(x):
            TRACES.append(1)
            return x * 2

        for _ in range(4):
            nnx.jit(double)(jnp.ones(3))  # STG502
    """, 4),
    # Haiku's transform makes new functions; its `apply` is a plain function it holds.
    ("jit of hk.transform(f).apply in a loop", """
        import haiku as hk
        import jax
        import jax.numpy as jnp

        TRACES = []

        def forward(x):
            TRACES.append(1)
            return x * 2

        for _ in range(4):
            jax.jit(hk.transform(forward).apply)({}, None, jnp.ones(3))  # STG502
    """, 4),
    ("jit of a transform's apply made once before the loop", """
        import haiku as hk
        import jax
        import jax.numpy as jnp

        TRACES = []

        def forward(x):
            TRACES.append(1)
            return x * 2

        net = hk.transform(forward)
        for _ in range(4):
            jax.jit(net.apply)({}, None, jnp.ones(3))
    """, 1),
    # A module's function read through its dotted module is the same object on every read: one
    # cache, however many wrappers (netket's `jax.jit(jax.lax.collapse, static_argnums=(1, 2))`
    # made in a constructor). TRACES counts JAX's own trace events: the function is JAX's.
    ("jit of a module's function through its dotted module, per construction", """
        import jax
        import jax.monitoring
        import jax.numpy as jnp

        TRACES = []
        X = jnp.ones((2, 3, 4))
        jax.monitoring.register_event_duration_secs_listener(
            lambda event, duration, **kw: TRACES.append(1) if event == "/jax/core/compile/jaxpr_trace_duration" else None)

        def flatten(x):
            return jax.jit(jax.lax.collapse, static_argnums=(1, 2))(x, 0, 2)

        for _ in range(3):
            flatten(X)
    """, 1),
    ("jit of a lambda over a module's function, per call", """
        import jax
        import jax.monitoring
        import jax.numpy as jnp

        TRACES = []
        X = jnp.ones((2, 3, 4))
        jax.monitoring.register_event_duration_secs_listener(
            lambda event, duration, **kw: TRACES.append(1) if event == "/jax/core/compile/jaxpr_trace_duration" else None)

        def flatten(x):
            return jax.jit(lambda v: jax.lax.collapse(v, 0, 2))(x)  # STG502

        for _ in range(3):
            flatten(X)
    """, 3),
    # A nested def built over the enclosing function's parameter `fn` is another program for each
    # object passed there (dreamerv3's `transform.init(fn, ...)`): its trace repeats an earlier
    # one only when callers pass the same object again. TRACES records which program traced.
    ("jit of a nested def over a parameter, called with two different functions", """
        import jax
        import jax.numpy as jnp

        TRACES = []

        def double(v):
            TRACES.append("double")
            return v * 2

        def triple(v):
            TRACES.append("triple")
            return v * 3

        def init(fn, x):
            def wrapper(v, inner=fn):
                return inner(v)
            return jax.jit(wrapper)(x)

        init(double, jnp.ones(3))
        init(triple, jnp.ones(3))
    """, 2),
    ("jit of a nested def over a parameter, called twice with the same function", """
        import jax
        import jax.numpy as jnp

        TRACES = []

        def double(v):
            TRACES.append("double")
            return v * 2

        def triple(v):
            TRACES.append("triple")
            return v * 3

        def init(fn, x):
            def wrapper(v, inner=fn):
                return inner(v)
            return jax.jit(wrapper)(x)  # STG502

        init(double, jnp.ones(3))
        init(double, jnp.ones(3))
    """, 2),
    ("jit of a nested def over a parameter, called in a loop with a module's function", """
        import jax
        import jax.numpy as jnp

        TRACES = []
        X = jnp.ones((2, 3))

        def reduce(fn, x):
            name, fn = fn.__name__, jax.named_call(fn)

            def wrapper(v):
                TRACES.append(name)
                return fn(v)
            return jax.jit(wrapper)(x)  # STG502

        for _ in range(3):
            reduce(jnp.linalg.norm, X)
    """, 3),
    ("jit of a nested def over a parameter, called with two module functions", """
        import jax
        import jax.numpy as jnp

        TRACES = []
        X = jnp.ones((2, 3))

        def reduce(fn, x):
            name, fn = fn.__name__, jax.named_call(fn)

            def wrapper(v):
                TRACES.append(name)
                return fn(v)
            return jax.jit(wrapper)(x)

        reduce(jnp.linalg.norm, X)
        reduce(jax.numpy.sum, X)
    """, 2),
    # TensorFlow: every `tf.function(f)` is a new Function with its own traces, whatever `f` is.
    ("tf.function of a module function in a loop", """
        import tensorflow as tf

        TRACES = []

        def double(x):
            TRACES.append(1)
            return x * 2

        for _ in range(4):
            tf.function(double)(tf.constant(1.0))  # STG502
    """, 4),
    ("tf.function made once before the loop", """
        import tensorflow as tf

        TRACES = []

        def double(x):
            TRACES.append(1)
            return x * 2

        step = tf.function(double)
        for _ in range(4):
            step(tf.constant(1.0))
    """, 1),
    ("tf.function of a bound method per step", """
        import tensorflow as tf

        TRACES = []

        class Trainer:
            def update(self, x):
                TRACES.append(1)
                return x * 2

            def step(self, x):
                return tf.function(self.update)(x)  # STG502

        trainer = Trainer()
        for _ in range(4):
            trainer.step(tf.constant(1.0))
    """, 4),
    ("a tf.function method read through self per step", """
        import tensorflow as tf

        TRACES = []

        class Trainer:
            @tf.function
            def update(self, x):
                TRACES.append(1)
                return x * 2

            def step(self, x):
                return self.update(x)

        trainer = Trainer()
        for _ in range(4):
            trainer.step(tf.constant(1.0))
    """, 1),
    ("tf.function re-created once per epoch, called in the inner loop", """
        import tensorflow as tf

        TRACES = []

        def double(x):
            TRACES.append(1)
            return x * 2

        for epoch in range(2):
            step = tf.function(double)  # STG502
            for _ in range(4):
                step(tf.constant(1.0))
    """, 2),
]


def _run(source: str) -> list:
    namespace: dict = {"__name__": "train"}
    exec(compile(source, "train.py", "exec"), namespace)
    return namespace["TRACES"]


@pytest.mark.parametrize("name,program,traces", CASES, ids=[c[0] for c in CASES])
def test_the_framework_traces_as_stated_and_stg502_marks_exactly_the_retracing_lines(name, program, traces):
    source = textwrap.dedent(program).lstrip("\n")
    if "tensorflow" in source:
        pytest.importorskip("tensorflow")
    traced = _run(source)
    assert len(traced) == traces
    found = {f.line for f in check_source(source) if f.code == "STG502"}
    marked = {line for line, code in expected_findings(source) if code == "STG502"}
    if name.endswith("(preview under JAX)"):
        assert found == set()
        found = {f.line for f in check_source(source, settings=Settings(preview=True)) if f.code == "STG502"}
    assert found == marked
    # a marked line is one whose code traces the same program more than once, and only that
    # (TRACES names the program where it can differ; two programs traced once each repeat nothing)
    repeated = len(traced) > len(set(traced)) if any(t != 1 for t in traced) else len(traced) > 1
    assert bool(marked) == repeated


def test_linear_transpose_keeps_no_trace_cache():
    """`jax.linear_transpose` is not in `frameworks.JAX_TRACE_CACHE`: the same function transposed
    again traces every time, so a new function object per call costs nothing more."""
    import jax
    import jax.numpy as jnp

    traces = []

    def double(x):
        traces.append(1)
        return x * 2

    for _ in range(4):
        jax.linear_transpose(double, jnp.ones(3))(jnp.ones(3))
    assert len(traces) == 4
    from stagelint.frameworks import JAX_TRACE_CACHE

    assert "jax.linear_transpose" not in JAX_TRACE_CACHE and "jax.eval_shape" in JAX_TRACE_CACHE


def test_make_jaxpr_caches_but_is_not_reported():
    """`jax.make_jaxpr` keeps traces per function object (the same function: 1 trace in 4, a new
    lambda: 4 in 4), but is not among STG502's wrappers (`frameworks.JAX_CACHES_TRACES`): its jaxpr
    is for a reader, and the trace is what the call is for."""
    import jax
    import jax.numpy as jnp

    program = textwrap.dedent("""
        import jax
        import jax.numpy as jnp

        TRACES = []

        def double(x):
            TRACES.append(1)
            return x * 2

        for _ in range(4):
            jax.make_jaxpr(double)(jnp.ones(3))
        for _ in range(4):
            jax.make_jaxpr(lambda v: double(v))(jnp.ones(3))
    """).lstrip("\n")
    assert len(_run(program)) == 1 + 4
    assert not [f for f in check_source(program) if f.code == "STG502"]
    from stagelint.frameworks import JAX_CACHES_TRACES, JAX_TRACE_CACHE

    assert "jax.make_jaxpr" in JAX_TRACE_CACHE and "jax.make_jaxpr" not in JAX_CACHES_TRACES


def _message(program: str) -> str:
    source = textwrap.dedent(program).lstrip("\n")
    (finding,) = [f for f in check_source(source) if f.code == "STG502"]
    return finding.message


def test_messages_say_the_cost_and_what_to_write_instead():
    cases = dict((name, program) for name, program, _ in CASES)
    per_step = _message(cases["jit of a bound method per step"])
    assert "`self.update`" in per_step and "new bound method" in per_step
    assert "on every call of `step`" in per_step and "`__init__`" in per_step
    lam = _message(cases["jit of a lambda in a loop"])
    assert "on every iteration of the loop on line 10" in lam and "before the loop" in lam
    epoch = _message(cases["tf.function re-created once per epoch, called in the inner loop"])
    assert "once per iteration of the loop on line 9" in epoch and "line 11" in epoch
    assert "every call" not in epoch


def test_the_proof_names_the_new_object_and_the_loop():
    cases = dict((name, program) for name, program, _ in CASES)
    source = textwrap.dedent(cases["jit of a lambda in a loop"]).lstrip("\n")
    (finding,) = [f for f in check_source(source) if f.code == "STG502"]
    because = [note.message for note in finding.because]
    assert any("lambda" in m and "new function" in m for m in because), because
    assert any("loop on line 10" in m for m in because), because


#: Static arguments key the trace by value: each distinct value traces once and is reused
#: (`frameworks.jax`, static arguments). (name, program, traces); `# STG501` marks the calls
#: reported: values that change without bound, or a fixed set where a traced value would do.
STATIC_CASES = [
    ("a static axis taking two literal values across six calls", """
        import functools
        import jax
        import jax.numpy as jnp

        TRACES = []

        @functools.partial(jax.jit, static_argnames="split_axis")
        def split(x, split_axis):
            TRACES.append(split_axis)
            return x.reshape(x.shape[split_axis], -1)

        x = jnp.ones((2, 3))
        for _ in range(3):
            split(x, split_axis=0)
            split(x, split_axis=1)
    """, 2),
    ("a static axis from a loop variable", """
        import functools
        import jax
        import jax.numpy as jnp

        TRACES = []

        @functools.partial(jax.jit, static_argnames="split_axis")
        def split(x, split_axis):
            TRACES.append(split_axis)
            return x.reshape(x.shape[split_axis], -1)

        x = jnp.ones((2, 3, 4))
        for _ in range(2):
            for axis in range(3):
                split(x, split_axis=axis)  # a fixed set of three values, each needed, each reused
    """, 3),
    ("a static size from a loop over a name's range: the values the code does not fix", """
        import functools
        import jax
        import jax.numpy as jnp

        TRACES = []
        STEPS = 4

        @functools.partial(jax.jit, static_argnames="n")
        def head(x, n):
            TRACES.append(n)
            return x[:n]

        x = jnp.ones(8)
        for n in range(STEPS):
            head(x, n=n)  # STG501
    """, 4),
    ("a static scale from a loop over range(3), where a traced one would do", """
        import functools
        import jax
        import jax.numpy as jnp

        TRACES = []

        @functools.partial(jax.jit, static_argnames="factor")
        def scale(x, factor):
            TRACES.append(1)  # (not `factor`: a Python use of it would make it structure)
            return x * factor

        x = jnp.ones(3)
        for step in range(3):
            scale(x, factor=step)  # STG501
    """, 3),
    ("a static scale taking two literal values, where a traced one would do (preview under JAX)", """
        import functools
        import jax
        import jax.numpy as jnp

        TRACES = []

        @functools.partial(jax.jit, static_argnames="factor")
        def scale(x, factor):
            TRACES.append(1)  # (not `factor`: a Python use of it would make it structure)
            return x * factor

        x = jnp.ones(3)
        for _ in range(3):
            scale(x, factor=2.0)  # STG501
            scale(x, factor=3.0)  # STG501
    """, 2),
    ("a tf.function axis taking two literal values across six calls", """
        import tensorflow as tf

        TRACES = []

        @tf.function
        def split(x, split_axis):
            TRACES.append(split_axis)
            return tf.reshape(x, [x.shape[split_axis], -1])

        x = tf.ones([2, 3])
        for _ in range(3):
            split(x, split_axis=0)
            split(x, split_axis=1)
    """, 2),
    ("a tf.function scale taking two literal values, where a tensor would do", """
        import tensorflow as tf

        TRACES = []

        @tf.function
        def scale(x, factor):
            TRACES.append(1)  # (not `factor`: a Python use of it would make it structure)
            return x * factor

        x = tf.ones([3])
        for _ in range(3):
            scale(x, factor=2.0)  # STG501
            scale(x, factor=3.0)  # STG501
    """, 2),
]


@pytest.mark.parametrize("name,program,traces", STATIC_CASES, ids=[c[0] for c in STATIC_CASES])
def test_a_static_argument_traces_once_per_value_and_stg501_marks_only_what_a_traced_value_would_save(name, program, traces):
    source = textwrap.dedent(program).lstrip("\n")
    if "tensorflow" in source:
        pytest.importorskip("tensorflow")
    traced = _run(source)
    assert len(traced) == traces  # one trace per distinct value, each reused
    marked = {line for line, code in expected_findings(source) if code == "STG501"}
    found = {f.line for f in check_source(source) if f.code == "STG501"}
    if name.endswith("(preview under JAX)"):
        # A fixed set of literals traces a few times, each trace reused: whether that costs
        # anything the code does not show, so JAX's finding waits in the preview tier.
        assert found == set()
        found = {f.line for f in check_source(source, settings=Settings(preview=True)) if f.code == "STG501"}
    assert found == marked
