"""Issue 23, the second fresh JAX audit (bench/fresh_repos_jax2.txt, half C's verdicts in
bench/fresh_verdicts_C_before.csv): each false-positive class as the framework fact it follows,
with its positive twin. Behaviour checked with JAX 0.10.2 and optax in this venv
(tests/runtime/test_jax_fresh_facts.py runs the same code)."""

from __future__ import annotations

from rulecases import assert_marked, assert_project_marked, assert_tiers, check_project

from stagelint.config import Settings
from stagelint.engine import check_source
from stagelint.rules.base import example_source


def test_a_bound_update_result_is_an_optax_update_not_a_dict_mutation():
    """mesh-transformer-jax: `updates, new_opt_state = optimizer.update(grads, state, params)` in
    one jitted function made the optimizer a closure variable "mutated in `train`" for another.
    `dict.update`, `list.append` and the other in-place methods return None, so code that binds
    the result calls another object's method (optax's `GradientTransformation.update` returns the
    updates and a new state and changes nothing); a bare `config.update({...})` statement still
    changes the dict the other Function baked in."""
    assert_marked("""
        import jax

        def make(settings):
            optimizer = settings["optimizer"]
            config = {"scale": 1.0}

            @jax.jit
            def init(params):
                return optimizer.init(params)

            @jax.jit
            def train(grads, state, params):
                updates, new_state = optimizer.update(grads, state, params)
                return updates, new_state

            @jax.jit
            def scale(x):
                return x * config["scale"]  # STG301

            for step in range(3):
                scale(1.0)
                config.update({"scale": step})
            return init, train, scale
    """)


def test_a_global_set_and_put_back_in_the_call_is_no_lost_update():
    """dreamerv3: `old = nn.LAYER_CALLBACK; nn.LAYER_CALLBACK = make(...); ...;
    nn.LAYER_CALLBACK = old` in a jitted function. After any call, traced or not, the module
    attribute holds what it held before (JAX 0.10.2: the layers see the new callback while
    tracing; `nn.LAYER_CALLBACK` is the old one after each call), so no later call misses a
    change. Set without putting back, every call would set an equal callback again, so what
    the global holds after the calls differs from eager code only if the callback changed
    between calls: the preview tier (`stores.lost_under_jax_fact`)."""
    assert_tiers("""
        import jax
        import nets as nn

        @jax.jit
        def scoped(x):
            old = nn.LAYER_CALLBACK
            nn.LAYER_CALLBACK = lambda y, name: y
            y = nn.layer(x)
            nn.LAYER_CALLBACK = old
            return y

        @jax.jit
        def leaves_it_set(x):
            old = nn.LAYER_CALLBACK
            nn.LAYER_CALLBACK = lambda y, name: y  # preview STG102
            return nn.layer(x) + len(str(old))
    """)


def test_a_binding_in_one_branch_does_not_reach_a_read_in_the_other():
    """jwave's `simulate_wave_propagation`: `if u0 is None: u0 = pml_u.replace_params(jnp.zeros(shape))
    else: assert u0.dim == len(N)`. The `else` reads the parameter as the caller passed it (here
    never: JAX 0.10.2 runs it under jit), not the array the other branch makes; after the `if`,
    both reach, and `if u0.sum() > 0` on the array made under jit is a tracer
    (TracerBoolConversionError). In a loop, an earlier turn's binding reaches the other branch."""
    assert_marked("""
        import jax
        import jax.numpy as jnp

        def simulate(x, u0=None):
            if u0 is None:
                u0 = jnp.zeros(3)
            else:
                assert u0.dim == 3
            return x + 1

        def simulate2(x, u0=None):
            if u0 is None:
                u0 = jnp.zeros(3)
            if u0.sum() > 0:  # STG602
                return x
            return -x

        def simulate3(x, u0=None):
            for _ in range(2):
                if u0 is None:
                    u0 = jnp.zeros(3)
                else:
                    assert u0.sum() > 0  # STG602
            return x

        @jax.jit
        def run(x):
            return simulate(x) + simulate2(x) + simulate3(x)
    """)


_TRANSFORM = """
    import jax

    def init(fn, dummy_inputs=()):
        fn = jax.named_call(fn)

        def fn(*args, inner=fn):
            return inner(*args)

        fn = jax.jit(fn)  # STG502
        return fn(*dummy_inputs)
"""


def test_a_jitted_def_over_a_parameter_retraces_only_for_the_same_object_passed_again(tmp_path):
    """dreamerv3: `transform.init(fn, ...)` jits a nested def over its parameter `fn`, and its
    two callers pass `self.model.init_train` and `self.model.train`. Each object passed there is
    another program (JAX 0.10.2: two functions, one trace each; the same one twice, two traces of
    one program: tests/runtime/test_function_identity.py), so the second trace repeats the first
    only when the same object is passed again. Different attributes: silence; the same module
    function, read through its dotted project module (`pkg.losses.l2`) twice: reported."""
    different = check_project(tmp_path / "a", {
        "pkg/__init__.py": "",
        "pkg/transform.py": _TRANSFORM.replace("  # STG502", ""),
        "pkg/agent.py": """
            from pkg import transform

            class Agent:
                def __init__(self, model, x):
                    self.model = model
                    self.a = transform.init(self.model.init_train, (x,))
                    self.b = transform.init(self.model.train, (x,))
        """,
    })
    assert not [f for f in different if f.code == "STG502"]
    assert_project_marked(tmp_path / "b", {
        "pkg/__init__.py": "",
        "pkg/losses.py": """
            def l2(x):
                return (x ** 2).sum()
        """,
        "pkg/transform.py": _TRANSFORM,
        "pkg/run.py": """
            import pkg.losses
            from pkg import transform

            def run(x):
                first = transform.init(pkg.losses.l2, (x,))
                second = transform.init(pkg.losses.l2, (x,))
                return first + second
        """,
    })


def test_the_same_attribute_passed_twice_to_a_jitted_def_over_a_parameter_is_a_preview_guess():
    """`init(self.model.train)` twice: an attribute read again is most likely the same function
    (nothing in between sets it), so the trace most likely repeats: the preview tier; a lambda
    per call is a new program each time: silent in both tiers."""
    source = example_source("""
        import jax

        def init(fn, x):
            def wrapper(v):
                return fn(v)
            return jax.jit(wrapper)(x)

        class Agent:
            def __init__(self, model, x):
                self.model = model
                self.a = init(self.model.train, x)
                self.b = init(self.model.train, x)
                self.c = init(lambda v: v, x)
                self.d = init(lambda v: v, x)
    """)
    assert not [f for f in check_source(source) if f.code == "STG502"]
    (finding,) = [f for f in check_source(source, settings=Settings(preview=True)) if f.code == "STG502"]
    assert finding.line == 6
    assert any("`self.model.train`" in note.message and "most likely" in note.message for note in finding.because)


def test_a_closure_rebound_in_the_other_branch_of_an_if_is_not_stale():
    """alpa's benchmark (fifth audit, half O): the jitted step reads `model`, bound after the def
    in each branch of `if args.parallel_method == "jit": ... else: ...`; the branch that wraps and
    calls the jitted function binds `model` before the wrap, and the other branch's binding never
    runs in the same call, so every trace sees the value the calls use. The twin: the same if/else
    inside a loop takes one branch, then the other, so a later iteration calls the Function the
    earlier one traced after the other branch rebound `model`."""
    assert_marked("""
        import jax

        def run_benchmark(args, make_model, batches):
            def step(params, batch):
                return model.apply(params, batch)

            if args.method == "jit":
                model, params = make_model()
                infer = jax.jit(step)
            else:
                model, params = make_model()
                infer = args.parallelize(step)
            return [infer(params, b) for b in batches]

        def run_many(make_model, batches):
            model, params = make_model()

            @jax.jit
            def step(params, batch):
                return model.apply(params, batch)  # STG301

            for b in batches:
                if b.small:
                    out = step(params, b)
                else:
                    model, params = make_model()
            return out
    """)


def test_a_function_made_afresh_in_each_iteration_after_the_binding_reads_that_iterations_value():
    """synjax's test (fifth audit, half O): `for algorithm in [...]: f = jax.jit(lambda x:
    x.sample(key, algorithm=algorithm))` makes a new lambda in each iteration, after binding
    `algorithm`; jit keys its traces on the function object, so each new one traces anew
    (frameworks.JAX_TRACE_CACHE) with that iteration's value. The twin: one jitted function made
    before the loop and called in it keeps the first iteration's value. (A new jit per iteration
    does trace once per iteration, but each `algorithm` is another program, which one jitted
    function taking it as a static argument would trace too: STG502's preview tier,
    tests/rules/test_jax_ninth_audit.py.)"""
    assert_tiers("""
        import jax

        def sample_all(key, dists):
            out = []
            for algorithm in ["wilson", "colbourn"]:
                f = jax.jit(lambda x: x.sample(key, algorithm=algorithm))  # preview STG502
                out += [f(d) for d in dists]
            return out

        def sample_stale(key, dists):
            algorithm = "wilson"

            @jax.jit
            def f(x):
                return x.sample(key, algorithm=algorithm)  # STG301

            out = []
            for algorithm in ["wilson", "colbourn"]:
                out += [f(d) for d in dists]
            return out
    """)


def test_a_flax_module_methods_argument_is_what_its_caller_passes_for_shapes_too():
    """The fourth audit's K2 fact (half K, fix from): Flax traces nothing itself, so a module
    method's argument is whatever its Python caller passes (`Head()(x, self.keep)`: an int
    field, a Python int under `jax.jit(model.apply)`: tests/runtime/test_jax_fresh_facts.py), a
    tracer only where a jitted `apply` passes an array. A length computed from it is a guess,
    the preview tier, for STG604 as for STG602. The twin: a jitted function's own argument."""
    assert_tiers("""
        import flax.linen as nn
        import jax
        import jax.numpy as jnp

        class Head(nn.Module):
            @nn.compact
            def __call__(self, x, keep):
                idx = jnp.arange(keep)  # preview STG604
                return nn.Dense(4)(x[idx])

        class Model(nn.Module):
            keep: int = 3

            @nn.compact
            def __call__(self, x):
                return Head()(x, self.keep)

        def train(x):
            model = Model()
            variables = model.init(jax.random.key(0), x)
            return jax.jit(model.apply)(variables, x)

        @jax.jit
        def crop(x, keep):
            return x[jnp.arange(keep)]  # STG604
    """)
