"""The sixteenth JAX audit's fix-from half BG, observed with the real JAX (0.10.2): a branch on a
module constant `DEBUG = False` that nothing rebinds never runs, eagerly or while `jax.jit` traces
(`literals.module_constant_truth`, `walk.module_flag_dead`); another module writing the constant
(`cfg.DEBUG = True`) before a trace makes the branch run in that trace (the twin the project phase
keeps: `pipeline.verdicts.judge`). Static twins: tests/rules/test_jax_sixteenth_audit_bg.py."""

from __future__ import annotations

import sys
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


def test_each_write_the_project_phase_does_not_tell_apart_rebinds_it_or_not():
    """The writes that keep BG1's finding in the preview tier (`flags.module_flag_fact`):
    `setattr(env, "DEBUG", True)` and a write through the module's own namespace
    (`globals()["DEBUG"] = True` in one of its functions) make the next trace run the branch; a
    `from env import DEBUG` then `DEBUG = True` rebinds only the importer's own name."""
    mod = _module()
    setattr(mod, "DEBUG", True)
    mod.step(1.0)
    assert mod.printed == ["traced"]

    mod = _module()
    exec("def debug_on():\n    globals()['DEBUG'] = True\n", mod.__dict__)
    mod.debug_on()
    mod.step(1.0)
    assert mod.printed == ["traced"]

    mod = _module()
    sys.modules["bg_env"] = mod
    try:
        exec("from bg_env import DEBUG, step\nDEBUG = True\nstep(1.0)\n", {})
    finally:
        del sys.modules["bg_env"]
    assert mod.printed == [] and mod.DEBUG is False


def test_names_unpacked_from_a_zip_are_tuples_each_trace_visits_whole():
    """BG2: `dets, projs = zip(*pairs)` binds tuples; a jitted function looping over one visits
    every element on every trace (a new shape retraces and sees all of them again), unlike the
    zip itself, which a first trace would exhaust."""
    pairs = [(lambda x: x + 1, lambda x: x), (lambda x: x * 2, lambda x: x)]
    dets, projs = zip(*pairs)
    assert isinstance(dets, tuple) and isinstance(projs, tuple)
    idx, items = zip(*enumerate("ab"))
    assert idx == (0, 1) and items == ("a", "b")
    visited = []

    @jax.jit
    def detect(x):
        out = 0.0
        for det in dets:
            visited.append(det)
            out = out + det(x)
        return out

    assert float(detect(1.0)) == 4.0
    assert float(detect(jax.numpy.ones(2)).sum()) == 8.0  # a second trace: both again
    assert len(visited) == 4


def test_the_aux_of_value_and_grad_is_what_the_function_returns_second():
    """BG3 (`frameworks.JAX_AUX_PATH`): `jax.value_and_grad(f, has_aux=True)(x)` is `((value, aux),
    grads)` and `jax.grad(f, has_aux=True)(x)` is `(grads, aux)`, with `aux` the Python pytree `f`
    returns second: a dict stays a dict, so a `for` over it in a jitted function visits its keys
    (strings), once per key, whatever the arrays' shapes; a `for` over an array in it is unrolled
    over the array's rows. Equinox's and Flax NNX's alike where installed."""
    jnp = jax.numpy

    def loss_fn(w, y):
        loss = jnp.mean((w * y) ** 2)
        return loss, {"total_loss": loss, "pred": w * y}

    seen = []

    @jax.jit
    def update(w, y):
        (_, aux), grad = jax.value_and_grad(loss_fn, has_aux=True)(w, y)
        assert isinstance(aux, dict)
        for key in aux:
            seen.append(key)
        rows = 0
        for _ in aux["pred"]:  # an array: one copy of the body per row
            rows += 1
        seen.append(rows)
        return grad

    update(jnp.ones((5, 2)), jnp.ones((5, 2)))
    assert seen == ["pred", "total_loss", 5]  # (a dict's keys, sorted as JAX flattens it)

    grads, aux = jax.grad(loss_fn, has_aux=True)(jnp.ones(3), jnp.ones(3))
    assert isinstance(aux, dict) and sorted(aux) == ["pred", "total_loss"] and grads.shape == (3,)
    structures = [jax.tree_util.tree_structure(jax.value_and_grad(loss_fn, has_aux=True)(jnp.ones(3), jnp.ones(3)))]
    for module, value_and_grad, grad in (("equinox", "filter_value_and_grad", "filter_grad"),
                                         ("flax.nnx", "value_and_grad", "grad")):
        try:
            lib = __import__(module, fromlist=["_"])
        except ImportError:
            continue
        (_, aux), _ = getattr(lib, value_and_grad)(loss_fn, has_aux=True)(jnp.ones(3), jnp.ones(3))
        assert isinstance(aux, dict)
        _, aux = getattr(lib, grad)(loss_fn, has_aux=True)(jnp.ones(3), jnp.ones(3))
        assert isinstance(aux, dict)
    assert str(structures[0]) == "PyTreeDef(((*, {'pred': *, 'total_loss': *}), *))"
