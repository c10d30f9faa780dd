"""Row 13: if / while / assert / and / or on a tracer fail under jax.jit (no AutoGraph).

Observed with JAX 0.10.2 (`python r13_control_flow.py`): TracerBoolConversionError for clip_loss, normalize, newton_sqrt, both_positive; negatives: 1.0 (2, 12).
"""
import jax
import jax.numpy as jnp
from jax import lax


@jax.jit
def clip_loss(loss, threshold):
    if loss > threshold:  # positive: TracerBoolConversionError
        loss = threshold
    return loss


@jax.jit
def normalize(x):
    assert jnp.all(x >= 0), "inputs must be non-negative"  # positive
    return x / jnp.sum(x)


@jax.jit
def newton_sqrt(a):
    x = a
    while jnp.abs(x * x - a) > 1e-3:  # positive
        x = 0.5 * (x + a / x)
    return x


@jax.jit
def both_positive(x, y):
    return x > 0 and y > 0  # positive


@jax.jit
def clip_loss_ok(loss, threshold):
    loss = jnp.where(loss > threshold, threshold, loss)  # negative
    return lax.cond(loss > 0, lambda l: l, lambda l: -l, loss)


@jax.jit
def flatten_batch(x):
    if x.ndim > 2:  # negative: shape arithmetic is static
        x = x.reshape(x.shape[0], -1)
    return x


if __name__ == "__main__":
    for fn, args in ((clip_loss, (2.0, 1.0)), (normalize, (jnp.ones(2),)), (newton_sqrt, (2.0,)),
                     (both_positive, (1.0, 1.0))):
        try:
            fn(*args)
        except Exception as e:
            print(fn.__name__, type(e).__name__)
    print(clip_loss_ok(2.0, 1.0), flatten_batch(jnp.ones((2, 3, 4))).shape)
