"""Row 18: range() of a traced value raises TracerIntegerConversionError; fori_loop works.

Observed with JAX 0.10.2 (`python r18_range.py`): TracerIntegerConversionError; fori_loop: [0.7071 0.7071].
"""
import jax
import jax.numpy as jnp
from jax import lax


@jax.jit
def power_iteration(m, v, n_iter):
    for _ in range(n_iter):  # positive
        v = m @ v
        v = v / jnp.linalg.norm(v)
    return v


@jax.jit
def power_iteration_ok(m, v, n_iter):
    def body(_, v):
        v = m @ v
        return v / jnp.linalg.norm(v)
    return lax.fori_loop(0, n_iter, body, v)  # negative


if __name__ == "__main__":
    m, v = jnp.eye(2), jnp.ones(2)
    try:
        power_iteration(m, v, 5)
    except Exception as e:
        print(type(e).__name__)
    print(power_iteration_ok(m, v, 5))
