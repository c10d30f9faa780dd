"""The seventeenth TensorFlow audit's held-back half BN, preview class BN-P3 (mchlsdrv/qanet): a
factory builds the model and compiles it with `run_eagerly=True`, a trainer taking the model as a
parameter calls `fit` / `evaluate`. Keras's loops need a compiled model and run `train_step` /
`test_step` as Python when its compile said `run_eagerly=True` (`frameworks.KERAS_COMPILED_STEPS`,
tests/runtime/test_tf_keras_compile_facts.py): where every compile in the project that may be of
an object of the class says so, nothing traces its steps, on whatever name the object reaches
`fit`. The twins: a compile without it that may be of the class (an object of unknown class, a
subclass), `run_eagerly` assigned, a compile in a file no round reads."""

from __future__ import annotations

from rulecases import assert_project_marked

MODELS = """
    import tensorflow as tf

    class Counting(tf.keras.Model):
        def __init__(self):
            super().__init__()
            self.dense = tf.keras.layers.Dense(1)
            self.steps = 0

        def call(self, x):
            return self.dense(x)

        def train_step(self, data):
            self.steps += 1{m1}
            print("train step", self.steps){m2}
            return super().train_step(data)

        def test_step(self, data):
            print("test step"){m3}
            return super().test_step(data)
"""

UTILS = """
    import re

    from proj.models import Counting

    PATTERN = re.compile(r"[0-9]+")

    def get_model():
        model = Counting()
        model.compile(optimizer="sgd", loss="mse", run_eagerly=True)
        return model, False

    def train(model, data):
        model.fit(data, epochs=2)
        model.evaluate(data)
"""

MAIN = """
    from proj.utils import get_model, train

    model, _ = get_model()
    train(model, None)
"""


def _models(marked: bool) -> str:
    if not marked:
        return MODELS.format(m1="", m2="", m3="")
    return MODELS.format(m1="  # STG102", m2="  # STG101", m3="  # STG101")


def _files(marked: bool, **extra) -> dict[str, str]:
    files = {"proj/__init__.py": "", "proj/models.py": _models(marked), "proj/utils.py": UTILS,
             "proj/main.py": MAIN}
    files.update(extra)
    return files


def test_steps_of_a_class_compiled_only_with_run_eagerly_are_in_no_trace(tmp_path):
    assert_project_marked(tmp_path, _files(False), preview=True)


def test_a_compile_of_another_project_not_joined_by_imports_changes_nothing(tmp_path):
    other = """
        def retrain(model, data):
            model.compile(optimizer="adam", loss="mse")
            model.fit(data)
    """
    assert_project_marked(tmp_path, _files(False, **{"other/__init__.py": "", "other/retrain.py": other}),
                          preview=True)


def test_a_compile_without_run_eagerly_of_an_object_of_unknown_class_keeps_them(tmp_path):
    utils = UTILS + """
    def retrain(model, data):
        model.compile(optimizer="adam", loss="mse")
        model.fit(data)
"""
    assert_project_marked(tmp_path, _files(True, **{"proj/utils.py": utils}), preview=True)


def test_a_subclass_compiled_without_run_eagerly_keeps_them(tmp_path):
    utils = UTILS + """
    class Sub(Counting):
        pass

    def other(data):
        sub = Sub()
        sub.compile(optimizer="adam", loss="mse")
        sub.fit(data)
"""
    assert_project_marked(tmp_path, _files(True, **{"proj/utils.py": utils}), preview=True)


def test_run_eagerly_assigned_keeps_them(tmp_path):
    utils = UTILS.replace("model.fit(data, epochs=2)", "model.run_eagerly = False\n        model.fit(data, epochs=2)")
    assert_project_marked(tmp_path, _files(True, **{"proj/utils.py": utils}), preview=True)


def test_a_compile_spelled_where_no_round_reads_keeps_them(tmp_path):
    script = """
        from proj.utils import get_model

        def recompile():
            model, _ = get_model()
            model.compile(optimizer="adam", loss="mse")
            return model
    """
    assert_project_marked(tmp_path, _files(True, **{"proj/script.py": script}), preview=True)


def test_run_eagerly_from_a_flag_keeps_them(tmp_path):
    utils = UTILS.replace("run_eagerly=True", "run_eagerly=debug").replace("def get_model():", "def get_model(debug=False):")
    assert_project_marked(tmp_path, _files(True, **{"proj/utils.py": utils}), preview=True)


GAN = """
    import tensorflow as tf

    class Gan(tf.keras.Model):
        def __init__(self):
            super().__init__()
            self.dense = tf.keras.layers.Dense(1)
            self.steps = 0

        def compile(self, g_opt, d_opt, **kwargs):
            {body}
            self.g_opt, self.d_opt = g_opt, d_opt

        def call(self, x):
            return self.dense(x)

        def test_step(self, data):
            self.steps += 1{mark}
            return {{}}

    def make():
        gan = Gan()
        gan.compile(tf.keras.optimizers.Adam(), tf.keras.optimizers.Adam(), run_eagerly=True)
        return gan

    def train(model):
        model.fit(tf.ones([4, 2]), tf.ones([4, 1]), validation_data=(tf.ones([4, 2]), tf.ones([4, 1])))

    train(make())
"""


def test_a_compile_override_forwarding_its_keywords_passes_run_eagerly_on(tmp_path):
    """dmmagdal's HiFi-GAN port: `def compile(self, optim_g, ..., **kwargs): super().compile(**kwargs)`,
    called with `run_eagerly=True`: Python hands Keras's compile the caller's keywords."""
    files = {"gan/__init__.py": "", "gan/model.py": GAN.format(body="super().compile(**kwargs)", mark="")}
    assert_project_marked(tmp_path, files, preview=True)


def test_a_compile_override_changing_its_keywords_keeps_them(tmp_path):
    body = 'kwargs.pop("run_eagerly", None)\n            super().compile(**kwargs)'
    files = {"gan/__init__.py": "", "gan/model.py": GAN.format(body=body, mark="  # STG102")}
    assert_project_marked(tmp_path, files, preview=True)
