"""Row 42: a plain Python attribute mutated under nnx.jit retraces on every call.

Observed with JAX 0.10.2 (`python r42_nnx_python_attr.py`): traces: 3 for 3 calls (steps 3); the Variable version: 1 trace for 3 calls.
"""
import jax.numpy as jnp
from flax import nnx

traces = []


class Model(nnx.Module):
    def __init__(self, rngs):
        self.linear = nnx.Linear(2, 2, rngs=rngs)
        self.steps = 0
        self.count = nnx.Variable(jnp.array(0))


@nnx.jit
def forward(model, x):
    traces.append(1)
    model.steps += 1  # positive: a static attribute changes: one trace per call
    return model.linear(x)


@nnx.jit
def forward_ok(model, x):
    traces.append(1)
    model.count[...] += 1  # negative: state in an nnx.Variable
    return model.linear(x)


if __name__ == "__main__":
    m = Model(nnx.Rngs(0))
    for _ in range(3):
        forward(m, jnp.ones(2))
    n = len(traces)
    for _ in range(3):
        forward_ok(m, jnp.ones(2))
    print("traces:", n, "then", len(traces) - n, "steps", m.steps, "count", m.count[...])
