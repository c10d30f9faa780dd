"""Issue 23, the eighteenth TensorFlow audit's held-back half BR, class BR2: an `if` on a module
constant compared with a literal (`literals._compared_truth`). Behaviour checked with Python and TensorFlow 2.21 / Keras 3
(tests/runtime/test_tf_eighteenth_audit_br2_facts.py)."""

from __future__ import annotations

from rulecases import assert_tiers

def test_a_branch_on_a_module_constant_compared_with_a_literal_is_decided_in_functions_too():
    """The same comparison inside a traced function (`walk.module_flag_dead`): `MODE = "train"`
    never rebound leaves `if MODE == "debug":` untaken on every call; another module could still
    set `MODE` (no file here writes it): a guess, the preview tier, as for `if DEBUG:`. The twin
    `!=` runs the body: reported."""
    assert_tiers("""
        import tensorflow as tf

        MODE = "train"


        @tf.function
        def step(x):
            if MODE == "debug":
                print("x", x)  # preview STG101
            if MODE != "debug":
                print("y", x)  # STG101
            if MODE in ("train", "eval"):
                print("z", x)  # STG101
            return x + 1
        """)
