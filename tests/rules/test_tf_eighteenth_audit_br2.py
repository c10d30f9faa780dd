"""Issue 23, the eighteenth TensorFlow audit's held-back half BR, class BR2: a module-level class
whose name the module rebinds, in the running branch of an `if` on a module constant compared
with a literal, before anything reads the class through it (`analysis.rebinding`,
`literals._compared_truth`). Behaviour checked with Python and TensorFlow 2.21 / Keras 3
(tests/runtime/test_tf_eighteenth_audit_br2_facts.py)."""

from __future__ import annotations

from rulecases import assert_tiers

HEAD = """
    import tensorflow as tf

    def make_generator_model():
        return tf.keras.Sequential([tf.keras.layers.Dense(2)])

    class generator(tf.keras.layers.Layer):
        def call(self, inputs):
            return tf.keras.layers.Dense(2)(inputs){marker}
"""

STEP = """
    @tf.function
    def train_step(x):
        return generator(x, training=True)
"""


def _case(middle: str, reported: bool) -> str:
    return (HEAD.format(marker="  # STG402" if reported else "") + middle + STEP)


def test_a_class_rebound_in_the_running_branch_of_a_constant_comparison_is_never_traced():
    """GyuminJack/tf_version_test's tf2_gan.py: `option = "function"` then `if option ==
    "function": generator = make_generator_model() else: generator = generator()`. Python runs
    the body only; the step calls the Sequential, never `generator.call`: silent."""
    assert_tiers(_case("""
    option = "function"
    if option == "function":
        generator = make_generator_model()
    else:
        generator = generator()
""", reported=False))


def test_other_spellings_of_the_decided_test_and_a_plain_rebinding():
    for middle in ("""
    option = "function"
    if option != "class":
        generator = make_generator_model()
    else:
        generator = generator()
""", """
    option = "function"
    if option in ("function", "sequential"):
        generator = make_generator_model()
""", """
    USE_CLASSES = False
    if not USE_CLASSES:
        generator = make_generator_model()
""", """
    generator = make_generator_model()
"""):
        assert_tiers(_case(middle, reported=False))


def test_the_class_branch_running_still_reports():
    """The negative twin: `if option == "class":` takes the branch instantiating the class, whose
    `call` the step traces (ValueError: the runtime test)."""
    assert_tiers(_case("""
    option = "function"
    if option == "class":
        generator = make_generator_model()
    else:
        generator = generator()
""", reported=True))


def test_a_constant_not_known_still_reports():
    """`option` rebound later in the module, by `global` in a function, or read from argparse:
    which branch runs is not known, and the class may be the one called."""
    for middle in ("""
    option = "function"
    if option == "function":
        generator = make_generator_model()
    else:
        generator = generator()
    option = "class"
""", """
    option = "function"
    if option == "function":
        generator = make_generator_model()
    else:
        generator = generator()

    def use_classes():
        global option
        option = "class"
""", """
    import argparse
    option = argparse.ArgumentParser().parse_args().option
    if option == "function":
        generator = make_generator_model()
    else:
        generator = generator()
"""):
        assert_tiers(_case(middle, reported=True))


def test_a_read_of_the_class_before_the_rebinding_still_reports():
    """Module-level code between the class and the rebinding reads the name (an instance made,
    or a function reading it called): the class is called before the name moves on."""
    for middle in ("""
    kept = generator()
    generator = make_generator_model()

    @tf.function
    def early(x):
        return kept(x)
""", """
    @tf.function
    def warm(x):
        return generator(x)

    warm(tf.zeros([1, 3]))
    generator = make_generator_model()
"""):
        assert_tiers(_case(middle, reported=True))


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
