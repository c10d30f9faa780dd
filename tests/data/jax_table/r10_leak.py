"""Row 10: a tracer stored on self or in a global outlives the jitted call.

Observed with JAX 0.10.2 (`python r10_leak.py`): UnexpectedTracerError on the leaked global; the returned gradient: [2.6 2.6].
"""
import jax
import jax.numpy as jnp

last_grad = None


@jax.jit
def step(w, x):
    global last_grad
    g = jax.grad(lambda w: jnp.sum((w * x) ** 2))(w)
    last_grad = g  # positive: a leaked JitTracer
    return w - 0.1 * g


@jax.jit
def step_with_aux(w, x):
    g = jax.grad(lambda w: jnp.sum((w * x) ** 2))(w)
    return w - 0.1 * g, g  # negative: returned, not stored


if __name__ == "__main__":
    w = step(jnp.ones(2), jnp.ones(2))
    try:
        print(last_grad + 1)
    except Exception as e:
        print(type(e).__name__)
    w, g = step_with_aux(w, jnp.ones(2))
    print(g + 1)
