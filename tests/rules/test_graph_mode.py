"""TensorFlow 1 graph mode (`analysis.eagerswitch.graph_classes`): the sixteenth TensorFlow audit's
BJ-P1, a GUI-testing agent pinned to tensorflow==1.15 whose program calls `tf.disable_v2_behavior()`
and whose Keras logging layer stores the tensors it makes on itself. With eager execution off a
layer called while the default graph is built runs its `call` once, on graph tensors that stay
valid for every `Session.run`, and no Keras loop makes a Function of it; a `tf.function` still
traces (TF 2.21, tests/runtime/test_tf_graph_mode_facts.py). Each positive case has its negative
twin: a TF 2 project with a stray switch in an unrelated script, a switch below the program's
first call, eager execution turned back on, a layer a `tf.function` calls."""

from __future__ import annotations

from rulecases import assert_marked, check_project

LOGGER = """
    import tensorflow as tf
    from tensorflow import keras


    class BufferLogger(keras.layers.Layer):
        def call(self, inputs):
            self.last = tf.identity(inputs)
            print("logging", inputs)
            return self.last
"""


def _codes(tmp_path, files, preview=True):
    return sorted((f.path.replace("\\", "/").split("/", 1)[-1], f.line, f.code)
                  for f in check_project(tmp_path, files, preview))


def test_a_module_switching_to_graph_mode_above_its_layer_builds_it_in_no_trace():
    for switch in ("import tensorflow.compat.v1 as tf\ntf.disable_v2_behavior()",
                   "import tensorflow as tf\ntf.compat.v1.disable_eager_execution()"):
        assert_marked(switch + """
from tensorflow import keras


class BufferLogger(keras.layers.Layer):
    def call(self, inputs):
        self.last = tf.identity(inputs)
        print("logging", inputs)
        return self.last


x = tf.placeholder(tf.float32, [None]) if hasattr(tf, "placeholder") else None
model = keras.Sequential([BufferLogger()])
model.compile(optimizer="sgd", loss="mse")
model.fit(x)
""", preview=True)


def test_the_same_layer_without_the_switch_is_traced_by_fit():
    assert_marked("""
import tensorflow as tf
from tensorflow import keras


class BufferLogger(keras.layers.Layer):
    def call(self, inputs):
        self.last = tf.identity(inputs)  # STG201
        print("logging", inputs)  # STG101
        return self.last


model = keras.Sequential([BufferLogger()])
model.compile(optimizer="sgd", loss="mse")
model.fit(tf.ones([4, 1]))
""")


def test_a_tf_function_calling_the_layer_still_traces_it_in_graph_mode():
    assert_marked("""
import tensorflow.compat.v1 as tf
from tensorflow import keras

tf.disable_v2_behavior()


class BufferLogger(keras.layers.Layer):
    def call(self, inputs):
        self.last = tf.identity(inputs)  # STG201
        print("logging", inputs)  # STG101
        return self.last


logger = BufferLogger()


@tf.function
def step(x):
    return logger(x)
""")


def test_every_program_importing_the_layer_switching_leaves_it_out_of_the_preview_tier(tmp_path):
    # deep-gui's shape: the layer's module switches nothing; the one program importing it calls
    # TensorFlow 1's own `tf.disable_v2_behavior()` at module level, below its other calls
    files = {
        "src/tf_utils.py": LOGGER,
        "src/main.py": """
            import tensorflow as tf
            from tf_utils import BufferLogger

            CONFIG = dict(freq=10)
            print(CONFIG)

            class Agent:
                def build(self, x):
                    return BufferLogger()(x)

            tf.disable_v2_behavior()

            if __name__ == "__main__":
                Agent().build(tf.placeholder(tf.float32, [None]))
        """,
    }
    assert _codes(tmp_path, files) == []


def test_a_stray_switch_in_an_unrelated_script_leaves_the_preview_findings(tmp_path):
    # a TF 2 project: one script disables v2 behaviour but does not import the layer's module
    files = {
        "src/tf_utils.py": LOGGER,
        "src/main.py": """
            import tensorflow as tf
            from tf_utils import BufferLogger

            def run(x):
                return BufferLogger()(x)
        """,
        "src/convert_checkpoint.py": """
            import tensorflow as tf

            tf.compat.v1.disable_v2_behavior()
            print(tf.train.list_variables("ckpt"))
        """,
    }
    assert _codes(tmp_path, files) == [("tf_utils.py", 7, "STG201"), ("tf_utils.py", 8, "STG101")]


def test_a_compat_switch_below_the_programs_first_call_or_eager_turned_on_leaves_them(tmp_path):
    below = {
        "src/tf_utils.py": LOGGER,
        "src/main.py": """
            import tensorflow as tf
            from tf_utils import BufferLogger

            setup = print("setting up")
            tf.compat.v1.disable_eager_execution()
        """,
    }
    assert _codes(tmp_path, below) == [("tf_utils.py", 7, "STG201"), ("tf_utils.py", 8, "STG101")]
    on_again = {
        "src/tf_utils.py": LOGGER,
        "src/main.py": """
            import tensorflow as tf
            from tf_utils import BufferLogger

            tf.disable_v2_behavior()
        """,
        "src/debug.py": """
            import tensorflow as tf

            tf.enable_eager_execution()
        """,
    }
    assert _codes(tmp_path, on_again) == [("tf_utils.py", 7, "STG201"), ("tf_utils.py", 8, "STG101")]


def test_shown_by_fit_in_programs_switching_keeps_the_default_findings(tmp_path):
    # graph mode shown for the project's own programs only: what Keras's loop shows traced stays
    files = {
        "src/tf_utils.py": LOGGER,
        "src/main.py": """
            import tensorflow as tf
            from tf_utils import BufferLogger

            tf.compat.v1.disable_v2_behavior()
            model = tf.keras.Sequential([BufferLogger()])
            model.fit(tf.ones([4, 1]))
        """,
    }
    assert _codes(tmp_path, files, preview=False) == [("tf_utils.py", 7, "STG201"), ("tf_utils.py", 8, "STG101")]


# The nineteenth TF audit's BU-t4: code on multi-backend Keras (xueshengke/2D-PUPO: standalone
# Keras 2.2 on TensorFlow 1, `keras.engine.topology.Layer`, `keras.backend.tensorflow_backend`),
# TensorFlow 1 code importing `tensorflow.contrib` (fkong7/MeshDeformNet), and a module switching
# at its import beside switches in functions or a `try` (YizhouLu-Johnson/DRE_Eval).

MULTI_BACKEND_LAYER = """
    import tensorflow as tf
    {imports}


    class PMask2D({base}):
        def call(self, inputs):
            self.mask = tf.reshape(inputs, [-1]){marker201}
            return self.shift(inputs, [1, 2])

        def shift(self, x, axes):
            for axis in axes:{marker503}
                x = tf.roll(x, 1, axis)
            return x


    def network():
        x = keras.Input((8, 8))
        return keras.Model(x, PMask2D()(x))
"""


def _layer(imports, base, marked):
    return MULTI_BACKEND_LAYER.format(imports=imports.replace("\n", "\n    "), base=base, marker201="  # STG201" if marked else "",
                                      marker503="  # STG503" if marked else "")


def test_a_layer_on_multi_backend_keras_is_built_into_one_graph_in_no_trace():
    # `keras.engine.topology` exists only in multi-backend Keras (before 2.4): no tf.function there
    assert_marked(_layer("import keras\nfrom keras.engine.topology import Layer", "Layer", False), preview=True)
    # a module importing `keras.backend.tensorflow_backend` runs that Keras too
    assert_marked(_layer("import keras\nimport keras.backend.tensorflow_backend as KTF", "keras.layers.Layer", False),
                  preview=True)


def test_a_layer_on_keras_3_or_tf_keras_is_traced_by_the_functional_build():
    assert_marked(_layer("import keras", "keras.layers.Layer", True))
    # beside a multi-backend import, a tf.keras class is TensorFlow's own Keras, traced by Keras
    assert_marked(_layer("import keras\nimport keras.backend.tensorflow_backend as KTF\nfrom tensorflow import keras",
                         "keras.layers.Layer", True))


def test_a_module_importing_tensorflow_contrib_above_its_layer_runs_tensorflow_1_graphs(tmp_path):
    files = {
        "src/layers.py": """
            import tensorflow as tf
            import tensorflow.contrib as tfcontrib
            from tensorflow import keras


            class BufferLogger(keras.layers.Layer):
                def call(self, inputs):
                    self.last = tf.identity(inputs)
                    print("logging", inputs)
                    return self.last
        """,
    }
    assert _codes(tmp_path, files) == []


def test_a_contrib_import_tried_or_eager_turned_on_leaves_it(tmp_path):
    # tried: the program may run TensorFlow 2, where the import fails and eager execution is on
    tried = {"src/layers.py": LOGGER + "\n\n    try:\n        import tensorflow.contrib\n    except ImportError:\n        pass\n"}
    assert _codes(tmp_path, tried) == [("layers.py", 7, "STG201"), ("layers.py", 8, "STG101")]
    on_again = {"src/layers.py": LOGGER + "\n\n    import tensorflow.contrib\n\n    tf.enable_eager_execution()\n"}
    assert _codes(tmp_path, on_again) == [("layers.py", 7, "STG201"), ("layers.py", 8, "STG101")]


def test_switches_in_functions_or_a_try_elsewhere_leave_a_module_switching_at_its_import(tmp_path):
    files = {
        "src/keras_layers.py": """
            import tensorflow.compat.v1 as tf

            tf.disable_v2_behavior()
            from tensorflow.keras import layers as k_layers


            class SpectralDense(k_layers.Layer):
                def call(self, x):
                    self.spectral_norm = tf.reduce_max(x)
                    return x * self.spectral_norm
        """,
        "src/evaluate.py": """
            try:
                import tensorflow.compat.v1 as tf
                tf.disable_v2_behavior()
            except Exception:
                tf = None
        """,
        "src/methods.py": """
            def estimate():
                import tensorflow.compat.v1 as tf
                tf.disable_v2_behavior()
        """,
    }
    assert _codes(tmp_path, files) == []
    files["src/debug.py"] = """
        import tensorflow as tf

        tf.enable_eager_execution()
    """
    assert _codes(tmp_path, files) == [("keras_layers.py", 9, "STG201")]
