"""Framework facts behind three static findings of issue 25, each run with the real TensorFlow
2.21 / Keras 3 (and tf_keras 2.21) and checked against what `stagelint check` says of the same
program: a positive program and its negative twin, with the error or the trace count the
framework gives.

* STG601: Keras's own loops (`Model.predict`, `predict_on_batch`, `evaluate`, `fit`) called in a
  `tf.function`, also through `self`, fail at trace time; `model(x, training=False)` works, and
  Keras 3 runs `train_on_batch` / `test_on_batch` inside the graph (tf_keras refuses them too).
* STG403: a function that makes a new optimizer (or model) on each call and passes it to the
  same `tf.function`, called in a loop, raises the singleton-variable ValueError on its second
  call; one optimizer made outside, one built before the call, or one Function per call run.
* STG501: a loop's Python int handed through a helper to a `tf.function` parameter traces once
  per value; a constant, a helper that converts it with `tf.constant`, or an `input_signature`
  trace once.
"""

from __future__ import annotations

import textwrap

import keras
import pytest
import tensorflow as tf

from stagelint.engine import check_source

pytestmark = pytest.mark.tf


def program(source: str) -> str:
    return textwrap.dedent(source).lstrip("\n")


def run(source: str) -> tuple[dict, str]:
    """Run the program with the real framework: its namespace, and the name of the exception it
    raised ("ok" for none)."""
    namespace: dict = {"__name__": "program"}
    try:
        exec(compile(program(source), "program.py", "exec"), namespace)  # noqa: S102 - the program under test
    except Exception as e:  # noqa: BLE001 - the type is what is asserted
        return namespace, type(e).__name__
    return namespace, "ok"


def run_eagerly(source: str) -> str:
    tf.config.run_functions_eagerly(True)
    try:
        return run(source)[1]
    finally:
        tf.config.run_functions_eagerly(False)


def findings(source: str, code: str) -> list:
    return [f for f in check_source(program(source)) if f.code == code]


def line_of(source: str, text: str) -> int:
    """The number of the program's first line that is `text` (stripped)."""
    return [line.strip() for line in program(source).splitlines()].index(text) + 1


# STG601: Keras's own loops in staged code ------------------------------------------------------------

_MODEL = """
    import keras
    import tensorflow as tf

    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2)])
    model.compile(optimizer="sgd", loss="mse")
    x = tf.ones([4, 3])
    y = tf.ones([4, 2])

"""


@pytest.mark.parametrize("call, error", [
    ("model.predict(x, verbose=0)", "AttributeError"),
    ("model.predict_on_batch(x)", "AttributeError"),
    ("model.evaluate(x, y, verbose=0)", "OperatorNotAllowedInGraphError"),
    ("model.fit(x, y, verbose=0)", "OperatorNotAllowedInGraphError"),
])
def test_a_keras_loop_in_a_tf_function_fails_while_tracing_and_is_reported(call, error):
    assert keras.__version__.startswith("3.")
    source = _MODEL + textwrap.indent(textwrap.dedent(f"""
        @tf.function
        def step(x, y):
            return {call}

        step(x, y)
    """), "    ")
    assert run(source)[1] == error
    assert run_eagerly(source) == "ok"
    (finding,) = findings(source, "STG601")
    assert finding.line == line_of(source, f"return {call}")
    method = call.split("(")[0].split(".")[1]
    assert f"`model.{method}()` runs Keras's own eager loop" in finding.message
    assert error in finding.message
    assert any("`model` is a Keras model (`keras.Sequential`)" in note.message for note in finding.because)


def test_calling_the_model_in_the_tf_function_runs_and_is_not_reported():
    source = _MODEL + """
    @tf.function
    def step(x, y):
        return model(x, training=False)

    step(x, y)
    """
    assert run(source)[1] == "ok"
    assert findings(source, "STG601") == []


def test_keras3_runs_train_on_batch_in_the_graph_so_it_is_not_reported():
    source = _MODEL + """
    @tf.function
    def step(x, y):
        return model.train_on_batch(x, y), model.test_on_batch(x, y)

    first = float(step(x, y)[0])
    second = float(step(x, y)[0])
    """
    namespace, outcome = run(source)
    assert outcome == "ok"
    assert namespace["second"] < namespace["first"]  # it trained, inside the graph, on each call
    assert namespace["step"].experimental_get_tracing_count() == 1
    assert findings(source, "STG601") == []


def test_tf_keras_refuses_train_on_batch_in_a_tf_function_and_it_is_reported():
    source = """
    import tensorflow as tf
    import tf_keras

    model = tf_keras.Sequential([tf_keras.Input((3,)), tf_keras.layers.Dense(2)])
    model.compile(optimizer="sgd", loss="mse")

    @tf.function
    def step(x, y):
        return model.train_on_batch(x, y)

    step(tf.ones([4, 3]), tf.ones([4, 2]))
    """
    assert run(source)[1] == "RuntimeError"
    (finding,) = findings(source, "STG601")
    assert finding.line == line_of(source, "return model.train_on_batch(x, y)") and "RuntimeError (Detected a call to `Model.train_on_batch`" in finding.message


_AGENT = """
    import keras
    import tensorflow as tf

    class Agent(keras.Model):
        def __init__(self):
            super().__init__()
            self.dense = keras.layers.Dense(2)
            self.target = keras.Sequential([keras.layers.Dense(2)])

        def call(self, x):
            return self.dense(x)

"""


def test_predict_through_self_in_a_model_subclass_fails_while_tracing_and_is_reported():
    source = _AGENT + """
        @tf.function
        def act(self, x):
            return self.predict(x, verbose=0)

        @tf.function
        def bootstrap(self, x):
            return self.target.predict(x, verbose=0)

    agent = Agent()
    x = tf.ones([1, 3])
    agent(x)
    agent.target(x)
    """
    assert run(source + "agent.act(x)\n")[1] == "AttributeError"
    assert run(source + "agent.bootstrap(x)\n")[1] == "AttributeError"
    reported = findings(source, "STG601")
    assert [f.line for f in reported] == [line_of(source, "return self.predict(x, verbose=0)"),
                                          line_of(source, "return self.target.predict(x, verbose=0)")]
    assert "call the model instead: `self(x, training=False)`" in reported[0].message
    assert any("`self` is a Keras model (`Agent`, a subclass of `keras.Model`)" in n.message
               for n in reported[0].because)
    assert "`self.target(x, training=False)`" in reported[1].message


def test_a_model_subclass_own_predict_is_not_keras_and_is_not_reported():
    source = _AGENT + """
        def predict(self, x):
            return self(x, training=False)

        @tf.function
        def act(self, x):
            return self.predict(x)

    agent = Agent()
    out = agent.act(tf.ones([1, 3]))
    """
    assert run(source)[1] == "ok"
    assert findings(source, "STG601") == []


def test_a_predict_that_is_not_a_keras_model_is_not_reported():
    """`.predict` spelt alone proves nothing: a project class (or scikit-learn) has one too."""
    source = """
    import tensorflow as tf

    class Scaler:
        def predict(self, x):
            return x * 2.0

    scaler = Scaler()

    @tf.function
    def step(x):
        return scaler.predict(x)

    out = step(tf.ones([2]))
    """
    assert run(source)[1] == "ok"
    assert findings(source, "STG601") == []


# STG501: a changing Python number handed on by a helper ----------------------------------------------

_STEP = """
    import tensorflow as tf

    w = tf.Variable(0.0)

    @tf.function{signature}
    def train_step(x, epoch):
        w.assign_add(tf.reduce_sum(x) * tf.cast(epoch, tf.float32))
        return w

    def run_epoch(x, e):
        {body}

    x = tf.ones([2])
    for epoch in range(5):
        run_epoch(x, {passed})
"""


def _helper_program(signature: str = "", body: str = "return train_step(x, e)", passed: str = "epoch") -> str:
    return _STEP.format(signature=signature, body=body, passed=passed)


def _traces(source: str) -> int:
    namespace, outcome = run(source)
    assert outcome == "ok"
    return namespace["train_step"].experimental_get_tracing_count()


def test_a_loop_variable_handed_on_by_a_helper_retraces_per_value_and_is_reported():
    source = _helper_program()
    assert _traces(source) == 5
    (finding,) = findings(source, "STG501")
    assert finding.line == line_of(source, "run_epoch(x, epoch)")  # where the changing number is passed
    assert "`epoch` for `epoch` of `train_step` (loop variable `epoch`, handed on by `run_epoch`)" in finding.message
    assert any("`run_epoch` passes its parameter on to `train_step` unchanged" in n.message and n.line == line_of(source, "return train_step(x, e)")
               for n in finding.because)


@pytest.mark.parametrize("variant", [
    {"passed": "1"},                                            # the same constant every epoch
    {"body": "return train_step(x, tf.constant(e))"},           # the helper converts it
    {"body": "e = tf.constant(e)\n        return train_step(x, e)"},
    {"signature": "(input_signature=[tf.TensorSpec([2]), tf.TensorSpec([], tf.int32)])"},
])
def test_a_constant_a_converted_value_or_a_signature_traces_once_and_is_not_reported(variant):
    source = _helper_program(**variant)
    assert _traces(source) == 1
    assert findings(source, "STG501") == []


# STG403: a new optimizer or model on each call of a function called in a loop ------------------------

_PER_CALL = """
    import keras
    import tensorflow as tf

    w = tf.Variable(2.0)
    {outside}
    {decorator}
    def train_step(w, x, optimizer):
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(tf.square(w * x))
        optimizer.apply_gradients(zip(tape.gradient(loss, [w]), [w]))
        return loss

    def train_once(x):
        {body}

    calls = 0
    {driver}
"""
_IN_A_LOOP = "for epoch in range(3):\n        train_once(tf.ones([2]))\n        calls += 1"
_NEW_OPTIMIZER = "opt = keras.optimizers.Adam(1e-2)\n        return train_step(w, x, opt)"


def _per_call_program(body: str = _NEW_OPTIMIZER, outside: str = "", driver: str = _IN_A_LOOP,
                      decorator: str = "@tf.function") -> str:
    return _PER_CALL.format(body=body, outside=outside, driver=driver, decorator=decorator)


def test_a_new_optimizer_per_call_of_a_function_called_in_a_loop_fails_on_the_second_call_and_is_reported():
    source = _per_call_program()
    namespace, outcome = run(source)
    assert outcome == "ValueError" and namespace["calls"] == 1  # the first call traces; the second raises
    assert run_eagerly(source) == "ok"
    (finding,) = findings(source, "STG403")
    assert finding.line == line_of(source, "return train_step(w, x, opt)")
    assert "gets a new one on each call of `train_once`, which is called in a loop" in finding.message
    assert "make the optimizer once, outside `train_once`, and pass it in" in finding.message
    notes = [n.message for n in finding.because]
    assert "`opt` is a new optimizer on each call of `train_once`" in notes
    assert "`train_once` is called in a loop" in notes


def test_a_new_model_per_call_of_a_function_called_in_a_loop_fails_and_is_reported():
    source = """
    import keras
    import tensorflow as tf

    @tf.function
    def forward(model, x):
        return model(x)

    def evaluate_once(x):
        model = keras.Sequential([keras.layers.Dense(2)])
        return forward(model, x)

    for epoch in range(3):
        evaluate_once(tf.ones([1, 3]))
    """
    assert run(source)[1] == "ValueError"
    (finding,) = findings(source, "STG403")
    assert finding.line == line_of(source, "return forward(model, x)") and "the model `model`" in finding.message


@pytest.mark.parametrize("outside, body, traces", [
    # one optimizer for every call: the Function traces once (twice: it creates the slots)
    ("opt = keras.optimizers.Adam(1e-2)\n", "return train_step(w, x, opt)", 2),
    # built before the call: a new object retraces each time, but creates no variable in the graph
    ("", "opt = keras.optimizers.Adam(1e-2)\n        opt.build([w])\n        return train_step(w, x, opt)", 3),
])
def test_an_optimizer_made_once_or_built_first_runs_and_is_not_reported(outside, body, traces):
    source = _per_call_program(body, outside)
    namespace, outcome = run(source)
    assert outcome == "ok" and namespace["calls"] == 3
    assert namespace["train_step"].experimental_get_tracing_count() == traces
    assert findings(source, "STG403") == []


def test_a_function_called_once_is_not_reported():
    source = _per_call_program(driver="train_once(tf.ones([2]))")
    assert run(source)[1] == "ok"
    assert findings(source, "STG403") == []



def test_one_function_per_call_of_the_maker_runs_and_is_not_reported():
    """The guide's workaround: each call makes its own Function, whose first trace creates the
    new optimizer's variables."""
    body = "opt = keras.optimizers.Adam(1e-2)\n        step = tf.function(train_step)\n        return step(w, x, opt)"
    source = _per_call_program(body, decorator="")
    namespace, outcome = run(source)
    assert outcome == "ok" and namespace["calls"] == 3
    assert findings(source, "STG403") == []
