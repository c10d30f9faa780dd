"""Keras models built only on symbolic inputs by code that runs none of them under a Function
(`staging.Project.keras_function_unshown`): the nineteenth TensorFlow audit's BV-t1, a Transformer whose
`EncoderNetwork.call` / `DecoderNetwork.call` make `Dropout` and `LayerNormalization` layers on
every call; `Encoder()()` builds a functional model of them on `keras.Input` and returns it, and
nothing in the project fits, predicts, evaluates, saves or `tf.function`s a model, nor trains one
by hand. A symbolic build runs `call` on symbolic tensors and traces nothing again
(`frameworks.KERAS_SYMBOLIC_BUILDS`, TF 2.21 / Keras 3: tests/runtime/test_tf_keras_symbolic_build_facts.py):
STG402's ValueError needs a Function running the built model, which only code outside the project
could write, so the finding is a guess (preview). Twins: a `model.fit`, a `tf.function` calling the
model, a Keras `train_step` beside it, a file no round analysed spelling `.fit(`: reported."""

from __future__ import annotations

from rulecases import check_project

LAYERS = """
    import tensorflow as tf
    from tensorflow.keras.layers import Dense, Dropout, Input, LayerNormalization
    from tensorflow.keras.models import Model


    class EncoderNetwork(Model):
        def __init__(self, d_model=8, name="encoder"):
            super().__init__(name=name)
            self.feed_forward = Dense(units=d_model)

        def call(self, input, masking):
            feed_forward = Dropout(rate=0.1)(self.feed_forward(input))
            return LayerNormalization()(input + feed_forward)


    class Encoder:
        def __init__(self, num_encoders=2, d_model=8):
            self.num_encoders = num_encoders
            self.d_model = d_model

        def __call__(self):
            input = Input(shape=(None, self.d_model))
            masking = Input(shape=(1, 1, None))
            output = input
            for i in range(self.num_encoders):
                output = EncoderNetwork(d_model=self.d_model, name=f"encoder_{i + 1}")(output, masking)
            return Model(inputs=[input, masking], outputs=output)
"""

# a module building the whole model from the encoder, as rpycgo's transformer.py does: it spells no
# staging, so no round analyses it (its `Input(` and `Model(` are read from its bytes)
BUILDER = """
    from tensorflow.keras.layers import Dense, Input
    from tensorflow.keras.models import Model

    from .layers import Encoder


    class Transformer:
        def __init__(self, d_model=8):
            self.encoder = Encoder(d_model=d_model)()

        def __call__(self):
            tokens = Input(shape=(None, 8))
            masking = Input(shape=(1, 1, None))
            return Model(inputs=[tokens, masking], outputs=Dense(4)(self.encoder([tokens, masking])))
"""

FOUND = [("layers.py", 12, "STG402"), ("layers.py", 13, "STG402")]


def _codes(tmp_path, files, preview=False):
    return sorted((f.path.replace("\\", "/").rsplit("/", 1)[-1], f.line, f.code)
                  for f in check_project(tmp_path, files, preview=preview) if f.code == "STG402")


def _project(**more):
    return {"pkg/__init__.py": "", "pkg/layers.py": LAYERS, "pkg/transformer.py": BUILDER, **more}


def test_a_model_built_on_keras_input_that_nothing_runs_is_a_guess(tmp_path):
    assert _codes(tmp_path, _project()) == []
    found = check_project(tmp_path, _project(), preview=True)
    assert sorted((f.path.replace("\\", "/").rsplit("/", 1)[-1], f.line, f.code) for f in found) == FOUND
    assert all("nothing in the code shows a Function running" in " ".join(n.message for n in f.because) for f in found)


def test_a_built_model_called_eagerly_only_is_a_guess(tmp_path):
    used = """
        import numpy as np
        from .transformer import Transformer

        model = Transformer()()
        print(model([np.ones((1, 3, 8), "float32"), np.ones((1, 1, 1, 3), "float32")]))
    """
    assert _codes(tmp_path, _project(**{"pkg/use.py": used})) == []
    assert _codes(tmp_path, _project(**{"pkg/use.py": used}), preview=True) == FOUND


def test_a_fit_of_the_built_model_keeps_it(tmp_path):
    train = """
        from .transformer import Transformer

        def train(x, y):
            model = Transformer()()
            model.compile(loss="mse", optimizer="adam")
            model.fit(x, y)
    """
    assert _codes(tmp_path, _project(**{"pkg/train.py": train})) == FOUND


def test_a_fit_in_a_file_no_round_reads_keeps_it(tmp_path):
    # the file spells no staging (no round analyses it); `.fit(` read from its bytes is a Keras loop
    fitting = BUILDER + """

    def train(x, y):
        model = Transformer()()
        model.compile(loss="mse", optimizer="adam")
        model.fit(x, y)
"""
    assert _codes(tmp_path, _project(**{"pkg/transformer.py": fitting})) == FOUND


def test_a_tf_function_calling_the_model_keeps_it(tmp_path):
    serve = """
        import tensorflow as tf
        from .transformer import Transformer

        model = Transformer()()

        @tf.function
        def serve(tokens, masking):
            return model([tokens, masking])
    """
    assert _codes(tmp_path, _project(**{"pkg/serve.py": serve})) == FOUND


def test_a_keras_train_step_beside_it_keeps_it(tmp_path):
    # a `train_step` is written for `fit`, which traces it, and the model it calls, in a Function
    trainer = """
        import tensorflow as tf
        from .transformer import Transformer


        class Trainer(tf.keras.Model):
            def __init__(self):
                super().__init__()
                self.model = Transformer()()

            def train_step(self, data):
                x, y = data
                with tf.GradientTape() as tape:
                    loss = tf.reduce_mean((self.model(x) - y) ** 2)
                return {"loss": loss}
    """
    assert _codes(tmp_path, _project(**{"pkg/trainer.py": trainer})) == FOUND
