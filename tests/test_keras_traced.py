""""Keras traces this method" is a fact only where the code shows it (issue 23, certainty).

A Keras layer's `call` (a model's step method) is staged code for certain when the code shows
what traces it (`frameworks.KERAS_LOOP_STEPS`, observed in
tests/runtime/test_tf_keras_tracing_facts.py): a Keras loop running the model, traced code
calling or making the layer, a functional model built on it, a `Sequential` holding it, the owner
of a sub-layer traced, the model saved. Otherwise the finding goes to the preview tier, its proof
saying why. Each way of being shown has its negative twin here, where the code does not show it.
"""

from __future__ import annotations

from conftest import findings
from stagelint.config import Settings

LAYER = """
import tensorflow as tf
from tensorflow import keras


class Noisy(keras.layers.Layer):
    def call(self, x):
        print("tracing", x)
        return x * 2.0

"""
PRINT_LINE = LAYER.lstrip("\n").splitlines().index("        print(\"tracing\", x)") + 1


def tier(source: str) -> str:
    """"default", "preview" or "none": where the `print` in `Noisy.call` is reported."""
    source = LAYER + source
    for preview in (False, True):
        if any(f.line == PRINT_LINE and f.code == "STG101" for f in findings(source, settings=Settings(preview=preview))):
            return "preview" if preview else "default"
    return "none"


def proof(source: str) -> list[str]:
    found = [f for f in findings(LAYER + source, settings=Settings(preview=True)) if f.line == PRINT_LINE]
    assert found
    return [b.message for b in found[0].because]


# Not shown: defined only, or called directly on eager tensors ----------------------------------------

def test_a_layer_nothing_uses_is_preview_with_its_reason():
    assert tier("") == "preview"
    (first, *_) = proof("")
    assert "the code shows none of these for it" in first and "preview" in first


def test_a_layer_called_directly_on_eager_tensors_is_preview():
    assert tier("layer = Noisy()\nlayer(tf.ones([2]))\n") == "preview"


# A Keras loop runs it ------------------------------------------------------------------------------------

MODEL = """
class Net(keras.Model):
    def __init__(self):
        super().__init__()
        self.noisy = Noisy()

    def call(self, x):
        return self.noisy(x)

"""


def test_a_model_fit_traces_its_sub_layers_call():
    assert tier(MODEL + "net = Net()\nnet.compile('sgd', 'mse')\nnet.fit(tf.ones([4, 2]), tf.ones([4, 2]))\n") == "default"
    assert any("run by `fit`" in m or "sub-layer of `Net`" in m
               for m in proof(MODEL + "net = Net()\nnet.fit(tf.ones([4, 2]), tf.ones([4, 2]))\n"))


def test_a_model_only_called_eagerly_leaves_its_sub_layer_preview():
    assert tier(MODEL + "net = Net()\nnet(tf.ones([4, 2]))\n") == "preview"


def test_a_trained_subclass_shows_the_inherited_call():
    source = "class Louder(Noisy):\n    pass\n\nm = keras.Sequential([keras.layers.Dense(2)])\nnet = Louder()\nnet.fit([1], [1])\n"
    assert tier(source) == "default"
    assert tier(source.replace("net.fit([1], [1])", "net([1.0])")) == "preview"


# Traced code calls or makes it -----------------------------------------------------------------------

def test_a_layer_called_inside_a_tf_function_is_traced():
    source = "layer = Noisy()\n\n@tf.function\ndef step(x):\n    return layer(x)\n"
    assert tier(source) == "default"
    assert tier(source.replace("@tf.function\n", "")) == "preview"


def test_a_layer_made_and_called_in_traced_code_is_traced():
    source = "@tf.function\ndef step(x):\n    return Noisy()(x)\n"
    assert tier(source) == "default"
    assert tier(source.replace("@tf.function\n", "")) == "preview"


# Symbolic inputs: a functional model, a Sequential ------------------------------------------------

def test_a_layer_called_on_keras_input_is_traced():
    source = "def build():\n    inputs = keras.Input((2,))\n    return keras.Model(inputs, Noisy()(inputs))\n"
    assert tier(source) == "default"
    assert tier("def build(x):\n    return Noisy()(x)\n") == "preview"


def test_a_functional_model_subclass_traces_the_layers_its_constructor_calls():
    source = """
class Head(keras.Model):
    def __init__(self, network, **kwargs):
        outputs = Noisy()(network.outputs[0])
        super().__init__(inputs=network.inputs, outputs=outputs, **kwargs)
"""
    assert tier(source) == "default"
    assert tier(source.replace("inputs=network.inputs, outputs=outputs, ", "")) == "preview"


def test_a_layer_given_to_a_functional_model_is_its_sub_layer():
    source = """
class Head(keras.Model):
    def __init__(self, network, head, **kwargs):
        outputs = head(network.outputs[0])
        super().__init__(inputs=network.inputs, outputs=outputs, **kwargs)

def build(network):
    head = Noisy()
    return Head(network, head)
"""
    assert tier(source) == "default"
    assert tier(source.replace("return Head(network, head)", "return print(network, head)")) == "preview"


DETECTOR = """
class Detector(keras.Model):
    def __init__(self):
        super().__init__()
        base = keras.applications.VGG16(weights=None)
        self.backbone = keras.Model(inputs=base.input, outputs=base.get_layer("block5_conv3").output)
        self.noisy = Noisy()

    def call(self, x):
        return self.noisy.call(self.backbone(x))

def main():
    detector = Detector()
    detector.call(tf.ones([1, 224, 224, 3]))
"""


def test_a_layer_a_functional_constructor_stores_without_calling_is_not_shown_traced_by_it():
    # the constructor builds a functional model (a backbone cut out of VGG16's input) and stores
    # the layer for `call`, which eager code runs by hand: nothing traces it (the runtime twin in
    # tests/runtime/test_tf_keras_tracing_facts.py)
    assert tier(DETECTOR) == "preview"
    assert any("the code shows none of these for it" in m for m in proof(DETECTOR))
    # the same constructor calling the stored layer on the symbolic input, or on itself
    called = DETECTOR.replace("        self.noisy = Noisy()\n",
                              "        self.noisy = Noisy()\n        self.probe = self.noisy(keras.Input((2,)))\n")
    assert tier(called) == "default"
    own_call = DETECTOR.replace("        self.noisy = Noisy()\n",
                                "        self.noisy = Noisy()\n        self.out = self(keras.Input((224, 224, 3)))\n")
    assert tier(own_call) == "default"
    # or a Keras loop, or a tf.function, running the model
    assert tier(DETECTOR + "    detector.fit(tf.ones([1, 224, 224, 3]), tf.ones([1, 1]))\n") == "default"
    assert tier(DETECTOR + "\nnet = Detector()\n\n@tf.function\ndef step(x):\n    return net(x)\n") == "default"


def test_an_entry_of_a_sequential_is_traced():
    assert tier("model = keras.Sequential([Noisy(), keras.layers.Dense(1)])\n") == "default"
    assert tier("layers = [Noisy(), keras.layers.Dense(1)]\n") == "preview"


# Sub-layers ------------------------------------------------------------------------------------------------

OWNER = """
class Block(keras.layers.Layer):
    def __init__(self):
        super().__init__()
        self.inner = Noisy()

    def call(self, x):
        return self.inner(x)

"""


def test_a_sub_layer_of_a_traced_layer_is_traced():
    assert tier(OWNER + "block = Block()\n\n@tf.function\ndef step(x):\n    return block(x)\n") == "default"
    assert tier(OWNER + "block = Block()\nblock(tf.ones([2]))\n") == "preview"


# Saved, and the step methods ----------------------------------------------------------------------------

def test_a_saved_model_is_traced():
    source = MODEL + "net = Net()\nnet(tf.ones([1, 2]))\ntf.saved_model.save(net, '/tmp/net')\n"
    assert tier(source) == "default"
    assert tier(source.replace("tf.saved_model.save(net, '/tmp/net')", "net.save_weights('/tmp/net.weights.h5')")) \
        == "preview"


STEP = """
class Stepper(keras.Model):
    def call(self, x):
        return x

    def test_step(self, data):
        print("test step", data)
        return {}

"""


def _step_tier(source: str) -> str:
    line = next(i for i, text in enumerate(source.lstrip("\n").splitlines(), 1) if 'print("test step"' in text)
    for preview in (False, True):
        if any(f.line == line and f.code == "STG101" for f in findings(source, settings=Settings(preview=preview))):
            return "preview" if preview else "default"
    return "none"


def test_test_step_is_traced_under_evaluate_or_a_validating_fit_only():
    head = LAYER + STEP + "model = Stepper()\nmodel.compile('sgd', 'mse')\n"
    assert _step_tier(head + "model.evaluate([1], [1])\n") == "default"
    assert _step_tier(head + "model.fit([1], [1], validation_data=([1], [1]))\n") == "default"
    assert _step_tier(head + "model.fit([1], [1])\n") == "preview"


def test_a_step_method_the_class_calls_from_its_own_fit_is_preview():
    own_fit = STEP.replace("    def test_step", "    def fit(self, data, epochs=1):\n        for batch in data:\n"
                           "            self.test_step(batch)\n\n    def test_step")
    source = LAYER + own_fit + "model = Stepper()\nmodel.fit([1])\n"
    assert _step_tier(source) == "preview"
    # Keras's own `fit` given validation data runs it traced
    assert _step_tier(LAYER + STEP + "model = Stepper()\nmodel.fit([1], validation_split=0.5)\n") == "default"
