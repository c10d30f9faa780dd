"""The false classes of the seventh fresh JAX audit's read halves (W, X: bench/fresh_audit_notes.md),
each a fact checked with JAX 0.10.2 (tests/runtime/test_jax_fresh_facts.py), with its negative twin."""

from __future__ import annotations

from rulecases import assert_tiers


def test_a_name_bound_to_wrappers_of_two_functions_is_not_resolved_to_the_last():
    """self-organising-systems' `data_creator = vmap(create_reg_data, ...)` rebound four times in
    one module: each call runs the binding above it, and the model, one binding per name, gave
    every call to the last function (STG501 on ten calls of the others)."""
    assert_tiers("""
        import functools
        import jax
        import jax.numpy as jnp

        @functools.partial(jax.jit, static_argnums=1)
        def scale(x, n):
            return x * n

        @functools.partial(jax.jit, static_argnums=1)
        def shift(x, n):
            return x + n

        run = jax.vmap(scale, in_axes=(0, None))
        for n in range(100):
            run(jnp.ones((2, 2)), n)
        run = jax.vmap(shift, in_axes=(0, None))
        run(jnp.ones((2, 2)), 3)
    """)


def test_a_name_bound_once_to_a_wrapper_is_resolved():
    """The negative twin: bound once, every call runs `scale`, a new static value per step."""
    assert_tiers("""
        import functools
        import jax
        import jax.numpy as jnp

        @functools.partial(jax.jit, static_argnums=1)
        def scale(x, n):
            return x * n

        run = jax.vmap(scale, in_axes=(0, None))
        for n in range(100):
            run(jnp.ones((2, 2)), n)  # STG501
    """)



def test_a_loop_that_only_wraps_a_module_class_in_a_transform_unrolls_nothing():
    """nerfies' `vmap_module`, run while a Linen module's `setup` is traced: `module = nn.vmap(module,
    ...)` once per batch dimension builds a class and emits no operation
    (`frameworks.JAX_FUNCTION_BUILDERS`), so nothing grows with the loop."""
    assert_tiers("""
        import flax.linen as nn
        import jax

        def vmap_module(module, num_batch_dims=1):
            for _ in range(num_batch_dims):
                module = nn.vmap(module, variable_axes={"params": None}, split_rngs={"params": False})
            return module

        class Model(nn.Module):
            def setup(self):
                self.a = vmap_module(nn.Dense, num_batch_dims=2)(4)
                self.b = vmap_module(nn.Dense, num_batch_dims=1)(4)

            def __call__(self, x):
                return self.a(x) + self.b(x)

        @jax.jit
        def forward(params, x):
            return Model().apply(params, x)
    """)


def test_a_loop_that_calls_what_a_transform_built_is_reported():
    """The negative twin: calling what the transform built, in the loop, adds its operations on
    every iteration."""
    assert_tiers("""
        import flax.linen as nn
        import jax
        import jax.numpy as jnp

        def apply_n(x, num_batch_dims=1):
            for _ in range(num_batch_dims):  # STG503
                x = jax.vmap(jnp.tanh)(x)
            return x

        class Model(nn.Module):
            def setup(self):
                self.a = apply_n(jnp.ones(3), num_batch_dims=2)
                self.b = apply_n(jnp.ones(3), num_batch_dims=1)

            def __call__(self, x):
                return self.a + self.b + x

        @jax.jit
        def forward(params, x):
            return Model().apply(params, x)
    """)


def test_a_loop_over_a_jitted_parameter_nothing_shows_is_an_array_is_a_preview_guess():
    """self-organising-systems' `gradient_manipulation(gradients, ndim)`: `for param in gradients`
    over a dict of Haiku layers runs once per key (JAX 0.10.2: a jitted dict parameter is iterated
    over its keys), and nothing in the body shows `gradients` is an array: only the loop variable
    used as a value pointed at rows. A guess: the preview tier."""
    assert_tiers("""
        import jax
        import jax.numpy as jnp

        @jax.jit
        def manipulate(gradients):
            out = []
            for param in gradients:  # preview STG503
                out.append(jnp.zeros_like(gradients[param]["w"]))
            return out
    """)


def test_a_loop_over_a_jitted_parameter_shown_to_be_an_array_is_reported():
    """The negative twins: `xs.shape` is an array's attribute (a dict, list or tuple has none:
    `frameworks.JAX_ARRAY_ONLY_ATTRIBUTES`), and a row given to a JAX operation (`jnp.maximum(best,
    y)`: a dict's string key raises TypeError there) is an array: the loop runs once per row."""
    assert_tiers("""
        import jax
        import jax.numpy as jnp

        @jax.jit
        def normalise(xs):
            n = xs.shape[0]
            total = 0.0
            for row in xs:  # STG503
                total = total + row / n
            return total

        @jax.jit
        def running_max(ys):
            best = -jnp.inf
            for y in ys:  # STG503
                best = jnp.maximum(best, y)
            return best
    """)


def test_a_length_from_a_method_returning_len_is_a_python_int():
    """jaxsim's `jnp.arange(model.number_of_links())`: `JaxSimModel.number_of_links` returns
    `self.kin_dyn_parameters.number_of_links()`, which returns `len(self.link_names)`: a Python int
    whatever the object holds (`len` of a tracer too), so the shape is static (23 STG604 in the
    preview tier of the seventh audit's half W)."""
    assert_tiers("""
        import jax
        import jax.numpy as jnp

        class KinDynParameters:
            link_names: tuple

            def number_of_links(self):
                return len(self.link_names)

            def number_of_joints(self):
                return len(self.link_names) - 1

        class Model:
            kin_dyn_parameters: KinDynParameters | None = None

            def number_of_links(self):
                return self.kin_dyn_parameters.number_of_links()

        @jax.jit
        def com_position(model: Model, x):
            return jnp.arange(model.number_of_links()) + x

        @jax.jit
        def joints(params: KinDynParameters, x):
            return jnp.arange(1, params.number_of_joints()) + x
    """)


def test_a_length_from_a_method_returning_a_field_stays_a_guess():
    """The negative twin: a method returning a field (`self.count`, maybe a traced child) or a JAX
    operation's result is not known to be a Python int: the preview tier, as before."""
    assert_tiers("""
        import jax
        import jax.numpy as jnp

        class Model:
            count: int

            def number_of_links(self):
                return self.count

            def active(self):
                return jnp.sum(self.mask)

        @jax.jit
        def com_position(model: Model, x):
            return jnp.arange(model.number_of_links()) + jnp.arange(model.active()).sum() + x  # preview STG604
    """)


def test_a_print_in_a_helper_also_called_where_nothing_traces_is_a_preview_guess():
    """aqt's `get_datasets`, called by the jitted `serve` and by the eager `train_and_evaluate`:
    its print runs on every eager call, and under `serve` at trace time with the rest of the
    helper's Python loading; whether that misleads is a guess (W's two STG101 false)."""
    assert_tiers("""
        import jax
        import jax.numpy as jnp

        def get_datasets():
            print("get_datasets started")  # preview STG101
            return jnp.ones((4, 2))

        @jax.jit
        def serve(state):
            return jnp.sum(get_datasets()) * state

        def train_and_evaluate(state):
            return state + jnp.sum(get_datasets())
    """)


def test_a_print_in_a_helper_only_traced_calls_reach_is_reported():
    """The negative twin: called only by the jitted function (and a test), the print runs only
    while tracing."""
    assert_tiers("""
        import jax
        import jax.numpy as jnp

        def get_datasets():
            print("get_datasets started")  # STG101
            return jnp.ones((4, 2))

        @jax.jit
        def serve(state):
            return jnp.sum(get_datasets()) * state
    """)


_CONTRASTIVE = """
    import functools
    import jax
    import jax.numpy as jnp
    from absl import logging

    def contrastive_loss(q, k):
        if q.shape[-1] != k.shape[-1]:
            raise ValueError("sizes differ")
        keys = jnp.concatenate(jax.lax.all_gather(k, 'batch'), 0)
        logging.info(jax.lax.axis_index(axis_name='batch'))  # STG101
        return jnp.sum(q @ keys.T)

    def eval_step(q, k):
        return contrastive_loss(q, k)

    step = jax.pmap(eval_step, axis_name='batch')

    class Model:
        def loss_function_dict(self, out):
            return contrastive_loss(out["q"], out["k"])
"""


def test_a_log_in_a_helper_that_always_calls_a_named_axis_collective_is_reported_though_called_elsewhere():
    """scenic's `contrastive_loss` (`jax.lax.all_gather(key_emb, 'batch')`, then
    `logging.info(jax.lax.axis_index(axis_name='batch'))`), called by a pmapped step and by a
    model method no entry point is seen to reach: a collective over a literal axis name raises
    NameError where nothing binds the axis (`frameworks.JAX_NAMED_AXIS_COLLECTIVES`), so that other
    call runs under a transformation too, never as plain Python: the preview guess does not apply,
    and the proof says why."""
    from rulecases import findings

    source = _CONTRASTIVE
    assert_tiers(source)
    (finding,) = findings(source, "STG101")
    assert any("raises NameError where no transformation binds the axis `batch`" in n.message
               for n in finding.because), [n.message for n in finding.because]


def test_a_def_before_the_collective_does_not_make_it_conditional():
    """A nested def's `return` leaves the def's calls, not the helper: the collective after it
    still runs on every run of the helper (`jaxstaging.bound_axis_call`), which never runs as
    plain Python, so its log is reported in the default tier as above."""
    nested = "    def normed(v):\n            return v / jnp.linalg.norm(v)\n        keys = "
    assert_tiers(_CONTRASTIVE.replace("    keys = ", nested).replace("all_gather(k,", "all_gather(normed(k),"))


def test_a_log_in_a_helper_whose_collective_is_conditional_or_over_a_passed_axis_stays_a_preview_guess():
    """The negative twin: the collective runs only under a condition (`if axis_name:`), after an
    early `return`, or over an axis name the caller passes (None works eagerly for some helpers):
    the helper may run as plain Python at the call no entry point reaches, so the guess stands."""
    assert_tiers("""
        import jax
        import jax.numpy as jnp
        from absl import logging

        def gathered(k, gather):
            if gather:
                k = jax.lax.all_gather(k, 'batch')
            logging.info(k)  # preview STG101
            return k

        def early(k, single):
            if single:
                return k
            logging.info(k)  # preview STG101
            return jax.lax.psum(k, 'batch')

        def passed(k, axis):
            logging.info(k)  # preview STG101
            return jax.lax.psum(k, axis)

        def eval_step(k):
            return gathered(k, True) + early(k, False) + passed(k, 'batch')

        step = jax.pmap(eval_step, axis_name='batch')

        class Model:
            def loss(self, k):
                return gathered(k, False) + early(k, True) + passed(k, None)
    """)
