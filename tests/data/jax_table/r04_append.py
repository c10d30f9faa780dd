"""Row 4: appending to an outer list under jax.jit stores one tracer, once.

Observed with JAX 0.10.2 (`python r04_append.py`): 1 DynamicJaxprTracer 3 (the outer list: one tracer after 3 steps; the host history: 3).
"""
import jax
import jax.numpy as jnp

losses = []


@jax.jit
def train_step(w, x):
    loss = jnp.sum((w * x) ** 2)
    losses.append(loss)  # positive: the list gets one JitTracer, at trace time
    return w - 0.1 * x, loss


def fit(w, x, steps):
    history = []
    for _ in range(steps):
        w, loss = train_step(w, x)
        history.append(loss)  # negative: host loop, a concrete array per step
    return w, history


if __name__ == "__main__":
    w, x = jnp.ones(3), jnp.ones(3)
    w, hist = fit(w, x, 3)
    print(len(losses), type(losses[0]).__name__, len(hist))
