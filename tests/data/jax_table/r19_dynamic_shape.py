"""Row 19: data-dependent shapes fail under jax.jit (boolean masks, nonzero/unique/arange
without size=, slices with traced bounds).

Observed with JAX 0.10.2 (`python r19_dynamic_shape.py`): NonConcreteBooleanIndexError, ConcretizationTypeError (nonzero, unique, arange), IndexError (x[:n]); negatives run.
"""
import jax
import jax.numpy as jnp


@jax.jit
def positive_mean(x):
    return jnp.mean(x[x > 0])  # positive: boolean index


@jax.jit
def active_ids(mask):
    return jnp.nonzero(mask)  # positive: no size=


@jax.jit
def classes(labels):
    return jnp.unique(labels)  # positive: no size=


@jax.jit
def prefix_sum(x, n):
    return jnp.sum(x[:n])  # positive: traced slice bound


@jax.jit
def positions(n):
    return jnp.arange(n)  # positive: traced length


@jax.jit
def positive_mean_ok(x):
    mask = x > 0
    return jnp.sum(jnp.where(mask, x, 0.0)) / jnp.maximum(mask.sum(), 1)  # negative


@jax.jit
def active_ids_ok(mask):
    return jnp.nonzero(mask, size=4, fill_value=-1)  # negative


@jax.jit
def first_half(x):
    return x[: x.shape[0] // 2]  # negative: static shape arithmetic


if __name__ == "__main__":
    x = jnp.array([-1.0, 2.0, 3.0, -4.0])
    for fn, args in ((positive_mean, (x,)), (active_ids, (x > 0,)), (classes, (jnp.array([1, 1, 2]),)),
                     (prefix_sum, (x, 2)), (positions, (3,))):
        try:
            fn(*args)
        except Exception as e:
            print(fn.__name__, type(e).__name__)
    print(positive_mean_ok(x), active_ids_ok(x > 0), first_half(x))
