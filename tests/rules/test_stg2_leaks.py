"""STG202 python-accumulator-in-graph-loop."""

from __future__ import annotations

from rulecases import assert_marked, assert_project_marked, assert_tiers, findings


def test_t36_tensor_array_in_a_graph_loop_is_fine():
    assert_marked("""
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
    """)


def test_list_filled_in_tf_range_loop():
    assert_marked("""
        import tensorflow as tf

        @tf.function
        def squares(n):
            out = []
            for i in tf.range(n):
                out.append(i * i)  # STG202
            return tf.stack(out)
    """)
    (f,) = findings("""
        import tensorflow as tf

        @tf.function
        def squares(n):
            out = []
            for i in tf.range(n):
                out.append(i * i)
            return tf.stack(out)
    """)
    assert "`tf.TensorArray`" in f.message and "(line 6)" in f.message


def test_every_loop_autograph_converts():
    assert_marked("""
        import tensorflow as tf

        @tf.function
        def f(x, n):
            rows, seen, keyed, grown = [], set(), {}, []
            for row in tf.reshape(x, [-1]):
                rows.append(row)  # STG202
            for i in range(tf.size(x)):
                seen.add(i)  # STG202
            i = tf.constant(0)
            while i < n:
                keyed[i] = x  # STG202
                i += 1
            for batch in tf.data.Dataset.range(3):
                grown += [batch]  # STG202
            return rows, seen, keyed, grown
    """)


def test_python_loops_fresh_containers_and_fixed_keys_are_fine():
    assert_marked("""
        import tensorflow as tf

        @tf.function
        def f(x, n):
            parts = []
            for i in range(3):
                parts.append(x * i)
            state = {"total": tf.constant(0)}
            for i in tf.range(n):
                step = []
                step.append(i)
                state["total"] += tf.add_n(step)
            return tf.add_n(parts), state["total"]
    """)


def test_outside_container_is_a_leak_not_an_accumulator():
    assert_marked("""
        import tensorflow as tf

        history = []

        @tf.function
        def f(n):
            for i in tf.range(n):
                history.append(i)  # STG201
            return n
    """)


def test_loop_over_a_parameter_depends_on_what_callers_pass():
    assert_marked("""
        import tensorflow as tf

        @tf.function
        def rows_of(x):
            out = []
            for row in x:  # STG503
                out.append(tf.square(row))
            return out

        @tf.function
        def rows_of_tensor(x):
            out = []
            for row in x:
                out.append(row)  # STG202
            return out

        rows_of([1, 2, 3])
        rows_of_tensor(tf.constant([1, 2, 3]))
    """)


def test_keras_inputs_checked_as_a_list_are_a_python_loop():
    assert_marked("""
        import tensorflow as tf

        class Merge(tf.keras.layers.Layer):
            def call(self, inputs):
                if not isinstance(inputs, (list, tuple)):
                    raise ValueError("a list of tensors")
                expanded = []
                for x in inputs:
                    expanded.append(tf.expand_dims(x, 1))
                return tf.concat(expanded, axis=1)
    """)


def test_stg202_interprocedural_dataset_through_helper(tmp_path):
    got = assert_project_marked(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/collect.py": """
            def collect(dataset):
                seen = {}
                for i, batch in enumerate(dataset):
                    seen[i] = batch  # STG202
                return seen
        """,
        "pkg/run.py": """
            import tensorflow as tf
            from pkg.collect import collect

            @tf.function
            def run(dataset):
                return collect(dataset)

            run(tf.data.Dataset.range(3))
        """,
    })
    assert got[0].entry_point == "pkg.run.run"


def test_enumerate_over_a_tensor_is_not_a_graph_loop():
    # AutoGraph converts `for x in t`, but `enumerate(t)` raises (STG602), not a silent accumulator.
    assert_marked("""
        import tensorflow as tf

        @tf.function
        def f(x):
            out = []
            x = tf.reshape(x, [-1])
            for i, v in enumerate(x):  # STG602
                out.append(v)
            return out
    """)


def test_stg201_a_name_scope_string_stored_on_the_layer_leaks_nothing():
    # a Python string set while tracing (STG102: once per trace), not a tensor leaking out
    assert_tiers("""
        import tensorflow as tf

        class Block(tf.keras.layers.Layer):
            def call(self, x):
                self.scope = tf.get_current_name_scope()  # preview STG102
                self.internal_scope = tf.__internal__.get_name_scope()  # preview STG102
                self.last = tf.reduce_sum(x)  # STG201
                return x

        model = tf.keras.Sequential([Block()])
    """)


def test_a_loop_over_a_parameter_taken_for_a_tensor_by_its_use_alone_is_preview():
    # `for v in variables:` is a graph loop only if `variables` is a tensor or a dataset; a
    # Python list (horovod's variables) makes a Python loop that fills the dict on every
    # iteration. Taken for a tensor from the body's ops alone, no call passing one: preview.
    # The twin: a call passes a tensor, so AutoGraph converts the loop.
    assert_tiers("""
        import tensorflow as tf

        @tf.function
        def group(values):
            total = tf.reduce_sum(values)
            out = []
            for v in values:
                out.append(v / total)  # preview STG202
            return out
    """)
    assert_tiers("""
        import tensorflow as tf

        @tf.function
        def group(values):
            total = tf.reduce_sum(values)
            out = []
            for v in values:
                out.append(v / total)  # STG202
            return out

        group(tf.constant([1.0, 2.0]))
    """)
