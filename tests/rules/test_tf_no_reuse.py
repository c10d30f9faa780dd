"""Rules whose loss is a call that reuses a trace (STG102 writes, STG301/STG302 reads) say nothing
where no call of the TensorFlow Function reuses one (`analysis.repetition.no_reuse`): a
`@tf.function` method is one Function per object (TF 2.21, tests/runtime/test_tf_no_reuse_facts.py),
so one that `__init__` alone calls, once, and a `@tf.function def __init__`, trace on their one
call per object and run their Python effects every time (the seventeenth audit's BN-P1: Reflect's
`create_vars`, BayesFlow's `MCMCSurrogateLikelihood.__init__`). The twins: the same method also
called from another method, twice in `__init__`, in a loop, on an object of unknown class, or an
`__init__` called again on a made object: reported as before."""

from __future__ import annotations

from rulecases import assert_tiers


def test_a_builder_method_init_calls_once_per_object_reuses_no_trace():
    # Reflect's LmLSTM: `__init__` calls the @tf.function `create_vars` once
    assert_tiers("""
        import tensorflow as tf

        class LmLSTM(tf.keras.Model):
            def __init__(self, hparams):
                super().__init__()
                self.hparams = hparams
                self.stacked_rnns = []
                self.built_times = 0
                self.create_vars()

            @tf.function
            def create_vars(self):
                self.input_embedding = tf.keras.layers.Embedding(10, 4)
                self.stacked_rnns.append(tf.keras.layers.Dense(4))
                self.built_times += 1

            def call(self, x):
                return self.input_embedding(x)
    """)


def test_a_builder_method_also_called_elsewhere_is_reported():
    # the twin: `call` calls it again on the same object, whose Function reuses its trace
    assert_tiers("""
        import tensorflow as tf

        class LmLSTM(tf.keras.Model):
            def __init__(self, hparams):
                super().__init__()
                self.hparams = hparams
                self.stacked_rnns = []
                self.built_times = 0
                self.create_vars()

            @tf.function
            def create_vars(self):
                self.input_embedding = tf.keras.layers.Embedding(10, 4)
                self.stacked_rnns.append(tf.keras.layers.Dense(4))  # STG102
                self.built_times += 1  # STG102

            def call(self, x):
                self.create_vars()
                return self.input_embedding(x)
    """)


def test_a_builder_called_twice_per_object_or_in_a_loop_is_reported():
    # a subclass whose `__init__` calls it after `super().__init__()` did (Reflect's
    # BertSharedWeights), and a call in a loop of `__init__`
    assert_tiers("""
        import tensorflow as tf

        class Base(tf.Module):
            def __init__(self):
                self.count = 0
                self.make()

            @tf.function
            def make(self):
                self.count += 1  # STG102

        class Twice(Base):
            def __init__(self):
                super().__init__()
                self.make()

        class Looped(tf.Module):
            def __init__(self, n):
                self.parts = []
                for _ in range(n):
                    self.grow()

            @tf.function
            def grow(self):
                self.parts.append(1.0)  # STG102
    """)


def test_a_builder_called_by_its_name_on_an_object_of_unknown_class_is_reported():
    # `agent.reset()` on a parameter: it may be this class's method, called again
    assert_tiers("""
        import tensorflow as tf

        class Agent(tf.Module):
            def __init__(self):
                self.resets = 0
                self.reset()

            @tf.function
            def reset(self):
                self.resets += 1  # STG102

        def run(agent):
            agent.reset()
    """)


def test_a_tf_function_init_runs_once_per_object():
    # BayesFlow's MCMCSurrogateLikelihood, with a subclass calling `Base.__init__(self, ...)`
    assert_tiers("""
        import tensorflow as tf

        class Surrogate:
            @tf.function
            def __init__(self, likelihood, configurator=None):
                self.likelihood = likelihood
                self.configurator = configurator
                if self.configurator is None:
                    self.configurator = self._default

            def _default(self, x):
                return x

        class PyMCSurrogate(Surrogate):
            def __init__(self, likelihood, observables):
                Surrogate.__init__(self, likelihood=likelihood)
                self.observables = observables
    """)


def test_an_init_called_again_on_a_made_object_is_reported():
    # the twin: `reset` runs `__init__` again on the same object, which reuses its trace
    assert_tiers("""
        import tensorflow as tf

        class Surrogate:
            @tf.function
            def __init__(self, likelihood):
                self.likelihood = likelihood  # preview STG102
                self.calls = 0  # preview STG102

            def reset(self, likelihood):
                self.__init__(likelihood)
    """)


def test_stg302_a_read_in_a_builder_run_once_per_object_is_never_stale():
    # `set_scale` reassigns `self.scale`, but `make_table` runs once per object, at construction:
    # no later call reuses its trace (the twin: `__call__` calls it again, on the same object)
    for again, marker in (("", ""), ("self.make_table()", "  # preview STG302")):
        assert_tiers(f"""
            import tensorflow as tf

            class Model(tf.Module):
                def __init__(self, scale):
                    self.scale = scale
                    self.make_table()

                @tf.function
                def make_table(self):
                    self.table = tf.constant([self.scale * 2.0, 2.0]){marker}  # STG201

                def set_scale(self, s):
                    self.scale = s

                def __call__(self, x):
                    {again or "pass"}
                    return x * self.table

            m = Model(2.0)
            m.set_scale(3.0)
        """)


_AGENT = """
    import tensorflow as tf

    class Agent(tf.Module):
        def __init__(self):
            self.trace = {}
            self.updates = 0

        @tf.function
        def update(self, batch, steps, step_count):
            self.trace[0] = self.trace.get(0, 0.0) * 0.9 + 1.0{preview}
            self.updates += 1{mark}
            return tf.reduce_mean(batch)
"""


def _agent(mark: str) -> str:
    # (the trace line computes the place from what it holds: a guess that a repeated call changes it)
    return _AGENT.replace("{mark}", mark).replace("{preview}", "  # preview STG102" if mark else "")


def test_a_method_called_with_a_global_step_retraces_on_every_call():
    # BN2, the eligibility-traces agents: `policy.update(replay_buffer, steps, ep_step_count)` with
    # `steps = 0` before the loop and `steps += 1` first in its body, in a `train` that `main()`
    # calls once; `policy` of unknown class (`getattr(pkg, name)(...)`)
    assert_tiers(_agent("") + """
    def train(policy, batches):
        steps = 0
        ep_step_count = 0
        while steps < 100:
            steps += 1
            ep_step_count += 1
            if steps > 2:
                policy.update(batches, steps, ep_step_count)
            if ep_step_count > 10:
                ep_step_count = 0

    def main():
        train(Agent(), tf.ones([2]))

    if __name__ == "__main__":
        main()
    """)


def test_a_step_that_restarts_or_a_train_run_twice_reuses_traces():
    # the twins: the episode step (reset to 0 in the loop) alone; the global step from a `train`
    # that `main()` calls twice (its second run passes 1, 2, ... again); a constant step
    mark = "  # STG102"
    for train_calls, arg in (("train(agent, b)", "ep_step_count"), ("train(agent, b); train(agent, b)", "steps"),
                             ("train(agent, b)", "3")):
        assert_tiers(_agent(mark) + f"""
    def train(policy, batches):
        steps = 0
        ep_step_count = 0
        while steps < 100:
            steps += 1
            ep_step_count += 1
            policy.update(batches, {arg}, 1)
            if ep_step_count > 10:
                ep_step_count = 0

    def main():
        agent, b = Agent(), tf.ones([2])
        {train_calls}

    if __name__ == "__main__":
        main()
    """)


def test_a_step_raised_after_the_call_or_under_a_test_is_not_shown_new():
    # `if done: steps += 1` may leave it as it was for the next call; a call elsewhere that
    # `call_sites` cannot show (`agents[0].update(...)`) may pass anything
    mark = "  # STG102"
    for loop_body in ("""
            if len(batches) > 1:
                steps += 1
            policy.update(batches, steps, 1)""", """
            steps += 1
            policy.update(batches, steps, 1)
            agents[0].update(batches, 1, 1)"""):
        assert_tiers(_agent(mark) + f"""
    def train(policy, batches, agents):
        steps = 0
        for _ in range(100):{loop_body}

    def main():
        train(Agent(), tf.ones([2]), [Agent()])

    if __name__ == "__main__":
        main()
    """)
