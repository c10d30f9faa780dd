"""The false classes of the sixteenth fresh JAX audit's fix-from half BG (bench/fresh_audit_notes.md,
"Sixteenth JAX audit"), each a fact checked with JAX 0.10.2 or Python's own semantics
(tests/runtime/test_jax_sixteenth_audit_bg_facts.py), with its negative twins."""

from __future__ import annotations

from rulecases import assert_project_marked, assert_tiers

STEP = """
    import jax

    DEBUG = False


    @jax.jit
    def step(x):
        if DEBUG:
            print("x", x)
        else:
            print("shape", x.shape)  # STG101
        return x + 1
    """


def test_a_branch_on_a_module_constant_false_never_rebound_never_runs():
    """script-doctor's env.py (BG1): prints under `if DEBUG:` with the module-level `DEBUG = False`
    that nothing rebinds. Python never runs that body, eagerly or traced: no trace-time print to
    report. Its `else` runs, and its print is reported."""
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
                print("quiet", x)
            return x + 1
        """)


def test_a_module_constant_another_module_writes_is_kept(tmp_path):
    """The twin across files: `env.DEBUG = True` in another module of the project before the
    first trace makes the branch run (the runtime twin); the finding stands. Without that write
    (a module that only reads it) the branch stays dead."""
    assert_project_marked(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/env.py": STEP.replace('print("x", x)', 'print("x", x)  # STG101'),
        "pkg/main.py": """
            from pkg import env

            env.DEBUG = True
            env.step(1.0)
            """,
    })
    # a file that only writes it (deferred by the screen: nothing in it stages) is analysed for it
    assert_project_marked(tmp_path / "cli", {
        "pkg/__init__.py": "",
        "pkg/env.py": STEP.replace('print("x", x)', 'print("x", x)  # STG101'),
        "pkg/cli.py": """
            from pkg import env

            env.DEBUG = True
            """,
    })
    assert_project_marked(tmp_path / "read", {
        "pkg/__init__.py": "",
        "pkg/env.py": STEP,
        "pkg/main.py": """
            from pkg import env

            print(env.DEBUG)
            env.step(1.0)
            """,
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
