"""The false classes of the sixteenth fresh JAX audit's fix-from half BG (bench/fresh_audit_notes.md,
"Sixteenth JAX audit"), each a fact checked with JAX 0.10.2 or Python's own semantics
(tests/runtime/test_jax_sixteenth_audit_bg_facts.py), with its negative twins."""

from __future__ import annotations

import re

from rulecases import assert_project_marked, assert_tiers

STEP = """
    import jax

    DEBUG = False


    @jax.jit
    def step(x):
        if DEBUG:
            print("x", x)  # preview STG101
        else:
            print("shape", x.shape)  # STG101
        return x + 1
    """


def _project_tiers(tmp_path, files):
    """A project's default findings are its `# STGnnn` markers, and with `--preview` those plus
    the lines marked `# preview STGnnn`."""
    assert_project_marked(tmp_path / "default", files)
    assert_project_marked(tmp_path / "preview", {rel: re.sub(r"# preview (STG\d{3})", r"# \1", text)
                                                 for rel, text in files.items()}, preview=True)


def test_a_branch_on_a_module_constant_false_never_rebound_never_runs():
    """BG1's fact: prints under `if DEBUG:` with the module-level `DEBUG = False` that nothing in
    its module rebinds. Python never runs that body, eagerly or traced, unless another module
    sets `DEBUG` on this one, which no file shows: the finding is a guess (preview). Its `else`
    runs, and its print is reported. (script-doctor's own `DEBUG` is rebound by `global DEBUG`
    in `PuzzleJaxEnv.__init__`: the next test's twin.)"""
    assert_tiers(STEP)


def test_a_module_constant_rebound_by_a_global_statement_is_no_constant():
    """The twin: a function of the module declares `global DEBUG` and sets it True."""
    assert_tiers("""
        import jax

        DEBUG = False


        def debug_on():
            global DEBUG
            DEBUG = True


        @jax.jit
        def step(x):
            if DEBUG:  # preview STG301
                print("x", x)  # STG101
            return x + 1
        """)


def test_a_module_constant_from_the_environment_is_no_constant():
    """The twin: `DEBUG = os.environ.get(...) == "1"` is known only when the program runs."""
    assert_tiers("""
        import os

        import jax

        DEBUG = os.environ.get("DEBUG") == "1"


        @jax.jit
        def step(x):
            if DEBUG:
                print("x", x)  # STG101
            return x + 1
        """)


def test_a_module_constant_true_never_runs_its_else():
    """`DEBUG = True` never rebound: the `else` never runs, the body does."""
    assert_tiers("""
        import jax

        VERBOSE = True


        @jax.jit
        def step(x):
            if VERBOSE:
                print("x", x)  # STG101
            else:
                print("quiet", x)  # preview STG101
            return x + 1
        """)


def test_a_module_constant_rebound_below_the_read_is_no_constant():
    """The twin in the other order: the function declaring `global DEBUG` comes after the jitted
    one (script-doctor's `PuzzleJaxEnv.__init__` sets it from its `debug` argument, unpacked)."""
    assert_tiers("""
        import jax

        DEBUG, PRINT_SCORE = False, False


        @jax.jit
        def step(x):
            if DEBUG:  # preview STG301
                print("x", x)  # STG101
            return x + 1


        class Env:
            def __init__(self, debug=False, print_score=False):
                global DEBUG, PRINT_SCORE
                DEBUG, PRINT_SCORE = debug, print_score
        """)


def test_a_module_constant_the_module_rebinds_through_its_namespace_is_no_constant():
    """The twins: `globals()["DEBUG"] = True`, `setattr(sys.modules[__name__], "DEBUG", True)`
    and `sys.modules[__name__].DEBUG = True` rebind the module's global without a binding the
    scope analysis sees: the module spells the name otherwise (`literals.spelled_otherwise`)."""
    for rebinding in ('globals()["DEBUG"] = True', 'setattr(sys.modules[__name__], "DEBUG", True)',
                      "sys.modules[__name__].DEBUG = True"):
        assert_tiers("""
            import sys

            import jax

            DEBUG = False


            def debug_on():
                REBIND


            @jax.jit
            def step(x):
                if DEBUG:
                    print("x", x)  # STG101
                return x + 1
            """.replace("REBIND", rebinding))


def test_a_module_constant_another_module_writes_is_kept(tmp_path):
    """The twin across files: `env.DEBUG = True` in another module of the project before the
    first trace makes the branch run (the runtime twin); the finding stands in the default tier.
    A file that only writes it (deferred by the screen: nothing in it stages) is analysed for it
    (`pipeline.demand`)."""
    _project_tiers(tmp_path / "main", {
        "pkg/__init__.py": "",
        "pkg/env.py": STEP.replace('print("x", x)  # preview STG101', 'print("x", x)  # STG101'),
        "pkg/main.py": """
            from pkg import env

            env.DEBUG = True
            env.step(1.0)
            """,
    })
    _project_tiers(tmp_path / "cli", {
        "pkg/__init__.py": "",
        "pkg/env.py": STEP.replace('print("x", x)  # preview STG101', 'print("x", x)  # STG101'),
        "pkg/cli.py": """
            from pkg import env

            env.DEBUG = True
            """,
    })


def test_a_module_constant_no_file_writes_as_an_attribute_is_a_guess(tmp_path):
    """The twins where no file assigns `env.DEBUG` on a name: a module that only reads it (the
    branch stays dead: a guess, preview); `setattr(env, "DEBUG", True)`, `pkg.env.DEBUG = True`
    (both rebind it: the runtime twin's write) and `from pkg.env import DEBUG` then `DEBUG = True`
    (rebinds only the importer's own name). The project phase does not tell these apart (it sees
    attribute writes on a name): each keeps its finding in the preview tier, none loses it."""
    for other in ("""
            from pkg import env

            print(env.DEBUG)
            env.step(1.0)
            """, """
            from pkg import env

            setattr(env, "DEBUG", True)
            env.step(1.0)
            """, """
            import pkg.env

            pkg.env.DEBUG = True
            pkg.env.step(1.0)
            """, """
            from pkg.env import DEBUG, step

            DEBUG = True
            step(1.0)
            """):
        _project_tiers(tmp_path / str(abs(hash(other))), {
            "pkg/__init__.py": "",
            "pkg/env.py": STEP,
            "pkg/main.py": other,
        })


def test_names_unpacked_from_a_zip_are_tuples_not_iterators():
    """script-doctor's `gen_rule_fn` (BG2): `dets, projs = zip(*kernel_fns)` unpacks the zip into
    tuples (each element a zip yields is one); a `for` over a tuple in a jitted closure visits
    every element on every trace. The twin: the zip itself kept and advanced by `next` in the
    jitted function (a Python iterator: one element per trace)."""
    assert_tiers("""
        import jax

        def make(kernel_fns, xs):
            dets, projs = zip(*kernel_fns)
            pairs = zip(dets, projs)

            @jax.jit
            def detect(lvl):
                outs = []
                for det in dets:
                    outs.append(det(lvl))
                first = next(pairs)  # STG103
                return outs, first

            return detect
        """)


def test_the_aux_of_value_and_grad_is_the_container_the_function_returns():
    """boingkiri/diffusion's `update` (BG3): `(_, loss_dict), grad = jax.value_and_grad(loss_fn,
    has_aux=True)(...)` with `loss_fn` returning `loss, loss_dict` (a dict): `for loss_key in
    loss_dict` iterates the dict's keys as Python, not an array's rows (`frameworks.JAX_AUX_PATH`).
    The twins reported: a `for` over an array in the aux dict, over the gradient of an array
    without `has_aux`, and over the aux reached through a name the code does not unpack at once
    (a known limit: `out` is unpacked a line later)."""
    assert_tiers("""
        import jax
        import jax.numpy as jnp


        def loss_fn(w, y):
            loss = jnp.mean((w * y) ** 2)
            loss_dict = {}
            loss_dict["total_loss"] = loss
            loss_dict["pred"] = w * y
            return loss, loss_dict


        @jax.jit
        def update(w, y):
            (_, loss_dict), grad = jax.value_and_grad(loss_fn, has_aux=True)(w, y)
            for loss_key in loss_dict:
                loss_dict[loss_key] = jax.lax.pmean(loss_dict[loss_key], axis_name="i")
            grads, aux = jax.grad(loss_fn, has_aux=True)(w, y)
            for key in aux:
                grad = grad + aux[key].sum()
            return grad, loss_dict


        @jax.jit
        def rows(w, y):
            (_, aux), grad = jax.value_and_grad(loss_fn, has_aux=True)(w, y)
            total = 0.0
            for row in aux["pred"]:  # STG503
                total = total + jnp.sum(row)
            return grad, total


        @jax.jit
        def no_aux(w, y):
            value, grad = jax.value_and_grad(lambda w: jnp.sum(w * y))(w)
            total = 0.0
            for row in grad:  # STG503
                total = total + jnp.sum(row)
            return value, total


        @jax.jit
        def later(w, y):
            out = jax.value_and_grad(loss_fn, has_aux=True)(w, y)
            (v, aux), grad = out
            for k in aux:  # STG503
                v = v + aux[k].sum()
            return v
        """)


def test_an_aux_flag_not_spelled_true_leaves_the_aux_unknown():
    """The twin: `has_aux=aux_on` (a variable) does not say the function returns a pair, so the
    part unpacked stays what the call is (reported as before)."""
    assert_tiers("""
        import jax
        import jax.numpy as jnp


        def loss_fn(w):
            return jnp.sum(w ** 2), {"total_loss": w}


        def make(aux_on):
            @jax.jit
            def update(w):
                (_, loss_dict), grad = jax.value_and_grad(loss_fn, has_aux=aux_on)(w)
                for loss_key in loss_dict:  # STG503
                    grad = grad + loss_dict[loss_key]
                return grad
            return update
        """)
