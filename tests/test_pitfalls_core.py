"""The guide's own examples (pitfalls.md §2, T01..T64, T-X1..X4) for the core rules.

Each case is the seed's code, re-typed, with the expected finding marked on its line
(`# STG101`). Only the core codes are compared here; the rest of the catalog has its own
tests. A case with no marker is correct code that must stay silent.
"""

from __future__ import annotations

import pytest

from conftest import marked, pairs

CORE = {"STG000", "STG101", "STG102", "STG201", "STG301", "STG401", "STG402"}

CASES = {
    "T01-T03 a Function called like an op, nested Functions": """
        import tensorflow as tf

        @tf.function
        def add(a, b):
            return a + b

        @tf.function
        def dense_layer(x, w, b):
            return add(tf.matmul(x, w), b)

        v = tf.Variable(1.0)
        with tf.GradientTape() as tape:
            result = add(v, 1.0)
        tape.gradient(result, v)
        dense_layer(tf.ones([3, 2]), tf.ones([2, 2]), tf.ones([2]))
    """,
    "T04 a graph Function equals the Python function": """
        import tensorflow as tf

        def a_regular_function(x, y, b):
            x = tf.matmul(x, y)
            x = x + b
            return x

        a_function_that_uses_a_graph = tf.function(a_regular_function)
        x1 = tf.constant([[1.0, 2.0]])
        orig_value = a_regular_function(x1, x1, x1).numpy()
    """,
    "T05 callees are traced into the outer graph": """
        import tensorflow as tf

        def inner_function(x, y, b):
            x = tf.matmul(x, y)
            x = x + b
            return x

        @tf.function
        def outer_function(x):
            y = tf.constant([[2.0], [3.0]])
            b = tf.constant(4.0)
            return inner_function(x, y, b)
    """,
    "T06-T08 print while tracing (double)": """
        import tensorflow as tf

        @tf.function
        def double(a):
            print("Tracing with", a)  # STG101
            return a + a

        print(double(tf.constant(1)))
        print(double(tf.constant(1.1)))
        print(double.pretty_printed_concrete_signatures())
    """,
    "T09-T11 my_relu polymorphism": """
        import tensorflow as tf

        @tf.function
        def my_relu(x):
            return tf.maximum(0., x)

        print(my_relu(tf.constant(5.5)))
        print(my_relu([1, -1]))
        print(my_relu.pretty_printed_concrete_signatures())
    """,
    "T12/T13 train(num_steps)": """
        import tensorflow as tf

        def train_one_step():
            pass

        @tf.function
        def train(num_steps):
            print("Tracing with num_steps = ", num_steps)  # STG101
            tf.print("Executing with num_steps = ", num_steps)
            for _ in tf.range(num_steps):
                train_one_step()

        train(num_steps=10)
        train(num_steps=tf.constant(10))
    """,
    "T14/T15 a Python side effect traces per Python value": """
        import tensorflow as tf

        @tf.function
        def a_function_with_python_side_effect(x):
            print("Tracing!")  # STG101
            return x * x + tf.constant(2)

        print(a_function_with_python_side_effect(tf.constant(2)))
        print(a_function_with_python_side_effect(2))
    """,
    "T16/T17 input_signature": """
        import tensorflow as tf

        @tf.function(input_signature=(tf.TensorSpec(shape=[None], dtype=tf.int32),))
        def next_collatz(x):
            print("Tracing with", x)  # STG101
            return tf.where(x % 2 == 0, x // 2, 3 * x + 1)

        @tf.function(input_signature=(tf.TensorSpec(shape=[None], dtype=tf.int32),))
        def g(x):
            print('Tracing with', x)  # STG101
            return x
    """,
    "T18 separate Function objects": """
        import tensorflow as tf

        def f():
            print('Tracing!')  # STG101
            tf.print('Executing')

        tf.function(f)()
        tf.function(f)()
    """,
    "T24 a Python argument baked into a concrete function": """
        import tensorflow as tf

        @tf.function
        def pow(a, b):
            return a ** b

        square = pow.get_concrete_function(a=tf.TensorSpec(None, tf.float32), b=2)
    """,
    "T26 print vs tf.print": """
        import tensorflow as tf

        @tf.function
        def f(x):
            print("Traced with", x)  # STG101
            tf.print("Executed with", x)

        f(1)
        f(1)
        f(2)
    """,
    "T27/T28 get_MSE under run_functions_eagerly": """
        import tensorflow as tf

        @tf.function
        def get_MSE(y_true, y_pred):
            print("Calculating MSE!")  # STG101
            sq_diff = tf.pow(y_true - y_pred, 2)
            return tf.reduce_mean(sq_diff)

        y_true = tf.constant([1, 0, 4, 4, 7])
        y_pred = tf.constant([3, 6, 3, 0, 6])
        error = get_MSE(y_true, y_pred)
        tf.config.run_functions_eagerly(True)
        error = get_MSE(y_true, y_pred)
        tf.config.run_functions_eagerly(False)
    """,
    "T29 list.append only at trace time": """
        import tensorflow as tf

        external_list = []

        @tf.function
        def side_effect(x):
            print('Python side effect')  # STG101
            external_list.append(x)  # STG102

        side_effect(1)
        side_effect(1)
        side_effect(1)
        assert len(external_list) == 1
    """,
    "T30 counter guard (the mutation; the guard itself is STG105)": """
        import tensorflow as tf

        class Model(tf.Module):
            def __init__(self):
                self.v = tf.Variable(0)
                self.counter = 0

            @tf.function
            def __call__(self):
                if self.counter == 0:
                    self.counter += 1  # STG102
                    self.v.assign_add(1)
                return self.v

        m = Model()
        for n in range(3):
            print(m().numpy())
    """,
    "T31 the counter under tf.init_scope": """
        import tensorflow as tf

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
    """,
    "T33 a tf.data iterator": """
        import tensorflow as tf

        @tf.function
        def good_consume_next(iterator):
            tf.print("Value:", next(iterator))

        ds = tf.data.Dataset.from_tensor_slices([1, 2, 3])
        iterator = iter(ds)
        good_consume_next(iterator)
    """,
    "T34/T35 tf.py_function runs eagerly": """
        import tensorflow as tf

        @tf.py_function(Tout=tf.float32)
        def py_plus(x, y):
            print('Executing eagerly.')
            return x + y

        @tf.function
        def tf_wrapper(x, y):
            print('Tracing.')  # STG101
            return py_plus(x, y)

        tf_wrapper(tf.constant(1.0), tf.constant(2.0)).numpy()
    """,
    "T36 TensorArray in an AutoGraph loop": """
        import tensorflow as tf

        def rnn_step(inp, state):
            return inp + state

        @tf.function
        def dynamic_rnn(rnn_step, input_data, initial_state):
            input_data = tf.transpose(input_data, [1, 0, 2])
            max_seq_len = input_data.shape[0]
            states = tf.TensorArray(tf.float32, size=max_seq_len)
            state = initial_state
            for i in tf.range(max_seq_len):
                state = rnn_step(input_data[i], state)
                states = states.write(i, state)
            return tf.transpose(states.stack(), [1, 0, 2])
    """,
    "T37 leaking through a global": """
        import tensorflow as tf

        x = None

        @tf.function
        def leaky_function(a):
            global x
            x = a + 1  # STG201
            return a + 2

        correct_a = leaky_function(tf.constant(1))
        print(correct_a.numpy())
    """,
    "T38 using the leaked tensor in another function": """
        import tensorflow as tf

        @tf.function
        def leaky_function(a):
            global x
            x = a + 1  # STG201
            return x

        correct_a = leaky_function(tf.constant(1))

        @tf.function
        def captures_leaked_tensor(b):
            b += x  # preview STG301 (no call of it is shown after leaky_function's write)
            return b
    """,
    "T39 other leak channels (decorated, as the test idea says)": """
        import tensorflow as tf

        class MyClass:
            def __init__(self):
                self.field = None

        external_list = []
        external_object = MyClass()

        @tf.function
        def leaky_function():
            a = tf.constant(1)
            external_list.append(a)  # STG201
            external_object.field = a  # STG201
    """,
    "T40 a closure over a Python global is frozen": """
        import tensorflow as tf

        @tf.function
        def buggy_add():
            return 1 + foo  # STG301

        @tf.function
        def recommended_add(foo):
            return 1 + foo

        foo = 1
        print("Buggy:", buggy_add())
        print("Correct:", recommended_add(foo))
        foo = 100
        print("Buggy:", buggy_add())
    """,
    "T41 a global tf.Variable is read at run time": """
        import tensorflow as tf

        @tf.function
        def variable_add():
            return 1 + foo

        foo = tf.Variable(1)
        print("Variable:", variable_add())
        foo.assign(100)
        print("Variable:", variable_add())
    """,
    "T44 Variable attributes updated with assign_add": """
        import tensorflow as tf

        class BetterModel:
            def __init__(self):
                self.bias = tf.Variable(0.)
                self.weight = tf.Variable(2.)

        @tf.function
        def evaluate(model, x):
            return model.weight * x + model.bias

        better_model = BetterModel()
        x = tf.constant(10.)
        print(evaluate(better_model, x))
        better_model.bias.assign_add(5.0)
    """,
    "T45 a captured tf.Variable rebound (STG303, not a stale global)": """
        import tensorflow as tf

        external_var = tf.Variable(3)

        @tf.function
        def f(x):
            return x * external_var

        traced_f = f.get_concrete_function(4)
        external_var = tf.Variable(4)
    """,
    "T46 creating a tf.Variable inside the function": """
        import tensorflow as tf

        @tf.function
        def f(x):
            v = tf.Variable(1.0)  # STG402
            return v
    """,
    "T47 lazy creation guarded by `is None`": """
        import tensorflow as tf

        class Count(tf.Module):
            def __init__(self):
                self.count = None

            @tf.function
            def __call__(self):
                if self.count is None:
                    self.count = tf.Variable(0)
                return self.count.assign_add(1)

        c = Count()
        print(c())
        print(c())
    """,
    "T49-T51 optimizer workarounds": """
        import tensorflow as tf

        opt1 = tf.keras.optimizers.Adam(learning_rate=1e-2)
        opt2 = tf.keras.optimizers.Adam(learning_rate=1e-3)

        def train_step(w, x, y, optimizer):
            with tf.GradientTape() as tape:
                L = tf.reduce_sum(tf.square(w*x - y))
            gradients = tape.gradient(L, [w])
            optimizer.apply_gradients(zip(gradients, [w]))

        class TrainStep(tf.Module):
            def __init__(self, optimizer):
                self.optimizer = optimizer

            @tf.function
            def __call__(self, w, x, y):
                with tf.GradientTape() as tape:
                    L = tf.reduce_sum(tf.square(w*x - y))
                gradients = tape.gradient(L, [w])
                self.optimizer.apply_gradients(zip(gradients, [w]))

        w = tf.Variable(2.)
        x = tf.constant([-1.])
        y = tf.constant([2.])
        train_step_1 = tf.function(train_step)
        train_step_2 = tf.function(train_step)
        for i in range(10):
            if i % 2 == 0:
                train_step_1(w, x, y, opt1)
            else:
                train_step_2(w, x, y, opt2)
        train_o1 = TrainStep(opt1)
        train_o1(w, x, y)
    """,
    "T52 a tensor `if` becomes tf.cond": """
        import tensorflow as tf

        def simple_relu(x):
            if tf.greater(x, 0):
                return x
            else:
                return 0

        tf_simple_relu = tf.function(simple_relu)
        print("First branch, with graph:", tf_simple_relu(tf.constant(1)).numpy())
    """,
    "T55 fizzbuzz: every branch traced once": """
        import tensorflow as tf

        @tf.function
        def fizzbuzz(n):
            for i in tf.range(1, n + 1):
                print('Tracing for loop')  # STG101
                if i % 15 == 0:
                    print('Tracing fizzbuzz branch')  # STG101
                    tf.print('fizzbuzz')
                elif i % 3 == 0:
                    print('Tracing fizz branch')  # STG101
                    tf.print('fizz')
                elif i % 5 == 0:
                    print('Tracing buzz branch')  # STG101
                    tf.print('buzz')
                else:
                    print('Tracing default branch')  # STG101
                    tf.print(i)

        fizzbuzz(tf.constant(5))
        fizzbuzz(tf.constant(20))
    """,
    "T56 a tensor while loop": """
        import tensorflow as tf

        @tf.function
        def f(x):
            while tf.reduce_sum(x) > 1:
                tf.print(x)
                x = tf.tanh(x)
            return x

        f(tf.random.uniform([5]))
    """,
    "T59 a recursive tf.function with a tensor argument": """
        import tensorflow as tf

        @tf.function
        def recursive_fn(n):
            if n > 0:
                return recursive_fn(n - 1)  # STG401
            else:
                return 1

        recursive_fn(tf.constant(5))
    """,
    "T60 recursion with a Python int traces per depth": """
        import tensorflow as tf

        @tf.function
        def recursive_fn(n):
            if n > 0:
                print('tracing')  # STG101
                return recursive_fn(n - 1)  # STG401
            else:
                return 1

        recursive_fn(5)
    """,
    "T63 a global Keras layer used in a tf.function": """
        import tensorflow as tf

        conv_layer = tf.keras.layers.Conv2D(100, 3)

        @tf.function
        def conv_fn(image):
            return conv_layer(image)

        image = tf.zeros([1, 200, 200, 100])
        conv_layer(image)
        conv_fn(image)
    """,
    "T-X2 a variable outside vs a variable inside": """
        import tensorflow as tf

        x = tf.Variable(1.0, dtype=tf.float32)

        @tf.function
        def outer_var():
            x.assign_add(1.0)
            tf.print(x)
            return x

        @tf.function
        def inner_var():
            x = tf.Variable(1.0, dtype=tf.float32)  # STG402
            x.assign_add(1.0)
            tf.print(x)
            return x
    """,
    "T-X3 appending tensors to an outer list": """
        import tensorflow as tf

        tensor_list = []

        @tf.function
        def append_tensor(x):
            tensor_list.append(x)  # STG201
            return tensor_list

        append_tensor(tf.constant(5.0))
        append_tensor(tf.constant(6.0))
        print(tensor_list)
    """,
    "T-X4 trace-time output comes before run-time output": """
        import tensorflow as tf

        @tf.function(autograph=True)
        def myadd(a, b):
            for i in tf.range(3):
                tf.print(i)
            c = a + b
            print("tracing")  # STG101
            return c

        myadd(tf.constant("hello"), tf.constant("world"))
    """,
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_guide_case(name):
    source = CASES[name]
    assert pairs(source, CORE) == marked(source, CORE)


def test_every_core_rule_is_shown_by_some_guide_case():
    shown = {code for source in CASES.values() for _, code in marked(source)}
    assert CORE - {"STG000"} <= shown
