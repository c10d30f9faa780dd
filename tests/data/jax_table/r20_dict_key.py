"""Row 20: a tracer used as a dict key is unhashable under jax.jit.

Observed with JAX 0.10.2 (`python r20_dict_key.py`): TypeError (unhashable); the array lookup: 10.0.
"""
import jax
import jax.numpy as jnp

WEIGHTS = {0: 1.0, 1: 5.0}


@jax.jit
def class_weight(label, loss):
    return loss * WEIGHTS[label]  # positive: TypeError unhashable


@jax.jit
def class_weight_ok(label, loss):
    table = jnp.array([WEIGHTS[k] for k in sorted(WEIGHTS)])  # negative: Python keys
    return loss * table[label]


if __name__ == "__main__":
    try:
        class_weight(jnp.int32(1), 2.0)
    except Exception as e:
        print(type(e).__name__)
    print(class_weight_ok(jnp.int32(1), 2.0))
