"""Row 26: lax.scan / while_loop bodies run their Python once, even without jax.jit.

Observed with JAX 0.10.2 (`python r26_loop_body_effects.py`): trajectory holds 1 element after 10 scan steps; scan output shape (10,).
"""
import jax.numpy as jnp
from jax import lax

trajectory = []


def rollout(x0, steps):
    def body(x, _):
        x = 0.9 * x
        trajectory.append(x)  # positive: once, a tracer, for all steps
        return x, x

    return lax.scan(body, x0, None, length=steps)


def rollout_ok(x0, steps):
    def body(x, _):
        x = 0.9 * x
        return x, x  # negative: the trajectory is scan's output

    _, xs = lax.scan(body, x0, None, length=steps)
    return xs


if __name__ == "__main__":
    rollout(jnp.float32(1.0), 10)
    print(len(trajectory), rollout_ok(jnp.float32(1.0), 10).shape)
