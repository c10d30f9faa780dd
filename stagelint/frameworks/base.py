"""What a framework is, for the analysis: the questions asked of one ("does this qualified name
stage a function?", "does this call return a tensor?"), answered from the data of its module
(`stagelint.frameworks.tensorflow`, `.jax`, and the JAX libraries' `.flax`, `.equinox`,
`.haiku`, `.optax`).

Names are fully qualified, as libcst's QualifiedNameProvider reports them after import aliases
are undone: `import tensorflow as tf; tf.function` is `tensorflow.function`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property


@dataclass(frozen=True)
class Framework:
    name: str
    #: Root packages: a qualified name under one of these belongs to the framework.
    roots: tuple[str, ...]
    #: Decorators / wrapper calls that stage a Python function into a graph.
    staging_decorators: frozenset[str]
    #: Wrappers whose function runs eagerly on every call, even from staged code.
    eager_escapes: frozenset[str]
    #: Context managers whose body runs outside the graph, once per trace (tf.init_scope).
    lifting_scopes: frozenset[str]
    #: Base classes whose `staged_methods` the framework traces for you (Keras).
    layer_base_prefixes: tuple[str, ...]
    layer_base_names: frozenset[str]
    staged_methods: frozenset[str]
    #: Calls that create variables (first call only under staging).
    variable_constructors: frozenset[str]
    #: Method names that create variables whatever the receiver (`self.add_weight`).
    variable_creating_methods: frozenset[str]
    #: Qualified-name prefixes of classes whose construction creates variables (Keras layers...).
    variable_owner_prefixes: tuple[str, ...]
    #: Calls under the roots that do not return a tensor (configuration, scopes, containers).
    non_tensor_calls: frozenset[str]
    non_tensor_prefixes: tuple[str, ...]
    #: Tensor attributes that are Python values, not tensors.
    non_tensor_attributes: frozenset[str]
    #: The variable type, for "is this global a variable?" checks.
    variable_types: frozenset[str] = field(default_factory=frozenset)
    #: Its rules and facts are left out of files it cannot stage anything in (`absent_from`).
    optional: bool = False
    #: A staged program leaves out an op whose result is unused, and with it the error the op
    #: raises at run time where eager code runs it (TensorFlow's graphs are non-strict); JAX's jit
    #: drops such an op as well, but no JAX op raises at run time, so nothing observable is lost
    #: (`pruned_when_unused`).
    prunes_unused_ops: bool = False
    #: Layer classes (last part) that own no variables, and those that own none only under the
    #: `weightless_only_under` roots (Keras 2's random layers).
    weightless_layers: frozenset[str] = field(default_factory=frozenset)
    weightless_only_under: tuple[tuple[str, ...], frozenset[str]] = ((), frozenset())
    #: Layer classes (last part) that own no variables only with some constructor arguments:
    #: keyword -> (the literal values that make none, whether leaving it out makes none).
    weightless_with: dict[str, dict[str, tuple[tuple[str, ...], bool]]] = field(default_factory=dict)
    #: Names (last part) under `variable_owner_prefixes` spelled like classes that are functions
    #: returning a symbolic tensor and making no variable (`keras.layers.Input`).
    symbolic_constructors: frozenset[str] = field(default_factory=frozenset)
    #: Names (last part) under `variable_owner_prefixes` spelled like classes that are plain
    #: functions making no variable and no tensor of their own (`tf.keras.metrics.MSE` is the loss
    #: function `mean_squared_error`).
    class_spelled_functions: frozenset[str] = field(default_factory=frozenset)
    #: Prefixes under `non_tensor_prefixes` whose calls do return one tensor (`keras.ops.`), but
    #: for the names (last part) in `tensor_prefix_exceptions` (`shape`, `dtype`, `split`, ...).
    tensor_prefixes: tuple[str, ...] = ()
    tensor_prefix_exceptions: frozenset[str] = field(default_factory=frozenset)

    def owns(self, qualified_name: str) -> bool:
        # Asked tens of thousands of times a file: one C-level test each, not a loop over the roots.
        roots, prefixes = self._root_tests
        return qualified_name in roots or qualified_name.startswith(prefixes)

    @cached_property
    def _root_tests(self) -> tuple[frozenset[str], tuple[str, ...]]:
        return frozenset(self.roots), tuple(r + "." for r in self.roots)

    def is_layer_base(self, qualified_name: str) -> bool:
        if not qualified_name.startswith(self.layer_base_prefixes):
            return False
        last = qualified_name.rsplit(".", 1)[-1]
        return last in self.layer_base_names or ".layers." in qualified_name

    def is_layer_class_name(self, qualified_name: str) -> bool:
        """A layer or model class of the framework (`keras.layers.Dense`, `tf.keras.Sequential`),
        not one of its functions (`keras.layers.concatenate`): a layer base named as classes are."""
        return self.is_layer_base(qualified_name) and qualified_name.rsplit(".", 1)[-1][:1].isupper()

    def creates_variables(self, qualified_name: str) -> bool:
        if qualified_name in self.variable_constructors:
            return True
        if qualified_name.startswith(self.variable_owner_prefixes):
            # Classes (CamelCase) under keras.layers/models/metrics/optimizers; not functions
            # such as keras.layers.concatenate or keras.metrics.mean_squared_error, nor the
            # functions spelled like classes that make a symbolic tensor (`Input`).
            last = qualified_name.rsplit(".", 1)[-1]
            return last[:1].isupper() and last not in self.symbolic_constructors \
                and last not in self.class_spelled_functions
        return False

    def public_variable_owner(self, qualified_name: str) -> bool:
        """`creates_variables` through the framework's public API (`keras.layers.Dense`: one name
        after a `variable_owner_prefixes` entry). A deeper path (`tf_keras.layers.rnn.legacy_cells.
        LSTMStateTuple`) names a module of the framework's own code, where namedtuples, lookup
        tables and helpers sit beside layers: owning variables is then a guess from the package."""
        if not self.creates_variables(qualified_name):
            return False
        if qualified_name in self.variable_constructors:
            return True
        prefix = next(p for p in self.variable_owner_prefixes if qualified_name.startswith(p))
        return "." not in qualified_name[len(prefix):]

    def creates_no_variables(self, qualified_name: str, keywords: dict[str, str] | None = None) -> bool:
        """A Keras layer class that owns no variables (`Add`, `Activation`, `Reshape`, pooling):
        constructing one in staged code is harmless. `Dropout` and the other random layers own a
        seed-generator variable in Keras 3, and none in Keras 2 (`tf_keras`). A class that owns
        none only with some arguments (`Attention()`, not `Attention(use_scale=True)`:
        `weightless_with`) counts when `keywords`, the construction's keyword arguments by name
        (the code of each value; None when it passes any other way), show them."""
        if not qualified_name.startswith(self.variable_owner_prefixes):
            return False
        last = qualified_name.rsplit(".", 1)[-1]
        if last in self.weightless_layers:
            return True
        needs = self.weightless_with.get(last)
        if needs is not None and keywords is not None and all(
                keywords[k] in values if k in keywords else absent_ok for k, (values, absent_ok) in needs.items()):
            return True
        roots, names = self.weightless_only_under
        return last in names and qualified_name.startswith(roots)

    def returns_tensor(self, qualified_name: str) -> bool:
        """A call under the framework's roots returns a tensor unless listed as not doing so.
        Asked of the same few hundred names again and again: answered once per name."""
        memo = self._returns_tensor_memo
        known = memo.get(qualified_name)
        if known is None:
            known = memo[qualified_name] = self._returns_tensor(qualified_name)
        return known

    @cached_property
    def _returns_tensor_memo(self) -> dict[str, bool]:
        return {}

    def _returns_tensor(self, qualified_name: str) -> bool:
        if not self.owns(qualified_name):
            return False
        for name in (qualified_name, canonical_tf_name(qualified_name)):  # `tf.compat.v2.*` too
            if name in self.non_tensor_calls:
                return False
            if name.startswith(self.non_tensor_prefixes) and not (
                    self.tensor_prefixes and name.startswith(self.tensor_prefixes)
                    and name.rsplit(".", 1)[-1] not in self.tensor_prefix_exceptions):
                return False
        last = qualified_name.rsplit(".", 1)[-1]
        # Classes (tf.TensorSpec, tf.GradientTape, tf.keras.layers.Dense) build objects, not tensors.
        return not last[:1].isupper()


def canonical_tf_name(qualified_name: str) -> str:
    """`tensorflow.compat.v1.print` / `tensorflow.compat.v2.print` -> `tensorflow.print`, so the
    data above needs one spelling of each op."""
    for prefix in ("tensorflow.compat.v1.", "tensorflow.compat.v2."):
        if qualified_name.startswith(prefix):
            return "tensorflow." + qualified_name[len(prefix):]
    return qualified_name


def combined(*frameworks: Framework) -> Framework:
    """One view of several frameworks, for the per-file walk: a file may import both, and which
    one stages a function is decided per function (`stagelint.analysis.jaxstaging`). Layer classes stay
    TensorFlow's (the first)."""
    first = frameworks[0]
    return Framework(
        name="+".join(f.name for f in frameworks),
        roots=tuple(r for f in frameworks for r in f.roots),
        staging_decorators=frozenset().union(*(f.staging_decorators for f in frameworks)),
        eager_escapes=frozenset().union(*(f.eager_escapes for f in frameworks)),
        lifting_scopes=frozenset().union(*(f.lifting_scopes for f in frameworks)),
        layer_base_prefixes=first.layer_base_prefixes,
        layer_base_names=first.layer_base_names,
        staged_methods=first.staged_methods,
        variable_constructors=frozenset().union(*(f.variable_constructors for f in frameworks)),
        variable_creating_methods=first.variable_creating_methods,
        variable_owner_prefixes=first.variable_owner_prefixes,
        non_tensor_calls=frozenset().union(*(f.non_tensor_calls for f in frameworks)),
        non_tensor_prefixes=tuple(p for f in frameworks for p in f.non_tensor_prefixes),
        non_tensor_attributes=frozenset().union(*(f.non_tensor_attributes for f in frameworks)),
        variable_types=first.variable_types,
        weightless_layers=first.weightless_layers,
        weightless_only_under=first.weightless_only_under,
        weightless_with=first.weightless_with,
        symbolic_constructors=first.symbolic_constructors,
        class_spelled_functions=first.class_spelled_functions,
        tensor_prefixes=tuple(p for f in frameworks for p in f.tensor_prefixes),
        tensor_prefix_exceptions=frozenset().union(*(f.tensor_prefix_exceptions for f in frameworks)),
    )
