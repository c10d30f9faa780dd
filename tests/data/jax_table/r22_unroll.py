"""Row 22: a Python loop over a static count is unrolled into the jaxpr.

Observed with JAX 0.10.2 (`python r22_unroll.py`): jaxpr equations for 10/100 steps: 30/300 (Python loop) vs 1/1 (fori_loop).
"""
from functools import partial

import jax
import jax.numpy as jnp
from jax import lax


@partial(jax.jit, static_argnames="num_steps")
def integrate(x, dt, num_steps):
    for _ in range(num_steps):  # positive: num_steps copies of the body
        x = x + dt * jnp.sin(x)
    return x


@partial(jax.jit, static_argnames="num_steps")
def integrate_ok(x, dt, num_steps):
    return lax.fori_loop(0, num_steps, lambda _, x: x + dt * jnp.sin(x), x)  # negative


if __name__ == "__main__":
    for n in (10, 100):
        a = len(integrate.trace(1.0, 0.1, num_steps=n).jaxpr.eqns)
        b = len(integrate_ok.trace(1.0, 0.1, num_steps=n).jaxpr.eqns)
        print(n, a, b)
