"""The facts behind STG402's certainty (`VariableCreation._creation_facts`,
`frameworks.tensorflow.VARIABLE_CREATOR_SCOPES` and `GET_OR_CREATE_VARIABLES`), observed with the
real TensorFlow 2.21."""

from __future__ import annotations

import pytest

tf = pytest.importorskip("tensorflow")


def test_a_creator_scope_returning_a_tensor_makes_no_variable_and_tf_function_raises_nothing():
    """Inside `tf.variable_creator_scope(creator)` the creator decides what `tf.Variable(...)`
    returns: one returning a tensor makes no variable, on every trace."""
    @tf.function
    def f(x):
        with tf.variable_creator_scope(lambda next_creator, **kwargs: tf.constant(2.0)):
            v = tf.Variable(1.0)
        return v + x

    assert float(f(tf.constant(1.0))) == 3.0
    assert f(tf.constant([1.0, 2.0])).numpy().tolist() == [3.0, 4.0]  # a second trace


def test_a_creator_scope_that_calls_the_next_creator_still_raises():
    """The negative twin: a creator passing the call on makes the variable, and the first call
    fails as for a bare `tf.Variable`."""
    @tf.function
    def f(x):
        with tf.variable_creator_scope(lambda next_creator, **kwargs: next_creator(**kwargs)):
            v = tf.Variable(1.0)
        return v + x

    with pytest.raises(ValueError, match="singleton tf.Variables created on the first call"):
        f(tf.constant(1.0))


def test_get_variable_without_a_variable_store_fails_under_tf_function():
    """`tf.compat.v1.get_variable` with no store in effect (no `track_tf1_style_variables`, no
    TF1 graph): TF 2.21 raises AttributeError, not the singleton-variable ValueError. Whether a
    store is in effect decides what the call does, so STG402 reports it only in preview."""
    @tf.function
    def f(x):
        return tf.compat.v1.get_variable("w", shape=[], initializer=tf.compat.v1.zeros_initializer()) + x

    with pytest.raises(AttributeError):
        f(tf.constant(1.0))


def test_a_variable_made_under_init_scope_in_a_tf_function_still_raises():
    """`tf.init_scope()` lifts the creation out of the graph but tf.function still refuses a
    variable made on a trace that is not its first: STG402 keeps reporting it."""
    @tf.function
    def f(x):
        with tf.init_scope():
            v = tf.Variable(1.0)
        return v + x

    with pytest.raises(ValueError, match="singleton tf.Variables"):
        f(tf.constant(1.0))


def test_a_draw_seeded_with_a_literal_in_the_same_block_is_the_same_traced_or_eager():
    """STG104 (`frameworks.python.SEEDING_CALLS`): `np.random.seed(1234)` then a draw gives the
    same value on every eager call, which is the constant a trace bakes in; the negative twin,
    an unseeded draw, differs between eager calls and is frozen by the trace."""
    import numpy as np

    def seeded(x):
        np.random.seed(1234)
        return x * np.random.uniform()

    def unseeded(x):
        return x * np.random.uniform()

    one = tf.constant(1.0)
    staged = tf.function(seeded)
    values = {float(seeded(one)), float(seeded(one)), float(staged(one)), float(staged(one))}
    assert len(values) == 1
    eager = {float(unseeded(one)) for _ in range(3)}
    frozen = tf.function(unseeded)
    assert len(eager) == 3 and len({float(frozen(one)) for _ in range(3)}) == 1


def test_a_variable_made_under_init_scope_by_a_function_called_while_a_graph_is_built_raises_nothing():
    """Where the Function is called decides: inside a graph being built (a TF1 graph, as a TFF
    computation traces its body), `tf.init_scope()` makes the variable in that outer graph,
    once, and TF 2.21 raises nothing; without the init_scope it raises there too."""
    @tf.function
    def lifted(x):
        with tf.init_scope():
            v = tf.Variable(1.0)
        return v + x

    @tf.function
    def bare(x):
        v = tf.Variable(1.0)
        return v + x

    graph = tf.Graph()
    with graph.as_default():
        lifted(tf.constant(1.0))
        lifted(tf.constant(2.0))
        assert len(graph.get_collection(tf.compat.v1.GraphKeys.GLOBAL_VARIABLES)) == 1
        with pytest.raises(ValueError, match="singleton tf.Variables"):
            bare(tf.constant(1.0))


def _build_in_trace(make):
    """Construct the layer made by `make` in a tf.function's body and call it, on two traces."""
    @tf.function
    def f(x):
        return make()([x, x])

    f(tf.ones((2, 4, 8)))
    f(tf.ones((3, 5, 8)))


def test_a_keras_attention_layer_without_scale_or_dropout_builds_in_a_traced_call():
    """`frameworks.tensorflow.WEIGHTLESS_KERAS_LAYERS_WITH`: `Attention()` (no `use_scale`, dot
    scores, no dropout) and `AdditiveAttention(use_scale=False)` own no weights, and building them
    inside a tf.function raises nothing on either trace."""
    layers = tf.keras.layers
    for make in (layers.Attention, lambda: layers.Attention(use_scale=False, dropout=0.0),
                 lambda: layers.AdditiveAttention(use_scale=False)):
        _build_in_trace(make)
        layer = make()
        layer([tf.ones((2, 4, 8))] * 2)
        assert layer.weights == []


@pytest.mark.parametrize("make", [
    lambda: tf.keras.layers.Attention(use_scale=True),
    lambda: tf.keras.layers.Attention(score_mode="concat"),
    lambda: tf.keras.layers.Attention(dropout=0.1),
    lambda: tf.keras.layers.AdditiveAttention(),
])
def test_a_keras_attention_layer_with_scale_or_dropout_fails_in_a_traced_call(make):
    """The negative twin: a scale weight, a concat score weight or Keras 3's dropout seed
    generator is a variable made in the trace."""
    with pytest.raises(ValueError, match="singleton tf.Variables"):
        _build_in_trace(make)


def test_weightless_normalising_layers_build_in_a_traced_call():
    """`ActivityRegularization` and `UnitNormalization` (in `WEIGHTLESS_KERAS_LAYERS`) own no weights."""
    for make in (tf.keras.layers.ActivityRegularization, tf.keras.layers.UnitNormalization):
        @tf.function
        def f(x):
            return make()(x)

        f(tf.ones((2, 4)))
        f(tf.ones((3, 5)))


@pytest.mark.parametrize("spelling", ["keras.Input", "keras.layers.Input", "tf.keras.Input", "tf.keras.layers.Input",
                                      "keras.layers.InputLayer"])
def test_keras_input_in_a_tf_function_is_symbolic_and_makes_no_variable(spelling):
    """`frameworks.tensorflow.KERAS_SYMBOLIC_CONSTRUCTORS` and the `InputLayer` entry of
    `WEIGHTLESS_KERAS_LAYERS`: `Input(shape=...)` made in a traced function returns a KerasTensor
    on each of two traces, and no variable creator sees a variable; `keras.layers.Input` is
    `keras.Input` itself."""
    import keras

    make = {"keras.Input": keras.Input, "keras.layers.Input": keras.layers.Input, "tf.keras.Input": tf.keras.Input,
            "tf.keras.layers.Input": tf.keras.layers.Input, "keras.layers.InputLayer": keras.layers.InputLayer}[spelling]
    made = []

    def creator(next_creator, **kwargs):
        made.append(kwargs.get("name"))
        return next_creator(**kwargs)

    @tf.function
    def f(x):
        t = make(shape=(1,))
        return x + 1.0, type(t).__name__

    with tf.variable_creator_scope(creator):
        kinds = [f(tf.constant(1.0))[1].numpy(), f(tf.constant([1.0, 2.0]))[1].numpy()]
    assert made == []
    assert kinds == ([b"InputLayer"] * 2 if spelling.endswith("InputLayer") else [b"KerasTensor"] * 2)
    assert keras.layers.Input is keras.Input


def test_constructing_a_functional_model_in_a_tf_function_makes_no_variable_an_unbuilt_layer_does():
    """`frameworks.tensorflow.KERAS_FUNCTIONAL_NAMES`: `keras.Model(inputs, outputs)` made in a
    traced function over a built layer, in either spelling and on two traces, lets no variable
    creator see a variable (the functional model wires what exists). An unbuilt `Dense` applied
    to the inputs in the trace makes its kernel and bias there, and the second trace raises
    ValueError (STG402 reports that layer)."""
    import keras

    made = []

    def creator(next_creator, **kwargs):
        made.append(kwargs.get("name"))
        return next_creator(**kwargs)

    dense = keras.layers.Dense(3)
    dense.build((None, 4))

    @tf.function
    def wired(x):
        inp = keras.Input((4,))
        keras.Model(inputs=[inp], outputs=dense(inp))
        tf.keras.Model(inp, dense(inp))
        return x + 1.0

    with tf.variable_creator_scope(creator):
        wired(tf.constant(1.0))
        wired(tf.constant([1.0, 2.0]))
    assert made == [] and wired.experimental_get_tracing_count() == 2

    @tf.function
    def unbuilt(x):
        inp = keras.Input((4,))
        keras.Model(inp, keras.layers.Dense(3)(inp))
        return x + 1.0

    with tf.variable_creator_scope(creator):
        with pytest.raises(ValueError):
            unbuilt(tf.constant(1.0))
            unbuilt(tf.constant([1.0, 2.0]))
    assert made[:2] == ["kernel", "bias"]
