"""JAX, as data: which APIs stage (trace) a function and how, which rebuild their arguments,
which callees run as Python, which calls return Python values.

Observed with jax 0.10.2 (../shared/spec/jax-behaviour.md: the numbered rows of "Pitfall ->
observed" and "Facts the model must know"; tests/runtime/test_jax_*.py run the real framework).
The libraries' own data is in `flax`, `equinox`, `haiku` and `optax`.
"""

from __future__ import annotations

from stagelint.frameworks.base import Framework

# JAX (issue 14) -------------------------------------------------------------------------------
#
# Observed with jax 0.10.2, flax 0.12.8, equinox 0.13.8 (../shared/spec/jax-behaviour.md). JAX has
# no AutoGraph: every Python `if` on a traced value fails. How a function is staged decides which
# pitfalls exist, so each staging API has a *mode*:
#   "jit"   compiled and cached: its Python runs once per trace (all families);
#   "trace" traced on every use, not cached (vmap, checkpoint, bodies of lax control flow): Python
#           control flow on tracers fails, tracers leak, a loop body's Python runs once;
#   "grad"  differentiated on concrete values: Python control flow works (row 15), tracers leak.

#: Staging APIs taking the function first, as decorator or call, by mode.
JAX_JIT = frozenset({
    "jax.jit", "jax.pmap", "jax.experimental.pjit.pjit", "jax.pjit", "flax.nnx.jit", "flax.linen.jit",
    "equinox.filter_jit", "equinox.filter_pmap",
})
JAX_TRACE = frozenset({
    "jax.vmap", "jax.checkpoint", "jax.remat", "jax.ad_checkpoint.checkpoint", "jax.eval_shape",
    "jax.make_jaxpr", "jax.experimental.shard_map.shard_map", "jax.shard_map", "flax.nnx.vmap",
    "flax.nnx.remat", "flax.nnx.pmap", "flax.nnx.shard_map", "equinox.filter_vmap",
    "equinox.filter_checkpoint", "equinox.filter_eval_shape", "equinox.filter_make_jaxpr",
})
JAX_GRAD = frozenset({
    "jax.grad", "jax.value_and_grad", "jax.jacfwd", "jax.jacrev", "jax.hessian", "jax.jvp", "jax.vjp",
    "jax.linearize", "flax.nnx.grad", "flax.nnx.value_and_grad", "equinox.filter_grad",
    "equinox.filter_value_and_grad", "equinox.filter_jvp", "equinox.filter_vjp",
})

#: The staging APIs that run the function they are given at once, in the call itself
#: (`jax.jvp(f, primals, tangents)`, `jax.eval_shape(f, x)`). Every other API of JAX_JIT,
#: JAX_TRACE and JAX_GRAD returns a wrapper and runs nothing: the function is traced only when
#: the wrapper is called, so a wrapper no code calls traces nothing (`jaxstaging.mark_uncalled`;
#: observed with jax 0.10.2: tests/runtime/test_jax_fresh_facts.py).
JAX_RUNS_AT_ONCE = frozenset({
    "jax.eval_shape", "jax.jvp", "jax.vjp", "jax.linearize", "equinox.filter_eval_shape",
    "equinox.filter_jvp", "equinox.filter_vjp",
})

#: Transformations that make tracers only of the values computed from the arguments they
#: transform: run without an enclosing jit, an array computed from closures, constants or
#: arguments they do not transform (`c = jnp.linspace(0, 1, 3)` in the function) is a concrete
#: array there, so `float(c)`, `np.asarray(c)` and storing `c` outside all work. Every other
#: staging API (`jax.jit`, `pmap`, the `lax` loop bodies and `cond` branches, `checkpoint`,
#: `eval_shape`, `make_jaxpr`) traces the whole body into a jaxpr: there every JAX operation's
#: result is a tracer, also one of constants, and so it is under a jit around these
#: (`jax.jit(jax.grad(f))`). Observed with jax 0.10.2: tests/runtime/test_jax_traced_values.py.
#: `lax.stop_gradient` is such an op: it binds a primitive, so even of a Python int
#: (`lax.stop_gradient(m.shape[0])` under `jax.jit(jax.vmap(f))`) its result is a tracer, and
#: `range()` of it raises TracerIntegerConversionError (tests/runtime/test_jax_eighteenth_audit_bo_facts.py).
JAX_TRACES_DEPENDENTS = JAX_GRAD | frozenset({"jax.vmap", "flax.nnx.vmap", "equinox.filter_vmap"})
#: Ops that drop differentiation: under the differentiating transformations alone (`JAX_GRAD`:
#: `grad`, `value_and_grad`, `jacfwd`, `jacrev`, `hessian`, `jvp`, `vjp`, `linearize`, no jit or
#: vmap around or inside) `lax.stop_gradient(x)` is the primal value, a concrete array, so
#: `np.asarray(lax.stop_gradient(x))` works there (gyaradax's geometry under `jax.grad`); under
#: `jax.vmap` it is still a batched tracer (TracerArrayConversionError), under jit a tracer.
#: Observed with jax 0.10.2: tests/runtime/test_jax_eighteenth_audit_bo_facts.py.
JAX_PRIMAL_OPS = frozenset({"jax.lax.stop_gradient"})

#: Differentiating APIs that trace only the positions of their `argnums` (the first by default)
#: and hand every other argument to the function as the caller gave it: a Python int stays an
#: int, so Python control flow on it works, also under a jit around the grad (observed with jax
#: 0.10.2: tests/runtime/test_jax_grad_argnums.py). Equinox's `filter_grad` differentiates its
#: first argument alone. Flax NNX's `grad` / `value_and_grad` take `argnums` too and hand the
#: other arguments on as given: a closed-over config dict's ints and bools stay Python under
#: `nnx.jit` (flax with JAX 0.10.2: tests/runtime/test_jax_seventeenth_audit_facts.py).
JAX_DIFFERENTIATES_ARGNUMS = frozenset({
    "jax.grad", "jax.value_and_grad", "jax.jacfwd", "jax.jacrev", "jax.hessian",
    "equinox.filter_grad", "equinox.filter_value_and_grad", "flax.nnx.grad", "flax.nnx.value_and_grad",
})

#: Differentiating APIs whose result is a pytree of the structure of the one argument they
#: differentiate (the first, without `argnums`): `jax.grad(f)(params)` of a list of per-layer
#: tuples is that list of tuples of gradients, iterated as Python; an array only when `params` is
#: one; with `has_aux=True`, the pair `(gradients, aux)`. (`jacfwd`/`jacrev` nest the output's
#: structure around it; `value_and_grad` pairs it with the value.) A jitted function returns the structure its Python returns as well (a list stays
#: a list). Observed with jax 0.10.2: tests/runtime/test_jax_output_structure.py.
JAX_GRAD_SHAPED_LIKE_ARGUMENT = frozenset({"jax.grad"})

#: Differentiating APIs called with `has_aux=True`: the function returns the pair `(output, aux)`
#: and the call hands back `aux` as the function's Python returns it (a dict stays a dict of
#: arrays: a `for` over it iterates its keys, not an array's rows), at this path of its result,
#: (index, count) per level: `value_and_grad(f, has_aux=True)(x)` is `((value, aux), grads)`,
#: `grad(f, has_aux=True)(x)` is `(grads, aux)`, Equinox's and Flax NNX's alike. Observed with jax
#: 0.10.2: tests/runtime/test_jax_sixteenth_audit_bg_facts.py.
JAX_AUX_PATH: dict[str, tuple[tuple[int, int], ...]] = {
    **dict.fromkeys(("jax.value_and_grad", "equinox.filter_value_and_grad", "flax.nnx.value_and_grad"),
                    ((0, 2), (1, 2))),
    **dict.fromkeys(("jax.grad", "equinox.filter_grad", "flax.nnx.grad"), ((1, 2),)),
}

#: JAX calls whose result has a structure the code spells elsewhere, as `jax.grad`'s has its
#: argument's (above): API -> (how, the position of what decides it). "pair": `lax.scan(f, init,
#: xs)` returns the tuple `(carry, ys)`, carry of the structure of the carry `f` returns (that of
#: `init`), ys of the structure of what `f` returns second, each leaf stacked (a list of
#: per-agent pytrees stays a list); "init": `lax.fori_loop(lo, hi, body, init)` and
#: `lax.while_loop(cond, body, init)` return the structure of `init`; "output": `lax.map(f, xs)`
#: and a call of `jax.vmap(f)` return the structure of what `f` returns. So a `for` over such a
#: result (or over ys) runs over the Python container the code made, not over an array's rows.
#: Observed with jax 0.10.2, under jit too: tests/runtime/test_jax_output_structure.py.
JAX_OUTPUT_STRUCTURE: dict[str, tuple[str, int]] = {
    "jax.lax.scan": ("pair", 0), "jax.lax.fori_loop": ("init", 3), "jax.lax.while_loop": ("init", 2),
    "jax.lax.map": ("output", 0),
}

#: Transformations whose result, called, returns the pytree the function they wrap returns: a
#: function (or a callable object's `__call__`) returning a Python list, tuple or dict gives a
#: Python container of arrays, not one array (`preds, fmaps = jax.vmap(disc)(x)`: `preds` a list
#: of per-head arrays of their own shapes, iterated as Python). Observed with jax 0.10.2 for each
#: (equinox's too): tests/runtime/test_jax_output_structure.py.
JAX_WRAPPED_OUTPUT_STRUCTURE = frozenset({
    "jax.vmap", "jax.jit", "jax.pmap", "jax.checkpoint", "jax.remat",
    "equinox.filter_jit", "equinox.filter_vmap",
})
JAX_OUTPUT_STRUCTURE.update({api: ("output", 0) for api in JAX_WRAPPED_OUTPUT_STRUCTURE})

#: `lax.cond(pred, true_fun, false_fun, *operands)` and `lax.switch(index, branches, *operands)`
#: return the pytree their branches return, and every branch must return the same structure (a
#: TypeError otherwise, at trace time: nothing runs), so one branch the code shows is enough: a
#: branch returning one of its parameters (`lambda x: x`) returns that operand, of the operand's
#: structure (`lax.cond(p, lambda x: x, lambda x: lax.stop_gradient(x), self.layers)` is the list
#: of layers). API -> (the positions of its branch functions, or of the list or tuple of them for
#: `switch`; the position of its first operand). Observed with jax 0.10.2, under jit too:
#: tests/runtime/test_jax_output_structure.py.
JAX_BRANCH_OUTPUT: dict[str, tuple[tuple[int, ...], int]] = {
    "jax.lax.cond": ((1, 2), 3), "jax.lax.switch": ((1,), 2),
}
JAX_OUTPUT_STRUCTURE.update({api: ("branches", 0) for api in JAX_BRANCH_OUTPUT})

#: Pallas: `pallas_call(kernel, out_shape, ...)` calls `kernel` with a Ref for each input, output
#: and scratch operand, one per positional parameter (`def kernel(x_ref, o_ref, acc_ref, *, steps)`;
#: the keywords `functools.partial` binds stay Python values). A store into a Ref (`o_ref[...] = v`),
#: in the kernel or in a `lax.fori_loop` body inside it, is a state write the kernel's lowering
#: keeps, as a `jax.Ref`'s is: the output holds it and no tracer outlives the trace. Observed with
#: jax 0.10.2 (interpret mode on CPU): tests/runtime/test_jax_pallas_ref_facts.py. API -> the
#: position and keyword of the kernel.
PALLAS_KERNEL_CALLS: dict[str, tuple[int, str]] = {
    "jax.experimental.pallas.pallas_call": (0, "kernel"),
    "jax._src.pallas.pallas_call.pallas_call": (0, "kernel"),
}

#: `jax.lax` control flow traces the functions it is given, under jit or not (rows 25, 26):
#: API -> the positions and keywords of its function arguments (a list of them for `switch`).
JAX_FUNCTION_ARGUMENTS: dict[str, tuple[tuple[int, str], ...]] = {
    "jax.lax.cond": ((1, "true_fun"), (2, "false_fun")),
    "jax.lax.switch": ((1, "branches"),),
    "jax.lax.while_loop": ((0, "cond_fun"), (1, "body_fun")),
    "jax.lax.fori_loop": ((2, "body_fun"),),
    "jax.lax.scan": ((0, "f"),),
    "jax.lax.map": ((0, "f"),),
    "jax.lax.associative_scan": ((0, "fn"),),
    "flax.nnx.cond": ((1, "true_fun"), (2, "false_fun")),
    "flax.nnx.switch": ((1, "branches"),),
    "flax.nnx.while_loop": ((0, "cond_fun"), (1, "body_fun")),
    "flax.nnx.fori_loop": ((2, "body_fun"),),
    "flax.nnx.scan": ((0, "f"),),
}
#: Staging APIs that take a spec per argument, by the keyword of the specs: a `None` there hands
#: that argument to the function as the caller's own object, no tracer made of it (under jit too):
#: `jax.shard_map(f, in_specs=(P("x"), None), ...)(x, 3)` runs `f` with the int 3, so `if n > 1:`
#: works; a dict stays a dict, a concrete array concrete, an enclosing jit's tracer that tracer.
#: (`P()` instead makes the int a tracer.) Observed with jax 0.10.2:
#: tests/runtime/test_jax_pallas_python_facts.py. `jaxstaging.staged_record` reads them as
#: `vmap`'s `in_axes=None` (`JaxStaged.unmapped`).
JAX_ARGUMENT_SPECS = {"jax.shard_map": "in_specs", "jax.experimental.shard_map.shard_map": "in_specs"}
#: `with jax.disable_jit():` runs `jax.jit` and the `jax.lax` control flow below as Python, on
#: concrete arrays: a `lax.scan` / `fori_loop` / `map` / `associative_scan` body runs once per
#: element, a `while_loop`'s functions once per iteration, `cond` / `switch` run the one branch
#: taken; a jitted function called there runs its body each call (`vmap`, `grad` and `checkpoint`
#: still trace, and a `jax.jit` made there traces when called after the block). Observed with jax
#: 0.10.2: tests/runtime/test_jax_disable_jit.py. Called there (in the block's own body, not in a
#: def it holds), these APIs stage nothing.
JAX_JIT_DISABLING = frozenset({"jax.disable_jit"})
JAX_PYTHON_UNDER_DISABLE_JIT = frozenset({
    "jax.lax.cond", "jax.lax.switch", "jax.lax.while_loop", "jax.lax.fori_loop", "jax.lax.scan", "jax.lax.map",
    "jax.lax.associative_scan",
})
#: Staging APIs that hand the function JAX's own copy of each non-static argument: they flatten
#: the caller's pytree to its leaves and rebuild the containers around the tracers, so a store
#: into an argument (`batch["x"] = ...`, `acc.append(t)`) changes that copy, never the caller's
#: object (observed with jax 0.10.2: jit, vmap, grad, checkpoint, eval_shape, scan and fori_loop
#: bodies). Not Flax NNX's transforms (they carry module updates out) nor Equinox's filtered ones
#: (a non-array leaf is passed as the caller's own object).
JAX_REBUILDS_ARGUMENTS = frozenset(
    {a for a in JAX_JIT | JAX_TRACE | JAX_GRAD if a.startswith("jax.")}
    | {a for a in JAX_FUNCTION_ARGUMENTS if a.startswith("jax.")}
)

#: How a JIT's trace cache treats the function when the wrapper is made again (`jax.jit(f)` run
#: once per iteration): "equal while alive" (`jax.jit`): the traces are kept per function, found
#: again through any function that compares equal, as long as one such function is alive: the same
#: `f` made again traces once (1 trace in 5 wraps), a lambda, `functools.partial`, nested def,
#: `jax.vmap(f)` or `hk.transform(f).apply` made anew traces every time (5 in 5), and so does a
#: bound method (`jax.jit(self.update)` per step: 5 in 5; bound methods of one object compare equal,
#: but each dies with its wrapper, and its traces with it; kept alive in a list, 1 in 5); "equal"
#: (`jax.pmap`): the same, holding the function, so an equal bound method reuses the traces (1 in
#: 5). `jax.eval_shape` and `jax.make_jaxpr` keep traces per function object as `jax.jit` does
#: (the same `f` evaluated 5 times: 1 trace; a new `functools.partial` or lambda each time: 5), though
#: they run in the call (`JAX_RUNS_AT_ONCE`) or return no compiled wrapper; `jax.linear_transpose`,
#: `vmap`, `grad` and the other transformations keep none (the same `f`: 5 in 5). Observed with jax
#: 0.10.2: tests/runtime/test_function_identity.py. The libraries' entries are in `equinox` and
#: `flax`; a staging API not listed here is known to retrace only on a new, unequal function.
JAX_TRACE_CACHE = {
    "jax.jit": "equal while alive",
    "jax.pmap": "equal",
    "jax.eval_shape": "equal while alive",
    "jax.make_jaxpr": "equal while alive",
}
#: The JAX staging APIs whose traces outlive the call, kept per function object, where a trace
#: made again in vain is a cost (STG502): a new function object traces again; every other
#: transformation traces on every use. Not `jax.make_jaxpr`, though it caches: it returns the
#: program for a reader, and the trace is what it is called for (the JAX guide's
#: `print_fwd_bwd(f, ...)` makes a lambda and a nested def per call to print each function's
#: jaxpr: 2 findings, both false).
JAX_CACHES_TRACES = JAX_JIT | frozenset({"jax.eval_shape"})

#: The staging APIs that trace their function into a jaxpr and lower and compile nothing:
#: `jax.eval_shape` returns the shapes and dtypes of the output, `jax.make_jaxpr` the jaxpr. A new
#: function object per call costs them one trace, the work of running the function's Python once
#: on abstract values, and no compiled program is lost (JAX 0.10.2, `jax.monitoring`'s events for
#: a new lambda per call, 3 calls: 3 `jaxpr_trace_duration`, no `jaxpr_to_mlir_module_duration`
#: nor `backend_compile_duration`, where `jax.jit` of a new lambda gives 3 of each:
#: tests/runtime/test_jax_new_program_facts.py). Whether such a trace costs enough to matter
#: depends on the function, which the code does not show: STG502 on them is a preview step.
JAX_TRACES_WITHOUT_COMPILING = frozenset({
    "jax.eval_shape", "jax.make_jaxpr", "equinox.filter_eval_shape", "equinox.filter_make_jaxpr",
})

#: Array constructors whose one dimension is the length of a range of numbers: "range" for
#: `arange` (`range`'s arguments: `jnp.arange(n)` has shape `(n,)`, `jnp.arange(2, 9)` `(7,)`),
#: else (position, keyword, default) of the number of samples (`jnp.linspace(0, 1, n)`: `(n,)`,
#: 50 by default). Observed with JAX 0.10.2: tests/runtime/test_jax_new_program_facts.py.
SIZED_RANGES = {
    "jax.numpy.arange": "range", "numpy.arange": "range",
    "jax.numpy.linspace": (2, "num", 50), "numpy.linspace": (2, "num", 50),
}
#: Calls whose result has their argument's shape with one dimension appended, and where that
#: dimension's size is passed (position, keyword): `jax.nn.one_hot(y, K)` has shape
#: `y.shape + (K,)` (JAX 0.10.2: `one_hot(arange(4), 7)` is (4, 7)).
APPENDED_AXIS = {"jax.nn.one_hot": (1, "num_classes")}

#: Collectives over a named axis, with the position of their axis-name argument (keyword
#: `axis_name`): called where no transformation binds that name (plain Python, or under `jax.jit`
#: alone) they raise (`NameError: unbound axis name: batch`; `ppermute` NotImplementedError), so a
#: function whose body always calls one with a literal axis name runs only under a transformation
#: binding it (`pmap`, `vmap`/`shard_map` with `axis_name`), never as plain Python. Observed with
#: jax 0.10.2: tests/runtime/test_jax_fresh_facts.py.
JAX_NAMED_AXIS_COLLECTIVES = {
    "jax.lax.psum": 1, "jax.lax.pmean": 1, "jax.lax.pmax": 1, "jax.lax.pmin": 1, "jax.lax.all_gather": 1,
    "jax.lax.ppermute": 1, "jax.lax.psum_scatter": 1, "jax.lax.all_to_all": 1, "jax.lax.axis_index": 0,
    "jax.lax.axis_size": 0,
}

#: What else keys a trace, besides the function object: the static arguments' values, the other
#: arguments' shapes, dtypes and pytree structures, and the Python values the function holds (its
#: closure, a `functools.partial`'s bound arguments). A new function object per call or iteration
#: costs a trace only where that key repeats: where each call or iteration also brings another key
#: (a new static value, a new shape, a closed-over Python value that sets a shape or an option),
#: one function object traces and compiles as often (`jax.jit(partial(f, block=b))` per `b` in
#: `[2, 4, 8, 16]`: 4 traces, one `jax.jit(f, static_argnames="block")`: 4 too; per `b` in
#: `[4, 4, 4, 4]`: 4 against 1). Likewise a static argument whose new values always come with new
#: values of another static argument adds no compilation (`task` beside `n = task + 2`, both
#: static: 4 traces in 4 tasks, `task` traced: 4 too; `n` fixed: 4 against 1). An array closed over
#: is a constant of the same program when its shape repeats (a lambda over each batch: a trace per
#: batch where one jitted function taking the batch traces once). Observed with jax 0.10.2:
#: tests/runtime/test_jax_retrace_key_facts.py.
JAX_TRACE_KEY = ("static argument values", "argument shapes, dtypes and structures", "held Python values")
#: The value kinds (`analysis.tensors.value_of`) a loop over which binds an array on each
#: iteration: a closure over the element is a constant of the same program (`for x in batches`
#: over a dataset, the rows of an array).
JAX_ARRAY_ELEMENTS = frozenset({"tensor", "ndarray", "dataset", "data-iterator"})

#: What a registered pytree's flattening makes traced and what it makes static. An object passed
#: to a transformation (`jax.jit`, `vmap`, a `lax` loop's carry) is flattened: its children become
#: tracers, its aux data (the treedef) stays the Python value it was, and keys the trace cache (a
#: changed value traces again). Observed with jax 0.10.2 (tests/runtime/test_jax_pytree_fields.py):
#: with `tree_flatten` returning `((), (self.dt, self.t_end))`, `jnp.arange(0, ta.Nt)` of a
#: property `np.ceil(ta.t_end / ta.dt)` works in a jitted function taking `ta`.
#:   class decorators / calls taking the class, whose `tree_flatten()` method returns
#:   `(children, aux_data)` (the keyed variant's `tree_flatten_with_keys()` returns `((key,
#:   child), ...)` pairs for the children and the same aux data) and whose `tree_unflatten(aux_data,
#:   children)` rebuilds the object a traced function receives:
JAX_PYTREE_CLASS_REGISTRATIONS = frozenset({"jax.tree_util.register_pytree_node_class",
                                            "jax.tree_util.register_pytree_with_keys_class"})
#:   (the methods, in the order the registration prefers them for the flattening)
JAX_PYTREE_FLATTEN_METHODS = ("tree_flatten", "tree_flatten_with_keys")
JAX_PYTREE_UNFLATTEN_METHOD = "tree_unflatten"
#:   `register_pytree_node(cls, flatten, unflatten)` and `register_pytree_with_keys(cls,
#:   flatten_with_keys, unflatten)`: the second argument returns `(children, aux_data)` (children as
#:   (key, child) pairs for the keyed one), the third rebuilds the object from `(aux_data, children)`:
#:   what it sets on that object from the aux data alone is a Python value too (qutip-jax's
#:   `out.num_diags = len(out.offsets)`; tests/runtime/test_jax_fifteenth_audit_static_facts.py).
#:   Either function may be a method of the class (`register_pytree_node(C, C._flatten,
#:   C._unflatten)`) or a lambda:
JAX_PYTREE_REGISTRATIONS = frozenset({"jax.tree_util.register_pytree_node",
                                      "jax.tree_util.register_pytree_with_keys"})
#:   `register_dataclass(cls, data_fields=[...], meta_fields=[...])`, or as a bare decorator of a
#:   dataclass: the meta fields (and fields declared `field(metadata=dict(static=True))`) are aux
#:   data, the other fields children:
JAX_PYTREE_DATACLASSES = frozenset({"jax.tree_util.register_dataclass"})
#:   `register_static(cls)`: the whole object is aux data, nothing of it is traced:
JAX_STATIC_REGISTRATIONS = frozenset({"jax.tree_util.register_static"})
#: Every call that registers a class as a pytree, and those of them that decorate the class.
JAX_PYTREE_REGISTERING = (JAX_PYTREE_CLASS_REGISTRATIONS | JAX_PYTREE_REGISTRATIONS | JAX_PYTREE_DATACLASSES
                          | JAX_STATIC_REGISTRATIONS)
JAX_PYTREE_CLASS_DECORATORS = JAX_PYTREE_REGISTERING - {"jax.tree_util.register_pytree_node",
                                                        "jax.tree_util.register_pytree_with_keys"}

# Static arguments (`static_argnums` / `static_argnames`, and `eqx.filter_jit`'s Python values)
# key the trace by value, through hash and equality: each distinct value traces once and later
# calls with an equal value reuse that trace. `split_axis=0` and `split_axis=1` over six calls
# trace twice; a loop variable over `range(4)` traces four times (observed with jax 0.10.2:
# tests/runtime/test_function_identity.py). So a fixed set of literals across call sites costs one
# trace per value, and is needed where the function uses the Python value (`x.shape[axis]`, a
# reshape size); STG501 reports a literal set only where a traced value would do the same, and
# values that change without bound (a loop variable, a counter) wherever they are static.

#: Transformations that, given a function (or a Flax Linen module class), return a new function
#: (or class) and emit no operation: what they build adds operations only when it is called, so
#: `for _ in range(n): module = nn.vmap(module, ...)` in traced code builds a class n times and
#: unrolls nothing into the program. Observed with jax 0.10.2, flax 0.12.8, equinox 0.13.8: each,
#: called inside `jax.make_jaxpr`, adds no equation (tests/runtime/test_jax_fresh_facts.py).
#: (`jax.jvp`, `jax.vjp`, `jax.linearize`, `jax.eval_shape` and Linen's `nn.jvp`/`nn.grad`
#: compute at once, and are not here.)
JAX_FUNCTION_BUILDERS = frozenset({
    "jax.jit", "jax.pmap", "jax.vmap", "jax.checkpoint", "jax.remat", "jax.grad", "jax.value_and_grad",
    "jax.jacfwd", "jax.jacrev", "jax.hessian", "jax.make_jaxpr",
    "flax.nnx.jit", "flax.nnx.vmap", "flax.nnx.grad", "flax.nnx.value_and_grad", "flax.nnx.remat",
    "equinox.filter_jit", "equinox.filter_vmap", "equinox.filter_grad", "equinox.filter_value_and_grad",
    "equinox.filter_checkpoint", "equinox.filter_pmap",
    "flax.linen.vmap", "flax.linen.jit", "flax.linen.remat", "flax.linen.checkpoint", "flax.linen.scan",
})

#: Attributes a JAX array (a tracer under jit) has and a dict, list or tuple (the other things a
#: jitted parameter holds, a pytree) has not: a parameter whose attribute the body reads is an
#: array, so a `for` over it runs once per row (JAX 0.10.2: tests/runtime/test_jax_fresh_facts.py).
JAX_ARRAY_ONLY_ATTRIBUTES = frozenset({"shape", "ndim", "dtype", "at", "T"})
#: An array's metadata a traced function reads as Python values: a tracer's shape is a tuple of
#: ints, its ndim and size ints, its dtype a NumPy dtype, under `jax.jit` too (JAX 0.10.2,
#: tests/runtime/test_jax_fifteenth_audit_static_facts.py); what Python computes from them is
#: Python too (`self.parents.shape[0]`, `n = x.shape[1] // 2`).
JAX_ARRAY_STATIC_METADATA = frozenset({"shape", "ndim", "size", "dtype"})

#: Calls whose function runs in Python on every call, with concrete values, even under jit: the
#: host callbacks, `jax.experimental.buffer_callback`'s included (its function runs at execution
#: time on the concrete buffers at every call of the jitted caller, never while tracing; JAX
#: 0.10.2: tests/runtime/test_jax_guard_facts.py). The one table every analysis asks.
JAX_EAGER_ESCAPES = frozenset({
    "jax.pure_callback", "jax.debug.callback", "jax.experimental.io_callback",
    "jax.experimental.buffer_callback.buffer_callback",
    "jax.experimental.host_callback.call", "jax.experimental.host_callback.id_tap",
})
#: JAX's tracer class: while a function is traced (jit, the `lax` loops, grad, vmap) every value
#: derived from its arguments is an instance, and no concrete array is, so `isinstance(x,
#: jax.core.Tracer)` is a test of whether the code is being traced: the code under `if not
#: isinstance(x, jax.core.Tracer):` runs only eagerly (JAX 0.10.2: tests/runtime/test_jax_guard_facts.py).
JAX_TRACER_TYPES = frozenset({"jax.core.Tracer", "jax._src.core.Tracer"})
#: The modules that name it (`getattr(jax, "core").Tracer`, as jax_utils spells it for pyright).
JAX_TRACER_MODULES = frozenset({"jax.core", "jax._src.core"})
#: Python conversions that need a concrete value: on a tracer (a jitted function's non-static
#: argument, a JAX op's result under `jax.jit`, `pmap` or a `lax` body) each raises while tracing,
#: `ConcretizationTypeError` (`float`, `int`, `complex`, `.item()`, `.tolist()`),
#: `TracerBoolConversionError` (`bool`) or `TracerArrayConversionError` (`np.asarray`, `np.array`),
#: every one a `TypeError`; on a static argument or a closed-over NumPy array each works (JAX
#: 0.10.2: tests/runtime/test_jax_concretizing_facts.py). Code after one that runs on every path
#: is never traced (`tracers.raises_while_traced`). `range` too: any of its bounds a tracer (a JAX
#: op's result even on static values, `range(jnp.array(dims)[i])`) raises
#: `TracerIntegerConversionError` (a `TypeError`), as indexing a Python list with one does; so a
#: `for _ in range(n)` header stops the trace. The test of an `if` or `while` is a `bool` of its
#: value (`while should_continue(state):` on a JAX op's result: `TracerBoolConversionError`), so
#: neither its body nor what follows it is traced (`context.FileContext.after_trace_raising_call`).
JAX_CONCRETIZING_FUNCTIONS = frozenset({
    "builtins.float", "builtins.int", "builtins.complex", "builtins.bool", "builtins.range", "numpy.asarray",
    "numpy.array",
})
JAX_CONCRETIZING_METHODS = frozenset({"item", "tolist"})
#: Functions whose result's shape depends on the values (`jnp.unique(labels)`, `jnp.nonzero(m)`,
#: `jnp.where(m)` with one argument): without a static `size=`, given a traced array they raise
#: `ConcretizationTypeError` (a `TypeError`) while tracing, as the conversions above do; with
#: `size=` they trace (JAX 0.10.2: tests/runtime/test_jax_thirteenth_audit_au_facts.py).
#: `jnp.where` is one only with its condition alone (`JAX_VALUE_SHAPED_ONE_ARGUMENT`).
JAX_VALUE_SHAPED_FUNCTIONS = frozenset({
    "jax.numpy.unique", "jax.numpy.unique_values", "jax.numpy.unique_counts", "jax.numpy.unique_inverse",
    "jax.numpy.unique_all", "jax.numpy.nonzero", "jax.numpy.argwhere", "jax.numpy.flatnonzero", "jax.numpy.where",
})
JAX_VALUE_SHAPED_ONE_ARGUMENT = frozenset({"where"})
#: JAX numerics that raise on no value of their arrays: a non-positive-definite matrix to
#: `cholesky`, a singular one to `inv` / `solve` / `lu_solve`, NaN or inf to a decomposition, a
#: negative number to `sqrt` / `log`, a zero divisor (integer ones too) give NaN, inf or garbage,
#: eagerly and under `jax.jit` alike; they raise only on what is static in a trace (shapes,
#: dtypes, their Python options). So around such calls an `except` handler runs, in a trace, only
#: for what every trace with the same shapes decides alike, never because of the values
#: (`caught.try_body_raises`). Observed with jax 0.10.2: tests/runtime/test_jax_value_errors_facts.py
#: (the BT1 `try: cholesky(A) except: ...` jitter loop of the nineteenth audit). Name -> how many
#: leading positional parameters take arrays; any other argument is an option (`lower=True`,
#: `axis=0`), where a tracer raises while tracing, on every trace.
JAX_RAISE_ON_NO_VALUE: dict[str, int] = {
    **{f"jax.scipy.linalg.{n}": 1 for n in (
        "cholesky", "cho_factor", "inv", "det", "lu", "lu_factor", "eigh", "svd", "qr", "expm")},
    **{f"jax.scipy.linalg.{n}": 2 for n in ("cho_solve", "solve", "solve_triangular", "lu_solve")},
    **{f"jax.numpy.linalg.{n}": 1 for n in (
        "cholesky", "inv", "pinv", "det", "slogdet", "eigh", "eigvalsh", "svd", "qr", "norm")},
    **{f"jax.numpy.linalg.{n}": 2 for n in ("solve", "lstsq")},
    **{f"jax.numpy.{n}": 1 for n in ("sqrt", "log", "log1p", "exp", "reciprocal", "arcsin", "arccos")},
    **{f"jax.numpy.{n}": 2 for n in ("divide", "true_divide", "floor_divide", "mod", "power", "matmul", "dot")},
}
#: Indexing a Python list or tuple (`sizes[i]`, `[a, b][k]`; not a dict, not an array) asks the
#: index's `__index__`: a tracer raises `TracerIntegerConversionError` as `range` does (JAX
#: 0.10.2: tests/runtime/test_jax_concretizing_facts.py); the one conversion spelled as an item.
JAX_SEQUENCE_INDEX = "list.__getitem__"
#: Of those, the ones that raise on a Python container or None as well (`float([x])`, `int(None)`:
#: TypeError; `[x].item()`: AttributeError): a parameter alone that JAX hands a tracer or a
#: rebuilt container (`tracers.BARE`) makes them raise either way (`range(())`, `range(None)`,
#: `[a, b][()]`: TypeError). `bool`, `np.asarray` and `np.array` accept a container.
JAX_CONCRETIZING_ANY_LEAF = frozenset({
    "builtins.float", "builtins.int", "builtins.complex", "builtins.range", JAX_SEQUENCE_INDEX, "item", "tolist",
}) | JAX_VALUE_SHAPED_FUNCTIONS  # (`jnp.unique(None)`, of a tuple or a dict: TypeError, JAX 0.10.2)
#: The transformations that hand every non-static argument to the function as a tracer (a
#: Python scalar included) and trace the whole body, so every JAX op's result is one too, on
#: every call of the wrapper, whoever calls it: a concretizing call on such a value raises on
#: every trace they make (tests/runtime/test_jax_concretizing_facts.py).
JAX_TRACES_EVERY_ARGUMENT = frozenset({"jax.jit", "jax.pmap", "jax.experimental.pjit.pjit", "jax.pjit"})
#: The staging APIs under which every JAX op's result in the function is a tracer, whatever its
#: operands (constants, closed-over NumPy arrays, a static argument): they trace the whole body
#: into a jaxpr on every call, under a jit or not. Those above, the `lax` loop bodies and `cond` /
#: `switch` branches, and `checkpoint` (a `lax.map` body's `jnp.unique(jnp.repeat(table, 2))
#: .tolist()` raises ConcretizationTypeError as under `jax.jit`). Not `vmap` or `grad` (they trace
#: only what comes from the arguments they transform) nor `lax.associative_scan`, which calls its
#: function on concrete arrays outside a jit. Observed with jax 0.10.2:
#: tests/runtime/test_jax_concretizing_facts.py. So a concretizing call on a JAX op's result in a
#: function only these reach raises in every trace (`tracers.raises_while_traced`).
JAX_OPS_ALWAYS_TRACED = JAX_TRACES_EVERY_ARGUMENT | frozenset({
    "jax.lax.cond", "jax.lax.switch", "jax.lax.while_loop", "jax.lax.fori_loop", "jax.lax.scan", "jax.lax.map",
    "jax.checkpoint", "jax.remat",
})
#: Maps over a pytree: the result is the tree given (its containers, objects and Python leaves
#: as they were, the leaves mapped), an array only where the tree or the function's results are.
JAX_TREE_MAPS = frozenset({
    "jax.tree_util.tree_map", "jax.tree.map", "jax.tree_map", "jax.tree_util.tree_map_with_path",
    "jax.tree.map_with_path",
})
#: APIs that call the function they take once per element of their input, in the call itself, as
#: plain Python (under a trace too): the pytree maps call it once per leaf, at this argument place
#: (position, keyword). So what that function makes anew (a `jax.jit` of a lambda) is made once per
#: leaf, as in a loop over the leaves (JAX 0.10.2, tests/runtime/test_per_element_call_facts.py).
JAX_PER_ELEMENT_CALLS = {api: (0, "f") for api in JAX_TREE_MAPS}

#: NumPy functions that call the same-named method of their first argument when it is not a
#: NumPy array (numpy's `_wrapreduction` / `_wrapfunc`): given a JAX tracer first, they run JAX's
#: own `Array.min`, `.reshape`, ... and work under jit, vmap and the `lax` loops (JAX 0.10.2,
#: NumPy 2.4: tests/runtime/test_jax_fresh_facts.py). Others convert the tracer with `__array__`
#: and raise TracerArrayConversionError (`np.clip`, `np.ravel`, `np.expand_dims`, `np.sort`,
#: `np.dot`, `np.array`, ...), and so do these when the tracer is not the first argument or sits
#: in a list (`np.sum([x, y])`).
NUMPY_ARRAY_METHOD_CALLS = frozenset({
    "numpy.min", "numpy.max", "numpy.amin", "numpy.amax", "numpy.sum", "numpy.mean", "numpy.prod",
    "numpy.any", "numpy.all", "numpy.std", "numpy.var", "numpy.argmin", "numpy.argmax",
    "numpy.cumsum", "numpy.cumprod", "numpy.round", "numpy.around", "numpy.reshape",
    "numpy.transpose", "numpy.squeeze", "numpy.swapaxes", "numpy.moveaxis", "numpy.repeat",
    # (and those that read the array's attribute: `np.shape(x)` is `x.shape`, a tuple of Python ints
    # under jit: tests/runtime/test_jax_fifteenth_audit_static_facts.py)
    "numpy.shape", "numpy.ndim", "numpy.size",
})

#: JAX calls that return a Python list or tuple of arrays (observed with jax 0.10.2 under jit:
#: tests/runtime/test_jax_fresh_facts.py): its length is fixed by the call (a split count, the
#: number of inputs or outputs), so iterating or unpacking the result is a Python loop over that
#: many arrays, never one over an array's rows.
JAX_MULTI_OUTPUT_OPS = frozenset({
    "jax.numpy.split", "jax.numpy.array_split", "jax.numpy.hsplit", "jax.numpy.vsplit",
    "jax.numpy.dsplit", "jax.numpy.meshgrid", "jax.numpy.broadcast_arrays", "jax.numpy.unstack",
    "jax.numpy.linalg.svd", "jax.numpy.linalg.qr", "jax.numpy.linalg.slogdet", "jax.numpy.linalg.eigh",
    "jax.lax.top_k", "jax.tree.leaves", "jax.tree_util.tree_leaves",
})
#: Collectives that, given a Python number, compute on it in Python: `lax.psum(1, axis)` is the
#: axis size, an int (JAX 0.10.2 under pmap / shard_map: tests/runtime/test_jax_certainty_facts.py).
JAX_COLLECTIVES_OF_CONSTANTS = frozenset({"jax.lax.psum"})
#: Calls whose result is a Python object all of whose parts are Python values, inside a trace too:
#: Pallas's TPU description, `get_tpu_info()`, a dataclass of Python ints (`num_lanes`,
#: `mxu_column_size`, `fp8_ops_per_second`, ...) and nested dataclasses (`sparse_core`, or None)
#: built from the device kind alone (JAX 0.10.2: tests/runtime/test_jax_pallas_python_facts.py),
#: so `if tpu_info.fp8_ops_per_second > 0:` in a kernel's set-up is decided while tracing.
JAX_PYTHON_RECORDS = frozenset({
    "jax.experimental.pallas.tpu.get_tpu_info", "jax._src.pallas.mosaic.tpu_info.get_tpu_info",
    "jax._src.pallas.mosaic.tpu_info.get_tpu_info_for_chip",
})
#: Calls that, given Python numbers only, compute in Python: Pallas's `cdiv(a, b)` is `(a + b - 1)
#: // b` when both are Python ints (or an array's dimensions), a Python int under jit too, and
#: `lax.div` of them (an array, a tracer) when either is an array (JAX 0.10.2:
#: tests/runtime/test_jax_pallas_python_facts.py).
JAX_PYTHON_OF_PYTHON_NUMBERS = frozenset({"jax.experimental.pallas.cdiv", "jax._src.pallas.utils.cdiv"})
#: Methods of a JAX array that compute with JAX ops and return an array: called on a traced
#: array they return a tracer (JAX 0.10.2: tests/runtime/test_jax_certainty_facts.py), so
#: `x.sum() > 0` on a jitted argument `x` is a tracer as `jnp.sum(x) > 0` is. A method of
#: another name (`geom.is_squared_euclidean`, `cfg.get(...)`) may be a pytree's own Python code.
JAX_ARRAY_METHODS = frozenset({
    "sum", "mean", "max", "min", "any", "all", "prod", "std", "var", "argmax", "argmin", "cumsum",
    "cumprod", "round", "ravel", "flatten", "squeeze", "transpose", "conj", "conjugate", "clip", "dot",
    "astype", "reshape", "take", "sort", "argsort", "trace", "diagonal", "swapaxes",
})

#: jax.numpy functions whose output length is the number of hits, unless `size=` fixes it: under
#: jit a size-less one raises (row 19; tests/runtime/test_jax_runs.py's `nonzero_count`,
#: tests/runtime/test_jax_traced_values.py). STG604 asks it.
JAX_HIT_COUNT_LENGTH = frozenset(f"jax.numpy.{n}" for n in (
    "nonzero", "flatnonzero", "argwhere", "unique", "unique_all", "unique_counts", "unique_inverse",
    "unique_values", "compress", "extract", "union1d", "intersect1d", "setdiff1d", "setxor1d"))
#: Functions whose output length is an argument's value (row 19): function -> (keyword, position)
#: of it; `JAX_LENGTH_FIXES` holds the keyword that fixes the length instead.
JAX_LENGTH_ARGUMENTS = {
    "jax.numpy.arange": (("start", 0), ("stop", 1), ("step", 2)),
    "jax.numpy.linspace": (("num", 2),),
    "jax.numpy.logspace": (("num", 2),),
    "jax.numpy.geomspace": (("num", 2),),
    "jax.numpy.zeros": (("shape", 0),),
    "jax.numpy.ones": (("shape", 0),),
    "jax.numpy.empty": (("shape", 0),),
    "jax.numpy.full": (("shape", 0),),
    "jax.numpy.eye": (("N", 0), ("M", 1)),
    "jax.numpy.tri": (("N", 0), ("M", 1)),
    "jax.numpy.repeat": (("repeats", 1),),
    # the pieces' count and sizes are the indices' (or the sections') values: a tracer there raises
    # ConcretizationTypeError; NumPy or Python indices work (flax's OptimizedLSTMCell split at
    # `jnp.cumsum(...)` indices; JAX 0.10.2: tests/runtime/test_jax_recall_facts.py)
    **{f"jax.numpy.{n}": (("indices_or_sections", 1),) for n in ("split", "array_split", "hsplit", "vsplit", "dsplit")},
}
#: Where a JAX program needs a Python value, beside `JAX_LENGTH_ARGUMENTS` and
#: `frameworks.SHAPED_CONSTRUCTORS`' shapes: function -> (keyword, position or None) of the
#: argument, and array methods whose every argument is a shape. A tracer there raises
#: (`x.reshape(-1, n)`, `jax.random.bernoulli(key, shape=(n, 2))`, `jnp.zeros((n, 2))`: TypeError;
#: `lax.scan(..., length=n)`: ConcretizationTypeError; `range(n)`: TracerIntegerConversionError;
#: JAX 0.10.2, tests/runtime/test_jax_held_horizon_facts.py), so a value held there is the
#: program's configuration: one jitted function would trace once per value too.
JAX_PYTHON_ARGUMENTS = {"jax.lax.scan": (("length", None),), "builtins.range": (("", 0), ("", 1), ("", 2))}
JAX_SHAPE_METHODS = frozenset({"reshape"})
#: Array constructors: their shapes are model dimensions, nearly always Python ints the code does
#: not show (bound by `functools.partial`, `static_broadcasted_argnums`, a config): STG604 flags
#: only a shape computed by JAX itself (`jnp.zeros(jnp.sum(mask))`), not a parameter.
JAX_SHAPE_CONSTRUCTORS = frozenset(f"jax.numpy.{n}" for n in ("zeros", "ones", "empty", "full", "eye", "tri"))
#: Keywords that fix the output's length where the value would set it (row 19).
JAX_LENGTH_FIXES = {"jax.numpy.repeat": "total_repeat_length", "jax.numpy.bincount": "length"}
#: Functions giving a boolean array (a mask), beside comparisons and `&`, `|`, `~`.
JAX_MASK_FUNCTIONS = frozenset(f"jax.numpy.{n}" for n in (
    "logical_and", "logical_or", "logical_not", "logical_xor", "isnan", "isinf", "isfinite", "isclose",
    "greater", "greater_equal", "less", "less_equal", "equal", "not_equal", "isin", "signbit", "isneginf",
    "isposinf"))
#: jax.numpy functions that make an array: a jax.Array is not hashable, so as a static argument
#: it fails (row 31; JAX 0.10.2: tests/runtime/test_jax_certain_steps_facts.py). STG504 asks it.
JAX_ARRAY_CONSTRUCTORS = frozenset(f"jax.numpy.{n}" for n in (
    "array", "asarray", "zeros", "ones", "full", "empty", "arange", "linspace", "eye", "identity",
    "zeros_like", "ones_like", "full_like", "empty_like"))
#: Methods of a jitted function that read only its arguments' shapes and dtypes: they donate
#: nothing (`f.lower(x)`, `f.trace(x)` leave a donated `x` alive; JAX 0.10.2:
#: tests/runtime/test_jax_certain_steps_facts.py). STG203 asks it.
JAX_ABSTRACT_USES = frozenset({"lower", "trace", "eval_shape"})
#: Attributes a deleted array still answers (metadata kept on the Python object), and what reads
#: no array data: `.delete()` of a deleted array does nothing, a donated dict's `.keys()` are its
#: Python keys (donation deletes the leaves, not the containers; JAX 0.10.2,
#: tests/runtime/test_jax_certain_steps_facts.py). STG203 asks it.
JAX_DONATED_METADATA = frozenset({"shape", "dtype", "ndim", "size", "is_deleted", "sharding", "nbytes", "aval",
                                  "weak_type", "delete", "keys"})
#: Kinds of value (`tensors.value_of(...).what`) a donation does not delete: a NumPy array or a
#: Python value is copied to the device for the call, and the copy is what is donated (the
#: caller's object stays readable; JAX 0.10.2, tests/runtime/test_jax_certain_steps_facts.py).
#: STG203 asks it.
JAX_NOT_DONATED_KINDS = frozenset({"int", "float", "complex", "ndarray", "str", "bool", "none"})
#: The update methods of `x.at[...]` (JAX 0.10.2): each returns a new array and leaves `x` as it
#: was (row 38); `get` reads and is left to other checks. STG605 asks it.
JAX_AT_UPDATE_METHODS = frozenset({"set", "add", "subtract", "multiply", "mul", "divide", "power", "min", "max",
                                   "apply"})

#: The errors JAX raises on a Python use of a tracer (jax._src.errors, 0.10.2), each with the
#: `except` clauses that catch it: itself, its JAX bases, and Python's bases of every one of them
#: (`TypeError`, `Exception`, `BaseException`) and a bare `except:` ("*"). In the body of a `try`
#: whose handler catches it, the conversion cannot fail the trace: the error is caught while
#: tracing and the handler runs instead (Haiku's `dropout`: `except
#: jax.errors.ConcretizationTypeError: pass`; gyaradax's `_static_float`: `try: return
#: float(jnp.asarray(v)) except Exception: return v`). `except ValueError` catches none of them.
#: Observed with jax 0.10.2: tests/runtime/test_jax_eighteenth_audit_bo_facts.py.
_PYTHON_CATCHERS = frozenset({"builtins.TypeError", "builtins.Exception", "builtins.BaseException", "*"})
JAX_TRACER_ERROR_CATCHERS = {
    "ConcretizationTypeError": frozenset({"jax.errors.ConcretizationTypeError", "jax.errors.JAXTypeError"}),
    "TracerBoolConversionError": frozenset({"jax.errors.TracerBoolConversionError", "jax.errors.ConcretizationTypeError",
                                            "jax.errors.JAXTypeError"}),
    "TracerIntegerConversionError": frozenset({"jax.errors.TracerIntegerConversionError", "jax.errors.JAXTypeError"}),
    "TracerArrayConversionError": frozenset({"jax.errors.TracerArrayConversionError", "jax.errors.JAXTypeError"}),
}
JAX_TRACER_ERROR_CATCHERS = {error: names | _PYTHON_CATCHERS for error, names in JAX_TRACER_ERROR_CATCHERS.items()}
#: Hashing a tracer (a dict key, `set(...)`) raises a plain `TypeError` (unhashable).
JAX_TRACER_ERROR_CATCHERS["TypeError (unhashable tracer)"] = _PYTHON_CATCHERS

JAX = Framework(
    name="jax",
    optional=True,
    # an unused `jnp.take(x, 10)`, `x[10]` or `lax.dynamic_slice` out of range raises neither eagerly
    # nor under jit (XLA ops clamp or fill); `checkify.check` returns None and its failure is the
    # error value `checkify.checkify` returns (JAX 0.10.2: tests/runtime/test_jax_thirteenth_audit_au_facts.py)
    prunes_unused_ops=False,
    roots=("jax", "flax", "equinox"),
    staging_decorators=JAX_JIT | JAX_TRACE | JAX_GRAD,
    eager_escapes=JAX_EAGER_ESCAPES,
    lifting_scopes=frozenset({"jax.ensure_compile_time_eval", "jax.core.ensure_compile_time_eval"}),
    layer_base_prefixes=(),
    layer_base_names=frozenset(),
    staged_methods=frozenset(),
    # a `jax.Ref` global rebound instead of updated in place is STG303's (row 8)
    variable_constructors=frozenset({"jax.new_ref", "jax.empty_ref", "jax.ref.new_ref", "jax.ref.empty_ref"}),
    variable_creating_methods=frozenset(),
    variable_owner_prefixes=(),
    non_tensor_calls=JAX_JIT | JAX_TRACE | JAX_GRAD | JAX_EAGER_ESCAPES | JAX_PYTHON_RECORDS | frozenset({
        "jax.devices", "jax.local_devices", "jax.device_count", "jax.local_device_count",
        "jax.process_index", "jax.process_count", "jax.default_backend", "jax.block_until_ready",
        "jax.numpy.shape", "jax.numpy.ndim", "jax.numpy.size", "jax.numpy.dtype", "jax.numpy.iinfo",
        "jax.numpy.finfo", "jax.numpy.result_type", "jax.numpy.issubdtype", "jax.numpy.promote_types",
        "jax.numpy.can_cast", "jax.numpy.isscalar", "jax.numpy.iscomplexobj", "jax.numpy.isrealobj",
        "jax.named_scope", "jax.default_device", "jax.disable_jit", "jax.ensure_compile_time_eval",
        "jax.core.ensure_compile_time_eval", "jax.named_call", "jax.custom_jvp", "jax.custom_vjp",
        "jax.ShapeDtypeStruct", "equinox.filter", "equinox.partition", "equinox.combine",
        "equinox.is_array", "equinox.is_inexact_array", "equinox.is_array_like", "equinox.field",
        "equinox.tree_at", "equinox.tree_pformat", "flax.nnx.split", "flax.nnx.merge", "flax.nnx.state",
        "flax.nnx.graphdef", "flax.nnx.update", "flax.nnx.display", "flax.linen.compact",
        "flax.linen.share_scope", "jax.numpy.ndarray", "jax.Array", "jax.lax.axis_size", "jax.typeof",
        "jax.lax.psum_scatter_size", "jax.sharding.PartitionSpec", "jax.P",
        # a tuple of Python ints (tests/runtime/test_jax_certainty_facts.py)
        "jax.lax.broadcast_shapes", "jax.numpy.broadcast_shapes",
        # a Python bool or a dtype under jit too: an `if` on one is decided while tracing
        # (tests/runtime/test_jax_certainty_facts.py)
        "jax.numpy.isdtype", "jax.core.is_concrete", "jax.core.is_constant_dim", "jax.core.is_constant_shape",
        "jax.lax.dtype", "jax.tree_util.treedef_is_leaf",
        # sharding metadata of a (traced) variable tree: PartitionSpecs, Python values
        "flax.linen.get_partition_spec", "flax.linen.spmd.get_partition_spec", "flax.nnx.get_partition_spec",
        "flax.linen.logical_to_mesh_axes", "flax.linen.get_sharding", "flax.nnx.get_named_sharding",
        # a module's object graph as Python: a generator of (path, node) pairs, a FlatState of
        # (path, Variable) pairs, one per node the module holds, under jit too
        # (tests/runtime/test_jax_retrace_state_facts.py)
        "flax.nnx.iter_graph", "flax.nnx.iter_modules", "flax.nnx.iter_children", "flax.nnx.to_flat_state",
        "flax.nnx.graph.iter_graph", "flax.nnx.statelib.to_flat_state",
        # JAX's own iterative solvers' helper, imported by code that copies `_isolve`: `map(np.shape,
        # tree_leaves(tree))`, a list of tuples of Python ints under jit too, so `if _shapes(x0) !=
        # _shapes(b):` is a Python test (fea-in-jax-msg; tests/runtime/test_jax_eighteenth_audit_bo_facts.py)
        "jax._src.scipy.sparse.linalg._shapes",
    }),
    non_tensor_prefixes=(
        # (`jax.tree.map` / `tree_util.tree_map` return the traced values they map: left out)
        "jax.tree_util.tree_flatten", "jax.tree_util.tree_unflatten", "jax.tree_util.tree_leaves",
        "jax.tree_util.tree_structure", "jax.tree_util.register", "jax.tree_util.tree_all",
        "jax.tree_util.keystr", "jax.tree_util.all_leaves", "jax.tree_util.Partial", "jax.tree.flatten",
        "jax.tree.unflatten", "jax.tree.leaves", "jax.tree.structure", "jax.tree.all", "jax.tree.reduce",
        "jax.tree_util.tree_reduce",
        # their old top-level aliases (gone from JAX 0.10.2, still in code written before: big_vision)
        "jax.tree_leaves", "jax.tree_flatten", "jax.tree_unflatten", "jax.tree_structure", "jax.tree_all",
        "jax.tree_reduce", "jax.config.", "jax.debug.", "jax.sharding.", "jax.experimental.mesh_utils.",
        # (`jax._src.dtypes`: the dtype helpers JAX's own kernels import, `itemsize_bits(x.dtype)` an int
        # under jit: tests/runtime/test_jax_fifteenth_audit_static_facts.py)
        "jax.dtypes.", "jax._src.dtypes.", "jax.typing.", "jax.errors.", "jax.profiler.", "jax.monitoring.", "jax.nn.initializers.",
        "jax.distributed.", "jax.stages.", "jax.export.", "flax.linen.initializers.", "flax.nnx.initializers.",
        "flax.serialization.", "flax.training.", "flax.struct.", "flax.core.", "flax.traverse_util.",
        "flax.linen.module.", "flax.typing.", "equinox.nn.", "equinox.internal.", "equinox.debug.",
        # the runtime's backends and devices: `jex.backend.get_backend().platform == "gpu"` is a
        # Python bool under jit too (galax's `MockStreamGenerator.run`;
        # tests/runtime/test_jax_certainty_facts.py)
        "jax.extend.backend.",
    ),
    non_tensor_attributes=frozenset({
        "shape", "dtype", "ndim", "size", "itemsize", "nbytes", "sharding", "aval", "weak_type",
        "device", "devices", "__class__", "_fields", "name", "metadata", "spec", "vma", "committed",
    }),
)
