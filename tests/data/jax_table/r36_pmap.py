"""Row 36: pmap stages like jit: print once, a Python if on a value fails.

Observed with JAX 0.10.2 (`python r36_pmap.py`): shard loss JitTracer(float32[]) once for 2 calls; TracerBoolConversionError; jax.debug.print shows 1.0.
"""
import jax
import jax.numpy as jnp


@jax.pmap
def shard_loss(x):
    loss = jnp.mean(x ** 2)
    print("shard loss", loss)  # positive: printed at trace time only
    return loss


@jax.pmap
def shard_clip(x):
    if jnp.max(x) > 1.0:  # positive: TracerBoolConversionError
        x = x / jnp.max(x)
    return x


@jax.pmap
def shard_loss_ok(x):
    loss = jnp.mean(x ** 2)
    jax.debug.print("shard loss {}", loss)  # negative
    return loss


if __name__ == "__main__":
    xs = jnp.ones((jax.local_device_count(), 3))
    shard_loss(xs)
    shard_loss(xs)
    try:
        shard_clip(xs * 2)
    except Exception as e:
        print(type(e).__name__)
    shard_loss_ok(xs)
    jax.effects_barrier()
