"""The sixteenth JAX audit's fix-from half BG, observed with the real JAX (0.10.2): a branch on a
module constant `DEBUG = False` that nothing rebinds never runs, eagerly or while `jax.jit` traces
(`literals.module_constant_truth`, `walk.module_flag_dead`); another module writing the constant
(`cfg.DEBUG = True`) before a trace makes the branch run in that trace (the twin the project phase
keeps: `pipeline.verdicts.judge`). Static twins: tests/rules/test_jax_sixteenth_audit_bg.py."""

from __future__ import annotations

import types

import pytest

jax = pytest.importorskip("jax")

SOURCE = '''
import jax

DEBUG = False
printed = []


@jax.jit
def step(x):
    if DEBUG:
        printed.append("traced")
    return x + 1
'''


def _module():
    mod = types.ModuleType("bg_env")
    exec(compile(SOURCE, "bg_env.py", "exec"), mod.__dict__)
    return mod


def test_a_branch_on_a_module_constant_false_never_runs():
    mod = _module()
    assert float(mod.step(1.0)) == 2.0
    assert float(mod.step(2.0)) == 3.0
    assert float(mod.step(jax.numpy.ones(3)).sum()) == 6.0  # a second trace (new shape)
    with jax.disable_jit():
        mod.step(1.0)  # eagerly too
    assert mod.printed == []


def test_another_module_writing_the_constant_makes_the_next_trace_run_it():
    mod = _module()
    mod.DEBUG = True  # `cfg.DEBUG = True` from another module, before the first trace
    mod.step(1.0)
    assert mod.printed == ["traced"]
    mod.step(2.0)  # cached trace: the Python branch ran once, while tracing
    assert mod.printed == ["traced"]
