"""Layers, helpers and a training loop in one module: what `pipeline.splice` cuts into units."""

import functools

import tensorflow as tf

EPSILON = 1e-3
history = []


def make_divisible(value, divisor=8):
  """Rounds `value` to a multiple of `divisor` (a plain Python helper)."""
  new_value = max(divisor, int(value + divisor / 2) // divisor * divisor)
  if new_value < 0.9 * value:
    new_value += divisor
  return new_value


def scale_of(x):
  return tf.reduce_mean(x) * 2.0


class Squeeze(tf.keras.layers.Layer):
  """Squeeze and excitation."""

  def __init__(self, filters, ratio=0.25, **kwargs):
    super().__init__(**kwargs)
    self._filters = filters
    self._ratio = ratio
    self.calls = 0

  def build(self, input_shape):
    reduced = make_divisible(self._filters * self._ratio)
    self._reduce = tf.keras.layers.Conv2D(reduced, 1)
    self._expand = tf.keras.layers.Conv2D(self._filters, 1)
    super().build(input_shape)

  def call(self, inputs, training=None):
    x = tf.reduce_mean(inputs, [1, 2], keepdims=True)
    x = self._expand(tf.nn.relu(self._reduce(x)))
    if training:
      x = x * scale_of(x)
    return tf.sigmoid(x) * inputs


class Scale(tf.keras.layers.Layer):
  """Multiplies by a learned scalar."""

  def build(self, input_shape):
    self._scale = self.add_weight("scale", shape=(), initializer="ones")

  def call(self, inputs):
    return inputs * self._scale


class Counter(tf.keras.layers.Layer):

  def __init__(self):
    super().__init__()
    self.count = 0
    self.total = tf.Variable(0.0)

  def call(self, inputs):
    self.total.assign_add(tf.reduce_sum(inputs))
    for _ in range(3):
      inputs = inputs + EPSILON
    return inputs


class DoubleScale(Scale):

  def call(self, inputs):
    y = super().call(inputs)
    return y + super().call(inputs)


def _parse(record, size=3):
  return tf.reshape(record, [size])


def make_dataset(values):
  ds = tf.data.Dataset.from_tensor_slices(values)
  ds = ds.map(functools.partial(_parse, size=3))
  return ds.map(lambda x: x * 2)


@tf.function
def train_step(model, x):
  y = model(x)
  print("tracing", y)
  history.append(y)
  return y


def evaluate(model, values):
  step = tf.function(lambda x: model(x))
  out = []
  for v in values:
    out.append(step(tf.constant(v)))
  return out


class Trainer:

  def __init__(self, model):
    self.model = model
    self.optimizer = tf.keras.optimizers.SGD(0.1)
    self.step = tf.function(self._step)

  def _step(self, x, y):
    with tf.GradientTape() as tape:
      loss = tf.reduce_mean((self.model(x) - y) ** 2)
    grads = tape.gradient(loss, self.model.trainable_variables)
    self.optimizer.apply_gradients(zip(grads, self.model.trainable_variables))
    return loss

  def fit(self, data, epochs=2):
    for epoch in range(epochs):
      for x, y in data:
        self.step(x, y)


def clip(x, low=0.0, high=1.0):
  return tf.clip_by_value(x, low, high)


if __name__ == "__main__":
  layer = Squeeze(8)
  for i in range(3):
    train_step(layer, tf.zeros([1, 4, 4, 8]) + i)
