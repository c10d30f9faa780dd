"""Retracing from inputs whose shape changes between calls (STG506)."""

from __future__ import annotations

from stagelint.analysis import facts as F
from stagelint.analysis.proof import HEURISTIC, TRUE
from stagelint.frameworks import JAX_JIT
from stagelint.rules.base import Rule


class VaryingInputShape(Rule):
    """
    ## What it does
    Flags a call of a `tf.function` (or a `jax.jit` function) made on every iteration of a loop
    with a tensor argument whose shape the code visibly changes from one iteration to the next,
    when the function has no `input_signature` and no `reduce_retracing=True` (nor its older name
    `experimental_relax_shapes=True`). The shape changes when the argument is:

    * an element of a dataset padded per batch: `ds.padded_batch(32)` without fixed
      `padded_shapes`, `bucket_by_sequence_length(...)` without `pad_to_bucket_boundary=True`;
    * a ragged value made dense in the loop, `rt.to_tensor()` without `shape=`;
    * a slice whose end is the loop's variable, `data[:n]` for `n` in a `range`;
    * a Python sequence whose length is the loop's variable, converted (`tf.constant([0.0] * n)`);
    * a tensor built with a shape that holds the loop's variable, `tf.ones([4, length])` for
      `length` in a `range` or a literal tuple of different numbers (`jnp.zeros`, `np.ones`,
      `tf.random.normal`, `jax.random.normal(key, shape)` alike).

    Where the elements are tuples (`for x, y in ds`), the finding names the argument when the
    code declares which parts have `None` dimensions, or when the call passes every part (one
    of them changes); otherwise it is in the preview tier.

    In the preview tier too, with a message of its own: a batch without `drop_remainder=True`
    (`ds.batch(32)`, or `padded_batch` with fixed `padded_shapes`) and a fixed-width window
    `data[i:i + 32]`, whose last batch is smaller when the count is not a multiple of the batch
    size: that is **one** extra trace (the same two shapes every epoch), not one per step, and
    the code rarely shows whether the count divides (on the TensorFlow guides and tutorials this
    step was right 7 times in 9: 60,000 MNIST images in batches of 32 leave no smaller batch).
    A batched dataset cut with `.take(n)` may never reach its last batch, and is left alone; so
    is a batch of the whole count, `from_tensor_slices((x, y))` (shuffled or mapped) batched by
    `x.shape[0]` or `len(x)`: one batch holds every element.
    Also in the preview tier: an element of `tf.data.Dataset.from_generator(...)` whose
    `output_signature` (or `output_shapes`) has `None` dimensions, used as it comes or batched. A
    `None` leaves the size open; it does not say that it changes: a Function is keyed on the
    shapes the generator really yields (one cropping every example to one length traces once in
    20 batches, under `output_shapes=[2, None, 3]`), which the code rarely shows. Padded per batch
    (`padded_batch` without `padded_shapes`), the same elements are known to vary.

    Not flagged: a function with an `input_signature` or `reduce_retracing=True`; batches with
    `drop_remainder=True` and fixed shapes; `padded_batch` with fixed `padded_shapes` and
    `drop_remainder=True`; `to_tensor(shape=...)`; windows of one width over data whose length
    the code does not show to vary; datasets whose element shapes the code does not show; calls
    made while another function is traced (they trace with it); test modules (a test calls
    once).

    Under JAX: the same calls of a `jax.jit` function, which compiles again for every new shape
    and has no option to generalise shapes; the remedy is padding to a few fixed sizes.

    ## Why is this bad?
    A Function keys its traces on the shapes of its tensor arguments, and does not generalise
    them on its own (`reduce_retracing` is off by default): in TensorFlow 2.21, a function fed
    30 sequence lengths traces 30 times, each trace costing milliseconds to seconds, and
    TensorFlow warns that "N out of the last M calls triggered tf.function retracing". With
    `input_signature=[tf.TensorSpec([None, None], tf.float32)]` it traces once; with
    `reduce_retracing=True` twice (the second trace is for `None` dimensions). A `padded_batch`
    of 12 sequences in batches of 3 gave 4 padded lengths and 4 traces. `jax.jit` compiles once
    per new shape: 8 lengths, 8 compilations; padded to two buckets, 2.

    ## Example
    ```python
    @tf.function
    def train_step(tokens):
        ...

    for tokens in dataset.padded_batch(32):
        train_step(tokens)            # a new padded length, a new trace
    ```

    ## Use instead
    ```python
    @tf.function(input_signature=[tf.TensorSpec([None, None], tf.int32)])
    def train_step(tokens):
        ...
    ```
    or `@tf.function(reduce_retracing=True)`, or fixed `padded_shapes` with
    `drop_remainder=True`. Under JAX, pad each batch to one of a few bucket lengths.
    """

    code = "STG506"
    severity = "warning"
    repeated_cost = True
    name = "varying-input-shape"
    message = "{what} {change}, so {func} {cost}; {instead}"
    valid = (
        """
        import tensorflow as tf

        @tf.function(input_signature=[tf.TensorSpec([None, None], tf.float32)])
        def train_step(tokens):
            return tf.reduce_sum(tokens)

        @tf.function(reduce_retracing=True)
        def eval_step(tokens):
            return tf.reduce_sum(tokens)

        @tf.function
        def fixed_step(tokens):
            return tf.reduce_sum(tokens)

        def lengths():
            for n in range(2, 14):
                yield tf.ones([n])

        ds = tf.data.Dataset.from_generator(lengths, output_signature=tf.TensorSpec([None], tf.float32))
        for tokens in ds.padded_batch(3):
            train_step(tokens)
            eval_step(tokens)
        for tokens in ds.padded_batch(4, padded_shapes=[16], drop_remainder=True):
            fixed_step(tokens)
        """,
        """
        import tensorflow as tf

        @tf.function
        def step(x):
            return tf.reduce_sum(x)

        @tf.function
        def row_step(row):
            return tf.reduce_sum(row)

        rows = tf.data.Dataset.from_tensor_slices(tf.ones([100, 4]))
        for x in rows.batch(32, drop_remainder=True):
            step(x)
        data = tf.ones([100, 4])
        for i in range(0, 100, 10):
            row_step(data[i])
        """,
        """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def total(x):
            return jnp.sum(x)

        def pad(x, size):
            return jnp.pad(x, (0, size - x.shape[0]))

        for n in range(1, 9):
            total(pad(jnp.ones(n), 8))     # one padded size, one compilation
        """,
    )
    invalid = (
        """
        import tensorflow as tf

        @tf.function
        def train_step(tokens):
            return tf.reduce_sum(tokens)

        def lengths():
            for n in range(2, 14):
                yield tf.ones([n])

        ds = tf.data.Dataset.from_generator(lengths, output_signature=tf.TensorSpec([None], tf.float32))
        for tokens in ds.padded_batch(3):
            train_step(tokens)  # STG506
        """,
        """
        import tensorflow as tf

        @tf.function
        def step(x):
            return tf.reduce_sum(x)

        data = tf.ones([100, 4])
        for n in range(1, 9):
            step(data[:n])  # STG506
            step(tf.constant([0.0] * n))  # STG506
        """,
        """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def total(x):
            return jnp.sum(x)

        data = jnp.ones([100, 4])
        for n in range(1, 9):
            total(data[:n])  # STG506
        """,
    )

    @classmethod
    def project_candidates(cls, project):
        out = []
        for key, calls in sorted(project.function_calls.items()):
            jax_entry = project.jax.entry(key)
            if jax_entry is not None and not jax_entry.apis & JAX_JIT:
                continue  # traced on every call anyway (`jax.vmap` outside jit): no cache to miss
            static = project.jax.static_params(key)
            for module, site, via in calls:
                if project.in_traced_code(module, site):
                    continue  # called while another function is traced: traced with it, once
                if project.has_signature(key, via) or (jax_entry is None and project.relaxes_shapes(key, via)):
                    continue
                pairs = [(p, a) for p, a in project.passed(site, key) if a.shape is not None and p not in static]
                if pairs:
                    out.append((module, cls._candidate(key, site, pairs, jax_entry is not None)))
        return out

    @classmethod
    def _candidate(cls, key, site, pairs, jax: bool) -> F.Candidate:
        passed: dict[str, set[int]] = {}
        for _, arg in pairs:
            if arg.shape.part_of:
                passed.setdefault(arg.shape.part_of, set()).add(arg.shape.index)

        def facts_of(arg):
            shape = arg.shape
            if not shape.part_of:
                return list(shape.facts)
            part = list(shape.part_fact)
            if part[3] == HEURISTIC and passed.get(shape.part_of) == set(range(shape.parts)):
                # every part of the element is passed: whichever part changes, this call sees it
                part[0], part[3] = "the call passes every part of each element, so it sees whichever part changes", TRUE
            return [*shape.facts, part]

        def rank(item):
            _, arg = item
            facts = facts_of(arg)
            return (arg.shape.kind != "varies", any(f[3] != TRUE for f in facts))

        param, arg = min(pairs, key=rank)
        shape = arg.shape
        if shape.kind == "varies":
            change = f"changes shape from one iteration to the next ({shape.source})"
            if jax:
                cost = "is traced and compiled again for every new shape (`jax.jit` has no `reduce_retracing`)"
                instead = "pad it to one of a few fixed sizes (buckets), so that it compiles once per bucket"
            else:
                cost = "traces again for every new shape"
                instead = ("give it an `input_signature` with `None` where the size varies "
                           "(e.g. `tf.TensorSpec([None, None], tf.float32)`) or `reduce_retracing=True`")
        else:
            change = f"has another shape in the last iteration ({shape.source})"
            if jax:
                cost = "is compiled once more for it (one extra compilation, not one per step)"
                instead = "drop the last batch or pad it to the batch size" if shape.origin == "batch" else \
                    "skip or pad the last window"
            else:
                cost = "traces once more for it (one extra trace, not one per step)"
                instead = ("pass `drop_remainder=True`, or give it an `input_signature` with `None` for the batch size"
                           if shape.origin == "batch" else
                           "skip or pad the last window, or give it an `input_signature` with `None` for that size")
        what = f"`{arg.text}`" if arg.text == param else f"`{arg.text}`, passed for `{param}`,"
        return F.Candidate(cls.code, site.caller, site.span, {
            "what": what, "change": change, "cost": cost, "instead": instead,
            "_anchors": [list(key)], "_because": facts_of(arg),
        })
