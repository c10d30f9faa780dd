"""Cross-module call sites of jitted functions (STG203, STG504, STG505)."""

from __future__ import annotations

from rulecases import assert_project_marked


def test_donating_function_defined_in_another_module(tmp_path):
    got = assert_project_marked(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/model.py": """
            import functools
            import jax

            @functools.partial(jax.jit, donate_argnames=("opt_state",))
            def train_step(params, opt_state, batch):
                return params, opt_state

            def _eval(params, batch):
                return params

            evaluate = jax.jit(_eval, donate_argnums=1)
        """,
        "pkg/train.py": """
            from pkg.model import evaluate, train_step
            from pkg import model

            def fit(params, opt_state, batches):
                for batch in batches:
                    params, opt_state = train_step(params, opt_state, batch)
                return params, opt_state

            def broken(params, opt_state, batch):
                new_params, new_state = train_step(params, opt_state, batch)
                print(opt_state)  # STG203
                return new_params, new_state

            def check(params, batch):
                out = evaluate(params, batch)
                return out, batch  # STG203

            def through_module(params, opt_state, batch):
                new = model.train_step(params, opt_state, batch)
                return new, opt_state  # STG203
        """,
    })
    assert all("RuntimeError: Array has been deleted" in f.message for f in got)


def test_static_arguments_of_a_jitted_function_in_another_module(tmp_path):
    got = assert_project_marked(tmp_path, {
        "lib/__init__.py": "",
        "lib/ops.py": """
            import functools
            import jax

            @functools.partial(jax.jit, static_argnames=("shape", "config"))
            def reshape(x, shape, config=None):
                return x.reshape(shape)
        """,
        "lib/use.py": """
            from lib.ops import reshape

            class Config:
                pass

            def run(x, n):
                a = reshape(x, [n, -1])  # STG504
                b = reshape(x, (n, -1))
                c = reshape(x, shape=(2, -1), config=Config())  # STG505
                return a, b, c
        """,
    })
    assert {f.code for f in got} == {"STG504", "STG505"}
