"""The nineteenth JAX audit's BS classes as facts, each with its positive test and its negative
twin (issue 23). Behaviour checked with JAX 0.10.2 and equinox 0.13.8 in
tests/runtime/test_jax_equinox_module_call.py."""

from __future__ import annotations

from rulecases import assert_project_marked, assert_tiers, findings


TRAINER = """
    import logging

    import equinox as eqx
    import jax
    import jax.numpy as jnp

    logger = logging.getLogger(__name__)


    class TaskTrainer(eqx.Module):
        chkpt_dir: str = "."

        @jax.named_scope("fbx.TaskTrainer")
        def __call__(self, model, n_batches):
            for batch in range(n_batches):
                model, loss = self._train_step(model, jnp.ones(3))
                if jnp.isnan(loss):
                    logger.warning("nan loss")
                print(loss.item())
                self._save_checkpoint(batch)
            return model

        def _save_checkpoint(self, batch):
            with open(self.chkpt_dir + "/last_batch.txt", "w") as f:
                f.write(str(batch))

        @eqx.filter_jit
        def _train_step(self, model, x):
            print("compiling")  # STG101
            return model, jnp.sum(x)
"""


def test_an_equinox_trainer_module_called_from_a_plain_loop_runs_eagerly(tmp_path):
    """BS1 / BS-P1, feedbax's `TaskTrainer`: Equinox wraps no method of a Module in a transformation
    (nor does `@jax.named_scope`), and every call of a `TaskTrainer` the project shows is made in
    code nothing traces (`trainer = TaskTrainer(); trainer(model, 10)`): its `__call__` and what it
    calls run as Python on every call, in both tiers. Its `@eqx.filter_jit` method is traced all the
    same (the print there is kept)."""
    files = {
        "pkg/__init__.py": "",
        "pkg/train.py": TRAINER,
        "pkg/contexts.py": """
            from pkg.train import TaskTrainer

            def train(model):
                trainer = TaskTrainer()
                return trainer(model, 10)
        """,
    }
    assert_project_marked(tmp_path / "a", files)
    assert_project_marked(tmp_path / "b", files, preview=True)


def test_an_equinox_module_called_in_jitted_code_is_traced(tmp_path):
    """The negative twin: the same trainer object called inside a jitted function is traced by that
    call; the proof names the call."""
    files = {
        "pkg/__init__.py": "",
        "pkg/train.py": TRAINER.replace('logger.warning("nan loss")', 'logger.warning("nan loss")  # STG101')
                               .replace("print(loss.item())", "print(loss.item())  # STG101")
                               .replace('with open(self.chkpt_dir + "/last_batch.txt", "w") as f:',
                                        'with open(self.chkpt_dir + "/last_batch.txt", "w") as f:  # STG101')
                               .replace("if jnp.isnan(loss):", "if jnp.isnan(loss):  # STG602"),
        "pkg/contexts.py": """
            import jax
            from pkg.train import TaskTrainer

            @jax.jit
            def train(model):
                trainer = TaskTrainer()
                return trainer(model, 10)
        """,
    }
    got = assert_project_marked(tmp_path, files)
    because = [n.message for f in got if f.code == "STG101" and "logger" in f.message for n in f.because]
    assert any("calls an object of it" in m and "`train`" in m for m in because), because


def test_an_equinox_layer_called_through_a_jitted_step_s_parameter_is_still_staged():
    """The negative twin: a layer whose module jits the step that calls `model(x)` (no call of an
    object of it shown eagerly) stays staged, and so does one whose object is also handed to a
    project function (`fit(model, x)`, which may call it traced), even if a sanity call is eager."""
    assert_tiers("""
        import equinox as eqx
        import jax
        import jax.numpy as jnp

        class MLP(eqx.Module):
            w: jax.Array

            def __call__(self, x):
                print("tracing")  # STG101
                return x @ self.w

        class Head(eqx.Module):
            w: jax.Array

            def __call__(self, x):
                if x.sum() > 0:  # preview STG602
                    x = -x
                return x * self.w

        @eqx.filter_jit
        def step(model, x):
            return model(x)

        def fit(model, x):
            return step(model, x)

        def main():
            head = Head(jnp.ones(2))
            head(jnp.ones(2))
            return fit(head, jnp.ones(2))
    """)


def test_an_equinox_module_called_under_an_eager_vmap_is_traced_on_every_call():
    """A call of a module object made only under an eager `jax.vmap` (no jit in the file) traces
    `__call__` on every call: a print there runs each time (silent), while a tracer's truth value
    still raises (a tracer there only if the caller passes one: preview, as for any module method)."""
    assert_tiers("""
        import equinox as eqx
        import jax
        import jax.numpy as jnp

        class Layer(eqx.Module):
            w: jax.Array

            def __call__(self, x):
                print("runs")
                if x.sum() > 0:  # preview STG602
                    x = -x
                return x * self.w

        def apply(x):
            layer = Layer(jnp.ones(2))
            return layer(x)

        ys = jax.vmap(apply)(jnp.ones((3, 2)))
    """)


def test_a_jitted_def_made_and_only_called_in_each_run_of_its_enclosing_function_is_never_stale():
    """BS-P4, ml4dynamics' `RD_adi` (`@jax.jit def update` reading globals another function sets)
    and `run_simulation` (`@jax.jit def iter` reading `main`'s `train_state`, which `main` rebinds
    between runs): the Function is made anew on every run of its enclosing function and only
    called there, so every call reusing a trace falls within one run, where neither the writer
    nor `main`'s rebinding runs (tests/runtime/test_jax_nineteenth_audit_bs_facts.py). Silent in
    both tiers (the rebuild per run stays STG502's)."""
    assert_tiers("""
        import jax
        import jax.numpy as jnp

        L = jnp.eye(2)


        def assemble(n):
            global L
            L = jnp.eye(n) * 2


        def solve(u, steps):
            @jax.jit
            def update(u):
                return L @ u

            for _ in range(steps):
                u = update(u)
            return u


        def main(cfg, data):
            state = cfg.init()

            def run(u):
                @jax.jit  # preview STG502
                def step(u):
                    return state.apply(u)

                for _ in range(3):
                    u = step(u)
                return u

            for batch in data:
                run(batch)
                state = state.update(batch)
            assemble(3)
            return solve(data, 3)
    """)


def test_a_jitted_def_whose_run_calls_the_writer_or_that_escapes_the_run_may_be_stale():
    """The negative twins: the enclosing run itself calls the writer between two calls of the
    Function (`assemble(2)` in the loop), or the Function escapes its run (returned, called after
    the rebinding): a trace may be reused stale, as before."""
    assert_tiers("""
        import jax
        import jax.numpy as jnp

        L = jnp.eye(2)


        def assemble(n):
            global L
            L = jnp.eye(n) * 2


        def solve_reassembling(u, steps):
            @jax.jit
            def update(u):
                return L @ u  # preview STG301

            for i in range(steps):
                u = update(u)
                assemble(2)
            return u


        def main(cfg, data):
            state = cfg.init()

            def run(u):
                @jax.jit  # preview STG502
                def step(u):
                    return state.apply(u)  # STG301

                u = step(u)
                return step

            for batch in data:
                again = run(batch)
                state = state.update(batch)
                again(batch)
            return solve_reassembling(data, 3)
    """)


def test_enumerate_s_index_and_min_of_python_ints_bound_a_static_slice():
    """BS-P2, emidm's `expand_R_intervals` (traced by the jitted `log_likelihood`, given
    module-level ints): `i` from `enumerate` is a Python int whatever it iterates, `start = i *
    days` comes from `days` alone, and `min(a, b)` is one of its operands (`analysis.tracers`):
    Python ints bound the slice, silent in both tiers
    (tests/runtime/test_jax_nineteenth_audit_bs_facts.py)."""
    assert_tiers("""
        import jax
        import jax.numpy as jnp

        T = 150
        DAYS = 14


        def expand(rs, t, days=14):
            out = jnp.zeros(t + 1)
            for i, r in enumerate(rs):
                start = i * days
                end = min((i + 1) * days, t + 1)
                out = out.at[start:end].set(r)
            return out


        @jax.jit
        def loglik(log_rs):
            return expand(jnp.exp(log_rs), T, DAYS).sum()
    """)


def test_min_with_a_traced_operand_bounds_a_traced_slice():
    """The negative twin: `min((i + 1) * 14, n)` with `n` a traced argument is a tracer's
    comparison (TracerBoolConversionError in `min`): the slice is still reported."""
    assert_tiers("""
        import jax
        import jax.numpy as jnp


        @jax.jit
        def traced_end(rs, n):
            out = jnp.zeros(100)
            for i, r in enumerate(rs):
                end = min((i + 1) * 14, n)
                out = out.at[i:end].set(r)  # STG604
            return out
    """)


def test_a_str_test_on_a_mapping_s_key_is_a_python_bool():
    """BS-P3, feedbax's `_apply_intervenors`: `for (label, intervenor), k in
    zip(stage_intervenors.items(), keys)`: `label` is a mapping's key, never a tracer (a tracer is
    unhashable), and `label.startswith("FIXED")` is a Python bool (a JAX array has no such
    method): silent in both tiers. The negative twins: what `zip` takes from a traced array
    (`k > 0`) and a str test on a value not known to be a key (a parameter iterated directly: an
    array's rows as well as a dict's keys) stay guesses (the preview tier, as before)."""
    assert_tiers("""
        import jax
        import jax.numpy as jnp


        @jax.jit
        def apply(stage, xs, state):
            for (label, fn), k in zip(stage.items(), jnp.arange(3)):
                if label.startswith("FIXED") or label not in ("a", "b"):
                    state = state + fn
                if k > 0:  # preview STG602
                    state = state * 2
            for i, (name, v) in enumerate(stage.items()):
                if name.endswith("_bias"):
                    state = state - v
            for label, v in zip(stage, xs):
                if label.startswith("F"):  # preview STG602
                    state = state - v
            return state
    """)
