"""Row 21: recursion with a traced base case never stops tracing under jax.jit.

Observed with JAX 0.10.2 (`python r21_recursion.py`): TracerBoolConversionError; recursion over the Python tree: 9.
"""
import jax
import jax.numpy as jnp


@jax.jit
def power(x, n):
    if n == 0:
        return jnp.ones_like(x)
    return x * power(x, n - 1)  # positive: n is traced


def tree_size(tree):
    if isinstance(tree, (list, tuple)):
        return sum(tree_size(t) for t in tree)  # negative: recursion on the Python structure
    return tree.size


@jax.jit
def total_params(params):
    return tree_size(params)


if __name__ == "__main__":
    try:
        power(jnp.float32(2.0), 3)
    except Exception as e:
        print(type(e).__name__)
    print(total_params([jnp.ones(2), (jnp.ones(3), jnp.ones((2, 2)))]))
