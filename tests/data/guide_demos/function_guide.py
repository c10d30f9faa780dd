# A re-statement, written for stagelint's tests, of the staging pitfalls that TensorFlow's
# guide "Better performance with tf.function" (site/en/guide/function.ipynb) demonstrates,
# in the guide's order and as one notebook module: one `# %% [cell N]` block per guide cell
# that matters, with the guide's names, so that later cells redefine earlier names as the
# notebook does. The cell numbers are those of `bench/notebooks.py` on the pinned notebook.
# The expectations are in expected.csv next to this file.

# %% [cell 2]
import tensorflow as tf

# %% [cell 8]
@tf.function
def double(a):
  print("Tracing with", a)
  return a + a

double(tf.constant(1))
double(tf.constant("a"))

# %% [cell 14]
@tf.function
def train(num_steps):
  tf.print("Executing with num_steps = ", num_steps)
  for _ in tf.range(num_steps):
    pass

train(num_steps=10)
train(num_steps=20)
train(num_steps=tf.constant(10))
train(num_steps=tf.constant(20))

# %% [cell 15]
def f():
  tf.print('Executing')

tf.function(f)()
tf.function(f)()

# %% [cell 28]
@tf.function
def fizzbuzz(n):
  for i in tf.range(1, n + 1):
    if i % 15 == 0:
      print('Tracing fizzbuzz branch')
      tf.print('fizzbuzz')
    else:
      tf.print(i)

fizzbuzz(tf.constant(5))
fizzbuzz(tf.constant(20))

# %% [cell 29]
def measure_graph_size(f, *args):
  g = f.get_concrete_function(*args).graph
  return len(g.as_graph_def().node)

@tf.function
def train(dataset):
  loss = tf.constant(0)
  for x, y in dataset:
    loss += tf.abs(y - x)
  return loss

small_data = [(1, 1)] * 3
big_data = [(1, 1)] * 10
measure_graph_size(train, small_data)
measure_graph_size(train, big_data)

# %% [cell 31]
@tf.function
def f(x):
  print("Traced with", x)
  tf.print("Executed with", x)

f(1)
f(1)
f(2)

# %% [cell 35]
external_list = []

@tf.function
def side_effect(x):
  print('Python side effect')
  external_list.append(x)

side_effect(1)
side_effect(1)

# %% [cell 36]
class Model(tf.Module):
  def __init__(self):
    self.v = tf.Variable(0)
    self.counter = 0

  @tf.function
  def __call__(self):
    if self.counter == 0:
      self.counter += 1
      self.v.assign_add(1)
    return self.v

m = Model()
for n in range(3):
  m()

# %% [cell 37]
class Model(tf.Module):
  def __init__(self):
    self.v = tf.Variable(0)
    self.counter = 0

  @tf.function
  def __call__(self):
    if self.counter == 0:
      with tf.init_scope():
        self.counter += 1
        self.v.assign_add(1)
    return self.v

m = Model()
for n in range(3):
  m()

# %% [cell 38]
@tf.function
def buggy_consume_next(iterator):
  tf.print("Value:", next(iterator))

iterator = iter([1, 2, 3])
buggy_consume_next(iterator)
buggy_consume_next(iterator)

# %% [cell 39]
@tf.function
def good_consume_next(iterator):
  tf.print("Value:", next(iterator))

ds = tf.data.Dataset.from_tensor_slices([1, 2, 3])
iterator = iter(ds)
good_consume_next(iterator)
good_consume_next(iterator)

# %% [cell 40]
x = None

@tf.function
def leaky_function(a):
  global x
  x = a + 1
  return a + 2

correct_a = leaky_function(tf.constant(1))

# %% [cell 41]
@tf.function
def leaky_function(a):
  global x
  x = a + 1
  return x

correct_a = leaky_function(tf.constant(1))

# %% [cell 42]
external_list = []

def leaky_function():
  a = tf.constant(1)
  external_list.append(a)

# %% [cell 43]
@tf.function
def recursive_fn(n):
  if n > 0:
    return recursive_fn(n - 1)
  else:
    return 1

recursive_fn(tf.constant(5))

# %% [cell 44]
@tf.function
def recursive_fn(n):
  if n > 0:
    print('tracing')
    return recursive_fn(n - 1)
  else:
    return 1

recursive_fn(5)

# %% [cell 45]
@tf.function
def buggy_add():
  return 1 + foo

@tf.function
def recommended_add(foo):
  return 1 + foo

foo = 1
buggy_add()
recommended_add(foo)

# %% [cell 46]
foo = 100
buggy_add()
recommended_add(foo)

# %% [cell 47]
@tf.function
def variable_add():
  return 1 + foo

foo = tf.Variable(1)
variable_add()

# %% [cell 48]
foo.assign(100)
variable_add()

# %% [cell 49]
class SimpleModel(tf.Module):
  def __init__(self):
    self.bias = 0.
    self.weight = 2.

@tf.function
def evaluate(model, x):
  return model.weight * x + model.bias

simple_model = SimpleModel()
x = tf.constant(10.)
evaluate(simple_model, x)

# %% [cell 50]
simple_model.bias += 5.0
evaluate(simple_model, x)

# %% [cell 51]
def evaluate(model, x):
  return model.weight * x + model.bias

new_model = SimpleModel()
evaluate_no_bias = tf.function(evaluate).get_concrete_function(new_model, x)
evaluate_no_bias(x)

# %% [cell 53]
class BetterModel:
  def __init__(self):
    self.bias = tf.Variable(0.)
    self.weight = tf.Variable(2.)

@tf.function
def evaluate(model, x):
  return model.weight * x + model.bias

better_model = BetterModel()
evaluate(better_model, x)

# %% [cell 54]
better_model.bias.assign_add(5.0)
evaluate(better_model, x)

# %% [cell 55]
@tf.function
def f(x):
  v = tf.Variable(1.0)
  return v

f(1.0)

# %% [cell 56]
class Count(tf.Module):
  def __init__(self):
    self.count = None

  @tf.function
  def __call__(self):
    if self.count is None:
      self.count = tf.Variable(0)
    return self.count.assign_add(1)

c = Count()
c()
c()

# %% [cell 57]
opt1 = tf.keras.optimizers.Adam(learning_rate=1e-2)
opt2 = tf.keras.optimizers.Adam(learning_rate=1e-3)

@tf.function
def train_step(w, x, y, optimizer):
  with tf.GradientTape() as tape:
    L = tf.reduce_sum(tf.square(w * x - y))
  gradients = tape.gradient(L, [w])
  optimizer.apply_gradients(zip(gradients, [w]))

w = tf.Variable(2.)
x = tf.constant([-1.])
y = tf.constant([2.])

train_step(w, x, y, opt1)
train_step(w, x, y, opt2)

# %% [cell 58]
class TrainStep(tf.Module):
  def __init__(self, optimizer):
    self.optimizer = optimizer

  @tf.function
  def __call__(self, w, x, y):
    with tf.GradientTape() as tape:
      L = tf.reduce_sum(tf.square(w * x - y))
    gradients = tape.gradient(L, [w])
    self.optimizer.apply_gradients(zip(gradients, [w]))

train_o1 = TrainStep(opt1)
train_o2 = TrainStep(opt2)
train_o1(w, x, y)
train_o2(w, x, y)

# %% [cell 59]
def train_step(w, x, y, optimizer):
  with tf.GradientTape() as tape:
    L = tf.reduce_sum(tf.square(w * x - y))
  gradients = tape.gradient(L, [w])
  optimizer.apply_gradients(zip(gradients, [w]))

train_step_1 = tf.function(train_step)
train_step_2 = tf.function(train_step)
for i in range(10):
  if i % 2 == 0:
    train_step_1(w, x, y, opt1)
  else:
    train_step_2(w, x, y, opt2)
