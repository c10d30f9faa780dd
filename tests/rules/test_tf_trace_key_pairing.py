"""STG501 under TensorFlow: a Python number decided by the other Python arguments of the same calls adds no
trace (`analysis.trace_key.decided_beside`, `frameworks.TF_TRACE_KEY`). A Function keys its traces on every
Python argument together (a function by identity, a string or a bool by value), so `random_apply(func, x, p)`
called with `(color_jitter, 0.8)`, `(color_drop, 0.2)`, `(random_blur, 1.0)` traces 3 times whether `p` is a
number or a tensor (TensorFlow 2.21: tests/runtime/test_tf_trace_key_facts.py). The fourteenth audit's BB1
(a self-supervised augmentation module): each twin keeps the finding where the pairing does not hold or is
not shown."""

from __future__ import annotations

from rulecases import assert_marked, assert_project_marked

_RANDOM_APPLY = """
    import tensorflow as tf

    @tf.function
    def random_apply(func, x, p):
        return tf.cond(tf.random.uniform([]) < p, lambda: func(x), lambda: x)

    def color_jitter(image):
        return image * 0.9

    def color_drop(image):
        return tf.image.rgb_to_grayscale(image)

    def random_blur(image):
        return image
"""


def test_each_function_always_passed_with_one_number_keys_the_trace_alone():
    """BB1: three functions, each always with its own `p`, in three augmentation functions; two functions
    sharing one value (`color_jitter` and `random_blur` with 0.8) are decided too (3 traces either way)."""
    assert_marked(_RANDOM_APPLY + """
    def augment(image):
        image = random_apply(color_jitter, p=0.8, x=image)
        image = random_apply(color_drop, p=0.2, x=image)
        return random_apply(random_blur, p=0.8, x=image)

    def augment_global(image):
        image = random_apply(color_jitter, p=0.8, x=image)
        image = random_apply(color_drop, x=image, p=0.2)
        return random_apply(random_blur, image, 0.8)

    def augment_light(image):
        return random_apply(random_blur, p=0.8, x=image)
    """)


def test_a_mode_string_decides_the_number_beside_it():
    """A string is keyed by value: `scale(x, "train", 0.5)` and `scale(x, "eval", 1.0)` trace twice
    whether the rate is a number or a tensor."""
    assert_marked("""
    import tensorflow as tf

    @tf.function
    def scale(x, phase, rate):
        return x * rate

    def run(x):
        scale(x, "train", 0.5)
        scale(x, "eval", 1.0)
    """)


def test_one_function_with_two_numbers_still_retraces_per_number():
    """The twin: `color_jitter` comes with 0.8 and with 0.5: the number adds a trace (3 against 2)."""
    assert_marked(_RANDOM_APPLY + """
    def augment(image):
        image = random_apply(color_jitter, p=0.8, x=image)  # STG501
        image = random_apply(color_jitter, p=0.5, x=image)  # STG501
        return random_apply(random_blur, p=1.0, x=image)  # STG501
    """)


def test_a_function_not_shown_leaves_the_pairing_unknown():
    """The twins: a function passed in (the caller's parameter), an alias of a def (one object under two
    names, one key: `alias` with 0.2 is `color_jitter` with 0.2), a number through a name: the pairs are
    not shown, and the finding stays as it was."""
    assert_marked(_RANDOM_APPLY + """
    def augment(image, fn):
        image = random_apply(fn, p=0.8, x=image)  # STG501
        return random_apply(random_blur, p=1.0, x=image)  # STG501

    def augment_more(image, fn):
        return random_apply(fn, p=0.3, x=image)  # STG501
    """)
    assert_marked(_RANDOM_APPLY + """
    jitter = color_jitter

    def augment(image):
        image = random_apply(color_jitter, p=0.8, x=image)  # STG501
        return random_apply(jitter, p=0.2, x=image)  # STG501
    """)
    assert_marked(_RANDOM_APPLY + """
    P_DROP = 0.5

    def augment(image):
        image = random_apply(color_jitter, p=0.8, x=image)  # STG501
        image = random_apply(color_jitter, p=P_DROP, x=image)
        return random_apply(random_blur, p=1.0, x=image)  # STG501
    """)


def test_a_number_beside_another_number_is_not_decided_by_it():
    """Two numbers that change together (`(1.0, 10.0)`, `(2.0, 20.0)`) trace twice as numbers and once as
    tensors: each stays a finding."""
    assert_marked("""
    import tensorflow as tf

    @tf.function
    def scaled(x, a, b):
        return x * a + b

    def run(x):
        scaled(x, 1.0, 10.0)  # STG501
        scaled(x, 2.0, 20.0)  # STG501
    """)


def test_the_pairs_are_read_in_one_program_and_through_imported_defs(tmp_path):
    """Imported defs are keys as module-level ones are; a script passing another pair is another program
    (STG501's literals are per module), while a pair broken in the same module keeps its findings."""
    assert_project_marked(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/aug.py": """
            import tensorflow as tf

            @tf.function
            def random_apply(func, x, p):
                return tf.cond(tf.random.uniform([]) < p, lambda: func(x), lambda: x)

            def color_jitter(image):
                return image * 0.9

            def color_drop(image):
                return image * 0.5
        """,
        "pkg/train.py": """
            from pkg.aug import color_drop, color_jitter, random_apply

            def augment(image):
                image = random_apply(color_jitter, p=0.8, x=image)
                return random_apply(color_drop, p=0.2, x=image)
        """,
        "pkg/sweep.py": """
            from pkg.aug import color_drop, color_jitter, random_apply

            def augment(image):
                image = random_apply(color_jitter, p=0.8, x=image)  # STG501
                image = random_apply(color_jitter, p=0.4, x=image)  # STG501
                return random_apply(color_drop, p=0.2, x=image)  # STG501
        """,
    })
