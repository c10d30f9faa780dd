"""Issue 23, the fifteenth TensorFlow audit's held-back half (BF, read since): its two false classes as
the one Keras fact they follow, each with its negative twin. A Keras layer's `call` is traced where a
`tf.function`, Keras' own loops or a functional build call the layer; called by hand on eager tensors
it runs as Python; and a branch under a Python flag parameter is traced only with the values the
traced calls pass. Behaviour checked with TensorFlow 2.21 / Keras 3 in this venv
(tests/runtime/test_tf_keras_tracing_facts.py)."""

from __future__ import annotations

from rulecases import assert_tiers

DETECTOR = """
    import numpy as np
    import tensorflow as tf

    class RPNModule(tf.keras.Model):
        def __init__(self):
            super().__init__()
            self.head = tf.keras.layers.Conv2D(9, 1)

        def call(self, feature_map):
            print("feature shape:", feature_map.shape)  # {marker}
            return self.head(feature_map)

    class FasterRcnn(tf.keras.Model):
        def __init__(self):
            super().__init__()
            base = tf.keras.applications.VGG16(weights="imagenet")
            self.backbone = tf.keras.Model(inputs=base.input, outputs=base.get_layer("block5_conv3").output)
            self.rpnmodule = RPNModule()

        def call(self, inputs):
            features = self.backbone(inputs)
            return self.rpnmodule.call(features)

    def main():
        model = FasterRcnn()
        model.call(np.zeros((1, 224, 224, 3), "float32"))
"""


def test_a_model_whose_constructor_cuts_a_backbone_and_stores_a_head_shows_nothing_traced():
    """BF2, a Faster R-CNN port: `FasterRcnn.__init__` builds a functional model out of VGG16's
    input and stores `RPNModule()` for its `call`, which calls it by hand (`self.rpnmodule.call`);
    eager `main()` calls `model.call(x)`; no tf.function, fit, predict or evaluate anywhere. The
    functional build calls nothing of the stored module, so it shows nothing of `RPNModule.call`
    being traced: the print is preview (the code shows no tracing), not a default finding."""
    assert_tiers(DETECTOR.format(marker="preview STG101"))


def test_the_same_model_under_fit_or_a_tf_function_or_called_on_keras_input_is_traced():
    """BF2's twins: `fit` runs the model, a tf.function calls it, or the constructor calls the stored
    module on a symbolic input: `RPNModule.call` is traced, the print runs once per trace."""
    fit = DETECTOR + "        model.compile('sgd', 'mse')\n        model.fit(np.zeros((1, 224, 224, 3)), np.zeros((1, 1)))\n"
    assert_tiers(fit.format(marker="STG101"))
    traced = DETECTOR + "\n    net = FasterRcnn()\n\n    @tf.function\n    def step(x):\n        return net(x)\n"
    assert_tiers(traced.format(marker="STG101"))
    symbolic = DETECTOR.replace(
        "            self.rpnmodule = RPNModule()\n",
        "            self.rpnmodule = RPNModule()\n            self.probe = self.rpnmodule(tf.keras.Input((14, 14, 512)))\n")
    assert_tiers(symbolic.format(marker="STG101"))


QUEUE = """
    import numpy as np
    import tensorflow as tf

    class Conv1D(tf.keras.layers.Conv1D):
        def __init__(self, filters, kernel_size, **kwargs):
            super().__init__(filters, kernel_size, padding="causal")
            self.queue = tf.zeros([1, kernel_size, filters])

        def call(self, inputs, is_synthesis=False):
            if not is_synthesis:
                return super().call(inputs)
            self.queue = tf.concat([self.queue[:, 1:, :], inputs[:, -1:, :]], axis=1)  # {marker}
            return self.queue

    class Block(tf.keras.Model):
        def __init__(self):
            super().__init__()
            self.conv = Conv1D(4, 3)

        @tf.function
        def call(self, inputs, c):
            return self.conv(inputs) + c

        def synthesis_feed(self, inputs):
            return self.conv(inputs, is_synthesis=True)

    class WaveNet(tf.keras.Model):
        def __init__(self):
            super().__init__()
            self.blocks = [Block() for _ in range(3)]

        @tf.function
        def call(self, inputs, c):
            for block in self.blocks:
                inputs = block(inputs, c)
            return inputs

        def synthesis(self, x, steps):
            outputs = []
            for _ in range(steps):
                for block in self.blocks:
                    x = block.synthesis_feed(x)
                outputs.append(x.numpy())
            return np.array(outputs)
"""


def test_a_layer_flag_only_eager_calls_pass_by_name_makes_its_branch_a_guess():
    """BF1, a WaveNet port: `Conv1D.call` stores `self.queue` only under `is_synthesis=True`, which
    only the eager `synthesis_feed` (called from the eager `synthesis` loop, `.numpy()` on every
    output) passes; the traced `call`s call the layer with the default False. A traced call of an
    object whose class the code does not show (`block(inputs, c)`) passes two positional arguments,
    so that no trace passes it True is a guess: the preview tier."""
    assert_tiers(QUEUE.format(marker="preview STG201"))


def test_the_same_flag_passed_true_by_traced_code_is_traced():
    """BF1's twin: a traced method passes `is_synthesis=True`: the branch is traced and the stored
    tensor is symbolic (the runtime twin shows it)."""
    traced = QUEUE.replace("        def synthesis_feed(self, inputs):", "        @tf.function\n        def synthesis_feed(self, inputs):")
    assert_tiers(traced.format(marker="STG201"))
