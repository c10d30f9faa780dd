"""The package's import graph: data flows one way, no circles (docs/../design layout).

Imports are read from the sources with `ast` (those inside functions too: a lazy import is
still an arrow), and the circles found with Tarjan's strongly connected components."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "stagelint"

#: The pipeline and what drives it: no circle may touch these.
PIPELINE = ("stagelint.pipeline", "stagelint.engine", "stagelint.screen", "stagelint.workers",
            "stagelint.demand", "stagelint.discovery", "stagelint.cache", "stagelint.files",
            "stagelint.flake8_plugin", "stagelint.server", "stagelint.cli")

#: Where circles are known and owned by other work: the analysis model (one traversal and the
#: value inferences it calls back), the report formats, the rule registry (`all_rules()` imports
#: the package that registers the rules). A circle must stay inside one of these; a circle
#: anywhere else, or across two of them, fails.
KNOWN_ELSEWHERE = [
    {"stagelint.context", "stagelint.tensors", "stagelint.stores", "stagelint.datasets", "stagelint.analysis",
     "stagelint.analysis.values", "stagelint.analysis.order", "stagelint.analysis.effects", "stagelint.facts",
     "stagelint.fastmeta"},
    {"stagelint.report", "stagelint.report.concise", "stagelint.report.full"},
    {"stagelint.fix", "stagelint.notebooks"},  # a notebook's fixes are placed in its cells
]


def _modules() -> dict[str, Path]:
    out = {}
    for path in PACKAGE.rglob("*.py"):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def _imports(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    targets = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            targets.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - (node.level - 1)]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            for a in node.names:
                full = f"{module}.{a.name}"
                targets.add(full if full in modules else module)
    out = set()
    for target in targets:
        while target and target not in modules:
            target = target.rpartition(".")[0]
        if target and target != name:
            out.add(target)
    return out


def graph() -> dict[str, set[str]]:
    modules = _modules()
    return {name: _imports(name, path, modules) for name, path in modules.items()}


def circles(edges: dict[str, set[str]]) -> list[set[str]]:
    """Strongly connected components of more than one module (iterative Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out = []
    for start in sorted(edges):
        if start in index:
            continue
        work = [(start, iter(sorted(edges[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.add(member)
                    if member == node:
                        break
                if len(component) > 1:
                    out.append(component)
    return out


def _in_pipeline(module: str) -> bool:
    return any(module == p or module.startswith(p + ".") for p in PIPELINE)


def test_the_finder_sees_a_circle_and_a_lazy_import():
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [{"a", "b", "c"}]
    edges = graph()
    assert "stagelint.pipeline.stages" in edges["stagelint.engine"]
    # a function-level import counts: the screen reads the result cache's settings lazily
    assert "stagelint.cache" in edges["stagelint.screen"]


def test_no_import_circle_touches_the_pipeline():
    found = circles(graph())
    assert [c for c in found if any(_in_pipeline(m) for m in c)] == []


def test_no_new_import_circle_elsewhere():
    rules = {m for m in _modules() if m.startswith("stagelint.rules")}
    for component in circles(graph()):
        assert any(component <= known for known in (*KNOWN_ELSEWHERE, rules)), sorted(component)


def test_the_pipeline_does_not_import_the_engine():
    edges = graph()
    for module, targets in edges.items():
        if module.startswith("stagelint.pipeline") or module in ("stagelint.screen", "stagelint.workers",
                                                                  "stagelint.demand", "stagelint.discovery"):
            assert "stagelint.engine" not in targets, module
