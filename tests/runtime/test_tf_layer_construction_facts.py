"""Which Keras 3 layer constructors create a variable themselves
(`frameworks.tensorflow.KERAS3_LAYERS_STATE_AT_CONSTRUCTION`, `layer_state_at_construction`),
re-checked with the real TensorFlow 2.21 / Keras 3 under a `tf.variable_creator_scope`."""

from __future__ import annotations

import pytest

tf = pytest.importorskip("tensorflow")
keras = pytest.importorskip("keras")

from stagelint.frameworks.tensorflow import (  # noqa: E402
    KERAS3_LAYERS_STATE_AT_CONSTRUCTION, KERAS3_LAYERS_STATE_UNLESS_ZERO, layer_state_at_construction)

#: minimal constructor arguments of the classes that need some
ARGS = {"Dropout": (0.5,), "SpatialDropout1D": (0.5,), "SpatialDropout2D": (0.5,), "SpatialDropout3D": (0.5,),
        "GaussianDropout": (0.5,), "GaussianNoise": (0.5,), "AlphaDropout": (0.5,), "LSTM": (8,), "GRU": (8,),
        "SimpleRNN": (8,), "LSTMCell": (8,), "GRUCell": (8,), "SimpleRNNCell": (8,), "ConvLSTM1D": (2, 8),
        "ConvLSTM2D": (2, 8), "ConvLSTM3D": (2, 8), "RandomBrightness": (0.5,), "RandomColorDegeneration": (0.5,),
        "RandomContrast": (0.5,), "RandomCrop": (2, 8), "RandomHue": (0.5,), "RandomPosterization": (8,),
        "RandomRotation": (0.5,), "RandomSaturation": (0.5,), "RandomSharpness": (0.5,), "RandomZoom": (0.5,),
        "RandomTranslation": (0.1, 0.1), "Dense": (3,), "Embedding": (10, 4), "Conv2D": (2, 3)}


def _made(make) -> list:
    made = []

    def creator(next_creator, **kwargs):
        made.append(kwargs.get("name"))
        return next_creator(**kwargs)

    with tf.variable_creator_scope(creator):
        make()
    return made


@pytest.mark.parametrize("name", sorted(KERAS3_LAYERS_STATE_AT_CONSTRUCTION - {"Bidirectional"}))
def test_the_listed_constructors_create_a_seed_generator_variable(name):
    assert "seed_generator_state" in _made(lambda: getattr(keras.layers, name)(*ARGS.get(name, ())))
    assert layer_state_at_construction(f"keras.layers.{name}", {}, 1) is True


def test_bidirectional_creates_one_for_its_copies_and_lstm_even_with_dropout_0():
    assert _made(lambda: keras.layers.Bidirectional(keras.layers.LSTM(4)))
    assert _made(lambda: keras.layers.LSTM(4, dropout=0.0, recurrent_dropout=0.0)) == ["seed_generator_state"]


@pytest.mark.parametrize("make, name", [
    (lambda: keras.layers.Dense(3), "Dense"), (lambda: keras.layers.Embedding(10, 4, input_shape=(None,)), "Embedding"),
    (lambda: keras.layers.Conv2D(2, 3), "Conv2D"), (lambda: keras.layers.BatchNormalization(), "BatchNormalization"),
    (lambda: keras.layers.MultiHeadAttention(2, 4, dropout=0.1), "MultiHeadAttention"),
    (lambda: keras.layers.Dropout(0.0), None), (lambda: keras.layers.Attention(), "Attention"),
    (lambda: tf.keras.layers.Dense(3, input_shape=(4,)), "Dense")])
def test_the_other_constructors_create_none(make, name):
    """The negative twins: weights are made in `build`, at the first call."""
    assert _made(make) == []
    if name:
        assert layer_state_at_construction(f"keras.layers.{name}", {}, 0) is False


def test_attention_with_dropout_creates_one_and_tf_keras_is_not_answered():
    assert _made(lambda: keras.layers.Attention(dropout=0.1)) == ["seed_generator_state"]
    assert layer_state_at_construction("keras.layers.Attention", {"dropout": "0.1"}, 0) is True
    assert layer_state_at_construction("tf_keras.layers.Dropout", {}, 1) is None
    assert layer_state_at_construction("tensorflow.keras.layers.LSTM", {}, 1) is True
    assert layer_state_at_construction("keras.Sequential", {}, 0) is None


def test_a_function_constructing_unbuilt_layers_runs_one_constructing_dropout_raises():
    @tf.function
    def quiet():
        keras.layers.Dense(3), keras.layers.Embedding(10, 4), keras.layers.Conv2D(2, 3)
        return tf.constant(1)

    assert int(quiet()) == 1

    @tf.function
    def loud():
        keras.layers.Dropout(0.5)
        return tf.constant(1)

    with pytest.raises(ValueError, match="singleton"):
        loud()


@pytest.mark.parametrize("name", sorted(KERAS3_LAYERS_STATE_UNLESS_ZERO))
def test_a_rate_of_0_makes_no_seed_generator_given_first_or_by_keyword(name):
    """`KERAS3_LAYERS_STATE_UNLESS_ZERO`: 0 first or by keyword makes none, 0.1 makes one."""
    rate = KERAS3_LAYERS_STATE_UNLESS_ZERO[name]
    layer = getattr(keras.layers, name)
    assert _made(lambda: layer(0.0)) == [] and _made(lambda: layer(**{rate: 0.0})) == []
    assert _made(lambda: layer(0)) == [] and _made(lambda: getattr(tf.keras.layers, name)(0.0)) == []
    assert _made(lambda: layer(0.1)) == ["seed_generator_state"]
    assert _made(lambda: layer(**{rate: 0.1})) == ["seed_generator_state"]
    assert layer_state_at_construction(f"keras.layers.{name}", {rate: "0.0"}, 0) is False
    assert layer_state_at_construction(f"keras.layers.{name}", {rate: "0.1"}, 0) is True


def test_a_dropout_of_rate_0_built_in_a_function_makes_no_variable():
    """Constructed and called in the trace, `Dropout(0.0)` still makes none (no weight in `build`):
    the Function runs; with 0.3 it raises."""
    @tf.function
    def quiet(x):
        return keras.layers.Dropout(0.0)(x, training=True) + keras.layers.GaussianNoise(stddev=0.0)(x, training=True)

    assert float(quiet(tf.ones([2]))[0]) == 2.0

    @tf.function
    def loud(x):
        return keras.layers.Dropout(0.3)(x, training=True)

    with pytest.raises(ValueError, match="singleton"):
        loud(tf.ones([2]))


def test_tf_keras_alpha_dropout_makes_its_seed_generator_at_any_rate():
    """Why `AlphaDropout` is not in `KERAS3_LAYERS_STATE_UNLESS_ZERO`: `tf.keras.layers` gives the
    legacy class, whose constructor makes one at rate 0 too; `keras.layers`' does not."""
    assert _made(lambda: tf.keras.layers.AlphaDropout(0.0)) == ["seed_generator_state"]
    assert _made(lambda: keras.layers.AlphaDropout(0.0)) == []
    assert layer_state_at_construction("tensorflow.keras.layers.AlphaDropout", {"rate": "0.0"}, 0) is True
