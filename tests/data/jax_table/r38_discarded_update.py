"""Row 38: x.at[i].set(v) as a statement is a silent no-op, jitted or not.

Observed with JAX 0.10.2 (`python r38_discarded_update.py`): [0 1 2] (unchanged); rebound: [[0. 1.] [1. 0.]].
"""
import jax
import jax.numpy as jnp


@jax.jit
def mask_padding(tokens, pad_id):
    tokens.at[0].set(pad_id)  # positive: the result is discarded
    return tokens


def zero_diagonal(m):
    n = m.shape[0]
    m = m.at[jnp.arange(n), jnp.arange(n)].set(0.0)  # negative: rebound
    return m


if __name__ == "__main__":
    print(mask_padding(jnp.arange(3), 9))
    print(zero_diagonal(jnp.ones((2, 2))))
