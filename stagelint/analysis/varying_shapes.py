"""Whether an argument's shape changes from one execution of its call to the next (STG506).

A Function (and `jax.jit`) keys its traces on each tensor argument's shape: a call in a loop
whose argument takes a new shape on many iterations traces again on each of them. The code shows
that when the argument is (`frameworks.tensorflow`, "Shapes that change between calls"):

* an element of a dataset the loop iterates over whose shapes vary: `padded_batch` without fixed
  `padded_shapes` (each batch padded to its own longest element), `bucket_by_sequence_length`
  without `pad_to_bucket_boundary=True`, `from_generator` with `None` dimensions; a `batch` or
  `padded_batch` without `drop_remainder=True` has one smaller last batch ("remainder": one extra
  trace, and only when the count does not divide: a heuristic fact);
* a ragged value made dense, `.to_tensor()` without `shape=`, of a value the loop changes;
* a slice whose bound is the loop's variable (`data[:n]` for `n` in a `range`); a fixed-width
  window `data[i:i + 32]` has one shorter last window (a heuristic "remainder");
* a Python sequence whose length is the loop's variable, converted (`tf.constant([0.0] * n)`).

`shape_variation` answers with a `facts.Variation` (plain data, kept in the call site's
`ArgFacts`) or None, which is silence: unknown is not variation. Each fact carries its certainty
(`analysis.proof`): a step the code does not show for sure (a dataset part whose shape the code
does not declare, a `.to_tensor()` on a value not shown to be ragged) is heuristic.
"""

from __future__ import annotations

import libcst as cst

from stagelint.analysis.arguments import passed_argument
from stagelint.analysis.literals import bool_constant, keyword_constant, literal_value
from stagelint.analysis import facts as F
from stagelint import frameworks as FW
from stagelint.analysis.proof import HEURISTIC, TRUE, fact
from stagelint.analysis.context import code_of, short_code
from stagelint.analysis.tensors import NUMBERS, value_of

_DEPTH = 12


def shape_variation(ctx, expr: cst.BaseExpression, func, loops: tuple) -> F.Variation | None:
    """How the shape of `expr`, an argument of a call inside `loops`, changes from one iteration
    to the next, or None when the code does not show that it does."""
    if not loops:
        return None
    return _Shapes(ctx, func, loops).of(expr, 0)


class _Shapes:
    def __init__(self, ctx, func, loops: tuple):
        self.ctx, self.func, self.loops = ctx, func, loops

    def code(self, node, limit: int = 50) -> str:
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and len(short_code(node, 200)) > limit:
            # a long chain: the method call that matters (`….padded_batch(32)`)
            return "…." + short_code(node.with_changes(func=node.func.attr, lpar=(), rpar=()), limit)
        return short_code(node, limit)

    def of(self, expr, depth: int) -> F.Variation | None:
        if depth > _DEPTH:
            return None
        ctx = self.ctx
        if isinstance(expr, cst.Name):
            bound = self._binding(expr)
            if bound is None:
                return None
            name_node, value = bound
            if isinstance(value, cst.For):
                if any(loop is value for loop in self.loops):
                    return self._element(expr, name_node, value, depth)
                return None
            if isinstance(value, cst.BaseExpression) and self._inside_loop(name_node):
                return self.of(value, depth + 1)  # `dense = rt.to_tensor()` in the loop's body
            return None
        if isinstance(expr, cst.Call):
            names = ctx.qualified_names(expr.func)
            if names & FW.SEQUENCE_CONVERSIONS and expr.args and expr.args[0].keyword is None:
                return self._sequence(expr.args[0].value, depth)
            shaped = next((FW.SHAPED_CONSTRUCTORS[q] for q in sorted(names) if q in FW.SHAPED_CONSTRUCTORS), None)
            if shaped is not None:
                return self._constructed(expr, *shaped)
            if isinstance(expr.func, cst.Attribute) and expr.func.attr.value == FW.RAGGED_TO_DENSE:
                return self._to_dense(expr, depth)
            return None
        if isinstance(expr, cst.Subscript):
            return self._slice(expr, depth)
        return None

    # Names ------------------------------------------------------------------------------------

    def _binding(self, name: cst.Name):
        """(the binding's target Name, what it is bound to) of the one binding that reaches."""
        refs = self.ctx.reaching_in_order(name, self.func)
        if refs and len(refs) > 1:
            # the variable of an enclosing loop that its body does not rebind (`x` of the second
            # of two `for x in ...` loops): that loop's binding is the one
            for loop in reversed(self.loops):
                mine = [r for r in refs if self.ctx.bound_values.get(id(getattr(r, "node", None))) is loop]
                if mine and self._within(name, loop.body):
                    inside = [r for r in refs if self._within(getattr(r, "node", None), loop)]
                    if len(mine) == 1 and len(inside) == 1:
                        refs = mine
                    break
        if refs and len(refs) > 1:
            # bound before the loops and never in them: what reaches the outermost loop reaches here
            outer = next((loop for loop in self.loops if self._within(name, loop)), None)
            if outer is not None and not any(self._within(getattr(r, "node", None), outer) for r in refs):
                refs = self.ctx.reaching_in_order(name, self.func, at=outer)
        if not refs or len(refs) != 1:
            return None
        node = getattr(refs[0], "node", None)
        value = self.ctx.bound_values.get(id(node)) if node is not None else None
        return (node, value) if value is not None else None

    def _inside_loop(self, node) -> bool:
        return any(self._within(node, loop.body) for loop in self.loops)

    def _within(self, node, container) -> bool:
        if node is None:
            return False
        try:
            return self.ctx.inside(node, container)
        except KeyError:
            return False

    def _loop_dependent(self, expr, depth: int = 0) -> cst.Name | None:
        """A name in `expr` whose value changes from one iteration of the loops to the next: a
        loop's variable, or a name bound in a loop's body from one."""
        stack = [expr]
        while stack:
            node = stack.pop()
            if isinstance(node, cst.Name):
                bound = self._binding(node)
                if bound is not None:
                    target, value = bound
                    if isinstance(value, cst.For) and any(loop is value for loop in self.loops):
                        return node
                    if depth < 3 and isinstance(value, cst.BaseExpression) and self._inside_loop(target) \
                            and self._loop_dependent(value, depth + 1) is not None:
                        return node
                continue
            if isinstance(node, (cst.Lambda, cst.FunctionDef)):
                continue
            if isinstance(node, cst.Attribute):
                stack.append(node.value)
                continue
            stack.extend(c for c in node.children if isinstance(c, cst.CSTNode))
        return None

    def _range_variable(self, name: cst.Name) -> bool:
        """`name` is the variable of an enclosing `for name in range(...)` (or over a literal
        tuple or list of different numbers, `for length in (5, 9, 12)`): a new number on every
        iteration."""
        bound = self._binding(name)
        if bound is None or not isinstance(bound[1], cst.For):
            return False
        loop = bound[1]
        if not isinstance(loop.target, cst.Name):
            return False
        if isinstance(loop.iter, cst.Call):
            return "builtins.range" in self.ctx.qualified_names(loop.iter.func)
        if isinstance(loop.iter, (cst.Tuple, cst.List)) and len(loop.iter.elements) > 1:
            values = [el.value for el in loop.iter.elements]
            texts = [code_of(v).strip() for v in values]
            return all(isinstance(v, (cst.Integer, cst.Float)) for v in values) and len(set(texts)) == len(texts)
        return False

    def _distinct_numbers(self, name: cst.Name) -> bool:
        """`name` takes a new number on every iteration: a counting loop's variable, or computed
        from one (`n = i * 8`) in the loop's body."""
        if self._range_variable(name):
            return True
        bound = self._binding(name)
        if bound is None or not isinstance(bound[1], cst.BinaryOperation) or not self._inside_loop(bound[0]):
            return False
        inner = self._loop_dependent(bound[1])
        return inner is not None and inner is not name and self._range_variable(inner)

    # Loop elements ----------------------------------------------------------------------------

    def _element(self, name: cst.Name, target_name, loop: cst.For, depth: int) -> F.Variation | None:
        """`name` is (a part of) the element of `for ... in <iterable>`."""
        iterable, target = loop.iter, loop.target
        if isinstance(iterable, cst.Call) and "builtins.enumerate" in self.ctx.qualified_names(iterable.func) \
                and iterable.args:
            # `for step, batch in enumerate(ds)`: the element is the second part
            if not (isinstance(target, (cst.Tuple, cst.List)) and len(target.elements) == 2):
                return None
            iterable, target = iterable.args[0].value, target.elements[1].value
        found = self._dataset(iterable, depth + 1)
        if found is None:
            return None
        kind, facts, parts, source = found
        origin = "batch" if kind == "remainder" else ""
        if kind == "fixed":
            return None
        where = self.ctx.position(loop)
        loop_fact = fact(f"the call runs on every iteration of the loop over `{self.code(iterable)}` "
                         f"(line {where.line}), with its next element", where)
        if target is target_name or (isinstance(target, cst.Name) and target_name is not None
                                     and target.value == name.value):
            return F.Variation(kind, source, [*facts, loop_fact], origin=origin)
        if not isinstance(target, (cst.Tuple, cst.List)):
            return None
        index = next((i for i, el in enumerate(target.elements)
                      if isinstance(el.value, cst.Name) and el.value.value == name.value), None)
        if index is None:
            return None
        count = len(target.elements)
        if kind == "varies" and parts is not None and len(parts) == count:
            if not parts[index]:
                return None  # this part's declared shape is fixed
            certainty = TRUE
        else:
            certainty = HEURISTIC
        part = fact(f"`{name.value}` is part {index + 1} of {count} of each element, and the code does not "
                    f"show which parts change" if certainty == HEURISTIC else
                    f"`{name.value}` is part {index + 1} of {count} of each element, one declared with "
                    f"`None` dimensions", self.ctx.position(target), certainty)
        pos = self.ctx.position(target)
        return F.Variation(kind, source, [*facts, loop_fact], part_of=f"{pos.line}:{pos.column}",
                           index=index, parts=count, origin=origin, part_fact=part)

    def _dataset(self, expr, depth: int):
        """("varies" | "remainder" | "fixed", facts, which parts of an element have `None`
        dimensions or None, the source phrase) of a dataset expression, or None when unknown."""
        if depth > _DEPTH:
            return None
        ctx = self.ctx
        if isinstance(expr, cst.Name):
            bound = self._binding(expr)
            if bound is None or not isinstance(bound[1], cst.BaseExpression):
                return None
            return self._dataset(bound[1], depth + 1)
        if not isinstance(expr, cst.Call):
            return None
        names = ctx.qualified_names(expr.func)
        if names & FW.ELEMENT_PRESERVING_WRAPPERS and expr.args:
            return self._dataset(expr.args[0].value, depth + 1)
        if names & FW.GENERATOR_DATASETS:
            return self._generator(expr)
        if not isinstance(expr.func, cst.Attribute):
            return None
        method = expr.func.attr.value
        receiver = expr.func.value
        if method in FW.SHAPE_KEEPING_DATASET_METHODS:
            inner = self._dataset(receiver, depth + 1)
            if method in FW.TRUNCATING_DATASET_METHODS and inner is not None and inner[0] == "remainder":
                return None  # `.batch(64).take(5)`: the last, smaller batch may never come
            return inner
        if method == "apply" and expr.args and isinstance(expr.args[0].value, cst.Call):
            applied = expr.args[0].value
            if ctx.qualified_names(applied.func) & FW.BUCKETING:
                return self._bucketing(applied)
            return None
        if method in FW.BUCKETING:
            return self._bucketing(expr)
        if method in FW.BATCHING_ARGUMENTS:
            inner = self._dataset(receiver, depth + 1)
            return self._batching(expr, method, inner)
        return None

    def _argument(self, call: cst.Call, keyword: str, position: int | None):
        for i, arg in enumerate(call.args):
            if arg.keyword is not None:
                if arg.keyword.value == keyword:
                    return arg.value
            elif arg.star:
                return _UNKNOWN
            elif position is not None and i == position:
                return arg.value
        return None

    def _batching(self, call: cst.Call, method: str, inner):
        positions = FW.BATCHING_ARGUMENTS[method]
        drop = self._argument(call, "drop_remainder", positions["drop_remainder"])
        if drop is _UNKNOWN or (drop is not None and not bool_constant(drop)):
            return None
        span = self.ctx.position(call)
        shown = self.code(call)
        tail = None
        if (drop is None or keyword_constant(drop, "False")) and not self._one_batch_of_all(call):
            tail = fact(f"`{shown}` keeps the last, smaller batch (no `drop_remainder=True`): one more shape "
                        f"when the number of elements is not a multiple of the batch size", span, HEURISTIC)
        if method == "padded_batch":
            shapes = self._argument(call, "padded_shapes", positions["padded_shapes"])
            if shapes is _UNKNOWN:
                return None
            if shapes is None or keyword_constant(shapes, "None") or _has_none(shapes):
                return "varies", [fact(f"`{shown}` pads each batch to the longest element in it, so the padded "
                                       f"length changes from batch to batch", span)], None, \
                    f"`{shown}` pads each batch to its own longest element"
            if not _literal_shapes(shapes):
                return None
        elif inner is not None and inner[0] == "varies":
            return inner
        if tail is not None:
            return "remainder", [tail], None, f"`{shown}` keeps a last, smaller batch"
        return "fixed", [], None, ""

    def _one_batch_of_all(self, call: cst.Call) -> bool:
        """`ds.batch(x.shape[0])` (or `len(x)`, through a name bound once) where `ds` is
        `from_tensor_slices` of `x` or of a tuple, list or dict holding `x` (the same binding),
        through methods that keep the count (`frameworks.COUNT_KEEPING_DATASET_METHODS`): one
        batch holds every element, so there is no smaller last batch (`SLICING_DATASETS`)."""
        size = call.args[0].value if call.args and call.args[0].keyword is None and not call.args[0].star \
            else self._argument(call, "batch_size", None)
        if isinstance(size, cst.Name):
            bound = self._binding(size)
            size = bound[1] if bound is not None and isinstance(bound[1], cst.BaseExpression) else None
        counted = _first_axis_of(self.ctx, size)
        if counted is None:
            return False
        source = self._slices_source(call.func.value if isinstance(call.func, cst.Attribute) else None, 0)
        if source is None or not source.args or source.args[0].keyword is not None:
            return False
        given = source.args[0].value
        parts = [e.value for e in given.elements] if isinstance(given, (cst.Tuple, cst.List)) else \
            [e.value for e in given.elements if isinstance(e, cst.DictElement)] if isinstance(given, cst.Dict) else [given]
        mine = self._binding(counted)
        return mine is not None and any(isinstance(p, cst.Name) and p.value == counted.value
                                        and (self._binding(p) or (None,))[0] is mine[0] for p in parts)

    def _slices_source(self, expr, depth: int):
        """The `from_tensor_slices(...)` call a dataset expression is made from through names and
        count-keeping methods, or None."""
        while expr is not None and depth <= _DEPTH:
            depth += 1
            if isinstance(expr, cst.Name):
                bound = self._binding(expr)
                expr = bound[1] if bound is not None and isinstance(bound[1], cst.BaseExpression) else None
            elif isinstance(expr, cst.Call) and self.ctx.qualified_names(expr.func) & FW.SLICING_DATASETS:
                return expr
            elif isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute) \
                    and expr.func.attr.value in FW.COUNT_KEEPING_DATASET_METHODS:
                expr = expr.func.value
            else:
                return None
        return None

    def _bucketing(self, call: cst.Call):
        for arg in call.args:
            if arg.star:
                return None
            if arg.keyword is not None and arg.keyword.value == "pad_to_bucket_boundary":
                if not bool_constant(arg.value):
                    return None
                if keyword_constant(arg.value, "True"):
                    return "fixed", [], None, ""  # one length per bucket: the traces are bounded
        shown = self.code(call)
        return "varies", [fact(f"`{shown}` pads each batch to the longest element of its bucket "
                               f"(no `pad_to_bucket_boundary=True`), so lengths and batch sizes change",
                               self.ctx.position(call))], None, \
            f"`{shown}` pads each bucket's batches to their own longest element"

    def _generator(self, call: cst.Call):
        found = None
        for keyword, position in FW.GENERATOR_SHAPE_ARGUMENTS.items():
            value = self._argument(call, keyword, position)
            if value is _UNKNOWN:
                return None
            if value is not None:
                found = (keyword, value)
                break
        if found is None:
            return None
        keyword, value = found
        if not _has_none(value):
            return "fixed", [], None, ""
        parts = None
        if isinstance(value, (cst.Tuple, cst.List)) and not _is_shape_display(value):
            parts = tuple(_has_none(el.value) for el in value.elements)
        shown = self.code(call)
        # A `None` declares a size unknown, not one that changes: a Function is keyed on the
        # shapes the generator really yields (a generator cropping every example to one length,
        # declared `[2, None, 3]`: 1 trace in 20 batches; 5 lengths: 5 traces;
        # tests/runtime/test_tf_eighteenth_audit_bq_facts.py), which the code rarely shows.
        return "varies", [fact(f"`{shown}` declares `None` dimensions in `{keyword}`: the declaration "
                               f"leaves those sizes open, and a Function is keyed on the shapes the "
                               f"generator really yields; whether they change is not shown",
                               self.ctx.position(call), HEURISTIC)], parts, \
            f"`{shown}` declares elements of open sizes (`None` dimensions)"

    # Values made in the loop ------------------------------------------------------------------

    def _to_dense(self, call: cst.Call, depth: int) -> F.Variation | None:
        shape = self._argument(call, "shape", FW.RAGGED_SHAPE_POSITION)
        if shape is _UNKNOWN or (shape is not None and not keyword_constant(shape, "None")):
            return None
        receiver = call.func.value
        changing = self._loop_dependent(receiver)
        if changing is None:
            return None
        ragged = self._made_ragged(receiver, depth)
        span = self.ctx.position(call)
        shown, value = self.code(call), self.code(receiver)
        return F.Variation("varies", f"`{shown}` pads to the longest row, which changes with `{changing.value}`", [
            fact(f"`{value}` is a ragged value" if ragged else
                 f"`{value}` has a `.to_tensor()` method, as ragged values do", span, TRUE if ragged else HEURISTIC),
            fact(f"`{shown}` pads it to its longest row (no `shape=`), and `{changing.value}` is another value "
                 f"on every iteration", span),
        ])

    def _made_ragged(self, expr, depth: int) -> bool:
        if depth > _DEPTH:
            return False
        if isinstance(expr, cst.Name):
            bound = self._binding(expr)
            return bound is not None and isinstance(bound[1], cst.BaseExpression) \
                and self._made_ragged(bound[1], depth + 1)
        if isinstance(expr, cst.Call):
            return any(q.startswith(FW.RAGGED_MAKERS) for q in self.ctx.qualified_names(expr.func))
        return False

    def _slice(self, sub: cst.Subscript, depth: int) -> F.Variation | None:
        if value_of(self.ctx, sub.value, self.func).what not in ("tensor", "ndarray"):
            return None
        span = self.ctx.position(sub)
        for element in sub.slice:
            piece = element.slice
            if not isinstance(piece, cst.Slice):
                continue
            bounds = [b for b in (piece.lower, piece.upper) if b is not None]
            changing = [(b, n) for b in bounds for n in (self._loop_dependent(b),) if n is not None]
            if not changing:
                continue
            if piece.lower is not None and piece.upper is not None and _fixed_width(piece.lower, piece.upper):
                return F.Variation("remainder", f"the last `{self.code(sub)}` is shorter", origin="window", facts=[fact(
                    f"`{self.code(sub)}` is a window of fixed width, except the last one when the length "
                    f"is not a multiple of the width: one more shape", span, HEURISTIC)])
            if len(changing) == len(bounds) and len(bounds) == 2:
                return None  # both ends move: the width may well be fixed (`starts[i]:ends[i]`)
            bound, name = changing[0]
            if not self._range_variable(name) and value_of(self.ctx, name, self.func).what not in NUMBERS:
                return None  # `x[:y.shape[0]]`: as long as `y`, whose shape the code does not show
            certainty = TRUE if self._range_variable(name) else HEURISTIC
            return F.Variation("varies", f"`{self.code(sub)}` changes length with `{name.value}`", [fact(
                f"`{self.code(sub)}` ends where `{self.code(bound)}` says, and `{name.value}` "
                + ("takes a new number on every iteration" if certainty == TRUE else "changes between iterations"),
                span, certainty)])
        return None

    def _constructed(self, call: cst.Call, position: int, keyword: str) -> F.Variation | None:
        """`tf.ones([4, length])`: a shape that holds a number the loop changes."""
        shape = self._argument(call, keyword, position)
        if shape is None or shape is _UNKNOWN:
            return None
        name = self._loop_dependent(shape)
        if name is None or not self._distinct_numbers(name):
            return None
        shown = self.code(call)
        return F.Variation("varies", f"`{shown}` has a shape that holds `{name.value}`", [fact(
            f"`{shown}` has the shape `{self.code(shape)}`, and `{name.value}` takes a new number on every "
            f"iteration", self.ctx.position(call))])

    def _sequence(self, expr, depth: int) -> F.Variation | None:
        """A Python sequence converted to a tensor whose length changes per iteration."""
        if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, cst.Multiply):
            for seq, count in ((expr.left, expr.right), (expr.right, expr.left)):
                if isinstance(seq, (cst.List, cst.Tuple)):
                    name = self._loop_dependent(count)
                    if name is not None:
                        return self._length(expr, name)
            return None
        if isinstance(expr, cst.Call) and self.ctx.qualified_names(expr.func) & {"builtins.list", "builtins.range"} \
                and expr.args:
            inner = expr.args[0].value
            if "builtins.range" in self.ctx.qualified_names(expr.func):
                inner = expr
            if isinstance(inner, cst.Call) and "builtins.range" in self.ctx.qualified_names(inner.func) \
                    and len(inner.args) == 1:
                name = self._loop_dependent(inner.args[0].value)
                if name is not None:
                    return self._length(expr, name)
            return None
        if isinstance(expr, (cst.ListComp, cst.GeneratorExp)) and expr.for_in.inner_for_in is None:
            counted = expr.for_in.iter  # `[0.0 for _ in range(n)]`
            if not (isinstance(counted, cst.Call) and "builtins.range" in self.ctx.qualified_names(counted.func)
                    and len(counted.args) == 1):
                return None
            name = self._loop_dependent(counted.args[0].value)
            if name is not None:
                return self._length(expr, name)
            return None
        return self.of(expr, depth + 1) if isinstance(expr, cst.Subscript) else None

    def _length(self, seq, name: cst.Name) -> F.Variation:
        certainty = TRUE if self._range_variable(name) else HEURISTIC
        return F.Variation("varies", f"`{self.code(seq)}` has `{name.value}` items", [fact(
            f"`{self.code(seq)}` has `{name.value}` items, and `{name.value}` "
            + ("takes a new number on every iteration" if certainty == TRUE else "changes between iterations")
            + ": the converted tensor's length changes with it", self.ctx.position(seq), certainty)])


_UNKNOWN = object()


def _has_none(node) -> bool:
    """A `None` (or `-1`) dimension anywhere in a shape expression (not a `name=None` keyword)."""
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, cst.Arg) and n.keyword is not None and n.keyword.value != "shape":
            continue
        if keyword_constant(n, "None"):
            return True
        if isinstance(n, cst.UnaryOperation) and isinstance(n.operator, cst.Minus) \
                and isinstance(n.expression, cst.Integer) and n.expression.value == "1":
            return True
        stack.extend(c for c in n.children if isinstance(c, cst.CSTNode))
    return False


def _literal_shapes(node) -> bool:
    """A shape display of integers (or nested displays of them, a dict of them)."""
    if isinstance(node, cst.Integer):
        return True
    if isinstance(node, (cst.List, cst.Tuple)):
        return all(_literal_shapes(el.value) for el in node.elements)
    if isinstance(node, cst.Dict):
        return all(isinstance(el, cst.DictElement) and _literal_shapes(el.value) for el in node.elements)
    if isinstance(node, cst.Call) and node.args and all(a.keyword is None for a in node.args):
        return all(_literal_shapes(a.value) for a in node.args)  # `tf.TensorShape([16])`
    return False


def _is_shape_display(node) -> bool:
    """`[None, 16]` (one shape), not `(spec_a, spec_b)` (the parts of an element)."""
    return all(isinstance(el.value, (cst.Integer, cst.Name)) for el in node.elements)


def _fixed_width(lower, upper) -> bool:
    """`i:i + 32`, `i * k:(i + 1) * k`-like bounds whose difference does not depend on the loop:
    the upper bound adds a constant to the lower one."""
    if isinstance(upper, cst.BinaryOperation) and isinstance(upper.operator, cst.Add):
        start = code_of(lower).strip()
        return start in (code_of(upper.left).strip(), code_of(upper.right).strip())
    return False


# Input signatures a call passes, run by run ---------------------------------------------------

def call_signatures(ctx, call: cst.Call, func, loops) -> list[tuple] | None:
    """The input signatures (each positional argument's shape) `call` passes on its successive
    runs in one run of `func`, when the code shows them for sure, else None: every argument a
    name whose one reaching binding is a shaped constructor (`frameworks.SHAPED_CONSTRUCTORS`:
    `tf.zeros([10, 20])`, `tf.random.uniform(tf.constant((10, 100), dtype=tf.int32))`) given a
    literal shape, or the variable of the one loop of `func` around the call, a `for` over a
    literal list of literal shapes (`for s in [[10, 20, 30], [10, 22, 33, 44]]`): one signature
    per iteration, in order. A call in a loop whose shapes the loop does not set repeats its
    signature. Keywords and starred arguments are not read (None). `loops`: the loops of the
    module (each `for`/`while`), to find those around the call.

    A Function (and `jax.jit`) keys its traces on the input shapes: a call whose signature no
    earlier call of the same object passed traces anew, and the new trace reads what its
    closure holds at that moment (TF 2.21: tests/runtime/test_tf_new_shape_closure_facts.py)."""
    if not call.args or any(a.keyword is not None or a.star for a in call.args):
        return None
    around = [lp for lp in loops if ctx.inside(call, lp) and (func is None or ctx.inside(lp, func.node))]
    if len(around) > 1:
        return None
    loop = around[0] if around else None
    per_arg = []
    for arg in call.args:
        shapes = _argument_shapes(ctx, arg.value, func, loop)
        if shapes is None:
            return None
        per_arg.append(shapes)
    if loop is None:
        if any(len(s) != 1 for s in per_arg):
            return None
        return [tuple(s[0] for s in per_arg)]
    counts = {len(s) for s in per_arg if len(s) != 1}
    if len(counts) != 1:
        return None  # no argument's shape follows the loop: the same signature on each iteration
    n = counts.pop()
    return [tuple(s[i] if len(s) > 1 else s[0] for s in per_arg) for i in range(n)]


def _argument_shapes(ctx, expr, func, loop) -> list[tuple] | None:
    """[the shape] of an argument, or the shapes it takes on the iterations of `loop`."""
    if not isinstance(expr, cst.Name):
        return None
    refs = ctx.reaching_in_order(expr, func)
    if not refs or len(refs) != 1:
        return None
    node = getattr(refs[0], "node", None)
    value = ctx.bound_values.get(id(node)) if node is not None else None
    if not isinstance(value, cst.Call):
        return None
    shape = _constructed_shape(value, ctx.qualified_names(value.func))
    if shape is None:
        return None
    shape = _unwrapped(ctx, shape)
    literal = _literal_shape(shape)
    if literal is not None:
        return [literal]
    if loop is None or not (isinstance(shape, cst.Name) and ctx.inside(node, loop.body)):
        return None
    return _loop_shapes(ctx, shape, loop)


def _unwrapped(ctx, shape):
    """`tf.constant(s, dtype=tf.int32)` as a shape: `s`."""
    while isinstance(shape, cst.Call) and ctx.qualified_names(shape.func) & FW.SEQUENCE_CONVERSIONS \
            and shape.args and shape.args[0].keyword is None and not shape.args[0].star:
        shape = shape.args[0].value
    return shape


def _literal_shape(expr) -> tuple | None:
    """(10, 100) for `[10, 100]` / `(10, 100)`: every dimension a literal int."""
    if not isinstance(expr, (cst.List, cst.Tuple)):
        return None
    dims = []
    for el in expr.elements:
        if not isinstance(el, cst.Element) or not isinstance(el.value, cst.Integer):
            return None
        dims.append(int(el.value.evaluated_value))
    return tuple(dims)


def _loop_shapes(ctx, name, loop) -> list[tuple] | None:
    """The shapes `name`, the variable of `for name in [<literal shapes>]`, takes, in order."""
    if not isinstance(name, cst.Name) or not isinstance(loop, cst.For) or not isinstance(loop.target, cst.Name) \
            or loop.target.value != name.value or not isinstance(loop.iter, (cst.List, cst.Tuple)):
        return None
    refs = ctx.bindings_of(name)
    if len(refs) != 1 or getattr(refs[0], "node", None) is not loop.target:
        return None
    shapes = [_literal_shape(el.value) if isinstance(el, cst.Element) else None for el in loop.iter.elements]
    return shapes if shapes and all(s is not None for s in shapes) else None


# A new shape on every iteration of a loop (STG502 under JAX) -----------------------------------

#: The most iterations whose values `loop_values` spells out.
_MAX_ITERATIONS = 4096


class _Unknown(Exception):
    """A value `_evaluate` cannot compute from the code."""


_OPERATORS = {
    cst.Add: lambda a, b: a + b, cst.Subtract: lambda a, b: a - b, cst.Multiply: lambda a, b: a * b,
    cst.Divide: lambda a, b: a / b, cst.FloorDivide: lambda a, b: a // b, cst.Modulo: lambda a, b: a % b,
    cst.Power: lambda a, b: a ** b if abs(b) < 64 else _raise(),
}
_BUILTINS = {"builtins.int": int, "builtins.round": round, "builtins.abs": abs, "builtins.min": min,
             "builtins.max": max}


def _raise():
    raise _Unknown


def loop_values(ctx, loop, func) -> list[dict] | None:
    """Per iteration of `loop`, the values its variables take, when the code spells them out: a
    `for` over `range(...)` of constant integers, or over a literal list or tuple (or a name bound
    once to one) of literals, each unpacked by a target tuple of names. None otherwise."""
    if not isinstance(loop, cst.For):
        return None
    target = loop.target
    names = [target.value] if isinstance(target, cst.Name) else [
        el.value.value if isinstance(el.value, cst.Name) else None for el in target.elements] \
        if isinstance(target, (cst.Tuple, cst.List)) else None
    if not names or None in names:
        return None
    it = loop.iter
    if isinstance(it, cst.Call) and it.args and it.args[0].keyword is None and not it.args[0].star \
            and ctx.qualified_names(it.func) & FW.ELEMENT_PRESERVING_WRAPPERS:
        it = it.args[0].value  # `for K in tqdm(Ks)`: a progress bar yields the items it wraps
    if isinstance(it, cst.Name):
        # (a name bound once to a range or a literal list: `Ks = range(5, 51, 5)`)
        refs = ctx.reaching_in_order(it, func)
        if not refs or len(refs) != 1 or id(getattr(refs[0], "node", None)) in ctx.unpacked_at:
            return None
        it = ctx.bound_values.get(id(getattr(refs[0], "node", None)))
    try:
        if isinstance(it, cst.Call) and "builtins.range" in ctx.qualified_names(it.func):
            numbers = _range_of(ctx, it.args, func, None, {})
            if numbers is None or len(numbers) > _MAX_ITERATIONS:
                return None
            items = list(numbers)
        else:
            if not isinstance(it, (cst.List, cst.Tuple)) or len(it.elements) > _MAX_ITERATIONS:
                return None
            # (a literal, or a name bound once to a number: `[1, 2, 5, M_MAX]`)
            items = [(_evaluate(ctx, el.value, func, None, {}, 0) if isinstance(el.value, cst.Name)
                      else _literal(el.value)) if isinstance(el, cst.Element) else _raise() for el in it.elements]
    except (_Unknown, ValueError, TypeError):
        return None
    out = []
    for item in items:
        if len(names) == 1 and isinstance(target, cst.Name):
            out.append({names[0]: item})
        elif isinstance(item, (tuple, list)) and len(item) == len(names):
            out.append(dict(zip(names, item)))
        else:
            return None
    return out


def _literal(expr):
    """A literal's value: a scalar one (`literals.literal_value`: numbers, strings, `True`, `False`,
    `None`), or a tuple or list of literals (as a tuple: `(2, True)`, a loop item unpacked)."""
    if isinstance(expr, (cst.Tuple, cst.List)):
        return tuple(_literal(el.value) if isinstance(el, cst.Element) else _raise() for el in expr.elements)
    known, value = literal_value(expr)
    if not known:
        raise _Unknown
    return value


def _evaluate(ctx, expr, func, loop, env: dict, depth: int):
    """The value of `expr` on the iteration of `loop` whose variables `env` holds: numbers, the
    loop's variables, arithmetic, `int`/`round`/`abs`/`min`/`max`, tuples and lists, and names
    whose one binding reaching the expression is such an expression."""
    if depth > _DEPTH:
        raise _Unknown
    if isinstance(expr, (cst.Integer, cst.Float)):
        return expr.evaluated_value
    if isinstance(expr, (cst.Tuple, cst.List)):
        return tuple(_evaluate(ctx, el.value, func, loop, env, depth + 1) if isinstance(el, cst.Element) else _raise()
                     for el in expr.elements)
    if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, (cst.Minus, cst.Plus)):
        value = _evaluate(ctx, expr.expression, func, loop, env, depth + 1)
        return -value if isinstance(expr.operator, cst.Minus) else value
    if isinstance(expr, cst.BinaryOperation) and type(expr.operator) in _OPERATORS:
        left = _evaluate(ctx, expr.left, func, loop, env, depth + 1)
        right = _evaluate(ctx, expr.right, func, loop, env, depth + 1)
        try:
            return _OPERATORS[type(expr.operator)](left, right)
        except (ArithmeticError, TypeError, ValueError):
            raise _Unknown from None
    if isinstance(expr, cst.Call) and expr.args and not any(a.keyword is not None or a.star for a in expr.args):
        fn = next((_BUILTINS[q] for q in ctx.qualified_names(expr.func) if q in _BUILTINS), None)
        if fn is not None:
            try:
                return fn(*(_evaluate(ctx, a.value, func, loop, env, depth + 1) for a in expr.args))
            except (ArithmeticError, TypeError, ValueError, OverflowError):
                raise _Unknown from None
    if isinstance(expr, cst.Name):
        if loop is not None and expr.value in env and ctx.inside(expr, loop.body) and isinstance(loop, cst.For) \
                and not any(ctx.inside(getattr(b, "node", loop), loop.body) for b in ctx.bindings_of(expr)):
            # the loop's variable in its own body, which binds it nowhere (a script's module-level
            # loops may bind the same name: `for M in M_values:` twice)
            return env[expr.value]
        refs = ctx.reaching_in_order(expr, func)
        if not refs or len(refs) != 1:
            raise _Unknown
        node = getattr(refs[0], "node", None)
        bound = ctx.bound_values.get(id(node))
        if loop is not None and bound is loop:
            if expr.value not in env:
                raise _Unknown
            return env[expr.value]
        if isinstance(bound, cst.BaseExpression) and id(node) not in ctx.unpacked_at \
                and not isinstance(bound, (cst.For, cst.AugAssign)):
            return _evaluate(ctx, bound, func, loop, env, depth + 1)
    raise _Unknown


def _constructed_shape(call: cst.Call, names) -> cst.BaseExpression | None:
    """The shape argument of a shaped constructor's call (`frameworks.SHAPED_CONSTRUCTORS`: its
    position and keyword; `jnp.ones((n, n))`: `(n, n)`), named `names`, or None."""
    shaped = next((FW.SHAPED_CONSTRUCTORS[q] for q in sorted(names) if q in FW.SHAPED_CONSTRUCTORS), None)
    if shaped is None:
        return None
    arg = passed_argument(call, *shaped)
    return arg.value if arg is not None else None


def new_shape_each_iteration(ctx, node, loop, func) -> bool:
    """The binding `node`, made in the body of `loop`, holds an array whose shape the code shows
    is another on every iteration: its shape, computed from the loop's variables (`loop_values`),
    differs between every two iterations. The shape is known from a shaped constructor (or a
    shape-keeping conversion of one: `jnp.ones((M, K))` for `M, K` of three literal sizes;
    `np.zeros([NUM, 3])` with `NUM = int(12500 * (step + 1))` over `range(100)`), a range of
    numbers (`jnp.arange(n)`, `jnp.linspace(0, 1, n)`: `frameworks.SIZED_RANGES`), a one-hot
    encoding, whose last dimension is the number of classes (`jax.nn.one_hot(y, K)`:
    `frameworks.APPENDED_AXIS`), or an assertion the iteration makes before using it (`assert
    labels.shape == (N, K)`: past it, the shape is that one). Two shapes differ where one
    dimension the code shows differs (`y.shape + (K,)` for `K` in `range(5, 51, 5)`, whatever `y`).
    JAX keys a trace on the arguments' shapes and a closed-over array is a constant of the
    program: each iteration is a new program, which one jitted function made before the loop
    would trace and compile as often (tests/runtime/test_jax_twelfth_audit_facts.py,
    tests/runtime/test_jax_new_program_facts.py)."""
    if node is None or not isinstance(loop, cst.For) or not ctx.inside(node, loop.body):
        return False
    if id(node) in ctx.unpacked_at:
        return False
    iterations = loop_values(ctx, loop, func)
    if not iterations or len(iterations) < 2:
        return False
    shapes = []
    for env in iterations:
        shape = _binding_shape(ctx, node, func, loop, env)
        if shape is None:
            return False
        shapes.append(shape)
    return _all_differ(shapes)


#: A shape the code shows, in part: (dimensions, whole). `whole`: the tuple is the shape, each
#: dimension an int or None (not shown); else it is the shape's last dimensions, its rank not shown.
_Shape = tuple


def _all_differ(shapes: list) -> bool:
    """Every two of `shapes` are known to differ: their dimensions at the places every one of them
    shows (counted from the end, where a rank is not shown), with the rank when all are whole,
    are another tuple for each (a linear test, where pairs would be quadratic in the iterations)."""
    n = min(len(dims) for dims, _ in shapes)
    places = [j for j in range(1, n + 1) if all(dims[-j] is not None for dims, _ in shapes)]
    whole = all(w for _, w in shapes)
    keys = [((len(dims),) if whole else ()) + tuple(dims[-j] for j in places) for dims, _ in shapes]
    return (bool(places) or whole) and len(set(keys)) == len(keys)


def _dimensions(ctx, expr, func, loop, env) -> _Shape | None:
    """The shape a shape expression (`(N, K)`, `[n]`, `n`, `s + (K,)`) gives on one iteration."""
    expr = _unwrapped(ctx, expr)
    if isinstance(expr, (cst.Tuple, cst.List)):
        dims = []
        for el in expr.elements:
            if not isinstance(el, cst.Element):
                return None
            try:
                value = _evaluate(ctx, el.value, func, loop, env, 0)
            except _Unknown:
                value = None
            dims.append(value if isinstance(value, int) else None)
        return tuple(dims), True
    try:
        value = _evaluate(ctx, expr, func, loop, env, 0)
    except _Unknown:
        value = None
    if isinstance(value, int):
        return (value,), True
    if isinstance(value, tuple) and all(isinstance(v, int) for v in value):
        return value, True
    if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, cst.Add) \
            and isinstance(expr.right, (cst.Tuple, cst.List)):
        # `labels.shape + (K,)`: the last dimensions, whatever comes before them
        right = _dimensions(ctx, expr.right, func, loop, env)
        return (right[0], False) if right is not None else None
    return None


def _binding_shape(ctx, node, func, loop, env, depth: int = 0) -> _Shape | None:
    """The shape of the array the binding `node` holds on the iteration `env` of `loop`, as far
    as the code shows it (`new_shape_each_iteration`), or None."""
    if depth > _DEPTH or node is None or id(node) in ctx.unpacked_at:
        return None
    asserted = _asserted_shape(ctx, node, func, loop, env)
    if asserted is not None:
        return asserted
    value = ctx.bound_values.get(id(node))
    if not isinstance(value, cst.Call):
        return None
    return _call_shape(ctx, value, func, loop, env, depth)


def _call_shape(ctx, call: cst.Call, func, loop, env, depth: int) -> _Shape | None:
    names = ctx.qualified_names(call.func)
    if names & FW.SEQUENCE_CONVERSIONS:
        if not call.args or call.args[0].keyword is not None or call.args[0].star \
                or not isinstance(call.args[0].value, cst.Name):
            return None
        refs = ctx.reaching_in_order(call.args[0].value, func)
        if not refs or len(refs) != 1:
            return None
        return _binding_shape(ctx, getattr(refs[0], "node", None), func, loop, env, depth + 1)
    shape = _constructed_shape(call, names)
    if shape is not None:
        return _dimensions(ctx, shape, func, loop, env)
    sized = next((FW.SIZED_RANGES[q] for q in sorted(names) if q in FW.SIZED_RANGES), None)
    if sized is not None:
        return _range_length(ctx, call, sized, func, loop, env)
    appended = next((FW.APPENDED_AXIS[q] for q in sorted(names) if q in FW.APPENDED_AXIS), None)
    if appended is not None:
        arg = passed_argument(call, *appended)
        if arg is None:
            return None
        try:
            size = _evaluate(ctx, arg.value, func, loop, env, 0)
        except _Unknown:
            return None
        return ((size,), False) if isinstance(size, int) else None
    return None


def _range_of(ctx, args, func, loop, env) -> range | None:
    """The numbers `range(*args)` gives, its arguments evaluated on the iteration `env` of `loop`
    (`_evaluate`): one to three integers, none passed by keyword or star; else None."""
    if not 1 <= len(args) <= 3 or any(a.keyword is not None or a.star for a in args):
        return None
    try:
        bounds = [_evaluate(ctx, a.value, func, loop, env, 0) for a in args]
        return range(*bounds) if all(isinstance(b, int) for b in bounds) else None
    except (_Unknown, ValueError):
        return None  # (a step of 0)


def _range_length(ctx, call, sized, func, loop, env) -> _Shape | None:
    """The length of `jnp.arange(...)` (`range`'s arguments) or `jnp.linspace(start, stop, num)`."""
    if any(a.star for a in call.args):
        return None
    if sized == "range":
        numbers = _range_of(ctx, call.args, func, loop, env)
        return ((len(numbers),), True) if numbers is not None else None
    try:
        position, keyword, default = sized
        arg = passed_argument(call, position, keyword)
        num = _evaluate(ctx, arg.value, func, loop, env, 0) if arg is not None else default
    except (_Unknown, ValueError):
        return None
    return ((num,), True) if isinstance(num, int) else None


def _asserted_shape(ctx, node, func, loop, env) -> _Shape | None:
    """The shape an `assert <name>.shape == <shape>` in the body of `loop`, reached by the binding
    `node` and by no other, states: the iteration goes on past it only with that shape."""
    name = node if isinstance(node, cst.Name) else None
    if name is None:
        return None
    for stmt in _statements(loop.body):
        for small in getattr(stmt, "body", ()):
            if not isinstance(small, cst.Assert) or not isinstance(small.test, cst.Comparison):
                continue
            test = small.test
            if len(test.comparisons) != 1 or not isinstance(test.comparisons[0].operator, cst.Equal):
                continue
            left, right = test.left, test.comparisons[0].comparator
            if not (isinstance(left, cst.Attribute) and left.attr.value == "shape"
                    and isinstance(left.value, cst.Name) and left.value.value == name.value):
                continue
            refs = ctx.reaching_in_order(left.value, func)
            if not refs or len(refs) != 1 or getattr(refs[0], "node", None) is not node:
                continue
            shape = _dimensions(ctx, right, func, loop, env)
            if shape is not None and shape[1]:
                return shape
    return None


def _statements(block):
    """The simple statements of a loop's body, in order, not those of nested blocks."""
    return [s for s in getattr(block, "body", ()) if isinstance(s, cst.SimpleStatementLine)]


def new_length_each_iteration(ctx, node, loop, func) -> bool:
    """The binding `node`, made in the body of `loop`, holds a slice `seq[:n]` (`seq[a:b]`, no
    step, bounds of non-negative numbers) whose length `b - a`, computed from the loop's variables
    (`loop_values`), differs between every two iterations: another number of items each time, when
    `seq` is that long (not shown)."""
    if node is None or not isinstance(loop, cst.For) or not ctx.inside(node, loop.body) \
            or id(node) in ctx.unpacked_at:
        return False
    value = ctx.bound_values.get(id(node))
    if not (isinstance(value, cst.Subscript) and len(value.slice) == 1
            and isinstance(value.slice[0].slice, cst.Slice)):
        return False
    part = value.slice[0].slice
    if part.step is not None or part.upper is None:
        return False
    iterations = loop_values(ctx, loop, func)
    if not iterations or len(iterations) < 2:
        return False
    try:
        bounds = [(_evaluate(ctx, part.lower, func, loop, env, 0) if part.lower is not None else 0,
                   _evaluate(ctx, part.upper, func, loop, env, 0)) for env in iterations]
    except _Unknown:
        return False
    if not all(isinstance(b, int) and b >= 0 for pair in bounds for b in pair):
        return False
    lengths = [upper - lower for lower, upper in bounds]
    return all(n > 0 for n in lengths) and len(set(lengths)) == len(lengths)


def _first_axis_of(ctx, expr) -> cst.Name | None:
    """`x` of `x.shape[0]` or `len(x)`: the length of a name's first axis; None otherwise."""
    if isinstance(expr, cst.Subscript) and len(expr.slice) == 1 and isinstance(expr.slice[0].slice, cst.Index) \
            and literal_value(expr.slice[0].slice.value) == (True, 0) and isinstance(expr.value, cst.Attribute) \
            and expr.value.attr.value == "shape" and isinstance(expr.value.value, cst.Name):
        return expr.value.value
    if isinstance(expr, cst.Call) and "builtins.len" in ctx.qualified_names(expr.func) and len(expr.args) == 1 \
            and isinstance(expr.args[0].value, cst.Name) and not expr.args[0].star:
        return expr.args[0].value
    return None
