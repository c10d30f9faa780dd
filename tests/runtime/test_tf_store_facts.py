"""What TensorFlow 2.21 does to Python state a `tf.function` writes (STG102's steps,
`stores.lost_on_reuse_fact` and `objects._rebound_in_call`), observed with real TensorFlow.

A change made again on every eager call (`+= 1`, `append`) is made once per trace: the calls
that reuse the trace leave the state behind. A store a repeated call makes again with the same
value (`self.dropout.rate = self.rate`, the same `tf.Variable` every call; a flag set to `True`)
leaves what eager code leaves. A dict a call inside the trace returns, changed and returned,
is the trace's own: each call returns it changed, and the caller's dict is untouched."""

from __future__ import annotations

import pytest

tf = pytest.importorskip("tensorflow")


class _Layer(tf.Module):
    def __init__(self):
        self.rate = tf.Variable(0.5, trainable=False)
        self.dropout = tf.keras.layers.Dropout(0.1)
        self.steps = 0
        self.seen = []
        self.ready = False

    def call(self, x):
        self.dropout.rate = self.rate  # the same Variable on every call
        self.ready = True
        self.steps += 1
        self.seen.append(1)
        return x * self.rate


def test_a_change_made_every_call_is_made_once_per_trace_a_repeated_store_is_not_lost():
    for staged in (False, True):
        layer = _Layer()
        fn = tf.function(layer.call) if staged else layer.call
        for _ in range(3):
            out = fn(tf.constant(2.0))
        layer.rate.assign(0.25)
        out = fn(tf.constant(2.0))
        # the repeated store: the same object, and the Variable's new value reaches the reused trace
        assert layer.dropout.rate is layer.rate and layer.ready is True
        assert float(out) == 0.5
        # the per-call change: 4 eager calls count 4, the traced Function counts its one trace
        assert (layer.steps, len(layer.seen)) == ((1, 1) if staged else (4, 4)), staged


def test_a_dict_a_call_in_the_trace_returns_is_the_traces_own_not_the_callers():
    """Merlin's `inputs = prepare_features(inputs)` then `inputs[k] = ...; del inputs[k];
    return inputs` (sixth audit, V): writing into what the call returned changes nothing the
    caller holds, and every call of the reused trace returns it changed. Writing into the
    argument itself is refused ("should not modify its Python input arguments")."""
    prepare = tf.keras.layers.Lambda(lambda d: {k: tf.identity(v) for k, v in d.items()})

    @tf.function
    def last_as_target(inputs):
        inputs = prepare(inputs)
        inputs["seq"] = inputs["seq"][:, :-1]
        inputs["extra"] = inputs["seq"] * 2
        del inputs["other"]
        return inputs

    @tf.function
    def in_place(inputs):
        inputs["seq"] = inputs["seq"][:, :-1]
        return inputs

    for n in (3, 4):
        given = {"seq": tf.ones([2, n]), "other": tf.zeros([2])}
        out = last_as_target(given)
        assert sorted(out) == ["extra", "seq"] and out["seq"].shape == (2, n - 1)
        assert sorted(given) == ["other", "seq"] and given["seq"].shape == (2, n)
    assert last_as_target.experimental_get_tracing_count() == 2
    with pytest.raises(ValueError, match="should not modify its Python input arguments"):
        in_place({"seq": tf.ones([2, 3])})


def test_a_stateful_random_op_with_a_seed_drawn_at_trace_time_still_draws_anew_per_call():
    """STG104's preview step for a draw a helper returns (edward2's `gen_int_seed`): as the op
    seed of a stateful random op, the trace's constant seed still gives a new draw per call."""
    import random

    @tf.function
    def sample():
        return tf.random.normal([4], seed=random.randrange(2**31 - 1))

    a, b = sample(), sample()
    assert sample.experimental_get_tracing_count() == 1
    assert not bool(tf.reduce_all(a == b))


def test_an_in_test_is_a_python_bool_never_a_tf_cond():
    """STG101's `_membership_test`: `if KEY in features:` in a traced function is decided while
    tracing (one branch traced); a tensor on the right cannot be tested so: it raises, never
    becoming a `tf.cond`."""
    traced = []

    @tf.function
    def fn(features):
        if "seed" in features:
            traced.append("in")
        else:
            traced.append("else")
        return features["x"]

    fn({"x": tf.constant(1), "seed": tf.constant(2)})
    assert traced == ["in"]

    @tf.function
    def on_a_tensor(x):
        if 1 in x:
            return x + 1
        return x

    with pytest.raises((TypeError, tf.errors.OperatorNotAllowedInGraphError)):
        on_a_tensor(tf.constant([1, 2]))


class _Trainer:
    """TensorDiffEq's `train_op` (seventh audit, Z): the call stores the place anew, then extends it."""

    def __init__(self):
        self.net = tf.keras.Sequential([tf.keras.Input((2,)), tf.keras.layers.Dense(1)])
        self.extra = [tf.Variable(1.0)]
        self.base = []

    def fresh(self, x):
        self.variables = self.net.trainable_variables  # a new list on every access
        self.variables.extend(self.extra)
        return x

    def shared(self, x):
        self.kept = self.base  # the same list on every call
        self.kept.append(1)
        return x


def test_a_change_to_what_the_same_call_stored_anew_is_lost_only_if_that_is_one_object_every_call():
    """`stores.stored_anew_above`: a per-call change (`extend`, `append`) to a place the same call
    first stored anew leaves what eager code leaves when the stored value is a new object per call
    (Keras's `trainable_variables`), and is made once per trace when it is the same object
    (`self.kept = self.base`): which one the store gives is not shown, so the step is a guess."""
    for staged in (False, True):
        t = _Trainer()
        fresh = tf.function(t.fresh) if staged else t.fresh
        shared = tf.function(t.shared) if staged else t.shared
        for _ in range(3):
            fresh(tf.constant(1.0))
            shared(tf.constant(1.0))
        assert len(t.variables) == 3  # kernel, bias, extra: eager and traced alike
        assert t.net.trainable_variables is not t.net.trainable_variables
        assert len(t.base) == (1 if staged else 3), staged


def _wrap_once(fn):
    if getattr(fn, "wrapped", False):
        return fn

    def wrapper(*args):
        return fn(*args)

    wrapper.wrapped = True
    return wrapper


class _Recomputed:
    def __init__(self):
        self.flags, self.default, self.hook = 0, None, abs
        self.total, self.scale = 0, 1

    def call(self, x):
        self.flags |= 2  # `frameworks.REPEAT_CHANGING_OPERATORS` leaves `|` out
        self.default = self.default or 3
        self.hook = _wrap_once(self.hook)  # a normalising call
        self.total = self.total + 1
        self.scale = self.scale * 2
        return x


def test_a_store_computed_from_the_place_is_lost_on_reuse_only_when_repeating_it_changes_it_again():
    """`stores.changes_every_call`: arithmetic over the place (`x = x + 1`, `x = x * 2`) changes it
    again on every eager call, so a reused trace leaves it behind; `x |= y`, `x = x or default` and
    a normalising call give the same value back on a repeated call: eager and traced calls leave
    the same state (`recomputed_from_itself`, the preview tier)."""
    for staged in (False, True):
        obj = _Recomputed()
        fn = tf.function(obj.call) if staged else obj.call
        for _ in range(3):
            fn(tf.constant(1.0))
        assert (obj.flags, obj.default, obj.hook.wrapped) == (2, 3, True)
        assert (obj.total, obj.scale) == ((1, 2) if staged else (3, 8)), staged


class _Routing(tf.keras.layers.Layer):
    """RecLearn's capsule routing: a scratch tensor rebound on `self` at the top of every call
    and read only within the call, after that store."""

    def call(self, x):
        self.logits = tf.zeros_like(x)
        for _ in range(3):
            self.logits = self.logits + tf.nn.softmax(self.logits) * x
        return self.logits * 2.0


def test_a_scratch_tensor_stored_and_read_within_each_call_is_never_stale():
    """STG201's scratch step (`stores.scratch_only`): every read of the place comes after the
    same call's store, so each trace reads the tensor of its own graph: two traces, a Keras
    functional model and a fit run raise nothing, and the traced results equal the eager ones."""
    layer = _Routing(name="routing")
    eager = [layer(tf.ones((2, 3))), layer(tf.ones((4, 5)))]
    step = tf.function(layer.__call__)
    traced = [step(tf.ones((2, 3))), step(tf.ones((4, 5)))]  # two traces
    assert all(bool(tf.reduce_all(e == t)) for e, t in zip(eager, traced))
    inputs = tf.keras.Input((3,))
    model = tf.keras.Model(inputs, _Routing(name="routing2")(inputs))
    model.compile(loss="mse")
    model.fit(tf.ones((4, 3)), tf.ones((4, 3)), epochs=1, verbose=0)


def test_a_scratch_tensor_read_after_the_call_or_before_the_next_store_is_stale():
    """The negative twins: read after the traced call, the place holds the trace's symbolic
    tensor (no value); read in a later trace before that trace stores it, it is the earlier
    graph's tensor, which TensorFlow refuses."""
    layer = _Routing(name="routing")
    step = tf.function(layer.__call__)
    step(tf.ones((2, 3)))
    assert not hasattr(layer.logits, "numpy") or tf.is_symbolic_tensor(layer.logits)
    with pytest.raises(Exception, match="out of scope|graph"):
        tf.add(layer.logits, 1.0)

    class ReadsFirst(_Routing):
        def call(self, x):
            if getattr(self, "logits", None) is not None:
                x = x + tf.reduce_sum(self.logits)  # the previous trace's tensor
            return super().call(x)

    first = ReadsFirst(name="reads_first")
    again = tf.function(first.__call__)
    again(tf.ones((2, 3)))
    with pytest.raises(Exception, match="out of scope|graph|Graph"):
        again(tf.ones((4, 5)))


class _Decoder(tf.keras.layers.Layer):
    """The eighteenth TF audit's BQ-P1/BQ-P5: state reset in `__init__` to a placeholder, then at
    the top of every call, rebound by unpacking (`out, self.state = ...`) and a list grown and
    item-stored, all read only later in the same call."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.state = None
        self.outs = None

    def call(self, x):
        self.state = tf.zeros_like(x)
        self.outs = []
        for _ in range(3):
            out, self.state = x + self.state, self.state + 1.0
            self.outs.append(out)
        for i in range(1, len(self.outs)):
            self.outs[i] = self.outs[i] + self.outs[i - 1]
        return tf.stack(self.outs)


def test_scratch_state_unpacked_or_a_list_grown_within_each_call_is_never_stale():
    """STG102's and STG201's scratch step (`stores.scratch_only`): the calls that reuse a trace
    skip the stores, and need none of them: traced results equal the eager ones over several
    calls and two traces (to float rounding), and so do Keras's `predict` calls."""
    layer = _Decoder(name="decoder")
    step = tf.function(layer.__call__)
    for shape in [(2, 3), (2, 3), (2, 3), (4, 5), (4, 5)]:
        x = tf.random.uniform(shape)
        assert float(tf.reduce_max(tf.abs(step(x) - layer(x)))) < 1e-5  # (graph rewrites round)
    assert step.experimental_get_tracing_count() == 2
    model = tf.keras.Sequential([_Decoder(name="decoder2")])
    for _ in range(2):  # Keras's predict function traces `call` once and reuses the trace
        x = tf.random.uniform((4, 3))
        assert float(tf.reduce_max(tf.abs(model.predict(x, batch_size=4, verbose=0) - layer(x)))) < 1e-5


def test_scratch_state_read_after_a_traced_call_is_the_traces_tensor():
    """The negative twin: read after a traced call (a loss method reading `self.outs`), the place
    holds the trace's symbolic tensors, not the call's values."""
    layer = _Decoder(name="decoder3")
    step = tf.function(layer.__call__)
    step(tf.ones((2, 3)))
    assert all(tf.is_symbolic_tensor(t) for t in layer.outs)
    with pytest.raises(Exception, match="out of scope|graph|Graph"):
        tf.add(layer.outs[0], 1.0)
