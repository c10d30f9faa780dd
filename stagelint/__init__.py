"""stagelint: find tf.function staging pitfalls, statically and by running the user's tests."""

__version__ = "0.2.0"
