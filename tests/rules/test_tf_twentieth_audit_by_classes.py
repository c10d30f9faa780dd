"""Issue 23, the twentieth TensorFlow audit's fix-from half (BY), classes BY-u1 / BY-uP1 (a first-call
guard spelled `== None`), BY-P3 (`tf.keras.metrics.MSE` is a function) and BY-P1 (`array_ops.split`
is `tf.split`): the framework facts they follow, each with its negative twin. Behaviour checked
with TensorFlow 2.21 and Keras 3 in this venv (tests/runtime/test_tf_twentieth_audit_by_facts.py)."""

from __future__ import annotations

from rulecases import assert_tiers


def test_a_first_call_guard_spelled_equals_none_guards_as_is_none_does():
    """BY-u1 (STG402) and BY-uP1 (STG102, preview), iannwtfael's `ResidualBlock.call`: `if self._out
    == None:` whose block sets `self._out` to an int and makes a `Conv2D`. An int, None, a layer
    answer `== None` as `is None` does, so the retrace tf.function makes after the first trace
    created variables skips the block: no ValueError, and the guard's own flag is stored once.
    Twins, still reported: the same block with no guard, and `if self.v == None: self.v =
    tf.Variable(...)`, where the retrace's `self.v == None` raises ValueError (a tf.Variable
    answers `== None` with an op on None), so `==` is no guard there."""
    assert_tiers("""
        import tensorflow as tf
        from tensorflow.keras.layers import Conv2D


        class Block(tf.keras.Model):
            def __init__(self, out_filters=64):
                super().__init__()
                self._out = None
                self._out_filters = out_filters

            @tf.function
            def call(self, inputs):
                if self._out == None:
                    self._out = self._out_filters
                    self.out_layer = Conv2D(filters=self._out_filters, kernel_size=(1, 1))
                return self.out_layer(inputs)


        class Ready(tf.keras.Model):
            def __init__(self):
                super().__init__()
                self.head = None

            @tf.function
            def call(self, inputs):
                if self.head != None:
                    return self.head(inputs)
                self.head = tf.keras.layers.Dense(2)
                return self.head(inputs)


        class Holder(tf.keras.Model):
            def __init__(self):
                super().__init__()
                self.v = None

            @tf.function
            def call(self, inputs):
                if self.v == None:
                    self.v = tf.Variable(1.0)  # STG402
                return inputs * self.v


        class Bare(tf.keras.Model):
            @tf.function
            def call(self, inputs):
                self.out_layer = Conv2D(filters=3, kernel_size=(1, 1))  # STG402
                return self.out_layer(inputs)


        Block()(tf.ones((1, 4, 4, 3)))
        Ready()(tf.ones((1, 3)))
        Holder()(tf.ones(2))
        Bare()(tf.ones((1, 4, 4, 3)))
    """)


def test_keras_metrics_mse_is_a_function_that_makes_no_variable():
    """BY-P3 (STG402, preview), TRUNET's `custom_losses.py`: `tf.keras.metrics.MSE(obs, preds)` in a
    loss a tf.function step calls is `mean_squared_error`, a function: it creates no variable.
    Twin, still reported: `tf.keras.metrics.MeanSquaredError()` made in the step (a Metric class
    that owns variables)."""
    assert_tiers("""
        import tensorflow as tf


        def loss_fn(obs, preds):
            mse = tf.keras.metrics.MSE(obs, preds)
            mae = tf.keras.metrics.MAE(obs, preds)
            return mse + mae


        @tf.function
        def step(obs, preds):
            return loss_fn(obs, preds)


        @tf.function
        def metric_step(obs, preds):
            metric = tf.keras.metrics.MeanSquaredError()  # STG402
            metric.update_state(obs, preds)
            return metric.result()


        step(tf.ones(3), tf.ones(3))
        metric_step(tf.ones(3), tf.ones(3))
    """)


def test_array_ops_split_is_tf_split():
    """BY-P1 (STG602, preview), TRUNET's `ConvGRU2DCell.call`: `bias_z, bias_r, bias_h =
    array_ops.split(self.bias, 3)` under a trace. `array_ops.split is tf.split`: with an int count it
    returns a Python list of 3 tensors, and unpacking the list traces. Twin, still reported:
    unpacking a tensor itself (`array_ops.reshape(...)` gives one tensor)."""
    assert_tiers("""
        import tensorflow as tf
        from tensorflow.python.ops import array_ops


        @tf.function
        def gates(bias):
            bias_z, bias_r, bias_h = array_ops.split(bias, 3)
            return bias_z + bias_r + bias_h


        @tf.function
        def rows(bias):
            a, b, c = array_ops.reshape(bias, [3, -1])  # STG602
            return a + b + c


        gates(tf.ones(6))
        rows(tf.ones(6))
    """)


def test_a_global_written_only_above_the_readers_class_is_set_up():
    """BY-uP2 (STG301, preview), IANNwTF20's `homework_4_testing.py`: `currentsubtask` is bound only
    by `prepare_mnist_data`, called by two module-level statements above `class homework4model`,
    whose `call` reads it. A module runs its statements in order: both writes are made before the
    class exists, so every trace reads the last value written. Not reported. Twin, still reported
    (preview: the Keras `call` is reached through a parameter): the same writer called again below
    the class, between two training runs."""
    assert_tiers("""
        import tensorflow as tf


        def prepare(ds, subtask):
            global current
            if subtask == 1:
                current = 1
            if subtask == 2:
                current = 2
            return ds


        train = prepare([1], subtask=2)


        class Net(tf.keras.Model):
            def __init__(self):
                super().__init__()
                self.d = tf.keras.layers.Dense(2)

            def call(self, x):
                if current == 1:
                    return self.d(x)
                return -self.d(x)

            @tf.function
            def train_step(self, x):
                return self(x)


        def loop(model, xs):
            for x in xs:
                model.train_step(x)


        loop(Net(), [tf.ones((1, 2))])
    """)
    assert_tiers("""
        import tensorflow as tf


        def prepare(ds, subtask):
            global current
            current = subtask
            return ds


        train = prepare([1], subtask=2)


        class Net(tf.keras.Model):
            def __init__(self):
                super().__init__()
                self.d = tf.keras.layers.Dense(2)

            def call(self, x):
                if current == 1:  # preview STG301
                    return self.d(x)
                return -self.d(x)

            @tf.function
            def train_step(self, x):
                return self(x)


        def loop(model, xs):
            for x in xs:
                model.train_step(x)


        m = Net()
        loop(m, [tf.ones((1, 2))])
        test = prepare([1], subtask=1)
        loop(m, [tf.ones((1, 2))])
    """)


def test_a_dataset_map_of_library_ops_shows_nothing_of_how_keras_runs_a_layer():
    """BY-uP3 (STG101, preview), iannwtf's `7/Exercise07.ipynb`: `print(x.shape)` in `Encoder.call`,
    which an undecorated `Autoencoder.call` calls from an undecorated `train_step` (the hand
    training loop, no `fit`, no `tf.function`). The part's only staging is `train_ds.map(lambda
    image, label: (tf.cast(image, ...), tf.one_hot(label, 10)))`, whose trace runs library ops on
    tensors and no project code: it shows no layer traced, and called from plain Python the layer
    runs `call` as Python on every call. Not reported. Twin, still reported in the preview tier: the
    map function calls the model."""
    source = """
        import tensorflow as tf
        import tensorflow_datasets as tfds

        train_ds = tfds.load("fashion_mnist", split="train", as_supervised=True)
        train_ds = train_ds.map(lambda image, label: (MAPPED, tf.one_hot(label, 10)))
        train_ds = train_ds.batch(64)


        class Encoder(tf.keras.layers.Layer):
            def __init__(self):
                super().__init__()
                self.dense = tf.keras.layers.Dense(10)

            def call(self, x, training=True):
                print(x.shape)MARK
                return self.dense(x)


        class Autoencoder(tf.keras.Model):
            def __init__(self):
                super().__init__()
                self.encoder = Encoder()

            def call(self, x, training=True):
                return self.encoder(x, training=training)


        def train_step(model, data, target, loss_function, optimizer):
            with tf.GradientTape() as tape:
                prediction = model(data, training=True)
                loss = loss_function(target, prediction)
            gradients = tape.gradient(loss, model.trainable_variables)
            optimizer.apply_gradients(zip(gradients, model.trainable_variables))
            return loss


        model = Autoencoder()
        optimizer = tf.keras.optimizers.Adam()
        for epoch in range(3):
            for x, t in train_ds:
                train_step(model, x, x, tf.keras.losses.MeanSquaredError(), optimizer)
    """
    assert_tiers(source.replace("MAPPED", "tf.cast(image, tf.float32)").replace("MARK", ""))
    assert_tiers(source.replace("MAPPED", "model(tf.cast(image, tf.float32))").replace("MARK", "  # preview STG101"))
