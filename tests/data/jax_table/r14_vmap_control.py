"""Row 14: a Python if on a traced value fails under vmap/scan even with jit disabled.

Observed with JAX 0.10.2 (`python r14_vmap_control.py`): TracerBoolConversionError with disable_jit False AND True; jnp.where: [0. 2.].
"""
import jax
import jax.numpy as jnp


def relu_scalar(x):
    if x > 0:  # positive: vmap traces; fails in both modes
        return x
    return 0.0


def relu_scalar_ok(x):
    return jnp.where(x > 0, x, 0.0)  # negative


if __name__ == "__main__":
    for disable in (False, True):
        with jax.disable_jit(disable):
            try:
                jax.vmap(relu_scalar)(jnp.array([-1.0, 2.0]))
            except Exception as e:
                print("disable_jit", disable, type(e).__name__)
    print(jax.vmap(relu_scalar_ok)(jnp.array([-1.0, 2.0])))
