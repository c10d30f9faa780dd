"""Row 23: iterating a traced array unrolls over its first axis.

Observed with JAX 0.10.2 (`python r23_iterate_array.py`): jaxpr equations for 10/100 rows: 30/300; the MLP over a list of layers runs.
"""
import jax
import jax.numpy as jnp


@jax.jit
def running_max(xs):
    best = -jnp.inf
    for x in xs:  # positive: unrolled over axis 0
        best = jnp.maximum(best, x)
    return best


@jax.jit
def mlp(params, x):
    for w, b in params:  # negative: a Python list of layers, as every MLP does
        x = jnp.tanh(x @ w + b)
    return x


if __name__ == "__main__":
    for n in (10, 100):
        print(n, len(running_max.trace(jnp.ones(n)).jaxpr.eqns))
    print(mlp([(jnp.ones((2, 2)), jnp.zeros(2))] * 2, jnp.ones(2)))
