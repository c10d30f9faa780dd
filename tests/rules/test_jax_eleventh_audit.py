"""The false classes of the eleventh fresh JAX audit's read half AM (bench/fresh_audit_notes.md,
"Eleventh JAX audit"), each a fact checked with JAX 0.10.2 (tests/runtime/test_jax_eleventh_audit_facts.py)
with its negative twin."""

from __future__ import annotations

from pathlib import Path

from rulecases import assert_project_marked, assert_tiers

_JITTED = """
    import jax
    import jax.numpy as jnp


    def main():
        @jax.jit
        def composed_fn(params):
            print("PARAMS (inside func)", params)  # STG101
            return jnp.sum(params ** 2)

        J = composed_fn(jnp.ones(3))
        return J, jax.grad(composed_fn)(jnp.ones(3))
"""


def test_a_function_reached_only_through_grad_in_a_same_named_file_gets_no_trace_time_claim(tmp_path):
    """AM4 (jax-fem-projects' two copies of inverse_set_up.py): `jax.grad`, `jax.vjp`, `vmap`, ...
    without a jit keep no trace cache, so the print in `composed_fn` (its `@jax.jit` commented
    out) runs on every call; the copy in another script folder, the same file name and function,
    keeps its `@jax.jit` and prints once per trace. Each file's JAX staging is its own: the folder
    copy is not staged by the other's jit, nor judged as TensorFlow code (a `tf.print` remedy)."""
    got = assert_project_marked(tmp_path, {
        "inverse_set_up.py": _JITTED,
        "copy/inverse_set_up.py": _JITTED.replace("        @jax.jit", "        #@jax.jit").replace("  # STG101", ""),
    })
    assert all("tf.print" not in f.message and "jax.debug.print" in f.message for f in got)


def test_the_copy_keeps_its_own_jit_too(tmp_path):
    """The negative twin: with the jit in the folder copy and not at the root, the folder's print
    is the one reported (with JAX's remedy), the root's, reached only through `jax.grad`, is not."""
    got = assert_project_marked(tmp_path, {
        "inverse_set_up.py": _JITTED.replace("        @jax.jit", "        #@jax.jit").replace("  # STG101", ""),
        "copy/inverse_set_up.py": _JITTED,
    })
    assert [Path(f.path).as_posix() for f in got] == ["copy/inverse_set_up.py"]
    assert all("jax.debug.print" in f.message for f in got)


def test_a_branch_and_a_timer_read_only_under_a_flag_no_traced_call_turns_on_are_in_no_trace():
    """AM2 (regcoil_jax's `build_matrices`): `t0 = perf_counter()` ... `if verbose:
    logger.phase_done(t1 - t0)`, and every traced caller leaves `verbose` False: the branch is in
    no trace, so its print is not staged and the clock values, read nowhere else, reach nothing a
    call computes. The negative twins: a traced caller passing `verbose=True`, one passing a value
    not written out (`verbose=flag`), a caller spreading `**options`, a timer also returned."""
    assert_tiers("""
        import time
        import jax
        import jax.numpy as jnp


        def build(x, *, verbose=False, sync=False):
            if verbose:
                print("building", x.shape)
            t0 = time.perf_counter()
            y = x * 2
            if sync:
                y.block_until_ready()
            t1 = time.perf_counter()
            if verbose:
                print("took", float(t1 - t0))
            return y


        def loud(x, verbose=False):
            if verbose:
                print("building", x.shape)  # STG101
            return x


        def passed_on(x, verbose=False):
            if verbose:
                print("building", x.shape)  # STG101
            return x


        def spread(x, verbose=False):
            if verbose:
                print("building", x.shape)  # STG101
            return x


        def returned(x, verbose=False):
            t0 = time.perf_counter()  # STG104
            if verbose:
                print("started", t0)
            return x, t0


        @jax.jit
        def step(x, flag=False):
            opts = {"verbose": True}
            return (build(x) + build(x, verbose=False) + loud(x, verbose=True) + passed_on(x, verbose=flag)
                    + spread(x, **opts) + returned(x)[0])


        step(jnp.ones(3))
    """)


def test_an_entry_points_own_flag_branch_keeps_todays_finding():
    """A jitted function's own `if verbose:` with no call passing it shown: the caller of a
    library's entry point is out of sight, so the branch may be traced (today's finding)."""
    assert_tiers("""
        import jax


        @jax.jit
        def step(x, verbose=False):
            if verbose:
                print("step", x)  # STG101
            return x * 2
    """)
