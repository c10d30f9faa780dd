"""The fourteenth JAX audit's held-back half (AZ), class AZ1: prints in a NumPy set-up helper
reached through `jax.pmap` (cchu92/jax_wrap_adjoint_homo's `utils_OPT.inti_guess`, bench/fresh_audit_notes.md).

A folder without `__init__.py` is a namespace package (PEP 420): from the checked folder,
`import helper.utils_OPT` imports helper/utils_OPT.py, whose own module name is `utils_OPT`. The
call edge through it was followed already; its call site was not recorded (the folder's name was
not a top-level name of the check), so what the project knows from call sites (a call made where
nothing traces, what each call passes) missed it."""

from __future__ import annotations

from rulecases import assert_tiers, check_project


HELPER = """
    import numpy as np


    def inti_guess(nx, v, type=None):
        print("initial guess")
        return np.ones((nx, nx)) * v
"""

PMAPPED = """
    import jax
    import numpy as np

    import helper.utils_OPT as utils_OPT


    def parallel_function(params):
        return utils_OPT.inti_guess(4, 0.5)


    run = jax.pmap(parallel_function)
    out = run(np.ones((1, 3)))
"""

EAGER = """
    import jax
    import numpy as np

    import helper.utils_OPT as utils_OPT


    @jax.jit
    def scale(x):
        return 2 * x


    def design(nx):
        return scale(utils_OPT.inti_guess(nx, 0.5, type=1))


    x = design(8)
"""


def _prints(findings):
    return [f for f in findings if f.code == "STG101" and f.path.endswith("utils_OPT.py")]


def test_a_call_through_a_namespace_folder_where_nothing_traces_is_a_call_site(tmp_path):
    """The helper is also called where nothing traces (another script's set-up function): there its
    print runs on every call, so whether the pmapped caller's trace-time print misleads is a guess
    (the preview tier), as for a helper imported through a package (before: a default finding)."""
    files = {"proj/helper/utils_OPT.py": HELPER, "proj/multi.py": PMAPPED, "proj/cases.py": EAGER}
    assert _prints(check_project(tmp_path, files)) == []
    shown = _prints(check_project(tmp_path, files, preview=True))
    assert len(shown) == 1
    assert any("also called where nothing traces" in b.message and "cases.py" in b.message
               for b in shown[0].because)


def test_a_helper_called_through_a_namespace_folder_only_under_pmap_keeps_its_finding(tmp_path):
    """The negative twin: with no call where nothing traces, the print runs only while the pmapped
    function is traced, by default."""
    files = {"proj/helper/utils_OPT.py": HELPER, "proj/multi.py": PMAPPED}
    assert len(_prints(check_project(tmp_path, files))) == 1


def test_an_or_test_of_a_traced_argument_raises_before_either_branch():
    """`if mode == 0 or None:` tests the truth of `mode == 0` whatever follows: on a tracer it raises
    TracerBoolConversionError while tracing, so neither branch is traced and their prints never run.
    Twins: an `or` whose first operand is a Python value (a shape) may go on to the body untraced
    by any conversion; a static argument's `or` is Python's."""
    assert_tiers("""
        import functools

        import jax


        @jax.jit
        def pick(x, mode):
            if mode == 0 or None:  # STG602
                print("zero")
            elif mode == 1:  # STG602
                print("one")
            return x


        @jax.jit
        def pick_by_rank(x, mode):
            if x.ndim == 2 or mode == 0:
                print("matrix or zero")  # STG101
            return x


        @functools.partial(jax.jit, static_argnames="mode")
        def pick_static(x, mode):
            if mode == 0 or None:
                print("zero, static")  # STG101
            return x
    """)


def test_a_helper_every_traced_call_of_which_passes_a_tracer_is_in_no_trace_past_its_if():
    """AZ1: `parallel_function` (pmapped) spreads its traced argument into `opi(*params)`, which
    hands `type_initial_guess` to the NumPy set-up helper `inti_guess`: every trace of the helper gets
    a tracer there, so its `if type == 0 or None:` raises (TracerBoolConversionError) and no print
    under it is ever traced (the errors themselves stay: STG602, STG601, in the preview tier under JAX by `Rule.preview_under`). Twins: a helper the
    pmapped code passes a Python value keeps its print; so does a helper one traced caller passes a
    tracer and another a Python value (the second's trace reaches the print)."""
    assert_tiers("""
        import jax
        import numpy as np


        def inti_guess(nx, v, type=None):
            if type == 0 or None:  # STG602
                print("type=0")
                return np.ones((nx, nx))
            elif type == 1:  # STG602
                print("type=1")
                return np.zeros((nx, nx))
            return np.full((nx, nx), v)  # STG601


        def opi(penal, v, type_initial_guess):
            return inti_guess(3, v, type=type_initial_guess) * penal


        def parallel_function(params):
            return opi(*params)


        run = jax.pmap(parallel_function)


        def fill(nx, v, type=None):
            if type == 0 or None:
                print("fill type=0")  # STG101
                return np.ones((nx, nx))
            return np.full((nx, nx), v)


        def opi_fixed(penal, v):
            return fill(3, v, type=0) * penal


        def parallel_fixed(params):
            return opi_fixed(*params)


        run_fixed = jax.pmap(parallel_fixed)


        def shared(nx, type=None):
            if type == 0:  # STG602
                print("shared type=0")  # STG101
            return np.ones((nx, nx))


        @jax.jit
        def traced_type(x, t):
            return shared(3, type=t) + x


        @jax.jit
        def python_type(x):
            return shared(3, type=0) + x
    """)


def test_a_namespace_folder_named_like_a_regular_package_is_not_the_projects(tmp_path):
    """Python imports a namespace portion (a folder without `__init__.py`) only where no regular
    package of the name is on the path: a checked folder's `jax/sub/` leaves `import jax` the
    framework, so `jnp.sin(x)` there is still a tracer stored past the call (STG201, not a project
    function's result), while the folder `helper/` is the project's (the call site above)."""
    leak = """
        import jax
        import jax.numpy as jnp

        seen = []


        @jax.jit
        def step(x):
            y = jnp.sin(x)
            seen.append(y)
            return y


        step(jnp.ones(3))
        print(seen)
    """
    files = {"proj/jax/sub/train.py": leak, "proj/helper/utils_OPT.py": HELPER}
    found = [f for f in check_project(tmp_path, files) if f.path.endswith("train.py")]
    assert [f.code for f in found] == ["STG201"]
