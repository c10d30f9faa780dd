"""Issue 23, the nineteenth TensorFlow audit's held-back half (BV), classes BV-t2 (STG101) and BV-t3
(STG301), fixed after its measure: the framework facts they follow, each with its negative twin.
Behaviour checked with TensorFlow 2.21 in this venv (tests/runtime/test_tf_nineteenth_audit_bv_facts.py)."""

from __future__ import annotations

from rulecases import assert_tiers


def test_a_global_rebound_before_each_new_map_call_is_read_by_that_trace():
    """BV-t3, open-ncd-kbc's training script: a loop over configurations rebinds the vectorizers
    (in either arm of an `if`; here a constant stands for them) and then calls `make_dataset`, whose `dataset.map(format_dataset)`
    traces anew with the current binding. Not reported."""
    assert_tiers("""
        import tensorflow as tf

        input_vectorizer = tf.constant(1.0)


        def format_dataset(x):
            return x * input_vectorizer


        def make_dataset(xs):
            return tf.data.Dataset.from_tensor_slices(xs).map(format_dataset)


        for line in ["a", "b"]:
            if line == "a":
                input_vectorizer = tf.constant(float(len(line)))
                train_ds = make_dataset([1.0])
            else:
                input_vectorizer = tf.constant(float(len(line)))
            val_ds = make_dataset([2.0])
            for batch in val_ds:
                print(batch)
    """)


def test_a_dataset_built_before_the_rebinding_and_iterated_after_keeps_the_old_value():
    """The twin: the dataset is built above the rebinding in the same iteration and iterated
    below it: its trace holds the value bound before. Reported."""
    assert_tiers("""
        import tensorflow as tf

        input_vectorizer = tf.constant(1.0)


        def format_dataset(x):
            return x * input_vectorizer  # STG301


        def make_dataset(xs):
            return tf.data.Dataset.from_tensor_slices(xs).map(format_dataset)


        for line in ["a", "b"]:
            val_ds = make_dataset([2.0])
            input_vectorizer = tf.constant(float(len(line)))
            for batch in val_ds:
                print(batch)
    """)


def test_a_lambda_handed_to_a_project_wrapper_of_py_function_runs_as_python():
    """BV-t2, TC-Prediction's loaders: the map lambda hands an inner lambda to the repository's
    `new_py_function`, whose nested `wrapped_func` calls it and is given to `tf.py_function`.
    py_function runs its func as Python at every execution, so the loader's `print` runs per
    element. Not reported."""
    assert_tiers("""
        import tensorflow as tf


        def new_py_function(func, inp, Tout):
            def wrapped_func(*flat_inp):
                return func(*flat_inp)

            return tf.py_function(func=wrapped_func, inp=inp, Tout=Tout)


        def load(x):
            print("loading", x)
            return x * 2


        def make(xs):
            ds = tf.data.Dataset.from_tensor_slices(xs)
            return ds.map(
                lambda row: new_py_function(
                    lambda r: load(r.numpy()),
                    inp=[row],
                    Tout=[tf.float32],
                )
            )
    """)


def test_a_lambda_handed_to_a_project_function_that_calls_it_in_the_trace_is_traced():
    """The twin: the project function calls the lambda it is given itself, in the map's trace
    (no py_function): the `print` runs once, while the map function is traced. Reported."""
    assert_tiers("""
        import tensorflow as tf


        def apply(func, inp):
            return func(inp)


        def load(x):
            print("loading", x)  # STG101
            return x * 2


        def make(xs):
            ds = tf.data.Dataset.from_tensor_slices(xs)
            return ds.map(lambda row: apply(lambda r: load(r), row))
    """)
