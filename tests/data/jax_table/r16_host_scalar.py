"""Row 16: float()/int()/.item() on a tracer raise ConcretizationTypeError under jax.jit.

Observed with JAX 0.10.2 (`python r16_host_scalar.py`): ConcretizationTypeError for accuracy and mean_loss; scaled: [0.25 0.25 0.25 0.25].
"""
import jax
import jax.numpy as jnp


@jax.jit
def accuracy(logits, labels):
    correct = jnp.sum(jnp.argmax(logits, -1) == labels)
    return float(correct) / labels.shape[0]  # positive


@jax.jit
def mean_loss(losses):
    return losses.sum().item() / len(losses)  # positive: .item()


@jax.jit
def scaled(x):
    n = float(x.shape[0])  # negative: shape arithmetic is static
    return x / n


if __name__ == "__main__":
    for fn, args in ((accuracy, (jnp.ones((2, 3)), jnp.zeros(2, jnp.int32))), (mean_loss, (jnp.ones(2),))):
        try:
            fn(*args)
        except Exception as e:
            print(fn.__name__, type(e).__name__)
    print(scaled(jnp.ones(4)))
