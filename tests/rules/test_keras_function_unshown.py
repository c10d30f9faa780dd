"""STG402's "a Function traces this Keras method" known only where a Function is shown running an
object of its class (`staging.Project.function_reached`, `keras_function_unshown`): a layer whose
`call` makes `Dense` and `Dropout` on every call, built only into a functional model on
`keras.Input`, in a module that also stages something unrelated (a `@tf.function` scaling a
tensor). The symbolic build runs `call` once, outside any Function that traces again, and the
unrelated Function never runs the layer (TF 2.21 / Keras 3:
tests/runtime/test_tf_keras_symbolic_build_facts.py): that a Function ever traces it is a guess
(preview, with the step in `because`). Twins, still reported: the built model fitted, called by a
`tf.function`, the layer called by a Keras `train_step`, made in a `tf.function`'s own body."""

from __future__ import annotations

from rulecases import check_project

BLOCK = """
    import tensorflow as tf
    from tensorflow.keras import layers


    class Block(layers.Layer):
        def call(self, x):
            y = layers.Dense(4)(x)
            return layers.Dropout(0.1)(y)


    def build():
        inp = tf.keras.Input((8,))
        return tf.keras.Model(inp, Block()(inp))


    @tf.function
    def scale(x):
        return x * 2.0
"""

FOUND = [("model.py", 7, "STG402"), ("model.py", 8, "STG402")]


def _codes(tmp_path, source, preview=False, **more):
    files = {"pkg/__init__.py": "", "pkg/model.py": source, **more}
    return sorted((f.path.replace("\\", "/").rsplit("/", 1)[-1], f.line, f.code)
                  for f in check_project(tmp_path, files, preview=preview) if f.code == "STG402")


def test_a_layer_only_a_symbolic_build_runs_beside_an_unrelated_function_is_a_guess(tmp_path):
    assert _codes(tmp_path, BLOCK) == []
    found = [f for f in check_project(tmp_path, {"pkg/__init__.py": "", "pkg/model.py": BLOCK}, preview=True)
             if f.code == "STG402"]
    assert sorted((f.path.replace("\\", "/").rsplit("/", 1)[-1], f.line, f.code) for f in found) == FOUND
    assert all("nothing in the code shows a Function running `Block.call`" in " ".join(n.message for n in f.because)
               for f in found)


def test_a_fit_of_a_model_of_another_class_is_no_function_running_it(tmp_path):
    other = BLOCK + """

    class Other(tf.keras.Model):
        def __init__(self):
            super().__init__()
            self.dense = layers.Dense(1)

        def call(self, x):
            return self.dense(x)


    def train(x, y):
        model = Other()
        model.compile(loss="mse", optimizer="sgd")
        model.fit(x, y)
"""
    assert _codes(tmp_path, other) == []
    assert _codes(tmp_path, other, preview=True) == FOUND


def test_a_fit_of_the_built_model_keeps_it(tmp_path):
    assert _codes(tmp_path, BLOCK + """

    def train(x, y):
        build().fit(x, y)
""") == FOUND


def test_a_fit_of_the_built_model_in_another_module_keeps_it(tmp_path):
    train = """
        from .model import build

        def train(x, y):
            model = build()
            model.compile(loss="mse", optimizer="sgd")
            model.fit(x, y)
    """
    assert _codes(tmp_path, BLOCK, **{"pkg/train.py": train}) == FOUND


def test_a_tf_function_calling_the_built_model_keeps_it(tmp_path):
    assert _codes(tmp_path, BLOCK + """

    model = build()


    @tf.function
    def serve(x):
        return model(x)
""") == FOUND


def test_a_keras_train_step_calling_the_layer_keeps_it(tmp_path):
    assert _codes(tmp_path, BLOCK + """

    class Trainer(tf.keras.Model):
        def __init__(self):
            super().__init__()
            self.block = Block()
            self.head = layers.Dense(1)

        def train_step(self, data):
            x, y = data
            return {"loss": tf.reduce_mean((self.head(self.block(x)) - y) ** 2)}
""") == FOUND


def test_a_layer_made_in_a_tf_function_body_keeps_it(tmp_path):
    assert _codes(tmp_path, BLOCK + """

    @tf.function
    def step(x):
        return Block()(x)
""") == FOUND


def test_a_fit_of_a_functional_subclass_building_the_layer_keeps_it(tmp_path):
    # the fitted object's class makes the layer in the functional build of its own constructor
    assert _codes(tmp_path, BLOCK + """

    class Net(tf.keras.Model):
        def __init__(self):
            inp = tf.keras.Input((8,))
            super().__init__(inp, Block()(inp))


    def train(x, y):
        Net().fit(x, y)
""") == FOUND


def test_a_fit_of_a_sequential_holding_the_layer_keeps_it(tmp_path):
    assert _codes(tmp_path, BLOCK + """

    def train(x, y):
        model = tf.keras.Sequential([Block()])
        model.fit(x, y)
""") == FOUND
