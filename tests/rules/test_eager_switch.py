"""Programs that run their tf.functions eagerly (`analysis.eagerswitch`): the thirteenth audit's
held-back TensorFlow half (AX1: a reinforcement-learning collection whose models module sets
`tf.config.run_functions_eagerly(True)` at import, scripts that set it at module level or in a
helper they call there). With the switch on, a `tf.function` runs its Python body on every call
and traces nothing (TF 2.21, tests/runtime/test_tf_eager_switch_facts.py); `tf.data` functions
stay traced. Each positive case has its negative twin: the switch on some paths only, set False,
set below the definition, in a module not imported, or a trace taken anyway."""

from __future__ import annotations

from rulecases import assert_marked, assert_project_marked, check_project


def test_a_switch_at_module_level_above_the_function_runs_it_eagerly():
    assert_marked("""
        import numpy as np
        import tensorflow as tf

        tf.config.run_functions_eagerly(True)

        @tf.function
        def compute_loss(x):
            print("loss", x)
            v = tf.Variable(0.0)
            return x + v

        @tf.function(jit_compile=True)
        def fast(x):
            print("fast", x)
            return x

        def augment(x):
            return x * np.random.uniform()  # STG104

        ds = tf.data.Dataset.range(4).map(augment)
        compute_loss(tf.constant(1.0))
    """)


def test_the_older_name_of_the_switch_too():
    assert_marked("""
        import tensorflow as tf

        tf.config.experimental_run_functions_eagerly(True)

        @tf.function
        def step(x):
            print("loss", x)
            return x
    """)


def test_a_switch_below_the_definition_or_on_some_paths_is_not_known_on():
    assert_marked("""
        import sys
        import tensorflow as tf

        @tf.function
        def early(x):
            print("early", x)  # STG101
            return x

        early(tf.constant(1.0))
        if "--debug" in sys.argv:
            tf.config.run_functions_eagerly(True)

        @tf.function
        def later(x):
            print("later", x)  # STG101
            return x

        tf.config.run_functions_eagerly(True)
    """)


def test_a_switch_set_false_or_to_a_variable_anywhere_makes_it_unknown():
    for undo in ("tf.config.run_functions_eagerly(False)", "tf.config.run_functions_eagerly(DEBUG)"):
        assert_marked(f"""
            import tensorflow as tf

            DEBUG = False
            tf.config.run_functions_eagerly(True)

            @tf.function
            def step(x):
                print("loss", x)  # STG101
                return x

            def main():
                {undo}
                step(tf.constant(1.0))
        """)


def test_a_trace_taken_anyway_makes_it_unknown():
    """`get_concrete_function` traces whatever the switch says."""
    assert_marked("""
        import tensorflow as tf

        tf.config.run_functions_eagerly(True)

        @tf.function
        def step(x):
            print("loss", x)  # STG101
            return x

        concrete = step.get_concrete_function(tf.TensorSpec([], tf.float32))
    """)


def test_a_helper_called_at_module_level_sets_it_one_called_from_main_does_not():
    assert_marked("""
        import tensorflow as tf

        def reset_gpu():
            tf.config.run_functions_eagerly(True)
            tf.data.experimental.enable_debug_mode()

        reset_gpu()

        @tf.function
        def loss_function(x):
            print("thresholds", x)
            return x
    """)
    assert_marked("""
        import tensorflow as tf

        def reset_gpu():
            tf.config.run_functions_eagerly(True)

        @tf.function
        def loss_function(x):
            print("thresholds", x)  # STG101
            return x

        def main():
            reset_gpu()
            loss_function(tf.constant(1.0))
    """)


def test_a_module_imported_above_the_definition_that_sets_it_at_import(tmp_path):
    assert_project_marked(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/models.py": """
            import tensorflow as tf

            tf.config.run_functions_eagerly(True)

            def build():
                return tf.keras.Sequential([tf.keras.layers.Dense(2)])
        """,
        "pkg/agent.py": """
            import tensorflow as tf
            from pkg.models import build

            class Agent:
                @tf.function
                def train(self, x):
                    td_error = tf.Variable(tf.zeros([4]))
                    print("loss", x)
                    return x + td_error
        """,
        # the twin: nothing this module imports sets the switch (its driver does, in main, after
        # a first call: `driver_eager_entries` does not take it as set first)
        "pkg/other.py": """
            import tensorflow as tf

            class Other:
                @tf.function
                def train(self, x):
                    print("loss", x)  # STG101
                    return x
        """,
        "pkg/main.py": """
            import tensorflow as tf
            from pkg.other import Other

            def main():
                Other().train(tf.constant(1.0))
                tf.config.run_functions_eagerly(True)
                Other().train(tf.constant(1.0))
        """,
    })


def _tiers(tmp_path, files) -> tuple[set, set]:
    """(default, --preview) findings of a project, as (path, line, code)."""
    default = {(f.path.replace("\\", "/"), f.line, f.code) for f in check_project(tmp_path / "d", files)}
    preview = {(f.path.replace("\\", "/"), f.line, f.code) for f in check_project(tmp_path / "p", files, preview=True)}
    return default, preview


_AGENT = """
    import tensorflow as tf

    class Agent:
        @tf.function
        def train(self, x):
            print("loss", x)
            return x

        def learn(self, x):
            return self.train(x)
"""


def test_every_program_of_the_project_sets_the_switch_before_it_calls_the_function(tmp_path):
    """AX1's driver-set cases (tf2_grf): the program imports the agent module, then sets the switch
    at module level above its first call (`distdeepq/main.py`), or makes no call at module level
    (but its driver's, in the main block) and its driver sets it first (`basic_dqn/main.py`'s
    `train()`). The switch is read at each call, so every program of the project runs the Function
    eagerly: traced only by a program outside the project, a guess (the preview tier)."""
    for program in ("""
            import tensorflow as tf
            from pkg.learn import make_agent

            class Config:
                def __init__(self):
                    self.steps = 10

            tf.config.run_functions_eagerly(True)
            config = Config()
            make_agent().learn(tf.constant(1.0))
        """, """
            import tensorflow as tf
            from pkg.learn import make_agent

            def train():
                tf.config.run_functions_eagerly(True)
                agent = make_agent()
                agent.learn(tf.constant(1.0))
        """, """
            import tensorflow as tf
            from pkg.learn import make_agent

            def main(steps):
                tf.config.run_functions_eagerly(True)
                make_agent().learn(tf.constant(float(steps)))

            if __name__ == "__main__":
                main(10)
        """):
        files = {
            "pkg/__init__.py": "",
            "pkg/agent.py": _AGENT,
            "pkg/learn.py": """
                from pkg.agent import Agent

                def make_agent():
                    return Agent()
            """,
            "pkg/main.py": program,
        }
        default, preview = _tiers(tmp_path / str(len(program)), files)
        assert default == set()
        assert preview == {("pkg/agent.py", 6, "STG101")}


def test_a_program_that_may_call_the_function_before_the_switch_keeps_it_traced(tmp_path):
    """The twins: a call above the module-level switch, a driver that calls before it sets the
    switch, a call beside the driver's in the main block, a second program (a test) that never
    sets it, a Function module no module imports (its use is not shown), the switch set False
    elsewhere."""
    twins = {
        "a call above the switch": {"pkg/main.py": """
            import tensorflow as tf
            from pkg.learn import make_agent

            agent = make_agent()
            agent.learn(tf.constant(1.0))
            tf.config.run_functions_eagerly(True)
        """},
        "a driver calling first": {"pkg/main.py": """
            import tensorflow as tf
            from pkg.learn import make_agent

            def train():
                agent = make_agent()
                agent.learn(tf.constant(1.0))
                tf.config.run_functions_eagerly(True)
        """},
        "a program without the switch": {"pkg/main.py": """
            import tensorflow as tf
            from pkg.learn import make_agent

            def train():
                tf.config.run_functions_eagerly(True)
                make_agent().learn(tf.constant(1.0))
        """, "tests/test_agent.py": """
            import tensorflow as tf
            from pkg.agent import Agent

            def test_learn():
                Agent().learn(tf.constant(1.0))
        """},
        "another call beside the driver's": {"pkg/main.py": """
            import tensorflow as tf
            from pkg.learn import make_agent

            def main():
                tf.config.run_functions_eagerly(True)
                make_agent().learn(tf.constant(1.0))

            if __name__ == "__main__":
                make_agent().learn(tf.constant(0.0))
                main()
        """},
        "the module imported by none": {"pkg/main.py": """
            import tensorflow as tf

            def train():
                tf.config.run_functions_eagerly(True)
        """},
        "the switch set off elsewhere": {"pkg/main.py": """
            import tensorflow as tf
            from pkg.learn import make_agent

            def train():
                tf.config.run_functions_eagerly(True)
                make_agent().learn(tf.constant(1.0))

            def evaluate():
                tf.config.run_functions_eagerly(False)
        """},
    }
    for i, (why, extra) in enumerate(twins.items()):
        files = {
            "pkg/__init__.py": "",
            "pkg/agent.py": _AGENT,
            "pkg/learn.py": "" if why == "the module imported by none" else """
                from pkg.agent import Agent

                def make_agent():
                    return Agent()
            """,
            **extra,
        }
        default, _ = _tiers(tmp_path / str(i), files)
        assert default == {("pkg/agent.py", 6, "STG101")}, why
