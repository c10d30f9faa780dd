"""Row 25: both branches of lax.cond run their Python at trace time.

Observed with JAX 0.10.2 (`python r25_cond_effects.py`): 'clipping' printed and ['kept'] appended although only one branch is taken; jax.debug.print prints nothing (branch not taken).
"""
import jax
import jax.numpy as jnp
from jax import lax

events = []


def clip_branch(g):
    print("clipping")  # positive: printed at trace time, whatever the predicate
    return g / jnp.linalg.norm(g)


def keep_branch(g):
    events.append("kept")  # positive: appended at trace time
    return g


def maybe_clip(g):
    return lax.cond(jnp.linalg.norm(g) > 1.0, clip_branch, keep_branch, g)


def clip_branch_ok(g):
    jax.debug.print("clipping {}", jnp.linalg.norm(g))  # negative: runs when taken
    return g / jnp.linalg.norm(g)


def maybe_clip_ok(g):
    return lax.cond(jnp.linalg.norm(g) > 1.0, clip_branch_ok, lambda g: g, g)


if __name__ == "__main__":
    maybe_clip(jnp.array([0.1, 0.1]))
    print(events)
    maybe_clip_ok(jnp.array([0.1, 0.1]))
    jax.effects_barrier()
