"""The twelfth JAX audit's false classes (AR, fix-from after its reading), each a framework fact
with its negative twin: a transformation returns the pytree its function returns (a Python list
stays a list: a loop over it is a loop over items); a jitted call that cannot bind its arguments
raises TypeError before tracing; a new jit per iteration where every iteration's arrays have a new
shape compiles once per iteration however it is written."""

from __future__ import annotations

from rulecases import assert_tiers


def test_a_loop_over_the_list_a_transformed_function_returns_is_no_unrolling():
    """`jax.checkpoint`, `jax.jit` of a function and `jax.vmap` of a callable object whose returns
    spell a Python list first: `preds` is that list of arrays (tests/runtime/test_jax_output_structure.py)."""
    assert_tiers("""
        import jax
        import jax.numpy as jnp


        def heads(x):
            preds = []
            for k in (2, 3):
                preds.append(x[:k])
            return preds, [x]


        class Multi:
            def __call__(self, x):
                preds = []
                for k in (2, 3):
                    preds.append(x[:k])
                return preds, [x]


        @jax.jit
        def loss(x):
            total = 0.0
            a, maps = jax.checkpoint(heads)(x)
            if a:  # a non-empty list: a Python bool, no tracer (no STG602)
                total += 1.0
            for p in a:
                total += jnp.mean(p)
            for m in maps:
                total += jnp.sum(m)
            disc = Multi()
            b, _ = jax.vmap(disc)(x)
            for p in b:
                total += jnp.mean(p)
            c, _ = jax.jit(heads)(x)
            for p in c:
                total += jnp.mean(p)
            return total
    """)


def test_a_loop_over_an_array_a_transformed_function_returns_is_reported():
    """The negative twin: the function returns two arrays, so each is an array whose rows the loop
    unrolls; and a function not shown (a parameter) stays as before."""
    assert_tiers("""
        import jax
        import jax.numpy as jnp


        def pair(x):
            return x * 2, x + 1


        @jax.jit
        def loss(x):
            total = 0.0
            d, _ = jax.vmap(pair)(x)
            for row in d:  # STG503
                total += jnp.mean(row)
            e, _ = jax.checkpoint(pair)(x)
            for row in e:  # STG503
                total += jnp.mean(row)
            return total
    """)


def test_a_jit_whose_call_cannot_bind_compiles_nothing():
    """`jax.jit(self.calc)(x, c, i)` of a method taking four arguments besides `self`, and a jit
    per iteration of a def called with a missing argument: TypeError before any trace
    (tests/runtime/test_jax_twelfth_audit_facts.py)."""
    assert_tiers("""
        import jax
        import jax.numpy as jnp


        class Forward:
            def calc(self, x, coszen, cos_i, geom):
                return x * coszen + cos_i

            def invert(self, x, coszen, cos_i):
                return jax.jit(self.calc)(jnp.array(x), coszen, cos_i)


        def run(xs):
            fwd = Forward()
            for x in xs:
                fwd.invert(x, 1.0, 2.0)
            for x in xs:
                g = jax.jit(lambda a, w: a @ w)
                g(x)
                jax.jit(lambda a: a)(x, x)
    """)


def test_a_jit_whose_call_binds_is_reported():
    """The negative twin: the same calls with every argument given trace a new wrapper each time."""
    assert_tiers("""
        import jax
        import jax.numpy as jnp


        class Forward:
            def calc(self, x, coszen, cos_i, geom=None):
                return x * coszen + cos_i

            def invert(self, x, coszen, cos_i):
                return jax.jit(self.calc)(jnp.array(x), coszen, cos_i)  # STG502


        def run(xs):
            fwd = Forward()
            for x in xs:
                fwd.invert(x, 1.0, 2.0)
            for x in xs:
                g = jax.jit(lambda a, w: a @ w)  # STG502
                g(x, x)
                jax.jit(lambda a: a)(x)  # STG502
    """)


def test_a_new_jit_per_iteration_of_new_shapes_is_no_finding():
    """Each iteration passes (or closes over) an array whose shape the loop's variables make new on
    every iteration: a new program each time, which one jit made before the loop compiles as often
    (tests/runtime/test_jax_twelfth_audit_facts.py)."""
    assert_tiers("""
        import jax
        import jax.numpy as jnp
        import numpy as onp


        def run_benchmarks():
            test_shapes = [("small", 256, 256), ("medium", 512, 512), ("large", 1024, 1024)]
            for label, m, k in test_shapes:
                @jax.jit
                def model(x, w):
                    return jax.nn.relu(jnp.matmul(x, w))

                x = jnp.ones((m, k), dtype=jnp.float32)
                w = jnp.ones((k, m))
                model(x, w).block_until_ready()
                fast = jax.jit(model, backend="cpu")
                for _ in range(10):
                    fast(x, w)


        for step in range(100):
            num = int(10**7 / 100 * (step + 1) / 8)
            args = onp.zeros([num, 3])
            args = jnp.asarray(args)

            def func(var):
                return jnp.sum(jnp.sin(var[0] - args[:, 0]))

            grad = jax.jit(jax.jacrev(func))
            for j in range(10):
                var = jnp.array([0.001 * j, 0.002 * j, 0.003 * j])
                grad(var)


        def closes_over(xs):
            for size in [256, 512, 1024]:
                w = jnp.ones((size, size))
                g = jax.jit(lambda v: v + jnp.sum(w))
                g(xs)
    """)


def test_a_new_jit_per_iteration_whose_shapes_repeat_is_reported():
    """The negative twins: sizes that repeat (256 twice), a shape the loop does not change, a call
    that passes no array of a new shape, a size whose integer division collapses iterations."""
    assert_tiers("""
        import jax
        import jax.numpy as jnp


        def run(n):
            for size in [256, 256, 512]:
                @jax.jit  # STG502
                def model(x):
                    return x * 2

                model(jnp.ones((size, size)))
            for size in [256, 512]:
                f = jax.jit(lambda v: v + 1)  # STG502
                f(jnp.ones((n, n)))
                f(jnp.ones((n, n)))
            for step in range(10):
                rows = step // 4
                g = jax.jit(lambda v: v + 1)  # STG502
                g(jnp.zeros((rows, 3)))
    """)
