"""Set-up order and a wrapper made anew, observed with the real JAX (0.10.2): the fifteenth JAX
audit's STG302 preview class (jaxem's solver tables, JAXtronomy's multi-plane distance lists and
`ImageData.update_data`, bench/fresh_audit_notes.md).

* attributes a set-up method writes from `__init__` (through `setup()` and its helpers) are in
  place before the object can be passed to anything: the first call of a jitted method with a
  static `self` traces with them, and no call sees another value;
* the negative twin: the same set-up method called again on the object after a traced call
  leaves the trace stale (the static `self` hashes by identity: no retrace);
* a method that rebinds an attribute and then binds `self.f = jax.jit(self._f)` anew: the next
  call goes to the new wrapper, which traces with the new value; without the new wrapper the
  old trace keeps the old value.
"""

from __future__ import annotations

import functools

import pytest

jax = pytest.importorskip("jax")
jnp = jax.numpy


class _Solver:
    def __init__(self, energies, setup=True):
        self.energies = list(energies)
        if setup:
            self.setup()

    def setup(self):
        self.setup_propagator()

    def setup_propagator(self):
        self.k = jnp.sqrt(jnp.array(self.energies))
        self.n_poles = len(self.energies)

    @functools.partial(jax.jit, static_argnames=("self",))
    def t(self, v):
        return jnp.sum(v[: self.n_poles] * self.k)


def test_attributes_set_up_from_init_are_what_every_trace_reads():
    s = _Solver([1.0, 4.0])
    v = jnp.ones(3)
    assert float(s.t(v)) == 3.0 and float(s.t(v * 2)) == 6.0


def test_the_negative_twin_the_set_up_run_again_after_a_call_is_stale():
    s = _Solver([1.0, 4.0])
    v = jnp.ones(3)
    assert float(s.t(v)) == 3.0
    s.energies = [9.0, 16.0]
    s.setup_propagator()
    assert float(s.t(v)) == 3.0  # eager: 7.0; the trace keeps the old tables


class _ImageData:
    def __init__(self, data):
        self.data = data
        self.log_likelihood = jax.jit(self._log_likelihood)

    def update_data(self, data):
        self.data = data
        self.log_likelihood = jax.jit(self._log_likelihood)

    def update_only(self, data):
        self.data = data

    def _log_likelihood(self, model):
        return jnp.sum(model - self.data)


def test_a_wrapper_made_anew_after_the_rebinding_traces_with_the_new_value():
    d = _ImageData(jnp.ones(3))
    assert float(d.log_likelihood(jnp.zeros(3))) == -3.0
    d.update_data(jnp.ones(3) * 2)
    assert float(d.log_likelihood(jnp.zeros(3))) == -6.0


def test_the_negative_twin_the_rebinding_alone_is_stale():
    d = _ImageData(jnp.ones(3))
    assert float(d.log_likelihood(jnp.zeros(3))) == -3.0
    d.update_only(jnp.ones(3) * 5)
    assert float(d.log_likelihood(jnp.zeros(3))) == -3.0  # eager: -15.0
