"""Keras layers built only on symbolic inputs, then called by hand (`staging.Project.keras_built_only_here`):
the eighteenth TensorFlow audit's BR1, a CycleGAN whose `InstanceNorm.call` makes `tf.Variable`s and
whose `ResNetBlock.call` makes `Conv2D`s on every call; the generator and discriminator are functional
models built on `keras.Input` and trained in eager GradientTape loops, with no `tf.function`, `fit`,
`predict`, `evaluate` or save anywhere. The functional build (or a `Sequential`) runs `call` once and
makes no `tf.function` (`frameworks.KERAS_SYMBOLIC_BUILDS`, TF 2.21 / Keras 3:
tests/runtime/test_tf_keras_symbolic_build_facts.py): STG402's ValueError on a second trace never
happens. Twins: a `@tf.function` training step calling the model, a `model.fit`, keep STG402; a part
that does not train by hand (a user may fit the model) keeps it in the preview tier."""

from __future__ import annotations

from rulecases import check_project

LAYERS = """
    import numpy as np
    import tensorflow as tf
    from tensorflow.keras import layers, Input, Model


    class InstanceNorm(layers.Layer):
        def call(self, x):
            scale = tf.Variable(np.ones(x.shape[-1:]), dtype=tf.float32)
            return x * scale


    class ResNetBlock(layers.Layer):
        def call(self, x):
            return layers.Conv2D(4, 3, padding="same")(x) + x


    def build_generator():
        inputs = Input(shape=(8, 8, 4))
        outputs = ResNetBlock()(InstanceNorm()(inputs))
        return Model(inputs=inputs, outputs=outputs)
"""

LAYERS_SEQUENTIAL = LAYERS.replace("""        inputs = Input(shape=(8, 8, 4))
        outputs = ResNetBlock()(InstanceNorm()(inputs))
        return Model(inputs=inputs, outputs=outputs)""", """        return tf.keras.Sequential([InstanceNorm(), ResNetBlock()])""")

TRAINING = """
    import tensorflow as tf
    from module import build_generator


    class CycleGAN:
        def __init__(self):
            self.generator = build_generator()
            self.optimizer = tf.keras.optimizers.Adam()

        def train(self, batches):
            for x in batches:
                with tf.GradientTape() as tape:
                    loss = tf.reduce_mean(self.generator(x, training=True))
                grads = tape.gradient(loss, self.generator.trainable_variables)
                self.optimizer.apply_gradients(zip(grads, self.generator.trainable_variables))
"""

FOUND = [("module.py", 8, "STG402"), ("module.py", 14, "STG402")]


def _codes(tmp_path, files, preview=False):
    return sorted((f.path.replace("\\", "/").rsplit("/", 1)[-1], f.line, f.code)
                  for f in check_project(tmp_path, files, preview=preview) if f.code == "STG402")


def test_layers_built_on_keras_input_and_trained_by_hand_make_no_variable_finding(tmp_path):
    files = {"lib/module.py": LAYERS, "lib/model.py": TRAINING}
    assert _codes(tmp_path, files) == []
    assert _codes(tmp_path, files, preview=True) == []


def test_entries_of_a_sequential_trained_by_hand_make_no_variable_finding(tmp_path):
    assert _codes(tmp_path, {"lib/module.py": LAYERS_SEQUENTIAL, "lib/model.py": TRAINING}) == []


def test_a_tf_function_training_step_calling_the_model_keeps_it(tmp_path):
    traced = TRAINING.replace("        def train(self, batches):\n            for x in batches:\n",
                              "        def train(self, batches):\n            for x in batches:\n"
                              "                self.step(x)\n\n"
                              "        @tf.function\n        def step(self, x):\n            if True:\n")
    assert "@tf.function" in traced
    assert _codes(tmp_path, {"lib/module.py": LAYERS, "lib/model.py": traced}) == FOUND


def test_a_fit_of_the_built_model_keeps_it(tmp_path):
    fitted = TRAINING + """
        def fit(self, x, y):
            self.generator.compile(loss="mse")
            self.generator.fit(x, y)
"""
    assert _codes(tmp_path, {"lib/module.py": LAYERS, "lib/model.py": fitted}) == FOUND
    assert _codes(tmp_path, {"lib/module.py": LAYERS_SEQUENTIAL, "lib/model.py": fitted}) == FOUND


def test_a_built_model_nothing_near_trains_or_runs_is_a_guess(tmp_path):
    # a layer library: whoever imports it may fit the models it builds, which nothing here shows
    # (`Project.keras_function_unshown`, tests/rules/test_keras_built_unrun.py): the preview tier
    used = """
        import tensorflow as tf
        from module import build_generator

        print(build_generator()(tf.ones([1, 8, 8, 4])))
    """
    assert _codes(tmp_path, {"lib/module.py": LAYERS, "lib/use.py": used}) == []
    assert _codes(tmp_path, {"lib/module.py": LAYERS, "lib/use.py": used}, preview=True) == FOUND
