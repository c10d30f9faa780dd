"""Row 2: logging under jax.jit logs one line per trace, holding the tracer.

Observed with JAX 0.10.2 (`python r02_logging.py`): updated params: JitTracer(float32[2]) once for 3 calls; the host loop logs step 0, 1, 2.
"""
import logging

import jax
import jax.numpy as jnp

logging.basicConfig(level=logging.INFO, format="%(message)s")
log = logging.getLogger("train")


@jax.jit
def update(params, grads):
    new = jax.tree_util.tree_map(lambda p, g: p - 0.01 * g, params, grads)
    log.info("updated params: %s", new["w"])  # positive: logged at trace time only
    return new


@jax.jit
def update_quiet(params, grads):
    return jax.tree_util.tree_map(lambda p, g: p - 0.01 * g, params, grads)


def train(params, grads, steps):
    for step in range(steps):
        params = update_quiet(params, grads)
        log.info("step %d: w=%s", step, params["w"])  # negative: host code, runs every step
    return params


if __name__ == "__main__":
    p, g = {"w": jnp.ones(2)}, {"w": jnp.ones(2)}
    for _ in range(3):
        p = update(p, g)
    train(p, g, 3)
