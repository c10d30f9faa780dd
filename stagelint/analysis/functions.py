"""Function identity (issue 23, class 2): is the function object an expression evaluates to the
same object each time the expression runs, or a new one?

Staging APIs key their trace caches on the function they wrap (`frameworks.TRACE_CACHE`), so
what a wrapper made again costs depends on the wrapped object:

* NEW: a new object that compares unequal to the last one: a lambda, `functools.partial(...)`,
  a nested `def` run again, what `jax.vmap(f)` / `jax.grad(f)` return, `hk.transform(f).apply`,
  a factory's nested function. Every function-keyed cache misses on it.
* BOUND: a bound method (`self.update`, `model.loss`): made anew on every attribute access,
  but equal to the last one of the same object and function (`a.m == a.m`, same hash).
* SAME: the very object of the last time: a module-level function, an imported one, a module's
  function read through its dotted module (`jax.lax.collapse`, `jnp.linalg.norm`, `mod.sub.f`:
  one trace for three `jax.jit(jax.lax.collapse, static_argnums=(1, 2))` made anew), a name bound
  once before the loop that wraps it, a field holding a function (`self.fn` set in `__init__`),
  a function a Haiku/optax NamedTuple holds.

Anything else is unknown (`None`), and a rule stays silent on it. A bound method of an object
whose class the file does not show is only likely (`proof.HEURISTIC`: the attribute may be a
field holding a function).
"""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst
from libcst.metadata import ClassScope, GlobalScope

from stagelint.analysis.proof import HEURISTIC, TRUE
from stagelint.analysis.context import short_code
from stagelint.analysis.dependence import name_loads
from stagelint.analysis.literals import literal_value
from stagelint.analysis.tensors import same_file_function, tensorness, value_of
from stagelint.analysis.values import python_option_param
from stagelint.frameworks import (FUNCTION_HOLDERS, JAX_ARRAY_ELEMENTS, JAX_GRAD, JAX_JIT, JAX_LENGTH_ARGUMENTS,
                                  JAX_PYTHON_ARGUMENTS, JAX_SHAPE_METHODS, JAX_TRACE, MEMOIZING_DECORATORS,
                                  NEW_IDENTITY_KEYED_CONSTRUCTORS, NEW_KERAS_MODEL_FUNCTIONS, PARTIAL_CALLS, SHAPED_CONSTRUCTORS, TENSORFLOW,
                                  is_keras_state_class)

NEW, BOUND, SAME = "new", "bound", "same"

#: Transformations that return a new function on every call (observed for `jax.vmap`:
#: tests/runtime/test_function_identity.py; the others are built the same way, by `wraps`).
_NEW_FUNCTION_MAKERS = JAX_TRACE | JAX_GRAD


@dataclass(frozen=True)
class Identity:
    kind: str  # NEW, BOUND or SAME
    #: what the object is, for messages and proofs ("`self.update` is a bound method, ...")
    phrase: str
    certainty: str = TRUE
    #: for BOUND: (the class's qualified name in the module, the method), checked against the
    #: module's attribute writes once the walk is done (`bound_method_shadowed`)
    method: tuple[str, str] | None = None


def identity(ctx, expr: cst.BaseExpression, loop: cst.CSTNode | None,
             new_factories: set[str] = frozenset()) -> Identity | None:
    """What `expr`, evaluated at each run of the current function (each iteration of `loop`,
    when given), gives as a function object. `new_factories`: relative qualnames of this
    module's functions that return a new nested function or lambda on every call."""
    code = short_code(expr, 50)
    if isinstance(expr, cst.Lambda):
        return Identity(NEW, "the lambda is a new function each time this line runs")
    if isinstance(expr, cst.Call):
        names = ctx.qualified_names(expr.func)
        if names & PARTIAL_CALLS:
            return Identity(NEW, f"`{code}` makes a new `functools.partial` object each time, equal to no other")
        made_by = ctx.resolves_to(expr.func, _NEW_FUNCTION_MAKERS)
        if made_by is not None:
            return Identity(NEW, f"`{code}` returns a new function each time it runs")
        if any(ctx.relative(q) in new_factories for q in names):
            return Identity(NEW, f"`{code}` returns a new nested function each time it is called")
        return None
    if isinstance(expr, cst.Name):
        return _name_identity(ctx, expr, loop, code)
    if isinstance(expr, cst.Attribute):
        return _attribute_identity(ctx, expr, loop, code)
    return None


def _before(ctx, nodes, loop) -> bool:
    start = ctx.position(loop).line
    return all(n is not None and ctx.position(n).end_line < start for n in nodes)


def _name_identity(ctx, name: cst.Name, loop, code: str) -> Identity | None:
    kind = ctx.binding_kind(name, ctx.function)
    nodes = [getattr(b, "node", None) for b in ctx.bindings_of(name)]
    if kind in ("local", "param") and loop is None:
        # what reaches this line (`fn = wrap(fn)`, then `def fn(*a, inner=fn)`, then `jax.jit(fn)`)
        nodes = [getattr(b, "node", None) for b in ctx.reaching(name, ctx.function) or ()] or nodes
    if not nodes:
        return None
    if kind == "import":
        return Identity(SAME, f"`{code}` is an imported function, the same object every time")
    if kind == "global":
        if all(isinstance(n, cst.FunctionDef) for n in nodes):
            return Identity(SAME, f"`{code}` is a module-level function, the same object every time")
        if len(nodes) == 1 and (loop is None or ctx.function is not None or _before(ctx, nodes, loop)):
            return Identity(SAME, f"`{code}` is bound once, at module level: the same object every time")
        return None
    if kind in ("local", "param"):
        if loop is not None and _before(ctx, nodes, loop):
            return Identity(SAME, f"`{code}` is bound before the loop: the same object on every iteration")
        if all(isinstance(n, cst.FunctionDef) for n in nodes):
            return Identity(NEW, f"`{code}` is a nested def, a new function each time "
                                 f"`{ctx.function.facts.name}` runs" if loop is None else
                            f"`{code}` is a nested def made on every iteration: a new function each time")
        return None
    return None


def _attribute_identity(ctx, attr: cst.Attribute, loop, code: str) -> Identity | None:
    receiver, name = attr.value, attr.attr.value
    func = ctx.function
    if isinstance(receiver, cst.Call):
        names = ctx.qualified_names(receiver.func)
        if _holds_functions(names, name):
            return Identity(NEW, f"`{short_code(receiver, 40)}` makes new functions each time it runs, "
                                 f"so `{code}` is a new one")
        return None
    if isinstance(receiver, cst.Attribute):
        if _module_function(ctx, attr) is not None:
            return Identity(SAME, f"`{code}` is a module's function, the same object every time")
        return None
    if not isinstance(receiver, cst.Name):
        return None
    kind = ctx.binding_kind(receiver, func)
    nodes = [getattr(b, "node", None) for b in ctx.bindings_of(receiver)]
    if kind == "import" and nodes and all(isinstance(n, (cst.Import, cst.ImportFrom)) for n in nodes):
        return Identity(SAME, f"`{code}` is a module's function, the same object every time")
    values = [ctx.bound_values.get(id(n)) for n in nodes]
    if nodes and all(isinstance(v, cst.Call) and _holds_functions(ctx.qualified_names(v.func), name) for v in values):
        return Identity(SAME, f"`{code}` is a plain function the `{receiver.value}` NamedTuple holds, "
                              f"the same object every time")
    if kind == "self" and func is not None and func.facts.class_qualname:
        cls = ctx.relative(func.facts.class_qualname)
        if f"{cls}.{name}" in ctx.facts.functions:
            return Identity(BOUND, f"`{code}` is a bound method, a new object on every access",
                            method=(func.facts.class_qualname, name))
        return None  # a field (`self.fn = fn`) or an inherited method: `bound_method_shadowed` cannot tell
    if kind in ("local", "global") and len(values) == 1 and isinstance(values[0], cst.Call):
        made = {ctx.relative(q) for q in ctx.qualified_names(values[0].func)}
        for cls in made:
            if cls in {ctx.relative(c) for c in ctx.facts.classes} and f"{cls}.{name}" in ctx.facts.functions:
                absolute = next(c for c in ctx.facts.classes if ctx.relative(c) == cls)
                return Identity(BOUND, f"`{code}` is a bound method of a `{cls.rsplit('.', 1)[-1]}`, "
                                       f"a new object on every access", method=(absolute, name))
        return None
    if kind == "param" and not isinstance(attr.value, cst.Attribute):
        # `jax.jit(model.loss)` with `model` a parameter: a method, most likely, but a field
        # holding a function is the same object every time
        return Identity(BOUND, f"`{code}` is, most likely, a bound method: a new object on every access",
                        certainty=HEURISTIC)
    return None


def _module_function(ctx, attr: cst.Attribute) -> str | None:
    """The qualified name of the function `attr` reads through a dotted module receiver
    (`jax.lax.collapse`, `jnp.linalg.norm`, `pkg.mod.f` after `import pkg.mod`), or None. A module's
    attribute is the same object on every read; an object's attribute (`mod.model.apply`, a bound
    method) need not be, so the receiver must be known to be a module: one of the framework's (or
    a class of it), or a module the file imports by that dotted name."""
    node = attr.value
    while isinstance(node, cst.Attribute):
        node = node.value
    if not isinstance(node, cst.Name):
        return None
    names = ctx.qualified_names(attr)
    if len(names) != 1:
        return None
    (q,) = names
    receiver = q.rsplit(".", 1)[0]
    if ctx.framework.owns(receiver) or receiver in _imported_modules(ctx):
        return q
    return None


def _imported_modules(ctx) -> frozenset[str]:
    """The dotted module names the file's module-level `import` statements bind (`import
    pkg.mod`: `pkg` and `pkg.mod`; `import jax.numpy as jnp`: `jax.numpy`)."""
    memo = ctx.memo.get("imported_modules")
    if memo is None:
        out = set()
        for stmt in getattr(ctx.module_node, "body", ()):
            for small in getattr(stmt, "body", ()) if isinstance(stmt, cst.SimpleStatementLine) else ():
                if isinstance(small, cst.Import):
                    for alias in small.names:
                        parts = _alias_name(alias).split(".")
                        out.update(".".join(parts[:i + 1]) for i in range(len(parts)))
        memo = ctx.memo["imported_modules"] = frozenset(out)
    return memo


def _alias_name(alias: cst.ImportAlias) -> str:
    """The dotted module name an `import` alias imports (`import jax.numpy as jnp`: `jax.numpy`)."""
    node, parts = alias.name, []
    while isinstance(node, cst.Attribute):
        parts.append(node.attr.value)
        node = node.value
    parts.append(node.value)
    return ".".join(reversed(parts))


def _holds_functions(factories: set[str], attribute: str) -> bool:
    """The result of a call of one of `factories` holds `attribute` as a plain function
    (`frameworks.FUNCTION_HOLDERS`)."""
    for name, attributes in FUNCTION_HOLDERS.items():
        if any(q == name or (name.endswith(".") and q.startswith(name)) for q in factories):
            if not attributes or attribute in attributes:
                return True
    return False


# Which object a call passes, and which of the caller's parameters a wrapped function is built
# over: a trace repeats only when the same program is traced again (issue 23, class 2).

def function_object(ctx, expr: cst.BaseExpression, func, loops=()) -> str:
    """Which function object `expr`, an argument at a call site in `func` inside `loops`, is, for
    "do two calls pass the same object?" (`facts.ArgFacts.function`):

    * "same:<qualified name>": the same object every time the call runs: a module-level
      function, an imported one, a module's function through its dotted module, a name bound
      once at module level; also, within one run of `func`, a parameter or local name it binds
      once, outside the loops around the call ("same:<func>.<name>@<line>");
    * "new": a new object each time: a lambda, a `functools.partial(...)`, a bound method of an
      object made right there (`Model().train`);
    * "attr:<code>": an attribute read (`self.model.train`): the same object on every read while
      nothing sets it again, most likely (a bound method is a new object, but equal, and traces
      the same program);
    * "": unknown (a parameter, a local name, anything else)."""
    if isinstance(expr, cst.Lambda):
        return "new"
    if isinstance(expr, cst.Call):
        return "new" if ctx.qualified_names(expr.func) & PARTIAL_CALLS else ""
    if isinstance(expr, cst.Name):
        kind = ctx.binding_kind(expr, func)
        nodes = [getattr(b, "node", None) for b in ctx.bindings_of(expr)]
        names = ctx.qualified_names(expr)
        if len(names) != 1 or not nodes:
            return ""
        if kind == "import" or (kind == "global" and len(nodes) == 1):
            return "same:" + next(iter(names))
        if kind in ("local", "param") and func is not None and len(nodes) == 1 and nodes[0] is not None \
                and not any(ctx.inside(nodes[0], loop) for loop in loops):
            return f"same:{ctx.module}.{func.qualname}.{expr.value}@{ctx.position(nodes[0]).line}"
        return ""
    if isinstance(expr, cst.Attribute):
        q = _module_function(ctx, expr)
        if q is not None:
            return "same:" + q
        receiver = expr.value
        while isinstance(receiver, cst.Attribute):
            receiver = receiver.value
        if isinstance(receiver, cst.Call):
            return "new" if isinstance(expr.value, cst.Call) else ""
        if isinstance(receiver, cst.Name):
            if ctx.binding_kind(receiver, func) == "import":
                names = ctx.qualified_names(expr)
                return "same:" + next(iter(names)) if len(names) == 1 and expr.value is receiver else ""
            return "attr:" + short_code(expr, 80)
    return ""



def closure_names(ctx, nodes, given=()) -> list[str]:
    """The names the function made from `nodes` (a lambda, a nested def, a staging call's first
    argument: `jax.vmap(f)`, `functools.partial(f, n=n)`) reads from the functions around it:
    everything but its own parameters and locals, builtins, and module-level names (imports,
    module functions and globals). A nested def of the enclosing function it names is read
    through: its own closure counts. Empty: every function made there is the same program, so
    JAX traces each anew for nothing (its trace cache is keyed on the function object,
    tests/runtime/test_jax_certain_steps_facts.py); otherwise each may be another program (a
    model, a configuration, another function passed in), which no cache could reuse. `given`:
    names the caller knows to be the same each time (a parameter passed the same function), and
    so are the names bound only from them and module-level names (`name = fn.__name__`)."""
    out: list[str] = []
    for name, _ in _closure_reads(ctx, nodes, given):
        if name.value not in out:
            out.append(name.value)
    return out


def _closure_reads(ctx, nodes, given=(), keep=None):
    """(Name, binding) of each read `closure_names` counts, in the walk's order; `keep(binding)`:
    a binding counted whatever its scope (a module-level loop's variable)."""
    roots = list(nodes)
    given = set(given)

    def from_given(binding) -> bool:
        # (a module-level loop's own names are module-level names that the loop binds anew: not
        # the same on each iteration, `model = Model(L, g)` for `g` of a module-level `for`)
        value = ctx.bound_values.get(id(binding.node))
        return value is not None and all(
            n.value in given or all(isinstance(r.scope, GlobalScope) and not (keep is not None and keep(r))
                                    for r in ctx.bindings_of(n))
            for n in name_loads(value))

    stack = list(roots)
    while stack:
        node = stack.pop()
        if isinstance(node, cst.Name):
            for r in ctx.bindings_of(node):
                if any(ctx.inside(r.node, root) for root in roots):
                    continue
                if keep is not None and keep(r):
                    # (a loop's own variable varies whatever its `for` reads; a name the body binds
                    # from module-level names only is the same on each iteration)
                    if not isinstance(ctx.bound_values.get(id(r.node)), cst.For) and from_given(r):
                        continue
                elif isinstance(r.scope, GlobalScope) or node.value in given or from_given(r):
                    continue
                if isinstance(r.node, cst.FunctionDef) and not isinstance(r.scope, ClassScope):
                    roots.append(r.node)  # a nested def of the enclosing function: read its closure
                    stack.append(r.node)
                else:
                    yield node, r
            continue
        if isinstance(node, cst.Attribute):
            stack.append(node.value)  # (`x.shape`: `shape` is no binding)
            continue
        if isinstance(node, cst.Arg):
            stack.append(node.value)  # (`f(n=1)`: `n` is no binding)
            continue
        stack.extend(child for child in node.children if isinstance(child, cst.CSTNode))


def configuration_per_iteration(ctx, nodes, loop: cst.CSTNode, func) -> list[str]:
    """The values a function made in `loop` from `nodes` (a lambda, a nested def, a staging
    call's first argument) bakes into its trace that the loop binds anew on each iteration: what
    its body, its defaults, the arguments a `functools.partial` binds and a nested def's closure
    read (`closure_names`' walk) from a name assigned in the loop or its target, unless the value
    is known to be an array. JAX keys a trace on the function object and on the Python values the
    function holds (`frameworks.JAX_TRACE_KEY`): an array closed over is a constant of the same
    program when its shape repeats (a batch: the new function traces that program again for
    nothing), but a Python value there (`block_tokens=bt` of a tuner's candidate, a module's
    graph definition per benchmark case, a shape) is the program's configuration: another value
    is another program, traced and compiled with one function object too. Which it is, and
    whether the values repeat, the code does not show."""
    out: list[str] = []

    def in_loop(r) -> bool:
        return getattr(r, "node", None) is not None and ctx.inside(r.node, loop)

    for name, r in _closure_reads(ctx, nodes, keep=in_loop):
        node = getattr(r, "node", None)
        if node is None or name.value in out or not ctx.inside(node, loop):
            continue
        bound = ctx.bound_values.get(id(node))
        if isinstance(bound, cst.For) and bound.target is node:
            bound = bound.iter  # the loop's element: an array when it runs over an array or batches
            if value_of(ctx, bound, func).what in JAX_ARRAY_ELEMENTS:
                continue
        if isinstance(bound, cst.BaseExpression) and tensorness(ctx, bound, func).definite:
            continue  # an array: a constant of the same program when its shape repeats
        out.append(name.value)
    return out


#: What `value_of` names a Python value: a number, a string, a NumPy array. A function TensorFlow
#: traces bakes such a value it closes over into its graph as a constant (tf-behaviour.md row c):
#: another value needs another graph, and a Function made once keeps the first.
PYTHON_VALUES = frozenset({"int", "float", "complex", "bool", "str", "ndarray"})


def python_values_held(ctx, nodes, func) -> list[str]:
    """The names the function made from `nodes` inside `func` reads of `func`'s own run
    (`closure_names`' walk) that every binding there makes a Python value (`PYTHON_VALUES`):
    `end = batch * (len(video) // batch)` then `@tf.function def slice_driving(x): return x[0:end]`.
    Each run of `func` bakes its own value into the new function's graph, which then needs a
    trace of its own whenever the value differs; a function made once outside would keep the
    first value (a stale closure), and one taking it as a Python argument traces once per value
    (tests/runtime/test_tf_pooled_facts.py). A parameter, a name bound by unpacking a value as a
    whole or by a loop is not known to be one."""
    if func is None:
        return []
    own = ctx.scope(func.node.body)
    out: list[str] = []
    for name, r in _closure_reads(ctx, nodes):
        if name.value in out or own is None or r.scope is not own:
            continue
        if _every_binding(ctx, own, name.value, lambda v: _python_value(ctx, v, func)):
            out.append(name.value)
    return out


def _every_binding(ctx, own, name: str, holds) -> bool:
    """`name` has bindings in the scope `own`, each an assignment of a whole value (not unpacked
    from one) of which `holds(value)` is true."""
    bindings = list(own.assignments[name])
    values = [ctx.bound_values.get(id(getattr(b, "node", None))) for b in bindings]
    return bool(bindings) and all(isinstance(v, cst.BaseExpression) and id(b.node) not in ctx.unpacked_names
                                  and holds(v) for b, v in zip(bindings, values))


def _python_value(ctx, expr, func, depth: int = 0) -> bool:
    """`expr` is a Python value (`PYTHON_VALUES`), or arithmetic of such values and of the
    function's parameters with a literal default (`batch * (len(video) // batch)` with
    `batch=4`): a Python value as the function's defaults and callers are written."""
    if value_of(ctx, expr, func).what in PYTHON_VALUES:
        return True
    if depth > 8:
        return False
    if isinstance(expr, cst.BinaryOperation):
        return _python_value(ctx, expr.left, func, depth + 1) and _python_value(ctx, expr.right, func, depth + 1)
    if isinstance(expr, cst.UnaryOperation):
        return _python_value(ctx, expr.expression, func, depth + 1)
    return python_option_param(ctx, func, expr)


def identity_keyed_objects_held(ctx, nodes, func) -> list[str]:
    """The names the function made from `nodes` inside `func` reads of `func`'s own run
    (`closure_names`' walk) that every binding there makes a new object a tf.function keys by
    identity: a `tf.random.Generator` (`NEW_IDENTITY_KEYED_CONSTRUCTORS`) or a Keras layer or model
    (`new_keras_object`). `g = tf.random.Generator.from_seed(seed)` then `@tf.function def draw():
    return g.uniform(...)`: each run's Function traces another generator, which no Function made
    once could close over, and one made once taking the generator as an argument traces once per
    generator as well (4 generators, 4 traces: tests/runtime/test_tf_eighteenth_audit_bq_facts.py).
    The new Function per run costs no trace that could be saved. A `tf.Variable` is not one: a
    Function keys it by shape and dtype, so one taking it traces once."""
    own = ctx.scope(func.node.body) if func is not None else None
    if own is None:
        return []
    out: list[str] = []
    # (every name the function reads, not `closure_names`' walk: that one counts a name bound from
    # module-level names only as the same on each run, which a new object made of them is not)
    for name in (n for node in nodes for n in name_loads(node, lambdas=True)):
        if name.value in out or not any(r.scope is own for r in ctx.bindings_of(name)):
            continue
        if _every_binding(ctx, own, name.value,
                          lambda v: isinstance(v, cst.Call) and _new_identity_keyed(ctx, v, func)):
            out.append(name.value)
    return out


def _new_identity_keyed(ctx, call: cst.Call, func) -> bool:
    """`call` makes a new object a tf.function keys by identity each time it runs."""
    return bool(ctx.qualified_names(call.func) & NEW_IDENTITY_KEYED_CONSTRUCTORS) or new_keras_object(ctx, call, func)


def new_keras_object_each_iteration(ctx, node, loop, func) -> bool:
    """The binding `node`, made in the body of `loop`, holds a Keras layer or model made anew on
    every iteration (`_new_keras_object`: `model = build_model()`, `Sequential()`, `LeNet()` of a
    Keras class, `strip_pruning(model)`). A tf.function keys a Keras object argument by identity
    (a tf.Variable by its shape and dtype): one Function made before the loop and called with each
    iteration's new model traces once per iteration as well (3 rounds, 3 traces; the same model
    every round, 1: tests/runtime/test_tf_thirteenth_audit_facts.py). This is TensorFlow's form of
    the fact JAX's new shapes give (`varying_shapes.new_shape_each_iteration`): two iterations
    could not share one trace whatever the function object. So it is for a Function made on each
    iteration around such a model, or a lambda or def over it (`model = build_model()`, then
    `tf.function(model)`): each iteration's Function traces another model, which no Function made
    once could wrap, and one taking the model as an argument traces once per model as well (3
    models, 3 traces either way: tests/runtime/test_tf_fifteenth_audit_be_facts.py)."""
    if node is None or not isinstance(loop, cst.For) or not ctx.inside(node, loop.body) \
            or id(node) in ctx.unpacked_names:
        return False
    return _new_keras_object(ctx, ctx.bound_values.get(id(node)), func, 0)


def new_keras_object(ctx, expr, func) -> bool:
    """`expr` makes a new Keras layer or model object each time it runs (`_new_keras_object`):
    `tf.function(Model())` in a loop wraps another model on every iteration
    (`new_keras_object_each_iteration`'s fact)."""
    return _new_keras_object(ctx, expr, func, 0)


def _new_keras_object(ctx, expr, func, depth: int) -> bool:
    """`expr` makes a new Keras layer or model object each time it runs: a Keras layer or model
    class called (`keras.Sequential()`, a class of this file deriving from one), a call of
    `NEW_KERAS_MODEL_FUNCTIONS`, or of a function of this file every `return` of which returns one
    (a name whose every binding reaching the return is one). A Keras optimizer or metric class
    called (`tf.optimizers.Adam()`, `tf.keras.metrics.Mean()`: `frameworks.is_keras_state_class`)
    counts as well: a tf.function keys it by identity as it does a model, and a Function made once
    could not make a new optimizer's variables on a later trace."""
    if depth > 4:
        return False
    if isinstance(expr, cst.Name) and func is not None:
        refs = ctx.reaching(expr, func) or ()
        values = [ctx.bound_values.get(id(getattr(r, "node", None))) for r in refs]
        return bool(values) and all(_new_keras_object(ctx, v, func, depth + 1) for v in values)
    if not isinstance(expr, cst.Call):
        return False
    names = ctx.qualified_names(expr.func)
    if names & NEW_KERAS_MODEL_FUNCTIONS or any(TENSORFLOW.is_layer_class_name(q) or is_keras_state_class(q)
                                                for q in names):
        return True
    if not isinstance(expr.func, cst.Name):
        return False
    nodes = [getattr(b, "node", None) for b in ctx.bindings_of(expr.func)]
    if len(nodes) != 1:
        return False
    if isinstance(nodes[0], cst.ClassDef):
        return _keras_class(ctx, nodes[0], depth + 1)
    info = same_file_function(ctx, expr.func, None)
    if info is None or info.facts.is_generator or info.facts.class_qualname:
        return False
    return bool(info.returns) and all(v is not None and _new_keras_object(ctx, v, info, depth + 1)
                                      for v in info.returns)


def _keras_class(ctx, node: cst.ClassDef, depth: int) -> bool:
    """A class of this file deriving, through classes of this file, from a Keras layer or model class."""
    if depth > 4:
        return False
    for base in node.bases:
        if any(TENSORFLOW.is_layer_class_name(q) for q in ctx.qualified_names(base.value)):
            return True
        if isinstance(base.value, cst.Name):
            nodes = [getattr(b, "node", None) for b in ctx.bindings_of(base.value)]
            if len(nodes) == 1 and isinstance(nodes[0], cst.ClassDef) and _keras_class(ctx, nodes[0], depth + 1):
                return True
    return False


def new_value_each_iteration(ctx, name: str, loop) -> bool:
    """`name` is the variable of `loop`, a `for` over `range(...)` or over a literal list or
    tuple of different scalar literals (`literals.literal_value`: numbers, strings, `True`,
    `False`, `None`), that nothing else in its scope binds: every iteration binds another value.
    Held where the program needs a Python value (`held_uses`' "python": `if flag:` for `flag` in
    `(True, False)`), each iteration is another trace key, and one jitted function taking the value
    as a static argument would trace as often (JAX keys a trace on the static values:
    `frameworks.JAX_TRACE_KEY`; tests/runtime/test_jax_held_horizon_facts.py). Values Python
    takes as equal (`1` and `True`, `1` and `1.0`) count as a repeat."""
    if not isinstance(loop, cst.For) or not isinstance(loop.target, cst.Name) or loop.target.value != name:
        return False
    scope = ctx.scope(loop.target)
    if scope is None or len(scope.assignments[name]) != 1:
        return False
    it = loop.iter
    if isinstance(it, cst.Call):
        return "builtins.range" in ctx.qualified_names(it.func)
    if not isinstance(it, (cst.List, cst.Tuple)) or not it.elements:
        return False
    values = []
    for el in it.elements:
        known, value = literal_value(el.value) if isinstance(el, cst.Element) else (False, None)
        if not known:
            return False
        values.append(value)
    return len(set(values)) == len(values)


#: What passes its arguments on to the function it is given: `jax.grad(f)(w, x)` calls `f(w, x)`.
_PASSING_ON = JAX_GRAD | JAX_TRACE | JAX_JIT


def held_uses(ctx, nodes, names) -> dict[str, list]:
    """How the function made from `nodes` uses each of `names` it holds (`configuration_per_iteration`):
    per read, "operand" (of arithmetic or a comparison: a traced value computes the same), or
    ["arg", the qualified names of the function it is passed to, the parameter's position ("#0",
    "#1", ...) or keyword] for an argument of a call (through `functools.partial(f, ...)` and a JAX
    transformation called at once, `jax.grad(f)(w, x)`), whose parameter's use the project phase
    reads; "python" for a read inside an argument where the program needs a Python value (a
    shape, `range`'s bounds, `lax.scan`'s length, a Python `if`/`while` test:
    `frameworks.JAX_PYTHON_ARGUMENTS`); "other" for anything else (a method's argument, a library
    call). A nested def
    the function names (`jax.jit(loss)`, `jax.value_and_grad(loss)`) is read through, as
    `closure_names` reads it: its body and defaults are what the function holds; a default that
    hands a held value on under its own name (`def loss(x, n=n)`) is no use of it, the body's
    reads of the parameter are."""
    out: dict[str, list] = {n: [] for n in names}
    stack: list[tuple] = [(n, None, None, False) for n in nodes]
    seen: set[int] = set()
    while stack:
        node, parent, grand, python = stack.pop()
        if isinstance(node, cst.Name) and node.value in out:
            out[node.value].append("python" if python else _held_use(ctx, node, parent, grand))
            continue
        if isinstance(node, (cst.If, cst.While, cst.IfExp)):
            stack.append((node.test, node, parent, True))  # decided in Python while tracing
            stack.extend((c, node, parent, python) for c in node.children
                         if isinstance(c, cst.CSTNode) and c is not node.test)
            continue
        if isinstance(node, cst.Call):
            needs = _python_arguments(ctx, node)
            stack.append((node.func, node, parent, python))
            stack.extend((a, node, parent, python or id(a) in needs) for a in node.args)
            continue
        if isinstance(node, cst.Name):
            for r in ctx.bindings_of(node):
                d = getattr(r, "node", None)
                if isinstance(d, cst.FunctionDef) and id(d) not in seen and d.name is not node \
                        and not isinstance(r.scope, (GlobalScope, ClassScope)):
                    seen.add(id(d))  # a nested def of the enclosing function: what it holds
                    stack.append((d, None, None, False))
            continue
        if isinstance(node, cst.FunctionDef):
            children = [*node.decorators, node.params, node.body]  # (its own name is no read)
        elif isinstance(node, cst.Attribute):
            children = [node.value]  # (`x.block`: `block` is no read)
        elif isinstance(node, cst.Arg):
            children = [node.value]  # (`f(block=b)`: the keyword is no read)
        elif isinstance(node, cst.Param):
            default = node.default
            if isinstance(default, cst.Name) and default.value == node.name.value and default.value in out:
                default = None  # `n=n`: handed on under its own name; the body's reads are its uses
            children = [c for c in (default, node.annotation) if c is not None]
        else:
            children = [c for c in node.children if isinstance(c, cst.CSTNode)]
        stack.extend((child, node, parent, python) for child in children)
    return out


def _python_arguments(ctx, call: cst.Call) -> set[int]:
    """The ids of `call`'s arguments where a JAX program needs a Python value: a shape
    (`frameworks.SHAPED_CONSTRUCTORS`, `JAX_LENGTH_ARGUMENTS`, an array's `reshape`), `range`'s
    bounds, `lax.scan`'s length (`frameworks.JAX_PYTHON_ARGUMENTS`)."""
    if isinstance(call.func, cst.Attribute) and call.func.attr.value in JAX_SHAPE_METHODS:
        return {id(a) for a in call.args}
    slots: list[tuple] = []
    for q in ctx.qualified_names(call.func):
        if q in SHAPED_CONSTRUCTORS:
            position, keyword = SHAPED_CONSTRUCTORS[q]
            slots.append((keyword, position))
        slots.extend(JAX_LENGTH_ARGUMENTS.get(q, ()))
        slots.extend(JAX_PYTHON_ARGUMENTS.get(q, ()))
    if not slots:
        return set()
    positional = [a for a in call.args if a.keyword is None and not a.star]
    out = set()
    for keyword, position in slots:
        for a in call.args:
            if keyword and a.keyword is not None and a.keyword.value == keyword:
                out.add(id(a))
        if position is not None and position < len(positional):
            out.add(id(positional[position]))
    return out


def _held_use(ctx, name, parent, grand):
    if isinstance(parent, (cst.BinaryOperation, cst.UnaryOperation, cst.Comparison, cst.ComparisonTarget)):
        return "operand"
    if not (isinstance(parent, cst.Arg) and isinstance(grand, cst.Call)) or parent.star:
        return "other"
    call, callee, shift = grand, grand.func, 0
    if ctx.qualified_names(callee) & PARTIAL_CALLS and call.args and call.args[0] is not parent:
        callee, shift = call.args[0].value, 1  # `partial(f, n=n)`: `n` is f's
    while isinstance(callee, cst.Call) and callee.args and ctx.qualified_names(callee.func) & _PASSING_ON:
        callee = callee.args[0].value  # `jax.grad(f)(w, x)`: `x` is f's
    names = ctx.qualified_names(callee) if isinstance(callee, (cst.Name, cst.Attribute)) else set()
    if not names:
        return "other"
    if parent.keyword is not None:
        slot = parent.keyword.value
    else:
        positional = [a for a in call.args if a.keyword is None and not a.star]
        slot = f"#{next(i for i, a in enumerate(positional) if a is parent) - shift}"  # (no line to move)
    return ["arg", sorted(names), slot]


def calls_over(ctx, node: cst.CSTNode, scope) -> list[str]:
    """The parameters of `scope` whose function objects `node`, a def or lambda nested in it,
    calls: directly (`fn(x)`), through a default (`def g(*a, inner=fn): inner(*a)`) or through a
    local wrapper of the parameter (`fn = wrap(fn)` first). Each object passed there is another
    program to trace: a new trace of `node` repeats an earlier one only when the same object is
    passed again."""
    if scope is None:
        return []
    params = set(scope.facts.params) - {scope.self_name}
    defaults = {p.name.value: p.default for p in _all_params(node.params) if p.default is not None}
    own = {p.name.value for p in _all_params(node.params)}
    out: set[str] = set()
    stack = [node.body]
    while stack:
        n = stack.pop()
        if isinstance(n, cst.Call) and isinstance(n.func, cst.Name):
            name = n.func.value
            if name in defaults:
                out |= _params_in(ctx, defaults[name], scope, params)
            elif name not in own:
                out |= _params_in(ctx, n.func, scope, params)
        stack.extend(n.children)
    return sorted(out)


def _all_params(params: cst.Parameters):
    star = [params.star_arg] if isinstance(params.star_arg, cst.Param) else []
    kwarg = [params.star_kwarg] if params.star_kwarg is not None else []
    return [*params.posonly_params, *params.params, *star, *params.kwonly_params, *kwarg]


def _params_in(ctx, expr, scope, params: set[str], depth: int = 0) -> set[str]:
    """The parameters of `scope` a name in it holds, directly or wrapped by a call
    (`fn = nj.pure(fn)`)."""
    if not isinstance(expr, cst.Name) or depth > 3:
        return set()
    own = {id(p) for p in _all_params(scope.node.params)}
    out = set()
    for b in ctx.bindings_of(expr):
        node = getattr(b, "node", None)
        if isinstance(node, cst.Param):
            if id(node) in own and expr.value in params:
                out.add(expr.value)
            continue
        value = ctx.bound_values.get(id(node))
        if isinstance(value, cst.Call):
            for arg in value.args:
                out |= _params_in(ctx, arg.value, scope, params, depth + 1)
    return out


def bound_method_shadowed(ctx, ident: Identity) -> bool:
    """The module sets an attribute of the method's name on objects of its class (`self.update =
    jax.jit(self.update)`, `self.g = self.g`): the attribute read may be that object."""
    if ident.kind != BOUND or ident.method is None:
        return False
    owner, name = ident.method
    return any(w.attr == name and w.owner in (owner, "") for w in ctx.facts.attr_writes)


def memoized(ctx, func) -> str | None:
    """The memoizing decorator (`frameworks.MEMOIZING_DECORATORS`: `functools.lru_cache`,
    `functools.cache`) on the def of `func` (a walk record), if any: its body runs once per
    distinct argument tuple, and a later call with equal arguments returns what that run did."""
    node = getattr(func, "node", None)
    for d in getattr(node, "decorators", ()):
        expr = d.decorator.func if isinstance(d.decorator, cst.Call) else d.decorator
        api = ctx.resolves_to(expr, MEMOIZING_DECORATORS)
        if api is not None:
            return api
    return None


def returns_new_function(ctx, node: cst.Return) -> bool:
    """`return inner` / `return lambda ...` in the current function, `inner` a nested def of it:
    each call returns a new function."""
    value = node.value
    if isinstance(value, cst.Lambda):
        return True
    if not isinstance(value, cst.Name) or ctx.function is None:
        return False
    nodes = [getattr(b, "node", None) for b in ctx.bindings_of(value)]
    return bool(nodes) and ctx.binding_kind(value, ctx.function) == "local" and \
        all(isinstance(n, cst.FunctionDef) for n in nodes)


def bound_per_iteration(ctx, exprs, loop: cst.CSTNode) -> list[str]:
    """The names read in `exprs` (what a wrapper is made of: the function expression, the
    staging call's options, a factory's arguments) that `loop`, a loop or comprehension, binds
    on each iteration: its target or a name assigned in its body, or a name bound before it whose
    item or attribute its body assigns from the iteration (`changed_per_iteration`). A wrapper made
    of them may be another program on each iteration (`env = make(game); jax.jit(jax.vmap(env.init))`,
    a jit per layer with that layer's `out_shardings`), under TensorFlow too: a Function's traces
    are its own and keyed by its arguments, so a Function made anew each iteration costs a trace
    one made before the loop would save only where it wraps the same callable every iteration;
    around what a call of the iteration's values gives (`tf.function(self.create_G_model(res))`
    for each resolution: another model each time, whose trace no Function made once could share,
    3 models, 3 traces either way: tests/runtime/test_tf_fifteenth_audit_be_facts.py) the new
    Function costs nothing, unless the call gives the same object again, which is not shown (a
    guess). Lambda bodies are not read: what a lambda
    closes over is a value its trace bakes in, the same program when that value has the same
    structure; so are the arguments a `functools.partial` binds and a nested def's closure
    (`for i in ...: def slice_ith(x): ...` then `jax.jit(slice_ith)`): whether such a value is a
    constant of one program or the program's configuration is `configuration_per_iteration`'s and
    `held_uses`' question."""
    def closure(call: cst.Call):  # the arguments a partial binds are its closure
        return call.args[0].value if call.args and ctx.qualified_names(call.func) & PARTIAL_CALLS else None

    out: list[str] = []
    changed: set[str] | None = None
    for expr in exprs:
        for n in name_loads(expr, closure):
            if n.value in out:
                continue
            if any(node is not None and not isinstance(node, cst.FunctionDef) and ctx.inside(node, loop)
                   for b in ctx.bindings_of(n) for node in [getattr(b, "node", None)]):
                out.append(n.value)
                continue
            if changed is None:
                changed = changed_per_iteration(ctx, loop)
            if n.value in changed:
                out.append(n.value)
    return out


def changed_per_iteration(ctx, loop: cst.CSTNode) -> set[str]:
    """The names bound outside `loop` whose item or attribute its body assigns from what the
    iteration binds (`for k, v in overrides.items(): config[k] = v`, `cfg.lr = lr`): the object
    is another configuration on each iteration, as a name the loop rebinds is, so a wrapper made
    of it (`jax.jit(make_train(config))`) may be another program each time. An assignment of
    values the iteration does not bind (`config["seen"] = True`) leaves it the same."""
    if not isinstance(loop, (cst.For, cst.While)):
        return set()

    def per_iteration(expr) -> bool:
        return any(ctx.inside(node, loop) for n in name_loads(expr) for b in ctx.bindings_of(n)
                   for node in [getattr(b, "node", None)] if node is not None)

    out: set[str] = set()
    stack: list[cst.CSTNode] = [loop.body]
    while stack:
        node = stack.pop()
        if isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
            continue  # (runs when called, not per iteration)
        if isinstance(node, (cst.Assign, cst.AugAssign, cst.AnnAssign)):
            targets = [t.target for t in node.targets] if isinstance(node, cst.Assign) else [node.target]
            for target in targets:
                if isinstance(target, (cst.Subscript, cst.Attribute)) and isinstance(target.value, cst.Name) \
                        and node.value is not None and (per_iteration(node.value) or (
                            isinstance(target, cst.Subscript) and per_iteration(target.slice[0]))):
                    out.add(target.value.value)
            continue
        stack.extend(child for child in node.children if isinstance(child, cst.CSTNode))
    return out


def binding_error(params: cst.Parameters, call: cst.Call, bound: bool) -> str:
    """Why `call` cannot bind its arguments to `params` (a def's or a lambda's), or "" when it can or
    the call does not show (a `*` / `**` spread). `bound`: the first parameter is filled by the
    object of a bound method (`jax.jit(self.calc_meas)(x, c)`). Python raises TypeError at the call,
    before the body runs: a jitted function's call binds first, so nothing is traced and nothing
    compiled (JAX 0.10.2: `jax.jit(f)(x)` of `def f(x, g)` raises "missing a required argument"
    without a trace; tests/runtime/test_jax_twelfth_audit_facts.py)."""
    if any(a.star for a in call.args):
        return ""
    positional = [*params.posonly_params, *params.params]
    if bound:
        if not positional:
            return ""
        positional = positional[1:]
    posonly = {p.name.value for p in params.posonly_params}
    given = sum(1 for a in call.args if a.keyword is None)
    keywords = [a.keyword.value for a in call.args if a.keyword is not None]
    if given > len(positional) and not isinstance(params.star_arg, cst.Param):
        return f"it takes {len(positional)} positional arguments but {given} are given"
    filled = {p.name.value for p in positional[:given]}
    by_keyword = {p.name.value for p in (*positional, *params.kwonly_params)} - posonly
    for k in keywords:
        if k in filled:
            return f"`{k}` is given twice"
        if k not in by_keyword and params.star_kwarg is None:
            return f"it takes no argument `{k}`"
    missing = [p.name.value for p in (*positional[given:], *params.kwonly_params)
               if p.default is None and (p.name.value not in keywords or p.name.value in posonly)]
    if missing:
        return "`" + "`, `".join(missing) + "` " + ("is" if len(missing) == 1 else "are") + " not given"
    return ""


def held_in_loop(ctx, nodes, loop) -> list[tuple[str, list]]:
    """The names a function made from `nodes` in `loop` (a lambda, a nested def, a staging call's
    first argument) reads that the loop's body binds, with those bindings (the assignment targets
    in the body): what the function holds that each iteration may bind anew. A nested def of the
    loop it names (`jax.jacrev(func)`) is read through, its body being what the function runs."""
    roots = list(nodes)
    out: dict[str, list] = {}
    for made in roots:  # (a nested def found is read in turn)
        for node in name_loads(made, lambdas=True):
            for r in ctx.bindings_of(node):
                bound = getattr(r, "node", None)
                if bound is None or any(ctx.inside(bound, root) for root in roots) \
                        or not ctx.inside(bound, loop.body):
                    continue
                if isinstance(bound, cst.FunctionDef) and not isinstance(r.scope, ClassScope):
                    roots.append(bound)  # (not inside a root: not one yet)
                elif bound not in out.setdefault(node.value, []):
                    out[node.value].append(bound)
    return list(out.items())


def module_def_reached(ctx, call: cst.Call, func, in_loop: bool) -> tuple[int, bool] | None:
    """The `def` a module-level call of a name runs, where the file shows it: the call is made by
    module-level code outside any loop, every binding of the name is a statement of the module's
    own body (a `def`, or an assignment `f = ...`: a notebook's or a guide's `f` redefined cell
    after cell), and the last one above the call is a `def`. Module code runs top to bottom and
    each statement binds the name when it runs, so the call runs that `def` (the walk keeps its
    facts under `name@line` when a later `def` takes the name, `FileContext._redefining`).
    (the line of that def's name, whether no later `def` takes the name), or None."""
    if func is not None or in_loop or not isinstance(call.func, cst.Name) or ctx.module_node is None:
        return None
    reached = ctx.bindings_of(call.func)
    scope = getattr(reached[0], "scope", None) if reached else None
    if scope is None or not isinstance(scope, GlobalScope):
        return None
    body = ctx.module_node.body
    defs = {id(st) for st in body if isinstance(st, cst.FunctionDef)}
    assigned = {id(t.target) for st in body if isinstance(st, cst.SimpleStatementLine)
                for small in st.body if isinstance(small, cst.Assign) for t in small.targets}
    bindings = []
    for b in scope.assignments[call.func.value]:
        node = getattr(b, "node", None)
        if isinstance(node, cst.FunctionDef) and id(node) in defs:
            bindings.append((ctx.position(node.name).line, True))
        elif isinstance(node, cst.Name) and id(node) in assigned:
            bindings.append((ctx.position(node).line, False))
        else:
            return None  # bound in a branch, a loop, a function (`global f`), an import: not shown
    at = ctx.position(call).line
    above = sorted(b for b in bindings if b[0] < at)
    if not above or not above[-1][1]:
        return None
    line = above[-1][0]
    return line, not any(is_def and other > line for other, is_def in bindings)
