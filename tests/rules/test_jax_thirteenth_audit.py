"""The thirteenth JAX audit's false classes (AV and AU, fix-from after their reading), each a
framework fact with its negative twin: `lax.cond` / `lax.switch` return the pytree their branches
return (a branch returning its operand returns the operand's structure), and `lax.scan`'s carry
has its `init`'s structure; a jit built only when a lookup of the key it is stored under misses
is made once per key, not per call."""

from __future__ import annotations

from rulecases import assert_tiers


def test_a_loop_over_the_list_a_cond_or_switch_returns_is_no_unrolling():
    """`lax.cond(pred, lambda x: x, lambda x: lax.stop_gradient(x), self.layers)`: the identity
    branch returns its operand, the list of layers, and so does the whole cond (every branch
    returns one structure); `lax.switch` of a def returning its parameter; a scan's carry from a
    list `init` (tests/runtime/test_jax_output_structure.py); each loop below is reported at db298d8."""
    assert_tiers("""
        import equinox as eqx
        import jax
        import jax.numpy as jnp


        def ident(x):
            return x


        def step(c):
            return c


        class MLP(eqx.Module):
            layers: list
            trainable: jax.Array

            def __init__(self, sizes):
                self.layers = [jnp.ones((a, b)) for a, b in zip(sizes, sizes[1:])]
                self.trainable = jnp.array(True)

            @jax.jit
            def __call__(self, x):
                layers = jax.lax.cond(
                    self.trainable, lambda x: x, lambda x: jax.lax.stop_gradient(x), self.layers
                )
                for layer in layers[:-1]:
                    x = jax.nn.relu(x @ layer)
                return x


        @jax.jit
        def apply(x, flag):
            layers = [jnp.ones((2, 2)), jnp.ones((2, 2))]
            chosen = jax.lax.switch(flag, [ident, jax.lax.stop_gradient], layers)
            for layer in chosen:
                x = x @ layer
            carry, _ = jax.lax.scan(lambda c, t: (step(c), t), layers, jnp.arange(3))
            for layer in carry:
                x = x @ layer
            return x
    """)


def test_a_loop_over_the_array_a_cond_returns_is_reported():
    """The negative twin: the identity branch's operand is an array, so the cond gives an array
    whose rows the loop unrolls; a branch returning another argument than the one it is handed is
    not taken for it; a scan's carry from an array `init` is an array."""
    assert_tiers("""
        import jax
        import jax.numpy as jnp


        @jax.jit
        def apply(x, w):
            rows = jax.lax.cond(x.sum() > 0, lambda a: a, lambda a: -a, w)
            for row in rows:  # STG503
                x = x + row
            carry, _ = jax.lax.scan(lambda c, t: (c, t), w, jnp.arange(3))
            for row in carry:  # STG503
                x = x + row
            return x
    """)


def test_a_jit_made_only_on_a_memo_miss_is_made_once_per_key():
    """`fn = cache.get(sharding)`, `if fn is None:` the jit is made and stored under that key, or
    `if key not in cache: cache[key] = ...` with the jit bound first: one jit object per key, every
    later call with that key reuses its trace; a factory under `functools.lru_cache` returns one
    jitted function per argument key (tests/runtime/test_jax_thirteenth_audit_facts.py). Each is
    reported at db298d8 (`scaled`'s with --preview)."""
    assert_tiers("""
        import functools

        import jax


        def reshard_tree(tree, sharding_for):
            cache = {}

            def leaf(x):
                sharding = sharding_for(x.shape)
                fn = cache.get(sharding)
                if fn is None:
                    fn = jax.jit(lambda a: a, out_shardings=sharding)
                    cache[sharding] = fn
                return fn(x)

            leaves, treedef = jax.tree.flatten(tree)
            out = []
            for x in leaves:
                out.append(leaf(x))
            return jax.tree.unflatten(treedef, out)


        _STEPS = {}


        def scaled(x, k):
            if k not in _STEPS:
                step = jax.jit(lambda a: a * k)
                _STEPS[k] = step
                return step(x)
            return _STEPS[k](x)


        @functools.lru_cache(maxsize=None)
        def make(n):
            @jax.jit
            def step(a):
                return a + n
            return step


        def run(xs):
            return [make(3)(x) for x in xs] + [scaled(x, 2) for x in xs]
    """)


def test_a_jit_made_where_no_memo_of_its_key_guards_it_is_reported():
    """The negative twins: a look-up whose miss stores nothing under the key (the jit is made
    on every miss, and every call misses), a store under another key than the one looked up, a
    loop inside the memo's test (one jit per iteration of that run), and a factory without a
    memoizing decorator."""
    assert_tiers("""
        import jax


        def reshard(x, sharding, cache):
            fn = cache.get(sharding)
            if fn is None:
                fn = jax.jit(lambda a: a, out_shardings=sharding)  # STG502
            return fn(x)


        _FNS = {}


        def reshard_other(x, sharding, other):
            fn = _FNS.get(sharding)
            if fn is None:
                fn = jax.jit(lambda a: a, out_shardings=sharding)  # STG502
                _FNS[other] = fn
            return fn(x)


        def warm(xs, k):
            if k not in _FNS:
                for x in xs:
                    step = jax.jit(lambda a: a * x)  # STG502
                    step(x)
                _FNS[k] = True


        def make(n):
            @jax.jit  # STG502
            def step(a):
                return a + n
            return step


        def run(xs, sharding, cache):
            for x in xs:
                reshard(x, sharding, cache)
                reshard_other(x, sharding, None)
            return [make(3)(x) for x in xs]
    """)


def test_a_module_level_loop_variable_is_no_module_level_constant():
    """A script's `for g in g_list:` binds `g`, a module-level name, anew on each iteration, so
    `model = TFIModel(L, J, g)` is another object each iteration, not one made of module-level
    names only: the jit made per iteration holds it, each iteration's configuration, whose
    traces one jitted function would repeat too when it is part of the program (the held
    configuration step, a guess: preview). Reported at db298d8 by default."""
    assert_tiers("""
        import jax
        import jax.numpy as jnp


        class Model:
            def __init__(self, g):
                self.g = g

            def energy(self, psi):
                return jnp.sum(psi) * self.g


        psi = jnp.ones(4)
        for g in [0.5, 1.0, 1.5]:
            model = Model(g)

            @jax.jit  # preview STG502
            def loss(p):
                return model.energy(p)

            for step in range(100):
                psi = psi - 0.1 * loss(psi)
    """)


def test_a_jit_per_iteration_holding_only_module_constants_is_reported():
    """The negative twin: the model is made of module-level names the loop does not bind, the
    same configuration each iteration, so the jit per iteration only retraces one program."""
    assert_tiers("""
        import jax
        import jax.numpy as jnp


        class Model:
            def __init__(self, g):
                self.g = g

            def energy(self, psi):
                return jnp.sum(psi) * self.g


        G = 0.5
        psi = jnp.ones(4)
        for g in [0.5, 1.0, 1.5]:
            model = Model(G)

            @jax.jit  # STG502
            def loss(p):
                return model.energy(p)

            for step in range(100):
                psi = psi - 0.1 * loss(psi)
    """)


def test_a_jit_per_iteration_holding_what_a_slice_of_a_new_length_gives_is_a_guess():
    """jaxpint's sweep over the number of sources: `cw = injectors[:M]` for `M` in `[1, 2, 5, M_MAX]`
    (a name bound once to a number counts), then `gp, cfg = build(data, cw)` held by the jitted
    function made per iteration: a value made of another number of items may be another structure,
    another program one jitted function would trace too (tests/runtime/test_jax_thirteenth_audit_facts.py),
    but whether `build` keeps the structure is not shown: preview. Reported at db298d8 by default."""
    assert_tiers("""
        import jax
        import jax.numpy as jnp

        from lib import build, loglike

        M_MAX = 100
        M_SWEEP = [1, 2, 5, M_MAX]
        injectors = list(range(M_MAX))
        data = jnp.ones(8)
        out = []
        for M in M_SWEEP:
            cw = injectors[:M]
            gp, cfg = build(data, cw)

            @jax.jit
            def fisher(px, _gp=gp, _cfg=cfg):
                return loglike(_gp, px, _cfg)

            out.append(jax.jit(jax.grad(jax.grad(fisher)))(jnp.float32(1.0)))  # preview STG502
    """)


def test_a_jit_per_iteration_holding_slices_of_one_length_is_reported():
    """The negative twins: windows of one length (`injectors[i:i + 4]`) and a sweep whose lengths
    repeat (`[2, 2, 5]`): iterations that may share one program, so the new jit is a retrace."""
    assert_tiers("""
        import jax
        import jax.numpy as jnp

        from lib import build, loglike

        injectors = list(range(100))
        data = jnp.ones(8)
        out = []
        for i in range(3):
            cw = injectors[i:i + 4]
            gp, cfg = build(data, cw)

            @jax.jit
            def fisher(px, _gp=gp, _cfg=cfg):
                return loglike(_gp, px, _cfg)

            out.append(jax.jit(jax.grad(jax.grad(fisher)))(jnp.float32(1.0)))  # STG502
        for M in [2, 2, 5]:
            cw = injectors[:M]
            gp, cfg = build(data, cw)

            @jax.jit
            def fisher2(px, _gp=gp, _cfg=cfg):
                return loglike(_gp, px, _cfg)

            out.append(jax.jit(jax.grad(jax.grad(fisher2)))(jnp.float32(1.0)))  # STG502
    """)
