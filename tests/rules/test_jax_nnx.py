"""Flax NNX state, modelled once (`stagelint.analysis.nnx`): what an attribute of an `nnx.Module` is.

Each class with its positive and its negative twin. Behaviour checked with flax 0.12.8 / JAX
0.10.2 in this venv (trace counts for 3 calls):

* `model.steps += 1` on a plain Python attribute under `nnx.jit`: 3 traces, the value carried out
  (row 42: STG501); under plain `jax.jit`: 1 trace, the change lost (STG102); also through a
  submodule (`model.block.steps += 1`: 3 traces) and in the module's own `__call__`;
* `model.count[...] += 1` / `.value += 1` on an `nnx.Variable` (or `nnx.Param`, `nnx.BatchStat`, a
  project subclass) under `nnx.jit`: 1 trace, the update carried out; under plain `jax.jit`: lost
  (row 41: STG102), unless the Variable is hijax (`nnx.var_defaults(hijax=True)`, `hijax=True`):
  then it propagates, except when the object holds the Variable twice (`self.b = self.a`: 0);
* `model.history.append(1)` on a static list under `nnx.jit`: 1 append for 3 calls (STG102);
* `if model.dim == 4` on a static attribute (`self.dim = dim` with `Model(4)`, `nnx.static(3)`):
  fine under any jit; on a Variable or `nnx.data(0)`: TracerBoolConversionError (STG602).
"""

from __future__ import annotations

from rulecases import assert_marked, assert_project_marked, assert_tiers, findings

from stagelint.frameworks import NNX_HIJAX_CALLS, NNX_TRANSFORMS, NNX_VAR_DEFAULTS, NNX_VARIABLES


# Row 42: a Python attribute changed on every call under nnx.jit ----------------------------------


def test_python_attribute_changed_under_nnx_jit_retraces_a_variable_does_not():
    assert_marked("""
        import jax.numpy as jnp
        from flax import nnx

        class Model(nnx.Module):
            def __init__(self, rngs):
                self.linear = nnx.Linear(2, 2, rngs=rngs)
                self.steps = 0
                self.mode = "train"
                self.count = nnx.Variable(jnp.array(0))

        @nnx.jit
        def forward(model, x):
            model.steps += 1  # STG501
            model.mode = "eval"
            model.count[...] += 1
            model.count.value += 1
            return model.linear(x)

        m = Model(nnx.Rngs(0))
        for _ in range(3):
            forward(m, jnp.ones(2))
    """)


def test_python_attribute_changed_under_plain_jax_jit_is_lost_not_retraced():
    assert_marked("""
        import jax
        import jax.numpy as jnp
        from flax import nnx

        class Model(nnx.Module):
            def __init__(self):
                self.steps = 0

        @jax.jit
        def forward(model, x):
            model.steps += 1  # STG102
            return x

        m = Model()
        forward(m, jnp.ones(2))
    """)


def test_stg501_message_names_nnx_remedy():
    (f,) = findings("""
        import jax.numpy as jnp
        from flax import nnx

        class Model(nnx.Module):
            def __init__(self):
                self.steps = 0

        @nnx.jit
        def forward(model, x):
            model.steps = model.steps + 1
            return x

        forward(Model(), jnp.ones(2))
    """, "STG501")
    assert "plain Python attribute of the Flax NNX module `Model`" in f.message
    assert "nnx.Variable" in f.message and "model.steps[...] += 1" in f.message


def test_submodule_attribute_and_the_module_s_own_method():
    """`model.block.steps += 1` (3 traces) and `self.calls += 1` in an `@nnx.jit` `__call__`
    (3 traces for 3 calls); the submodule's BatchStat is state (1 trace)."""
    assert_marked("""
        import jax.numpy as jnp
        from flax import nnx

        class Block(nnx.Module):
            def __init__(self):
                self.steps = 0
                self.count = nnx.BatchStat(jnp.array(0))

        class Model(nnx.Module):
            def __init__(self):
                self.block = Block()
                self.calls = 0

            @nnx.jit
            def __call__(self, x):
                self.calls += 1  # STG501
                return x

        @nnx.jit
        def step(model, x):
            model.block.steps += 1  # STG501
            model.block.count[...] += 1
            return x

        m = Model()
        step(m, jnp.ones(2))
        m(jnp.ones(2))
    """)


def test_module_class_in_another_file(tmp_path):
    """The class, its Variables and its Python attributes come from another module."""
    assert_project_marked(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/models.py": """
            import jax.numpy as jnp
            from flax import nnx

            class Counter(nnx.Variable):
                pass

            class Base(nnx.Module):
                def __init__(self):
                    self.seen = 0

            class Model(Base):
                def __init__(self, dim):
                    super().__init__()
                    self.dim = dim
                    self.hits = Counter(jnp.array(0))
                    self.scale = nnx.Param(jnp.ones(()))
        """,
        "pkg/train.py": """
            import jax
            import jax.numpy as jnp
            from flax import nnx
            from pkg.models import Model

            @nnx.jit
            def train_step(model, x):
                model.seen += 1  # STG501
                model.hits[...] += 1
                model.scale.value = model.scale.value * 2
                if model.dim == 4:
                    x = x + 1
                return x

            @jax.jit
            def eval_step(model, x):
                model.hits[...] += 1  # STG102
                if model.dim == 4:
                    x = x + 1
                if model.scale.value > 0:  # STG602
                    x = x - 1
                return x

            model = Model(4)
            for _ in range(3):
                train_step(model, jnp.ones(2))
                eval_step(model, jnp.ones(2))
        """,
    })


# Python control flow on an attribute ---------------------------------------------------------------


def test_control_flow_on_static_attribute_under_plain_jit_is_fine_on_state_it_fails():
    """key_concepts.ipynb: `if model.dim == 4` works, `if model.traced_dim.value == 4` raises."""
    assert_marked("""
        import jax
        from flax import nnx

        class Foo(nnx.Module):
            def __init__(self, dim, rngs):
                self.w = nnx.Param(jax.random.normal(rngs.param(), (dim, dim)))
                self.dim = dim
                self.traced_dim = nnx.Param(dim)
                self.pinned = nnx.static(3)
                self.counted = nnx.data(0)

        @jax.jit
        def jitted(model):
            if model.dim == 4 and model.pinned > 0:
                pass
            if model.traced_dim.value == 4:  # STG602
                pass
            if model.counted > 0:  # STG602
                pass

        jitted(Foo(4, nnx.Rngs(0)))
    """)


def test_attribute_set_from_a_traced_constructor_argument_stays_traced():
    assert_marked("""
        import jax
        import jax.numpy as jnp
        from flax import nnx

        class Gate(nnx.Module):
            def __init__(self, threshold):
                self.threshold = threshold

        @jax.jit
        def gate(model, x):
            if model.threshold > 0:  # STG602
                return x
            return -x

        gate(Gate(jnp.ones(())), jnp.ones(2))
    """)


def test_a_keyword_only_constructor_parameter_past_args_takes_no_positional_argument():
    """`Gate(jnp.ones(()))` binds the array into `*layers`; `threshold` keeps its Python default,
    a static attribute: `if model.threshold > 0` works under `jax.jit` (flax 0.12.8, JAX 0.10.2: it
    returns). The attribute was taken for the array at the parameter's index (STG602 in the
    default tier); now no call passes it, and what a default leaves is not modelled: the guess of
    the preview tier, as for `threshold=0.5` with `Gate()`."""
    assert_tiers("""
        import jax
        import jax.numpy as jnp
        from flax import nnx

        class Gate(nnx.Module):
            def __init__(self, *layers, threshold=0.5):
                self.threshold = threshold

        @jax.jit
        def gate(model, x):
            if model.threshold > 0:  # preview STG602
                return x
            return -x

        gate(Gate(jnp.ones(())), jnp.ones(2))
    """)


def test_a_keyword_only_constructor_parameter_passed_an_array_by_keyword_stays_traced():
    """The twin: `Gate(jnp.ones(()), threshold=jnp.ones(()))` stores the array: under `jax.jit`
    `if model.threshold > 0` raises TracerBoolConversionError (flax 0.12.8, JAX 0.10.2)."""
    assert_marked("""
        import jax
        import jax.numpy as jnp
        from flax import nnx

        class Gate(nnx.Module):
            def __init__(self, *layers, threshold=0.5):
                self.threshold = threshold

        @jax.jit
        def gate(model, x):
            if model.threshold > 0:  # STG602
                return x
            return -x

        gate(Gate(jnp.ones(()), threshold=jnp.ones(())), jnp.ones(2))
    """)


# hijax Variables under plain jax.jit --------------------------------------------------------------


def test_hijax_variables_propagate_out_of_plain_jax_jit():
    """hijax.ipynb: after `nnx.var_defaults(hijax=True)`, updates of Variables passed to
    `jax.jit` propagate (the page prints the new value)."""
    assert_marked("""
        import jax
        import jax.numpy as jnp
        from flax import nnx

        nnx.var_defaults(hijax=True)

        v = nnx.Variable(jnp.array(0))

        @jax.jit
        def inc(v):
            v[...] += 1

        metrics = nnx.Variable({})

        @jax.jit
        def linear(x, w, metrics):
            y = x @ w
            metrics["y_mean"] = jnp.mean(y)
            return y

        inc(v)
        linear(jnp.ones((2, 2)), jnp.ones((2, 2)), metrics)
    """)


def test_plain_variables_lose_their_updates_under_plain_jax_jit():
    """The same without hijax Variables: the updates are lost (row 41). `metrics` is JAX's copy of
    the caller's dict (checked with JAX 0.10.2: the caller's stays `{}`): no tracer leaks into
    it, the store is lost."""
    assert_marked("""
        import jax
        import jax.numpy as jnp
        from flax import nnx

        v = nnx.Variable(jnp.array(0))

        @jax.jit
        def inc(v):
            v[...] += 1  # STG102

        metrics = {}

        @jax.jit
        def linear(x, w, metrics):
            y = x @ w
            metrics["y_mean"] = jnp.mean(y)  # STG102
            return y

        inc(v)
        linear(jnp.ones((2, 2)), jnp.ones((2, 2)), metrics)
    """)


def test_hijax_module_variables_propagate_but_not_when_shared():
    """An explicit `hijax=True` module; a Pytree holding one Variable under two names carries
    no update out (flax 0.12.8: `has_shared.a` stays 0; hijax.ipynb cell 31)."""
    assert_marked("""
        import jax
        import jax.numpy as jnp
        from flax import nnx

        class Counter(nnx.Module):
            def __init__(self):
                self.count = nnx.Variable(jnp.array(0), hijax=True)

        class HasShared(nnx.Pytree):
            def __init__(self):
                self.a = nnx.Variable(jnp.array(0), hijax=True)
                self.b = self.a

        @jax.jit
        def tick(counter):
            counter.count[...] += 1

        @jax.jit
        def g(has_shared):
            has_shared.a[...] = 5  # STG102

        tick(Counter())
        g(HasShared())
    """)


# A static container changed in place ---------------------------------------------------------------


def test_static_list_of_a_module_filled_under_nnx_jit_runs_once():
    """`model.history.append(1)`: one append for three calls (a static attribute, changed at
    trace time only); `metrics.update(...)` on a graph node is nnx.jit's to carry out."""
    assert_marked("""
        import jax.numpy as jnp
        from flax import nnx

        class Model(nnx.Module):
            def __init__(self):
                self.history = []
                self.metrics = nnx.MultiMetric(loss=nnx.metrics.Average("loss"))

        @nnx.jit
        def step(model, x):
            model.history.append(1)  # STG102
            model.metrics.update(loss=x.sum())
            return x

        m = Model()
        for _ in range(3):
            step(m, jnp.ones(2))
    """)


def test_with_vars_hijax_module_under_plain_jax_jit():
    """flax tests/nnx/mutable_array_test.py: `nnx.with_vars(foo, hijax=True)` (or `ref=True`)
    makes the module's Variables propagate out of `jax.jit`; without it the update is lost."""
    source = """
        import jax
        import jax.numpy as jnp
        from flax import nnx

        class Foo(nnx.Module):
            def __init__(self):
                self.count = nnx.Variable(jnp.array(0))

        @jax.jit
        def forward(foo, x):
            foo.count[...] += 1  # STG102
            return x

        foo = Foo()
        forward(foo, jnp.ones(2))
    """
    assert_marked(source)
    assert_marked(source.replace("foo = Foo()", "foo = nnx.with_vars(Foo(), ref=True)")
                  .replace("  # STG102", ""))


def test_captured_hijax_variable_updated_under_grad_and_scan():
    """flax mutable_array_test.py: a hijax Variable captured by a `jax.grad` / `lax.scan` body is
    updated for real (`v[...]` is 12.0 after grad); a captured Python list is not, and neither is a
    plain Variable (flax 0.12.8: TraceContextError, "Cannot mutate Variable from a different
    trace level")."""
    source = """
        import jax
        import jax.numpy as jnp
        from flax import nnx

        def grad_case():
            v = nnx.Variable(jnp.array(2.0), hijax=True)
            seen = []

            def loss_fn(x):
                v[...] = jax.lax.stop_gradient(x * 3)
                seen.append(x)  # STG201
                return x ** 2 + v[...]

            return jax.grad(loss_fn)(jnp.array(4.0)), v

        def scan_case():
            v = nnx.Variable(jnp.array(3.0), hijax=True)

            def body(_, __):
                v[...] = v[...] + 1.0
                return None, None

            jax.lax.scan(body, None, None, length=5)
            return v
    """
    assert_marked(source)
    plain = source.replace(", hijax=True", "")
    plain = plain.replace("v[...] = jax.lax.stop_gradient(x * 3)", "v[...] = jax.lax.stop_gradient(x * 3)  # STG201")
    plain = plain.replace("v[...] = v[...] + 1.0", "v[...] = v[...] + 1.0  # STG102")
    assert_marked(plain)


def test_class_level_declarations_decide_the_kind():
    """`n: int = nnx.data()` makes `self.n = 0` data (flax 0.12.8: 1 trace for 3 calls, n carried
    out; `if m.n > 0` under jit: TracerBoolConversionError); `s: nnx.Static[int]` keeps it static
    (3 traces for 3 calls; `if m.s > 0` works)."""
    assert_marked("""
        import jax
        from flax import nnx

        class A(nnx.Module):
            n: int = nnx.data()
            s: nnx.Static[int]

            def __init__(self):
                self.n = 0
                self.s = 3

        @nnx.jit
        def step(m):
            m.n += 1
            m.s += 1  # STG501

        @jax.jit
        def check(m):
            if m.s > 0:
                return 1
            if m.n > 0:  # STG602
                return 2
            return 0

        a = A()
        step(a)
        check(a)
    """)


def test_submodule_class_in_a_module_renamed_by_its_folder(tmp_path):
    """Two `models.py` in two folders: their names take the folder (`exp1.models`), and so does
    the submodule class an `__init__` builds (`self.block = Block()`)."""
    files = {}
    for exp in ("exp1", "exp2"):
        files[f"{exp}/models.py"] = """
            import jax.numpy as jnp
            from flax import nnx

            class Block(nnx.Module):
                def __init__(self):
                    self.steps = 0
                    self.count = nnx.Variable(jnp.array(0))

            class Model(nnx.Module):
                def __init__(self):
                    self.block = Block()
        """
        files[f"{exp}/train.py"] = """
            import jax.numpy as jnp
            from flax import nnx
            from models import Model

            @nnx.jit
            def step(model, x):
                model.block.steps += 1  # STG501
                model.block.count[...] += 1
                return x

            step(Model(), jnp.ones(2))
        """
    assert_project_marked(tmp_path, files)


def test_control_flow_under_nnx_jit_on_attributes_of_unknown_kind_and_on_state():
    """Under nnx.jit a config object no caller shows (`self.config = config`) stays static; a
    Param's value is traced (TracerBoolConversionError), as is a plain traced argument."""
    assert_marked("""
        import jax.numpy as jnp
        from flax import nnx

        class Model(nnx.Module):
            def __init__(self, config, rngs):
                self.config = config
                self.scale = nnx.Param(jnp.ones(()))

        @nnx.jit
        def step(model, x):
            if model.config.use_bias:
                x = x + 1
            if model.scale.value > 0:  # STG602
                x = x * 2
            if x.sum() > 0:  # STG602
                x = -x
            return x

        def run(config):
            step(Model(config, nnx.Rngs(0)), jnp.ones(2))
    """)


def test_the_editor_splice_keeps_the_module_s_hijax_flag(tmp_path, monkeypatch):
    """The language server re-walks only the edited body (`pipeline.splice`): the module's
    "makes hijax Variables" flag must be the whole file's, or fall back to the whole file."""
    from stagelint.config import Settings
    from stagelint.pipeline import splice
    from stagelint.pipeline.perfile import analyse_bytes

    monkeypatch.chdir(tmp_path)
    helpers = "".join(f"\n\ndef helper{i}(x):\n    y = x + {i}\n    z = y * 2\n    w = z - 1\n    return w * y\n" for i in range(40))
    text = ("import jax\nimport jax.numpy as jnp\nfrom flax import nnx\n\n\n"
            "def make():\n    return nnx.Variable(jnp.array(0), hijax=True)\n" + helpers
            + "\n\n@jax.jit\ndef step(x):\n    return helper3(x)\n")
    settings = Settings()

    def facts(source):
        return analyse_bytes("m.py", source.encode(), settings, frozenset()).facts

    def reduced(part):
        return facts(part)

    for source, hijax in ((text, True), (text.replace("hijax=True", "hijax=False"), False)):
        old = facts(source)
        assert old.nnx_hijax is hijax
        memo = splice.Memo.of(source, old, settings)
        edited = source.replace("    y = x + 3\n", "    y = x + 3\n    print(y)\n")
        done = splice.splice(memo, edited, reduced)
        # exact, or the whole file (a flag made in a kept unit cannot be told from the old facts)
        assert done is None or done.facts.nnx_hijax is facts(edited).nnx_hijax is hijax
        if not hijax:
            assert done is not None  # a module without hijax Variables is still spliced


def test_nnx_s_staging_apis_and_hijax_calls_are_framework_data():
    """The analysis asks `frameworks.NNX_TRANSFORMS` whether a function is reached only through NNX's
    own transformations (their Variable updates carried out, row 41), and `NNX_HIJAX_CALLS` which
    calls may make a hijax Variable; neither spells Flax's package itself."""
    assert {"flax.nnx.jit", "flax.nnx.vmap", "flax.nnx.grad", "flax.nnx.cond", "flax.nnx.scan"} <= NNX_TRANSFORMS
    assert not NNX_TRANSFORMS & {"jax.jit", "jax.vmap", "flax.linen.jit", "equinox.filter_jit", "flax.nnx.split"}
    assert NNX_HIJAX_CALLS == NNX_VAR_DEFAULTS | NNX_VARIABLES
    assert "flax.nnx.var_defaults" in NNX_HIJAX_CALLS and "flax.nnx.Param" in NNX_HIJAX_CALLS
