"""The values a parameter has in every trace (`analysis.flags.param_values`): code under a
condition no such value satisfies is in no trace, and a function called only from there is traced
by no call (`untraced_branch`, `traced_reach`). The eleventh audit's classes AN1 (NEO_JAX: the
only jitted caller passes `jax_surface_scan=True`, the Python-loop driver follows `if
jax_surface_scan: return ...`) and AP's verbose class (Sionna: `verbose` forwarded by traced
callers that leave it False), each with its negative twins; the fact is checked with JAX 0.10.2
and TensorFlow 2.21 in tests/runtime/test_traced_param_values.py."""

from __future__ import annotations

from rulecases import assert_project_marked, assert_tiers

_LIBRARY = """
import jax


def python_loop_driver(x):
    print("surface", x)  {driver}
    return x + 1


def run(x, *, scan=False):
    if scan:
        return x * 2
    print("Python parity backend")  {after}
    return python_loop_driver(x)

"""


def test_a_literal_flag_of_the_only_traced_caller_leaves_what_follows_its_early_return_untraced():
    """AN1: `run(x, scan=True)` from the jitted step, and nothing else traces `run`: the code after
    `if scan: return ...` and the driver it calls are in no trace."""
    assert_tiers(_LIBRARY.format(driver="", after="") + """
@jax.jit
def step(x):
    return run(x, scan=True)
""")


def test_a_second_traced_caller_passing_false_or_a_value_not_written_out_keeps_the_findings():
    """The negative twins: another traced call leaving `scan` False (its default), or passing a
    value the code does not show (the jitted function's own parameter), traces the rest too."""
    for second in ("run(x)", "run(x, scan=flag)"):
        assert_tiers(_LIBRARY.format(driver="# STG101", after="# STG101") + f"""
@jax.jit
def step(x, flag=True):
    return run(x, scan=True) + {second}
""")


def test_a_flag_forwarded_by_callers_whose_traced_callers_leave_it_false_is_off_in_every_trace():
    """Sionna's verbose class: `decode(x, verbose=verbose)` in a traced helper whose traced calls
    leave `verbose` at its False default, two callers up; `if not quiet:` and `mode == "eager"`
    decided the same way by a literal and a default."""
    assert_tiers("""
        import tensorflow as tf


        def decode(x, verbose=False, quiet=True, mode="graph"):
            if verbose:
                print(f"index {x.numpy()}")
            if not quiet:
                print("decoding")
            if mode == "eager" or mode is None:
                print("eager decoding")
            return x


        def helper(x, verbose=False):
            return decode(x, verbose=verbose, quiet=True)


        def outer(x, verbose=False):
            return helper(x, verbose=verbose)


        @tf.function
        def step(x):
            return outer(x) + outer(x, verbose=False)
    """)


def test_a_forwarded_flag_one_traced_caller_turns_on_keeps_the_findings():
    """The negative twins: a traced call two callers up passing `verbose=True`, an entry point
    forwarding its own flag (its caller is out of sight), a `quiet=False` literal."""
    assert_tiers("""
        import tensorflow as tf


        def decode(x, verbose=False, quiet=True):
            if verbose:
                print("index", x)  # STG101
            if not quiet:
                print("decoding")  # STG101
            return x


        def helper(x, verbose=False):
            return decode(x, verbose=verbose)


        @tf.function
        def step(x):
            return helper(x) + helper(x, verbose=True)


        @tf.function
        def wrapper(x, quiet=True):
            return decode(x, quiet=quiet)
    """)


def test_a_function_handed_to_a_transformation_keeps_its_findings():
    """A function passed to `lax.scan` (or `tf.cond`) is called where the calls do not show: the
    values of its parameters are unknown, so its branches keep their findings, whatever the
    direct calls pass."""
    assert_tiers("""
        import jax
        from jax import lax


        def body(carry, x, verbose=False):
            if verbose:
                print("step", x)  # STG101
            return carry + x, x


        @jax.jit
        def run(xs):
            body(0.0, xs[0])
            return lax.scan(body, 0.0, xs)
    """)


def test_the_driver_in_another_module_follows_the_same_values(tmp_path):
    """Across modules: `api.run_neo(booz, scan=True)` from the jitted example, `run_neo` forwarding
    `scan=scan` to `run_boozer`, which returns under `if scan:` before calling the driver."""
    assert_project_marked(tmp_path, {
        "neo/__init__.py": "",
        "neo/driver.py": """
            def run_from_boozer(booz):
                print("NEO_JAX: surface", booz)
                return booz
        """,
        "neo/api.py": """
            from neo.driver import run_from_boozer


            def run_boozer(booz, *, scan=False, progress=None):
                if progress is None:
                    progress = True
                if scan:
                    return booz * 2
                return run_from_boozer(booz)


            def run_neo(booz, *, scan=False):
                return run_boozer(booz, scan=scan)
        """,
        "neo/example.py": """
            import jax
            from neo.api import run_neo


            def main(booz):
                def eps(scale):
                    return run_neo(booz * scale, scan=True)

                return jax.jit(eps)(1.0)
        """,
    })
