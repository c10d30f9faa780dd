"""Runtime-only findings (STG9xx): what `stagelint run` observes with no static finding to explain it.

These rules have no static detection: `stagelint check` never reports them. They are documented
here, like every other rule, so `stagelint rule STG901` and docs/rules/ explain them; the
evidence comes from stagelint/runtime/verdicts.py.
"""

from __future__ import annotations

from stagelint.rules.base import Rule


class EagerGraphDivergence(Rule):
    """
    ## What it does
    Reports a staged function whose result differs between graph mode and eager mode
    (`tf.config.run_functions_eagerly(True)`) for the same inputs, or that raises only in eager
    mode, when no static finding in the code it runs explains the difference. `stagelint run`
    runs the tests twice, joins the calls one by one and compares the results: integers, bools
    and text exactly, floats in units of their own format's rounding (NaN equal to NaN). A test
    that fails only in eager mode is reported the same way. Functions with stateful random ops
    are compared by shape and dtype only.

    Not reported: differences a static finding in the code the call runs already explains (its
    confirmed verdict carries the evidence instead), values of stateful random ops (only their
    shapes and dtypes must agree), and float differences that rounding explains: within half the
    significand of the result's largest magnitude (3.5e-4 of it in float32), in a test whose
    outcome is the same in both runs. XLA (`jax.jit`, `jit_compile=True`) and grappler fuse and
    reorder float arithmetic, and a cancellation such as `1 - decay ** count` turns one ulp into
    hundreds; such a call is listed as a float rounding note, not a finding.

    ## Why is this bad?
    Eager mode runs the Python code as written; graph mode runs what tracing captured. A
    difference means the graph does not compute what the code says: some Python state was
    frozen at trace time (an attribute reached through a container, a value computed by a
    helper in a library, a mutable default), or an op was pruned. The static rules did not see
    the cause, so the evidence names the call and both values.

    ## Example
    ```python
    class Config:
        def __init__(self):
            self.offset = 0.0

    @tf.function
    def shifted(config, x):          # STG901
        return x + config.offset      # read once, at trace time

    def test_shift():
        config = Config()
        shifted(config, tf.constant(1.0))
        config.offset = 3.0
        shifted(config, tf.constant(1.0))   # eager 4.0, graph 1.0
    ```

    ## Use instead
    Pass the changing value as a tensor argument, or keep it in a `tf.Variable`:
    ```python
    @tf.function
    def shifted(offset, x):
        return x + offset

    shifted(tf.constant(config.offset), tf.constant(1.0))
    ```
    """

    code = "STG901"
    name = "eager-graph-divergence"
    runtime_only = True
    message = "{func} returns different results in graph and eager mode: {evidence}"
    invalid = (
        """
        import tensorflow as tf

        class Config:
            def __init__(self):
                self.offset = 0.0

        @tf.function
        def shifted(config, x):  # STG901
            return x + config.offset

        def test_shift():
            config = Config()
            shifted(config, tf.constant(1.0))
            config.offset = 3.0
            shifted(config, tf.constant(1.0))
        """,
    )
    valid = (
        """
        import tensorflow as tf

        @tf.function
        def shifted(offset, x):
            return x + offset

        def test_shift():
            shifted(tf.constant(0.0), tf.constant(1.0))
            shifted(tf.constant(3.0), tf.constant(1.0))
        """,
        """
        import tensorflow as tf

        @tf.function
        def noisy(x):
            return x + tf.random.uniform(tf.shape(x))  # random: compared by shape and dtype only

        def test_noisy():
            noisy(tf.zeros([3]))
        """,
    )


class ExcessiveRetracing(Rule):
    """
    ## What it does
    Reports a staged function that traced five or more times within one test, when no static
    finding (STG501, STG502, STG503, STG506) explains it. `stagelint run` names what changed at every trace
    (docs/runtime.md, *Why each trace happened*), and the evidence groups the retraces by cause,
    each with its remedy:

    - shapes varying in dimension *k*: ``5 retraces from the shape of `tokens` changing in
      dimension 1: give it `input_signature=[tf.TensorSpec([4, None], tf.int32)]` (None where the
      size varies) or `reduce_retracing=True` `` (JAX: ``pad or bucket `x` to a few fixed shapes``);
    - a Python value: pass it as a tensor (`tf.constant`) so that one trace serves every value
      (JAX: pass it as an array, mark it static only if it takes a few values);
    - a new function object made from the same code (`tf.function(f)` re-applied,
      `jax.jit(self.update)` on every step): create it once (outside the loop or in `__init__`)
      and call that object;
    - a new object argument compared by identity: pass the same object, or one hashed by value.

    A parametrized test matrix whose tests each trace one new signature is not reported: a
    program would not repeat those traces.

    Not reported: fewer than five traces in one test; a method's first trace on each new
    instance; retracing that a static finding (STG501, STG502, STG503, STG506) explains, which that
    finding's verdict confirms.

    ## Why is this bad?
    Every trace runs the Python body again and builds a new graph: 7 to 55 ms each for small
    functions, seconds for large models, plus the memory of every concrete function kept.
    TensorFlow warns from the fifth retrace within ten calls. Retracing on every call makes a
    staged function slower than eager execution.

    ## Example
    ```python
    @tf.function
    def total(x):                    # STG902
        return tf.reduce_sum(x)

    for n in range(1, 7):
        total(tf.ones([n]))           # a new shape: a new trace, 6 times
    ```

    ## Use instead
    ```python
    @tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])
    def total(x):
        return tf.reduce_sum(x)
    ```
    Or `@tf.function(reduce_retracing=True)`, or pass Python numbers as `tf.constant(...)`. In
    JAX, pad or bucket inputs to a few fixed shapes, pass numbers as arrays, and `jax.jit` a
    function once (not `jax.jit(self.update)` inside `step()`).
    """

    code = "STG902"
    severity = "warning"
    name = "excessive-retracing"
    runtime_only = True
    message = "{func} traced {traces} times in {calls} calls: {evidence}"
    invalid = (
        """
        import tensorflow as tf

        @tf.function
        def total(x):  # STG902
            return tf.reduce_sum(x)

        def test_total():
            for n in range(1, 7):
                total(tf.ones([n]))
        """,
    )
    valid = (
        """
        import tensorflow as tf

        @tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])
        def total(x):
            return tf.reduce_sum(x)

        def test_total():
            for n in range(1, 7):
                total(tf.ones([n]))
        """,
    )


class GraphOnlyError(Rule):
    """
    ## What it does
    Reports a staged call that raises in graph mode where the same call returns in eager mode,
    and a test that fails only in graph mode, when no static finding explains it. The evidence
    is the call, the graph error (the real cause inside AutoGraph's `in user code:` wrapper) and
    what eager mode returned.

    Not reported: errors raised in both modes (a bug of the code, not of staging), and graph
    errors a static finding in the code the call runs explains (its verdict is confirmed instead).

    ## Why is this bad?
    The code is correct Python but cannot be staged: a tensor used as a Python `bool`, a symbolic
    tensor converted to NumPy, a tensor stored outside the function and used later. The test
    suite passes under `run_functions_eagerly(True)` and fails in production, where functions are
    traced.

    ## Example
    ```python
    @tf.function
    def checked_sqrt(x):             # STG903
        assert x >= 0                 # OperatorNotAllowedInGraphError in graph mode
        return tf.sqrt(x)
    ```

    ## Use instead
    ```python
    @tf.function
    def checked_sqrt(x):
        tf.debugging.assert_non_negative(x)
        return tf.sqrt(x)
    ```
    """

    code = "STG903"
    name = "graph-only-error"
    runtime_only = True
    message = "{func} raises only in graph mode: {evidence}"
    invalid = (
        """
        import tensorflow as tf

        @tf.function
        def checked_sqrt(x):  # STG903
            assert x >= 0
            return tf.sqrt(x)

        def test_sqrt():
            checked_sqrt(tf.constant(4.0))
        """,
    )
    valid = (
        """
        import tensorflow as tf

        @tf.function
        def checked_sqrt(x):
            tf.debugging.assert_non_negative(x)
            return tf.sqrt(x)

        def test_sqrt():
            checked_sqrt(tf.constant(4.0))
        """,
    )
