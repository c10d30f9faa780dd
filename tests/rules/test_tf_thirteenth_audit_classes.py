"""Issue 23, the thirteenth TensorFlow audit's fix-from half (AW): its false classes as the framework
facts they follow, each with its negative twin. Behaviour checked with TensorFlow 2.21 / Keras 3 in
this venv (tests/runtime/test_tf_thirteenth_audit_facts.py)."""

from __future__ import annotations

from rulecases import assert_marked, assert_tiers


def test_a_function_made_per_round_and_passed_a_new_model_each_round_costs_no_trace():
    """AW2, the lottery-ticket notebooks: `@tf.function train_one_step(model, ...)` is defined in
    the loop over pruning rounds, and each round makes a new model (a function of the file that
    returns a new `Sequential`, a Keras class of the file, `strip_pruning` of one) and passes it:
    a Function made once before the loop keys the model argument by identity and would trace
    once per round too, so the per-round Function costs nothing. The twin passes one model made
    before the loop every round: hoisting the Function saves a trace per round."""
    assert_marked("""
        import tensorflow as tf
        from tensorflow_model_optimization.sparsity import keras as sparsity

        def make_model():
            model = tf.keras.Sequential()
            model.add(tf.keras.layers.Dense(10))
            model.build((None, 3))
            return model

        class Net(tf.keras.Model):
            def call(self, x):
                return x

        def rounds(data, n):
            for i in range(n):
                @tf.function
                def train_one_step(model, x):
                    return model(x)

                @tf.function
                def test_step(model, x):
                    return model(x)

                @tf.function
                def probe(net, x):
                    return net(x)

                model = make_model()
                stripped = sparsity.strip_pruning(model)
                net = Net()
                net.build((None, 3))
                for x in data:
                    train_one_step(model, x)
                    test_step(stripped, x)
                    probe(net, x)

        def same_model(data, n):
            model = make_model()
            for i in range(n):
                @tf.function  # STG502
                def train_one_step(model, x):
                    return model(x)

                for x in data:
                    train_one_step(model, x)
    """)


def test_a_weightless_wrapper_made_per_call_around_a_layer_made_once_makes_no_variable():
    """AW1, DIEN's `DienGRU.call`: `keras.layers.RNN(self.gru_cell, return_state=True)` is made on
    every call around the cell `build` made once: an RNN (and a TimeDistributed) owns no variables
    of its own, and the wrapped layer's are made at its first build, once, so no later trace makes
    any. Twins: `Bidirectional` copies its layer with new weights; a cell made in the call itself,
    or an attribute the call writes too, is a new layer per trace."""
    assert_marked("""
        import tensorflow as tf

        class DienGRU(tf.keras.layers.Layer):
            def __init__(self, units):
                super().__init__()
                self.dense = tf.keras.layers.Dense(units)
                self.gru = tf.keras.layers.GRU(units)

            def build(self, input_shape):
                self.gru_cell = tf.keras.layers.GRUCell(4)

            def call(self, x):
                _, out = tf.keras.layers.RNN(self.gru_cell, return_state=True)(x)
                y = tf.keras.layers.TimeDistributed(self.dense)(x)
                z = tf.keras.layers.Bidirectional(self.gru)(x)  # STG402
                return out, y, z

        class Rewritten(tf.keras.layers.Layer):
            def __init__(self, units):
                super().__init__()
                self.cell = tf.keras.layers.GRUCell(units)

            def call(self, x):
                self.cell = tf.keras.layers.GRUCell(4)  # STG402
                return tf.keras.layers.RNN(self.cell)(x)  # STG402

        class Fresh(tf.keras.layers.Layer):
            def call(self, x):
                return tf.keras.layers.RNN(tf.keras.layers.GRUCell(4))(x)  # STG402

        model = tf.keras.Sequential([DienGRU(4), Rewritten(4), Fresh()])
        model.compile(loss="mse")
        model.fit(features, labels)
    """)


def test_a_debug_flag_kept_on_the_object_off_in_every_construction_shown_is_a_guess():
    """AW3, a stacked-hourglass port: `if self.debugPrint == True: print(...)` in Keras `call`s,
    `self.debugPrint = debugPrint` in `__init__` with `debugPrint=False`, and no construction in
    the project passes True (the recursive one passes its own `self.debugPrint` down): the
    branch is in no trace of those objects. A construction the project does not show (an importer
    of the class) may pass True, so that is a guess: the preview tier. Twins (default tier): a
    construction passing True, one passing a value not written out, an attribute the object also
    changes after `__init__`."""
    assert_tiers("""
        import tensorflow as tf

        class Residual(tf.keras.layers.Layer):
            def __init__(self, filters=8, debugPrint=False):
                super().__init__()
                self.debugPrint = debugPrint
                self.conv = tf.keras.layers.Dense(filters)

            def call(self, x):
                x = self.conv(x)
                if self.debugPrint == True:
                    print("conv1:", x.shape)  # preview STG101
                return x

        class Hourglass(tf.keras.layers.Layer):
            def __init__(self, depth, debugPrint=False, **kwargs):
                super().__init__(**kwargs)
                self.debugPrint = debugPrint
                self.up = Residual(8)
                self.low = Hourglass(depth - 1, debugPrint=self.debugPrint) if depth > 1 else Residual(8)

            def call(self, x):
                if self.debugPrint:
                    print("up:", x.shape)  # preview STG101
                return self.up(x) + self.low(x)

        class Loud(tf.keras.layers.Layer):
            def __init__(self, verbose=False):
                super().__init__()
                self.verbose = verbose

            def call(self, x):
                if self.verbose:
                    print("loud:", x.shape)  # STG101
                return x

        class Unknown(tf.keras.layers.Layer):
            def __init__(self, verbose=False):
                super().__init__()
                self.verbose = verbose

            def call(self, x):
                if self.verbose:
                    print("unknown:", x.shape)  # STG101
                return x

        class Toggled(tf.keras.layers.Layer):
            def __init__(self, debug=False):
                super().__init__()
                self.debug = debug

            def call(self, x):
                if self.debug:  # preview STG302
                    print("toggled:", x.shape)  # STG101
                return x

            def loud(self):
                self.debug = True

        net = Hourglass(3)
        loud = Loud(verbose=True)
        unknown = Unknown(verbose=settings.verbose)
        toggled = Toggled()

        @tf.function
        def step(x):
            return net(x) + loud(x) + unknown(x) + toggled(x)
    """)


def test_keras_layers_constructed_and_not_built_in_a_traced_builder_make_no_variable():
    """AW4, a progressive GAN's `@tf.function progressive_build`: `tf.keras.Sequential([...Conv2D
    ...])` and `Conv2D(...)` are constructed and returned, never called there: a Keras layer or
    model makes its weights when built (its first call), so no variable is made in that trace.
    The Adam optimizers made there do make variables when constructed (Keras 3): they stay. Twins:
    a layer constructed and then called through a name, and a `Sequential` given an `Input`
    (built when constructed)."""
    assert_marked("""
        import tensorflow as tf

        class Pggan(tf.keras.Model):
            @tf.function
            def progressive_build(self, n_layers):
                critic = [tf.keras.Sequential([
                    tf.keras.layers.Conv2D(filters=16, kernel_size=(1, 1),
                                           activation=tf.keras.layers.LeakyReLU(.2)),
                ])]
                for i in range(n_layers - 1):
                    critic.append(tf.keras.layers.Conv2D(32 * (2 ** i), 3))
                g_optimizer = tf.keras.optimizers.Adam(0.001, beta_1=0)  # STG402
                Critic = tf.keras.Sequential(critic)
                return Critic, g_optimizer

            @tf.function
            def head(self, x):
                dense = tf.keras.layers.Dense(3)  # STG402
                return dense(x)

            @tf.function
            def shaped(self, x):
                model = tf.keras.Sequential([tf.keras.Input(shape=(3,)), tf.keras.layers.Dense(3)])  # STG402
                return x

        gan = Pggan()
        gan.progressive_build(3)
        gan.head(features)
        gan.shaped(features)
    """)
