"""A small training script with the staging pitfalls people hit most.

Run `stagelint check examples/` to see them reported; each comment says what goes wrong.
"""

import tensorflow as tf

LEARNING_RATE = 0.1  # bound once: a constant, safe to read in a tf.function
history = []
scale = 1.0


def log_loss(loss):
    print("loss:", loss)  # printed once per trace, not once per step
    history.append(loss)  # the list receives one symbolic tensor


class Model(tf.Module):
    def __init__(self):
        self.w = tf.Variable(2.0)
        self.steps = 0

    @tf.function
    def train_step(self, x, y):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(self.w * x * scale - y))  # `scale` is frozen
        grad = tape.gradient(loss, self.w)
        self.w.assign_sub(LEARNING_RATE * grad)
        self.steps += 1  # counts traces, not steps
        log_loss(loss)
        return loss


@tf.function
def make_counter(x):
    counter = tf.Variable(0)  # a new variable on every trace: ValueError
    return counter.assign_add(x)


@tf.function
def factorial(n):
    if n <= 1:
        return tf.constant(1)
    return n * factorial(n - 1)  # recursion never finishes tracing


def main():
    global scale
    model = Model()
    x = tf.constant([1.0, 2.0])
    for _ in range(3):
        model.train_step(x, 2 * x)
    scale = 2.0
    model.train_step(x, 2 * x)  # the traced train_step still multiplies by 1.0


if __name__ == "__main__":
    main()
