"""The facts behind the fourteenth JAX audit's AZ1 (cchu92/jax_wrap_adjoint_homo's `inti_guess`
under `jax.pmap`), observed with the real JAX:

* `a or b` / `a and b` tests the truth of `a` whatever follows: `if type == 0 or None:` on a
  tracer raises TracerBoolConversionError (a TypeError) while tracing, so neither branch is traced;
* `f(*params)` inside a pmapped or jitted function hands `f` the leaves of the traced argument:
  tracers, so a helper's `if` on one raises as in the transformed function itself; where the
  helper is also called eagerly, it runs there (the print with it) and never in the trace.
"""

from __future__ import annotations

import pytest

jax = pytest.importorskip("jax")
jnp = jax.numpy
np = pytest.importorskip("numpy")


def _inti_guess(nx, v, type=None):
    if type == 0 or None:
        print("type=0")
        return np.ones((nx, nx))
    elif type == 1:
        print("type=1")
        return np.zeros((nx, nx))
    return np.full((nx, nx), 0.5)


def _opi(penal, v, type_initial_guess):
    return _inti_guess(3, v, type=type_initial_guess) * penal


@pytest.mark.parametrize("api", ["jit", "pmap"])
def test_an_or_test_of_a_tracer_raises_before_either_branch(api, capsys):
    f = jax.pmap(lambda t: _inti_guess(2, 0.5, type=t)) if api == "pmap" else jax.jit(lambda t: _inti_guess(2, 0.5, type=t))
    with pytest.raises(TypeError) as err:
        f(jnp.array([0]) if api == "pmap" else 0)
    assert "TracerBoolConversionError" in type(err.value).__name__
    assert "type=" not in capsys.readouterr().out


def test_the_spread_of_a_traced_argument_hands_tracers_to_the_helper(capsys):
    def parallel_function(params):
        return _opi(*params)

    # one parameter tuple per device, each leaf stacked (what `device_put_sharded` made)
    sharded = (jnp.ones(1), jnp.ones((1, 3)), jnp.zeros(1, dtype=jnp.int32))
    with pytest.raises(TypeError) as err:
        jax.pmap(parallel_function)(sharded)
    assert "TracerBoolConversionError" in type(err.value).__name__
    assert "type=" not in capsys.readouterr().out
    # the eager call runs the helper, its print with it, on every call
    _opi(1.0, np.ones(3), 1)
    _opi(1.0, np.ones(3), 1)
    assert capsys.readouterr().out.count("type=1") == 2


def test_the_negative_twins_a_python_value_passed_and_an_or_on_a_python_value(capsys):
    """A helper the traced function passes a Python value: its `if` is Python's, and the branch's
    print runs while tracing (once per trace)."""
    f = jax.jit(lambda x: _inti_guess(2, 0.5, type=1) + x)
    f(jnp.ones((2, 2)))
    f(jnp.ones((2, 2)))
    assert capsys.readouterr().out.count("type=1") == 1
