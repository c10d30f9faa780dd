"""STG402 per step: what makes a variable is known (default tier) or guessed (preview).

Each test pairs the known case with its guessed twin; the facts about TensorFlow are observed in
tests/runtime/test_tf_variable_creation_facts.py."""

from __future__ import annotations

from rulecases import assert_project_marked, assert_tiers


def test_a_public_keras_class_is_known_one_in_the_framework_s_own_modules_is_a_guess():
    """`tf.keras.layers.Dense` (public API) owns variables; a class found in one of tf-keras's
    own modules (`legacy_cells.LSTMStateTuple`, a namedtuple; `index_lookup.IndexLookup`, a
    lookup table) is taken to own some only because of the package it sits in."""
    assert_tiers("""
        import tensorflow as tf
        import tf_keras
        from tf_keras.layers.rnn import legacy_cells
        from tf_keras.layers.preprocessing import index_lookup

        @tf.function
        def f(x):
            a = tf.keras.layers.Dense(3)  # STG402
            b = tf_keras.layers.Dense(3)  # STG402
            s = legacy_cells.LSTMStateTuple(x, x)  # preview STG402
            t = index_lookup.IndexLookup(max_tokens=None)  # preview STG402
            return a(x) + b(x)
    """)


def test_a_variable_constructor_is_known_under_a_creator_scope_it_is_a_guess():
    """The creator of a `tf.variable_creator_scope` decides what `tf.Variable(...)` returns;
    outside one (or after it) the constructor makes a variable."""
    assert_tiers("""
        import tensorflow as tf

        def creator(next_creator, **kwargs):
            return tf.constant(1.0)

        @tf.function
        def f(x):
            with tf.variable_creator_scope(creator):
                v = tf.Variable(1.0)  # preview STG402
            with tf.name_scope("w"):
                w = tf.Variable(2.0)  # STG402
            u = tf.Variable(3.0)  # STG402
            return v + w + u + x
    """)


def test_get_variable_is_a_guess_and_silent_under_the_shim_in_any_spelling():
    """`tf.compat.v1.get_variable` depends on the variable store in effect: a guess in plain
    staged code, the first call's variable again under `track_tf1_style_variables`, spelled as
    TensorFlow exports it or as tf-keras's own module defines it."""
    assert_tiers("""
        import tensorflow as tf
        from tf_keras.legacy_tf_layers import variable_scope_shim

        @tf.function
        def f(x):
            return tf.compat.v1.get_variable("w", shape=[]) + x  # preview STG402

        class Shimmed(tf.keras.layers.Layer):
            @variable_scope_shim.track_tf1_style_variables
            def call(self, x):
                return tf.compat.v1.get_variable("k", shape=[]) + x

        class Exported(tf.keras.layers.Layer):
            @tf.compat.v1.keras.utils.track_tf1_style_variables
            def call(self, x):
                return tf.compat.v1.get_variable("k", shape=[]) + x
    """)


def test_get_or_create_layer_in_tf_keras_s_own_spelling_runs_its_factory_once():
    """`variable_scope_shim.get_or_create_layer(name, self.build)` builds once and caches, as
    `tf.compat.v1.keras.utils.get_or_create_layer` (the same function); a factory called
    directly is traced with the call."""
    assert_tiers("""
        import tensorflow as tf
        from tf_keras.legacy_tf_layers import variable_scope_shim

        class Cached(tf.keras.layers.Layer):
            def build_model(self):
                return tf.keras.layers.Dense(3)

            @variable_scope_shim.track_tf1_style_variables
            def call(self, x):
                return variable_scope_shim.get_or_create_layer("m", self.build_model)(x)

        class Fresh(tf.keras.layers.Layer):
            def build_model(self):
                return tf.keras.layers.Dense(3)  # STG402

            def call(self, x):
                return self.build_model()(x)

        model = tf.keras.Sequential([Cached(), Fresh()])
        model.fit(x, y)  # run under a Function: a symbolic build alone traces nothing again
    """)


def test_add_weight_on_self_is_known_on_another_receiver_it_is_a_guess_by_name():
    assert_tiers("""
        import tensorflow as tf

        class Layer(tf.keras.layers.Layer):
            def call(self, x, store):
                w = self.add_weight(name="w", shape=())  # STG402
                b = store.add_weight("b")  # preview STG402
                return x * w + b

        model = tf.keras.Sequential([Layer()])
        model.fit(x, y)  # run under a Function: a symbolic build alone traces nothing again
    """)


def test_a_variable_made_under_init_scope_is_a_guess_outside_it_known():
    """Under `tf.init_scope()` a creation raises only where the Function is called eagerly; called
    while a graph is built (a TF1 graph, a TFF computation) it makes the variable once
    (tests/runtime/test_tf_variable_creation_facts.py): which one calls it is not shown, the
    preview tier. Its twin: the same creation outside the scope, known (the default)."""
    assert_tiers("""
        import tensorflow as tf

        @tf.function
        def client_update(x):
            with tf.init_scope():
                metric = tf.keras.metrics.Mean(name="loss")  # preview STG402
            return x + 1.0

        @tf.function
        def server_update(x):
            metric = tf.keras.metrics.Mean(name="loss")  # STG402
            return x + 1.0
    """)


def test_keras_input_in_a_traced_call_makes_no_variable_the_layers_beside_it_do():
    """`Input(shape=(1,))` in a Keras layer's `call` (a recommendation model's DSIN layer) returns
    a symbolic KerasTensor and makes no variable, in any spelling (`keras.layers.Input` is
    `keras.Input`; `InputLayer` owns no weights): `frameworks.tensorflow.KERAS_SYMBOLIC_CONSTRUCTORS`,
    observed in tests/runtime/test_tf_variable_creation_facts.py. The `Embedding` and `Dense`
    made in the same `call` make their weights in the trace: reported."""
    assert_tiers("""
        import tensorflow as tf
        import keras
        from tensorflow.keras.layers import Layer, Dense, Embedding, Input, InputLayer

        class DSIN(Layer):
            def call(self, inputs):
                uid, item_id = inputs
                item_emb = Embedding(10, 4)(item_id)  # STG402
                user_sess_length = Input(shape=(1,), name="sess_length")
                a = tf.keras.layers.Input(shape=(1,))
                b = keras.layers.Input(shape=(1,))
                c = tf.keras.Input(shape=(1,))
                d = InputLayer(shape=(1,))
                return Dense(1, use_bias=False)(item_emb)  # STG402

        inp = keras.Input((2,), dtype="int32")
        model = keras.Model(inp, DSIN()([inp, inp]))
        model.compile("sgd", "mse")
        model.fit(inp, inp)
    """)


def test_a_functional_model_constructed_in_a_traced_call_makes_no_variable_an_unbuilt_layer_in_it_does():
    """`tf.keras.Model(inputs=..., outputs=...)` / `keras.Model(inp, out)` in a `tf.function`
    wires layers and makes no variable itself (a protein-holography network's `@tf.function def
    model(self)` summary helper): `frameworks.tensorflow.KERAS_FUNCTIONAL_NAMES`, observed in
    tests/runtime/test_tf_variable_creation_facts.py. Its twin: the `Dense` applied to the inputs
    in the same trace makes its weights there (reported), and a `Sequential([...])` or a bare
    `Model()` made in the trace is no functional model (reported)."""
    assert_tiers("""
        import tensorflow as tf
        import keras

        class Net(tf.keras.Model):
            def call(self, x):
                return x

            @tf.function
            def model(self):
                return tf.keras.Model(inputs=[self.input_], outputs=self.call(self.input_))

        dense = keras.layers.Dense(3)

        @tf.function
        def wired(x):
            inp = keras.Input((4,))
            return keras.Model(inp, dense(inp))(x)

        @tf.function
        def made_here(x):
            inp = keras.Input((4,))
            head = keras.Model(inp, keras.layers.Dense(3)(inp))  # STG402
            stack = tf.keras.Sequential([keras.layers.Dense(3)])  # STG402
            bare = tf.keras.Model()  # STG402
            return head(x) + stack(x) + bare(x)
    """)


def test_a_keras3_layer_constructor_creates_a_variable_only_when_listed():
    """`frameworks.tensorflow.KERAS3_LAYERS_STATE_AT_CONSTRUCTION` (TF 2.21 / Keras 3,
    tests/runtime/test_tf_layer_construction_facts.py): `Dense` / `Embedding` made in a Function
    that calls none of them create nothing (their weights wait for `build`), also given an input
    shape outside any model; `Dropout(0.5)` and `LSTM(8)` make a seed-generator variable there."""
    assert_tiers("""
        import tensorflow as tf

        class M(tf.keras.Model):
            def __init__(self):
                super().__init__()
                self.create_vars()

            @tf.function
            def create_vars(self):
                self.embed = tf.keras.layers.Embedding(input_dim=10, output_dim=4, input_shape=(None, None))
                self.dense = tf.keras.layers.Dense(units=3)
                self.drop = tf.keras.layers.Dropout(0.5)  # STG402
                self.rnn = tf.keras.layers.LSTM(8)  # STG402
    """)


def test_a_keras3_layer_constructed_and_called_in_the_function_is_still_reported():
    """The negative twin: the Function calls the `Dense` it makes, which builds it there."""
    assert_tiers("""
        import tensorflow as tf

        @tf.function
        def f(x):
            d = tf.keras.layers.Dense(3)  # STG402
            return d(x)
    """)


def test_dropout_made_in_a_function_that_builds_nothing_still_creates_its_seed_variable():
    """A Function that calls none of what it makes leaves `Dense` unbuilt (silent), but a Keras 3
    `Dropout(0.5)` / `GRU(4)` creates its variable in the constructor; tf_keras's `Dropout` none."""
    assert_tiers("""
        import tensorflow as tf
        import tf_keras

        class M(tf.keras.Model):
            @tf.function
            def create_vars(self):
                self.dense = tf.keras.layers.Dense(3)
                self.drop = tf.keras.layers.Dropout(0.5)  # STG402
                self.gru = tf.keras.layers.GRU(4)  # STG402
                self.old = tf_keras.layers.Dropout(0.5)
    """)


def test_a_call_done_before_the_construction_cannot_build_what_it_makes(tmp_path):
    """BN1's last row (Reflect's `lm_transformer.py:148`): a `@tf.function create_vars` constructs a
    star-imported project class, then `self.e2c = Dense(...)`. The class's constructor ran before
    the Dense existed and was handed nothing that holds it, so it cannot build it: the Dense line
    makes no variable (a Keras 3 `Dense` constructor makes none), whatever that class does
    (`analysis.meets`: a call done before a construction meets its object only through an owner
    it is handed, `self.setup()`, on a later run). Twins: the unknown class constructed after the
    Dense, a call before it that is handed `self`, and the Dense called later in the Function:
    still reported; a Dense kept in a local, after an unknown call: silent."""
    assert_project_marked(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/layers.py": """
            import tensorflow as tf

            class Encoder(tf.keras.layers.Layer):
                def __init__(self, units, **kwargs):
                    super().__init__(**kwargs)
                    self.units = units
        """,
        "pkg/model.py": """
            import tensorflow as tf
            from pkg.layers import *

            class Classifier(tf.keras.Model):
                def __init__(self, hparams):
                    super().__init__()
                    self.hparams = hparams
                    self.create_vars()

                @tf.function
                def create_vars(self):
                    self.encoder = Encoder(self.hparams.units, name="encoder")
                    self.e2c = tf.keras.layers.Dense(units=self.hparams.labels, name="e2c")

                @tf.function
                def encoder_after(self):
                    self.e2c = tf.keras.layers.Dense(units=self.hparams.labels)  # STG402
                    self.encoder = Encoder(self.hparams.units)

                @tf.function
                def handed_self_before(self):
                    self.setup()
                    self.e2c = tf.keras.layers.Dense(units=self.hparams.labels)  # STG402

                @tf.function
                def called_after(self, x):
                    self.encoder = Encoder(self.hparams.units)
                    self.e2c = tf.keras.layers.Dense(units=self.hparams.labels)  # STG402
                    return self.e2c(x)

                @tf.function
                def local(self, x):
                    y = Encoder(self.hparams.units)
                    head = tf.keras.layers.Dense(units=3)
                    return x

                def setup(self):
                    pass
        """,
    })


def test_a_dropout_of_rate_0_creates_no_variable_in_any_spelling():
    """`frameworks.tensorflow.KERAS3_LAYERS_STATE_UNLESS_ZERO` (TF 2.21 / Keras 3,
    tests/runtime/test_tf_layer_construction_facts.py): a rate (`GaussianNoise`: a standard
    deviation) of 0, given first or by keyword, written out or held by a constant, makes no seed
    generator, and the layer no weight when called. Twins: a rate above 0 in the same spellings,
    a rate from a parameter or a configuration (not shown to be 0)."""
    assert_tiers("""
        import tensorflow as tf

        NO_DROP = 0.0
        DROP = 0.2

        class M(tf.keras.Model):
            @tf.function
            def create_vars(self, hparams, rate):
                self.a = tf.keras.layers.Dropout(0.0)
                self.b = tf.keras.layers.Dropout(rate=0.0)
                self.c = tf.keras.layers.Dropout(0, noise_shape=(1,))
                self.d = tf.keras.layers.Dropout(NO_DROP)
                self.e = tf.keras.layers.SpatialDropout1D(rate=NO_DROP)
                self.f = tf.keras.layers.GaussianNoise(stddev=0.0)
                self.g = tf.keras.layers.Dropout(0.1)  # STG402
                self.h = tf.keras.layers.Dropout(rate=0.1)  # STG402
                self.i = tf.keras.layers.Dropout(DROP)  # STG402
                self.j = tf.keras.layers.Dropout(rate)  # STG402
                self.k = tf.keras.layers.Dropout(hparams.dropout)  # STG402
                self.m = tf.keras.layers.GaussianNoise(0.5)  # STG402

        @tf.function
        def applied(x):
            none = tf.keras.layers.Dropout(0.0)
            some = tf.keras.layers.Dropout(0.3)  # STG402
            return none(x, training=True) + some(x, training=True)
    """)


def test_a_call_in_code_that_never_runs_builds_nothing():
    """Which calls may build what a Function makes is read from the calls the one walk visits
    (`FunctionInfo.calls` and `.inner`, `analysis.meets`), and the walk never enters code Python
    never runs (`walk.never_runs`, a block's tail after `return`): a `head(x)` after the `return`,
    or a def under `if False:`, builds nothing, so the `Dense` it would have built stays unbuilt
    (silent). Twins: the same call, or the same def, where it runs: reported."""
    assert_tiers("""
        import tensorflow as tf

        @tf.function
        def after_return(x):
            head = tf.keras.layers.Dense(3)
            return x
            head(x)

        @tf.function
        def dead_def(x):
            head = tf.keras.layers.Dense(3)
            if False:
                def helper():
                    return head(x)
            return x

        @tf.function
        def called(x):
            head = tf.keras.layers.Dense(3)  # STG402
            head(x)
            return x

        @tf.function
        def live_def(x):
            head = tf.keras.layers.Dense(3)  # STG402
            if x is not None:
                def helper():
                    return head(x)
            return x
    """)


def test_a_construction_decided_at_the_function_s_end_keeps_what_the_walk_knew_at_it():
    """STG402 decides a Keras layer made in a staged function at the function's end, once every
    call in it is known (`Rule.hold`, `FileContext.release`); the candidate is made where the walk
    is at the construction, so it carries the conditions on parameters it runs under (`_when`)
    exactly as a candidate reported at once there (the `tf.Variable` beside it), not the function
    end's (none)."""
    from stagelint.config import Settings
    from stagelint.pipeline.perfile import analyze_source

    source = b"""
import tensorflow as tf

@tf.function
def f(x, build=False):
    if build:
        head = tf.keras.layers.Dense(3)
        v = tf.Variable(1.0)
        return head(x) * v
    return x
"""
    facts = analyze_source("m.py", source, Settings())
    made = {c.span.line: c.fields.get("_when") for c in facts.candidates if c.code == "STG402"}
    assert set(made) == {7, 8}
    assert made[7] == made[8] and made[7]
