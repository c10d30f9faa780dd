"""Row 1: print under jax.jit runs once per trace, jax.debug.print on every call.

Observed with JAX 0.10.2 (`python r01_print.py`): loss: JitTracer(float32[]) once for 3 calls; then loss: 0.0466..., 0.0167..., 0.0060... (one line per call).
"""
import jax
import jax.numpy as jnp


@jax.jit
def sgd_step(w, x, y):
    loss = jnp.mean((x @ w - y) ** 2)
    print("loss:", loss)  # positive: prints a JitTracer, once per trace
    return w - 0.1 * jax.grad(lambda w: jnp.mean((x @ w - y) ** 2))(w)


@jax.jit
def sgd_step_logged(w, x, y):
    loss = jnp.mean((x @ w - y) ** 2)
    jax.debug.print("loss: {}", loss)  # negative: runs on every call
    return w - 0.1 * jax.grad(lambda w: jnp.mean((x @ w - y) ** 2))(w)


if __name__ == "__main__":
    w, x, y = jnp.zeros(2), jnp.ones((4, 2)), jnp.ones(4)
    for _ in range(3):
        w = sgd_step(w, x, y)
    for _ in range(3):
        w = sgd_step_logged(w, x, y)
    jax.effects_barrier()
