"""Row 15: a Python if on the input works under jax.grad alone (values are concrete).

Observed with JAX 0.10.2 (`python r15_grad_only.py`): grad alone: 4.0 -1.0; jit(grad(huber)): TracerBoolConversionError.
"""
import jax


def smooth_abs(x):
    if x > 0:  # negative: jax.grad alone evaluates with concrete values
        return x ** 2
    return -x


def huber(x):
    if x < 1.0:  # positive: the same pattern, but jitted below
        return 0.5 * x ** 2
    return x - 0.5


grad_smooth_abs = jax.grad(smooth_abs)
grad_huber = jax.jit(jax.grad(huber))


if __name__ == "__main__":
    print(grad_smooth_abs(2.0), grad_smooth_abs(-2.0))
    try:
        grad_huber(0.5)
    except Exception as e:
        print(type(e).__name__)
