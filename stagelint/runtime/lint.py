"""The static half of `stagelint run`: which files to lint, and the call into the engine.

The files are the test module and the project modules it imports, followed transitively
(standard library and installed packages are not the project). Imports are resolved by path,
without importing anything, so linting never runs the user's code.
"""

from __future__ import annotations

import ast
import contextlib
import os
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the engine's types: `stagelint run` starts its runs before it loads the engine
    from stagelint.findings import CheckResult


def _module_file(name: str, roots: list[Path]) -> Path | None:
    parts = name.split(".")
    for root in roots:
        base = root.joinpath(*parts)
        for candidate in (base.with_suffix(".py"), base / "__init__.py"):
            if candidate.is_file():
                return candidate
    return None


#: What `_imports` may report: every import; those that run when the file is imported; those that
#: run whenever it is imported (not under an `if` or in an `except` handler).
WHEN = ("any", "import", "always")

#: Inside `reading_once`: path -> {when: imports}, so that each file is parsed once.
_scans: dict[Path, dict[str, list[tuple[str, int, list[str]]]]] | None = None


@contextlib.contextmanager
def reading_once():
    """Parse each file once for the import scans made inside: `stagelint run` follows the same
    project files for the frameworks the session imports, then for the files to lint, then for
    what each test module imports directly (a Keras test module reaches 440 files)."""
    global _scans
    outer, _scans = _scans, ({} if _scans is None else _scans)
    try:
        yield
    finally:
        _scans = outer


def _imports(path: Path, when: str = "any") -> list[tuple[str, int, list[str]]]:
    """(module, relative level, imported names) for the imports of a file (`WHEN`): with
    "import", only those that run when the file is imported: not in a function's body (it runs when
    called), not under `if TYPE_CHECKING:`; with "always", not under any `if` or in an `except`
    handler either (`if backend() == "jax":` imports JAX only where that backend is configured)."""
    if _scans is not None and path in _scans:
        return _scans[path][when]
    try:
        tree = ast.parse(path.read_bytes(), filename=str(path))
    except (SyntaxError, ValueError, OSError):
        return []
    found = {"any": _import_list(ast.walk(tree)), "import": _import_list(_executed_at_import(tree, False)),
             "always": _import_list(_executed_at_import(tree, True))}
    if _scans is not None:
        _scans[path] = found
    return found[when]


def _import_list(nodes) -> list[tuple[str, int, list[str]]]:
    out = []
    for node in nodes:
        if isinstance(node, ast.Import):
            out.extend((alias.name, 0, []) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            out.append((node.module or "", node.level, [a.name for a in node.names]))
    return out


def _executed_at_import(tree: ast.Module, always: bool) -> list[ast.AST]:
    """The statements of a module that run when it is imported (class bodies do; function bodies
    and `if TYPE_CHECKING:` blocks do not); with `always`, only those that run whatever the
    conditions (no `if` body or branch, no `except` handler, no `case`)."""
    out, stack = [], list(reversed(tree.body))
    while stack:
        node = stack.pop()
        out.append(node)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        if isinstance(node, ast.If) and _type_checking(node.test):
            stack.extend(reversed(node.orelse))
            continue
        if always and isinstance(node, ast.If):
            continue
        for child in reversed(list(ast.iter_child_nodes(node))):
            if always and isinstance(child, (ast.excepthandler, ast.match_case)):
                continue
            if isinstance(child, (ast.stmt, ast.excepthandler, ast.match_case)):
                stack.append(child)
    return out


def _type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or \
        (isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _roots(test_module: Path, project_root: Path) -> list[Path]:
    """Where absolute imports may resolve inside the project: the test's directory and its
    parents up to the project root, the root itself and its `src/`."""
    roots = []
    here = test_module.parent
    while True:
        roots.append(here)
        if here == project_root or here.parent == here:
            break
        here = here.parent
    roots += [project_root, project_root / "src"]
    return list(dict.fromkeys(r for r in roots if r.is_dir()))


def project_root_of(path: Path) -> Path:
    for directory in (path.parent, *path.parents):
        if any((directory / marker).exists() for marker in ("pyproject.toml", "setup.py", "setup.cfg", ".git")):
            return directory
    return path.parent


def direct_imports(test_module: str) -> list[str]:
    """The project modules the test module imports by name (one step, not transitively)."""
    return project_files(test_module, transitive=False)[1:]


def project_files(test_module: str, transitive: bool = True, when: str = "any") -> list[str]:
    """The test module followed by the project modules it imports, transitively. With `when`
    "import" or "always", only what importing the test module imports: the imports `_imports` says
    run then, and the packages a dotted module lives in (their `__init__.py` runs first)."""
    start = Path(test_module).resolve()
    root = project_root_of(start)
    roots = _roots(start, root)
    seen: dict[Path, None] = {start: None}
    queue = [start]
    while queue:
        path = queue.pop()
        if path != start and not transitive:
            continue
        package = path.parent
        for module, level, names in _imports(path, when):
            if level:
                base = package
                for _ in range(level - 1):
                    base = base.parent
                search = [base]
                full = module
            else:
                search, full = roots, module
            candidates = []
            if full:
                candidates.append(_module_file(full, search))
                if when != "any":
                    parts = full.split(".")
                    candidates += [_module_file(".".join(parts[:i]), search) for i in range(1, len(parts))]
            for name in names:  # `from pkg import submodule`
                candidates.append(_module_file(f"{full}.{name}" if full else name, search))
            for found in candidates:
                if found is not None and found not in seen and _inside(found, root):
                    seen[found] = None
                    queue.append(found)
    return [_display(p) for p in seen]


def _inside(path: Path, root: Path) -> bool:
    try:
        rel = path.relative_to(root)
    except ValueError:
        return False
    return not any(part in (".venv", "venv", "site-packages", "node_modules", ".git") for part in rel.parts)


def _display(path: Path) -> str:
    rel = os.path.relpath(path)
    return str(path) if rel.startswith("..") else rel


def static_findings(paths: list[str], start_dir: str = ".", cache: bool = True,
                    cache_dir: str | None = None, preview: bool | None = None) -> CheckResult:
    """The integration point with the static engine (`stagelint.engine.check_paths`), through the
    result cache `stagelint check` keeps (`stagelint.pipeline.cache`): a test module reaches much of its
    project (a Keras test imports some 440 files of Keras, 50 s of CPU to analyse cold), which
    a later run, of this module or a sibling, need not analyse again while the files are unchanged.

    Raises ImportError when the engine is not there, so the caller can say so.
    """
    from stagelint.pipeline.cache import open_cache
    from stagelint.config import load_settings
    from stagelint.engine import check_paths

    # A rule held back in one framework's code (`Rule.preview_under`) is judged here by what the
    # runs observe, as every other static finding is.
    # `preview` (the command line's) overrides the configuration's preview tier; None keeps it.
    settings = load_settings(start_dir).with_overrides(framework_tiers=False, preview=preview)
    return check_paths(paths, settings, cache=open_cache(paths, enabled=cache, directory=cache_dir))
