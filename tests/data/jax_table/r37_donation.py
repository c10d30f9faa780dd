"""Row 37: reading an argument after donating it raises 'Array has been deleted'.

Observed with JAX 0.10.2 (`python r37_donation.py`): RuntimeError Array has been deleted with shape=float32[3].; rebinding: [0.7 0.7 0.7].
"""
from functools import partial

import jax
import jax.numpy as jnp


@partial(jax.jit, donate_argnums=0)
def update(params, grads):
    return jax.tree_util.tree_map(lambda p, g: p - 0.1 * g, params, grads)


def train_bad(params, grads):
    new_params = update(params, grads)
    delta = new_params["w"] - params["w"]  # positive: params was donated
    return new_params, delta


def train_ok(params, grads):
    for _ in range(3):
        params = update(params, grads)
    return params["w"]  # negative: rebinding the donated name


if __name__ == "__main__":
    g = {"w": jnp.ones(3)}
    try:
        train_bad({"w": jnp.ones(3)}, g)
    except Exception as e:
        print(type(e).__name__, e)
    print(train_ok({"w": jnp.ones(3)}, g))
