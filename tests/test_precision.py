"""What the core rules must not flag (issue 2's precision list), each with a positive twin
so the test fails if the rule simply stopped working."""

from __future__ import annotations

from conftest import pairs

from stagelint.config import Settings


def test_module_constant_bound_once_is_not_stale():
    assert pairs("""
        import tensorflow as tf

        SCALE = 3.0
        NAMES = ("a", "b")

        @tf.function
        def f(x):
            return x * SCALE + len(NAMES)
    """) == set()


def test_rebound_module_variable_is_stale():
    # traced before the rebinding and called after it (issue 11 point 2: a rebinding after the
    # last call changes nothing a trace sees; test_value_model has that twin)
    assert pairs("""
        import tensorflow as tf

        SCALE = 3.0

        @tf.function
        def f(x):
            return x * SCALE

        f(tf.constant(1.0))
        SCALE = 4.0
        f(tf.constant(1.0))
    """) == {(7, "STG301")}


def test_module_variable_rebound_at_import_before_any_call_is_not_stale():
    # keras-hub byte_pair_tokenizer.py: `SPLIT_PATTERN_1 = SPLIT_PATTERN_1.replace(...)` at import
    # time. Nothing can trace `f` before the module has run, so `f` only ever sees the last value.
    assert pairs("""
        import tensorflow as tf

        SCALE = 3.0
        SCALE = SCALE * 2

        @tf.function
        def f(x):
            return x * SCALE

        SCALE = 4.0
    """) == set()


def test_imports_functions_and_classes_are_not_stale():
    assert pairs("""
        import numpy as np
        import tensorflow as tf
        from math import pi

        class Config:
            size = 3

        def helper(x):
            return x

        @tf.function
        def f(x):
            return helper(x) * pi * np.float32(2.0) + Config.size
    """) == set()


def test_global_variable_and_keras_object_are_not_stale_even_if_rebound():
    assert pairs("""
        import tensorflow as tf

        counter = tf.Variable(0)
        dense = tf.keras.layers.Dense(4)

        @tf.function
        def f(x):
            counter.assign_add(1)
            return dense(x)

        dense = tf.keras.layers.Dense(8)
    """, {"STG301"}) == set()


def test_local_container_that_never_escapes_is_not_a_side_effect():
    assert pairs("""
        import tensorflow as tf

        @tf.function
        def f(x):
            parts = []
            table = {}
            parts.append(x)
            table["x"] = x
            parts.extend([x, x])
            return tf.add_n(parts) + table["x"]
    """) == set()


def test_alias_of_an_outer_container_is_a_side_effect():
    assert pairs("""
        import tensorflow as tf

        class M(tf.Module):
            def __init__(self):
                self.log = []

            @tf.function
            def __call__(self, x):
                log = self.log
                log.append(1)
                return x
    """) == {(10, "STG102")}


def test_print_in_code_no_staged_function_reaches():
    assert pairs("""
        import tensorflow as tf

        def report(x):
            print("eager", x)

        @tf.function
        def f(x):
            return x + 1

        report(f(1))
    """) == set()


def test_tf_print_and_assign_are_not_side_effects():
    assert pairs("""
        import tensorflow as tf

        v = tf.Variable(0.0)

        @tf.function
        def f(x):
            tf.print("x", x)
            v.assign(x)
            v.assign_add(1.0)
            v.assign_sub(0.5)
            return v.read_value()
    """) == set()


def test_init_scope_block_is_not_staged():
    assert pairs("""
        import tensorflow as tf

        class M(tf.Module):
            def __init__(self):
                self.calls = 0
                self.v = tf.Variable(0)

            @tf.function
            def __call__(self):
                with tf.init_scope():
                    print("once")
                    self.calls += 1
                self.v.assign_add(1)
                return self.v
    """) == set()


def test_first_call_guards_are_recognised():
    assert pairs("""
        import tensorflow as tf

        class M(tf.Module):
            def __init__(self):
                self.v = None
                self.built = False

            @tf.function
            def __call__(self, x):
                if self.v is None:
                    self.v = tf.Variable(1.0)
                if not self.built:
                    self.w = tf.Variable(2.0)
                    self.built = True
                if not hasattr(self, "b"):
                    self.b = tf.Variable(0.0)
                return x * self.v * self.w + self.b
    """) == set()


def test_unguarded_creation_in_a_staged_method_is_flagged():
    assert pairs("""
        import tensorflow as tf

        class M(tf.Module):
            @tf.function
            def __call__(self, x):
                self.v = tf.Variable(1.0)
                return x * self.v
    """) == {(6, "STG402")}


def test_guard_in_the_caller_covers_the_helper():
    assert pairs("""
        import tensorflow as tf

        class M(tf.Module):
            def __init__(self):
                self.v = None

            def _create(self):
                self.v = tf.Variable(1.0)

            @tf.function
            def __call__(self, x):
                if self.v is None:
                    self._create()
                return x * self.v
    """) == set()


def test_helper_parameter_container_is_the_callers_local():
    assert pairs("""
        import tensorflow as tf

        def collect(acc, x):
            acc.append(x)

        @tf.function
        def f(x):
            acc = []
            collect(acc, x)
            return tf.add_n(acc)
    """) == set()


def test_python_value_stored_is_a_mutation_tensor_stored_is_a_leak():
    assert pairs("""
        import tensorflow as tf

        class M(tf.Module):
            def __init__(self):
                self.last = None
                self.n = 0

            @tf.function
            def __call__(self, x):
                self.n = self.n + 1
                self.last = tf.reduce_sum(x)
                return x
    """) == {(10, "STG102"), (11, "STG201")}


def test_exclusive_branches_bind_once():
    assert pairs("""
        import sys
        import tensorflow as tf

        if sys.platform == "win32":
            SEP = "\\\\"
        elif sys.platform == "darwin":
            SEP = ":"
        else:
            SEP = "/"

        @tf.function
        def f(x):
            return tf.strings.join([x, SEP])
    """) == set()


def test_module_level_setup_mutation_is_not_staleness():
    assert pairs("""
        import tensorflow as tf

        CONFIG = {}
        CONFIG["scale"] = 2.0

        @tf.function
        def f(x):
            return x * CONFIG["scale"]
    """) == set()


def test_mutation_in_another_function_makes_a_global_stale():
    # In a library nothing shows when `set_scale` runs against `f`'s calls: the preview tier. The
    # module's own calls show it: `set_scale` between two calls of `f`, the default tier.
    library = """
        import tensorflow as tf

        CONFIG = {"scale": 2.0}

        def set_scale(value):
            CONFIG["scale"] = value

        @tf.function
        def f(x):
            return x * CONFIG["scale"]
    """
    assert pairs(library) == set()
    assert pairs(library, settings=Settings(preview=True)) == {(10, "STG301")}
    assert pairs(library + """
        f(tf.constant(1.0))
        set_scale(3.0)
        f(tf.constant(1.0))
    """) == {(10, "STG301")}


# The accuracy audit (bench/audit.py) --------------------------------------------------------------


def _audit_module():
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "bench" / "audit.py"
    spec = importlib.util.spec_from_file_location("stagelint_bench_audit", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_audit_sample_is_seeded_stratified_and_complete_when_small():
    audit = _audit_module()
    keys = [("p", f"m{i}.py", i, "STG102") for i in range(400)] + [("p", "x.py", i, "STG401") for i in range(3)]
    first = audit.draw_sample(keys, 150, 300, 10, 20261121)
    assert first == audit.draw_sample(list(reversed(keys)), 150, 300, 10, 20261121)
    assert sum(1 for k in first if k[3] == "STG401") == 3  # every finding of a small rule
    assert len(first) >= 150
    assert audit.draw_sample(keys[:250], 150, 300, 10, 1) == sorted(keys[:250])  # few: audit all


def test_audit_verdicts_file_is_well_formed():
    audit = _audit_module()
    verdicts = audit.read_verdicts()
    assert verdicts, "bench/audit_verdicts.csv holds the audit"
    for key, row in verdicts.items():
        assert row["verdict"] in ("TP", "FP"), key
        assert row["reason"].strip(), key
        assert key[3].startswith("STG") and key[2] > 0
