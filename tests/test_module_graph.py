"""The package's import graph: data flows one way, no circles (../shared/design/layout.md).

Imports are read from the sources with `ast`, and every import counts as an arrow: those at
module level, those inside a function (a lazy import is the same dependency, only paid later:
a function-local import that points back up the graph is a stage calling back into the one
before it) and those under `if TYPE_CHECKING:` (a type the module names is a thing it knows).
Circles are found with Tarjan's strongly connected components."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "stagelint"

#: The pipeline and what drives it: no circle may touch these.
PIPELINE = ("stagelint.pipeline", "stagelint.engine", "stagelint.pipeline.screen", "stagelint.pipeline.workers",
            "stagelint.pipeline.demand", "stagelint.pipeline.discovery", "stagelint.pipeline.cache", "stagelint.pipeline.files",
            "stagelint.flake8_plugin", "stagelint.server", "stagelint.cli")

#: The layers, bottom first: a module may import its own layer and those below, never one above.
#: (Modules not listed are left to the circle test.)
LAYERS = (
    ("stagelint.frameworks",),
    ("stagelint.analysis.facts", "stagelint.analysis.fastmeta", "stagelint.analysis.trivia", "stagelint.analysis.memo",
     "stagelint.analysis.literals", "stagelint.analysis.arguments"),
    # the per-file context, and the JAX staging views it asks when it enters a function (which
    # JAX API decorates it): they take the context as an argument, never import it
    ("stagelint.analysis.context", "stagelint.analysis.jaxstaging", "stagelint.analysis.nnx"),
)


def _modules(package: Path = PACKAGE) -> dict[str, Path]:
    out = {}
    for path in package.rglob("*.py"):
        parts = list(path.relative_to(package.parent).with_suffix("").parts)
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
        # Importing `a.b.c` runs `a.b`'s `__init__` first: an arrow too, unless that package is
        # one the importer sits in (its `__init__` is already running or done).
        parent = target.rpartition(".")[0]
        while parent:
            if parent in modules and not (name == parent or name.startswith(parent + ".")):
                out.add(parent)
            parent = parent.rpartition(".")[0]
    return out


def graph(package: Path = PACKAGE) -> dict[str, set[str]]:
    modules = _modules(package)
    return {name: _imports(name, path, modules) for name, path in modules.items()}


def _package(root: Path, files: dict[str, str]) -> Path:
    """Write a package of `files` (paths under root) and return its folder `root/pkg`."""
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root / "pkg"


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
    assert "stagelint.pipeline.cache" in edges["stagelint.pipeline.screen"]


def test_no_import_circle_touches_the_pipeline():
    found = circles(graph())
    assert [c for c in found if any(_in_pipeline(m) for m in c)] == []


def test_no_import_circle_anywhere():
    assert circles(graph()) == []


def _rule_module(module: str) -> bool:
    return module.startswith("stagelint.rules.") and module != "stagelint.rules.base"


def test_no_rule_module_imports_another_and_only_the_catalog_imports_them():
    """A helper two rules need lives in `stagelint/analysis/`; the rule modules are imported by
    the catalog (`stagelint.rules`, which registers them) and by nothing else in the package."""
    for module, targets in graph().items():
        if module == "stagelint.rules":
            continue
        assert not [t for t in targets if _rule_module(t)], module


def test_the_finders_see_a_rule_importing_a_rule_and_a_function_local_circle(tmp_path):
    edges = graph(_package(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/rules/__init__.py": "from pkg.rules import a, b\n",
        "pkg/rules/a.py": "from pkg.rules.b import helper\n",
        "pkg/rules/b.py": "def helper():\n    from pkg.low import x\n",
        "pkg/low.py": "def x():\n    from pkg.rules import b\n",
    }))
    assert edges["pkg.rules.a"] == {"pkg.rules.b"}
    assert any({"pkg.rules.b", "pkg.low"} <= c for c in circles(edges))  # two function-local imports


def test_the_finder_sees_a_circle_through_a_package_init(tmp_path):
    """`from pkg.report.fix import x` runs `pkg/report/__init__.py` first: when that imports
    the module that asked, Python fails with a partially initialised module, a circle."""
    edges = graph(_package(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/rules/__init__.py": "from pkg.rules import a\n",
        "pkg/rules/a.py": "from pkg.report.fix import helper\n",
        "pkg/report/__init__.py": "from pkg.report import sarif\n",
        "pkg/report/fix.py": "def helper():\n    pass\n",
        "pkg/report/sarif.py": "from pkg.rules import a\n",
    }))
    assert "pkg.report" in edges["pkg.rules.a"]
    assert "pkg.rules" not in edges["pkg.rules.a"]  # its own package: no arrow
    assert any({"pkg.rules.a", "pkg.report", "pkg.report.sarif"} <= c for c in circles(edges))


def test_the_layers_import_nothing_above_them():
    """Framework data knows nothing of the analysis; the per-file context knows nothing of the
    value model or the walk above it (they ask it, it never asks them)."""
    edges = graph()
    allowed: set[str] = set()
    for layer in LAYERS:
        allowed |= set(layer)
        for module, targets in edges.items():
            if any(module == m or module.startswith(m + ".") for m in layer):
                above = [t for t in targets if not any(t == a or t.startswith(a + ".") for a in allowed)]
                assert above == [], (module, above)


def test_the_pipeline_does_not_import_the_engine():
    edges = graph()
    for module, targets in edges.items():
        if module.startswith("stagelint.pipeline") or module in ("stagelint.pipeline.screen", "stagelint.pipeline.workers",
                                                                  "stagelint.pipeline.demand", "stagelint.pipeline.discovery"):
            assert "stagelint.engine" not in targets, module


def test_the_analysis_and_the_framework_data_import_no_rule():
    """Rules ask the analysis, never the other way: nothing under `stagelint.analysis` or
    `stagelint.frameworks` imports `stagelint.rules` or any module of it (`rules.base` included)."""
    for module, targets in graph().items():
        if module.startswith(("stagelint.analysis", "stagelint.frameworks")):
            assert not [t for t in targets if t == "stagelint.rules" or t.startswith("stagelint.rules.")], module


def private_uses(path: Path, context: bool = True) -> list[str]:
    """What a module takes of others by a leading-underscore name: `from m import _helper`, `m._helper`
    of a module it imports, the project's private methods (`project._x`, `self.project._x`: what
    `staging.Project` offers the analysis is public), and (`context`) the file context's private
    state (`ctx._x`, `self.ctx._x`)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    private = lambda name: name.startswith("_") and not name.startswith("__")  # noqa: E731
    modules, out = set(), []
    for node in ast.walk(tree):  # the package's own modules (libcst's private classes are libcst's affair)
        if isinstance(node, ast.ImportFrom) and (node.level or (node.module or "").startswith("stagelint")):
            out += [f"{node.lineno}: from {node.module} import {a.name}" for a in node.names if private(a.name)]
            modules.update(a.asname or a.name for a in node.names)
        elif isinstance(node, ast.Import):
            modules.update(a.asname or a.name.split(".")[0] for a in node.names if a.name.startswith("stagelint"))
    for node in ast.walk(tree):
        if not isinstance(node, ast.Attribute) or not private(node.attr):
            continue
        base = node.value
        of_context = context and ((isinstance(base, ast.Name) and base.id == "ctx") or (
            isinstance(base, ast.Attribute) and base.attr == "ctx"))
        of_project = (isinstance(base, ast.Name) and base.id == "project") or (
            isinstance(base, ast.Attribute) and base.attr == "project")
        if of_context or of_project or (isinstance(base, ast.Name) and base.id in modules):
            out.append(f"{node.lineno}: {ast.unparse(node)}")
    return out


def test_rules_take_nothing_private_of_the_analysis():
    """A question two places ask is public in `stagelint/analysis/` (or on the file context): a
    rule module takes no leading-underscore name from another module, reads none of a module it
    imports, and none of the file context's private state."""
    for module, path in _modules().items():
        if module.startswith("stagelint.rules"):
            assert private_uses(path) == [], module


def test_analysis_modules_take_no_private_name_of_each_other():
    """A helper one analysis module offers another is public (the walk and the JAX staging
    views still fill the file context's private state: that part is not asked here)."""
    for module, path in _modules().items():
        if module.startswith("stagelint.analysis"):
            assert private_uses(path, context=False) == [], module


def test_the_finder_sees_private_uses(tmp_path):
    path = tmp_path / "rule.py"
    path.write_text("from stagelint.analysis import facts as F, _helper\nfrom stagelint.analysis.ctx import public\n"
                    "from libcst import _private\nimport libcst as cst\n"
                    "def f(ctx, self, project):\n    F._memo(ctx._saved, self.ctx._meta, self._own, public.__name__, cst._x)\n"
                    "    project._bfs(project.reach_from, self.project._method)\n")
    assert private_uses(path) == ["1: from stagelint.analysis import _helper", "6: F._memo", "6: ctx._saved",
                                  "6: self.ctx._meta", "7: project._bfs", "7: self.project._method"]
    assert private_uses(path, context=False) == ["1: from stagelint.analysis import _helper", "6: F._memo",
                                                 "7: project._bfs", "7: self.project._method"]
