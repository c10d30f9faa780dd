"""False-positive patterns found by auditing stagelint on real code (issue 6, `bench/audit.py`).

Each test is one pattern, named after where it was seen in the pinned corpus, as a snippet whose
markers are exactly the expected findings: the pattern itself unmarked, and a positive twin beside
it (the same shape, with the pitfall) so the test fails if the rule simply stopped working.
"""

from __future__ import annotations

from rulecases import assert_marked, assert_project_marked, assert_tiers

# STG102 / STG201: what is and is not Python state outliving the call -----------------------------


def test_library_functions_named_like_container_methods_mutate_nothing():
    # keras-hub (118 findings): `ops.add(x, y)`; tf-addons: `tf.math.add`, `tf.add`.
    assert_tiers("""
        import numpy as np
        import tensorflow as tf
        from keras import ops

        seen = set()

        @tf.function
        def f(x):
            y = ops.add(x, 1.0)
            z = tf.math.add(y, 2.0) + tf.add(y, y)
            seen.add(1)  # preview STG102
            return z + np.add(1.0, 2.0)
    """)


def test_star_kwargs_is_made_afresh_for_every_call():
    # tf-addons seq2seq decoders, TF-Agents networks: `init_kwargs = kwargs; init_kwargs[k] = v`.
    assert_marked("""
        import tensorflow as tf

        class Decoder(tf.keras.layers.Layer):
            def call(self, inputs, state, *args, **kwargs):
                init_kwargs = kwargs
                init_kwargs["initial_state"] = state
                del kwargs["mask"]
                self.last_state = state  # STG201
                return inputs

        model = tf.keras.Sequential([Decoder()])
    """)


def test_lambda_parameter_is_local_not_a_closure():
    # TF-Agents metrics: `tf.nest.map_structure(lambda b: b.clear(), self._buffer)`.
    assert_marked("""
        import tensorflow as tf

        class Metric(tf.Module):
            def __init__(self):
                self.history = []

            @tf.function
            def reset(self, xs):
                tf.nest.map_structure(lambda b: b.append(0), [[1], [2]])
                self.history.append(1)  # STG102
                return xs
    """)


def test_methods_of_objects_that_are_not_containers():
    # TF-Agents TFDeque (a deque backed by variables): `self.add(x)`, `self._buffer.clear()`.
    assert_marked("""
        import tensorflow as tf

        class TFDeque:
            def __init__(self):
                self._data = tf.Variable(tf.zeros([10]))

            def add(self, x):
                return self._data.assign(tf.tensor_scatter_nd_update(self._data, [[0]], [x]))

            def clear(self):
                return self._data.assign(tf.zeros([10]))

        class Metric(tf.Module):
            def __init__(self):
                self._buffer = TFDeque()
                self._log = []

            @tf.function
            def call(self, x):
                self._buffer.add(x)
                self._log.append("called")  # STG102
                return x

            @tf.function
            def reset(self):
                self._buffer.clear()
    """)


def test_local_that_is_sometimes_a_fresh_list_is_the_call_s_own():
    # TF-Agents EncodingNetwork: `processed = observation` or `processed = []` then appended to.
    assert_marked("""
        import tensorflow as tf

        class Net(tf.keras.layers.Layer):
            def __init__(self):
                super().__init__()
                self.layers_ = []
                self.calls = []

            def call(self, observation):
                if not self.layers_:
                    processed = observation
                else:
                    processed = []
                    for layer in self.layers_:
                        processed.append(layer(observation))
                seen = self.calls
                seen.append(1)  # STG102
                return processed

        model = tf.keras.Sequential([Net()])
    """)


def test_writes_behind_a_build_guard_or_an_early_return_run_once():
    # keras-hub preprocessors (`if not self.built: self.build(None)`), tokenizers and mask
    # generators (`if self._table is not None: return` then create it).
    assert_tiers("""
        import tensorflow as tf

        class Packer(tf.keras.layers.Layer):
            def build(self, input_shape):
                self.packer = object()
                self.built = True

            def _maybe_initialize(self):
                if self._table is not None:
                    return
                self._table = {"a": 1}

            def call(self, x):
                if not self.built:
                    self.build(None)
                self._maybe_initialize()
                self.count = 1  # preview STG102
                return x
    """)


def test_a_guard_method_that_returns_a_first_call_test_guards_as_the_test_would():
    # tensorflow/gnn's HGT layer: `if self._need_init_nontrackables(): self._do_init_...(spec)`
    # with `return not self._receivers` (and a docstring); the twin's guard method tests a
    # per-call value, which guards nothing, and a method that does more than return decides
    # nothing here.
    assert_tiers("""
        import tensorflow as tf

        class Update(tf.keras.layers.Layer):
            def _need_init(self):
                \"\"\"Arbitrarily test one of the attributes.\"\"\"
                return not self._receivers

            def _need_weights(self):
                return self._projection is None

            def _busy(self):
                return self.training

            def _do_init(self, spec):
                self._receivers = list(spec)
                self._senders = list(spec)

            def call(self, graph):
                if self._need_init():
                    self._do_init(graph.spec)
                if self._need_weights():
                    with tf.init_scope():
                        self._projection = tf.Variable(1.0)
                if self._busy():
                    self.calls = 1  # preview STG102
                return graph * self._projection
    """)


def test_a_scratch_tensor_read_only_after_the_same_calls_store_is_silent():
    # RecLearn's capsule routing: `self.capsule_weight` rebound at the top of every call (in each
    # branch of an `if`), read and updated only within the same call's routing loop
    # (`stores.scratch_attribute`, `stores.scratch_only`; tests/runtime/test_tf_store_facts.py):
    # each trace reads its own graph's tensor and nothing reads it after the call. The twins: a
    # place read in another method, read in a later call before that call stores it, read in a
    # `def` inside the call, or never updated from itself (Model Garden's MatMulWithMargin: an
    # output kept on the layer for its users) keeps its finding.
    assert_tiers("""
        import tensorflow as tf

        class Routing(tf.keras.layers.Layer):
            def call(self, x, scaled):
                if scaled:
                    self.logits = tf.zeros_like(x) + 1.0
                else:
                    self.logits = tf.zeros_like(x)
                for i in range(3):
                    w = tf.nn.softmax(self.logits)
                    if i < 2:
                        self.logits = self.logits + w * x
                return self.logits * 2.0

        class Shown(tf.keras.layers.Layer):
            def call(self, x):
                self.scores = tf.zeros_like(x)  # STG201
                self.scores = self.scores + x  # STG201
                return self.scores

            def last(self):
                return self.scores

        class Stale(tf.keras.layers.Layer):
            def call(self, x):
                x = x + self.prior
                self.prior = tf.reduce_sum(x)  # STG201
                return x

        class Closure(tf.keras.layers.Layer):
            def call(self, x):
                self.state = tf.zeros_like(x)  # STG201
                self.read = lambda: self.state  # preview STG102
                return self.state + x

        class Exposed(tf.keras.layers.Layer):
            def call(self, q, v):
                self.left = tf.matmul(q, v, transpose_b=True)  # STG201
                self.right = tf.transpose(self.left)  # STG201
                return self.left, self.right

        model = tf.keras.Sequential([Routing(), Shown(), Stale(), Closure(), Exposed()])
    """)


def test_scratch_state_set_in_init_unpacked_or_grown_within_the_call_is_silent():
    # The eighteenth TF audit's BQ-P1/BQ-P5: a recurrent model's `self.state` reset at the top of
    # `call` and rebound by unpacking the cell's result (Recurrent-Models-of-Visual-Attention
    # `model/ram.py:92/99`), a decoder's `self.decoded_outputs = []` grown, item-stored and read
    # later in the same call (FNAL-QCDecodingTests `CNNModel.py:3870`); `__init__` sets both to
    # a placeholder first. Each trace reads what its own graph made; nothing reads them after the
    # call (tests/runtime/test_tf_store_facts.py). The twins: the same places read by another
    # method after the call (`self.locs` read by a loss method), or read before the call stores
    # them, keep their findings.
    assert_tiers("""
        import tensorflow as tf

        class Recurrent(tf.keras.Model):
            def __init__(self):
                super().__init__()
                self.cell = tf.keras.layers.LSTMCell(4)
                self.state = None
                self.outputs_ = None

            def call(self, x):
                self.state = self.cell.get_initial_state(batch_size=2, dtype=tf.float32)
                self.outputs_ = []
                for _ in range(3):
                    out, self.state = self.cell(x, states=self.state)
                    self.outputs_.append(out)
                for i in range(1, len(self.outputs_)):
                    self.outputs_[i] = self.outputs_[i] + self.outputs_[i - 1]
                return tf.stack(self.outputs_)

        class Shown(tf.keras.Model):
            def __init__(self):
                super().__init__()
                self.cell = tf.keras.layers.LSTMCell(4)
                self.locs = None

            def call(self, x):
                self.locs = []  # preview STG102
                for _ in range(3):
                    out, _ = self.cell(x, states=self.cell.get_initial_state(batch_size=2, dtype=tf.float32))
                    self.locs.append(out)  # STG201
                self.locs = tf.stack(self.locs)  # STG201
                return out

            def loss(self):
                return tf.reduce_sum(self.locs)

        class ReadFirst(tf.keras.Model):
            def __init__(self):
                super().__init__()
                self.cell = tf.keras.layers.LSTMCell(4)
                self.hidden = None

            def call(self, x):
                if self.hidden is None:
                    self.hidden = self.cell.get_initial_state(batch_size=2, dtype=tf.float32)
                out, self.hidden = self.cell(x, states=self.hidden)  # STG201
                return out

        model = tf.keras.Sequential([Recurrent(), Shown(), ReadFirst()])
    """)


def test_a_scratch_tensor_another_module_reads_keeps_its_finding(tmp_path):
    # The twin across files: a function of another module reads `.logits` of the layer it is
    # handed (after the call: the trace's symbolic tensor), so the place is no scratch.
    layer = """
        import tensorflow as tf

        class Routing(tf.keras.layers.Layer):
            def call(self, x):
                self.logits = tf.zeros_like(x)  # STG201
                self.logits = self.logits + x  # STG201
                return self.logits

        model = tf.keras.Sequential([Routing()])
    """
    for preview in (False, True):
        assert_project_marked(tmp_path, {
            "pkg/__init__.py": "",
            "pkg/layer.py": layer,
            "pkg/show.py": """
                import tensorflow as tf
                from pkg.layer import Routing

                layer = Routing()

                @tf.function
                def step(x):
                    return layer(x)

                def show(routing):
                    return routing.logits.numpy()

                step(tf.ones((2, 3)))
                show(layer)
            """,
        }, preview=preview)


def test_a_keras_call_parameter_belongs_to_its_traced_caller():
    # Model Garden decoders and MoViNet streaming layers: `cache[name] = ...`, `states[name] = x`.
    assert_marked("""
        import tensorflow as tf

        class Decoder(tf.keras.layers.Layer):
            def call(self, x, cache=None, states=None):
                cache["k"] = x * 2
                states["buffer"] = x
                return x

        @tf.function
        def decode(x, cache):
            cache["k"] = tf.square(x)  # STG201
            return x
    """)


# STG301: closures and module-level rebinding --------------------------------------------------------


def test_nested_helper_traced_with_its_enclosing_function_reads_a_fresh_closure():
    # tf-addons interpolate_bilinear `gather`, Model Garden `_loop_cond` / `_step_fn`: a nested
    # def called while the enclosing function is traced sees that trace's values.
    assert_marked("""
        import tensorflow as tf

        @tf.function
        def interpolate(grid, queries):
            offsets = tf.range(3)
            for i in range(2):
                offsets = offsets + i

            def gather(coords):
                return tf.gather(grid, offsets + coords)

            return gather(queries)

        def train(steps):
            scale = 1.0

            @tf.function
            def step(x):
                return x * scale  # STG301

            for _ in range(steps):
                step(tf.constant(1.0))
                scale *= 0.9
    """)


def test_closure_bound_before_the_def_is_final_when_traced():
    # TF-Agents PolicySaver, tf-addons max_unpooling_2d: the variable is rebound, then the
    # tf.function that reads it is defined.
    assert_marked("""
        import tensorflow as tf

        def make(spec, rename):
            spec_in = spec
            if rename:
                spec_in = str(spec)

            @tf.function
            def fn(x):
                tf.print(spec_in)
                return x

            return fn
    """)


def test_object_method_named_clear_is_not_mutating_a_python_global():
    # TF-Agents train_eval: `replay_buffer.clear()` on a TFUniformReplayBuffer.
    assert_marked("""
        import tensorflow as tf

        class ReplayBuffer(tf.Module):
            def __init__(self):
                self.data = tf.Variable(tf.zeros([4]))

            def gather_all(self):
                return self.data.read_value()

            def clear(self):
                self.data.assign(tf.zeros([4]))

        def train_eval(steps):
            replay_buffer = ReplayBuffer()
            history = []

            @tf.function
            def train_step():
                return replay_buffer.gather_all() * len(history)  # STG301

            for _ in range(steps):
                train_step()
                replay_buffer.clear()
                history.append(1)
    """)


# STG302: set-up code ----------------------------------------------------------------------------------


def test_attributes_set_by_helpers_of_init_or_build_are_set_up():
    # tf-addons GroupNormalization (`_set_number_of_groups_for_instance_norm` from `build`),
    # FilterResponseNormalization (`_check_axis` from `__init__`), TF-Agents `_setup_specs`.
    assert_marked("""
        import tensorflow as tf

        class Norm(tf.keras.layers.Layer):
            def __init__(self, axis, groups):
                super().__init__()
                self._check_axis(axis)
                self.groups = groups
                self.scale = 1.0

            def _check_axis(self, axis):
                self.axis = axis

            def build(self, input_shape):
                self._set_groups(input_shape)

            def _set_groups(self, input_shape):
                if self.groups == -1:
                    self.groups = input_shape[-1]

            def set_scale(self, scale):
                self.scale = scale

            def call(self, x):
                return tf.reduce_mean(x, axis=self.axis) * self.groups * self.scale  # STG302
    """, preview=True)


def test_lazily_set_attribute_and_variable_lists_are_not_stale():
    # TF-Agents Network.create_variables (`if self._spec is None: self._spec = spec`), Model
    # Garden's EMA optimizer (`self._model_weights = model.trainable_variables`).
    assert_marked("""
        import tensorflow as tf

        class Net(tf.keras.layers.Layer):
            def __init__(self, spec=None):
                super().__init__()
                self._spec = spec
                self._weights = None
                self.factor = 1.0

            def attach(self, model, spec):
                if self._spec is None:
                    self._spec = spec
                self._weights = model.trainable_variables
                self.factor = 2.0

            def call(self, x):
                tf.nest.assert_same_structure(x, self._spec)
                return x * len(self._weights) * self.factor  # STG302
    """, preview=True)


# STG402: layers without variables -----------------------------------------------------------------------


def test_layers_without_variables_may_be_made_in_call():
    # Model Garden / keras-hub: `tf_keras.layers.Add()([a, b])`, `Activation`, pooling, `Reshape`,
    # and Keras 2's `Dropout` (its random generator is stateless). Keras 3's `Dropout` owns a
    # seed-generator variable: constructing it in a traced call raises.
    assert_marked("""
        import keras
        import tf_keras

        class Block(tf_keras.layers.Layer):
            def call(self, x, y):
                z = tf_keras.layers.Add()([x, y])
                z = tf_keras.layers.Activation("relu")(z)
                z = tf_keras.layers.GlobalAveragePooling2D()(z)
                z = tf_keras.layers.Dropout(0.1)(z)
                return tf_keras.layers.Dense(3)(z)  # STG402

        class Block3(keras.layers.Layer):
            def call(self, x):
                x = keras.layers.Reshape((4,))(x)
                return keras.layers.Dropout(0.1)(x)  # STG402

        models = tf_keras.Sequential([Block()]), keras.Sequential([Block3()])
        for model in models:
            model.fit(x, y)  # run under a Function: a symbolic build alone traces nothing again
    """)


def test_attention_without_scale_or_dropout_may_be_made_in_call():
    # `tf.keras.layers.Attention(causal=True)([q, v])` in an image-captioning notebook's traced
    # call: without `use_scale`, `score_mode="concat"` or dropout it owns no variable
    # (tests/runtime/test_tf_variable_creation_facts.py). The negative twins: the arguments that
    # make one, `AdditiveAttention`'s default scale, and arguments passed positionally.
    assert_marked("""
        import tensorflow as tf

        class Decoder(tf.keras.layers.Layer):
            def call(self, q, v):
                h = tf.keras.layers.Attention()([q, v])
                h = tf.keras.layers.Attention(use_scale=False, dropout=0.0, name="att")([h, v])
                h = tf.keras.layers.AdditiveAttention(use_scale=False)([h, v])
                h = tf.keras.layers.UnitNormalization()(h)
                h = tf.keras.layers.Attention(use_scale=True)([h, v])  # STG402
                h = tf.keras.layers.Attention(dropout=0.1)([h, v])  # STG402
                h = tf.keras.layers.Attention(score_mode="concat")([h, v])  # STG402
                h = tf.keras.layers.Attention(True)([h, v])  # STG402
                return tf.keras.layers.AdditiveAttention()([h, v])  # STG402

        model = tf.keras.Sequential([Decoder()])
        model.fit(x, y)  # run under a Function: a symbolic build alone traces nothing again
    """)


# STG401: recursion that ends while tracing ------------------------------------------------------------------


def test_recursion_over_a_python_structure_ends_at_trace_time():
    # TF-Agents `prune_extra_keys`, keras-hub `_get_slopes(n)` and `_decode_strings_to_utf8`.
    assert_marked("""
        import math
        import tensorflow as tf

        def prune(narrow, wide):
            if isinstance(narrow, dict):
                return {k: prune(v, wide[k]) for k, v in narrow.items()}
            return wide

        def slopes(n):
            if math.log2(n).is_integer():
                return [2.0 ** -i for i in range(n)]
            return slopes(2 ** math.floor(math.log2(n)))

        def countdown(n):
            if n > 0:
                return countdown(n - 1)  # STG401
            return n

        @tf.function
        def f(x, spec):
            pruned = prune(spec, x)
            return pruned, slopes(8), countdown(tf.reduce_sum(x))
    """)


# STG502: Functions made once per run of a driver -------------------------------------------------------------


def test_function_made_once_per_training_loop_or_per_outer_trace():
    # TF-Agents / Model Garden train_eval drivers (`train_step = common.function(train_step)` then
    # a loop of calls), PolicySaver (`@tf.function def _raise()` inside a traced function),
    # TF-Agents xla (`@tf.function(jit_compile=True)` made only when not executing eagerly).
    assert_marked("""
        import tensorflow as tf

        def train_eval(num_iterations):
            def train_step():
                return tf.constant(1.0)

            train_step = tf.function(train_step)
            for _ in range(num_iterations):
                train_step()

        @tf.function
        def outer(x):
            @tf.function
            def inner(y):
                return y + 1
            return inner(x)

        def compiled(fn, x):
            if tf.executing_eagerly():
                return fn(x)
            else:
                @tf.function(jit_compile=True)
                def call_fn(y):
                    return fn(y)
                return call_fn(x)

        def predict(x):
            @tf.function  # STG502
            def forward(y):
                return y * 2
            return forward(x)

        for i in range(3):
            train_eval(10)
            predict(tf.constant(1.0))
    """)


# STG101: trace-time diagnostics ------------------------------------------------------------------------------


def test_logs_of_python_values_describe_the_trace():
    # Model Garden MaxViT (`logging.debug("Expand shape: %s", output.shape)`), BertPretrainerV2
    # (`logging.warning("List inputs ... are discouraged.")`), tf-addons gelu's deprecation warning.
    assert_marked("""
        import warnings
        from absl import logging
        import tensorflow as tf

        class Block(tf.keras.layers.Layer):
            def call(self, inputs):
                x = tf.nn.relu(inputs)
                logging.debug("Expand shape: %s", x.shape)
                logging.info("Using %d heads", 8)
                warnings.warn("gelu moved to core TensorFlow", DeprecationWarning)
                logging.info("activation %s", x)  # STG101
                logging.info("activation {}".format(x))  # STG101
                return x

        model = tf.keras.Sequential([Block()])
    """)


def test_prints_of_python_values_in_a_tf_data_function_describe_the_pipeline():
    # Model Garden image_classification/preprocessing.py: `print(height, width)` (ints from the
    # config) in a helper of a `dataset.map` function: traced once when the pipeline is built,
    # it prints once, as meant. A print of the elements (wmt_dataloader `print(tokenized_inputs)`)
    # shows a symbolic tensor once: still flagged; and so is any print in a tf.function.
    assert_marked("""
        import tensorflow as tf

        IMAGE_SIZE = 224

        def resize_image(image, height=IMAGE_SIZE, width=IMAGE_SIZE):
            print(height, width)
            return tf.image.resize(image, tf.convert_to_tensor([height, width]))

        def tokenize(inputs):
            out = {k: tf.strings.split(v) for k, v in inputs.items()}
            print(out)  # STG101
            return out

        def parse(record, size=IMAGE_SIZE):
            print("element", record)  # STG101
            return resize_image(tf.io.decode_jpeg(record), height=size, width=size)

        def build(files, image_size):
            ds = tf.data.TFRecordDataset(files).map(lambda r: parse(r, image_size))
            return ds.map(lambda r: tokenize({"x": r}))

        class Builder:
            def __init__(self, size):
                self.image_size = size

            def preprocess(self, image):
                return resize_image(image, height=self.image_size, width=self.image_size)

        @tf.function
        def step(x, n=3):
            print(n)  # STG101
            return x * n
    """)


# STG601 / STG602: what is a tensor ---------------------------------------------------------------------------


def test_dtype_string_option_and_dict_methods_are_not_tensors():
    # TF-Agents `dtype = tf.as_dtype(spec.dtype)` then `np.maximum(dtype.min / 8, ...)`; tf-addons
    # `_pad(image, mode="CONSTANT")` with `tf.pad(..., mode=mode)`; Model Garden
    # `list(features.keys())`.
    assert_marked("""
        import numpy as np
        import tensorflow as tf

        def pad(image, mode="CONSTANT"):
            if mode.upper() not in {"REFLECT", "CONSTANT"}:
                raise ValueError(mode)
            return tf.pad(image, [[1, 1]], mode=mode)

        @tf.function
        def f(image, features, spec):
            dtype = tf.as_dtype(spec.dtype)
            low = np.maximum(dtype.min / 8, -1.0)
            keys = list(features.keys())
            y = pad(image) * low
            return y, keys, np.mean(tf.square(image))  # STG601
    """)


def test_results_of_tuple_returning_ops_may_be_unpacked():
    # Model Garden: `clipped, _ = tf.clip_by_global_norm(...)`, `... = tf.image.combined_non_max_suppression(...)`,
    # `tuple([selected] + others)`.
    assert_marked("""
        import tensorflow as tf

        @tf.function
        def f(grads, boxes, scores, x):
            clipped, _ = tf.clip_by_global_norm(grads, clip_norm=1.0)
            nmsed, nmsed_scores, _, _ = tf.image.combined_non_max_suppression(boxes, scores, 10, 10)
            pairs = tuple([nmsed] + [nmsed_scores])
            a, b = tf.reduce_sum(x, axis=0)  # STG602
            return clipped, pairs, a
    """)


def test_parameter_tested_as_a_mapping_is_a_structure():
    # TF-Agents `prune_extra_keys`: `isinstance(narrow, collections_abc.Mapping)` then
    # `set(narrow.keys())`, `for k, v in narrow.items()`.
    assert_marked("""
        import collections.abc
        import tensorflow as tf

        def prune(narrow, wide):
            if isinstance(narrow, collections.abc.Mapping):
                return [wide[k] for k in sorted(narrow)]
            return tf.identity(narrow)

        @tf.function
        def f(x, y):
            return prune(x, y), [r for r in tf.reduce_sum(y, axis=0)]  # STG602
    """)


# STG503: deliberate, fixed unrolling ---------------------------------------------------------------------------


def test_loops_that_add_no_ops_or_run_over_structure_or_a_small_fixed_size():
    # Model Garden: `_build_proj_equation` (a string loop over `range(free_dims)`), MaxViT's NumPy
    # lookup table, `_compute_grid_positions(..., output_size=7)`, `_run_callbacks(callbacks, ...)`;
    # TF-Agents `_best_effort_input_batch_size(flat_input)` (a list of tensors).
    assert_marked("""
        import numpy as np
        import tensorflow as tf

        def equation(free_dims):
            s = ""
            for i in range(free_dims):
                s += "abc"[i]
            return s

        def table(length):
            ret = np.zeros((length, length))
            for i in range(length):
                ret[i, i] = 1
            return ret

        def grid(boxes, output_size):
            out = []
            for i in range(output_size):
                out.append(boxes * i)
            return tf.stack(out)

        def run_callbacks(callbacks, grads):
            for callback in callbacks:
                grads = callback(grads)
            return grads

        def batch_size(flat_input):
            for x in flat_input:
                if x.shape[0] is not None:
                    return x.shape[0]
            return tf.shape(flat_input[0])[0]

        def power(x, y):
            result = tf.eye(3)
            for _ in range(y):  # STG503
                result = tf.matmul(x, result)
            return result

        def fit(batches):
            total = tf.constant(0.0)
            for b in batches:  # STG503
                total += tf.reduce_sum(b)
            return total

        @tf.function
        def step(x, boxes, grads):
            e = equation(3) + str(table(4).sum())
            g = grid(tf.convert_to_tensor(boxes), 7)
            grads = run_callbacks([tf.identity], grads)
            n = batch_size([tf.square(x), tf.square(x)])
            return e, g, grads, n, power(x, 100), fit([(1.0, 2.0), (3.0, 4.0)])
    """)


# Staging: branches that never run while tracing ----------------------------------------------------------------


def test_eager_only_branches_are_not_staged():
    # keras-hub preprocessing layers: `call` runs `_call_tf` while tracing and `_call_python`
    # (NumPy, Python's random) otherwise, decided by `_use_tf_workflow()`, which starts with
    # `if in_tf_function(): return True`; `in_tf_function` is `not tf.executing_eagerly()`.
    assert_marked("""
        import random
        import tensorflow as tf

        def in_tf_function():
            if tf is None:
                return False
            return not tf.executing_eagerly()

        class MaskGenerator(tf.keras.layers.Layer):
            def _use_tf_workflow(self):
                if in_tf_function():
                    return True
                return False

            def _call_python(self, x):
                return [t for t in x if random.random() < 0.5]

            def _call_tf(self, x):
                return tf.nn.dropout(x, 0.5)

            def call(self, x):
                if self._use_tf_workflow():
                    return self._call_tf(x)
                else:
                    return self._call_python(x)

        def to_numpy(x):
            print("converting", x)  # STG101
            return x.numpy()  # STG601

        @tf.function
        def f(x):
            if tf.executing_eagerly():
                x = to_numpy(x)
            return g(x)

        @tf.function
        def g(x):
            if not tf.executing_eagerly():
                return x * 2
            return to_numpy(x)

        @tf.function
        def h(x):
            return to_numpy(x)
    """)


def test_calling_what_a_property_returns_does_not_run_its_setter():
    # keras-hub `Preprocessor`: `self.audio_converter(audios)` in `call`, while the
    # `@audio_converter.setter` (same name) stores its argument on self.
    assert_marked("""
        import tensorflow as tf

        class Preprocessor(tf.keras.layers.Layer):
            @property
            def converter(self):
                return self._converter

            @converter.setter
            def converter(self, value):
                self._converter = value

            def remember(self, value):
                self._last = value  # STG201

            def call(self, x):
                y = self.converter(x)
                self.remember(tf.square(x))
                return y

        model = tf.keras.Sequential([Preprocessor()])
    """)


def test_loop_over_a_literal_list_of_tensors_is_a_python_loop():
    # Model Garden preprocess_ops_3d.crop_image: `for offset in [offset_1, offset_2, offset_3]:`
    # then `crops.append(tf.slice(...))`: unrolled three times, the list is filled three times.
    assert_marked("""
        import tensorflow as tf

        @tf.function
        def crop(frames, a, b, n):
            crops = []
            for offset in [tf.cast(a, tf.int32), tf.cast(b, tf.int32)]:
                crops.append(tf.slice(frames, [offset], [2]))
            more = []
            for i in tf.range(n):
                more.append(tf.slice(frames, [i], [2]))  # STG202
            return tf.concat(crops, axis=0), more
    """)


def test_compat_v2_spellings_and_pure_update_methods():
    # TFP (`import tensorflow.compat.v2 as tf`): `seeds = tf.unstack(seeds)` then a comprehension,
    # `tf.get_static_value(x)` then NumPy; `updates, state = optimizer.update(grads, state)` (an
    # optax-style optimizer: `list.update` would return None).
    assert_tiers("""
        import numpy as np
        import tensorflow.compat.v2 as tf

        def make_step(optimizer, history):
            @tf.function
            def step(params, state, seeds, x):
                seeds = tf.unstack(seeds)
                seeds = [s + 1 for s in seeds]
                x_ = tf.get_static_value(x)
                size = np.prod(x_) if x_ is not None else tf.size(x)
                updates, state = optimizer.update(params, state)
                history.update({"last": 1})  # preview STG102
                return updates, state, seeds, size
            return step
    """)


def test_executing_eagerly_through_an_indirectly_imported_module():
    # keras-hub tensor_utils: `tf = try_import_tensorflow()`, then `return not tf.executing_eagerly()`.
    # The graph branch's draw is preview: no code here trains the layer (it may run eagerly).
    assert_tiers("""
        import random
        import keras

        def try_import_tensorflow():
            import tensorflow
            return tensorflow

        tf = try_import_tensorflow()

        def in_tf_function():
            return not tf.executing_eagerly()

        class Masker(keras.layers.Layer):
            def _python(self, x):
                return x if random.random() < 0.5 else None

            def _graph(self, x):
                return x * random.random()  # preview STG104

            def call(self, x):
                if in_tf_function():
                    return self._graph(x)
                return self._python(x)
    """)


def test_lazy_set_up_reads_and_py_function_through_an_indirect_import():
    # keras-hub tokenizers: `if self._fast_word_piece is None: self._set_vocabulary_tf()` reads the
    # vocabulary once; RWKV's `tf.py_function(tokenize_wrapper, ...)` with
    # `tf = try_import_tensorflow()` runs the wrapper eagerly.
    assert_marked("""
        import keras

        def try_import_tensorflow():
            import tensorflow
            return tensorflow

        tf = try_import_tensorflow()

        class Tokenizer(keras.layers.Layer):
            def __init__(self, vocabulary):
                super().__init__()
                self.set_vocabulary(vocabulary)

            def set_vocabulary(self, vocabulary):
                self.vocabulary = vocabulary
                self.lowercase = True
                self._table = None

            def _set_table(self):
                self._table = {v: i for i, v in enumerate(self.vocabulary)}

            def call(self, x):
                if self._table is None:
                    self._set_table()

                def wrapper(t):
                    return t.numpy()

                y = tf.py_function(wrapper, [x], Tout="int32")
                return y if self.lowercase else x  # STG302
    """, preview=True)


def test_strategy_update_star_args_closure_helpers_and_slot_lists():
    # Model Garden: `strategy.extended.update(average, fn, args=(normal,))` (not `dict.update`),
    # `cartesian_product(*tensors)` then `tf.meshgrid(*tensors)`, RetinaNet's nested
    # `_update_decoded_results()` filling `outputs` of the `call` it is nested in, the EMA
    # optimizer's `self._average_weights = [self.get_slot(var, "average") for var in ...]`, and a
    # dict mutated while setting up, before the nested tf.function is defined.
    assert_marked("""
        import tensorflow as tf

        class EMA(tf.Module):
            def __init__(self):
                self._average_weights = None
                self.decay = 0.9

            def shadow_copy(self, model):
                self._average_weights = [self.get_slot(var, "average") for var in model.variables]

            def set_decay(self, decay):
                self.decay = decay

            @tf.function
            def update_average(self, strategy):
                for average in self._average_weights:
                    strategy.extended.update(average, lambda a: a * 0.9, args=(), group=False)
                return self.decay  # STG302

        def cartesian_product(*tensors, repeat=1):
            tensors = tensors * repeat
            return tf.stack(tf.meshgrid(*tensors, indexing="ij"))

        class Model(tf.keras.Model):
            def call(self, x):
                outputs = {"x": x}

                def _update():
                    outputs.update({"y": x * 2})
                    return outputs

                return tf.cond(tf.reduce_any(x > 0), _update, lambda: outputs), cartesian_product(x, x)

        def train(params):
            params["steps"] = 10

            @tf.function
            def step(x):
                return x * params["steps"]

            return step
    """, preview=True)


def test_tf1_logging_is_python_logging_not_an_op():
    # TFP `empirical_statistics`: `tf1.logging.warn("...")` (tf.compat.v1.logging is Python's
    # logging); TFP `size0`: `n = tf.compat.dimension_value(x.shape[0])` then `np.int32(n)`.
    assert_marked("""
        import numpy as np
        import tensorflow.compat.v1 as tf1
        import tensorflow.compat.v2 as tf

        @tf.function
        def stats(x):
            tf1.logging.warn("Using the empirical mean.")
            tf1.logging.warn("mean %s", tf.reduce_mean(x))  # STG101
            n = tf.compat.dimension_value(x.shape[0])
            tf.identity(x)  # STG603
            return np.int32(n) if n is not None else tf.size(x)
    """)


def test_numpy_in_branches_that_dispatch_on_the_value_s_type():
    # TF-Agents `restart` (`if not tf.is_tensor(first_observation):` then NumPy), keras-hub
    # (`if hasattr(audios, "cpu")`, `"jax" in str(type(videos))`), TFP (`if JAX_MODE:`,
    # `isinstance(salt, int)`, `if not hasattr(input, "shape")`).
    assert_marked("""
        import numpy as np
        import tensorflow as tf

        JAX_MODE = False

        @tf.function
        def restart(observation, batch_size, salt):
            if not tf.is_tensor(observation):
                reward = np.zeros(batch_size)
            else:
                reward = tf.zeros([batch_size])
            if hasattr(observation, "cpu") and hasattr(observation, "numpy"):
                observation = observation.cpu().numpy()
            if JAX_MODE:
                salt = np.asarray(salt)
            if isinstance(salt, int):
                salt = np.uint64([salt])
            if "jax" in str(type(salt)):
                salt = np.array(salt)
            total = tf.reduce_sum(observation)
            return reward, salt, np.mean(total)  # STG601
    """)


def test_iterator_made_by_a_traced_caller_is_fresh_each_trace():
    # Model Garden EMA optimizer: `_swap(zip(self._average_weights, self._model_weights))` from a
    # tf.function; the helper loops over the zip.
    assert_marked("""
        import tensorflow as tf

        def swap(pairs):
            for a, b in pairs:
                a.assign(b)

        @tf.function
        def swap_weights(xs, ys):
            swap(zip(xs, ys))

        @tf.function
        def consume(iterator):
            return next(iterator)  # STG103

        consume(iter([1, 2, 3]))
    """)


def test_a_list_of_slot_variables_rebound_in_set_up_is_not_a_replaced_variable():
    # tf-addons MovingAverage: `_create_slots` and `shadow_copy` both set
    # `self._average_weights = [self.get_slot(var, "average") for var in var_list]`.
    assert_marked("""
        import tensorflow as tf

        class MovingAverage(tf.Module):
            def _create_slots(self, var_list):
                self._average_weights = [self.get_slot(var, "average") for var in var_list]

            def shadow_copy(self, model_weights):
                self._average_weights = [self.get_slot(var, "average") for var in model_weights]

            @tf.function
            def swap(self):
                for a in self._average_weights:
                    a.assign(a * 2)
    """)


def test_a_none_test_on_a_local_is_not_a_set_once_guard():
    # keras-hub Seq2SeqLMPreprocessor.call: `if decoder_sequence_length is None:
    # decoder_sequence_length = self.decoder_sequence_length` reads the attribute on every trace,
    # and the public setter changes it.
    assert_marked("""
        import tensorflow as tf

        class Preprocessor(tf.keras.layers.Layer):
            def __init__(self):
                super().__init__()
                self._length = 8
                self._packer = None

            @property
            def length(self):
                return self._length

            def set_length(self, value):
                self._length = value

            def _maybe_initialize(self):
                if getattr(self, "_cache", None) is None:
                    self._cache = {"width": self._length}

            def call(self, x, length=None):
                self._maybe_initialize()
                if self._packer is None:
                    self._packer = object()
                    width = self._length
                if length is None:
                    length = self._length  # STG302
                return x[:length]
    """, preview=True)


def test_storing_static_shapes_or_a_python_option_is_the_same_for_every_reused_trace():
    # Model Garden MaxViT `self._output_specs = {k: t.get_shape() ...}`, export_tfhub_lib_test's
    # `container[0] = tf.nest.map_structure(lambda x: x.shape.as_list(), result)`, keras-hub
    # SmolLM3 `self.training = training`: a new shape or flag retraces and stores again.
    assert_tiers("""
        import tensorflow as tf

        class Block(tf.keras.layers.Layer):
            def call(self, x, training=False, mask=None):
                y = tf.nn.relu(x)
                self._output_specs = {"y": y.get_shape()}
                self._shapes = tf.nest.map_structure(lambda t: t.shape.as_list(), [x, y])
                self.training = training
                self.mask = mask  # preview STG102
                self.calls = 1  # preview STG102
                return y
    """)


def test_a_marker_appended_to_a_list_records_a_trace():
    # tf-models tests (encoder_scaffold_test, nn_blocks_test): a test double's `call` appends
    # True to show it ran; the test checks that it ran, and once per trace is that.
    assert_marked("""
        import tensorflow as tf

        class ValidatedLayer(tf.keras.layers.Layer):
            def __init__(self, call_list):
                super().__init__()
                self.list = call_list
                self.outputs = []

            def call(self, inputs):
                self.list.append(True)
                self.outputs.append(inputs * 2)  # STG201
                self.list.append(len(self.outputs))  # STG102
                return inputs

        model = tf.keras.Sequential([ValidatedLayer([])])
    """)


# Session 4 (issue 11 on the pinned wheels): the remaining false-positive classes ------------------


def test_closure_rebound_after_the_nested_function_s_last_call_is_not_stale():
    # Model Garden tests (`pretrain_dynamic_dataloader_test.py`, `t5_test.py`): `metrics` / `l`
    # rebound after `step_fn` ran for the last time, for the next Function; `translate.py`: a
    # Function defined afresh in each loop iteration, run before `text` is rebound. The twins: a
    # call after the rebinding, a loop around the rebinding and the call; a Function returned
    # after the change traces with the new value (tests/runtime/test_tf_capture_order_facts.py).
    assert_marked("""
        import tensorflow as tf

        def test_attention(strategy, make, data):
            metrics = make()

            @tf.function
            def step_fn(x):
                return x * len(metrics)

            strategy.run(step_fn, args=(data,))
            metrics = make()

            @tf.function
            def step_fn_b(x):
                return x * len(metrics)

            step_fn_b(data)

        def translate(strategy, batches):
            for text in batches:
                text = tf.constant(text)

                @tf.function
                def per_replica():
                    return text[0]

                text = strategy.run(per_replica)

        def stale_call(data):
            scale = 1.0

            @tf.function
            def f(x):
                return x * scale  # STG301

            f(data)
            scale = 2.0
            f(data)

        def stale_loop(data, scales):
            scale = 1.0

            @tf.function
            def g(x):
                return x * scale  # STG301

            for s in scales:
                g(data)
                scale = s

        def fresh_escape():
            scale = 1.0

            @tf.function
            def h(x):
                return x * scale

            scale = 2.0
            return h  # handed out after the change: its first call traces with 2.0

        def rebound_under_a_map_lambda(dataset, round_robin):
            range_dataset = tf.data.Dataset.range(4)
            # Model Garden `input_reader.py`: the reading function is a lambda (no name to
            # follow), and `kwargs` is bound again in the other branch, after it
            if round_robin:
                kwargs = {"mode": "parallel_epochs"}
                dataset = range_dataset.map(lambda i: dataset.apply(tf.identity, **kwargs))
            else:
                kwargs = {"mode": "off"}
                dataset = dataset.apply(tf.identity, **kwargs)
            return dataset
    """)


def test_global_set_by_a_function_called_only_in_set_up_is_configuration():
    # Model Garden YOLO: `set_random_seeds()` sets `GLOBAL_SEED_SET`, and only a task's
    # `__init__` calls it, before any input pipeline exists. The twin: the same writer called
    # from an ordinary method, which may run between two calls: in a library, whose code shows no
    # order of the calls, that is a guess (preview).
    assert_tiers("""
        import tensorflow as tf

        GLOBAL_SEED_SET = False
        FAST = False

        def set_random_seeds(seed=0):
            global GLOBAL_SEED_SET
            GLOBAL_SEED_SET = True
            tf.random.set_seed(seed)

        def set_fast():
            global FAST
            FAST = True

        def random_uniform_strong(minval, maxval, seed=None):
            if GLOBAL_SEED_SET:
                seed = None
            return tf.random.uniform([], minval, maxval, seed=seed)

        def scale(x):
            if FAST:  # preview STG301
                return x
            return 2 * x

        class Task:
            def __init__(self, seed):
                set_random_seeds(seed=seed)

            def speed_up(self):
                set_fast()

            @tf.function
            def preprocess(self, image):
                return scale(image) * random_uniform_strong(0.5, 1.5)
    """)


def test_methods_of_an_object_bound_further_down_the_module_are_not_list_mutations():
    # Model Garden `recompute_grad.py`: `RecomputeContext.__exit__` calls `_context_stack.pop(self)`
    # on a `_ContextStack` object that the module binds below the class. The twin: a list (popped
    # by a method that may run at any time in a library: preview).
    assert_tiers("""
        import tensorflow as tf

        class RecomputeContext:
            def __enter__(self):
                return _context_stack.push(self)

            def __exit__(self, *exc):
                _context_stack.pop(self)
                _history.pop()

        class _ContextStack:
            def __init__(self):
                self._stack = []

            def top(self):
                return self._stack[-1] if self._stack else None

            def push(self, context):
                self._stack.append(context)
                return context

            def pop(self, context):
                self._stack.pop()

        _context_stack = _ContextStack()
        _history = [1]

        @tf.function
        def f(x):
            if _context_stack.top() is None:
                return x * len(_history)  # preview STG301
            return x
    """)


def test_size_arguments_of_ops_do_not_make_a_range_bound_a_tensor():
    # Model Garden TEAMS `sample_k_from_softmax(logits, k)`: `tf.nn.top_k(..., k=k)` in one
    # branch, `for _ in range(k)` in the other; video `sample_linspace_sequence`:
    # `tf.linspace(0.0, m, num_windows)` then `for i in range(num_windows)`. Both bounds are
    # config ints. The twin: a bound the caller passes as a tensor.
    assert_marked("""
        import tensorflow as tf

        def sample_k(logits, k, use_topk=False):
            if use_topk:
                return tf.nn.top_k(logits, k=k).indices
            out = []
            for _ in range(k):
                out.append(tf.argmax(logits, -1))
            return tf.stack(out, -1)

        def linspace_windows(sequence, num_windows):
            offsets = tf.linspace(0.0, 10.0, num_windows)
            parts = []
            for i in range(num_windows):
                parts.append(sequence[i] + offsets[i])
            return tf.concat(parts, 0)

        def tensor_bound(sequence, n):
            parts = []
            for i in range(n):
                parts.append(sequence[i])  # STG202
            return tf.concat(parts, 0)

        @tf.function
        def f(logits, sequence):
            return sample_k(logits, 3), linspace_windows(sequence, 4), tensor_bound(sequence, tf.size(sequence))
    """)


def test_lists_concatenated_into_loop_vars_and_axes_given_to_xla_are_python_values():
    # TFP `smart_for_loop`: `loop_vars=[np.int32(0)] + initial_loop_vars` makes
    # `initial_loop_vars` a list (statically unrolled with `body_fn(*result)`); TFP
    # `variadic_reduce`: `dimensions_to_reduce=axis`, a tuple of ints tested with `i not in axis`.
    # The twins: the same parameters in arithmetic with a tensor.
    assert_marked("""
        import numpy as np
        import tensorflow as tf
        from tensorflow.compiler.tf2xla.python import xla

        def smart_for_loop(n, body_fn, initial_loop_vars):
            if n > 10:
                return tf.while_loop(
                    cond=lambda i, *args: i < n,
                    body=lambda i, *args: [i + 1] + list(body_fn(*args)),
                    loop_vars=[np.int32(0)] + initial_loop_vars,
                )[1:]
            result = initial_loop_vars
            for _ in range(n):
                result = body_fn(*result)
            return result

        def scaled_loop(body_fn, loop_vars):
            total = tf.reduce_sum(loop_vars * 2.0)
            return body_fn(*loop_vars), total  # STG602

        def make_reduce(reducer):
            @tf.function(jit_compile=True)
            def xla_reduce(operands, inits, axis):
                result = xla.variadic_reduce(operands, init_values=inits, dimensions_to_reduce=axis)
                shape = operands[0].shape
                for part in result:
                    part.set_shape(tuple(d for i, d in enumerate(shape) if i not in axis))
                return result

            @tf.function
            def shifted(x, axis):
                y = tf.add(x, axis)
                return [d for i, d in enumerate(x.shape) if i not in axis]  # STG602

            return xla_reduce, shifted

        @tf.function
        def run(x):
            return smart_for_loop(3, lambda a: [a + 1], [x]), scaled_loop(lambda a: a, x)
    """)


def test_a_warning_about_an_argument_s_type_belongs_to_the_trace():
    # Model Garden `visualize_images_with_bounding_boxes`: `if not isinstance(images, list):
    # logging.warning("... received type: %s and value: %s", type(images), images); return`.
    # The twins: an info log of the tensor under the same test, and a warning under a value test.
    assert_marked("""
        import tensorflow as tf
        from absl import logging

        @tf.function
        def visualize(images, step):
            if not isinstance(images, list):
                logging.warning("expects a list but received type: %s and value: %s", type(images), images)
                return
            if tf.is_tensor(step):
                logging.info("step %s", step)  # STG101
            if len(images) > 3:
                logging.warning("too many images: %s", images)  # STG101
            return tf.stack(images)
    """)


_WRAPPED_NETWORK = """
    import tensorflow as tf

    class WrappedNetwork(tf.keras.layers.Layer):
        def __init__(self):
            super().__init__()
            self.mask = None
            self.calls = 0
            self.masks = []

        def call(self, observation, mask=None):
            self.mask = mask
            self.calls += 1  # STG102
            self.masks.append(mask)  # STG102
            return observation
"""


def test_a_test_double_keeping_the_argument_it_was_called_with(tmp_path):
    # TF-Agents `mask_splitter_network_test.py`: `WrappedDistributionNetwork.call` keeps
    # `self.mask = mask` so the test can assert on what it received. The twins: the same class
    # outside a test module, and state a test double changes rather than records.
    # (a store of what the call was given is a guess of a lost update: the library's is preview)
    library = _WRAPPED_NETWORK.replace("self.mask = mask", "self.mask = mask  # STG102")
    assert_project_marked(tmp_path, {
        "pkg/networks/mask_splitter_network_test.py": _WRAPPED_NETWORK,
        "pkg/networks/wrapped.py": library,
    }, preview=True)


def test_recursion_under_a_python_option_flag_ends_at_trace_time():
    # TFP `_minimize_common(..., jit_compile=False)`: `if jit_compile:` it runs itself once inside
    # a jit-compiled Function with `kwargs['jit_compile'] = False`. The twin: a Function recursing
    # on a Python int, one trace per depth.
    assert_marked("""
        import tensorflow as tf

        def minimize_common(num_steps, loss_fn, jit_compile=False, name="minimize"):
            if jit_compile:
                kwargs = dict(locals())
                kwargs["jit_compile"] = False

                @tf.function(autograph=False, jit_compile=True)
                def run_jitted_minimize():
                    return minimize_common(**kwargs)
                return run_jitted_minimize()
            return tf.reduce_sum(loss_fn()) * num_steps

        @tf.function
        def countdown(n):
            if n > 0:
                return countdown(n - 1)  # STG401
            return 1

        @tf.function
        def train(loss_fn):
            return minimize_common(10, loss_fn), countdown(3)
    """)


def test_an_rnn_over_a_cell_without_variables_creates_none():
    # tf-addons `crf_decode_forward`: `tf.keras.layers.RNN(CrfDecodeForwardRnnCell(...))` in a
    # traced function; the cell's `build` creates nothing. The twin: a cell that adds a weight.
    assert_marked("""
        import tensorflow as tf

        class CrfDecodeForwardRnnCell(tf.keras.layers.AbstractRNNCell):
            def __init__(self, transition_params, **kwargs):
                super().__init__(**kwargs)
                self._transition_params = tf.expand_dims(transition_params, 0)

            @property
            def state_size(self):
                return 3

            @property
            def output_size(self):
                return 3

            def build(self, input_shape):
                super().build(input_shape)

            def call(self, inputs, state):
                return inputs, [state[0] + inputs]

        class ScaledCell(tf.keras.layers.AbstractRNNCell):
            state_size = 3
            output_size = 3

            def build(self, input_shape):
                self.scale = self.add_weight(name="scale", shape=[3])

            def call(self, inputs, state):
                return inputs * self.scale, [state[0]]

        def crf_decode_forward(inputs, state, transition_params):
            crf_fwd_cell = CrfDecodeForwardRnnCell(transition_params, dtype=inputs.dtype)
            crf_fwd_layer = tf.keras.layers.RNN(crf_fwd_cell, return_sequences=True, return_state=True)
            scaled = tf.keras.layers.RNN(ScaledCell())  # STG402
            return crf_fwd_layer(inputs, state), scaled(inputs)

        @tf.function
        def decode(inputs, state, transition_params):
            return crf_decode_forward(inputs, state, transition_params)
    """)


def test_attributes_kept_by_a_method_that_creates_the_object_s_variables_are_set_up():
    # tf-addons `MovingAverage.shadow_copy(model_weights)`: adds the "average" slots, then keeps
    # `self._model_weights = model_weights`, as `_create_slots` does. The twin: a public method
    # that only rebinds the list.
    assert_marked("""
        import tensorflow as tf

        class MovingAverage(tf.keras.optimizers.Optimizer):
            def __init__(self):
                super().__init__("moving_average")
                self._model_weights = None
                self._extra = None

            def _create_slots(self, var_list):
                for var in var_list:
                    self.add_slot(var, "average", var.read_value())
                self._model_weights = var_list

            def shadow_copy(self, model_weights):
                for var in model_weights:
                    self.add_slot(var, "average", initializer="zeros")
                self._model_weights = model_weights

            def set_extra(self, extra):
                self._extra = extra

            @tf.function
            def _swap_weights(self):
                weights = [w * 2 for w in self._model_weights]
                return weights, self._extra  # STG302
    """, preview=True)


def test_a_pop_by_key_unpacked_into_two_names_is_flax_s_functional_pop():
    # tensorflow/docs `jax2tf.ipynb`: `other_state, params = state.pop('params')` on the Flax
    # `FrozenDict` of `model.init(...)`, in a jitted step. The twins: a dict's pop of one value,
    # and a list's pop unpacked into a pair.
    assert_marked("""
        import jax

        cache = {"params": 1, "stats": 2}
        pairs = [(1, 2)]

        @jax.jit
        def train_step(state, x):
            other_state, params = state.pop("params")
            stats = cache.pop("stats")  # STG102
            a, b = pairs.pop()  # STG102
            return params, other_state, x
    """)
