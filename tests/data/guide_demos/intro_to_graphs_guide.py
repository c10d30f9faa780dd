# A re-statement, written for stagelint's tests, of the staging pitfalls that TensorFlow's
# guide "Introduction to graphs and tf.function" (site/en/guide/intro_to_graphs.ipynb)
# demonstrates, in the guide's order, one `# %% [cell N]` block per guide cell that matters
# (cell numbers of `bench/notebooks.py` on the pinned notebook). Expectations: expected.csv.

# %% [cell 2]
import tensorflow as tf
import timeit

# %% [cell 5]
def simple_relu(x):
  if tf.greater(x, 0):
    return x
  else:
    return 0

tf_simple_relu = tf.function(simple_relu)
tf_simple_relu(tf.constant(1))
tf_simple_relu(tf.constant(-1))

# %% [cell 17]
@tf.function
def get_MSE(y_true, y_pred):
  print("Calculating MSE!")
  sq_diff = tf.pow(y_true - y_pred, 2)
  return tf.reduce_mean(sq_diff)

# %% [cell 18]
y_true = tf.random.uniform([5], maxval=10, dtype=tf.int32)
y_pred = tf.random.uniform([5], maxval=10, dtype=tf.int32)
error = get_MSE(y_true, y_pred)
error = get_MSE(y_true, y_pred)

# %% [cell 23]
@tf.function
def unused_return_graph(x):
  tf.gather(x, [1])
  return x

unused_return_graph(tf.constant([0.0]))

# %% [cell 24]
x = tf.random.uniform(shape=[10, 10], minval=-1, maxval=2, dtype=tf.dtypes.int32)

def power(x, y):
  result = tf.eye(10, dtype=tf.dtypes.int32)
  for _ in range(y):
    result = tf.matmul(x, result)
  return result

# %% [cell 26]
power_as_graph = tf.function(power)
timeit.timeit(lambda: power_as_graph(x, 100), number=1000)

# %% [cell 27]
@tf.function
def a_function_with_python_side_effect(x):
  print("Tracing!")
  return x * x + tf.constant(2)

a_function_with_python_side_effect(tf.constant(2))
a_function_with_python_side_effect(tf.constant(3))

# %% [cell 28]
a_function_with_python_side_effect(2)
a_function_with_python_side_effect(3)
