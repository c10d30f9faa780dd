"""Keras methods near which nothing stages anything (`staging.Project.keras_untraced_here`): the
sixteenth TensorFlow audit's BJ-P2, a micro-structure library whose Keras models' `call`s read
switches set again elsewhere, with no `tf.function`, `fit`, `evaluate`, `predict`, functional
build or `Sequential` anywhere in it (its `train_step` says it leaves the decorator out on
purpose): the models are called by hand from eager training loops. Keras traces a layer only
under those (`frameworks.KERAS_LOOP_STEPS`); called from plain Python a layer runs its `call` as
Python on every call (TF 2.21 / Keras 3: tests/runtime/test_tf_keras_tracing_facts.py). The
preview tier's guess that Keras traces such a method is not made. Twins: a `fit`, a `tf.function`
or a functional build in the modules joined to it by imports (analysed or only read), keep it."""

from __future__ import annotations

from rulecases import check_project

MODELS = """
    import tensorflow as tf


    class Inception(tf.keras.Model):
        def __init__(self):
            super().__init__()
            self.dense = tf.keras.layers.Dense(1)
            self.vol_enabled = False

        def enable(self, on):
            self.vol_enabled = on

        def call(self, x):
            print("shapes", x.shape)
            if self.vol_enabled:
                return self.dense(x) * 2
            return self.dense(x)
"""

EAGER_TRAINING = """
    import tensorflow as tf
    from models import Inception


    def train_step(model, x, y, optimizer):
        # the tf.function decorator is left out on purpose
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean((model(x) - y) ** 2)
        optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))
        return loss


    model = Inception()
    optimizer = tf.keras.optimizers.Adam()
    for epoch in range(3):
        train_step(model, tf.ones([4, 3]), tf.ones([4, 1]), optimizer)
    model.enable(True)
"""


def _codes(tmp_path, files):
    return sorted((f.path.replace("\\", "/").rsplit("/", 1)[-1], f.line, f.code)
                  for f in check_project(tmp_path, files, preview=True))


def test_a_model_only_eager_loops_call_with_nothing_staged_near_it_is_in_no_preview_finding(tmp_path):
    assert _codes(tmp_path, {"lib/models.py": MODELS, "lib/train.py": EAGER_TRAINING}) == []


def test_a_commented_out_fit_stages_nothing(tmp_path):
    files = {"lib/models.py": MODELS, "lib/train.py": EAGER_TRAINING + "    # model.fit(x, y)\n"}
    assert _codes(tmp_path, files) == []


KEPT = [("models.py", 14, "STG101"), ("models.py", 15, "STG302")]


def test_a_fit_in_a_module_joined_by_imports_keeps_the_guess(tmp_path):
    # `evaluate.py` is read only (no round analyses it): its spelling of `.evaluate(` counts
    files = {"lib/models.py": MODELS, "lib/train.py": EAGER_TRAINING, "lib/evaluate.py": """
        import numpy as np
        from models import Inception

        model = Inception()
        model.compile(loss="mse")
        print(model.evaluate(np.ones((4, 3)), np.ones((4, 1))))
    """}
    assert _codes(tmp_path, files) == KEPT


def test_a_tf_function_or_a_functional_build_near_it_keeps_the_guess(tmp_path):
    for near in ("""
        import tensorflow as tf

        @tf.function
        def normalise(x):
            return x / tf.reduce_max(x)
    """, """
        import tensorflow as tf

        inputs = tf.keras.Input(shape=(3,))
        head = tf.keras.Model(inputs, tf.keras.layers.Dense(1)(inputs))
    """):
        files = {"lib/models.py": MODELS, "lib/train.py": EAGER_TRAINING + "    import helpers\n", "lib/helpers.py": near}
        assert _codes(tmp_path, files) == KEPT


def test_a_fit_in_an_unrelated_part_of_the_project_leaves_it_out(tmp_path):
    files = {"lib/models.py": MODELS, "lib/train.py": EAGER_TRAINING, "other/fit_mnist.py": """
        import tensorflow as tf

        model = tf.keras.Sequential([tf.keras.layers.Dense(10)])
        model.fit(tf.ones([4, 3]), tf.ones([4, 10]))
    """}
    assert _codes(tmp_path, files) == []


def test_a_layer_library_nothing_near_it_trains_either_way_stays_a_guess(tmp_path):
    # no hand training shown: whoever imports the library may fit it (the preview tier's guess)
    files = {"lib/models.py": MODELS, "lib/use.py": """
        import tensorflow as tf
        from models import Inception

        model = Inception()
        print(model(tf.ones([4, 3])))
    """}
    assert _codes(tmp_path, files) == KEPT


def test_hand_training_inside_a_tf_function_is_staging_not_eager_training(tmp_path):
    files = {"lib/models.py": MODELS, "lib/train.py": EAGER_TRAINING.replace(
        "    def train_step(", "    @tf.function\n    def train_step(")}
    assert ("models.py", 14, "STG101") in _codes(tmp_path, files)
