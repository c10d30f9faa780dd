"""The eighteenth JAX audit's BO preview classes as facts, each with its positive test and its
negative twin (issue 23). Behaviour checked with JAX 0.10.2 in
tests/runtime/test_jax_eighteenth_audit_bo_facts.py."""

from __future__ import annotations

from rulecases import assert_marked, assert_tiers, findings


def test_fields_a_flatten_loop_puts_in_its_aux_dict_are_python_values_children_are_traced():
    """BO-P1, gyaradax's `GKParams.tree_flatten`: a loop over `vars(self).items()` puts the fields
    the class names in `_STATIC_FIELDS` (arrays excepted) in the aux dict, the
    others in the children: `int(params.mode)` works under jit, `float(params.dt)` raises; a
    local set from a static field (or from an array's `.ndim` when `params is None`) is a Python
    value in an `if`, one set from a child is not (a guess there: the preview tier)."""
    assert_tiers("""
        import dataclasses
        import jax
        import jax.numpy as jnp

        @jax.tree_util.register_pytree_node_class
        @dataclasses.dataclass(frozen=True)
        class Params:
            dt: float = 0.1
            mode: int = 0
            adiabatic: bool = True
            _STATIC_FIELDS = ("mode", "adiabatic")

            def tree_flatten(self):
                d = vars(self)
                aux = {}
                leaves = []
                leaf_keys = []
                for k, v in d.items():
                    if k.startswith("_"):
                        continue
                    if k in self._STATIC_FIELDS and not hasattr(v, "shape"):
                        aux[k] = v
                    else:
                        leaves.append(v)
                        leaf_keys.append(k)
                aux["_leaf_keys"] = tuple(leaf_keys)
                return leaves, aux

            @classmethod
            def tree_unflatten(cls, aux, leaves):
                kwargs = {k: v for k, v in aux.items() if k != "_leaf_keys"}
                kwargs.update(zip(aux["_leaf_keys"], leaves))
                return cls(**kwargs)

        @jax.jit
        def step(x, params: Params):
            mode = int(params.mode)
            adiabatic = params.adiabatic if params is not None else (x.ndim == 5)
            if adiabatic:
                x = x + 1
            coarse = params.dt if params is not None else 0.1
            if coarse:  # preview STG602
                x = x - 1
            return x * float(params.dt) * mode  # STG601
    """)


def test_a_flatten_loop_whose_filter_is_not_read_leaves_its_fields_unknown():
    """The twin: a loop that fills the aux dict under a test the model does not read (which names
    `k.endswith("_static")` lets in is not shown) leaves every field unknown: `int(params.mode)`
    stays an attribute of a traced argument (reported)."""
    assert_marked("""
        import dataclasses
        import jax

        @jax.tree_util.register_pytree_node_class
        @dataclasses.dataclass(frozen=True)
        class Params:
            dt: float = 0.1
            mode: int = 0

            def tree_flatten(self):
                aux, leaves = {}, []
                for k, v in vars(self).items():
                    if k.endswith("_static"):
                        aux[k] = v
                    else:
                        leaves.append(v)
                return leaves, aux

            @classmethod
            def tree_unflatten(cls, aux, leaves):
                return cls(*leaves, **aux)

        @jax.jit
        def step(x, params: Params):
            return x * int(params.mode)  # STG601
    """)


def test_a_conversion_in_a_try_whose_handler_catches_type_error_cannot_fail_the_trace():
    """BO-P2, gyaradax's `_static_float`: `try: return float(jnp.asarray(v)) except Exception:
    return v` under jit: ConcretizationTypeError is a TypeError, caught, the trace goes on. The
    twin: `except ValueError` lets it through."""
    assert_marked("""
        import jax
        import jax.numpy as jnp

        def _static_float(v):
            if isinstance(v, (int, float)):
                return float(v)
            try:
                return float(jnp.asarray(v))
            except Exception:
                return v

        def _checked_float(v):
            try:
                return float(jnp.asarray(v))  # STG601
            except ValueError:
                return v

        @jax.jit
        def step(x, scale):
            return x * _static_float(scale) * _checked_float(scale)
    """)


def test_shapes_from_jax_s_own_solver_helper_compare_in_python():
    """BO-P4, fea-in-jax-msg's copy of `_isolve`: `if _shapes(x0) != _shapes(b):` with JAX's own
    `jax._src.scipy.sparse.linalg._shapes` (a list of shape tuples); the twin compares arrays."""
    assert_marked("""
        import jax
        import jax.numpy as jnp
        from jax._src.scipy.sparse.linalg import _shapes

        @jax.jit
        def solve(x0, b):
            if _shapes(x0) != _shapes(b):
                raise ValueError("shapes differ")
            if jnp.sum(x0) != jnp.sum(b):  # STG602
                x0 = b
            return x0
    """)


STOP_GRADIENT_RANGE = """
        import jax
        import jax.numpy as jnp
        from jax import lax

        def forward(matrix, obs):
            n = lax.stop_gradient(matrix.shape[0])
            acts = jnp.zeros(matrix.shape[0]).at[:2].set(obs)
            for i in range(2, n):  # STG602
                acts = acts.at[i].set(jnp.dot(acts, matrix[:, i]))
            for i in range(2, matrix.shape[0]):  # STG503
                acts = acts.at[i].set(jnp.dot(acts, matrix[:, i]))
            return acts

        batched = jax.jit(jax.vmap(forward))
        out = batched(jnp.ones((3, 5, 5)), jnp.ones((3, 2)))
"""


def test_range_of_stop_gradient_of_a_shape_item_is_a_known_tracer():
    """neuroevolution_volleyball's `range(n, lax.stop_gradient(matrix.shape[0]))` under
    `jax.jit(jax.vmap(...))`: `stop_gradient` binds a primitive, a tracer even of a Python int
    (TracerIntegerConversionError); every step of the proof is known (no guess in it: it waits
    only on STG602's own per-framework tier). The twin: `range(matrix.shape[0])`, a Python int."""
    assert_marked(STOP_GRADIENT_RANGE)
    (finding,) = findings(STOP_GRADIENT_RANGE, "STG602")
    assert any("every op returns a tracer, even on constants" in step.message for step in finding.because)
    assert not any("guess" in step.message for step in finding.because)


def test_numpy_of_stop_gradient_under_grad_alone_is_concrete():
    """BO-P3's fact: under `jax.grad` alone `lax.stop_gradient(x)` is the primal, a concrete array,
    so `np.asarray` of it works; the twins under `jax.vmap` and under `jax.jit` raise."""
    assert_marked("""
        import jax
        import jax.numpy as jnp
        import numpy as np

        def loss(x):
            a = np.asarray(jax.lax.stop_gradient(x))
            return jnp.sum(x * a)

        def per_row(x):
            a = np.asarray(jax.lax.stop_gradient(x))  # STG601
            return jnp.sum(x * a)

        @jax.jit
        def jitted(x):
            return x * float(jax.lax.stop_gradient(jnp.sum(x)))  # STG601

        g = jax.grad(loss)(jnp.ones(3))
        v = jax.vmap(per_row)(jnp.ones((2, 3)))
    """)


_NEVER_RUNS = """
    import dataclasses
    import jax

    @jax.tree_util.register_pytree_node_class
    @dataclasses.dataclass(frozen=True)
    class Params:
        dt: float = 0.1
        mode: int = 0
        _STATIC_FIELDS = ("mode",)

        def tree_flatten(self):
            aux, leaves = {}, []
            for k, v in vars(self).items():
                if k in self._STATIC_FIELDS:
                    aux[k] = v
                else:
                    leaves.append(v)
            UPDATE
            return leaves, aux

        @classmethod
        def tree_unflatten(cls, aux, leaves):
            return cls(*leaves, **aux)

    @jax.jit
    def step(x, params: Params):
        return x * int(params.mode)MARK
"""


def test_a_flatten_loop_s_aux_dict_is_read_from_the_code_the_walk_goes_through():
    """The flatten's stores, calls and returns are the ones the one walk recorded as it went
    through the method (`FunctionInfo.stores`, `.calls`, `.returns`: `flatten_loops`,
    `pytrees._returns`), read as the walk leaves the class; the walk never enters code Python
    never runs (`walk.never_runs`): an `aux.update(...)` under `if False:` does not change the aux
    dict, `mode` stays static (`int(params.mode)` silent). Twin: the same update where it runs
    leaves the aux dict not followed, every field unknown (reported)."""
    assert_marked(_NEVER_RUNS.replace("UPDATE", "if False:\n                aux.update(extra=1)")
                  .replace("MARK", ""))
    assert_marked(_NEVER_RUNS.replace("UPDATE", "if self.dt:\n                aux.update(extra=1)")
                  .replace("MARK", "  # STG601"))
