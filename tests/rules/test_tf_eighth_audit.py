"""Issue 23, the eighth TensorFlow audit's read halves (bench/fresh_verdicts_AC_before.csv and
fresh_verdicts_AD_before.csv): each false-positive class as the fact it follows, with its
positive twin."""

from __future__ import annotations

import dis

from rulecases import assert_marked, assert_tiers, findings


def _names_loaded(source: str, name: str) -> set[str]:
    """The global names function `name`'s compiled code loads (nothing is run)."""
    code = next(c for c in compile(source, "<case>", "exec").co_consts if getattr(c, "co_name", "") == name)
    return {i.argval for i in dis.get_instructions(code) if i.opname in ("LOAD_GLOBAL", "LOAD_NAME")}


def test_python_compiles_no_code_for_a_literal_false_test():
    """The fact: `if False:`/`if 0:`/`while False:` bodies and the `else` of `if True:` are
    not in the function's code at all (CPython folds the constant test)."""
    source = ("def f(x):\n"
              "    if False:\n        dead_a(x)\n"
              "    if 0:\n        dead_b(x)\n"
              "    while False:\n        dead_c(x)\n"
              "    if True:\n        live(x)\n    else:\n        dead_d(x)\n"
              "    if x:\n        taken(x)\n")
    names = _names_loaded(source, "f")
    assert {"live", "taken"} <= names
    assert not {"dead_a", "dead_b", "dead_c", "dead_d"} & names


def test_code_under_a_literal_false_test_never_runs_so_no_rule_reports_in_it():
    """TensorFlow-SNNs' disabled debug blocks (`if False:` prints in a Keras layer's call,
    STG101 x14; a disabled `record_gradient` block, STG603 x2): Python never runs them, traced
    or not, so no rule reports there and nothing there is called, stored or drawn. The same
    statements under a test that can be true (`if x is None:`, `if True:`, `if 1:`) are reported."""
    assert_marked("""
        import numpy as np
        import tensorflow as tf

        state = []

        def helper(x):
            print("helper", x)

        def live_helper(x):
            print("live helper", x)  # STG101

        @tf.function
        def f(x):
            if False:
                print("off", x)
                state.append(x)
                helper(x)
            if 0:
                np.random.uniform()
            while False:
                print("never")
            if True:
                y = x + 1
            else:
                print("else of True")
            if x is None:
                pass
            elif False:
                print("dead elif")
            if 1:
                print("on")  # STG101
            if x is not None:
                live_helper(x)
            return y
    """)


def test_a_name_is_the_module_binding_that_reaches_the_use():
    """chenxu0602's `import numpy as tf` then `import tensorflow as tf` (STG601 x5): the second
    import overwrites the first for good before any later statement runs, so `tf.one_hot` in a
    traced function defined after both is TensorFlow's, not NumPy's. Twins: with the imports the
    other way round `tf` is NumPy there; an import that may not run (in a `try`) overwrites
    nothing for sure."""
    assert_marked("""
        import tensorflow
        import numpy as tf
        import tensorflow as tf

        @tensorflow.function
        def f(x):
            return tf.reduce_sum(tf.one_hot(x, 3), axis=1)
    """)
    assert_marked("""
        import tensorflow
        import tensorflow as tf
        import numpy as tf

        @tensorflow.function
        def f(x):
            y = tensorflow.one_hot(x, 3)
            return tf.sum(y)  # STG601
    """)
    assert_marked("""
        import tensorflow
        import numpy as tf
        try:
            import tensorflow as tf
        except ImportError:
            pass

        @tensorflow.function
        def f(x):
            y = tensorflow.one_hot(x, 3)
            return tf.sum(y)  # STG601
    """)


def test_one_draw_is_one_finding_not_one_more_for_a_method_of_its_result():
    """Monodepth2's `np.random.choice(...).astype(np.float32)[0]` and MetaLearning's
    `np.random.uniform(...).astype(...)` (STG104 reported twice on one line): `.astype` is a
    method of the array the draw returns, not a function under `numpy.random`; the draw is
    reported once, at the inner call. A generator made in place (`default_rng().normal()`)
    still draws in the outer call, and is reported there."""
    source = """
        import numpy as np
        import random
        import tensorflow as tf

        @tf.function
        def f(x):
            a = np.random.choice([1.0, 2.0], 1).astype(np.float32)[0]  # STG104
            b = np.random.uniform(0, 1, 3).astype(np.float32)  # STG104
            c = random.random().hex()  # STG104
            d = np.random.default_rng().normal()  # STG104
            return x + a + b + d + len(c)

        for i in range(3):
            f(tf.constant(1.0))
    """
    assert_marked(source)
    lines = [f.line for f in findings(source, "STG104")]
    assert len(lines) == len(set(lines)) == 4  # (the markers alone cannot tell two on a line)


def test_a_change_to_what_an_own_method_stored_anew_in_the_same_call_is_preview():
    """Monodepth2's `compute_losses`: `self.reset_losses()` (`self.losses = {...}`) at its top,
    then `self.losses['pixel_loss'] /= num_scales` (STG102 x4): each call divides what it stored
    itself through the method, as a store written inline above is (`stores.stored_anew_above`):
    lost only if that is the same object every call, a guess. Twin: a method that stores
    something else leaves the change of `self.totals` known."""
    assert_tiers("""
        import tensorflow as tf

        class Trainer:
            def __init__(self):
                self.losses = {}
                self.totals = {"all": 0}
                self.other = {"a": 0}
                self.n = 4

            def reset_losses(self):
                self.losses = {"pixel": 0}  # preview STG102

            def reset_other(self):
                self.other = {"a": 0}  # preview STG102

            def compute(self, x):
                self.reset_losses()
                self.reset_other()
                self.losses["pixel"] += tf.reduce_mean(x)  # STG201
                self.losses["pixel"] /= self.n  # preview STG102
                self.totals["all"] /= self.n  # STG102
                return self.losses

            @tf.function
            def step(self, x):
                return self.compute(x)

        t = Trainer()
        for i in range(3):
            t.step(tf.constant(1.0))
    """)


def test_code_after_a_numpy_call_in_its_block_runs_while_tracing_only_if_that_call_does_not_raise():
    """Monodepth2's debug block: `dispmap = outputs[...][0].numpy()`, then its prints (STG101
    x2). Under a trace `.numpy()` raises on a tensor (AttributeError) and on a variable
    (NotImplementedError), TF 2.21 (tests/runtime/test_tf_fresh_facts.py): what follows runs
    while tracing only if the receiver is neither. Known a tensor: never (no finding); not
    known: a guess (preview). Twins: a `.numpy()` under an `if` above may not run, one after the
    print does not stop it, and `item()`/`tolist()` are NumPy methods too."""
    assert_tiers("""
        import numpy as np
        import tensorflow as tf

        class Trainer:
            def __init__(self, debug):
                self.debug = debug

            def compute(self, outputs, boxes, first):
                loss = tf.reduce_mean(outputs)
                if self.debug:
                    dispmap = outputs[0].numpy()  # preview STG601
                    if boxes is not None:
                        print("boxes", boxes.shape)  # preview STG101
                if self.debug:
                    value = loss.numpy()  # STG601
                    print("loss", value)
                if self.debug:
                    if first:
                        outputs[0].numpy()  # preview STG601
                    print("maybe")  # STG101
                if self.debug:
                    print("before")  # STG101
                    outputs[0].numpy()  # preview STG601
                if self.debug:
                    n = np.zeros(3).tolist()
                    print("after tolist")  # STG101
                return loss

            @tf.function
            def step(self, x, boxes, first):
                return self.compute(x, boxes, first)

        t = Trainer(True)  # (debugging: with False in every construction the blocks are in no trace)
        for i in range(3):
            t.step(tf.constant([1.0]), None, False)
    """)
