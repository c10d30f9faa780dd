"""Row 8: rebinding a global jax.Ref after the jitted function captured the old one.

Observed with JAX 0.10.2 (`python r08_ref_rebind.py`): new ref after rebinding: 0.0 (the jitted function kept writing the old Ref); reset in place: 3.0.
"""
import jax
import jax.numpy as jnp

total = jax.new_ref(jnp.zeros(()))


@jax.jit
def accumulate(x):
    total[...] += jnp.sum(x)  # positive: keeps writing the first Ref
    return x


def reset_by_rebinding():
    global total
    total = jax.new_ref(jnp.zeros(()))  # positive: accumulate keeps the old Ref


counts = jax.new_ref(jnp.zeros(()))


@jax.jit
def count(x):
    counts[...] += x.shape[0]  # negative: the Ref is reset in place, never rebound
    return x


def reset_in_place():
    counts[...] = jnp.zeros(())


if __name__ == "__main__":
    accumulate(jnp.ones(3))
    reset_by_rebinding()
    accumulate(jnp.ones(3))
    print("new ref after rebinding:", total[...])
    count(jnp.ones(3))
    reset_in_place()
    count(jnp.ones(3))
    print("reset in place:", counts[...])
