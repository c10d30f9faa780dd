"""Divergences explained by identity comparisons of traced arguments: `jit`'s, not the code's.

The framework fact (JAX 0.10.2, tests/runtime/fixtures/fx_jax_identity.py): `jax.jit` calls the
Python function with a new tracer for every array leaf of its arguments (a NumPy array, a Python
number, a leaf of a dict of state), so `a is b` between such a leaf and any other object is False:
the object the caller passed, the same array passed twice, a cached `1` the body sets again. With
jit disabled the function gets the caller's own objects, and the same comparison can be True.
Haiku's `hk.jit` finds the state a function changed that way (`a.current is not b.current`): under
`jit` an unchanged value is "changed" and returned, eagerly it is None.

Such a call is not compared (`mode-asserted`): the runs took different branches at an `if` whose
condition compares a value handed to the function by identity, and nothing else differed. What is
required, from the two runs' records of the call (`Call.lines`, `Call.calls`) and the source (read
with `ast`, never imported):

- the graph run traced the call (its Python ran in both runs, on the same inputs);
- every line that ran a different number of times lies in the body or the `else` of an `if` whose
  own line ran as often in both runs;
- each such `if`'s condition holds an identity comparison (`is`, `is not`) of which an operand is
  read from a parameter of the function that compares (a comparison with None, True, False or
  `...` is not one: `jit` passes None through, and a tracer is never a singleton), directly or in
  the return value of a project function the condition called (`is_new(a, b)`, resolved by the
  recorded call).

A divergence with any other difference (a line outside such a branch, a call that did not trace,
a condition that reads Python state) is compared as before: a stale value has no branch to show.
"""

from __future__ import annotations

import ast
import functools

from stagelint.runtime.records import Call

_SINGLETONS = (None, True, False, Ellipsis)
_EXITS = (ast.Return, ast.Raise, ast.Continue, ast.Break)


@functools.lru_cache(maxsize=128)
def _tree(path: str) -> ast.Module | None:
    try:
        with open(path, "rb") as f:
            return ast.parse(f.read(), filename=path)
    except (OSError, SyntaxError, ValueError):
        return None


@functools.lru_cache(maxsize=128)
def _index(path: str) -> tuple[dict, dict, dict]:
    """(line -> the innermost `if` whose body or else holds it, `if` -> the function holding it,
    first line -> function or lambda) for one file."""
    tree = _tree(path)
    branch: dict[int, ast.If] = {}
    owner: dict[ast.AST, ast.AST] = {}
    functions: dict[int, ast.AST] = {}

    def mark(statements: list, node: ast.If) -> None:
        for stmt in statements:
            for line in range(stmt.lineno, (stmt.end_lineno or stmt.lineno) + 1):
                branch[line] = node  # inner `if`s are walked later and win

    def walk(node: ast.AST, function: ast.AST | None) -> None:
        for field in ("body", "orelse", "finalbody"):
            block = getattr(node, field, None)
            if not isinstance(block, list):
                continue
            for i, stmt in enumerate(block):
                # An `if` whose body always leaves (`return`, `raise`) decides the statements after it too.
                if isinstance(stmt, ast.If) and isinstance(stmt.body[-1], _EXITS) and not stmt.orelse:
                    mark(block[i + 1:], stmt)
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                first = min([child.lineno] + [d.lineno for d in getattr(child, "decorator_list", ())])
                functions.setdefault(first, child)
                walk(child, child)
                continue
            if isinstance(child, ast.If):
                owner[child] = function
                mark(child.body + child.orelse, child)
            walk(child, function)

    if tree is not None:
        walk(tree, None)
    return branch, owner, functions


def _parameters(function: ast.AST | None) -> set[str]:
    if function is None:
        return set()
    a = function.args
    names = [p.arg for p in a.posonlyargs + a.args + a.kwonlyargs]
    names += [p.arg for p in (a.vararg, a.kwarg) if p is not None]
    return set(names)


def _root(node: ast.AST) -> str | None:
    """The name an expression reads through attributes and subscripts (`a.current` -> `a`)."""
    while isinstance(node, (ast.Attribute, ast.Subscript)):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def _compares_identity(expr: ast.AST, params: set[str]) -> bool:
    """An `is`/`is not` of the expression has a non-singleton operand read from a parameter."""
    for node in ast.walk(expr):
        if not isinstance(node, ast.Compare):
            continue
        operands = [node.left, *node.comparators]
        for op, left, right in zip(node.ops, operands, operands[1:]):
            if not isinstance(op, (ast.Is, ast.IsNot)):
                continue
            if any(isinstance(x, ast.Constant) and x.value in _SINGLETONS for x in (left, right)):
                continue
            if _root(left) in params or _root(right) in params:
                return True
    return False


def _returns_identity(function: ast.AST) -> bool:
    """The function's return value holds such a comparison of its own parameters."""
    params = _parameters(function)
    if isinstance(function, ast.Lambda):
        return _compares_identity(function.body, params)
    return any(isinstance(n, ast.Return) and n.value is not None and _compares_identity(n.value, params)
               for n in ast.walk(function))


def _condition_by_identity(node: ast.If, owner: ast.AST | None, called: set[tuple[str, int]]) -> bool:
    """The `if`'s condition compares by identity, itself or through a project function it called."""
    if _compares_identity(node.test, _parameters(owner)):
        return True
    for callee_path, first in called:
        function = _index(callee_path)[2].get(first) if callee_path else None
        if function is not None and _returns_identity(function):
            return True
    return False


def identity_split(graph: Call, eager: Call) -> str | None:
    """Why the two results of a call differ only by identity comparisons of traced arguments, or None."""
    if not graph.traced or graph.error or eager.error:
        return None
    ran = set(graph.lines) | set(eager.lines)
    moved = [key for key in ran if graph.lines.get(key, 0) != eager.lines.get(key, 0)]
    if not moved:
        return None
    splits: dict[tuple[str, int], ast.If] = {}
    for path, line in moved:
        if path is None:
            return None
        branch, _, _ = _index(path)
        node = branch.get(line)
        if node is None or graph.lines.get((path, node.lineno), 0) != eager.lines.get((path, node.lineno), 0):
            return None
        splits[path, node.lineno] = node
    for (path, _), node in splits.items():
        _, owner, _ = _index(path)
        test_lines = range(node.test.lineno, (node.test.end_lineno or node.test.lineno) + 1)
        called = {callee for run in (graph, eager) for ln in test_lines for callee in run.calls.get((path, ln), ())}
        if not _condition_by_identity(node, owner.get(node), called):
            return None
    path, line = min(splits)
    return (f"the runs took different branches at line {line} of {path.rsplit('/', 1)[-1]}, whose condition "
            "compares a value handed to the function by identity (`is`): jit passes every array argument as a "
            "new tracer, so the comparison is False under jit, while with jit disabled the function gets the "
            "caller's own objects")
