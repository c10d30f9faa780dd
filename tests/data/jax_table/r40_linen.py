"""Row 40: Flax Linen __call__ is traced: print once per trace, a Python if on an
activation fails, setting an attribute raises.

Observed with JAX 0.10.2 (`python r40_linen.py`): block output printed eagerly by init, then JitTracer(float32[1,2]) once; TracerBoolConversionError; SetAttributeFrozenModuleError.
"""
import flax.linen as nn
import jax
import jax.numpy as jnp


class Block(nn.Module):
    features: int

    @nn.compact
    def __call__(self, x):
        x = nn.Dense(self.features)(x)
        print("block output", x)  # positive: once per trace
        if jnp.mean(x) > 0:  # positive: TracerBoolConversionError under jit
            x = nn.relu(x)
        return x


class Counter(nn.Module):
    def setup(self):
        self.dense = nn.Dense(2)

    def __call__(self, x):
        self.calls = 1  # positive: SetAttributeFrozenModuleError
        return self.dense(x)


class BlockOk(nn.Module):
    features: int

    @nn.compact
    def __call__(self, x):
        if x.ndim > 2:  # negative: shape arithmetic
            x = x.reshape(x.shape[0], -1)
        x = nn.Dense(self.features)(x)
        jax.debug.print("block output {}", x)  # negative
        return nn.relu(x)


if __name__ == "__main__":
    x = jnp.ones((1, 2))
    params = Block(2).init(jax.random.key(0), x)
    try:
        jax.jit(Block(2).apply)(params, x)
    except Exception as e:
        print(type(e).__name__)
    try:
        Counter().init(jax.random.key(0), x)
    except Exception as e:
        print(type(e).__name__)
    p = BlockOk(2).init(jax.random.key(0), x)
    jax.jit(BlockOk(2).apply)(p, x)
    jax.effects_barrier()
