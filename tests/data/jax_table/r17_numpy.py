"""Row 17: NumPy on a tracer raises TracerArrayConversionError; NumPy on shapes is fine.

Observed with JAX 0.10.2 (`python r17_numpy.py`): TracerArrayConversionError; flatten: (2, 12).
"""
import jax
import jax.numpy as jnp
import numpy as np


@jax.jit
def log_softmax(x):
    return x - np.log(np.sum(np.exp(x)))  # positive


@jax.jit
def flatten(x):
    size = np.prod(x.shape[1:])  # negative: shape arithmetic
    return x.reshape(x.shape[0], size)


if __name__ == "__main__":
    try:
        log_softmax(jnp.ones(3))
    except Exception as e:
        print(type(e).__name__)
    print(flatten(jnp.ones((2, 3, 4))).shape)
